// SPDX-License-Identifier: GPL-2.0
/*
 * Z3, queries: ksize() of the sentinels is 0, kmalloc_size_roundup(0) is
 * 0 (suite zero_size_query). Z4, resize: krealloc() to 0 frees and
 * returns ZERO_SIZE_PTR, krealloc() of ZERO_SIZE_PTR allocates (suite
 * zero_size_resize).
 */

#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "zero_size_test.h"

static void z3_ksize(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ksize(ZERO_SIZE_PTR), (size_t)0);
	KUNIT_EXPECT_EQ(test, ksize(NULL), (size_t)0);
}

static void z3_kmalloc_size_roundup(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kmalloc_size_roundup(zsp_runtime_zero()), (size_t)0);
	KUNIT_EXPECT_GE(test, kmalloc_size_roundup(1), (size_t)1);
}

/* ---- Z4: resize -------------------------------------------------------- */

static void z4_krealloc_to_zero(struct kunit *test)
{
	void *p[ZSP_NR_BIG];
	long before = zsp_slab_pages(), during;
	int i, not_zsp = 0;

	for (i = 0; i < ZSP_NR_BIG; i++) {
		p[i] = kmalloc(ZSP_BIG, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p[i]);
	}
	during = zsp_slab_pages();
	for (i = 0; i < ZSP_NR_BIG; i++)
		not_zsp += krealloc(p[i], zsp_runtime_zero(), GFP_KERNEL) != ZERO_SIZE_PTR;
	KUNIT_EXPECT_EQ(test, not_zsp, 0);
	zsp_expect_pages_back(test, before, during, ZSP_NR_BIG * ZSP_BIG_PAGES);
}

static void z4_krealloc_from_zsp(struct kunit *test)
{
	char *p = krealloc(ZERO_SIZE_PTR, 100, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	KUNIT_EXPECT_PTR_NE(test, (void *)p, ZERO_SIZE_PTR);
	KUNIT_EXPECT_GE(test, ksize(p), (size_t)100);
	memset(p, 0x5a, 100);
	KUNIT_EXPECT_EQ(test, p[99], (char)0x5a);
	kfree(p);
}

struct kunit_case zsp_z3_cases[] = {
	KUNIT_CASE(z3_ksize),
	KUNIT_CASE(z3_kmalloc_size_roundup),
	{}
};

struct kunit_case zsp_z4_cases[] = {
	KUNIT_CASE(z4_krealloc_to_zero),
	KUNIT_CASE(z4_krealloc_from_zsp),
	{}
};
