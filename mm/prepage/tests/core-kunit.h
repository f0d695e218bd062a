/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the prepage core: the life cycle of the per address
 * space state, when it is dying, the back-off, the watermark of the
 * pressure stop, which side leads, and when the app reaches the side
 * that waits. No case turns prepage on or off.
 */

#ifdef CONFIG_PREPAGE_KUNIT_TEST

#ifndef _PREPAGE_CORE_KUNIT_H
#define _PREPAGE_CORE_KUNIT_H

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/sched/mm.h>

KUNIT_DEFINE_ACTION_WRAPPER(prepage_test_mmput, mmput, struct mm_struct *);

/*
 * A new address space. Its user reference is dropped by
 * prepage_test_mm_exit(), or when the case ends if an assertion stopped
 * it first.
 */
static struct mm_struct *prepage_test_mm_alloc(struct kunit *test)
{
	struct mm_struct *mm = mm_alloc();

	KUNIT_ASSERT_NOT_NULL(test, mm);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, prepage_test_mmput,
							mm), 0);
	return mm;
}

/* The last user of @mm, from prepage_test_mm_alloc(), goes away. */
static void prepage_test_mm_exit(struct kunit *test, struct mm_struct *mm)
{
	kunit_release_action(test, prepage_test_mmput, mm);
}

/*
 * A state of @mm that is not in the hash, as prepage_mm_enter() would
 * make it: nothing but the test can find it, whether prepage is on or
 * off. Its windows count in the system counters, as any state's do.
 */
static struct prepage_mm *prepage_test_mm_new(struct kunit *test,
					      struct mm_struct *mm)
{
	struct prepage_mm *pm = prepage_mm_alloc();

	KUNIT_ASSERT_NOT_NULL(test, pm);
	mmgrab(mm);
	pm->slot.mm = mm;
	return pm;
}

static void prepage_test_window_lifecycle(struct kunit *test)
{
	struct mm_struct *mm = prepage_test_mm_alloc(test);
	struct prepage_mm *pm;

	pm = prepage_test_mm_new(test, mm);
	/* The state pins the mm_struct: mm_alloc()'s reference and its own. */
	KUNIT_EXPECT_EQ(test, atomic_read(&mm->mm_count), 2);
	KUNIT_EXPECT_EQ(test, pm->state, PREPAGE_IDLE);

	/* end without start; start; start again restarts; end; end again */
	KUNIT_EXPECT_EQ(test, prepage_window_close(pm), -EINVAL);
	KUNIT_EXPECT_EQ(test, prepage_window_open(pm), 0);
	KUNIT_EXPECT_EQ(test, pm->state, PREPAGE_SWITCHING);
	KUNIT_EXPECT_EQ(test, prepage_window_open(pm), 0);
	KUNIT_EXPECT_EQ(test, prepage_window_close(pm), 0);
	KUNIT_EXPECT_EQ(test, pm->state, PREPAGE_IDLE);
	KUNIT_EXPECT_EQ(test, prepage_window_close(pm), -EINVAL);
	/* The end left the window to its settle work, which settles it. */
	flush_delayed_work(&pm->settle_work);
	KUNIT_EXPECT_FALSE(test, pm->settling);
	KUNIT_EXPECT_EQ(test, kref_read(&pm->kref), 1U);
	KUNIT_EXPECT_EQ(test, prepage_stat_read(pm, PREPAGE_STAT_SWITCHES), 2UL);
	KUNIT_EXPECT_EQ(test, prepage_stat_read(pm, PREPAGE_STAT_RESTARTS), 1UL);

	/* A reset closes an open window, uncounted, and drops the tables. */
	KUNIT_EXPECT_EQ(test, prepage_window_open(pm), 0);
	KUNIT_EXPECT_EQ(test, prepage_reset(pm), 0);
	KUNIT_EXPECT_EQ(test, pm->state, PREPAGE_IDLE);
	KUNIT_EXPECT_EQ(test, prepage_window_close(pm), -EINVAL);
	KUNIT_EXPECT_EQ(test, prepage_stat_read(pm, PREPAGE_STAT_SWITCHES), 3UL);

	/*
	 * The address space exits while the state lives on: its mm_struct
	 * stays valid for the state (its prepagers) until the state goes.
	 * The state is shut down as the exit hook shuts down those it
	 * unhashes: its log goes with it (the reset freed its backends'
	 * state).
	 */
	prepage_test_mm_exit(test, mm);
	KUNIT_EXPECT_EQ(test, atomic_read(&mm->mm_count), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&mm->mm_users), 0);
	prepage_mm_shutdown(pm, PREPAGE_CLOSE_EXIT);
	KUNIT_EXPECT_NULL(test, pm->log);
	prepage_mm_put(pm);
}

