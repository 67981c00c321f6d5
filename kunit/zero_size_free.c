// SPDX-License-Identifier: GPL-2.0
/*
 * Z2, free accepts the sentinels: every API that frees slab memory takes
 * NULL and ZERO_SIZE_PTR, and still frees every real object beside them
 * (suite zero_size_free).
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "zero_size_test.h"
#include "zsp_compat.h"

/*
 * The rcu_head is not at offset 0, so that the object's address and the
 * rcu_head's differ: kfree_rcu() of a ZERO_SIZE_PTR object hands
 * kvfree_call_rcu() 0x10 + offset, which only the object address shows to
 * be the sentinel (6.1 passes the offset for the object, 6.12 the object
 * address itself). ZSP_BIG-sized, so that every object freed counts.
 */
struct zsp_rcu_obj {
	long before[4];
	struct rcu_head rcu;
	char rest[ZSP_BIG - 4 * sizeof(long) - sizeof(struct rcu_head)];
};

/*
 * Real ZSP_BIG objects freed by the same API around the sentinels: the
 * sentinels' early return must not skip or leak them.
 */
static void alloc_big(struct kunit *test, void **p, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		p[i] = kmalloc(ZSP_BIG, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p[i]);
	}
}

/* Frees NULL, ZERO_SIZE_PTR and ZSP_NR_BIG real objects, one at a time. */
static void free_one_by_one(struct kunit *test, void (*free_fn)(const void *))
{
	void **p = zsp_scratch(test, ZSP_NR_BIG);
	long before = zsp_slab_pages(), during;
	int i;

	alloc_big(test, p, ZSP_NR_BIG);
	during = zsp_slab_pages();
	for (i = 0; i < ZSP_NR_BIG; i++) {
		free_fn(NULL);
		free_fn(ZERO_SIZE_PTR);
		free_fn(p[i]);
	}
	zsp_expect_pages_back(test, before, during, ZSP_NR_BIG * ZSP_BIG_PAGES);
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
	void *real[ZSP_NR_BIG];
	int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	before = zsp_slab_pages();
	for (i = 0; i < ZSP_NR_BIG; i++) {
		real[i] = devm_kmalloc(dev, ZSP_BIG, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, real[i]);
	}
	during = zsp_slab_pages();
	for (i = 0; i < ZSP_NR_BIG; i++) {
		devm_kfree(dev, NULL);
		devm_kfree(dev, ZERO_SIZE_PTR);
		devm_kfree(dev, real[i]);
	}
	/* Not yet unregistered: devm_kfree() itself must have freed them. */
	zsp_expect_pages_back(test, before, during, ZSP_NR_BIG * ZSP_BIG_PAGES);
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
	void **p = zsp_scratch(test, mixed_slots(n));
	bool account = ZSP_MEMCG_KMEM && (gfp & __GFP_ACCOUNT);
	struct zsp_charge c;
	long before, during;

	zsp_shrink(s);
	if (account)
		zsp_charge_begin(test, &c);
	before = zsp_slab_pages();
	fill_mixed(test, p, NULL, size, gfp, n);
	during = zsp_slab_pages();
	if (account)
		zsp_charge_during(test, &c, n);
	if (null_cache)
		kmem_cache_free_bulk(NULL, mixed_slots(n), p);
	else
		kfree_bulk(mixed_slots(n), p);
	zsp_expect_no_double_hand_out(test, NULL, size, gfp, p, n);
	zsp_shrink(s);
	zsp_expect_pages_back(test, before, during, n * size / PAGE_SIZE);
	if (account)
		zsp_charge_end(test, &c);
}

/* Page-allocator objects: the counter tells exactly. */
static void z2_kfree_bulk_mixed(struct kunit *test)
{
	kfree_bulk_mixed(test, ZSP_BIG, ZSP_NR_BIG, GFP_KERNEL, false);
}

/* Small slab objects sharing slabs: SLUB's look-ahead, SLAB's slab branch. */
static void z2_kfree_bulk_small(struct kunit *test)
{
	kfree_bulk_mixed(test, ZSP_SMALL, ZSP_NR_SMALL, GFP_KERNEL, false);
}

