/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zero_size_test on 6.1 and 6.12.
 *
 * The same cases run on 6.1 (SLAB, SLUB, SLOB) and 6.12 (SLUB only). What
 * differs between the two kernels' APIs is settled here, once, by feature
 * tests where a header shows the difference and by version otherwise; on
 * 6.1 every definition below expands to what the suite used before.
 * CONFIG_SLAB and CONFIG_SLOB do not exist on 6.12, so their branches
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
 * RANDOM_KMALLOC_CACHES_NR came with it. The suite cannot name the caller
 * its objects were allocated for: zsp_shrink() shrinks every copy.
 */
#ifdef RANDOM_KMALLOC_CACHES_NR
#define zsp_kmalloc_type(gfp)	kmalloc_type(gfp, 0)
#else
#define zsp_kmalloc_type(gfp)	kmalloc_type(gfp)
#endif

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
 * RCU's own, which no module can flush. Kbuild tells which (the header
 * declares it or not).
 */
#ifdef ZSP_HAVE_KVFREE_RCU_BARRIER
#define zsp_kvfree_rcu_barrier()	kvfree_rcu_barrier()
#else
#define zsp_kvfree_rcu_barrier()	do { } while (0)
#endif

#endif /* ZSP_COMPAT_H */
