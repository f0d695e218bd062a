/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the anonymous tables: the entry encoding, what an entry
 * becomes at a window's end, the counts kept beside the XArray, and the
 * table lines, parsed and shown.
 */

#ifdef CONFIG_PREPAGE_KUNIT_TEST

#ifndef _PREPAGE_ANON_KUNIT_H
#define _PREPAGE_ANON_KUNIT_H

#include <kunit/test.h>

static void prepage_test_anon_entry(struct kunit *test)
{
	static const unsigned int timeouts[] = {
		1, 5, PREPAGE_MAX_ANON_TIMEOUT
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(timeouts); i++) {
		void *t = xa_mk_value(anon_entry(true, timeouts[i]));
		void *c = xa_mk_value(anon_entry(false, timeouts[i]));

		KUNIT_EXPECT_TRUE(test, anon_is_target(t));
		KUNIT_EXPECT_FALSE(test, anon_is_target(c));
		KUNIT_EXPECT_EQ(test, anon_timeout_of(t), timeouts[i]);
		KUNIT_EXPECT_EQ(test, anon_timeout_of(c), timeouts[i]);
		/* A new candidate was used once: it was swapped in. */
		KUNIT_EXPECT_EQ(test, anon_uses_of(t), ANON_MAX_USES);
		KUNIT_EXPECT_EQ(test, anon_uses_of(c), 1U);
	}
}

/* anon_entry_next() of @entry, as an entry, or NULL when it times out. */
static void *prepage_test_anon_next(void *entry, bool young,
				    unsigned int timeout, unsigned int promote)
{
	unsigned long val = anon_entry_next(entry, young, timeout, promote);

	return val ? xa_mk_value(val) : NULL;
}

static void prepage_test_anon_learn(struct kunit *test)
{
	void *e = xa_mk_value(anon_entry(false, 5));
	unsigned int i;

	/* Used in a second window: a candidate still, its timeout anew. */
	e = prepage_test_anon_next(e, true, 6, 3);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_FALSE(test, anon_is_target(e));
	KUNIT_EXPECT_EQ(test, anon_uses_of(e), 2U);
	KUNIT_EXPECT_EQ(test, anon_timeout_of(e), 6U);
	/* Not used: one window older, its uses kept. */
	e = prepage_test_anon_next(e, false, 5, 3);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_FALSE(test, anon_is_target(e));
	KUNIT_EXPECT_EQ(test, anon_uses_of(e), 2U);
	KUNIT_EXPECT_EQ(test, anon_timeout_of(e), 5U);
	/* A third window of use: a target, as a target loaded would be. */
	e = prepage_test_anon_next(e, true, 7, 3);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, xa_to_value(e), anon_entry(true, 7));
	/* A target not used: a candidate one window of use from a target. */
	e = prepage_test_anon_next(e, false, 5, 3);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_FALSE(test, anon_is_target(e));
	KUNIT_EXPECT_EQ(test, anon_uses_of(e), 2U);
	KUNIT_EXPECT_EQ(test, anon_timeout_of(e), 6U);
	e = prepage_test_anon_next(e, true, 5, 3);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_TRUE(test, anon_is_target(e));

	/*
	 * With two windows, the first use after the swap-in promotes, and a
	 * target not used goes back to a candidate used once.
	 */
	e = prepage_test_anon_next(xa_mk_value(anon_entry(false, 5)), true,
				   5, 2);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_TRUE(test, anon_is_target(e));
	e = prepage_test_anon_next(e, false, 5, 2);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, xa_to_value(e), anon_entry(false, 4));
	/* Raising the windows does not demote a target that is used. */
	e = prepage_test_anon_next(xa_mk_value(anon_entry(true, 5)), true,
				   5, ANON_MAX_USES);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_TRUE(test, anon_is_target(e));
	/* With the most, the last use promotes, and the count stops there. */
	e = xa_mk_value(anon_entry(false, 5));
	for (i = 2; i < ANON_MAX_USES; i++) {
		e = prepage_test_anon_next(e, true, 5, ANON_MAX_USES);
		KUNIT_ASSERT_NOT_NULL(test, e);
		KUNIT_EXPECT_FALSE(test, anon_is_target(e));
		KUNIT_EXPECT_EQ(test, anon_uses_of(e), i);
	}
	for (i = 0; i < 3; i++) {
		e = prepage_test_anon_next(e, true, 5, ANON_MAX_USES);
		KUNIT_ASSERT_NOT_NULL(test, e);
		KUNIT_EXPECT_TRUE(test, anon_is_target(e));
		KUNIT_EXPECT_EQ(test, anon_uses_of(e), ANON_MAX_USES);
		KUNIT_EXPECT_EQ(test, anon_timeout_of(e), 5U);
	}

	/* An entry not used with one window left goes, target or not. */
	e = xa_mk_value(anon_entry(true, 1));
	KUNIT_EXPECT_NULL(test, prepage_test_anon_next(e, false, 5, 3));
	e = xa_mk_value(anon_entry(false, 1));
	KUNIT_EXPECT_NULL(test, prepage_test_anon_next(e, false, 5, 3));
	/* Used, it stays: the timeout starts over. */
	e = prepage_test_anon_next(e, true, 5, 3);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, anon_timeout_of(e), 5U);
}

