// SPDX-License-Identifier: GPL-2.0
/*
 * Z1, allocate zero bytes: every kmalloc-family request for 0 bytes
 * returns ZERO_SIZE_PTR, and takes no memory (suite zero_size_alloc).
 */

#include <kunit/test.h>
#include <linux/device.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "zero_size_test.h"

static void z1_kmalloc(struct kunit *test)
{
	void *p = kmalloc(0, GFP_KERNEL);

	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
	p = kmalloc(zsp_runtime_zero(), GFP_KERNEL);
	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
	kfree(p);
}

static void z1_kmalloc_node(struct kunit *test)
{
	void *p = kmalloc_node(zsp_runtime_zero(), GFP_KERNEL, NUMA_NO_NODE);

	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
	p = kmalloc_node(0, GFP_KERNEL, numa_node_id());
	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
}

static void z1_kzalloc(struct kunit *test)
{
	KUNIT_EXPECT_PTR_EQ(test, kzalloc(0, GFP_KERNEL), ZERO_SIZE_PTR);
	KUNIT_EXPECT_PTR_EQ(test, kzalloc(zsp_runtime_zero(), GFP_KERNEL), ZERO_SIZE_PTR);
}

static void z1_kcalloc(struct kunit *test)
{
	KUNIT_EXPECT_PTR_EQ(test, kcalloc(zsp_runtime_zero(), 16, GFP_KERNEL), ZERO_SIZE_PTR);
	KUNIT_EXPECT_PTR_EQ(test, kcalloc(16, zsp_runtime_zero(), GFP_KERNEL), ZERO_SIZE_PTR);
}

static void z1_kmalloc_array(struct kunit *test)
{
	KUNIT_EXPECT_PTR_EQ(test, kmalloc_array(zsp_runtime_zero(), 8, GFP_KERNEL), ZERO_SIZE_PTR);
	KUNIT_EXPECT_PTR_EQ(test, kmalloc_array(8, zsp_runtime_zero(), GFP_KERNEL), ZERO_SIZE_PTR);
}

static void z1_kmalloc_track_caller(struct kunit *test)
{
	KUNIT_EXPECT_PTR_EQ(test, kmalloc_track_caller(zsp_runtime_zero(), GFP_KERNEL),
			    ZERO_SIZE_PTR);
}

static void z1_kmemdup(struct kunit *test)
{
	static const char src[] = "x";

	KUNIT_EXPECT_PTR_EQ(test, kmemdup(src, zsp_runtime_zero(), GFP_KERNEL), ZERO_SIZE_PTR);
}

static void z1_kvmalloc(struct kunit *test)
{
	void *p = kvmalloc(zsp_runtime_zero(), GFP_KERNEL);

	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
	kvfree(p);
}

static void z1_devm_kmalloc(struct kunit *test)
{
	struct device *dev = __root_device_register("zsp_z1", NULL);
	void *p;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	p = devm_kmalloc(dev, zsp_runtime_zero(), GFP_KERNEL);
	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
	root_device_unregister(dev);
}

/*
 * A kmalloc mempool of size 0: its reserve is ZSP_NR_POOL sentinels, and
 * elements come from kmalloc(0) or the reserve; freeing refills it.
 */
static void exercise_zero_mempool(struct kunit *test, gfp_t gfp)
{
	mempool_t *pool = mempool_create_kmalloc_pool(ZSP_NR_POOL, zsp_runtime_zero());
	void *e[2 * ZSP_NR_POOL];
	int i, not_zsp = 0;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pool);
	for (i = 0; i < ARRAY_SIZE(e); i++) {
		e[i] = mempool_alloc(pool, gfp);
		not_zsp += e[i] != ZERO_SIZE_PTR;
	}
	for (i = 0; i < ARRAY_SIZE(e); i++)
		if (e[i])
			mempool_free(e[i], pool);
	KUNIT_EXPECT_EQ_MSG(test, not_zsp, 0, "mempool elements that are not ZERO_SIZE_PTR");
	KUNIT_EXPECT_EQ(test, pool->curr_nr, ZSP_NR_POOL);
	mempool_destroy(pool);
}

#define NR_ELEMENTS	4096

/*
 * Then many elements held at once, beyond the reserve: were they real
 * allocations of even a few bytes, the slab page counter would show them.
 */
