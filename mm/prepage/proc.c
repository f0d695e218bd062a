// SPDX-License-Identifier: GPL-2.0
/*
 * prepage per-process interface: what /proc/<pid>/prepage, prepage_table
 * and prepage_stat show, and what writing them does. Their files are
 * fs/proc/base.c's: opening them checks CAP_SYS_NICE, and PTRACE_MODE_READ
 * over the target to read, PTRACE_MODE_ATTACH to write, as for
 * /proc/<pid>/mem.
 *
 * The interface is ActivityManager's: every reader and writer needs
 * CAP_SYS_NICE, also of its own process. Otherwise a table naming any
 * readable file, and file_prepaged after a switch, would tell an
 * unprivileged process which pages of that file are cached, which
 * mincore() and cachestat() do not tell it; and so would its own table
 * dumps across a switch, the prepaged pages it left unused leaving the
 * target, for the files it reads in the switches its tables learn from.
 */

#define pr_fmt(fmt) "prepage-proc: " fmt

#include <linux/ctype.h>
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/prepage.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/swap.h>
#include <linux/uaccess.h>

#include "extents.h"
#include "internal.h"

/* The largest table, in bytes, a single write may load. */
#define PREPAGE_TABLE_MAX_BYTES	SZ_4M

/*
 * The state of @mm for a reader: locked, or NULL when there is none (the
 * reader then shows an idle, empty state). ERR_PTR(-EINTR) on a fatal
 * signal.
 */
static struct prepage_mm *prepage_proc_lock(struct mm_struct *mm)
{
	struct prepage_mm *pm = prepage_mm_lookup(mm);

	if (!pm)
		return NULL;
	/* For the demotion of a window to settle; see prepage_settle_fn(). */
	if (READ_ONCE(pm->settling) && prepage_window_prepaged(pm))
		lru_add_drain_all();
	/* What is shown counts the window that ended last. */
	if (mutex_lock_killable(&pm->lock) ||
	    prepage_window_settle_wait(pm)) {
		prepage_mm_put(pm);
		return ERR_PTR(-EINTR);
	}
	return pm;
}

static void prepage_proc_unlock(struct prepage_mm *pm)
{
	if (pm) {
		mutex_unlock(&pm->lock);
		prepage_mm_put(pm);
	}
}

/* The sizes of @pm's tables (its lock held), all zero without state. */
static void prepage_sizes_show(struct seq_file *m, struct prepage_mm *pm)
{
	const struct prepage_ops *ops;
	unsigned int i;

	for_each_prepage_ops(ops, i)
		if (ops->sizes_show)
			ops->sizes_show(m, pm);
}

/**
 * prepage_show_state() - show /proc/<pid>/prepage
 * @m:	the seq_file
 * @mm:	the address space, held by an mm_count reference
 *
 * Return: 0, or -EINTR on a fatal signal.
 */
int prepage_show_state(struct seq_file *m, struct mm_struct *mm)
{
	struct prepage_mm *pm = prepage_proc_lock(mm);
	bool switching = false, prepaging = false;
	const char *lead = "none";

	if (IS_ERR(pm))
		return PTR_ERR(pm);
	if (pm) {
		switching = pm->state == PREPAGE_SWITCHING;
		prepaging = prepage_prepaging(pm);
		if (pm->lead < PREPAGE_NR_SIDES && prepage_backends[pm->lead])
			lead = prepage_backends[pm->lead]->name;
	}
	seq_printf(m, "state %s\n", switching ? "switching" : "idle");
	seq_printf(m, "prepaging %d\n", prepaging);
	seq_printf(m, "lead %s\n", lead);
	prepage_sizes_show(m, pm);
	prepage_proc_unlock(pm);
	return 0;
}

/**
 * prepage_show_tables() - show /proc/<pid>/prepage_table: the tables, as
 * lines that can be written back
 * @m:	the seq_file
 * @mm:	the address space, held by an mm_count reference
 *
 * Return: 0, or -EINTR on a fatal signal.
 */
int prepage_show_tables(struct seq_file *m, struct mm_struct *mm)
{
	struct prepage_mm *pm = prepage_proc_lock(mm);
	const struct prepage_ops *ops;
	unsigned int i;

	if (IS_ERR(pm))
		return PTR_ERR(pm);
	if (pm) {
		for_each_prepage_ops(ops, i)
			if (pm->side[i] && ops->table_show)
				ops->table_show(m, pm);
	}
	prepage_proc_unlock(pm);
	return 0;
}