static void prepage_test_anon_table_set(struct kunit *test)
{
	struct prepage_anon_table *t = anon_table_new();
	void *entry;

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, anon_table_set(t, 7, false, 3), 0);
	KUNIT_EXPECT_EQ(test, t->nr_candidates, 1UL);
	KUNIT_EXPECT_EQ(test, t->nr_targets, 0UL);
	KUNIT_EXPECT_EQ(test, t->nr_chunks, 1UL);

	/* Changing an entry moves it between the counts. */
	KUNIT_ASSERT_EQ(test, anon_table_set(t, 7, true, 5), 0);
	KUNIT_EXPECT_EQ(test, t->nr_candidates, 0UL);
	KUNIT_EXPECT_EQ(test, t->nr_targets, 1UL);
	entry = xa_load(&t->pages, 7);
	KUNIT_EXPECT_TRUE(test, anon_is_target(entry));
	KUNIT_EXPECT_EQ(test, anon_timeout_of(entry), 5U);

	/* Same chunk: no new chunk; the next chunk: one more. */
	KUNIT_ASSERT_EQ(test, anon_table_set(t, 8, false, 1), 0);
	KUNIT_EXPECT_EQ(test, t->nr_chunks, 1UL);
	KUNIT_ASSERT_EQ(test, anon_table_set(t, XA_CHUNK_SIZE, false, 1), 0);
	KUNIT_EXPECT_EQ(test, t->nr_chunks, 2UL);
	KUNIT_EXPECT_EQ(test, t->nr_candidates, 2UL);

	/* A chunk is given back with its last entry only. */
	anon_table_erase(t, 7);
	KUNIT_EXPECT_EQ(test, t->nr_chunks, 2UL);
	KUNIT_EXPECT_EQ(test, t->nr_targets, 0UL);
	anon_table_erase(t, XA_CHUNK_SIZE);
	KUNIT_EXPECT_EQ(test, t->nr_chunks, 1UL);
	/* Erasing what is not there changes nothing. */
	anon_table_erase(t, XA_CHUNK_SIZE);
	KUNIT_EXPECT_EQ(test, t->nr_chunks, 1UL);
	KUNIT_EXPECT_EQ(test, t->nr_candidates, 1UL);
	prepage_anon_table_free(t);
}

/*
 * Parse the lines @fmt prints into *@tp (NULL if it has no anon line), as
 * /proc/<pid>/prepage_table does: the lines of other backends skipped,
 * and nothing kept on error.
 */
static __printf(3, 4) int prepage_test_anon_parse(struct kunit *test,
						  struct prepage_anon_table **tp,
						  const char *fmt, ...)
{
	char *buf, *lines, *line;
	va_list args;
	int err = 0;

	va_start(args, fmt);
	buf = kvasprintf(GFP_KERNEL, fmt, args);
	va_end(args);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	*tp = NULL;
	lines = buf;
	while (!err && (line = strsep(&lines, "\n"))) {
		line = strim(line);
		if (!prepage_anon_table_owns(line))
			continue;
		if (!*tp)
			*tp = prepage_anon_table_new();
		err = *tp ? prepage_anon_table_parse(*tp, line, NULL) : -ENOMEM;
	}
	kfree(buf);
	if (err) {
		prepage_anon_table_free(*tp);
		*tp = NULL;
	}
	return err;
}

