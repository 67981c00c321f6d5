// SPDX-License-Identifier: GPL-2.0
/*
 * The oracles of zero_size_test: what tells a free that gave everything
 * back from one that skipped, leaked or freed twice.
 *
 * - pages: the slab page counter (zsp_vmstat.h) before, during and after
 *   a case's objects, with the soak that makes SLOB's shared pages show
 *   them and the flushes and shrinks that make the others' come back;
 * - charges: the references the charged objects hold on the memory
 *   cgroup the suite is loaded from (the distro profile);
 * - double hand-out: an object freed twice is handed out twice.
 *
 * kmem_cache_destroy()'s report of objects left is the fourth, the
 * kernel's own.
 */

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/debugobjects.h>
#include <linux/kernel.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sort.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "zsp_compat.h"
#include "zsp_oracle.h"
#include "zsp_protocol.h"
#include "zsp_vmstat.h"

/*
 * Under generic KASAN a freed object waits in the quarantine, its slab
 * page still counted, until the quarantine outgrows its size: the slab
 * page counter would read every free of a case as a leak, and the
 * release of earlier cases' objects in the middle of a case as frees.
 * kmem_cache_shrink() first releases the cache's quarantined objects:
 * do that for every kmalloc cache before a case and before its count
 * (the suite's own caches are shrunk where it frees into them).
 */
void zsp_flush_quarantine(void)
{
#ifdef CONFIG_KASAN_GENERIC
	int type, i;

	for (type = 0; type < NR_KMALLOC_TYPES; type++)
		for (i = 0; i <= KMALLOC_SHIFT_HIGH; i++)
			if (kmalloc_caches[type][i])
				kmem_cache_shrink(kmalloc_caches[type][i]);
#endif
}

#ifdef ZSP_KMALLOC_COPIES
/*
 * @s one copy of a normal kmalloc cache (see zsp_kmalloc_type()): shrink
 * the other copies of its size, one of which holds the objects.
 */
static void shrink_kmalloc_copies(struct kmem_cache *s)
{
	int type, i;

	for (i = 0; i <= KMALLOC_SHIFT_HIGH; i++)
		for (type = ZSP_KMALLOC_COPY_START; type <= ZSP_KMALLOC_COPY_END; type++)
			if (s && kmalloc_caches[type][i] == s)
				goto found;
	return;
found:
	for (type = ZSP_KMALLOC_COPY_START; type <= ZSP_KMALLOC_COPY_END; type++)
		if (kmalloc_caches[type][i] && kmalloc_caches[type][i] != s)
			kmem_cache_shrink(kmalloc_caches[type][i]);
}
#endif

/* Give the empty slabs of @s back to the page allocator. */
void zsp_shrink(struct kmem_cache *s)
{
	if (s)
		kmem_cache_shrink(s);
#ifdef ZSP_KMALLOC_COPIES
	shrink_kmalloc_copies(s);
#endif
	zsp_flush_quarantine();
	/* SLAB_TYPESAFE_BY_RCU slabs (and SLOB's objects) go after a grace period. */
	rcu_barrier();
}

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

void zsp_soak_slob_free_space(void)
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

void zsp_release_slob_soak(void)
{
	while (slob_soaked)
		kfree(slob_soak[--slob_soaked]);
	vfree(slob_soak);
	slob_soak = NULL;
}
#else
void zsp_soak_slob_free_space(void)
{
}

void zsp_release_slob_soak(void)
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
void zsp_memcg_get(void)
{
	zsp_memcg = get_mem_cgroup_from_mm(current->mm);
	if (zsp_memcg && !zsp_memcg->css.parent) {
		mem_cgroup_put(zsp_memcg);
		zsp_memcg = NULL;
	}
}

void zsp_memcg_put(void)
{
	mem_cgroup_put(zsp_memcg);
	zsp_memcg = NULL;
}

