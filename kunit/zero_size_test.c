// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the zero-size allocation contract, clauses Z1-Z8 of
 * docs/contract.md.
 *
 * Every case that frees real objects checks that they came back (the
 * slab page counter, kmem_cache_destroy()'s report of objects left, no
 * object handed out twice afterwards, and where the kernel has memcg, the
 * charges of its cgroup), so a "fix" that skips, leaks or double-frees
 * fails here rather than passing quietly.
 *
 * Built out of tree so that the same source runs against vanilla and
 * patched 6.1 kernels with SLAB, SLUB and SLOB, and 6.12 kernels (SLUB,
 * the only allocator left there; zsp_compat.h settles the API
 * differences, which no case body sees). On vanilla kernels some
 * cases oops, divide by zero or spin under slab_mutex; the harness reads
 * the "zsp-start" line each case prints first, kills the guest and resumes
 * the remaining cases in a fresh boot; zero_size_plan names the cases
 * that already have a result. Skipped cases are never counted as passed.
 *
 * Everything printed for the harness is in zsp_protocol.h.
 */

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/debugobjects.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/memcontrol.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/sort.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "zero_size_plan.h"
#include "zsp_compat.h"
#include "zsp_protocol.h"
#include "zsp_vmstat.h"

/* Enough zero-size requests that one byte of slab each would show. */
#define MANY		BIT(16)
/*
 * Real objects above KMALLOC_MAX_CACHE_SIZE (8 KiB on all three
 * allocators in 6.1) come from the page allocator and go back to it at
 * once, and they count in NR_SLAB_UNRECLAIMABLE_B: a single leaked one
 * moves the counter by BIG_PAGES.
 */
#define BIG		(4 * PAGE_SIZE)
#define BIG_PAGES	(BIG / PAGE_SIZE)
#define NR_BIG		64
/* Small objects, many to a slab: the bulk paths' same-slab look-ahead. */
#define SMALL		64
#define NR_SMALL	1024
/* Enough zero-sized objects to fill a few pages on every allocator. */
#define NR_EMPTY	16384
/* Fewer where debugobjects keeps SLOB's pages: see rcu_pins_pages(). */
#define NR_EMPTY_PINNED	(NR_EMPTY / 8)
/*
 * Noise of the slab page counter across one case in a quiet guest, in
 * pages. Below BIG_PAGES, so that one leaked BIG object fails the case
 * (but under kmemleak, below).
 *
 * kmemleak gives every object a case allocates a tracking object, freed
 * after a grace period into kmemleak's own cache, which no module can
 * shrink: its partial slabs move the counter by -5 to +13 pages around a
 * case of 1,024 small objects (leak profile, measured). There the counter
 * allows for twice that, and kmemleak's scan after the suite, which names
 * every leaked object of the suite's, is the leak oracle.
 */
#ifdef CONFIG_DEBUG_KMEMLEAK
#define SLACK_PAGES	32
#else
#define SLACK_PAGES	(BIG_PAGES - 1)
#endif

/*
 * An empty struct: GNU C gives it size 0, as configuration options can
 * give a struct that a KMEM_CACHE() user still allocates.
 */
struct zsp_empty {
};

/*
 * The rcu_head is not at offset 0, so that the object's address and the
 * rcu_head's differ: kfree_rcu() of a ZERO_SIZE_PTR object hands
 * kvfree_call_rcu() 0x10 + offset, which only the object address shows to
 * be the sentinel (6.1 passes the offset for the object, 6.12 the object
 * address itself). BIG-sized, so that every object freed counts.
 */
struct zsp_rcu_obj {
	long before[4];
	struct rcu_head rcu;
	char rest[BIG - 4 * sizeof(long) - sizeof(struct rcu_head)];
};

/* Runtime zero the compiler cannot see, to reach the out-of-line paths. */
static size_t runtime_zero(void)
{
	size_t zero = 0;

	OPTIMIZER_HIDE_VAR(zero);
	return zero;
}

/*
 * Atomic context for a zero-size request. __might_resched() prints at
 * most one splat a second: let that second pass first, so that an earlier
 * case's splat cannot silence this one's.
 */
static void atomic_begin(void)
{
	msleep(jiffies_to_msecs(HZ) + 100);
	preempt_disable();
}

static void drain_deferred_frees(void);

/*
 * Under generic KASAN a freed object waits in the quarantine, its slab
 * page still counted, until the quarantine outgrows its size: the slab
 * page counter would read every free of a case as a leak, and the
 * release of earlier cases' objects in the middle of a case as frees.
 * kmem_cache_shrink() first releases the cache's quarantined objects:
 * do that for every kmalloc cache before a case and before its count
 * (the suite's own caches are shrunk where it frees into them).
 */
static void flush_quarantine(void)
{
#ifdef CONFIG_KASAN_GENERIC
	int type, i;

	for (type = 0; type < NR_KMALLOC_TYPES; type++)
		for (i = 0; i <= KMALLOC_SHIFT_HIGH; i++)
			if (kmalloc_caches[type][i])
				kmem_cache_shrink(kmalloc_caches[type][i]);
#endif
}

#ifdef CONFIG_RANDOM_KMALLOC_CACHES
/*
 * @s one copy of a normal kmalloc cache (see zsp_kmalloc_type()): shrink
 * the other copies of its size, one of which holds the objects.
 */
static void shrink_kmalloc_copies(struct kmem_cache *s)
{
	int type, i;

	for (i = 0; i <= KMALLOC_SHIFT_HIGH; i++)
		for (type = KMALLOC_RANDOM_START; type <= KMALLOC_RANDOM_END; type++)
			if (s && kmalloc_caches[type][i] == s)
				goto found;
	return;
found:
	for (type = KMALLOC_RANDOM_START; type <= KMALLOC_RANDOM_END; type++)
		if (kmalloc_caches[type][i] && kmalloc_caches[type][i] != s)
			kmem_cache_shrink(kmalloc_caches[type][i]);
}
#endif

/*
 * SLOB serves the small objects of every cache from shared pages, and
 * keeps a page while any object on it lives: after a debug kernel's
 * boot churn they hold enough free space for a whole case's small
 * objects, which then take no new page, and the slab page counter would
 * see neither them nor their leak. Fill that space before a case counts
 * (and before each round of one: the first leaves gaps between the
 * tracking objects debugobjects allocated meanwhile), until SLOB takes new
 * pages, and give it back when the case is done.
 */
#ifdef CONFIG_SLOB
/*
 * The ballast: the smallest kmalloc objects, which fit any gap a case's
 * object could (kmalloc() aligns a power-of-two size to itself on SLOB,
 * and would leave the gaps a cache's 8-byte aligned objects then take);
 * 2 MiB of them at most.
 */
#define SOAK_SIZE	1
#define SOAK_MAX	BIT(17)
/*
 * New pages that show SLOB out of room: more than the one page another
 * CPU's allocation may take meanwhile.
 */
#define SOAK_PAGES	4

/*
 * The ballast's pointers live outside it: on vanilla SLOB a zero-sized
 * cache's overlapping objects may overwrite it, and only kfree() of such
 * an object may then fail, with SLOB's own report.
 */
