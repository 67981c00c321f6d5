// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the zero-size allocation contract (DESIGN.md Z1-Z7).
 *
 * Built out of tree so that the same source runs against vanilla and
 * patched 6.1 kernels with SLAB, SLUB and SLOB. On vanilla kernels some
 * cases oops, divide by zero or spin under slab_mutex; the harness reads
 * the "zsp-start" line each case prints first, kills the guest and resumes
 * the remaining cases in a fresh boot; zero_size_plan names the cases
 * that already have a result. Skipped cases are never counted as passed.
 *
 * A case that is meant to oops (Z6) prints "zsp-expect-oops" first so
 * that the harness lets the guest run on and checks the oops it prints.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "zero_size_plan.h"
#include "zsp_vmstat.h"

/* Enough zero-size requests that one byte of slab each would show. */
#define MANY		BIT(16)
/* Objects large enough to come from and go back to whole pages. */
#define BIG		(4 * PAGE_SIZE)
#define NR_BIG		64
/* Background noise of the slab page counter in a quiet guest. */
#define SLACK_PAGES	16

/*
 * An empty struct: GNU C gives it size 0, as configuration options can
 * give a struct that a KMEM_CACHE() user still allocates.
 */
struct zsp_empty {
};

struct zsp_rcu_obj {
	struct rcu_head rcu;
	long data;
};

/* Runtime zero the compiler cannot see, to reach the out-of-line paths. */
static size_t runtime_zero(void)
{
	size_t zero = 0;

	OPTIMIZER_HIDE_VAR(zero);
	return zero;
}

static int zsp_case_init(struct kunit *test)
{
	if (zero_size_plan_skips(test->name))
		kunit_skip(test, "zsp-not-selected");
	kunit_info(test, "zsp-start\n");
	return 0;
}

/* Give freed kmalloc(BIG) memory back to the page allocator. */
static void shrink_kmalloc_big(void)
{
#ifndef CONFIG_SLOB
	/* SLOB hands BIG requests to the page allocator directly. */
	struct kmem_cache *s = kmalloc_caches[KMALLOC_NORMAL][kmalloc_index(BIG)];

	if (s)
		kmem_cache_shrink(s);
#endif
}

/* Real objects given to a free API must come back: nothing leaked. */
static void expect_pages_back(struct kunit *test, long before, long during)
{
	long after = zsp_slab_pages();

	KUNIT_EXPECT_GE_MSG(test, during - before, (long)(NR_BIG * BIG / PAGE_SIZE / 2),
			    "the slab page counter did not see the allocations");
	KUNIT_EXPECT_LE_MSG(test, after - before, (long)SLACK_PAGES,
			    "%ld slab pages not freed", after - before);
}

/* ---- Z1: allocate zero bytes ------------------------------------------ */

static void z1_kmalloc(struct kunit *test)
{
	void *p = kmalloc(0, GFP_KERNEL);

	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
	p = kmalloc(runtime_zero(), GFP_KERNEL);
	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
	kfree(p);
}

static void z1_kmalloc_node(struct kunit *test)
{
	void *p = kmalloc_node(runtime_zero(), GFP_KERNEL, NUMA_NO_NODE);

	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
	p = kmalloc_node(0, GFP_KERNEL, numa_node_id());
	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
}

static void z1_kzalloc(struct kunit *test)
{
	KUNIT_EXPECT_PTR_EQ(test, kzalloc(0, GFP_KERNEL), ZERO_SIZE_PTR);
	KUNIT_EXPECT_PTR_EQ(test, kzalloc(runtime_zero(), GFP_KERNEL), ZERO_SIZE_PTR);
}

static void z1_kcalloc(struct kunit *test)
{
	KUNIT_EXPECT_PTR_EQ(test, kcalloc(runtime_zero(), 16, GFP_KERNEL), ZERO_SIZE_PTR);
	KUNIT_EXPECT_PTR_EQ(test, kcalloc(16, runtime_zero(), GFP_KERNEL), ZERO_SIZE_PTR);
}

