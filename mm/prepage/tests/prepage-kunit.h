/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the prepage KUnit suites: extent sets written as
 * arrays of (start, nr) pairs.
 */

#ifndef _PREPAGE_KUNIT_H
#define _PREPAGE_KUNIT_H

#include <kunit/test.h>

#include "../extents.h"

/* Add the @n (start, nr) pairs of @runs to @set. */
static inline void prepage_fill_set(struct kunit *test,
				    struct prepage_extents *set,
				    const pgoff_t *runs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, prepage_extents_add(set, runs[2 * i],
							  runs[2 * i + 1]), 0);
}

/* Check that @set holds exactly the @n (start, nr) pairs in @want. */
static inline void prepage_expect_set(struct kunit *test,
				      const struct prepage_extents *set,
				      const pgoff_t *want, unsigned int n)
{
	unsigned int i;

	KUNIT_ASSERT_EQ(test, set->nr, n);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, set->ext[i].start, want[2 * i],
				    "extent %u", i);
		KUNIT_EXPECT_EQ_MSG(test, set->ext[i].nr, want[2 * i + 1],
				    "extent %u", i);
	}
}

#endif /* _PREPAGE_KUNIT_H */