static void prepage_test_anon_parse_lines(struct kunit *test)
{
	const unsigned long p = PAGE_SIZE;
	struct prepage_anon_table *t;
	void *entry;
	int err;

	/* Lines of other kinds are skipped; none of this kind: no table. */
	err = prepage_test_anon_parse(test, &t,
				      "/bin/true 0:%lu\n\n \t\nanonymous %#lx:1\n",
				      p, p);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_NULL(test, t);

	err = prepage_test_anon_parse(test, &t,
				      "anon %#lx:3 target=1 timeout=5\n"
				      "/bin/true 0:%lu\n"
				      "\tanon\t%lu:1  timeout=2 target=0\n"
				      "anon %#lx:2 target=0 timeout=255\n",
				      0x10 * p, p, 0x10 * p, 0x20 * p);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_NOT_NULL(test, t);
	/* A later line wins for a page that two lines name. */
	KUNIT_EXPECT_EQ(test, t->nr_targets, 2UL);
	KUNIT_EXPECT_EQ(test, t->nr_candidates, 3UL);
	entry = xa_load(&t->pages, 0x10);
	KUNIT_EXPECT_FALSE(test, anon_is_target(entry));
	KUNIT_EXPECT_EQ(test, anon_timeout_of(entry), 2U);
	entry = xa_load(&t->pages, 0x12);
	KUNIT_EXPECT_TRUE(test, anon_is_target(entry));
	KUNIT_EXPECT_EQ(test, anon_timeout_of(entry), 5U);
	entry = xa_load(&t->pages, 0x21);
	KUNIT_EXPECT_EQ(test, anon_timeout_of(entry), 255U);
	KUNIT_EXPECT_NULL(test, xa_load(&t->pages, 0x13));
	prepage_anon_table_free(t);
}

static void prepage_test_anon_parse_errors(struct kunit *test)
{
	/* What follows "anon ADDR" in each line. */
	static const char * const bad[] = {
		" target=1 timeout=1",		/* no page count */
		":0 target=1 timeout=1",	/* no page */
		":1 target=2 timeout=1",
		":1 target=1 timeout=0",
		":1 target=1 timeout=256",
		":1 target=1",			/* no timeout */
		":1 timeout=1",			/* no target */
		":1 target=1 target=0 timeout=1",
		":1 target=1 timeout=1 color=red",
		":x target=1 timeout=1",
		":1:2 target=1 timeout=1",
	};
	const unsigned long p = PAGE_SIZE;
	const unsigned long top = TASK_SIZE_MAX;
	struct prepage_anon_table *t;
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err = prepage_test_anon_parse(test, &t, "anon %#lx%s", p,
					      bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, err, -EINVAL, "%s", bad[i]);
		KUNIT_EXPECT_NULL_MSG(test, t, "%s", bad[i]);
	}
	/* Unaligned; beyond the user address space, or wrapping past it. */
	err = prepage_test_anon_parse(test, &t,
				      "anon %#lx:1 target=1 timeout=1", p + 1);
	KUNIT_EXPECT_EQ(test, err, -EINVAL);
	err = prepage_test_anon_parse(test, &t,
				      "anon %#lx:1 target=1 timeout=1", top);
	KUNIT_EXPECT_EQ(test, err, -EINVAL);
	err = prepage_test_anon_parse(test, &t,
				      "anon %#lx:2 target=1 timeout=1",
				      top - p);
	KUNIT_EXPECT_EQ(test, err, -EINVAL);
	/* More pages than anon/max_pages, over two lines: nothing kept. */
	err = prepage_test_anon_parse(test, &t,
				      "anon %#lx:1 target=1 timeout=1\n"
				      "anon %#lx:%u target=0 timeout=1\n",
				      p, 0x100 * p,
				      READ_ONCE(prepage_max_anon_pages));
	KUNIT_EXPECT_EQ(test, err, -ENOSPC);
	KUNIT_EXPECT_NULL(test, t);
}