/* Objects charged to the memory cgroup (kmalloc-cg-* where memcg is on). */
static void z2_kfree_bulk_accounted(struct kunit *test)
{
	kfree_bulk_mixed(test, ZSP_SMALL, ZSP_NR_SMALL, GFP_KERNEL_ACCOUNT, false);
}

/*
 * The NULL-cache bulk free finds each object's cache itself. Objects of
 * a cache of our own, so that kmem_cache_destroy() reports any left
 * (SLAB, SLUB); SLOB can only kfree() kmalloc()ed objects.
 */
static void z2_kmem_cache_free_bulk_null_cache(struct kunit *test)
{
#ifdef CONFIG_SLOB
	kfree_bulk_mixed(test, ZSP_SMALL, ZSP_NR_SMALL, GFP_KERNEL, true);
#else
	struct kmem_cache *s = own_cache("zsp_null_cache", ZSP_SMALL, 0);
	void **p = zsp_scratch(test, mixed_slots(ZSP_NR_SMALL));
	long before, during;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	before = zsp_slab_pages();
	fill_mixed(test, p, s, ZSP_SMALL, GFP_KERNEL, ZSP_NR_SMALL);
	during = zsp_slab_pages();
	kmem_cache_free_bulk(NULL, mixed_slots(ZSP_NR_SMALL), p);
	zsp_expect_no_double_hand_out(test, s, ZSP_SMALL, GFP_KERNEL, p, ZSP_NR_SMALL);
	zsp_shrink(s);
	zsp_expect_pages_back(test, before, during, ZSP_NR_SMALL * ZSP_SMALL / PAGE_SIZE);
	kmem_cache_destroy(s);
#endif
}

/*
 * Sentinels into one kind of cache, with @n real objects of it freed by
 * the same API: one by one with kmem_cache_free(), or in one mixed
 * kmem_cache_free_bulk(). kmem_cache_destroy() warns about an object left
 * behind (SLAB, SLUB), the page counter catches it everywhere.
 */
static void free_into_cache_round(struct kunit *test, struct kmem_cache *s, void **p,
				  unsigned int size, slab_flags_t flags, gfp_t gfp, size_t n,
				  bool bulk, bool count)
{
	bool account = ZSP_MEMCG_KMEM && (gfp & __GFP_ACCOUNT);
	struct zsp_charge c;
	long before, during;
	size_t i;

	zsp_soak_before_round(flags, count);
	if (account)
		zsp_charge_begin(test, &c);
	before = zsp_slab_pages();
	fill_mixed(test, p, s, size, gfp, n);
	during = zsp_slab_pages();
	if (account)
		zsp_charge_during(test, &c, n);
	kmem_cache_free(s, NULL);
	kmem_cache_free(s, ZERO_SIZE_PTR);
	if (bulk) {
		kmem_cache_free_bulk(s, mixed_slots(n), p);
	} else {
		for (i = 0; i < mixed_slots(n); i++)
			kmem_cache_free(s, p[i]);
	}
	zsp_expect_no_double_hand_out(test, s, size, gfp, p, n);
	zsp_shrink(s);
	/* Zero-sized objects: n of them still fill a few pages. */
	zsp_expect_round_pages(test, flags, count, n, before, during,
			       max_t(long, n * size / PAGE_SIZE, 2));
	if (account)
		zsp_charge_end(test, &c);
}

/*
 * Which loop of kmem_cache_free_bulk(@s) takes the objects: a cache with
 * sheaves frees to them (free_to_pcs_bulk()), any other builds detached
 * freelists (zsp_compat.h). Each loop has a sentinel check of its own,
 * so a case written for one that ran the other would pass for nothing:
 * it says which it took, and fails when that is not the one it is for
 * (no sheaves asked for: @flags has ZSP_NO_SHEAVES). A debug kernel
 * gives no cache with debug flags sheaves (calculate_sheaf_capacity()):
 * own_bulk_cache() keeps slab_debug's flags off the caches that want them.
 */