/* The keys, in the order of the enum: both come from the one list. */
#define PREPAGE_STAT_NAME(item, key)	key,
static const char * const prepage_stat_names[NR_PREPAGE_STAT] = {
	PREPAGE_STAT_ITEMS(PREPAGE_STAT_NAME)
};

#undef PREPAGE_STAT_NAME

/**
 * prepage_stat_name() - the key of a counter
 * @item:	the counter
 *
 * Return: its key in /proc/<pid>/prepage_stat and
 * /sys/kernel/mm/prepage/stat.
 */
const char *prepage_stat_name(enum prepage_stat_item item)
{
	return prepage_stat_names[item];
}

/**
 * prepage_show_stat() - show /proc/<pid>/prepage_stat: the counters, one
 * "key value" a line
 * @m:	the seq_file
 * @mm:	the address space, held by an mm_count reference
 *
 * Return: 0, or -EINTR on a fatal signal.
 */
int prepage_show_stat(struct seq_file *m, struct mm_struct *mm)
{
	unsigned long stat[NR_PREPAGE_STAT] = {};
	struct prepage_mm *pm = prepage_proc_lock(mm);
	u64 window_ns = 0, prepage_ns = 0;
	const struct prepage_ops *ops;
	unsigned int i;

	if (IS_ERR(pm))
		return PTR_ERR(pm);
	if (pm) {
		for (i = 0; i < NR_PREPAGE_STAT; i++)
			stat[i] = prepage_stat_read(pm, i);
		window_ns = pm->last_window_ns;
		prepage_ns = READ_ONCE(pm->last_prepage_ns);
	}

	for (i = 0; i < NR_PREPAGE_STAT; i++)
		seq_printf(m, "%s %lu\n", prepage_stat_names[i], stat[i]);
	/* Precision and recall of each backend, in permille. */
	for_each_prepage_ops(ops, i) {
		unsigned long hit = stat[ops->stat_hit];

		if (!ops->stat_hit)
			continue;
		seq_printf(m, "%s_precision_permille %u\n", ops->name,
			   prepage_permille(hit, stat[ops->stat_prepaged]));
		seq_printf(m, "%s_recall_permille %u\n", ops->name,
			   prepage_permille(hit, hit + stat[ops->stat_miss]));
	}
	prepage_sizes_show(m, pm);
	prepage_proc_unlock(pm);
	seq_printf(m, "last_window_ns %llu\n", window_ns);
	seq_printf(m, "last_prepage_ns %llu\n", prepage_ns);
	return 0;
}

enum prepage_verb {
	PREPAGE_START, PREPAGE_END, PREPAGE_BACKGROUND, PREPAGE_RESET,
};

/**
 * prepage_signal() - a switch signal written to /proc/<pid>/prepage
 * @mm:		the address space, held by an mm_count reference
 * @s:		"start" (a switch to the process begins: open a window),
 *		"end" (it is done: close the window, learn from it),
 *		"background" (it left the foreground: what it used since
 *		its last switch does not count in its next) or
 *		"reset" (drop the tables)
 *
 * Context: the writer's capabilities are checked.
 * Return: 0, or a negative error; see
 * Documentation/ABI/testing/procfs-prepage.
 */
int prepage_signal(struct mm_struct *mm, const char *s)
{
	struct prepage_charge charge;
	struct prepage_mm *pm;
	enum prepage_verb verb;
	int err;

	if (!strcmp(s, "start"))
		verb = PREPAGE_START;
	else if (!strcmp(s, "end"))
		verb = PREPAGE_END;
	else if (!strcmp(s, "background"))
		verb = PREPAGE_BACKGROUND;
	else if (!strcmp(s, "reset"))
		verb = PREPAGE_RESET;
	else
		return -EINVAL;

	if (!mmget_not_zero(mm))
		return -ESRCH;
	/* The state, the log and what the window learns are the app's. */
	prepage_charge_begin(mm, &charge);
	pm = verb == PREPAGE_START ? prepage_mm_enter(mm) :
				     prepage_mm_lookup(mm);
	if (IS_ERR_OR_NULL(pm)) {
		/* Nothing to end, forget or reset without state. */
		err = pm ? PTR_ERR(pm) : verb == PREPAGE_END ? -EINVAL : 0;
		goto out;
	}
	switch (verb) {
	case PREPAGE_START:
		err = prepage_window_open(pm);
		break;
	case PREPAGE_END:
		err = prepage_window_close(pm);
		break;
	case PREPAGE_BACKGROUND:
		err = prepage_switch_out(pm);
		break;
	case PREPAGE_RESET:
		err = prepage_reset(pm);
		break;
	}
	prepage_mm_put(pm);
out:
	prepage_charge_end(&charge);
	mmput(mm);
	return err;
}