/*
 * Finding and entering the state of an address space, and its release
 * when the last user goes, with prepage as the system has it: the case
 * never turns prepage on or off. Built in, it runs at boot, with
 * prepage off; run again through KUnit's debugfs once prepage is on, it
 * checks the state's life in the hash.
 */
static void prepage_test_mm_enter(struct kunit *test)
{
	struct mm_struct *mm = prepage_test_mm_alloc(test);
	struct prepage_mm *pm, *again;

	KUNIT_EXPECT_NULL(test, prepage_mm_lookup(mm));
	if (!static_branch_unlikely(&prepage_key)) {
		KUNIT_EXPECT_PTR_EQ(test, prepage_mm_enter(mm),
				    ERR_PTR(-ENODEV));
		KUNIT_EXPECT_FALSE(test, test_bit(MMF_PREPAGE, &mm->flags));
		KUNIT_EXPECT_EQ(test, atomic_read(&mm->mm_count), 1);
		prepage_test_mm_exit(test, mm);
		return;
	}

	pm = prepage_mm_enter(mm);
	if (pm == ERR_PTR(-ENODEV))
		kunit_skip(test, "prepage was disabled while the case ran");
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(pm));
	KUNIT_EXPECT_TRUE(test, test_bit(MMF_PREPAGE, &mm->flags));
	KUNIT_EXPECT_EQ(test, atomic_read(&mm->mm_count), 2);
	again = prepage_mm_enter(mm);
	KUNIT_EXPECT_PTR_EQ(test, again, pm);
	prepage_mm_put(again);
	again = prepage_mm_lookup(mm);
	KUNIT_EXPECT_PTR_EQ(test, again, pm);
	prepage_mm_put(again);

	/*
	 * The last user going away unhashes the state: the exit hook finds
	 * it by the flag. A holder's reference stays valid, and its state
	 * refuses switches.
	 */
	prepage_test_mm_exit(test, mm);
	KUNIT_EXPECT_NULL(test, prepage_mm_lookup(mm));
	KUNIT_EXPECT_FALSE(test, test_bit(MMF_PREPAGE, &mm->flags));
	KUNIT_EXPECT_EQ(test, prepage_window_open(pm), -ESRCH);
	KUNIT_EXPECT_EQ(test, prepage_reset(pm), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&mm->mm_count), 1);
	prepage_mm_put(pm);
}

/*
 * prepage_mm_dying(): an address space whose memory the OOM reaper or
 * process_mrelease() takes, or (with memory cgroups) that no task uses
 * any more, gets no more speculation; one its owner uses does.
 */
static void prepage_test_mm_dying(struct kunit *test)
{
	struct mm_struct *mm = prepage_test_mm_alloc(test);

	KUNIT_EXPECT_FALSE(test, prepage_mm_dying(mm));
	set_bit(MMF_OOM_SKIP, &mm->flags);
	KUNIT_EXPECT_TRUE(test, prepage_mm_dying(mm));
	clear_bit(MMF_OOM_SKIP, &mm->flags);
	set_bit(MMF_UNSTABLE, &mm->flags);
	KUNIT_EXPECT_TRUE(test, prepage_mm_dying(mm));
	clear_bit(MMF_UNSTABLE, &mm->flags);
	KUNIT_EXPECT_FALSE(test, prepage_mm_dying(mm));
#ifdef CONFIG_MEMCG
	/* What the exit of the last task that used it leaves. */
	RCU_INIT_POINTER(mm->owner, NULL);
	KUNIT_EXPECT_TRUE(test, prepage_mm_dying(mm));
	rcu_assign_pointer(mm->owner, current);
	KUNIT_EXPECT_FALSE(test, prepage_mm_dying(mm));
#endif
}