/* Show @t as /proc/<pid>/prepage_table does, into @buf. */
static void prepage_test_anon_show(struct kunit *test,
				   struct prepage_anon_table *t,
				   char *buf, size_t size)
{
	struct seq_file m = { .buf = buf, .size = size };
	struct prepage_mm *pm = kunit_kzalloc(test, sizeof(*pm), GFP_KERNEL);
	struct prepage_anon_mm *am = kunit_kzalloc(test, sizeof(*am),
						   GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pm);
	KUNIT_ASSERT_NOT_NULL(test, am);
	mutex_init(&pm->lock);
	am->table = t;
	pm->side[PREPAGE_SIDE_ANON] = am;
	mutex_lock(&pm->lock);
	prepage_anon_table_show(&m, pm);
	mutex_unlock(&pm->lock);
	KUNIT_ASSERT_FALSE(test, seq_has_overflowed(&m));
	buf[m.count] = '\0';
}

static void prepage_test_anon_show_lines(struct kunit *test)
{
	const unsigned long p = PAGE_SIZE;
	struct prepage_anon_table *t, *again;
	char *buf = kunit_kzalloc(test, 512, GFP_KERNEL);
	char *want = kunit_kzalloc(test, 512, GFP_KERNEL);
	int err;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, want);
	/* Runs with the same entry share a line, whatever the lines were. */
	err = prepage_test_anon_parse(test, &t,
				      "anon %#lx:2 target=1 timeout=5\n"
				      "anon %#lx:2 target=1 timeout=5\n"
				      "anon %#lx:1 target=0 timeout=5\n"
				      "anon %#lx:1 target=0 timeout=5\n"
				      "anon %#lx:1 target=0 timeout=4\n",
				      3 * p, p, 5 * p, 7 * p, 8 * p);
	KUNIT_ASSERT_EQ(test, err, 0);
	snprintf(want, 512,
		 "anon %#lx:4 target=1 timeout=5\n"
		 "anon %#lx:1 target=0 timeout=5\n"
		 "anon %#lx:1 target=0 timeout=5\n"
		 "anon %#lx:1 target=0 timeout=4\n",
		 p, 5 * p, 7 * p, 8 * p);
	prepage_test_anon_show(test, t, buf, 511);
	KUNIT_EXPECT_STREQ(test, buf, want);

	/* What is shown loads back as the same table. */
	err = prepage_test_anon_parse(test, &again, "%s", buf);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_NOT_NULL(test, again);
	KUNIT_EXPECT_EQ(test, again->nr_targets, t->nr_targets);
	KUNIT_EXPECT_EQ(test, again->nr_candidates, t->nr_candidates);
	KUNIT_EXPECT_EQ(test, again->nr_chunks, t->nr_chunks);
	prepage_test_anon_show(test, again, buf, 511);
	KUNIT_EXPECT_STREQ(test, buf, want);
	prepage_anon_table_free(again);

	/*
	 * The windows a candidate was used in are not shown: a candidate used
	 * in two next to ones used in one share their line.
	 */
	KUNIT_ASSERT_EQ(test, anon_table_set_entry(t, 6,
						   anon_entry_uses(false, 2, 5)),
			0);
	snprintf(want, 512,
		 "anon %#lx:4 target=1 timeout=5\n"
		 "anon %#lx:3 target=0 timeout=5\n"
		 "anon %#lx:1 target=0 timeout=4\n",
		 p, 5 * p, 8 * p);
	prepage_test_anon_show(test, t, buf, 511);
	KUNIT_EXPECT_STREQ(test, buf, want);
	prepage_anon_table_free(t);
}

static struct kunit_case prepage_anon_test_cases[] = {
	KUNIT_CASE(prepage_test_anon_entry),
	KUNIT_CASE(prepage_test_anon_learn),
	KUNIT_CASE(prepage_test_anon_table_set),
	KUNIT_CASE(prepage_test_anon_parse_lines),
	KUNIT_CASE(prepage_test_anon_parse_errors),
	KUNIT_CASE(prepage_test_anon_show_lines),
	{},
};

static struct kunit_suite prepage_anon_test_suite = {
	.name = "prepage-anon",
	.test_cases = prepage_anon_test_cases,
};

kunit_test_suite(prepage_anon_test_suite);

#endif /* _PREPAGE_ANON_KUNIT_H */

#endif /* CONFIG_PREPAGE_KUNIT_TEST */
