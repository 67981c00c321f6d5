/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ZSP_VMSTAT_H
#define ZSP_VMSTAT_H

#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/nodemask.h>

/*
 * Exact number of pages of one slab counter: the global counter plus every
 * CPU's pending delta, so that the small numbers the tests compare are not
 * lost in the per-cpu batching of vmstat.
 */
static inline long zsp_node_pages(enum node_stat_item item)
{
	long pages = global_node_page_state_pages(item);
	int nid, cpu;

	for_each_online_node(nid)
		for_each_online_cpu(cpu)
			pages += per_cpu_ptr(NODE_DATA(nid)->per_cpu_nodestats,
					     cpu)->vm_node_stat_diff[item];
	return pages;
}

/*
 * Slab pages in use, both kinds: SLAB_RECLAIM_ACCOUNT caches count as
 * reclaimable, every other slab and large kmalloc as unreclaimable.
 */
static inline long zsp_slab_pages(void)
{
	return zsp_node_pages(NR_SLAB_UNRECLAIMABLE_B) +
	       zsp_node_pages(NR_SLAB_RECLAIMABLE_B);
}

#endif /* ZSP_VMSTAT_H */
