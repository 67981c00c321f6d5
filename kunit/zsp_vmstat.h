/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ZSP_VMSTAT_H
#define ZSP_VMSTAT_H

#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/nodemask.h>

/*
 * Exact number of slab pages in use: the global counter plus every CPU's
 * pending delta, so that the small numbers the tests compare are not lost
 * in the per-cpu batching of vmstat.
 */
static inline long zsp_slab_pages(void)
{
	long pages = global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B);
	int nid, cpu;

	for_each_online_node(nid)
		for_each_online_cpu(cpu)
			pages += per_cpu_ptr(NODE_DATA(nid)->per_cpu_nodestats,
					     cpu)->vm_node_stat_diff[NR_SLAB_UNRECLAIMABLE_B];
	return pages;
}

#endif /* ZSP_VMSTAT_H */