static void z1_kmalloc_array(struct kunit *test)
{
	KUNIT_EXPECT_PTR_EQ(test, kmalloc_array(runtime_zero(), 8, GFP_KERNEL), ZERO_SIZE_PTR);
	KUNIT_EXPECT_PTR_EQ(test, kmalloc_array(8, runtime_zero(), GFP_KERNEL), ZERO_SIZE_PTR);
}

static void z1_kmalloc_track_caller(struct kunit *test)
{
	KUNIT_EXPECT_PTR_EQ(test, kmalloc_track_caller(runtime_zero(), GFP_KERNEL),
			    ZERO_SIZE_PTR);
}

static void z1_kmemdup(struct kunit *test)
{
	static const char src[] = "x";

	KUNIT_EXPECT_PTR_EQ(test, kmemdup(src, runtime_zero(), GFP_KERNEL), ZERO_SIZE_PTR);
}

static void z1_kvmalloc(struct kunit *test)
{
	void *p = kvmalloc(runtime_zero(), GFP_KERNEL);

	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
	kvfree(p);
}

static void z1_devm_kmalloc(struct kunit *test)
{
	struct device *dev = __root_device_register("zsp_z1", NULL);
	void *p;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	p = devm_kmalloc(dev, runtime_zero(), GFP_KERNEL);
	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
	root_device_unregister(dev);
}

/*
 * MANY zero-size allocations, kept alive, must not move the slab page
 * counter; the same number of 8-byte ones must (or the counter proves
 * nothing).
 */
static void z1_no_slab_memory(struct kunit *test)
{
	void **p = vmalloc(array_size(MANY, sizeof(*p)));
	long before, zero_delta, eight_delta;
	int i, not_zsp = 0;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	before = zsp_slab_pages();
	for (i = 0; i < MANY; i++) {
		p[i] = kmalloc(runtime_zero(), GFP_KERNEL);
		not_zsp += p[i] != ZERO_SIZE_PTR;
	}
	zero_delta = zsp_slab_pages() - before;
	for (i = 0; i < MANY; i++)
		kfree(p[i]);

	before = zsp_slab_pages();
	for (i = 0; i < MANY; i++)
		p[i] = kmalloc(8, GFP_KERNEL);
	eight_delta = zsp_slab_pages() - before;
	for (i = 0; i < MANY; i++)
		kfree(p[i]);
	vfree(p);

	KUNIT_EXPECT_EQ(test, not_zsp, 0);
	KUNIT_EXPECT_GE_MSG(test, eight_delta, (long)(MANY * 8 / PAGE_SIZE / 2),
			    "8-byte allocations did not show in the counter");
	KUNIT_EXPECT_LE_MSG(test, zero_delta, (long)SLACK_PAGES,
			    "%d zero-size allocations took %ld slab pages", MANY, zero_delta);
}

/* ---- Z2: every free API takes NULL and ZERO_SIZE_PTR --------------------- */

static void z2_kfree(struct kunit *test)
{
	kfree(NULL);
	kfree(ZERO_SIZE_PTR);
	KUNIT_SUCCEED(test);
}

static void z2_kfree_sensitive(struct kunit *test)
{
	kfree_sensitive(NULL);
	kfree_sensitive(ZERO_SIZE_PTR);
	KUNIT_SUCCEED(test);
}

static void z2_kvfree(struct kunit *test)
{
	kvfree(NULL);
	kvfree(ZERO_SIZE_PTR);
	KUNIT_SUCCEED(test);
}

static void z2_devm_kfree(struct kunit *test)
{
	struct device *dev = __root_device_register("zsp_z2", NULL);

	void *real;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	real = devm_kmalloc(dev, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, real);
	devm_kfree(dev, NULL);
	devm_kfree(dev, ZERO_SIZE_PTR);
	devm_kfree(dev, real);
	root_device_unregister(dev);
	KUNIT_SUCCEED(test);
}

