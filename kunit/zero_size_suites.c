// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the zero-size allocation contract, clauses Z1-Z8 of
 * docs/contract.md: one module, zero_size_test.ko, of the files below.
 *
 * Every case that frees real objects checks that they came back (the
 * slab page counter, kmem_cache_destroy()'s report of objects left, no
 * object handed out twice afterwards, and where the kernel has memcg, the
 * charges of its cgroup), so a "fix" that skips, leaks or double-frees
 * fails here rather than passing quietly. Z8 (the contract holds on the
 * kernels people debug with) is these same suites run on the debug and
 * distro profiles' kernels.
 *
 * Built out of tree so that the same source runs against vanilla and
 * patched 6.1 kernels with SLAB, SLUB and SLOB, and 6.12 kernels (SLUB,
 * the only allocator left there; zsp_compat.h settles the API
 * differences, which no case body sees). On vanilla kernels some cases
 * oops, divide by zero or spin under slab_mutex; the harness reads the
 * "zsp-start" line each case prints first, kills the guest and resumes
 * the remaining cases in a fresh boot; zero_size_plan names the cases
 * that already have a result. Skipped cases are never counted as passed.
 * Everything printed for the harness is in zsp_protocol.h.
 *
 *   (this file)			the suites, their init and exit
 *   zero_size_alloc.c		Z1, suite zero_size_alloc
 *   zero_size_free.c		Z2, suite zero_size_free
 *   zero_size_query_resize.c	Z3 and Z4, suites zero_size_query and _resize
 *   zero_size_cache.c		Z5, suite zero_size_cache
 *   zero_size_identical.c	Z7, suite zero_size_identical
 *   zero_size_fault.c		Z6, suite zero_size_fault (last)
 *   zsp_oracle.c		the oracles: pages, charges, double hand-out, soak
 *   zero_size_test.h, zsp_oracle.h, zsp_protocol.h, zsp_compat.h
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/string.h>

#include "zero_size_plan.h"
#include "zero_size_test.h"
#include "zsp_protocol.h"

static int zsp_case_init(struct kunit *test)
{
	if (zero_size_plan_skips(test->name))
		zsp_skip_not_selected(test);
	zsp_flush_quarantine();
	zsp_soak_slob_free_space();
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
		zsp_drain_deferred_frees();
	zsp_release_slob_soak();
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

static struct kunit_suite zero_size_alloc = {
	.name = "zero_size_alloc",
	.suite_init = zsp_suite_init,
	.suite_exit = zsp_suite_exit,
	.init = zsp_case_init,
	.exit = zsp_case_exit,
	.test_cases = zsp_z1_cases,
};

static struct kunit_suite zero_size_free = {
	.name = "zero_size_free",
	.suite_init = zsp_suite_init,
	.suite_exit = zsp_suite_exit,
	.init = zsp_case_init,
	.exit = zsp_case_exit,
	.test_cases = zsp_z2_cases,
};

static struct kunit_suite zero_size_query = {
	.name = "zero_size_query",
	.suite_init = zsp_suite_init,
	.suite_exit = zsp_suite_exit,
	.init = zsp_case_init,
	.exit = zsp_case_exit,
	.test_cases = zsp_z3_cases,
};

static struct kunit_suite zero_size_resize = {
	.name = "zero_size_resize",
	.suite_init = zsp_suite_init,
	.suite_exit = zsp_suite_exit,
	.init = zsp_case_init,
	.exit = zsp_case_exit,
	.test_cases = zsp_z4_cases,
};

static struct kunit_suite zero_size_cache = {
	.name = "zero_size_cache",
	.suite_init = zsp_suite_init,
	.suite_exit = zsp_suite_exit,
	.init = zsp_case_init,
	.exit = zsp_case_exit,
	.test_cases = zsp_z5_cases,
};

static struct kunit_suite zero_size_identical = {
	.name = "zero_size_identical",
	.suite_init = zsp_suite_init,
	.suite_exit = zsp_suite_exit,
	.init = zsp_case_init,
	.exit = zsp_case_exit,
	.test_cases = zsp_z7_cases,
};

/* Last: an oops taints the kernel for every case after it. */
static struct kunit_suite zero_size_fault = {
	.name = "zero_size_fault",
	.suite_init = zsp_suite_init,
	.suite_exit = zsp_suite_exit,
	.init = zsp_case_init,
	.exit = zsp_case_exit,
	.test_cases = zsp_z6_cases,
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