static void **slob_soak;
static int slob_soaked;

static void soak_slob_free_space(void)
{
	long start = zsp_slab_pages();

	if (!slob_soak)
		slob_soak = vmalloc(array_size(SOAK_MAX, sizeof(*slob_soak)));
	if (!slob_soak)
		return;
	while (slob_soaked < SOAK_MAX && zsp_slab_pages() - start < SOAK_PAGES) {
		slob_soak[slob_soaked] = kmalloc(SOAK_SIZE, GFP_KERNEL);
		if (!slob_soak[slob_soaked])
			break;
		slob_soaked++;
	}
}

static void release_slob_soak(void)
{
	while (slob_soaked)
		kfree(slob_soak[--slob_soaked]);
	vfree(slob_soak);
	slob_soak = NULL;
}
#else
static void soak_slob_free_space(void)
{
}

static void release_slob_soak(void)
{
}
#endif

/*
 * Charges to a memory cgroup (the distro profile). guest-init loads the
 * suite from a child cgroup of its own, and the cases that ask for
 * accounted objects charge that cgroup (set_active_memcg()): they run in
 * a kthread, which the kernel would otherwise never charge
 * (memcg_kmem_bypass()), so that the free paths' memcg hooks would meet
 * no charged object among the sentinels. Each charged slab object, and
 * each charged page of a large kmalloc(), holds a reference on the
 * cgroup's obj_cgroup until it is uncharged: a count that is exact where
 * the cgroup's page counter is not (every CPU charges up to
 * MEMCG_CHARGE_BATCH pages ahead), and that an object left charged moves.
 * (An object freed twice is not uncharged twice: the free hook clears
 * its slot before the put; that is the double-free checks' business.)
 */
#if ZSP_MEMCG_KMEM
static struct mem_cgroup *zsp_memcg;

/* insmod's cgroup, unless it is the root, which is never charged. */
static void zsp_memcg_get(void)
{
	zsp_memcg = get_mem_cgroup_from_mm(current->mm);
	if (zsp_memcg && !zsp_memcg->css.parent) {
		mem_cgroup_put(zsp_memcg);
		zsp_memcg = NULL;
	}
}

static void zsp_memcg_put(void)
{
	mem_cgroup_put(zsp_memcg);
	zsp_memcg = NULL;
}

struct zsp_charge {
	struct mem_cgroup *old;
	struct obj_cgroup *objcg;
	struct kunit_resource *ref;	/* the case's reference on objcg */
	unsigned long before;
	unsigned long during;
};

/*
 * A case that stops at an assertion never reaches charge_end(): its
 * reference on the obj_cgroup goes with the test's resources instead.
 */
static void objcg_release(struct kunit_resource *res)
{
	obj_cgroup_put(res->data);
}

/*
 * The references on @objcg. Summing a percpu_ref's counters is racy
 * while others take and drop references: only this case's thread charges
 * the suite's cgroup, and insmod, its only task, waits for the suite.
 */
static unsigned long objcg_refs(struct obj_cgroup *objcg)
{
	unsigned long __percpu *count;
	unsigned long sum;
	int cpu;

	rcu_read_lock();
	sum = atomic_long_read(&objcg->refcnt.data->count);
	if (__ref_is_percpu(&objcg->refcnt, &count))
		for_each_possible_cpu(cpu)
			sum += *per_cpu_ptr(count, cpu);
	rcu_read_unlock();
	return sum;
}

/* Each CPU's stock of charged bytes holds a reference on its cgroup's. */
static long slack_refs(void)
{
	return num_possible_cpus();
}

/* From here on, this thread's accounted allocations charge the cgroup. */
static void charge_begin(struct kunit *test, struct zsp_charge *c)
{
	c->objcg = NULL;
	KUNIT_ASSERT_NOT_NULL_MSG(test, zsp_memcg,
				  "no memory cgroup to charge: load the suite from a child cgroup");
	rcu_read_lock();
	c->objcg = rcu_dereference(zsp_memcg->objcg);
	if (c->objcg && !obj_cgroup_tryget(c->objcg))
		c->objcg = NULL;
	rcu_read_unlock();
	KUNIT_ASSERT_NOT_NULL_MSG(test, c->objcg, "the cgroup has no obj_cgroup");
	c->ref = kunit_alloc_and_get_resource(test, NULL, objcg_release, GFP_KERNEL,
					      c->objcg);
	if (!c->ref)
		obj_cgroup_put(c->objcg);
	KUNIT_ASSERT_NOT_NULL(test, c->ref);
	c->old = set_active_memcg(zsp_memcg);
	c->before = objcg_refs(c->objcg);
}

/* @n objects allocated: each of them charged. */
static void charge_during(struct kunit *test, struct zsp_charge *c, size_t n)
{
	long charged, least = (long)n - slack_refs();

	c->during = objcg_refs(c->objcg);
	charged = c->during - c->before;
	KUNIT_EXPECT_GE_MSG(test, charged, least,
			    "%zu objects allocated, %ld charged to the cgroup", n, charged);
}

/* Everything freed: every charge dropped. */
static void charge_end(struct kunit *test, struct zsp_charge *c)
{
	long left = objcg_refs(c->objcg) - c->before, slack = slack_refs();

	set_active_memcg(c->old);
	kunit_remove_resource(test, c->ref);
	kunit_put_resource(c->ref);
	zsp_print_charges(test, (long)(c->during - c->before), left);
	KUNIT_EXPECT_LE_MSG(test, left, slack,
			    "%ld charges left after the objects were freed", left);
	KUNIT_EXPECT_GE_MSG(test, left, -slack,
			    "%ld more references dropped than the case took", -left);
}
#else
struct zsp_charge {
};

static void zsp_memcg_get(void)
{
}

static void zsp_memcg_put(void)
{
}

static void charge_begin(struct kunit *test, struct zsp_charge *c)
{
}

static void charge_during(struct kunit *test, struct zsp_charge *c, size_t n)
{
}

static void charge_end(struct kunit *test, struct zsp_charge *c)
{
}
#endif

static int zsp_case_init(struct kunit *test)
{
	if (zero_size_plan_skips(test->name))
		zsp_skip_not_selected(test);
	flush_quarantine();
	soak_slob_free_space();
	zsp_print_start(test);
	return 0;
}

/*
 * Work a case queued (an RCU-deferred free, a kworker) runs before the
 * case reports its result, so that whatever it prints falls inside the
 * case's window on the console and is blamed on that case, not the next.
 */
static void zsp_case_exit(struct kunit *test)
{
	if (test->status != KUNIT_SKIPPED)
		drain_deferred_frees();
	release_slob_soak();
}

#define ZSP_NR_SUITES	7
static struct kunit_suite *zsp_suites[ZSP_NR_SUITES + 1];

/*
 * The harness's list of expected cases, from the module itself: every
 * suite's, printed before the first case runs, so that a crash in an
 * early suite cannot hide the cases of a later one.
 */