static void expect_bulk_path(struct kunit *test, struct kmem_cache *s, slab_flags_t flags)
{
#ifdef ZSP_HAVE_SHEAVES
	bool want = !(flags & ZSP_NO_SHEAVES), has = zsp_cache_has_sheaves(s);
	const char *path[] = { "build_detached_freelist()", "free_to_pcs_bulk()" };

	kunit_info(test, "kmem_cache_free_bulk() path: %s", path[has]);
	KUNIT_EXPECT_EQ_MSG(test, has, want, "the case is for %s, the cache took %s",
			    path[want], path[has]);
#endif
}

/* The cache of a bulk-free case: sheaves unless it asks for none. */
static struct kmem_cache *own_bulk_cache(const char *name, unsigned int size,
					 slab_flags_t flags)
{
	if (!(flags & ZSP_NO_SHEAVES))
		flags |= ZSP_WANT_SHEAVES;
	return own_cache(name, size, flags);
}

static void free_into_cache(struct kunit *test, const char *name, unsigned int size,
			    slab_flags_t flags, gfp_t gfp, size_t n, bool bulk)
{
	struct kmem_cache *s = bulk ? own_bulk_cache(name, size, flags) :
				      own_cache(name, size, flags);
	void **p = zsp_scratch(test, mixed_slots(n));

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	if (bulk)
		expect_bulk_path(test, s, flags);
	free_into_cache_round(test, s, p, size, flags, gfp, n, bulk, false);
	free_into_cache_round(test, s, p, size, flags, gfp, n, bulk, true);
	kmem_cache_destroy(s);
}

static void z2_kmem_cache_free(struct kunit *test)
{
	free_into_cache(test, "zsp_big", ZSP_BIG, 0, GFP_KERNEL, ZSP_NR_BIG, false);
}

static void z2_kmem_cache_free_small(struct kunit *test)
{
	free_into_cache(test, "zsp_small", ZSP_SMALL, 0, GFP_KERNEL, ZSP_NR_SMALL, false);
}

static void z2_kmem_cache_free_rcu(struct kunit *test)
{
	free_into_cache(test, "zsp_rcu", ZSP_SMALL, SLAB_TYPESAFE_BY_RCU, GFP_KERNEL,
			ZSP_NR_SMALL, false);
}

/* An odd size puts SLOB's RCU footer at an odd offset unless it is aligned. */
static void z2_kmem_cache_free_rcu_odd_size(struct kunit *test)
{
	free_into_cache(test, "zsp_rcu_odd", 12, SLAB_TYPESAFE_BY_RCU, GFP_KERNEL,
			ZSP_NR_SMALL, false);
}

static void z2_kmem_cache_free_zero_sized(struct kunit *test)
{
	free_into_cache(test, "zsp_zero", 0, 0, GFP_KERNEL, ZSP_NR_EMPTY, false);
}

static void z2_kmem_cache_free_accounted(struct kunit *test)
{
	free_into_cache(test, "zsp_account", ZSP_SMALL, SLAB_ACCOUNT, GFP_KERNEL_ACCOUNT,
			ZSP_NR_SMALL, false);
}

static void z2_kmem_cache_free_bulk_mixed(struct kunit *test)
{
	free_into_cache(test, "zsp_big", ZSP_BIG, 0, GFP_KERNEL, ZSP_NR_BIG, true);
}

static void z2_kmem_cache_free_bulk_small(struct kunit *test)
{
	free_into_cache(test, "zsp_small", ZSP_SMALL, 0, GFP_KERNEL, ZSP_NR_SMALL, true);
}

/*
 * A cache without sheaves, where the kernel has them: the bulk free
 * builds detached freelists (on a kernel without sheaves, every cache
 * does, and this is z2_kmem_cache_free_bulk_small).
 */
static void z2_kmem_cache_free_bulk_no_sheaves(struct kunit *test)
{
	free_into_cache(test, "zsp_no_sheaves", ZSP_SMALL, ZSP_NO_SHEAVES, GFP_KERNEL,
			ZSP_NR_SMALL, true);
}

