/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The oracles of zero_size_test (zsp_oracle.c): the slab page counter,
 * the memory cgroup's charges, no object handed out twice, and the soak
 * of SLOB's free space that lets the page counter see a case's objects.
 */
#ifndef ZSP_ORACLE_H
#define ZSP_ORACLE_H

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/types.h>

#include "zsp_compat.h"

/*
 * Real objects above KMALLOC_MAX_CACHE_SIZE (8 KiB on all three
 * allocators in 6.1) come from the page allocator and go back to it at
 * once, and they count in NR_SLAB_UNRECLAIMABLE_B: a single leaked one
 * moves the counter by ZSP_BIG_PAGES.
 */
#define ZSP_BIG		(4 * PAGE_SIZE)
#define ZSP_BIG_PAGES	(ZSP_BIG / PAGE_SIZE)
/*
 * Noise of the slab page counter across one case in a quiet guest, in
 * pages. Below ZSP_BIG_PAGES, so that one leaked ZSP_BIG object fails the
 * case (but under kmemleak, below).
 *
 * kmemleak gives every object a case allocates a tracking object, freed
 * after a grace period into kmemleak's own cache, which no module can
 * shrink: its partial slabs move the counter by -5 to +13 pages around a
 * case of 1,024 small objects (leak profile, measured). There the counter
 * allows for twice that, and kmemleak's scan after the suite, which names
 * every leaked object of the suite's, is the leak oracle.
 */
#ifdef CONFIG_DEBUG_KMEMLEAK
#define ZSP_SLACK_PAGES	32
#else
#define ZSP_SLACK_PAGES	(ZSP_BIG_PAGES - 1)
#endif

/* Pages: what the counter reads, and what moves it. */
void zsp_flush_quarantine(void);
void zsp_shrink(struct kmem_cache *s);
void zsp_soak_slob_free_space(void);
void zsp_release_slob_soak(void);
void **zsp_scratch(struct kunit *test, size_t n);
void zsp_expect_pages_seen(struct kunit *test, long before, long during,
			   long allocated_pages);
void zsp_expect_pages_returned(struct kunit *test, long before, long during, long kept);
void zsp_expect_pages_back(struct kunit *test, long before, long during,
			   long allocated_pages);

/* Rounds of a case, where SLOB's pages stay pinned by debugobjects. */
bool zsp_rcu_pins_pages(slab_flags_t flags);
void zsp_soak_before_round(slab_flags_t flags, bool count);
void zsp_expect_round_pages(struct kunit *test, slab_flags_t flags, bool count,
			    size_t n, long before, long during, long allocated_pages);

/* Double hand-out: @s NULL for kmalloc(). */
void zsp_expect_no_double_hand_out(struct kunit *test, struct kmem_cache *s,
				   size_t size, gfp_t gfp, void **p, size_t n);

/*
 * Charges to the suite's memory cgroup (ZSP_MEMCG_KMEM kernels; no-ops
 * elsewhere): zsp_memcg_get() and _put() around the suites, begin, during
 * and end around a case's accounted objects.
 */
#if ZSP_MEMCG_KMEM
struct zsp_charge {
	struct mem_cgroup *old;
	struct obj_cgroup *objcg;
	struct kunit_resource *ref;	/* the case's reference on objcg */
	unsigned long before;
	unsigned long during;
};
#else
struct zsp_charge {
};
#endif

void zsp_memcg_get(void);
void zsp_memcg_put(void);
void zsp_charge_begin(struct kunit *test, struct zsp_charge *c);
void zsp_charge_during(struct kunit *test, struct zsp_charge *c, size_t n);
void zsp_charge_end(struct kunit *test, struct zsp_charge *c);

#endif /* ZSP_ORACLE_H */
