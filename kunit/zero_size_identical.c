// SPDX-License-Identifier: GPL-2.0
/*
 * Z7, identical on every allocator: no allocator warns or checks for
 * sleeping differently for a zero-size request, which allocates nothing
 * and so cannot sleep: each Z1 API in atomic context (suite
 * zero_size_identical). The harness compares the other suites' results
 * across the allocators (its same_on_all_allocators row).
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/mempool.h>
#include <linux/preempt.h>
#include <linux/slab.h>

#include "zero_size_test.h"

/*
 * Atomic context for a zero-size request. __might_resched() prints at
 * most one splat a second: let that second pass first, so that an earlier
 * case's splat cannot silence this one's.
 */
void zsp_atomic_begin(void)
{
	msleep(jiffies_to_msecs(HZ) + 100);
	preempt_disable();
}

/*
 * A zero-size request allocates nothing and so cannot sleep: no allocator
 * may complain about it in atomic context. Each Z1 API runs with
 * preemption off and GFP_KERNEL (the flag might_alloc() checks); the
 * harness fails the case on any splat printed while it runs.
 */
static void z7_kmalloc_zero_atomic(struct kunit *test)
{
	void *p;

	zsp_atomic_begin();
	p = kmalloc(zsp_runtime_zero(), GFP_KERNEL);
	preempt_enable();
	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
}

static void z7_kmalloc_node_atomic(struct kunit *test)
{
	void *p;

	zsp_atomic_begin();
	p = kmalloc_node(zsp_runtime_zero(), GFP_KERNEL, NUMA_NO_NODE);
	preempt_enable();
	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
}

static void z7_kzalloc_kcalloc_atomic(struct kunit *test)
{
	void *p[4];

	zsp_atomic_begin();
	p[0] = kzalloc(zsp_runtime_zero(), GFP_KERNEL);
	p[1] = kcalloc(zsp_runtime_zero(), 16, GFP_KERNEL);
	p[2] = kcalloc(16, zsp_runtime_zero(), GFP_KERNEL);
	p[3] = kmalloc_array(8, zsp_runtime_zero(), GFP_KERNEL);
	preempt_enable();
	KUNIT_EXPECT_PTR_EQ(test, p[0], ZERO_SIZE_PTR);
	KUNIT_EXPECT_PTR_EQ(test, p[1], ZERO_SIZE_PTR);
	KUNIT_EXPECT_PTR_EQ(test, p[2], ZERO_SIZE_PTR);
	KUNIT_EXPECT_PTR_EQ(test, p[3], ZERO_SIZE_PTR);
}

static void z7_track_caller_kmemdup_atomic(struct kunit *test)
{
	static const char src[] = "x";
	void *p, *q;

	zsp_atomic_begin();
	p = kmalloc_track_caller(zsp_runtime_zero(), GFP_KERNEL);
	q = kmemdup(src, zsp_runtime_zero(), GFP_KERNEL);
	preempt_enable();
	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
	KUNIT_EXPECT_PTR_EQ(test, q, ZERO_SIZE_PTR);
}

static void z7_kvmalloc_atomic(struct kunit *test)
{
	void *p;

	zsp_atomic_begin();
	p = kvmalloc(zsp_runtime_zero(), GFP_KERNEL);
	preempt_enable();
	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
}

static void z7_devm_kmalloc_atomic(struct kunit *test)
{
	struct device *dev = __root_device_register("zsp_z7", NULL);
	void *p;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	zsp_atomic_begin();
	p = devm_kmalloc(dev, zsp_runtime_zero(), GFP_KERNEL);
	preempt_enable();
	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
	root_device_unregister(dev);
}

/* A pool may sleep for a GFP_KERNEL element: atomic users ask GFP_ATOMIC. */
static void z7_mempool_atomic(struct kunit *test)
{
	mempool_t *pool = mempool_create_kmalloc_pool(ZSP_NR_POOL, zsp_runtime_zero());
	void *e[2 * ZSP_NR_POOL];
	int i, not_zsp = 0;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pool);
	zsp_atomic_begin();
	for (i = 0; i < ARRAY_SIZE(e); i++) {
		e[i] = mempool_alloc(pool, GFP_ATOMIC);
		not_zsp += e[i] != ZERO_SIZE_PTR;
	}
	for (i = 0; i < ARRAY_SIZE(e); i++)
		if (e[i])
			mempool_free(e[i], pool);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, not_zsp, 0);
	mempool_destroy(pool);
}

static void z7_no_slab_memory_atomic(struct kunit *test)
{
	zsp_no_slab_memory(test, true);
}

struct kunit_case zsp_z7_cases[] = {
	KUNIT_CASE(z7_kmalloc_zero_atomic),
	KUNIT_CASE(z7_kmalloc_node_atomic),
	KUNIT_CASE(z7_kzalloc_kcalloc_atomic),
	KUNIT_CASE(z7_track_caller_kmemdup_atomic),
	KUNIT_CASE(z7_kvmalloc_atomic),
	KUNIT_CASE(z7_devm_kmalloc_atomic),
	KUNIT_CASE(z7_mempool_atomic),
	KUNIT_CASE(z7_no_slab_memory_atomic),
	{}
};