static void z1_mempool_kmalloc_pool(struct kunit *test)
{
	mempool_t *pool = mempool_create_kmalloc_pool(ZSP_NR_POOL, zsp_runtime_zero());
	void **e = zsp_scratch(test, NR_ELEMENTS);
	int i, not_zsp = 0;
	long before, held;

	exercise_zero_mempool(test, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pool);
	before = zsp_slab_pages();
	for (i = 0; i < NR_ELEMENTS; i++) {
		e[i] = mempool_alloc(pool, GFP_KERNEL);
		not_zsp += e[i] != ZERO_SIZE_PTR;
	}
	held = zsp_slab_pages() - before;
	for (i = 0; i < NR_ELEMENTS; i++)
		if (e[i])
			mempool_free(e[i], pool);
	mempool_destroy(pool);
	KUNIT_EXPECT_EQ(test, not_zsp, 0);
	KUNIT_EXPECT_LE_MSG(test, held, (long)ZSP_SLACK_PAGES,
			    "%d mempool elements took %ld slab pages", NR_ELEMENTS, held);
}

/*
 * ZSP_MANY requests take seconds under KASAN and lockdep in a TCG guest, more
 * than the soft lockup detector allows a CPU without a reschedule: let
 * the scheduler in every CHUNK of them. @atomic: each chunk still runs
 * with preemption off, only the gap between two is preemptible.
 */
#define CHUNK		4096

static void yield_every_chunk(int i, bool atomic)
{
	if ((i + 1) % CHUNK)
		return;
	if (atomic)
		preempt_enable();
	cond_resched();
	if (atomic)
		preempt_disable();
}

/*
 * ZSP_MANY zero-size allocations, kept alive, must not move the slab page
 * counter; the same number of 8-byte ones must (or the counter proves
 * nothing). @atomic: the zero-size ones with preemption off.
 */
void zsp_no_slab_memory(struct kunit *test, bool atomic)
{
	void **p = vmalloc(array_size(ZSP_MANY, sizeof(*p)));
	long before, zero_delta, eight_delta;
	int i, not_zsp = 0;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	before = zsp_slab_pages();
	if (atomic)
		zsp_atomic_begin();
	for (i = 0; i < ZSP_MANY; i++) {
		p[i] = kmalloc(zsp_runtime_zero(), GFP_KERNEL);
		not_zsp += p[i] != ZERO_SIZE_PTR;
		yield_every_chunk(i, atomic);
	}
	if (atomic)
		preempt_enable();
	zero_delta = zsp_slab_pages() - before;
	for (i = 0; i < ZSP_MANY; i++)
		kfree(p[i]);

	before = zsp_slab_pages();
	for (i = 0; i < ZSP_MANY; i++) {
		p[i] = kmalloc(8, GFP_KERNEL);
		yield_every_chunk(i, false);
	}
	eight_delta = zsp_slab_pages() - before;
	for (i = 0; i < ZSP_MANY; i++) {
		kfree(p[i]);
		yield_every_chunk(i, false);
	}
	vfree(p);

	KUNIT_EXPECT_EQ(test, not_zsp, 0);
	KUNIT_EXPECT_GE_MSG(test, eight_delta, (long)(ZSP_MANY * 8 / PAGE_SIZE / 2),
			    "8-byte allocations did not show in the counter");
	KUNIT_EXPECT_LE_MSG(test, zero_delta, (long)ZSP_SLACK_PAGES,
			    "%lu zero-size allocations took %ld slab pages", ZSP_MANY, zero_delta);
}

static void z1_no_slab_memory(struct kunit *test)
{
	zsp_no_slab_memory(test, false);
}

struct kunit_case zsp_z1_cases[] = {
	KUNIT_CASE(z1_kmalloc),
	KUNIT_CASE(z1_kmalloc_node),
	KUNIT_CASE(z1_kzalloc),
	KUNIT_CASE(z1_kcalloc),
	KUNIT_CASE(z1_kmalloc_array),
	KUNIT_CASE(z1_kmalloc_track_caller),
	KUNIT_CASE(z1_kmemdup),
	KUNIT_CASE(z1_kvmalloc),
	KUNIT_CASE(z1_devm_kmalloc),
	KUNIT_CASE(z1_mempool_kmalloc_pool),
	KUNIT_CASE(z1_no_slab_memory),
	{}
};