static struct kmem_cache *big_cache(struct kunit *test)
{
	struct kmem_cache *s = kmem_cache_create("zsp_big", BIG, 0, 0, NULL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	return s;
}

static void z2_kmem_cache_free(struct kunit *test)
{
	struct kmem_cache *s = big_cache(test);

	kmem_cache_free(s, NULL);
	kmem_cache_free(s, ZERO_SIZE_PTR);
	kmem_cache_destroy(s);
	KUNIT_SUCCEED(test);
}

#define NR_MIXED	(NR_BIG + NR_BIG / 2)

/*
 * NR_MIXED slots: every third a sentinel, alternating NULL and
 * ZERO_SIZE_PTR, the others real BIG objects from @s (kmalloc() if NULL).
 */
static void **mixed_array(struct kunit *test, struct kmem_cache *s)
{
	void **p = kunit_kcalloc(test, NR_MIXED, sizeof(*p), GFP_KERNEL);
	size_t i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	for (i = 0; i < NR_MIXED; i++) {
		if (i % 3 == 0) {
			p[i] = (i / 3) % 2 ? ZERO_SIZE_PTR : NULL;
			continue;
		}
		p[i] = s ? kmem_cache_alloc(s, GFP_KERNEL) : kmalloc(BIG, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p[i]);
	}
	return p;
}

static void z2_kfree_bulk_sentinels(struct kunit *test)
{
	void *p[4] = { NULL, ZERO_SIZE_PTR, ZERO_SIZE_PTR, NULL };

	kfree_bulk(ARRAY_SIZE(p), p);
	kmem_cache_free_bulk(NULL, ARRAY_SIZE(p), p);
	KUNIT_SUCCEED(test);
}

/* kfree_bulk() is kmem_cache_free_bulk() with a NULL cache. */
static void z2_kfree_bulk_mixed(struct kunit *test)
{
	long before = zsp_slab_pages(), during;
	void **p = mixed_array(test, NULL);

	during = zsp_slab_pages();
	kfree_bulk(NR_MIXED, p);
	shrink_kmalloc_big();
	expect_pages_back(test, before, during);
}

static void z2_kmem_cache_free_bulk_null_cache(struct kunit *test)
{
	long before = zsp_slab_pages(), during;
	void **p = mixed_array(test, NULL);

	during = zsp_slab_pages();
	kmem_cache_free_bulk(NULL, NR_MIXED, p);
	shrink_kmalloc_big();
	expect_pages_back(test, before, during);
}

static void z2_kmem_cache_free_bulk_mixed(struct kunit *test)
{
	struct kmem_cache *s = big_cache(test);
	long before = zsp_slab_pages(), during;
	void **p = mixed_array(test, s);

	during = zsp_slab_pages();
	kmem_cache_free_bulk(s, NR_MIXED, p);
	kmem_cache_shrink(s);
	expect_pages_back(test, before, during);
	kmem_cache_destroy(s);
}

/*
 * The RCU-deferred frees hand their batch to kfree_bulk() after the CPU's
 * batch monitor has run and a grace period has passed. The monitor waits
 * KFREE_DRAIN_JIFFIES (5 s in 6.1) unless the CPU has a page of pointers
 * queued, when it runs on the next tick. So a case queues its pointers and
 * then a page worth of real objects from one CPU, and waits out each step:
 * the monitor (system_wq), the grace period (rcu_barrier()), the batch
 * work (system_wq again). A bad pointer then faults inside the case.
 */
#define RCU_FILL	(PAGE_SIZE / sizeof(void *))

static void fill_rcu_batch(struct kunit *test)
{
	struct zsp_rcu_obj *o;
	size_t i;

	for (i = 0; i < RCU_FILL; i++) {
		o = kmalloc(sizeof(*o), GFP_KERNEL);
		/* Not an assertion: that would end the case migrate-disabled. */
		if (!o) {
			KUNIT_FAIL(test, "kmalloc() failed filling the RCU batch");
			return;
		}
		kfree_rcu(o, rcu);
	}
}

static void wait_rcu_batches(void)
{
	/* The monitor's one-tick timer has fired once this returns. */
	msleep(jiffies_to_msecs(2) + 20);
	/*
	 * flush_workqueue(system_wq) is refused at build time for drivers,
	 * which can deadlock that way; this thread holds nothing a work
	 * item could wait for.
	 */
	__flush_workqueue(system_wq);
	rcu_barrier();
	__flush_workqueue(system_wq);
}

static void z2_kvfree_rcu_headless(struct kunit *test)
{
	void *p = ZERO_SIZE_PTR, *q = NULL;
	void *real = kmalloc(64, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, real);
	migrate_disable();
	kvfree_rcu(p);
	kvfree_rcu(q);
	kvfree_rcu(real);
	p = kvmalloc(runtime_zero(), GFP_KERNEL);
	kvfree_rcu(p);
	fill_rcu_batch(test);
	migrate_enable();
	wait_rcu_batches();
	KUNIT_SUCCEED(test);
}

static void z2_kfree_rcu_rcu_head(struct kunit *test)
{
	struct zsp_rcu_obj *p = ZERO_SIZE_PTR, *q = NULL;
	struct zsp_rcu_obj *real = kmalloc(sizeof(*real), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, real);
	migrate_disable();
	kfree_rcu(p, rcu);
	kfree_rcu(q, rcu);
	kfree_rcu(real, rcu);
	fill_rcu_batch(test);
	migrate_enable();
	wait_rcu_batches();
	KUNIT_SUCCEED(test);
}

/* ---- Z3: queries ------------------------------------------------------- */

static void z3_ksize(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ksize(ZERO_SIZE_PTR), (size_t)0);
	KUNIT_EXPECT_EQ(test, ksize(NULL), (size_t)0);
}

