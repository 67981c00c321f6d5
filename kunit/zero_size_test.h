/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the case files of zero_size_test share: the sizes they allocate,
 * a few helpers, and each file's table of cases, which zero_size_suites.c
 * makes into suites.
 */
#ifndef ZERO_SIZE_TEST_H
#define ZERO_SIZE_TEST_H

#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/types.h>

#include "zsp_oracle.h"
#include "zsp_vmstat.h"

/* Enough zero-size requests that one byte of slab each would show. */
#define ZSP_MANY	BIT(16)
/* Real objects of ZSP_BIG (zsp_oracle.h) a case frees. */
#define ZSP_NR_BIG	64
/* Small objects, many to a slab: the bulk paths' same-slab look-ahead. */
#define ZSP_SMALL	64
#define ZSP_NR_SMALL	1024
/* Enough zero-sized objects to fill a few pages on every allocator. */
#define ZSP_NR_EMPTY	16384
/* The reserve of a kmalloc mempool of size 0. */
#define ZSP_NR_POOL	4

/* Runtime zero the compiler cannot see, to reach the out-of-line paths. */
static inline size_t zsp_runtime_zero(void)
{
	size_t zero = 0;

	OPTIMIZER_HIDE_VAR(zero);
	return zero;
}

/* zero_size_alloc.c: ZSP_MANY zero-size requests take no slab memory. */
void zsp_no_slab_memory(struct kunit *test, bool atomic);
/* zero_size_free.c: wait for the frees and work a case queued. */
void zsp_drain_deferred_frees(void);
/* zero_size_identical.c: preemption off, after the splat limit's second. */
void zsp_atomic_begin(void);

/* The cases of each clause, in the order they run; {} ends each. */
extern struct kunit_case zsp_z1_cases[];
extern struct kunit_case zsp_z2_cases[];
extern struct kunit_case zsp_z3_cases[];
extern struct kunit_case zsp_z4_cases[];
extern struct kunit_case zsp_z5_cases[];
extern struct kunit_case zsp_z6_cases[];
extern struct kunit_case zsp_z7_cases[];

#endif /* ZERO_SIZE_TEST_H */
