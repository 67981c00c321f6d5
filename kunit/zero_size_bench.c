// SPDX-License-Identifier: GPL-2.0
/*
 * Micro-benchmarks for the zero-size contract, run in a guest by
 * "make bench". Prints one "zsp-bench: <name> <median> <min> <max> <unit>"
 * line per measurement; the harness compares ratios between allocators and
 * trees, never absolute times (guests run under TCG).
 *
 * "make bench" boots this module twice per cell: under TCG's wall clock
 * (noisy: the host's load moves it) and with QEMU's -icount shift=0,
 * where the guest's clock advances one nanosecond per instruction
 * executed: there a time below is an instruction count, and the host
 * cannot move it. Units are picoseconds per call (ps) so that a cost of a
 * few instructions keeps three digits after the division by the loop.
 */

#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

#include "zsp_vmstat.h"

/* 6.12 has only kvfree_rcu_mightsleep(ptr) for the head-less form. */
#ifndef kvfree_rcu_mightsleep
#define kvfree_rcu_mightsleep(ptr)	kvfree_rcu(ptr)
#endif

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

/*
 * p[0..n) = kmalloc(size(i)), or nothing: on a failure what was allocated
 * is freed and false returned (a NULL in a free below would be measured
 * on vanilla kernels as an oops).
 */
static bool fill(void **p, int n, size_t (*size)(int i))
{
	int i;

	for (i = 0; i < n; i++) {
		p[i] = kmalloc(size(i), GFP_KERNEL);
		if (!p[i]) {
			while (i--)
				kfree(p[i]);
			return false;
		}
	}
	return true;
}

static size_t small(int i)
{
	return 64;
}

/* 8 to 4096 bytes, each object of another kmalloc cache than its neighbour. */
static size_t mixed(int i)
{
	return 8 << (i % 10);
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
 * Nanoseconds per kfree_bulk() of BULK objects of size(i): the fastest of
 * BULK_ROUNDS calls, per round. A call takes ~0.1 ms under TCG, and one
 * cut by the host's scheduler (4 ms slices, with QEMU's other threads on
 * two cores) would swamp the difference sought; the fastest call was not.
 */
static void bench_kfree_bulk(const char *name, size_t (*size)(int i))
{
	void **p = vmalloc(array_size(BULK, sizeof(*p)));
	u64 v[ROUNDS];
	int r, k;

	if (!p)
		return;
	for (r = 0; r < ROUNDS; r++) {
		u64 best = U64_MAX;

		for (k = 0; k < BULK_ROUNDS; k++) {
			u64 t0;

			if (!fill(p, BULK, size))
				goto out;
			t0 = ktime_get_ns();
			kfree_bulk(BULK, p);
			best = min(best, ktime_get_ns() - t0);
		}
		v[r] = best;
	}
	report(name, v, "ns");
out:
	vfree(p);
}

/* Picoseconds per kmem_cache_free() of a 64-byte object, the free alone. */
static void bench_kmem_cache_free(void)
{
	struct kmem_cache *c = kmem_cache_create("zsp_bench", 64, 0, 0, NULL);
	void **p = vmalloc(array_size(BULK, sizeof(*p)));
	u64 v[ROUNDS];
	int r, k, i;

	if (!c || !p)
		goto out;
	for (r = 0; r < ROUNDS; r++) {
		u64 ns = 0;

		for (k = 0; k < BULK_ROUNDS; k++) {
			u64 t0;

			for (i = 0; i < BULK; i++) {
				p[i] = kmem_cache_alloc(c, GFP_KERNEL);
				if (!p[i]) {
					while (i--)
						kmem_cache_free(c, p[i]);
					goto out;
				}
			}
			t0 = ktime_get_ns();
			for (i = 0; i < BULK; i++)
				kmem_cache_free(c, p[i]);
			ns += ktime_get_ns() - t0;
		}
		v[r] = ns * 1000 / (BULK * BULK_ROUNDS);
	}
	report("kmem_cache_free", v, "ps");
out:
	vfree(p);
	kmem_cache_destroy(c);
}

/*
 * Picoseconds per head-less kvfree_rcu() of a 64-byte object: the
 * queueing, which the series' check is in. The batches are freed by a
 * worker after a grace period, maybe during a later round (the median
 * leaves such a round out): this runs last, so that no other figure has
 * them in its window.
 */
static void bench_kvfree_rcu(void)
{
	void **p = vmalloc(array_size(BULK, sizeof(*p)));
	u64 v[ROUNDS];
	int r, i;

	if (!p)
		return;
	for (r = 0; r < ROUNDS; r++) {
		u64 t0;

		if (!fill(p, BULK, small))
			goto out;
		t0 = ktime_get_ns();
		for (i = 0; i < BULK; i++)
			kvfree_rcu_mightsleep(p[i]);
		v[r] = (ktime_get_ns() - t0) * 1000 / BULK;
	}
	report("kvfree_rcu", v, "ps");
out:
	vfree(p);
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
	bench_kfree_bulk("kfree_bulk_1000", small);
	/*
	 * Every object of another kmalloc cache than its neighbour: each one
	 * starts a new detached freelist in SLUB, the bulk path's costliest case.
	 */
	bench_kfree_bulk("kfree_bulk_mixed_1000", mixed);
	bench_kmem_cache_free();
	bench_zero_bytes();
	bench_kvfree_rcu();
	pr_info("zsp-bench: done\n");
	return 0;
}
module_init(zero_size_bench_init);

MODULE_DESCRIPTION("Micro-benchmarks for the zero-size allocation contract");
MODULE_LICENSE("GPL");