static void z3_kmalloc_size_roundup(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kmalloc_size_roundup(runtime_zero()), (size_t)0);
	KUNIT_EXPECT_GE(test, kmalloc_size_roundup(1), (size_t)1);
}

/* ---- Z4: resize -------------------------------------------------------- */

static void z4_krealloc_to_zero(struct kunit *test)
{
	void *p[NR_BIG];
	long before = zsp_slab_pages(), during;
	int i, not_zsp = 0;

	for (i = 0; i < NR_BIG; i++) {
		p[i] = kmalloc(BIG, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p[i]);
	}
	during = zsp_slab_pages();
	for (i = 0; i < NR_BIG; i++)
		not_zsp += krealloc(p[i], runtime_zero(), GFP_KERNEL) != ZERO_SIZE_PTR;
	shrink_kmalloc_big();
	KUNIT_EXPECT_EQ(test, not_zsp, 0);
	expect_pages_back(test, before, during);
}

static void z4_krealloc_from_zsp(struct kunit *test)
{
	char *p = krealloc(ZERO_SIZE_PTR, 100, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	KUNIT_EXPECT_PTR_NE(test, (void *)p, ZERO_SIZE_PTR);
	KUNIT_EXPECT_GE(test, ksize(p), (size_t)100);
	memset(p, 0x5a, 100);
	KUNIT_EXPECT_EQ(test, p[99], (char)0x5a);
	kfree(p);
}

/* ---- Z5: caches of zero-sized objects ---------------------------------- */

#define ZSP_OBJS	16

static atomic_t ctor_calls;

static void zsp_ctor(void *obj)
{
	atomic_inc(&ctor_calls);
}

static void expect_distinct(struct kunit *test, void **p, int n)
{
	int i, j, bad = 0, dup = 0;

	for (i = 0; i < n; i++) {
		bad += ZERO_OR_NULL_PTR(p[i]);
		for (j = 0; j < i; j++)
			dup += p[i] == p[j];
	}
	KUNIT_EXPECT_EQ_MSG(test, bad, 0, "NULL or ZERO_SIZE_PTR objects");
	KUNIT_EXPECT_EQ_MSG(test, dup, 0, "objects handed out twice");
}

/* Create, use singly and in bulk, destroy: one zero-sized cache. */
static void exercise_empty_cache(struct kunit *test, unsigned int align,
				 slab_flags_t flags, void (*ctor)(void *))
{
	struct kmem_cache *s;
	void *one[ZSP_OBJS], *bulk[ZSP_OBJS];
	int i, got;

	s = kmem_cache_create("zsp_empty", sizeof(struct zsp_empty), align,
			      flags, ctor);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);

	for (i = 0; i < ZSP_OBJS; i++)
		one[i] = kmem_cache_alloc(s, GFP_KERNEL);
	expect_distinct(test, one, ZSP_OBJS);
	for (i = 0; i < ZSP_OBJS; i++)
		if (!ZERO_OR_NULL_PTR(one[i]))
			kmem_cache_free(s, one[i]);

	got = kmem_cache_alloc_bulk(s, GFP_KERNEL, ZSP_OBJS, bulk);
	KUNIT_EXPECT_EQ(test, got, ZSP_OBJS);
	if (got == ZSP_OBJS) {
		expect_distinct(test, bulk, ZSP_OBJS);
		kmem_cache_free_bulk(s, ZSP_OBJS, bulk);
	}
	kmem_cache_destroy(s);
}

