// SPDX-License-Identifier: GPL-2.0
/*
 * Which cases of zero_size_test to run in this boot.
 *
 * A module's KUnit suites run from the MODULE_STATE_COMING notifier,
 * before the kernel parses that module's parameters, so the test module
 * cannot take its own "skip=". This module is loaded first with the list
 * and answers for it.
 */

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "zero_size_plan.h"

static char *skip;
module_param(skip, charp, 0444);
MODULE_PARM_DESC(skip, "comma-separated zero_size_test case names not to run");

/* True when @name is one of the comma-separated names in skip=. */
bool zero_size_plan_skips(const char *name)
{
	size_t len = strlen(name);
	const char *p = skip;

	while (p && *p) {
		if (!strncmp(p, name, len) && (p[len] == ',' || !p[len]))
			return true;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return false;
}
EXPORT_SYMBOL_GPL(zero_size_plan_skips);

MODULE_DESCRIPTION("Case selection for zero_size_test");
MODULE_LICENSE("GPL");