static int zsp_suite_init(struct kunit_suite *suite)
{
	zsp_memcg_get();
	/*
	 * By name: 6.12's KUnit runs a module's suites from copies
	 * (kunit_filter_suites() in kunit_module_init()).
	 */
	if (strcmp(suite->name, zsp_suites[0]->name))
		return 0;
	zsp_print_cases(zsp_suites);
	return 0;
}

static void zsp_suite_exit(struct kunit_suite *suite)
{
	zsp_memcg_put();
}

/* The counter saw a case's allocations, or it proves nothing. */
static void expect_pages_seen(struct kunit *test, long before, long during,
			      long allocated_pages)
{
	KUNIT_EXPECT_GE_MSG(test, during - before, allocated_pages / 2,
			    "the slab page counter did not see the allocations");
}

/*
 * What a case freed came back: the counter is back within the noise, and
 * within @kept pages that the kernel's debuggers may keep for the round.
 */
static void expect_pages_returned(struct kunit *test, long before, long during, long kept)
{
	long after;

	flush_quarantine();
	after = zsp_slab_pages();

	zsp_print_pages(test, before, during, after);
	KUNIT_EXPECT_LE_MSG(test, after - before, (long)SLACK_PAGES + kept,
			    "%ld slab pages not freed", after - before);
}

/* Real objects given to a free API came back, and the counter saw them. */
static void expect_pages_back(struct kunit *test, long before, long during,
			      long allocated_pages)
{
	expect_pages_seen(test, before, during, allocated_pages);
	expect_pages_returned(test, before, during, 0);
}

/*
 * The pointer arrays a case needs, allocated before it reads the counter:
 * an array allocated inside the window would be counted as a leak.
 */