static void z5_cache_plain(struct kunit *test)
{
	exercise_empty_cache(test, 0, 0, NULL);
}

static void z5_cache_hwcache_align(struct kunit *test)
{
	exercise_empty_cache(test, 0, SLAB_HWCACHE_ALIGN, NULL);
}

static void z5_cache_typesafe_by_rcu(struct kunit *test)
{
	exercise_empty_cache(test, 0, SLAB_TYPESAFE_BY_RCU, NULL);
}

static void z5_cache_ctor(struct kunit *test)
{
	atomic_set(&ctor_calls, 0);
	exercise_empty_cache(test, 0, 0, zsp_ctor);
	KUNIT_EXPECT_GT(test, atomic_read(&ctor_calls), 0);
}

static void z5_cache_align(struct kunit *test)
{
	exercise_empty_cache(test, 64, 0, NULL);
}

/* ---- Z6: access through ZERO_SIZE_PTR faults ---------------------------- */

struct fault_job {
	bool write;
	struct completion survived;
};

static int fault_thread(void *arg)
{
	struct fault_job *job = arg;
	char *zsp = ZERO_SIZE_PTR;

	if (job->write)
		WRITE_ONCE(*zsp, 1);
	else
		(void)READ_ONCE(*zsp);
	complete(&job->survived);
	return 0;
}

/*
 * Returns whether the thread got past its access. A thread that faulted
 * never completes; it is done once the oops has it exiting. Polling for
 * that, rather than sleeping out a fixed timeout, keeps this case short.
 */
static bool wait_fault_thread(struct task_struct *t, struct completion *survived)
{
	unsigned long deadline = jiffies + 3 * HZ;

	while (!completion_done(survived) && !(READ_ONCE(t->flags) & PF_EXITING) &&
	       time_before(jiffies, deadline))
		msleep(20);
	/* A thread that survived completes before it exits: no false oops. */
	return completion_done(survived);
}

/*
 * The access runs in a thread of its own: the oops kills that thread and
 * the guest lives on. The harness also checks that the oops names 0x10.
 */
static void expect_fault(struct kunit *test, bool write)
{
	struct fault_job job = { .write = write };
	struct task_struct *t;
	bool survived;

	init_completion(&job.survived);
	kunit_info(test, "zsp-expect-oops\n");
	t = kthread_create(fault_thread, &job, "zsp_fault");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	get_task_struct(t);
	wake_up_process(t);
	survived = wait_fault_thread(t, &job.survived);
	KUNIT_EXPECT_FALSE_MSG(test, survived, "access through ZERO_SIZE_PTR did not fault");
	KUNIT_EXPECT_TRUE(test, t->flags & PF_EXITING);
	KUNIT_EXPECT_TRUE(test, test_taint(TAINT_DIE));
	put_task_struct(t);
}

static void z6_write_faults(struct kunit *test)
{
	expect_fault(test, true);
}

