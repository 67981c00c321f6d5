// SPDX-License-Identifier: GPL-2.0
/*
 * Z5, caches of zero-sized objects: kmem_cache_create() of size 0, with
 * every flag that changes the layout, hands out distinct objects and
 * takes them all back (suite zero_size_cache).
 */

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/slab.h>

#include "zero_size_test.h"

#define ZSP_OBJS	16
/* Fewer where debugobjects keeps SLOB's pages: see zsp_rcu_pins_pages(). */
#define NR_EMPTY_PINNED	(ZSP_NR_EMPTY / 8)

/*
 * An empty struct: GNU C gives it size 0, as configuration options can
 * give a struct that a KMEM_CACHE() user still allocates.
 */
struct zsp_empty {
};

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
 * Where that tracking keeps SLOB's pages (zsp_rcu_pins_pages()), fewer
 * objects: ZSP_NR_EMPTY of them leave more tracking objects than the objects
 * themselves take.
 */
static void empty_objects_round(struct kunit *test, struct kmem_cache *s, void **p,
				slab_flags_t flags, bool count)
{
	bool account = ZSP_MEMCG_KMEM && (flags & SLAB_ACCOUNT);
	int i, got = 0, n = zsp_rcu_pins_pages(flags) ? NR_EMPTY_PINNED : ZSP_NR_EMPTY;
	struct zsp_charge c;
	long before, during;

	zsp_soak_before_round(flags, count);
	if (account)
		zsp_charge_begin(test, &c);
	before = zsp_slab_pages();
	for (i = 0; i < n; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		if (ZERO_OR_NULL_PTR(p[i]))
			continue;
		got++;
	}
	during = zsp_slab_pages();
	if (account)
		zsp_charge_during(test, &c, got);
	for (i = 0; i < n; i++)
		if (!ZERO_OR_NULL_PTR(p[i]))
			kmem_cache_free(s, p[i]);
	KUNIT_EXPECT_EQ(test, got, n);
	zsp_shrink(s);
	if (account)
		zsp_charge_end(test, &c);
	/* n zero-sized objects fill one page at least. */
	zsp_expect_round_pages(test, flags, count, n, before, during, 2);
}

/* @flags: the cache's; SLAB_ACCOUNT objects charge the suite's cgroup. */
static void expect_empty_objects_freed(struct kunit *test, struct kmem_cache *s,
				       slab_flags_t flags)
{
	void **p = zsp_scratch(test, ZSP_NR_EMPTY);

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

	got = zsp_alloc_bulk(s, GFP_KERNEL, ZSP_OBJS, bulk);
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

struct kunit_case zsp_z5_cases[] = {
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