static void **scratch(struct kunit *test, size_t n)
{
	void **p = kunit_kcalloc(test, n, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	return p;
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * An object freed twice sits twice on a freelist and is handed out twice:
 * allocate as many as were freed into @p and look for a duplicate.
 * @s NULL: kmalloc().
 */
static void expect_no_double_hand_out(struct kunit *test, struct kmem_cache *s,
				      size_t size, gfp_t gfp, void **p, size_t n)
{
	size_t i, got = 0, dup = 0;

	for (; got < n; got++) {
		p[got] = s ? kmem_cache_alloc(s, gfp) : kmalloc(size, gfp);
		if (!p[got])
			break;
	}
	KUNIT_EXPECT_EQ_MSG(test, got, n, "allocation failed after the free");
	sort(p, got, sizeof(*p), cmp_ptr, NULL);
	for (i = 1; i < got; i++)
		dup += p[i] == p[i - 1];
	KUNIT_EXPECT_EQ_MSG(test, dup, (size_t)0, "objects handed out twice: a double free");
	for (i = 0; i < got; i++) {
		if (i && p[i] == p[i - 1])
			continue;
		if (s)
			kmem_cache_free(s, p[i]);
		else
			kfree(p[i]);
	}
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

#define NR_POOL		4

/*
 * A kmalloc mempool of size 0: its reserve is NR_POOL sentinels, and
 * elements come from kmalloc(0) or the reserve; freeing refills it.
 */
static void exercise_zero_mempool(struct kunit *test, gfp_t gfp)
{
	mempool_t *pool = mempool_create_kmalloc_pool(NR_POOL, runtime_zero());
	void *e[2 * NR_POOL];
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
	KUNIT_EXPECT_EQ(test, pool->curr_nr, NR_POOL);
	mempool_destroy(pool);
}

#define NR_ELEMENTS	4096

/*
 * Then many elements held at once, beyond the reserve: were they real
 * allocations of even a few bytes, the slab page counter would show them.
 */
static void z1_mempool_kmalloc_pool(struct kunit *test)
{
	mempool_t *pool = mempool_create_kmalloc_pool(NR_POOL, runtime_zero());
	void **e = scratch(test, NR_ELEMENTS);
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
	KUNIT_EXPECT_LE_MSG(test, held, (long)SLACK_PAGES,
			    "%d mempool elements took %ld slab pages", NR_ELEMENTS, held);
}

/*
 * MANY requests take seconds under KASAN and lockdep in a TCG guest, more
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
 * MANY zero-size allocations, kept alive, must not move the slab page
 * counter; the same number of 8-byte ones must (or the counter proves
 * nothing). @atomic: the zero-size ones with preemption off.
 */
static void no_slab_memory(struct kunit *test, bool atomic)
{
	void **p = vmalloc(array_size(MANY, sizeof(*p)));
	long before, zero_delta, eight_delta;
	int i, not_zsp = 0;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	before = zsp_slab_pages();
	if (atomic)
		atomic_begin();
	for (i = 0; i < MANY; i++) {
		p[i] = kmalloc(runtime_zero(), GFP_KERNEL);
		not_zsp += p[i] != ZERO_SIZE_PTR;
		yield_every_chunk(i, atomic);
	}
	if (atomic)
		preempt_enable();
	zero_delta = zsp_slab_pages() - before;
	for (i = 0; i < MANY; i++)
		kfree(p[i]);

	before = zsp_slab_pages();
	for (i = 0; i < MANY; i++) {
		p[i] = kmalloc(8, GFP_KERNEL);
		yield_every_chunk(i, false);
	}
	eight_delta = zsp_slab_pages() - before;
	for (i = 0; i < MANY; i++) {
		kfree(p[i]);
		yield_every_chunk(i, false);
	}
	vfree(p);

	KUNIT_EXPECT_EQ(test, not_zsp, 0);
	KUNIT_EXPECT_GE_MSG(test, eight_delta, (long)(MANY * 8 / PAGE_SIZE / 2),
			    "8-byte allocations did not show in the counter");
	KUNIT_EXPECT_LE_MSG(test, zero_delta, (long)SLACK_PAGES,
			    "%lu zero-size allocations took %ld slab pages", MANY, zero_delta);
}

static void z1_no_slab_memory(struct kunit *test)
{
	no_slab_memory(test, false);
}

/* ---- Z2: every free API takes NULL and ZERO_SIZE_PTR --------------------- */

/*
 * Real BIG objects freed by the same API around the sentinels: the
 * sentinels' early return must not skip or leak them.
 */
static void alloc_big(struct kunit *test, void **p, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		p[i] = kmalloc(BIG, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p[i]);
	}
}

/* Frees NULL, ZERO_SIZE_PTR and NR_BIG real objects, one at a time. */
static void free_one_by_one(struct kunit *test, void (*free_fn)(const void *))
{
	void **p = scratch(test, NR_BIG);
	long before = zsp_slab_pages(), during;
	int i;

	alloc_big(test, p, NR_BIG);
	during = zsp_slab_pages();
	for (i = 0; i < NR_BIG; i++) {
		free_fn(NULL);
		free_fn(ZERO_SIZE_PTR);
		free_fn(p[i]);
	}
	expect_pages_back(test, before, during, NR_BIG * BIG_PAGES);
}

static void z2_kfree(struct kunit *test)
{
	free_one_by_one(test, kfree);
}

static void z2_kfree_sensitive(struct kunit *test)
{
	free_one_by_one(test, kfree_sensitive);
}

static void z2_kvfree(struct kunit *test)
{
	free_one_by_one(test, kvfree);
}

static void z2_devm_kfree(struct kunit *test)
{
	struct device *dev = __root_device_register("zsp_z2", NULL);
	long before, during;
	void *real[NR_BIG];
	int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	before = zsp_slab_pages();
	for (i = 0; i < NR_BIG; i++) {
		real[i] = devm_kmalloc(dev, BIG, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, real[i]);
	}
	during = zsp_slab_pages();
	for (i = 0; i < NR_BIG; i++) {
		devm_kfree(dev, NULL);
		devm_kfree(dev, ZERO_SIZE_PTR);
		devm_kfree(dev, real[i]);
	}
	/* Not yet unregistered: devm_kfree() itself must have freed them. */
	expect_pages_back(test, before, during, NR_BIG * BIG_PAGES);
	root_device_unregister(dev);
}

/* A slot of a mixed array: every third a sentinel, NULL and ZSP in turn. */
static bool sentinel_slot(size_t i)
{
	return i % 3 == 0;
}

static void *sentinel_for(size_t i)
{
	return (i / 3) % 2 ? ZERO_SIZE_PTR : NULL;
}

/* Slots for @n real objects and the sentinels between them. */
static size_t mixed_slots(size_t n)
{
	return n + n / 2;
}

/*
 * Fills @p with @n real objects of @size from @s (kmalloc() with @gfp if
 * NULL) and n/2 sentinels between them, starting with a sentinel: a free
 * loop that stops at a sentinel leaks everything.
 */
static void fill_mixed(struct kunit *test, void **p, struct kmem_cache *s,
		       size_t size, gfp_t gfp, size_t n)
{
	size_t i;

	for (i = 0; i < mixed_slots(n); i++) {
		if (sentinel_slot(i)) {
			p[i] = sentinel_for(i);
			continue;
		}
		p[i] = s ? kmem_cache_alloc(s, gfp) : kmalloc(size, gfp);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p[i]);
	}
}

/* The kmalloc cache that serves @size with @gfp; NULL on SLOB. */
static struct kmem_cache *kmalloc_cache_of(size_t size, gfp_t gfp)
{
#ifndef CONFIG_SLOB
	if (size <= KMALLOC_MAX_CACHE_SIZE)
		return kmalloc_caches[zsp_kmalloc_type(gfp)][kmalloc_index(size)];
#endif
	return NULL;
}

/*
 * A test cache of its own: a usercopy region keeps it from being merged
 * into another cache of the same size (SLAB_MERGE_DEFAULT), whose objects
 * would blur the page counter and hide ours from kmem_cache_destroy()
 * (on 6.12, SLAB_NO_MERGE too: see zsp_own_cache_flags()).
 */
static struct kmem_cache *own_cache(const char *name, unsigned int size,
				    slab_flags_t flags)
{
	return kmem_cache_create_usercopy(name, size, 0, zsp_own_cache_flags(flags, size), 0,
					  size, NULL);
}

/* Give the empty slabs of @s back to the page allocator. */
static void shrink(struct kmem_cache *s)
{
	if (s)
		kmem_cache_shrink(s);
#ifdef CONFIG_RANDOM_KMALLOC_CACHES
	shrink_kmalloc_copies(s);
#endif
	flush_quarantine();
	/* SLAB_TYPESAFE_BY_RCU slabs (and SLOB's objects) go after a grace period. */
	rcu_barrier();
}

static void z2_kfree_bulk_sentinels(struct kunit *test)
{
	void *p[4] = { NULL, ZERO_SIZE_PTR, ZERO_SIZE_PTR, NULL };
	void *q[4] = { ZERO_SIZE_PTR, NULL, NULL, ZERO_SIZE_PTR };

	kfree_bulk(ARRAY_SIZE(p), p);
	kmem_cache_free_bulk(NULL, ARRAY_SIZE(q), q);
	KUNIT_EXPECT_PTR_EQ(test, p[1], ZERO_SIZE_PTR);
}

/*
 * kfree_bulk() of kmalloc()ed objects of @size mixed with sentinels:
 * every real object freed once (counter back, no double hand-out).
 */
static void kfree_bulk_mixed(struct kunit *test, size_t size, size_t n, gfp_t gfp,
			     bool null_cache)
{
	struct kmem_cache *s = kmalloc_cache_of(size, gfp);
	void **p = scratch(test, mixed_slots(n));
	bool account = ZSP_MEMCG_KMEM && (gfp & __GFP_ACCOUNT);
	struct zsp_charge c;
	long before, during;

	shrink(s);
	if (account)
		charge_begin(test, &c);
	before = zsp_slab_pages();
	fill_mixed(test, p, NULL, size, gfp, n);
	during = zsp_slab_pages();
	if (account)
		charge_during(test, &c, n);
	if (null_cache)
		kmem_cache_free_bulk(NULL, mixed_slots(n), p);
	else
		kfree_bulk(mixed_slots(n), p);
	expect_no_double_hand_out(test, NULL, size, gfp, p, n);
	shrink(s);
	expect_pages_back(test, before, during, n * size / PAGE_SIZE);
	if (account)
		charge_end(test, &c);
}

/* Page-allocator objects: the counter tells exactly. */
static void z2_kfree_bulk_mixed(struct kunit *test)
{
	kfree_bulk_mixed(test, BIG, NR_BIG, GFP_KERNEL, false);
}

/* Small slab objects sharing slabs: SLUB's look-ahead, SLAB's slab branch. */
static void z2_kfree_bulk_small(struct kunit *test)
{
	kfree_bulk_mixed(test, SMALL, NR_SMALL, GFP_KERNEL, false);
}

/* Objects charged to the memory cgroup (kmalloc-cg-* where memcg is on). */
static void z2_kfree_bulk_accounted(struct kunit *test)
{
	kfree_bulk_mixed(test, SMALL, NR_SMALL, GFP_KERNEL_ACCOUNT, false);
}

/*
 * The NULL-cache bulk free finds each object's cache itself. Objects of
 * a cache of our own, so that kmem_cache_destroy() reports any left
 * (SLAB, SLUB); SLOB can only kfree() kmalloc()ed objects.
 */
static void z2_kmem_cache_free_bulk_null_cache(struct kunit *test)
{
#ifdef CONFIG_SLOB
	kfree_bulk_mixed(test, SMALL, NR_SMALL, GFP_KERNEL, true);
#else
	struct kmem_cache *s = own_cache("zsp_null_cache", SMALL, 0);
	void **p = scratch(test, mixed_slots(NR_SMALL));
	long before, during;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	before = zsp_slab_pages();
	fill_mixed(test, p, s, SMALL, GFP_KERNEL, NR_SMALL);
	during = zsp_slab_pages();
	kmem_cache_free_bulk(NULL, mixed_slots(NR_SMALL), p);
	expect_no_double_hand_out(test, s, SMALL, GFP_KERNEL, p, NR_SMALL);
	shrink(s);
	expect_pages_back(test, before, during, NR_SMALL * SMALL / PAGE_SIZE);
	kmem_cache_destroy(s);
#endif
}

/*
 * Sentinels into one kind of cache, with @n real objects of it freed by
 * the same API: one by one with kmem_cache_free(), or in one mixed
 * kmem_cache_free_bulk(). kmem_cache_destroy() warns about an object left
 * behind (SLAB, SLUB), the page counter catches it everywhere.
 */
/*
 * SLOB under debugobjects' RCU head tracking: each object of a
 * SLAB_TYPESAFE_BY_RCU cache goes back through a call_rcu() of its own,
 * and debugobjects tracks its rcu_head in an object of its own cache.
 * SLAB and SLUB drop such tracking objects when the memory is freed
 * (debug_check_no_obj_freed()); SLOB never calls it, so each stays until
 * the page that holds the rcu_head goes back to the page allocator. SLOB
 * puts them among the case's own objects, where they keep the pages the
 * case empties: 23 to 32 of 22 pages after 1,024 objects of 64 bytes are
 * freed, none with no_debug_objects (debug SLOB, measured 2026-12-05).
 * Freed again, the objects mostly reuse those rooms and their tracking
 * objects: from the second round on, a round of 1,024 objects of 12 or
 * 64 bytes leaves 0 to 1 page, one of 2,048 zero-sized objects 2 to 4
 * (tracking objects of 10 to 20% of them; 16,384 leave 17, hence
 * NR_EMPTY_PINNED).
 *
 * So in such a cache the first round is where the counter must see the
 * allocations, and the second counts what stays, with no ballast in
 * between (it would fill the rooms the second round reuses), allowing
 * for the tracking objects of a quarter of the round's objects: less
 * than the objects themselves take, so a leak of them still fails.
 */
static bool rcu_pins_pages(slab_flags_t flags)
{
	return IS_ENABLED(CONFIG_SLOB) && IS_ENABLED(CONFIG_DEBUG_OBJECTS_RCU_HEAD) &&
	       (flags & SLAB_TYPESAFE_BY_RCU);
}

/*
 * One round of free_into_cache() or empty_objects_round(), counted or
 * not, checks what it can: the first round grows what the kernel's
 * debuggers keep for such a round (debugobjects' pool: see
 * kvfree_rcu_headless_round()), the second counts; where SLOB's tracking
 * objects keep the pages (rcu_pins_pages()), the first round's counter
 * must have seen the allocations and the second's must be back.
 */
static void expect_round_pages(struct kunit *test, slab_flags_t flags, bool count,
			       size_t n, long before, long during, long allocated_pages)
{
	long tracked = DIV_ROUND_UP(n / 4 * sizeof(struct debug_obj), PAGE_SIZE);

	if (!rcu_pins_pages(flags)) {
		if (count)
			expect_pages_back(test, before, during, allocated_pages);
	} else if (count) {
		expect_pages_returned(test, before, during, tracked);
	} else {
		expect_pages_seen(test, before, during, allocated_pages);
	}
}

/* Before a round: the ballast, but where a counted round reuses the rooms. */
static void soak_before_round(slab_flags_t flags, bool count)
{
	if (!count || !rcu_pins_pages(flags))
		soak_slob_free_space();
}

static void free_into_cache_round(struct kunit *test, struct kmem_cache *s, void **p,
				  unsigned int size, slab_flags_t flags, gfp_t gfp, size_t n,
				  bool bulk, bool count)
{
	bool account = ZSP_MEMCG_KMEM && (gfp & __GFP_ACCOUNT);
	struct zsp_charge c;
	long before, during;
	size_t i;

	soak_before_round(flags, count);
	if (account)
		charge_begin(test, &c);
	before = zsp_slab_pages();
	fill_mixed(test, p, s, size, gfp, n);
	during = zsp_slab_pages();
	if (account)
		charge_during(test, &c, n);
	kmem_cache_free(s, NULL);
	kmem_cache_free(s, ZERO_SIZE_PTR);
	if (bulk) {
		kmem_cache_free_bulk(s, mixed_slots(n), p);
	} else {
		for (i = 0; i < mixed_slots(n); i++)
			kmem_cache_free(s, p[i]);
	}
	expect_no_double_hand_out(test, s, size, gfp, p, n);
	shrink(s);
	/* Zero-sized objects: n of them still fill a few pages. */
	expect_round_pages(test, flags, count, n, before, during,
			   max_t(long, n * size / PAGE_SIZE, 2));
	if (account)
		charge_end(test, &c);
}

static void free_into_cache(struct kunit *test, const char *name, unsigned int size,
			    slab_flags_t flags, gfp_t gfp, size_t n, bool bulk)
{
	struct kmem_cache *s = own_cache(name, size, flags);
	void **p = scratch(test, mixed_slots(n));

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	free_into_cache_round(test, s, p, size, flags, gfp, n, bulk, false);
	free_into_cache_round(test, s, p, size, flags, gfp, n, bulk, true);
	kmem_cache_destroy(s);
}

static void z2_kmem_cache_free(struct kunit *test)
{
	free_into_cache(test, "zsp_big", BIG, 0, GFP_KERNEL, NR_BIG, false);
}

static void z2_kmem_cache_free_small(struct kunit *test)
{
	free_into_cache(test, "zsp_small", SMALL, 0, GFP_KERNEL, NR_SMALL, false);
}

static void z2_kmem_cache_free_rcu(struct kunit *test)
{
	free_into_cache(test, "zsp_rcu", SMALL, SLAB_TYPESAFE_BY_RCU, GFP_KERNEL,
			NR_SMALL, false);
}

/* An odd size puts SLOB's RCU footer at an odd offset unless it is aligned. */
static void z2_kmem_cache_free_rcu_odd_size(struct kunit *test)
{
	free_into_cache(test, "zsp_rcu_odd", 12, SLAB_TYPESAFE_BY_RCU, GFP_KERNEL,
			NR_SMALL, false);
}

static void z2_kmem_cache_free_zero_sized(struct kunit *test)
{
	free_into_cache(test, "zsp_zero", 0, 0, GFP_KERNEL, NR_EMPTY, false);
}

static void z2_kmem_cache_free_accounted(struct kunit *test)
{
	free_into_cache(test, "zsp_account", SMALL, SLAB_ACCOUNT, GFP_KERNEL_ACCOUNT,
			NR_SMALL, false);
}

static void z2_kmem_cache_free_bulk_mixed(struct kunit *test)
{
	free_into_cache(test, "zsp_big", BIG, 0, GFP_KERNEL, NR_BIG, true);
}

static void z2_kmem_cache_free_bulk_small(struct kunit *test)
{
	free_into_cache(test, "zsp_small", SMALL, 0, GFP_KERNEL, NR_SMALL, true);
}

static void z2_kmem_cache_free_bulk_rcu(struct kunit *test)
{
	free_into_cache(test, "zsp_rcu", SMALL, SLAB_TYPESAFE_BY_RCU, GFP_KERNEL,
			NR_SMALL, true);
}

static void z2_kmem_cache_free_bulk_zero_sized(struct kunit *test)
{
	free_into_cache(test, "zsp_zero", 0, 0, GFP_KERNEL, NR_EMPTY, true);
}

static void z2_kmem_cache_free_bulk_accounted(struct kunit *test)
{
	free_into_cache(test, "zsp_account", SMALL, SLAB_ACCOUNT, GFP_KERNEL_ACCOUNT,
			NR_SMALL, true);
}

/* A cache and no real object at all: nothing to free, nothing to touch. */
static void z2_kmem_cache_free_bulk_sentinels_only(struct kunit *test)
{
	struct kmem_cache *s = own_cache("zsp_small", SMALL, 0);
	void *p[4] = { ZERO_SIZE_PTR, NULL, ZERO_SIZE_PTR, NULL };
	void **q = scratch(test, 64);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	kmem_cache_free_bulk(s, ARRAY_SIZE(p), p);
	kmem_cache_free_bulk(s, 1, p);
	expect_no_double_hand_out(test, s, SMALL, GFP_KERNEL, q, 64);
	kmem_cache_destroy(s);
}

/*
 * The RCU-deferred frees hand their batch to kfree_bulk() (or, for
 * objects queued through their rcu_head, kvfree() one by one) after the
 * CPU's batch monitor has run and a grace period has passed. The monitor
 * waits KFREE_DRAIN_JIFFIES (5 s in 6.1 and 6.12) unless the CPU has a
 * page of pointers queued, when it runs on the next tick. So a case queues
 * its sentinels among RCU_FILL real objects from one CPU and waits out
 * each step: the monitor (system_wq), the grace period (rcu_barrier()),
 * the batch work (system_wq again); on 6.12, kvfree_rcu_barrier() waits
 * for all three. A bad pointer then faults inside the
 * case, and every real object must be back. The guests boot with
 * rcutree.rcu_min_cached_objs=0, so kfree_rcu() with an rcu_head finds no
 * spare bulk page and takes the rcu_head path, which writes the head.
 */
#define RCU_FILL	(PAGE_SIZE / sizeof(void *))

static void drain_deferred_frees(void)
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
	zsp_kvfree_rcu_barrier();
}

