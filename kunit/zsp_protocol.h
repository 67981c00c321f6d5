/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What zero_size_test prints for the harness, every line of it, with the
 * helpers that print it. matrix/zsp/console.py and runner.py read these
 * lines; change one here and there together.
 *
 * guest-init (matrix/guest-init) loads the modules one by one and brackets
 * each one's output: "zsp-harness: begin <module>", "zsp-harness: end
 * <module> rc=<n>", and "zsp-harness: done" after the last. Between them,
 * beside KUnit's own KTAP, zero_size_test prints:
 *
 *   zsp-cases <suite>: <case> <case> ...
 *	One line per suite, every suite's, printed by the first suite's
 *	suite_init before any case runs (zsp_print_cases()): the cases the
 *	harness expects a result for, so that a crash in an early suite
 *	cannot hide the cases of a later one. A case listed here that ends
 *	with no result is reported, never dropped.
 *
 *   # <case>: zsp-start
 *	The first line of every case that runs, from the case's init
 *	(zsp_print_start()). It opens the case's window on the console: an
 *	oops, splat, hang or silence from here to the case's KTAP result is
 *	the case's. On a crash the harness kills the guest and boots again,
 *	and zero_size_plan's skip= names the cases that already have a
 *	result. A case that passes without this line is an error.
 *
 *   ok <n> <case> # SKIP zsp-not-selected
 *	KTAP, by KUnit, for a case that zero_size_plan skips in this boot
 *	(zsp_skip_not_selected()): never counted as a pass.
 *
 *   # <case>: zsp-expect-oops read|write at <address>
 *	Z6 only, before the access (zsp_print_expect_oops()): the case
 *	must print exactly one oops, from a thread named ZSP_FAULT_COMM,
 *	of that access at that address. The harness lets the guest run on
 *	after it instead of booting again.
 *
 *   # <case>: zsp-pages before=<pages> during=<pages> after=<pages>
 *   # <case>: zsp-charges charged=<refs> left=<refs>
 *	The page oracle's and the charge oracle's numbers (zsp_oracle.c),
 *	for the person reading a boot log: the harness does not parse them.
 *
 * "# <case>: " is KUnit's prefix of kunit_info() (indented as the case's
 * KTAP lines). zero_size_bench, a module of its own, prints "zsp-bench:
 * <name> <median> <min> <max> <unit>" lines and "zsp-bench: done" for
 * matrix/zsp/bench.py.
 */
#ifndef ZSP_PROTOCOL_H
#define ZSP_PROTOCOL_H

#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/printk.h>

/* The task whose oops a Z6 case expects. */
#define ZSP_FAULT_COMM	"zsp_fault"

/* Every case of every suite in @suites (NULL-terminated), a line a suite. */
static inline void zsp_print_cases(struct kunit_suite *const *suites)
{
	/* One printk line each: at most LOG_LINE_MAX (~1000) characters. */
	char names[768];
	struct kunit_suite *const *s;
	struct kunit_case *c;
	size_t len;

	for (s = suites; *s; s++) {
		len = 0;
		names[0] = '\0';
		for (c = (*s)->test_cases; c->run_case; c++)
			len += scnprintf(names + len, sizeof(names) - len, " %s", c->name);
		pr_info("zsp-cases %s:%s\n", (*s)->name, names);
	}
}

static inline void zsp_print_start(struct kunit *test)
{
	kunit_info(test, "zsp-start\n");
}

/* Does not return: KUnit marks the case skipped and ends it. */
static inline void zsp_skip_not_selected(struct kunit *test)
{
	kunit_skip(test, "zsp-not-selected");
}

static inline void zsp_print_expect_oops(struct kunit *test, bool write, void *at)
{
	kunit_info(test, "zsp-expect-oops %s at 0x%lx\n", write ? "write" : "read",
		   (unsigned long)at);
}

static inline void zsp_print_pages(struct kunit *test, long before, long during, long after)
{
	kunit_info(test, "zsp-pages before=%ld during=%ld after=%ld\n",
		   before, during, after);
}

static inline void zsp_print_charges(struct kunit *test, long charged, long left)
{
	kunit_info(test, "zsp-charges charged=%ld left=%ld\n", charged, left);
}

#endif /* ZSP_PROTOCOL_H */