static void z2_kmem_cache_free_bulk_rcu(struct kunit *test)
{
	free_into_cache(test, "zsp_rcu", ZSP_SMALL, SLAB_TYPESAFE_BY_RCU, GFP_KERNEL,
			ZSP_NR_SMALL, true);
}

static void z2_kmem_cache_free_bulk_zero_sized(struct kunit *test)
{
	free_into_cache(test, "zsp_zero", 0, 0, GFP_KERNEL, ZSP_NR_EMPTY, true);
}

static void z2_kmem_cache_free_bulk_accounted(struct kunit *test)
{
	free_into_cache(test, "zsp_account", ZSP_SMALL, SLAB_ACCOUNT, GFP_KERNEL_ACCOUNT,
			ZSP_NR_SMALL, true);
}

/* A cache and no real object at all: nothing to free, nothing to touch. */
static void z2_kmem_cache_free_bulk_sentinels_only(struct kunit *test)
{
	struct kmem_cache *s = own_bulk_cache("zsp_small", ZSP_SMALL, 0);
	void *p[4] = { ZERO_SIZE_PTR, NULL, ZERO_SIZE_PTR, NULL };
	void **q = zsp_scratch(test, 64);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	expect_bulk_path(test, s, 0);
	kmem_cache_free_bulk(s, ARRAY_SIZE(p), p);
	kmem_cache_free_bulk(s, 1, p);
	zsp_expect_no_double_hand_out(test, s, ZSP_SMALL, GFP_KERNEL, q, 64);
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

void zsp_drain_deferred_frees(void)
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
		zsp_drain_deferred_frees();
	} while (zsp_slab_pages() - before > ZSP_SLACK_PAGES && time_before(jiffies, deadline));
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

	zsp_soak_slob_free_space();
	zsp_charge_begin(test, &c);
	before = zsp_slab_pages();
	for (i = 0; i < RCU_FILL; i++) {
		p[i] = kmalloc(ZSP_BIG, GFP_KERNEL_ACCOUNT);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p[i]);
	}
	during = zsp_slab_pages();
	zsp_charge_during(test, &c, RCU_FILL);
	vzero = kvmalloc(zsp_runtime_zero(), GFP_KERNEL);
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
		zsp_expect_pages_back(test, before, during, RCU_FILL * ZSP_BIG_PAGES);
	zsp_charge_end(test, &c);
}

static void z2_kvfree_rcu_headless(struct kunit *test)
{
	void **p = zsp_scratch(test, RCU_FILL);

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

	zsp_soak_slob_free_space();
	zsp_charge_begin(test, &c);
	before = zsp_slab_pages();
	for (i = 0; i < RCU_FILL; i++) {
		p[i] = kmalloc(sizeof(**p), GFP_KERNEL_ACCOUNT);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p[i]);
	}
	during = zsp_slab_pages();
	zsp_charge_during(test, &c, RCU_FILL);
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
		zsp_expect_pages_back(test, before, during, RCU_FILL * ZSP_BIG_PAGES);
	zsp_charge_end(test, &c);
}

static void z2_kfree_rcu_rcu_head(struct kunit *test)
{
	struct zsp_rcu_obj **p = kunit_kcalloc(test, RCU_FILL, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	kfree_rcu_rcu_head_round(test, p, false);
	kfree_rcu_rcu_head_round(test, p, true);
}

struct kunit_case zsp_z2_cases[] = {
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
	KUNIT_CASE(z2_kmem_cache_free_bulk_no_sheaves),
	KUNIT_CASE(z2_kmem_cache_free_bulk_rcu),
	KUNIT_CASE(z2_kmem_cache_free_bulk_zero_sized),
	KUNIT_CASE(z2_kmem_cache_free_bulk_accounted),
	KUNIT_CASE(z2_kmem_cache_free_bulk_sentinels_only),
	KUNIT_CASE(z2_kvfree_rcu_headless),
	KUNIT_CASE(z2_kfree_rcu_rcu_head),
	{}
};