/*
 * The monitor may fire while a case is still queueing: it takes the first
 * page of pointers, and the last few wait another KFREE_DRAIN_JIFFIES.
 * So drain until the case's objects are back, for as long as that takes
 * a correct kernel; a leak stays and fails the case after that.
 */
static void drain_rcu_frees(long before)
{
	unsigned long deadline = jiffies + 2 * 5 * HZ;

	do {
		drain_deferred_frees();
	} while (zsp_slab_pages() - before > SLACK_PAGES && time_before(jiffies, deadline));
}

/*
 * One round of a case: real objects, charged to the suite's cgroup where
 * there is one, and sentinels queued, all drained and uncharged.
 * @count: check that the objects came back. The first round of a case
 * is not counted: it grows what the kernel keeps for itself once a
 * batch of this size has been through (debugobjects' pool of tracking
 * objects in the debug profile: about 11 pages), which is no leak.
 */
static void kvfree_rcu_headless_round(struct kunit *test, void **p, bool count)
{
	void *zsp = ZERO_SIZE_PTR, *null = NULL, *vzero;
	struct zsp_charge c;
	long before, during;
	size_t i;

	soak_slob_free_space();
	charge_begin(test, &c);
	before = zsp_slab_pages();
	for (i = 0; i < RCU_FILL; i++) {
		p[i] = kmalloc(BIG, GFP_KERNEL_ACCOUNT);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p[i]);
	}
	during = zsp_slab_pages();
	charge_during(test, &c, RCU_FILL);
	vzero = kvmalloc(runtime_zero(), GFP_KERNEL);
	migrate_disable();
	kvfree_rcu_mightsleep(zsp);
	kvfree_rcu_mightsleep(null);
	kvfree_rcu_mightsleep(vzero);
	for (i = 0; i < RCU_FILL; i++) {
		kvfree_rcu_mightsleep(p[i]);
		if (i % 64 == 0)
			kvfree_rcu_mightsleep(zsp);
	}
	migrate_enable();
	drain_rcu_frees(before);
	if (count)
		expect_pages_back(test, before, during, RCU_FILL * BIG_PAGES);
	charge_end(test, &c);
}

