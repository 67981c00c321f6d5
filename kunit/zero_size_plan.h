/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ZERO_SIZE_PLAN_H
#define ZERO_SIZE_PLAN_H

#include <linux/types.h>

bool zero_size_plan_skips(const char *name);

#endif /* ZERO_SIZE_PLAN_H */
