/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the prepage extent sets, the range parser and the ratio
 * helper.
 */

#ifdef CONFIG_PREPAGE_KUNIT_TEST

#ifndef _PREPAGE_EXTENTS_KUNIT_H
#define _PREPAGE_EXTENTS_KUNIT_H

#include <kunit/test.h>

#include "prepage-kunit.h"

static void prepage_test_extents_add(struct kunit *test)
{
	struct prepage_extents set = {};

	KUNIT_ASSERT_EQ(test, prepage_extents_add(&set, 100, 10), 0);
	KUNIT_ASSERT_EQ(test, prepage_extents_add(&set, 10, 5), 0);
	KUNIT_ASSERT_EQ(test, prepage_extents_add(&set, 50, 1), 0);
	prepage_expect_set(test, &set, (pgoff_t []){ 10, 5, 50, 1, 100, 10 }, 3);

	/* Touching runs merge: 15..19 joins 10..14, 49 joins 50. */
	KUNIT_ASSERT_EQ(test, prepage_extents_add(&set, 15, 5), 0);
	KUNIT_ASSERT_EQ(test, prepage_extents_add(&set, 49, 1), 0);
	prepage_expect_set(test, &set, (pgoff_t []){ 10, 10, 49, 2, 100, 10 }, 3);

	/* A run over several extents swallows them. */
	KUNIT_ASSERT_EQ(test, prepage_extents_add(&set, 12, 90), 0);
	prepage_expect_set(test, &set, (pgoff_t []){ 10, 100 }, 1);

	/* Already present: no change. */
	KUNIT_ASSERT_EQ(test, prepage_extents_add(&set, 20, 3), 0);
	prepage_expect_set(test, &set, (pgoff_t []){ 10, 100 }, 1);
	KUNIT_EXPECT_EQ(test, prepage_extents_pages(&set), 100UL);

	/* Empty and wrapping runs are refused and change nothing. */
	KUNIT_EXPECT_EQ(test, prepage_extents_add(&set, 5, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, prepage_extents_add(&set, ULONG_MAX, 2), -EINVAL);
	prepage_expect_set(test, &set, (pgoff_t []){ 10, 100 }, 1);

	KUNIT_EXPECT_TRUE(test, prepage_extents_contains(&set, 10));
	KUNIT_EXPECT_TRUE(test, prepage_extents_contains(&set, 109));
	KUNIT_EXPECT_FALSE(test, prepage_extents_contains(&set, 9));
	KUNIT_EXPECT_FALSE(test, prepage_extents_contains(&set, 110));
	KUNIT_EXPECT_FALSE(test, prepage_extents_contains(&set, ULONG_MAX));

	KUNIT_EXPECT_FALSE(test, prepage_extents_overlaps(&set, 0, 10));
	KUNIT_EXPECT_TRUE(test, prepage_extents_overlaps(&set, 0, 11));
	KUNIT_EXPECT_TRUE(test, prepage_extents_overlaps(&set, 50, 1));
	KUNIT_EXPECT_TRUE(test, prepage_extents_overlaps(&set, 0, 200));
	KUNIT_EXPECT_TRUE(test, prepage_extents_overlaps(&set, 109, 8));
	KUNIT_EXPECT_FALSE(test, prepage_extents_overlaps(&set, 110, 8));
	KUNIT_EXPECT_FALSE(test, prepage_extents_overlaps(&set, 20, 0));
	KUNIT_EXPECT_FALSE(test, prepage_extents_overlaps(&set, ULONG_MAX, 1));
	prepage_extents_destroy(&set);
	KUNIT_EXPECT_EQ(test, set.nr, 0U);
}

static void prepage_test_extents_remove(struct kunit *test)
{
	struct prepage_extents set = {};

	KUNIT_ASSERT_EQ(test, prepage_extents_add(&set, 0, 32), 0);
	KUNIT_ASSERT_EQ(test, prepage_extents_add(&set, 40, 8), 0);

	/* Eviction of unused pages inside an extent splits it. */
	KUNIT_ASSERT_EQ(test, prepage_extents_remove(&set, 8, 4), 0);
	prepage_expect_set(test, &set, (pgoff_t []){ 0, 8, 12, 20, 40, 8 }, 3);

	/* Head and tail trims. */
	KUNIT_ASSERT_EQ(test, prepage_extents_remove(&set, 0, 2), 0);
	KUNIT_ASSERT_EQ(test, prepage_extents_remove(&set, 46, 10), 0);
	prepage_expect_set(test, &set, (pgoff_t []){ 2, 6, 12, 20, 40, 6 }, 3);

	/* A run over several extents: trims one, drops one, trims one. */
	KUNIT_ASSERT_EQ(test, prepage_extents_remove(&set, 5, 37), 0);
	prepage_expect_set(test, &set, (pgoff_t []){ 2, 3, 42, 4 }, 2);

	/* Runs that miss every extent change nothing. */
	KUNIT_ASSERT_EQ(test, prepage_extents_remove(&set, 5, 37), 0);
	KUNIT_ASSERT_EQ(test, prepage_extents_remove(&set, 100, 1), 0);
	prepage_expect_set(test, &set, (pgoff_t []){ 2, 3, 42, 4 }, 2);
	KUNIT_EXPECT_EQ(test, prepage_extents_pages(&set), 7UL);

	KUNIT_EXPECT_EQ(test, prepage_extents_remove(&set, 3, 0), -EINVAL);
	KUNIT_ASSERT_EQ(test, prepage_extents_remove(&set, 0, 1000), 0);
	KUNIT_EXPECT_EQ(test, set.nr, 0U);
	prepage_extents_destroy(&set);
}

static void prepage_test_extents_io(struct kunit *test)
{
	struct prepage_extents set = {};
	struct prepage_extent io;
	unsigned int pos = 0;

	/* 0-9, then 10 pages apart, then 20 apart: with a gap of 16 pages
	 * the first two are one I/O, the third is another.
	 */
	KUNIT_ASSERT_EQ(test, prepage_extents_add(&set, 0, 10), 0);
	KUNIT_ASSERT_EQ(test, prepage_extents_add(&set, 20, 5), 0);
	KUNIT_ASSERT_EQ(test, prepage_extents_add(&set, 45, 3), 0);

	KUNIT_ASSERT_TRUE(test, prepage_extents_next_io(&set, &pos, 16, &io));
	KUNIT_EXPECT_EQ(test, io.start, 0UL);
	KUNIT_EXPECT_EQ(test, io.nr, 25UL);
	KUNIT_ASSERT_TRUE(test, prepage_extents_next_io(&set, &pos, 16, &io));
	KUNIT_EXPECT_EQ(test, io.start, 45UL);
	KUNIT_EXPECT_EQ(test, io.nr, 3UL);
	KUNIT_EXPECT_FALSE(test, prepage_extents_next_io(&set, &pos, 16, &io));

	/* A gap of exactly the merge distance is not "closer than" it. */
	pos = 0;
	KUNIT_ASSERT_TRUE(test, prepage_extents_next_io(&set, &pos, 10, &io));
	KUNIT_EXPECT_EQ(test, io.nr, 10UL);

	/* Gap 0: every extent is its own I/O. */
	pos = 0;
	KUNIT_EXPECT_TRUE(test, prepage_extents_next_io(&set, &pos, 0, &io));
	KUNIT_EXPECT_TRUE(test, prepage_extents_next_io(&set, &pos, 0, &io));
	KUNIT_EXPECT_TRUE(test, prepage_extents_next_io(&set, &pos, 0, &io));
	KUNIT_EXPECT_FALSE(test, prepage_extents_next_io(&set, &pos, 0, &io));

	/* Runs that fall in the holes between extents, or reach across. */
	KUNIT_EXPECT_FALSE(test, prepage_extents_overlaps(&set, 10, 10));
	KUNIT_EXPECT_TRUE(test, prepage_extents_overlaps(&set, 10, 11));
	KUNIT_EXPECT_FALSE(test, prepage_extents_overlaps(&set, 25, 20));
	KUNIT_EXPECT_TRUE(test, prepage_extents_overlaps(&set, 25, 21));
	KUNIT_EXPECT_TRUE(test, prepage_extents_overlaps(&set, 5, 100));
	KUNIT_EXPECT_FALSE(test, prepage_extents_overlaps(&set, 48, 100));
	prepage_extents_destroy(&set);
}

static void prepage_test_extents_intersect(struct kunit *test)
{
	struct prepage_extents a = {}, b = {}, c = {};

	/* a: 0-31, 40-47; b: 8-11, 24-43, 100 */
	KUNIT_ASSERT_EQ(test, prepage_extents_add(&a, 0, 32), 0);
	KUNIT_ASSERT_EQ(test, prepage_extents_add(&a, 40, 8), 0);
	KUNIT_ASSERT_EQ(test, prepage_extents_add(&b, 8, 4), 0);
	KUNIT_ASSERT_EQ(test, prepage_extents_add(&b, 24, 20), 0);
	KUNIT_ASSERT_EQ(test, prepage_extents_add(&b, 100, 1), 0);

	KUNIT_ASSERT_EQ(test, prepage_extents_intersect(&c, &a, &b), 0);
	prepage_expect_set(test, &c, (pgoff_t []){ 8, 4, 24, 8, 40, 4 }, 3);
	prepage_extents_destroy(&c);
	KUNIT_ASSERT_EQ(test, prepage_extents_intersect(&c, &b, &a), 0);
	KUNIT_EXPECT_EQ(test, prepage_extents_pages(&c), 16UL);
	prepage_extents_destroy(&c);

	/* Eviction of the unused part: a - b splits a's first extent. */
	KUNIT_ASSERT_EQ(test, prepage_extents_subtract(&a, &b), 0);
	prepage_expect_set(test, &a, (pgoff_t []){ 0, 8, 12, 12, 44, 4 }, 3);
	KUNIT_ASSERT_EQ(test, prepage_extents_intersect(&c, &a, &b), 0);
	KUNIT_EXPECT_EQ(test, c.nr, 0U);
	prepage_extents_destroy(&a);
	prepage_extents_destroy(&b);
	prepage_extents_destroy(&c);
}

static void prepage_test_extents_copy(struct kunit *test)
{
	struct prepage_extents a = {}, c = {};

	/* An empty set copies to an empty one. */
	KUNIT_ASSERT_EQ(test, prepage_extents_copy(&c, &a), 0);
	KUNIT_EXPECT_EQ(test, c.nr, 0U);
	KUNIT_ASSERT_EQ(test, prepage_extents_add(&a, 0, 32), 0);
	KUNIT_ASSERT_EQ(test, prepage_extents_add(&a, 40, 8), 0);
	KUNIT_ASSERT_EQ(test, prepage_extents_copy(&c, &a), 0);
	prepage_expect_set(test, &c, (pgoff_t []){ 0, 32, 40, 8 }, 2);
	/* A copy of its own: changing it leaves the original alone. */
	KUNIT_ASSERT_EQ(test, prepage_extents_remove(&c, 0, 8), 0);
	prepage_expect_set(test, &a, (pgoff_t []){ 0, 32, 40, 8 }, 2);
	prepage_expect_set(test, &c, (pgoff_t []){ 8, 24, 40, 8 }, 2);
	prepage_extents_destroy(&a);
	prepage_extents_destroy(&c);
}

/* Parse the ranges @fmt prints (in bytes: multiples of PAGE_SIZE) into @set. */
static __printf(3, 4) int prepage_test_parse(struct prepage_extents *set,
					     unsigned int max, const char *fmt,
					     ...)
{
	char buf[128];
	va_list args;

	va_start(args, fmt);
	vsnprintf(buf, sizeof(buf), fmt, args);
	va_end(args);
	prepage_extents_destroy(set);
	return prepage_parse_ranges(buf, set, max);
}

static void prepage_test_parse_ranges(struct kunit *test)
{
	const unsigned long p = PAGE_SIZE;
	/* A page aligned length that ends past the largest file. */
	const unsigned long long past = round_up((u64)MAX_LFS_FILESIZE + 1, p);
	struct prepage_extents set = {};

	KUNIT_EXPECT_EQ(test, prepage_test_parse(&set, 8, "0:%lu,%#lx:%lu",
						 2 * p, 16 * p, p), 0);
	prepage_expect_set(test, &set, (pgoff_t []){ 0, 2, 16, 1 }, 2);

	/* Overlapping ranges are merged, not rejected. */
	KUNIT_EXPECT_EQ(test, prepage_test_parse(&set, 8, "0:%lu,%lu:%lu",
						 2 * p, p, 2 * p), 0);
	prepage_expect_set(test, &set, (pgoff_t []){ 0, 3 }, 1);

	KUNIT_EXPECT_EQ(test, prepage_test_parse(&set, 8, "1:%lu", p), -EINVAL);
	KUNIT_EXPECT_EQ(test, prepage_test_parse(&set, 8, "0:%lu", p - 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, prepage_test_parse(&set, 8, "0:0"), -EINVAL);
	KUNIT_EXPECT_EQ(test, prepage_test_parse(&set, 8, "%lu", p), -EINVAL);
	KUNIT_EXPECT_EQ(test, prepage_test_parse(&set, 8, "0:%lu,", p), -EINVAL);
	KUNIT_EXPECT_EQ(test, prepage_test_parse(&set, 8, "%s", ""), -EINVAL);
	KUNIT_EXPECT_EQ(test, prepage_test_parse(&set, 8, "x:%lu", p), -EINVAL);
	KUNIT_EXPECT_EQ(test, prepage_test_parse(&set, 8, "-%lu:%lu", p, p),
			-EINVAL);
	/* Wrapping past the end of the offsets, and past the largest file. */
	KUNIT_EXPECT_EQ(test, prepage_test_parse(&set, 8, "%#llx:%#lx",
						 -(unsigned long long)p, 2 * p),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, prepage_test_parse(&set, 8, "0:%llu", past),
			-EINVAL);

	KUNIT_EXPECT_EQ(test, prepage_test_parse(&set, 2, "0:%lu,%lu:%lu",
						 p, 2 * p, p), 0);
	KUNIT_EXPECT_EQ(test, prepage_test_parse(&set, 2, "0:%lu,%lu:%lu,%lu:%lu",
						 p, 2 * p, p, 4 * p, p), -E2BIG);
	/* Ranges count even when they merge: the parse's work is bounded. */
	KUNIT_EXPECT_EQ(test, prepage_test_parse(&set, 2, "0:%lu,0:%lu,0:%lu",
						 p, p, p), -E2BIG);
	/* Decimal or 0x only: a leading 0 is not octal. */
	KUNIT_EXPECT_EQ(test, prepage_test_parse(&set, 8, "0:0%lo", p), -EINVAL);
	KUNIT_EXPECT_EQ(test, prepage_test_parse(&set, 8, "0:0x"), -EINVAL);
	KUNIT_EXPECT_EQ(test, prepage_test_parse(&set, 8, "0X%lX:0x%lx", p, p),
			0);
	prepage_expect_set(test, &set, (pgoff_t []){ 1, 1 }, 1);

	/* Truncation keeps what lies before the end, trimming an extent. */
	KUNIT_EXPECT_EQ(test, prepage_test_parse(&set, 8, "0:%lu,%lu:%lu,%lu:%lu",
						 2 * p, 4 * p, 4 * p, 16 * p, p),
			0);
	prepage_extents_truncate(&set, 6);
	prepage_expect_set(test, &set, (pgoff_t []){ 0, 2, 4, 2 }, 2);
	prepage_extents_truncate(&set, 4);
	prepage_expect_set(test, &set, (pgoff_t []){ 0, 2 }, 1);
	prepage_extents_truncate(&set, 0);
	KUNIT_EXPECT_EQ(test, set.nr, 0U);
	prepage_extents_destroy(&set);
}

static void prepage_test_permille(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, prepage_permille(24, 32), 750U);
	KUNIT_EXPECT_EQ(test, prepage_permille(1, 3), 333U);
	KUNIT_EXPECT_EQ(test, prepage_permille(0, 0), 0U);
	KUNIT_EXPECT_EQ(test, prepage_permille(5, 0), 0U);
	KUNIT_EXPECT_EQ(test, prepage_permille(7, 7), 1000U);
	KUNIT_EXPECT_EQ(test, prepage_permille(9, 7), 1000U);
	KUNIT_EXPECT_EQ(test, prepage_permille(U64_MAX / 2, U64_MAX), 499U);
	KUNIT_EXPECT_EQ(test, prepage_permille(U64_MAX, U64_MAX), 1000U);
}

static struct kunit_case prepage_extents_test_cases[] = {
	KUNIT_CASE(prepage_test_extents_add),
	KUNIT_CASE(prepage_test_extents_remove),
	KUNIT_CASE(prepage_test_extents_io),
	KUNIT_CASE(prepage_test_extents_intersect),
	KUNIT_CASE(prepage_test_extents_copy),
	KUNIT_CASE(prepage_test_parse_ranges),
	KUNIT_CASE(prepage_test_permille),
	{},
};

static struct kunit_suite prepage_extents_test_suite = {
	.name = "prepage-extents",
	.test_cases = prepage_extents_test_cases,
};

kunit_test_suite(prepage_extents_test_suite);

#endif /* _PREPAGE_EXTENTS_KUNIT_H */

#endif /* CONFIG_PREPAGE_KUNIT_TEST */
