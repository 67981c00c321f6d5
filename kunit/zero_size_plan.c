// SPDX-License-Identifier: GPL-2.0
/*
 * Which cases of zero_size_test to run in this boot.
 *
 * A module's KUnit suites run from the MODULE_STATE_COMING notifier,
 * before the kernel parses that module's parameters, so the test module
 * cannot take its own "skip=". This module is loaded first with the list
 * and answers for it. (That is 6.1; 6.12 runs them at MODULE_STATE_LIVE,
 * after the parameters, and this module serves there all the same.)
 */

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "zero_size_plan.h"

/*
 * An array, not one string: a charp parameter takes at most 1024 bytes,
 * fewer than the names of every case a late boot skips.
 */
#define ZSP_MAX_SKIP	256
static char *skip[ZSP_MAX_SKIP];
static int nr_skip;
module_param_array(skip, charp, &nr_skip, 0444);
MODULE_PARM_DESC(skip, "comma-separated zero_size_test case names not to run");

/* True when @name is one of the names in skip=. */
bool zero_size_plan_skips(const char *name)
{
	int i;

	for (i = 0; i < nr_skip; i++)
		if (!strcmp(skip[i], name))
			return true;
	return false;
}
EXPORT_SYMBOL_GPL(zero_size_plan_skips);

MODULE_DESCRIPTION("Case selection for zero_size_test");
MODULE_LICENSE("GPL");
