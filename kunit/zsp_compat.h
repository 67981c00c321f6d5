/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zero_size_test on 6.1, 6.12 and 7.3.
 *
 * The same cases run on 6.1 (SLAB, SLUB, SLOB), 6.12 and 7.3 (SLUB only).
 * What differs between the kernels' APIs is settled here, once, by
 * feature tests where a header shows the difference (here or in Kbuild);
 * on 6.1 every definition below expands to what the suite used before.
 * CONFIG_SLAB and CONFIG_SLOB do not exist after 6.8, so their branches
 * below fall to the SLUB ones by themselves.
 */
#ifndef ZSP_COMPAT_H
#define ZSP_COMPAT_H

#include <linux/memcontrol.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/types.h>

/*
 * Slab objects charged to a memory cgroup. 6.1 has a hidden
 * CONFIG_MEMCG_KMEM, MEMCG && !SLOB; later kernels dropped the option and
 * charge slab objects whenever MEMCG is set (SLOB is gone there).
 */
#if defined(CONFIG_MEMCG_KMEM) || (defined(CONFIG_MEMCG) && !defined(CONFIG_SLOB))
#define ZSP_MEMCG_KMEM	1
#else
#define ZSP_MEMCG_KMEM	0
#endif

/*
 * The head-less kvfree_rcu(ptr): 6.12 has only kvfree_rcu_mightsleep(ptr)
 * (kvfree_rcu() takes the rcu_head's name there), 6.1.y has both, one
 * macro (kvfree_rcu_arg_1) under two names; early 6.1.y only kvfree_rcu().
 */
#ifndef kvfree_rcu_mightsleep
#define kvfree_rcu_mightsleep(ptr)	kvfree_rcu(ptr)
#endif

/*
 * The kmalloc cache type of a gfp. Since 6.6, kmalloc_type() also takes
 * the caller, which picks one of CONFIG_RANDOM_KMALLOC_CACHES' copies of
 * the normal caches (and is ignored without that option);
 * RANDOM_KMALLOC_CACHES_NR came with it. 7.x renamed the copies
 * partitions (CONFIG_KMALLOC_PARTITION_CACHES, KMALLOC_PARTITION_CACHES_NR,
 * defined with or without the option) and passes a kmalloc_token_t for
 * the caller. The suite cannot name the caller its objects were allocated
 * for: zsp_shrink() shrinks every copy (ZSP_KMALLOC_COPY_START..END).
 */
#if defined(KMALLOC_PARTITION_CACHES_NR)
#define zsp_kmalloc_type(gfp)	kmalloc_type(gfp, __kmalloc_token(0))
#elif defined(RANDOM_KMALLOC_CACHES_NR)
#define zsp_kmalloc_type(gfp)	kmalloc_type(gfp, 0)
#else
#define zsp_kmalloc_type(gfp)	kmalloc_type(gfp)
#endif

#if defined(CONFIG_KMALLOC_PARTITION_CACHES)
#define ZSP_KMALLOC_COPIES		1
#define ZSP_KMALLOC_COPY_START		KMALLOC_PARTITION_START
#define ZSP_KMALLOC_COPY_END		KMALLOC_PARTITION_END
#elif defined(CONFIG_RANDOM_KMALLOC_CACHES)
#define ZSP_KMALLOC_COPIES		1
#define ZSP_KMALLOC_COPY_START		KMALLOC_RANDOM_START
#define ZSP_KMALLOC_COPY_END		KMALLOC_RANDOM_END
#endif

/*
 * kmem_cache_alloc_bulk(): all @nr objects or none. It returned their
 * number (@nr or 0) up to 6.x and returns a bool since; the cases count.
 */
static inline int zsp_alloc_bulk(struct kmem_cache *s, gfp_t gfp, int nr, void **p)
{
	return kmem_cache_alloc_bulk(s, gfp, nr, p) ? nr : 0;
}

/*
 * The flags of a cache of the suite's own (own_cache() in
 * zero_size_free.c), which 6.1 never merges into another when it has a
 * usercopy region, that is when its size is not 0 (a zero-sized one has
 * none: 6.1 may merge it). 6.12 merges a cache with a usercopy region
 * unless CONFIG_HARDENED_USERCOPY: SLAB_NO_MERGE (6.5+) keeps the 6.1 rule
 * there.
 */
static inline slab_flags_t zsp_own_cache_flags(slab_flags_t flags, unsigned int size)
{
#ifdef SLAB_NO_MERGE
	if (size)
		flags |= SLAB_NO_MERGE;
#endif
	return flags;
}

/*
 * Wait for every kvfree_rcu() queued so far. 6.1 queues the batches on
 * system_wq, which zsp_drain_deferred_frees() flushes; 6.12 has
 * kvfree_rcu_barrier() for that, and 6.12.y queues them on a workqueue of
 * RCU's own, which no module can flush. Kbuild tells which (whether the
 * tree exports it: 7.3 declares it in slab.h but no longer exports it,
 * and the suite's drain_rcu_frees() then waits for the batches to come
 * back, as on 6.12.y without it).
 */
#ifdef ZSP_HAVE_KVFREE_RCU_BARRIER
#define zsp_kvfree_rcu_barrier()	kvfree_rcu_barrier()
#else
#define zsp_kvfree_rcu_barrier()	do { } while (0)
#endif

/*
 * Sheaves (6.18+): kmem_cache_free_bulk() on a cache with per-CPU
 * sheaves frees through free_to_pcs_bulk(), on any other cache (and on
 * every cache before) through build_detached_freelist(). Which one a
 * cache has is in struct kmem_cache, mm/slab.h (as lib/tests/slub_kunit.c
 * reads it; Kbuild puts the tree's top on the include path).
 * SLAB_NO_SHEAVES in slab.h marks the kernels that have them, but
 * kmem_cache_create() refuses it (internal to the bootstrap caches); a
 * SLAB_NOLEAKTRACE cache has none either (calculate_sheaf_capacity()).
 */
#ifdef SLAB_NO_SHEAVES
#include "mm/slab.h"
#define ZSP_HAVE_SHEAVES		1
#define ZSP_NO_SHEAVES			SLAB_NOLEAKTRACE
/*
 * A cache a bulk-free case wants sheaves on: slab_debug (SLUB_DEBUG_ON,
 * the debug profile) gives every cache debug flags, and so no sheaves,
 * and free_to_pcs_bulk() would go untested under KASAN and lockdep.
 * SLAB_NO_USER_FLAGS keeps the command line's and the config's debug
 * flags off this one cache (kmem_cache_flags()), as for the kmalloc
 * caches; flags the case asks for itself stay. A no-op on a kernel
 * that debugs no cache.
 */
#define ZSP_WANT_SHEAVES		SLAB_NO_USER_FLAGS
static inline bool zsp_cache_has_sheaves(struct kmem_cache *s)
{
	return cache_has_sheaves(s);
}
#else
#define ZSP_NO_SHEAVES			0
#define ZSP_WANT_SHEAVES		0
#endif

#endif /* ZSP_COMPAT_H */