static void z2_kvfree_rcu_headless(struct kunit *test)
{
	void **p = scratch(test, RCU_FILL);

	kvfree_rcu_headless_round(test, p, false);
	kvfree_rcu_headless_round(test, p, true);
}

/* Rounds as kvfree_rcu_headless_round(). */
static void kfree_rcu_rcu_head_round(struct kunit *test, struct zsp_rcu_obj **p,
				     bool count)
{
	struct zsp_rcu_obj *zsp = ZERO_SIZE_PTR, *null = NULL;
	struct zsp_charge c;
	long before, during;
	size_t i;

	soak_slob_free_space();
	charge_begin(test, &c);
	before = zsp_slab_pages();
	for (i = 0; i < RCU_FILL; i++) {
		p[i] = kmalloc(sizeof(**p), GFP_KERNEL_ACCOUNT);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p[i]);
	}
	during = zsp_slab_pages();
	charge_during(test, &c, RCU_FILL);
	migrate_disable();
	kfree_rcu(zsp, rcu);
	kfree_rcu(null, rcu);
	for (i = 0; i < RCU_FILL; i++) {
		kfree_rcu(p[i], rcu);
		if (i % 64 == 0)
			kfree_rcu(zsp, rcu);
	}
	migrate_enable();
	drain_rcu_frees(before);
	if (count)
		expect_pages_back(test, before, during, RCU_FILL * BIG_PAGES);
	charge_end(test, &c);
}

