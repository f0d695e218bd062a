/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the prepage core: the life cycle of the per address
 * space state.
 */

#ifdef CONFIG_PREPAGE_KUNIT_TEST

#ifndef _PREPAGE_CORE_KUNIT_H
#define _PREPAGE_CORE_KUNIT_H

#include <kunit/test.h>
#include <linux/sched/mm.h>

static void prepage_test_mm_lifecycle(struct kunit *test)
{
	bool was_enabled = static_branch_unlikely(&prepage_key);
	struct prepage_mm *pm, *again;
	struct mm_struct *mm = mm_alloc();

	KUNIT_ASSERT_NOT_NULL(test, mm);
	/*
	 * The case turns prepage off and on, which drops the state of every
	 * address space: on a system that uses prepage, it must not run.
	 */
	if (was_enabled) {
		mmput(mm);
		kunit_skip(test, "prepage is enabled: this case would disable it");
	}
	prepage_disable();
	KUNIT_EXPECT_PTR_EQ(test, prepage_mm_enter(mm), ERR_PTR(-ENODEV));
	KUNIT_ASSERT_EQ(test, prepage_enable(), 0);
	KUNIT_EXPECT_TRUE(test, static_branch_unlikely(&prepage_key));

	KUNIT_EXPECT_NULL(test, prepage_mm_lookup(mm));
	pm = prepage_mm_enter(mm);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(pm));
	/* The state pins the mm_struct: mm_alloc()'s reference and its own. */
	KUNIT_EXPECT_EQ(test, atomic_read(&mm->mm_count), 2);
	again = prepage_mm_enter(mm);
	KUNIT_EXPECT_PTR_EQ(test, again, pm);
	prepage_mm_put(again);

	/* end without start; start; start again restarts; end; end again */
	KUNIT_EXPECT_EQ(test, prepage_window_close(pm), -EINVAL);
	KUNIT_EXPECT_EQ(test, prepage_window_open(pm), 0);
	KUNIT_EXPECT_EQ(test, pm->state, PREPAGE_SWITCHING);
	KUNIT_EXPECT_EQ(test, prepage_window_open(pm), 0);
	KUNIT_EXPECT_EQ(test, prepage_window_close(pm), 0);
	KUNIT_EXPECT_EQ(test, pm->state, PREPAGE_IDLE);
	KUNIT_EXPECT_EQ(test, prepage_window_close(pm), -EINVAL);
	KUNIT_EXPECT_EQ(test, prepage_stat_read(pm, PREPAGE_STAT_SWITCHES), 2UL);
	KUNIT_EXPECT_EQ(test, prepage_stat_read(pm, PREPAGE_STAT_RESTARTS), 1UL);
	prepage_mm_put(pm);

	/* The last mm user going away releases the state. */
	mmput(mm);
	KUNIT_EXPECT_NULL(test, prepage_mm_lookup(mm));

	/* Disabling drops the state of live address spaces too. */
	mm = mm_alloc();
	KUNIT_ASSERT_NOT_NULL(test, mm);
	pm = prepage_mm_enter(mm);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(pm));
	prepage_disable();
	KUNIT_EXPECT_FALSE(test, static_branch_unlikely(&prepage_key));
	KUNIT_EXPECT_NULL(test, prepage_mm_lookup(mm));
	/* ... while a holder's reference stays valid, and refuses switches. */
	KUNIT_EXPECT_EQ(test, prepage_window_open(pm), -ESRCH);
	KUNIT_EXPECT_EQ(test, prepage_reset(pm), 0);
	/*
	 * The address space exits while the unhashed state lives on: the
	 * exit hook does not find it, and its mm_struct must stay valid
	 * for the state (its prepagers) until the state goes.
	 */
	mmput(mm);
	KUNIT_EXPECT_EQ(test, atomic_read(&mm->mm_count), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&mm->mm_users), 0);
	prepage_mm_put(pm);
}

static struct kunit_case prepage_core_test_cases[] = {
	KUNIT_CASE(prepage_test_mm_lifecycle),
	{},
};

static struct kunit_suite prepage_core_test_suite = {
	.name = "prepage-core",
	.test_cases = prepage_core_test_cases,
};

kunit_test_suite(prepage_core_test_suite);

#endif /* _PREPAGE_CORE_KUNIT_H */

#endif /* CONFIG_PREPAGE_KUNIT_TEST */