static void z6_read_faults(struct kunit *test)
{
	expect_fault(test, false);
}

/* ---- Z7: identical on every allocator ---------------------------------- */

/*
 * A zero-size request allocates nothing and so cannot sleep: no allocator
 * may complain about it in atomic context. The harness fails the case on
 * any splat printed while it runs.
 */
static void z7_kmalloc_zero_atomic(struct kunit *test)
{
	void *p;

	preempt_disable();
	p = kmalloc(runtime_zero(), GFP_KERNEL);
	preempt_enable();
	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
}

static struct kunit_case z1_cases[] = {
	KUNIT_CASE(z1_kmalloc),
	KUNIT_CASE(z1_kmalloc_node),
	KUNIT_CASE(z1_kzalloc),
	KUNIT_CASE(z1_kcalloc),
	KUNIT_CASE(z1_kmalloc_array),
	KUNIT_CASE(z1_kmalloc_track_caller),
	KUNIT_CASE(z1_kmemdup),
	KUNIT_CASE(z1_kvmalloc),
	KUNIT_CASE(z1_devm_kmalloc),
	KUNIT_CASE(z1_no_slab_memory),
	{}
};

static struct kunit_case z2_cases[] = {
	KUNIT_CASE(z2_kfree),
	KUNIT_CASE(z2_kfree_sensitive),
	KUNIT_CASE(z2_kvfree),
	KUNIT_CASE(z2_devm_kfree),
	KUNIT_CASE(z2_kmem_cache_free),
	KUNIT_CASE(z2_kfree_bulk_sentinels),
	KUNIT_CASE(z2_kfree_bulk_mixed),
	KUNIT_CASE(z2_kmem_cache_free_bulk_null_cache),
	KUNIT_CASE(z2_kmem_cache_free_bulk_mixed),
	KUNIT_CASE(z2_kvfree_rcu_headless),
	KUNIT_CASE(z2_kfree_rcu_rcu_head),
	{}
};

static struct kunit_case z3_cases[] = {
	KUNIT_CASE(z3_ksize),
	KUNIT_CASE(z3_kmalloc_size_roundup),
	{}
};

static struct kunit_case z4_cases[] = {
	KUNIT_CASE(z4_krealloc_to_zero),
	KUNIT_CASE(z4_krealloc_from_zsp),
	{}
};

static struct kunit_case z5_cases[] = {
	KUNIT_CASE(z5_cache_plain),
	KUNIT_CASE(z5_cache_hwcache_align),
	KUNIT_CASE(z5_cache_typesafe_by_rcu),
	KUNIT_CASE(z5_cache_ctor),
	KUNIT_CASE(z5_cache_align),
	{}
};

static struct kunit_case z7_cases[] = {
	KUNIT_CASE(z7_kmalloc_zero_atomic),
	{}
};

/* Last: an oops taints the kernel for every case after it. */
static struct kunit_case z6_cases[] = {
	KUNIT_CASE(z6_write_faults),
	KUNIT_CASE(z6_read_faults),
	{}
};

#define ZSP_SUITE(_name, _cases)		\
	static struct kunit_suite _name = {	\
		.name = #_name,			\
		.init = zsp_case_init,		\
		.test_cases = _cases,		\
	}

ZSP_SUITE(zero_size_alloc, z1_cases);
ZSP_SUITE(zero_size_free, z2_cases);
ZSP_SUITE(zero_size_query, z3_cases);
ZSP_SUITE(zero_size_resize, z4_cases);
ZSP_SUITE(zero_size_cache, z5_cases);
ZSP_SUITE(zero_size_identical, z7_cases);
ZSP_SUITE(zero_size_fault, z6_cases);

kunit_test_suites(&zero_size_alloc, &zero_size_free, &zero_size_query,
		  &zero_size_resize, &zero_size_cache, &zero_size_identical,
		  &zero_size_fault);

MODULE_DESCRIPTION("KUnit tests for the zero-size allocation contract");
MODULE_LICENSE("GPL");