static void z2_kfree_rcu_rcu_head(struct kunit *test)
{
	struct zsp_rcu_obj **p = kunit_kcalloc(test, RCU_FILL, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	kfree_rcu_rcu_head_round(test, p, false);
	kfree_rcu_rcu_head_round(test, p, true);
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
	KUNIT_EXPECT_EQ(test, not_zsp, 0);
	expect_pages_back(test, before, during, NR_BIG * BIG_PAGES);
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

/*
 * Many objects, allocated and freed: all come back. In rounds as
 * kvfree_rcu_headless_round(): a SLAB_TYPESAFE_BY_RCU cache's slabs go
 * back through call_rcu(), tracked by debugobjects in the debug profile.
 * Where that tracking keeps SLOB's pages (rcu_pins_pages()), fewer
 * objects: NR_EMPTY of them leave more tracking objects than the objects
 * themselves take.
 */
static void empty_objects_round(struct kunit *test, struct kmem_cache *s, void **p,
				slab_flags_t flags, bool count)
{
	bool account = ZSP_MEMCG_KMEM && (flags & SLAB_ACCOUNT);
	int i, got = 0, n = rcu_pins_pages(flags) ? NR_EMPTY_PINNED : NR_EMPTY;
	struct zsp_charge c;
	long before, during;

	soak_before_round(flags, count);
	if (account)
		charge_begin(test, &c);
	before = zsp_slab_pages();
	for (i = 0; i < n; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		if (ZERO_OR_NULL_PTR(p[i]))
			continue;
		got++;
	}
	during = zsp_slab_pages();
	if (account)
		charge_during(test, &c, got);
	for (i = 0; i < n; i++)
		if (!ZERO_OR_NULL_PTR(p[i]))
			kmem_cache_free(s, p[i]);
	KUNIT_EXPECT_EQ(test, got, n);
	shrink(s);
	if (account)
		charge_end(test, &c);
	/* n zero-sized objects fill one page at least. */
	expect_round_pages(test, flags, count, n, before, during, 2);
}

/* @flags: the cache's; SLAB_ACCOUNT objects charge the suite's cgroup. */
static void expect_empty_objects_freed(struct kunit *test, struct kmem_cache *s,
				       slab_flags_t flags)
{
	void **p = scratch(test, NR_EMPTY);

	empty_objects_round(test, s, p, flags, false);
	empty_objects_round(test, s, p, flags, true);
}

/*
 * Use one zero-sized cache singly and in bulk, then destroy it: SLAB and
 * SLUB warn when it still has objects.
 */
static void exercise_empty_cache_of(struct kunit *test, struct kmem_cache *s,
				    unsigned int align, slab_flags_t flags)
{
	void *one[ZSP_OBJS], *bulk[ZSP_OBJS];
	int i, got, misaligned = 0;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	for (i = 0; i < ZSP_OBJS; i++) {
		one[i] = kmem_cache_alloc(s, GFP_KERNEL);
		misaligned += align && !IS_ALIGNED((unsigned long)one[i], align);
	}
	expect_distinct(test, one, ZSP_OBJS);
	KUNIT_EXPECT_EQ_MSG(test, misaligned, 0, "objects not aligned to %u", align);
	for (i = 0; i < ZSP_OBJS; i++)
		if (!ZERO_OR_NULL_PTR(one[i]))
			kmem_cache_free(s, one[i]);

	got = kmem_cache_alloc_bulk(s, GFP_KERNEL, ZSP_OBJS, bulk);
	KUNIT_EXPECT_EQ(test, got, ZSP_OBJS);
	if (got == ZSP_OBJS) {
		expect_distinct(test, bulk, ZSP_OBJS);
		kmem_cache_free_bulk(s, ZSP_OBJS, bulk);
	}
	expect_empty_objects_freed(test, s, flags);
	kmem_cache_destroy(s);
}

static void exercise_empty_cache(struct kunit *test, unsigned int align,
				 slab_flags_t flags, void (*ctor)(void *))
{
	struct kmem_cache *s = kmem_cache_create("zsp_empty", sizeof(struct zsp_empty),
						 align, flags, ctor);

	exercise_empty_cache_of(test, s, align, flags);
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

/* The debug flags: no-ops on kernels without slab debugging. */
static void z5_cache_red_zone(struct kunit *test)
{
	exercise_empty_cache(test, 0, SLAB_RED_ZONE, NULL);
}

static void z5_cache_poison(struct kunit *test)
{
	exercise_empty_cache(test, 0, SLAB_POISON, NULL);
}

static void z5_cache_store_user(struct kunit *test)
{
	exercise_empty_cache(test, 0, SLAB_STORE_USER, NULL);
}

static void z5_cache_account(struct kunit *test)
{
	exercise_empty_cache(test, 0, SLAB_ACCOUNT, NULL);
}

static void z5_cache_reclaim_account(struct kunit *test)
{
	exercise_empty_cache(test, 0, SLAB_RECLAIM_ACCOUNT, NULL);
}

static void z5_cache_dma32(struct kunit *test)
{
	exercise_empty_cache(test, 0, SLAB_CACHE_DMA32, NULL);
}

/* The way real users create such a cache. */
static void z5_kmem_cache_macro(struct kunit *test)
{
	exercise_empty_cache_of(test, KMEM_CACHE(zsp_empty, 0), 0, 0);
}

/* The usercopy variant, which kmem_cache_create() wraps. */
static void z5_cache_usercopy(struct kunit *test)
{
	exercise_empty_cache_of(test, kmem_cache_create_usercopy("zsp_empty", 0, 0, 0,
								 0, 0, NULL), 0, 0);
}

/* ---- Z6: access through ZERO_SIZE_PTR faults ---------------------------- */

struct fault_job {
	bool write;
	char *at;
	struct completion survived;
};

static int fault_thread(void *arg)
{
	struct fault_job *job = arg;

	if (job->write)
		WRITE_ONCE(*job->at, 1);
	else
		(void)READ_ONCE(*job->at);
	complete(&job->survived);
	return 0;
}

/*
 * Returns whether the thread got past its access. A thread that faulted
 * never completes; it is done once the oops has it dead. Polling for
 * that, rather than sleeping out a fixed timeout, keeps this case short.
 */
static bool wait_fault_thread(struct task_struct *t, struct completion *survived)
{
	unsigned long deadline = jiffies + 3 * HZ;

	while (!completion_done(survived) && !READ_ONCE(t->exit_state) &&
	       time_before(jiffies, deadline))
		msleep(20);
	/* A thread that survived completes before it exits: no false oops. */
	return completion_done(survived);
}

/*
 * The access runs in a thread of its own: the oops kills that thread and
 * the guest lives on. The thread must die of the oops (make_task_dead()
 * exits with SIGKILL or SIGSEGV), not return. The harness checks the
 * rest: exactly one oops in this case, from zsp_fault, naming the address
 * and the access announced below.
 */
static void expect_fault(struct kunit *test, bool write, void *at)
{
	struct fault_job job = { .write = write, .at = at };
	struct task_struct *t;
	bool survived;
	int code;

	init_completion(&job.survived);
	zsp_print_expect_oops(test, write, at);
	t = kthread_create(fault_thread, &job, ZSP_FAULT_COMM);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	get_task_struct(t);
	wake_up_process(t);
	survived = wait_fault_thread(t, &job.survived);
	KUNIT_EXPECT_FALSE_MSG(test, survived, "access at 0x%lx did not fault", (unsigned long)at);
	KUNIT_EXPECT_NE_MSG(test, READ_ONCE(t->exit_state), 0, "the faulting thread lives on");
	code = READ_ONCE(t->exit_code);
	KUNIT_EXPECT_TRUE_MSG(test, code == SIGKILL || code == SIGSEGV,
			      "the faulting thread exited with %d, not by the oops", code);
	put_task_struct(t);
}

static void z6_write_faults(struct kunit *test)
{
	expect_fault(test, true, ZERO_SIZE_PTR);
}

static void z6_read_faults(struct kunit *test)
{
	expect_fault(test, false, ZERO_SIZE_PTR);
}

/*
 * The other direction of a distinct fault: an oops that names
 * ZERO_SIZE_PTR where the pointer was NULL would send its reader after a
 * zero-size allocation that never happened.
 */
static void z6_null_read_not_named(struct kunit *test)
{
	expect_fault(test, false, NULL);
}

/* ---- Z7: identical on every allocator ---------------------------------- */

/*
 * A zero-size request allocates nothing and so cannot sleep: no allocator
 * may complain about it in atomic context. Each Z1 API runs with
 * preemption off and GFP_KERNEL (the flag might_alloc() checks); the
 * harness fails the case on any splat printed while it runs.
 */
static void z7_kmalloc_zero_atomic(struct kunit *test)
{
	void *p;

	atomic_begin();
	p = kmalloc(runtime_zero(), GFP_KERNEL);
	preempt_enable();
	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
}

static void z7_kmalloc_node_atomic(struct kunit *test)
{
	void *p;

	atomic_begin();
	p = kmalloc_node(runtime_zero(), GFP_KERNEL, NUMA_NO_NODE);
	preempt_enable();
	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
}

static void z7_kzalloc_kcalloc_atomic(struct kunit *test)
{
	void *p[4];

	atomic_begin();
	p[0] = kzalloc(runtime_zero(), GFP_KERNEL);
	p[1] = kcalloc(runtime_zero(), 16, GFP_KERNEL);
	p[2] = kcalloc(16, runtime_zero(), GFP_KERNEL);
	p[3] = kmalloc_array(8, runtime_zero(), GFP_KERNEL);
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

	atomic_begin();
	p = kmalloc_track_caller(runtime_zero(), GFP_KERNEL);
	q = kmemdup(src, runtime_zero(), GFP_KERNEL);
	preempt_enable();
	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
	KUNIT_EXPECT_PTR_EQ(test, q, ZERO_SIZE_PTR);
}

static void z7_kvmalloc_atomic(struct kunit *test)
{
	void *p;

	atomic_begin();
	p = kvmalloc(runtime_zero(), GFP_KERNEL);
	preempt_enable();
	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
}

static void z7_devm_kmalloc_atomic(struct kunit *test)
{
	struct device *dev = __root_device_register("zsp_z7", NULL);
	void *p;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	atomic_begin();
	p = devm_kmalloc(dev, runtime_zero(), GFP_KERNEL);
	preempt_enable();
	KUNIT_EXPECT_PTR_EQ(test, p, ZERO_SIZE_PTR);
	root_device_unregister(dev);
}

/* A pool may sleep for a GFP_KERNEL element: atomic users ask GFP_ATOMIC. */
static void z7_mempool_atomic(struct kunit *test)
{
	mempool_t *pool = mempool_create_kmalloc_pool(NR_POOL, runtime_zero());
	void *e[2 * NR_POOL];
	int i, not_zsp = 0;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pool);
	atomic_begin();
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
	no_slab_memory(test, true);
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
	KUNIT_CASE(z1_mempool_kmalloc_pool),
	KUNIT_CASE(z1_no_slab_memory),
	{}
};

static struct kunit_case z2_cases[] = {
	KUNIT_CASE(z2_kfree),
	KUNIT_CASE(z2_kfree_sensitive),
	KUNIT_CASE(z2_kvfree),
	KUNIT_CASE(z2_devm_kfree),
	KUNIT_CASE(z2_kmem_cache_free),
	KUNIT_CASE(z2_kmem_cache_free_small),
	KUNIT_CASE(z2_kmem_cache_free_rcu),
	KUNIT_CASE(z2_kmem_cache_free_rcu_odd_size),
	KUNIT_CASE(z2_kmem_cache_free_zero_sized),
	KUNIT_CASE(z2_kmem_cache_free_accounted),
	KUNIT_CASE(z2_kfree_bulk_sentinels),
	KUNIT_CASE(z2_kfree_bulk_mixed),
	KUNIT_CASE(z2_kfree_bulk_small),
	KUNIT_CASE(z2_kfree_bulk_accounted),
	KUNIT_CASE(z2_kmem_cache_free_bulk_null_cache),
	KUNIT_CASE(z2_kmem_cache_free_bulk_mixed),
	KUNIT_CASE(z2_kmem_cache_free_bulk_small),
	KUNIT_CASE(z2_kmem_cache_free_bulk_rcu),
	KUNIT_CASE(z2_kmem_cache_free_bulk_zero_sized),
	KUNIT_CASE(z2_kmem_cache_free_bulk_accounted),
	KUNIT_CASE(z2_kmem_cache_free_bulk_sentinels_only),
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
	KUNIT_CASE(z5_cache_red_zone),
	KUNIT_CASE(z5_cache_poison),
	KUNIT_CASE(z5_cache_store_user),
	KUNIT_CASE(z5_cache_account),
	KUNIT_CASE(z5_cache_reclaim_account),
	KUNIT_CASE(z5_cache_dma32),
	KUNIT_CASE(z5_kmem_cache_macro),
	KUNIT_CASE(z5_cache_usercopy),
	{}
};

static struct kunit_case z7_cases[] = {
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

static struct kunit_case z6_cases[] = {
	KUNIT_CASE(z6_write_faults),
	KUNIT_CASE(z6_read_faults),
	KUNIT_CASE(z6_null_read_not_named),
	{}
};

static struct kunit_suite zero_size_alloc = {
	.name = "zero_size_alloc",
	.suite_init = zsp_suite_init,
	.suite_exit = zsp_suite_exit,
	.init = zsp_case_init,
	.exit = zsp_case_exit,
	.test_cases = z1_cases,
};

static struct kunit_suite zero_size_free = {
	.name = "zero_size_free",
	.suite_init = zsp_suite_init,
	.suite_exit = zsp_suite_exit,
	.init = zsp_case_init,
	.exit = zsp_case_exit,
	.test_cases = z2_cases,
};

static struct kunit_suite zero_size_query = {
	.name = "zero_size_query",
	.suite_init = zsp_suite_init,
	.suite_exit = zsp_suite_exit,
	.init = zsp_case_init,
	.exit = zsp_case_exit,
	.test_cases = z3_cases,
};

static struct kunit_suite zero_size_resize = {
	.name = "zero_size_resize",
	.suite_init = zsp_suite_init,
	.suite_exit = zsp_suite_exit,
	.init = zsp_case_init,
	.exit = zsp_case_exit,
	.test_cases = z4_cases,
};

static struct kunit_suite zero_size_cache = {
	.name = "zero_size_cache",
	.suite_init = zsp_suite_init,
	.suite_exit = zsp_suite_exit,
	.init = zsp_case_init,
	.exit = zsp_case_exit,
	.test_cases = z5_cases,
};

static struct kunit_suite zero_size_identical = {
	.name = "zero_size_identical",
	.suite_init = zsp_suite_init,
	.suite_exit = zsp_suite_exit,
	.init = zsp_case_init,
	.exit = zsp_case_exit,
	.test_cases = z7_cases,
};

/* Last: an oops taints the kernel for every case after it. */
static struct kunit_suite zero_size_fault = {
	.name = "zero_size_fault",
	.suite_init = zsp_suite_init,
	.suite_exit = zsp_suite_exit,
	.init = zsp_case_init,
	.exit = zsp_case_exit,
	.test_cases = z6_cases,
};

/* In the order KUnit runs them; the first one lists them all. */
static struct kunit_suite *zsp_suites[ZSP_NR_SUITES + 1] = {
	&zero_size_alloc, &zero_size_free, &zero_size_query, &zero_size_resize,
	&zero_size_cache, &zero_size_identical, &zero_size_fault, NULL
};

kunit_test_suites(&zero_size_alloc, &zero_size_free, &zero_size_query,
		  &zero_size_resize, &zero_size_cache, &zero_size_identical,
		  &zero_size_fault);

MODULE_DESCRIPTION("KUnit tests for the zero-size allocation contract");
MODULE_LICENSE("GPL");