/*
 * Judge a window in which a backend prepaged @prepaged pages, of which the
 * app used @hit, @refetched of them only after reclaim took them and it
 * brought them back in itself, at @permille; @unlogged: its hits are
 * counted from a log that lacks accesses. Return: the back-off level.
 */
static unsigned int prepage_test_judge(struct prepage_backoff *b,
				       unsigned int permille, bool unlogged,
				       unsigned long prepaged,
				       unsigned long hit,
				       unsigned long refetched)
{
	struct prepage_outcome out = {
		.prepaged = prepaged, .hit = hit, .refetched = refetched,
	};

	prepage_backoff_judge(b, &out, permille, unlogged);
	return b->level;
}

/*
 * prepage_backoff_judge(), at 500 permille: the 32-page floor, the precision
 * at the threshold, pages used only after reclaim took them, the level's
 * cap, and the windows that tell nothing, among them those that
 * prepaged less than an eighth of their targets. It reads the outcome
 * and the back-off only.
 */
static void prepage_test_backoff(struct kunit *test)
{
	struct prepage_backoff back = {}, *b = &back;

	KUNIT_EXPECT_EQ(test, prepage_test_judge(b, 500, false, 31, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, prepage_test_judge(b, 500, false, 32, 16, 0), 0);
	KUNIT_EXPECT_EQ(test, prepage_test_judge(b, 500, false, 32, 15, 0), 1);
	KUNIT_EXPECT_EQ(test, b->skip, 1);
	/* 40 used, 10 of them reclaimed and brought back: 30 of 64. */
	KUNIT_EXPECT_EQ(test, prepage_test_judge(b, 500, false, 64, 40, 10), 2);
	KUNIT_EXPECT_EQ(test, b->skip, 3);
	/* All used only after reclaim took them: none used. */
	KUNIT_EXPECT_EQ(test, prepage_test_judge(b, 500, false, 64, 10, 10), 3);
	KUNIT_EXPECT_EQ(test, prepage_test_judge(b, 500, false, 64, 0, 0), 4);
	KUNIT_EXPECT_EQ(test, prepage_test_judge(b, 500, false, 64, 0, 0), 4);
	KUNIT_EXPECT_EQ(test, b->skip, 15);

	/* Windows that tell nothing. */
	KUNIT_EXPECT_EQ(test, prepage_test_judge(b, 500, true, 64, 64, 0), 4);
	b->out = true;
	KUNIT_EXPECT_EQ(test, prepage_test_judge(b, 500, false, 64, 64, 0), 4);
	b->out = false;
	b->unjudged = true;
	KUNIT_EXPECT_EQ(test, prepage_test_judge(b, 500, false, 64, 64, 0), 4);
	b->unjudged = false;

	/*
	 * Less than an eighth of the targets prepaged (the others were
	 * resident) tells nothing; an eighth does.
	 */
	b->targets = 1024;
	KUNIT_EXPECT_EQ(test, prepage_test_judge(b, 500, false, 127, 64, 0), 4);
	KUNIT_EXPECT_EQ(test, prepage_test_judge(b, 500, false, 128, 64, 0), 0);
	KUNIT_EXPECT_EQ(test, prepage_test_judge(b, 500, false, 128, 63, 0), 1);
	b->targets = 0;

	/* A window that pays ends it; at 0 every window pays. */
	KUNIT_EXPECT_EQ(test, prepage_test_judge(b, 500, false, 64, 40, 0), 0);
	KUNIT_EXPECT_EQ(test, prepage_test_judge(b, 0, false, 64, 0, 0), 0);
}

/*
 * The watermark half of the pressure stop: a zone has room for a take
 * while its free pages stay above its low watermark, boost and the
 * reserve for the allocation's zones included, after it. Its min
 * watermark, where the allocator would reclaim directly, is too late:
 * kswapd wakes at the low one.
 */
static void prepage_test_zone_room(struct kunit *test)
{
	enum zone_type highest = gfp_zone(GFP_HIGHUSER_MOVABLE);
	struct zone *zone = kunit_kzalloc(test, sizeof(*zone), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, zone);
	zone->_watermark[WMARK_MIN] = 500;
	zone->_watermark[WMARK_LOW] = 1000;
	zone->_watermark[WMARK_HIGH] = 1500;
	atomic_long_set(&zone->vm_stat[NR_FREE_PAGES], 1100);
	KUNIT_EXPECT_TRUE(test, prepage_zone_has_room(zone, 0, highest));
	KUNIT_EXPECT_TRUE(test, prepage_zone_has_room(zone, 99, highest));
	/* Down to the low watermark: kswapd would wake. */
	KUNIT_EXPECT_FALSE(test, prepage_zone_has_room(zone, 100, highest));
	/* Still above min, where the allocator would reclaim itself. */
	KUNIT_EXPECT_FALSE(test, prepage_zone_has_room(zone, 500, highest));
	/* A boost raises the low watermark. */
	zone->watermark_boost = 100;
	KUNIT_EXPECT_FALSE(test, prepage_zone_has_room(zone, 0, highest));
	zone->watermark_boost = 0;
	zone->lowmem_reserve[highest] = 50;
	KUNIT_EXPECT_TRUE(test, prepage_zone_has_room(zone, 49, highest));
	KUNIT_EXPECT_FALSE(test, prepage_zone_has_room(zone, 50, highest));
}

/* A log entry of @kind for prepage_test_lead(); the pages do not matter. */
#define LEAD_LOG(k)	{ .kind = PREPAGE_LOG_##k, .nr = 1 }

/* The side that leads after a window of @log, from @lead, for two sides. */
static unsigned int prepage_test_lead_of(const struct prepage_log_entry *log,
					 unsigned int nr, unsigned int lead)
{
	static const u8 wait_kind[] = {
		PREPAGE_LOG_FILE_ADDED, PREPAGE_LOG_ANON_SWAPIN,
	};
	struct prepage_outcome out[ARRAY_SIZE(wait_kind)] = {};

	prepage_log_waits(log, nr, wait_kind, ARRAY_SIZE(wait_kind), out);
	return prepage_lead_learn(out, ARRAY_SIZE(wait_kind), lead);
}

/*
 * prepage_lead_learn(), with the waits prepage_log_waits() reads from a
 * log: the side whose waits come earlier on average, where the app
 * waited on both (accesses to resident file pages are no wait; a few
 * incidental waits first do not decide; a tie keeps the lead); a log
 * with waits of one side, or none, keeps the lead it had. Then
 * prepage_lead_defer(): the other side waits only when the lead and it
 * both start, and the sides are ordered.
 */
static void prepage_test_lead(struct kunit *test)
{
	static const struct prepage_log_entry one_wait[] = {
		LEAD_LOG(ANON_SWAPIN),
	};
	/* A resident file page accessed first is no wait. */
	static const struct prepage_log_entry waits[] = {
		LEAD_LOG(FILE_ACCESS), LEAD_LOG(FILE_ADDED),
		LEAD_LOG(FILE_ACCESS), LEAD_LOG(ANON_SWAPIN),
		LEAD_LOG(FILE_ADDED),
	};
	static const struct prepage_log_entry anon_waits[] = {
		LEAD_LOG(FILE_ACCESS), LEAD_LOG(ANON_SWAPIN),
		LEAD_LOG(ANON_SWAPIN), LEAD_LOG(FILE_ACCESS),
	};
	static const struct prepage_log_entry anon_first[] = {
		LEAD_LOG(ANON_SWAPIN), LEAD_LOG(FILE_ACCESS),
		LEAD_LOG(FILE_ADDED), LEAD_LOG(ANON_SWAPIN),
	};
	static const struct prepage_log_entry incidental[] = {
		LEAD_LOG(ANON_SWAPIN), LEAD_LOG(FILE_ADDED),
		LEAD_LOG(FILE_ADDED), LEAD_LOG(FILE_ADDED),
		LEAD_LOG(ANON_SWAPIN), LEAD_LOG(ANON_SWAPIN),
		LEAD_LOG(ANON_SWAPIN),
	};
	static const struct prepage_log_entry tie[] = {
		LEAD_LOG(ANON_SWAPIN), LEAD_LOG(FILE_ADDED),
		LEAD_LOG(FILE_ADDED), LEAD_LOG(ANON_SWAPIN),
	};
	const unsigned int file = 0, anon = 1, none = 2;
	const unsigned int both = BIT(file) | BIT(anon);

	KUNIT_EXPECT_EQ(test, prepage_test_lead_of(waits, ARRAY_SIZE(waits),
						   none), file);
	KUNIT_EXPECT_EQ(test, prepage_test_lead_of(anon_first,
						   ARRAY_SIZE(anon_first),
						   file), anon);
	KUNIT_EXPECT_EQ(test, prepage_test_lead_of(incidental,
						   ARRAY_SIZE(incidental),
						   anon), file);
	KUNIT_EXPECT_EQ(test, prepage_test_lead_of(tie, ARRAY_SIZE(tie), anon),
			anon);
	KUNIT_EXPECT_EQ(test, prepage_test_lead_of(tie, ARRAY_SIZE(tie), file),
			file);
	/* Waits of one side tell nothing of the order. */
	KUNIT_EXPECT_EQ(test, prepage_test_lead_of(anon_waits,
						   ARRAY_SIZE(anon_waits),
						   file), file);
	KUNIT_EXPECT_EQ(test, prepage_test_lead_of(one_wait,
						   ARRAY_SIZE(one_wait), none),
			none);
	KUNIT_EXPECT_EQ(test, prepage_test_lead_of(waits, 2, anon), anon);
	KUNIT_EXPECT_EQ(test, prepage_test_lead_of(NULL, 0, anon), anon);

	KUNIT_EXPECT_EQ(test, prepage_lead_defer(anon, both, true), BIT(file));
	KUNIT_EXPECT_EQ(test, prepage_lead_defer(file, both, true), BIT(anon));
	/* One side starting, or no lead, or unordered: none waits. */
	KUNIT_EXPECT_EQ(test, prepage_lead_defer(file, BIT(file), true), 0);
	KUNIT_EXPECT_EQ(test, prepage_lead_defer(file, BIT(anon), true), 0);
	KUNIT_EXPECT_EQ(test, prepage_lead_defer(none, both, true), 0);
	KUNIT_EXPECT_EQ(test, prepage_lead_defer(file, both, false), 0);
}

/* Three made-up backends' waits: their log kinds, in their side order. */
static const u8 prepage_test_three_kinds[] = {
	PREPAGE_LOG_ANON_SWAPIN, PREPAGE_LOG_FILE_ACCESS, PREPAGE_LOG_FILE_ADDED,
};

/*
 * The core's decisions of a window read only the backends' outcomes, and
 * hold for any number of backends: here three made-up ones, a, b and c,
 * waited on in the log entries of the kinds prepage_test_three_kinds[].
 * The side waited on earliest on average leads, of however many were
 * waited on; a side not waited on does not count; waits on one side only
 * keep the lead. All the others wait for the lead when it starts, and
 * only those that start. Each backend's back-off is judged on its own
 * outcome.
 */
static void prepage_test_three_backends(struct kunit *test)
{
	const unsigned int a = 0, b = 1, c = 2, none = 3;
	static const struct prepage_log_entry c_first[] = {
		LEAD_LOG(FILE_ADDED), LEAD_LOG(ANON_SWAPIN),
		LEAD_LOG(FILE_ACCESS), LEAD_LOG(FILE_ADDED),
		LEAD_LOG(ANON_SWAPIN), LEAD_LOG(FILE_ACCESS),
	};
	/* Mean positions: c 1, a 2, b 4. */
	static const struct prepage_log_entry b_last[] = {
		LEAD_LOG(FILE_ADDED), LEAD_LOG(ANON_SWAPIN),
		LEAD_LOG(FILE_ADDED), LEAD_LOG(ANON_SWAPIN),
		LEAD_LOG(FILE_ACCESS),
	};
	struct prepage_outcome out[3] = {};
	struct prepage_backoff back[3] = {};
	unsigned int i;

	prepage_log_waits(c_first, ARRAY_SIZE(c_first),
			  prepage_test_three_kinds, 3, out);
	KUNIT_EXPECT_EQ(test, out[a].waits, 2);
	KUNIT_EXPECT_EQ(test, out[a].wait_pos, 1 + 4);
	KUNIT_EXPECT_EQ(test, out[b].waits, 2);
	KUNIT_EXPECT_EQ(test, out[b].wait_pos, 2 + 5);
	KUNIT_EXPECT_EQ(test, out[c].waits, 2);
	KUNIT_EXPECT_EQ(test, out[c].wait_pos, 0 + 3);
	KUNIT_EXPECT_EQ(test, prepage_lead_learn(out, 3, none), c);
	KUNIT_EXPECT_EQ(test, prepage_lead_learn(out, 3, a), c);

	memset(out, 0, sizeof(out));
	prepage_log_waits(b_last, ARRAY_SIZE(b_last),
			  prepage_test_three_kinds, 3, out);
	KUNIT_EXPECT_EQ(test, prepage_lead_learn(out, 3, b), c);

	/* a and c tie for the earliest: the lead stays, whichever it is. */
	memset(out, 0, sizeof(out));
	out[a] = (struct prepage_outcome){ .waits = 2, .wait_pos = 4 };
	out[b] = (struct prepage_outcome){ .waits = 1, .wait_pos = 9 };
	out[c] = (struct prepage_outcome){ .waits = 1, .wait_pos = 2 };
	KUNIT_EXPECT_EQ(test, prepage_lead_learn(out, 3, b), b);
	KUNIT_EXPECT_EQ(test, prepage_lead_learn(out, 3, none), none);
	/* b alone earliest, after a side without waits. */
	out[a].waits = 0;
	out[b].wait_pos = 1;
	KUNIT_EXPECT_EQ(test, prepage_lead_learn(out, 3, a), b);
	/* Waits on c only tell nothing. */
	out[b].waits = 0;
	KUNIT_EXPECT_EQ(test, prepage_lead_learn(out, 3, a), a);

	KUNIT_EXPECT_EQ(test, prepage_lead_defer(b, BIT(a) | BIT(b) | BIT(c),
						 true), BIT(a) | BIT(c));
	KUNIT_EXPECT_EQ(test, prepage_lead_defer(c, BIT(b) | BIT(c), true),
			BIT(b));
	KUNIT_EXPECT_EQ(test, prepage_lead_defer(a, BIT(b) | BIT(c), true), 0);
	KUNIT_EXPECT_EQ(test, prepage_lead_defer(none, BIT(a) | BIT(b) | BIT(c),
						 true), 0);

	/* a paid, b did not, c prepaged too little to tell. */
	memset(out, 0, sizeof(out));
	out[a] = (struct prepage_outcome){ .prepaged = 100, .hit = 60 };
	out[b] = (struct prepage_outcome){ .prepaged = 100, .hit = 60,
					   .refetched = 20 };
	out[c] = (struct prepage_outcome){ .prepaged = 31 };
	back[a].level = 2;
	for (i = 0; i < 3; i++)
		prepage_backoff_judge(&back[i], &out[i], 500, false);
	KUNIT_EXPECT_EQ(test, back[a].level, 0);
	KUNIT_EXPECT_EQ(test, back[b].level, 1);
	KUNIT_EXPECT_EQ(test, back[b].skip, 1);
	KUNIT_EXPECT_EQ(test, back[c].level, 0);
	KUNIT_EXPECT_EQ(test, back[c].skip, 0);
}

static atomic_t prepage_test_reach_queued;

static void prepage_test_reach_fn(struct work_struct *work)
{
	atomic_inc(&prepage_test_reach_queued);
}

/* Log @nr pages of @kind at @index; return the lead works queued so far. */
static int prepage_test_reach_log(struct prepage_mm *pm,
				  enum prepage_log_kind kind,
				  unsigned long index, unsigned long nr)
{
	prepage_log_add(pm, kind, NULL, index, nr);
	flush_work(&pm->lead_work);
	return atomic_read(&prepage_test_reach_queued);
}

/*
 * The access hook's side of the ordering (prepage_log_add()): while a
 * side waits for the lead's prepagers, the app reaches it once it has
 * waited on %PREPAGE_REACH_PAGES pages of it (pages it brings in itself
 * there: file pages it adds, anonymous pages it swaps in; a run counts
 * up to the threshold), and then the lead work is queued, once in the
 * window. Waits on the lead side, accesses that are no wait and those
 * of a window in which no side waits count nothing, and are logged as
 * ever; with the log off, nothing is counted or logged.
 */
static void prepage_test_reach(struct kunit *test)
{
	struct prepage_mm *pm = kunit_kzalloc(test, sizeof(*pm), GFP_KERNEL);
	const enum prepage_log_kind swapin = PREPAGE_LOG_ANON_SWAPIN;
	const enum prepage_log_kind added = PREPAGE_LOG_FILE_ADDED;
	unsigned long i;

	KUNIT_ASSERT_NOT_NULL(test, pm);
	pm->log = kunit_kcalloc(test, PREPAGE_LOG_ENTRIES, sizeof(*pm->log),
				GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pm->log);
	spin_lock_init(&pm->log_lock);
	/* The lead work's references: the test's work keeps them. */
	kref_init(&pm->kref);
	INIT_WORK(&pm->lead_work, prepage_test_reach_fn);
	atomic_set(&prepage_test_reach_queued, 0);
	pm->logging = true;

	/* The anonymous side waits: file pages added are the lead's. */
	pm->reach_kinds = BIT(swapin);
	KUNIT_EXPECT_EQ(test, prepage_test_reach_log(pm, added, 0, 64), 0);
	/* One page short of it, in runs apart: not reached. */
	for (i = 0; i < PREPAGE_REACH_PAGES - 1; i++)
		KUNIT_EXPECT_EQ(test,
				prepage_test_reach_log(pm, swapin, 2 * i, 1), 0);
	KUNIT_EXPECT_FALSE(test, pm->reached);
	KUNIT_EXPECT_EQ(test, prepage_test_reach_log(pm, swapin, 100, 1), 1);
	KUNIT_EXPECT_TRUE(test, pm->reached);
	/* Once a window. */
	KUNIT_EXPECT_EQ(test, prepage_test_reach_log(pm, swapin, 200, 64), 1);
	KUNIT_EXPECT_EQ(test, pm->log_nr, PREPAGE_REACH_PAGES + 2);

	/* The file side waits: accesses of resident pages are no wait. */
	pm->reached = false;
	pm->reach_pages = 0;
	pm->reach_kinds = BIT(added);
	KUNIT_EXPECT_EQ(test, prepage_test_reach_log(pm, swapin, 300, 64), 1);
	KUNIT_EXPECT_EQ(test,
			prepage_test_reach_log(pm, PREPAGE_LOG_FILE_ACCESS,
					       0, 64), 1);
	KUNIT_EXPECT_EQ(test, pm->reach_pages, 0);
	/* A run counts up to the threshold: this one reaches the side. */
	KUNIT_EXPECT_EQ(test, prepage_test_reach_log(pm, added, 64, 64), 2);
	KUNIT_EXPECT_EQ(test, pm->reach_pages, PREPAGE_REACH_PAGES);
	KUNIT_EXPECT_EQ(test, prepage_test_reach_log(pm, added, 256, 1), 2);

	/* No side waits, or the log is off: nothing is counted. */
	pm->reached = false;
	pm->reach_pages = 0;
	pm->reach_kinds = 0;
	KUNIT_EXPECT_EQ(test, prepage_test_reach_log(pm, added, 1000, 64), 2);
	KUNIT_EXPECT_EQ(test, prepage_test_reach_log(pm, swapin, 1000, 64), 2);
	pm->reach_kinds = BIT(swapin);
	pm->logging = false;
	i = pm->log_nr;
	KUNIT_EXPECT_EQ(test, prepage_test_reach_log(pm, swapin, 2000, 64), 2);
	KUNIT_EXPECT_EQ(test, pm->reach_pages, 0);
	KUNIT_EXPECT_EQ(test, pm->log_nr, i);
}

static struct kunit_case prepage_core_test_cases[] = {
	KUNIT_CASE(prepage_test_window_lifecycle),
	KUNIT_CASE(prepage_test_mm_enter),
	KUNIT_CASE(prepage_test_mm_dying),
	KUNIT_CASE(prepage_test_backoff),
	KUNIT_CASE(prepage_test_zone_room),
	KUNIT_CASE(prepage_test_lead),
	KUNIT_CASE(prepage_test_three_backends),
	KUNIT_CASE(prepage_test_reach),
	{},
};

static struct kunit_suite prepage_core_test_suite = {
	.name = "prepage-core",
	.test_cases = prepage_core_test_cases,
};

kunit_test_suite(prepage_core_test_suite);

#endif /* _PREPAGE_CORE_KUNIT_H */

#endif /* CONFIG_PREPAGE_KUNIT_TEST */
