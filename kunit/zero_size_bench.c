// SPDX-License-Identifier: GPL-2.0
/*
 * Micro-benchmarks for the zero-size contract, run in a guest by
 * "make bench". Prints one "zsp-bench: <name> <median> <min> <max> <unit>"
 * line per measurement; the harness compares ratios between allocators and
 * trees, never absolute times (guests run under TCG).
 */

#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

#include "zsp_vmstat.h"

#define ROUNDS		9
#define PAIRS		BIT(18)
#define BULK		1000
#define BULK_ROUNDS	64
#define MANY		1000000

static size_t runtime_size(size_t size)
{
	OPTIMIZER_HIDE_VAR(size);
	return size;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *name, u64 *v, const char *unit)
{
	sort(v, ROUNDS, sizeof(*v), cmp_u64, NULL);
	pr_info("zsp-bench: %s %llu %llu %llu %s\n", name, v[ROUNDS / 2],
		v[0], v[ROUNDS - 1], unit);
}

/* Picoseconds per kmalloc(size)+kfree() pair, ROUNDS times. */
static void bench_pair(const char *name, size_t size)
{
	u64 v[ROUNDS];
	int r, i;

	for (r = 0; r < ROUNDS; r++) {
		u64 t0 = ktime_get_ns();

		for (i = 0; i < PAIRS; i++)
			kfree(kmalloc(runtime_size(size), GFP_KERNEL));
		v[r] = (ktime_get_ns() - t0) * 1000 / PAIRS;
	}
	report(name, v, "ps");
}

/*
 * Nanoseconds per kfree_bulk() of BULK 64-byte objects: the fastest of
 * BULK_ROUNDS calls, per round. A call takes ~0.1 ms under TCG, and one
 * cut by the host's scheduler (4 ms slices, with QEMU's other threads on
 * two cores) would swamp the difference sought; the fastest call was not.
 */
static void bench_kfree_bulk(void)
{
	void **p = vmalloc(array_size(BULK, sizeof(*p)));
	u64 v[ROUNDS];
	int r, k, i;

	if (!p)
		return;
	for (r = 0; r < ROUNDS; r++) {
		u64 best = U64_MAX;

		for (k = 0; k < BULK_ROUNDS; k++) {
			u64 t0;

			for (i = 0; i < BULK; i++)
				p[i] = kmalloc(64, GFP_KERNEL);
			t0 = ktime_get_ns();
			kfree_bulk(BULK, p);
			best = min(best, ktime_get_ns() - t0);
		}
		v[r] = best;
	}
	vfree(p);
	report("kfree_bulk_1000", v, "ns");
}

/* Slab bytes held by MANY live zero-size allocations. */
static void bench_zero_bytes(void)
{
	void **p = vmalloc(array_size(MANY, sizeof(*p)));
	u64 v[ROUNDS];
	long before;
	int r, i;

	if (!p)
		return;
	for (r = 0; r < ROUNDS; r++) {
		before = zsp_slab_pages();
		for (i = 0; i < MANY; i++)
			p[i] = kmalloc(runtime_size(0), GFP_KERNEL);
		v[r] = max(0L, zsp_slab_pages() - before) * PAGE_SIZE;
		for (i = 0; i < MANY; i++)
			kfree(p[i]);
	}
	vfree(p);
	report("zero_alloc_1e6_bytes", v, "B");
}

static int __init zero_size_bench_init(void)
{
	bench_pair("kmalloc0_kfree", 0);
	bench_pair("kmalloc8_kfree", 8);
	bench_kfree_bulk();
	bench_zero_bytes();
	pr_info("zsp-bench: done\n");
	return 0;
}
module_init(zero_size_bench_init);

MODULE_DESCRIPTION("Micro-benchmarks for the zero-size allocation contract");
MODULE_LICENSE("GPL");