/*
 * A case that stops at an assertion never reaches zsp_charge_end(): its
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
void zsp_charge_begin(struct kunit *test, struct zsp_charge *c)
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
void zsp_charge_during(struct kunit *test, struct zsp_charge *c, size_t n)
{
	long charged, least = (long)n - slack_refs();

	c->during = objcg_refs(c->objcg);
	charged = c->during - c->before;
	KUNIT_EXPECT_GE_MSG(test, charged, least,
			    "%zu objects allocated, %ld charged to the cgroup", n, charged);
}

/* Everything freed: every charge dropped. */
void zsp_charge_end(struct kunit *test, struct zsp_charge *c)
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
void zsp_memcg_get(void)
{
}

void zsp_memcg_put(void)
{
}

void zsp_charge_begin(struct kunit *test, struct zsp_charge *c)
{
}

void zsp_charge_during(struct kunit *test, struct zsp_charge *c, size_t n)
{
}

void zsp_charge_end(struct kunit *test, struct zsp_charge *c)
{
}
#endif

/* The counter saw a case's allocations, or it proves nothing. */
void zsp_expect_pages_seen(struct kunit *test, long before, long during,
			   long allocated_pages)
{
	KUNIT_EXPECT_GE_MSG(test, during - before, allocated_pages / 2,
			    "the slab page counter did not see the allocations");
}

/*
 * What a case freed came back: the counter is back within the noise, and
 * within @kept pages that the kernel's debuggers may keep for the round.
 */
void zsp_expect_pages_returned(struct kunit *test, long before, long during, long kept)
{
	long after;

	zsp_flush_quarantine();
	after = zsp_slab_pages();

	zsp_print_pages(test, before, during, after);
	KUNIT_EXPECT_LE_MSG(test, after - before, (long)ZSP_SLACK_PAGES + kept,
			    "%ld slab pages not freed", after - before);
}

/* Real objects given to a free API came back, and the counter saw them. */
void zsp_expect_pages_back(struct kunit *test, long before, long during,
			   long allocated_pages)
{
	zsp_expect_pages_seen(test, before, during, allocated_pages);
	zsp_expect_pages_returned(test, before, during, 0);
}

/*
 * The pointer arrays a case needs, allocated before it reads the counter:
 * an array allocated inside the window would be counted as a leak.
 */
void **zsp_scratch(struct kunit *test, size_t n)
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
void zsp_expect_no_double_hand_out(struct kunit *test, struct kmem_cache *s,
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
 * zero_size_cache.c's NR_EMPTY_PINNED).
 *
 * So in such a cache the first round is where the counter must see the
 * allocations, and the second counts what stays, with no ballast in
 * between (it would fill the rooms the second round reuses), allowing
 * for the tracking objects of a quarter of the round's objects: less
 * than the objects themselves take, so a leak of them still fails.
 */
bool zsp_rcu_pins_pages(slab_flags_t flags)
{
	return IS_ENABLED(CONFIG_SLOB) && IS_ENABLED(CONFIG_DEBUG_OBJECTS_RCU_HEAD) &&
	       (flags & SLAB_TYPESAFE_BY_RCU);
}

/*
 * One round of free_into_cache() (zero_size_free.c) or
 * empty_objects_round() (zero_size_cache.c), counted or not, checks what
 * it can: the first round grows what the kernel's debuggers keep for
 * such a round (debugobjects' pool: see kvfree_rcu_headless_round()),
 * the second counts; where SLOB's tracking
 * objects keep the pages (zsp_rcu_pins_pages()), the first round's counter
 * must have seen the allocations and the second's must be back.
 */
void zsp_expect_round_pages(struct kunit *test, slab_flags_t flags, bool count,
			    size_t n, long before, long during, long allocated_pages)
{
	long tracked = DIV_ROUND_UP(n / 4 * sizeof(struct debug_obj), PAGE_SIZE);

	if (!zsp_rcu_pins_pages(flags)) {
		if (count)
			zsp_expect_pages_back(test, before, during, allocated_pages);
	} else if (count) {
		zsp_expect_pages_returned(test, before, during, tracked);
	} else {
		zsp_expect_pages_seen(test, before, during, allocated_pages);
	}
}

/* Before a round: the ballast, but where a counted round reuses the rooms. */
void zsp_soak_before_round(slab_flags_t flags, bool count)
{
	if (!count || !zsp_rcu_pins_pages(flags))
		zsp_soak_slob_free_space();
}