/* Whether @buf has a line that is neither empty nor blank. */
static bool prepage_has_line(const char *buf)
{
	for (; *buf; buf++)
		if (!isspace(*buf))
			return true;
	return false;
}

/*
 * Parse the table lines of @buf (modified) into one new table per backend
 * that has lines in it, in @tables, by &enum prepage_side. The files it
 * names are opened with @cred. The parse reschedules between lines and
 * stops on a fatal signal. Return: 0, or a negative error, and then the
 * caller frees the tables made so far.
 */
static int prepage_tables_parse(char *buf, const struct cred *cred,
				void *tables[PREPAGE_NR_SIDES])
{
	const struct prepage_ops *ops;
	unsigned int i;
	char *line;
	int err;

	while ((line = strsep(&buf, "\n"))) {
		line = strim(line);
		if (!*line)
			continue;
		if (fatal_signal_pending(current))
			return -EINTR;
		err = -EINVAL;
		for_each_prepage_ops(ops, i) {
			if (!ops->table_owns || !ops->table_owns(line))
				continue;
			if (!tables[i])
				tables[i] = ops->table_new();
			err = tables[i] ? ops->table_parse(tables[i], line, cred) :
			      -ENOMEM;
			break;
		}
		cond_resched();
		if (err)
			return err;
	}
	return 0;
}

/* Free the tables in @tables (the backends' NULL for none). */
static void prepage_tables_free(void *tables[PREPAGE_NR_SIDES])
{
	const struct prepage_ops *ops;
	unsigned int i;

	for_each_prepage_ops(ops, i)
		if (tables[i])
			ops->table_free(tables[i]);
}

/**
 * prepage_load() - load a table written to /proc/<pid>/prepage_table
 * @mm:		the address space, held by an mm_count reference
 * @cred:	the credentials of its process: the files the table names
 *		are opened with them
 * @ubuf:	the table, the whole of it
 * @count:	its size
 *
 * Parses the table in full, then replaces the tables of the backends it
 * has lines of (a table of anon lines only keeps the file tables, and one
 * of file lines only keeps the anonymous table).
 *
 * Context: the writer's capabilities are checked.
 * Return: 0, or a negative error, and then nothing changed; see
 * Documentation/ABI/testing/procfs-prepage.
 */
int prepage_load(struct mm_struct *mm, const struct cred *cred,
		 const char __user *ubuf, size_t count)
{
	void *tables[PREPAGE_NR_SIDES] = {};
	struct prepage_charge charge;
	struct prepage_mm *pm;
	char *buf;
	int err;

	if (count > PREPAGE_TABLE_MAX_BYTES)
		return -E2BIG;
	buf = kvmalloc(count + 1, GFP_KERNEL_ACCOUNT);
	if (!buf)
		return -ENOMEM;
	if (copy_from_user(buf, ubuf, count)) {
		kvfree(buf);
		return -EFAULT;
	}
	buf[count] = '\0';
	/*
	 * An empty table would silently drop the tables ("reset" says so),
	 * and text after a NUL would be silently ignored.
	 */
	if (!prepage_has_line(buf) || strlen(buf) != count) {
		kvfree(buf);
		return -EINVAL;
	}
	if (!mmget_not_zero(mm)) {
		kvfree(buf);
		return -ESRCH;
	}
	/* The tables are the app's: charged to it, whoever loads them. */
	prepage_charge_begin(mm, &charge);
	/* Opens the files with the app's credentials. */
	err = prepage_tables_parse(buf, cred, tables);
	kvfree(buf);
	if (err)
		goto out;

	pm = prepage_mm_enter(mm);
	if (IS_ERR(pm)) {
		err = PTR_ERR(pm);
	} else {
		/* Leaves the old tables in @tables. */
		err = prepage_load_tables(pm, tables);
		prepage_mm_put(pm);
	}
out:
	prepage_tables_free(tables);
	prepage_charge_end(&charge);
	mmput(mm);
	return err;
}
