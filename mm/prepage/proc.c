// SPDX-License-Identifier: GPL-2.0
/*
 * prepage per-process interface: /proc/<pid>/prepage, prepage_table and
 * prepage_stat. fs/proc/base.c opens them (checking PTRACE_MODE_READ over
 * the target, as for /proc/<pid>/mem); this file does the rest.
 *
 * The interface is ActivityManager's: every write needs CAP_SYS_NICE,
 * also to one's own process. Otherwise a table naming any readable file,
 * and file_prepaged after a switch, would tell an unprivileged process
 * which pages of that file are cached, which mincore() and cachestat()
 * do not tell it.
 */

#define pr_fmt(fmt) "prepage-proc: " fmt

#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/prepage.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "extents.h"
#include "internal.h"

/* The largest table, in bytes, a single write may load. */
#define PREPAGE_TABLE_MAX_BYTES	SZ_4M

/**
 * struct prepage_proc - an open prepage file
 * @mm:		the address space, held by an mm_count reference
 * @pid:	the process, whose credentials table files are opened with
 * @which:	&enum prepage_proc_file
 * @flags:	%PREPAGE_PROC_LOADED: a table was loaded through this open
 *		file (or is being loaded)
 */
struct prepage_proc {
	struct mm_struct *mm;
	struct pid *pid;
	enum prepage_proc_file which;
	unsigned long flags;
};

#define PREPAGE_PROC_LOADED	0

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
	if (mutex_lock_killable(&pm->lock)) {
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

static int prepage_ctl_show(struct seq_file *m, void *v)
{
	struct prepage_proc *pp = m->private;
	struct prepage_mm *pm = prepage_proc_lock(pp->mm);
	bool switching = false, prepaging = false;

	if (IS_ERR(pm))
		return PTR_ERR(pm);
	if (pm) {
		switching = pm->state == PREPAGE_SWITCHING;
		prepaging = prepage_prepaging(pm);
	}
	seq_printf(m, "state %s\n", switching ? "switching" : "idle");
	seq_printf(m, "prepaging %d\n", prepaging);
	prepage_sizes_show(m, pm);
	prepage_proc_unlock(pm);
	return 0;
}

static int prepage_table_show(struct seq_file *m, void *v)
{
	struct prepage_proc *pp = m->private;
	struct prepage_mm *pm = prepage_proc_lock(pp->mm);
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

static const char * const prepage_stat_names[NR_PREPAGE_STAT] = {
	[PREPAGE_STAT_SWITCHES]		= "switches",
	[PREPAGE_STAT_RESTARTS]		= "restarts",
	[PREPAGE_STAT_FILE_PREPAGED]	= "file_prepaged",
	[PREPAGE_STAT_FILE_HIT]		= "file_hit",
	[PREPAGE_STAT_FILE_MISS]	= "file_miss",
	[PREPAGE_STAT_FILE_DEMOTED]	= "file_demoted",
	[PREPAGE_STAT_FILE_EVICTED]	= "file_evicted",
	[PREPAGE_STAT_FILE_LATE]	= "file_late",
	[PREPAGE_STAT_FILE_STALE]	= "file_stale",
	[PREPAGE_STAT_BUDGET_STOPS]	= "budget_stops",
	[PREPAGE_STAT_CLOSED_STOPS]	= "closed_stops",
	[PREPAGE_STAT_NOMEM_STOPS]	= "nomem_stops",
	[PREPAGE_STAT_LOG_DROPPED]	= "log_dropped",
	[PREPAGE_STAT_ANON_PREPAGED]	= "anon_prepaged",
	[PREPAGE_STAT_ANON_HIT]		= "anon_hit",
	[PREPAGE_STAT_ANON_MISS]	= "anon_miss",
	[PREPAGE_STAT_ANON_EVICTED]	= "anon_evicted",
	[PREPAGE_STAT_ANON_DEMOTED]	= "anon_demoted",
	[PREPAGE_STAT_ANON_LATE]	= "anon_late",
};

static int prepage_stat_show(struct seq_file *m, void *v)
{
	struct prepage_proc *pp = m->private;
	unsigned long stat[NR_PREPAGE_STAT] = {};
	struct prepage_mm *pm = prepage_proc_lock(pp->mm);
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

/**
 * prepage_proc_open() - open a /proc/<pid>/prepage* file
 * @file:	the file
 * @task:	the process the file is of
 * @mm:		its address space; on success the file holds this mm_count
 *		reference until prepage_proc_release()
 * @which:	which file
 *
 * Return: 0 or -ENOMEM.
 */
int prepage_proc_open(struct file *file, struct task_struct *task,
		      struct mm_struct *mm, enum prepage_proc_file which)
{
	static int (* const show[])(struct seq_file *, void *) = {
		[PREPAGE_PROC_CTL]	= prepage_ctl_show,
		[PREPAGE_PROC_TABLE]	= prepage_table_show,
		[PREPAGE_PROC_STAT]	= prepage_stat_show,
	};
	struct prepage_proc *pp;
	int ret;

	pp = kmalloc(sizeof(*pp), GFP_KERNEL);
	if (!pp)
		return -ENOMEM;
	pp->mm = mm;
	pp->pid = get_task_pid(task, PIDTYPE_TGID);
	pp->which = which;
	pp->flags = 0;
	ret = single_open(file, show[which], pp);
	if (ret) {
		put_pid(pp->pid);
		kfree(pp);
	}
	return ret;
}

/**
 * prepage_proc_release() - release a /proc/<pid>/prepage* file
 * @inode:	its inode
 * @file:	the file
 *
 * Return: 0.
 */
int prepage_proc_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;
	struct prepage_proc *pp = m->private;

	mmdrop(pp->mm);
	put_pid(pp->pid);
	kfree(pp);
	return single_release(inode, file);
}

/*
 * Writers need the PTRACE_MODE_READ checked at open and CAP_SYS_NICE,
 * whatever the target, their own process included (see the top of this
 * file). Checked against the opener's credentials, not those of whoever
 * the file descriptor was passed to.
 */
static int prepage_proc_may_write(struct file *file)
{
	if (!file_ns_capable(file, &init_user_ns, CAP_SYS_NICE))
		return -EPERM;
	return 0;
}

enum prepage_verb { PREPAGE_START, PREPAGE_END, PREPAGE_RESET };

static ssize_t prepage_ctl_write(struct file *file, struct mm_struct *mm,
				 const char __user *ubuf, size_t count)
{
	struct prepage_charge charge;
	struct prepage_mm *pm;
	enum prepage_verb verb;
	char buf[16], *s;
	int err;

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	s = strim(buf);
	if (!strcmp(s, "start"))
		verb = PREPAGE_START;
	else if (!strcmp(s, "end"))
		verb = PREPAGE_END;
	else if (!strcmp(s, "reset"))
		verb = PREPAGE_RESET;
	else
		return -EINVAL;

	err = prepage_proc_may_write(file);
	if (err)
		return err;
	if (!mmget_not_zero(mm))
		return -ESRCH;
	/* The state, the log and what the window learns are the app's. */
	prepage_charge_begin(mm, &charge);
	pm = verb == PREPAGE_START ? prepage_mm_enter(mm) :
				     prepage_mm_lookup(mm);
	if (IS_ERR_OR_NULL(pm)) {
		/* Nothing to end or reset without state. */
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
	case PREPAGE_RESET:
		err = prepage_reset(pm);
		break;
	}
	prepage_mm_put(pm);
out:
	prepage_charge_end(&charge);
	mmput(mm);
	return err ? err : count;
}

/* The credentials of @pp's process, referenced, or NULL if it is gone. */
static const struct cred *prepage_proc_cred(struct prepage_proc *pp)
{
	const struct cred *cred = NULL;
	struct task_struct *task;

	rcu_read_lock();
	task = pid_task(pp->pid, PIDTYPE_TGID);
	if (task)
		cred = get_task_cred(task);
	rcu_read_unlock();
	return cred;
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

/*
 * Load the table @ubuf of @count bytes into @pp's process: parse it in
 * full, then replace the tables of the backends it has lines of (a table
 * of anon lines only keeps the file tables, and one of file lines only
 * keeps the anonymous table). Return: 0 or a negative error, and then
 * nothing changed.
 */
static int prepage_table_load(struct prepage_proc *pp,
			      const char __user *ubuf, size_t count)
{
	void *tables[PREPAGE_NR_SIDES] = {};
	struct mm_struct *mm = pp->mm;
	struct prepage_charge charge;
	const struct cred *cred;
	struct prepage_mm *pm;
	char *buf;
	int err;

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
	cred = prepage_proc_cred(pp);
	if (!cred) {
		kvfree(buf);
		return -ESRCH;
	}
	if (!mmget_not_zero(mm)) {
		put_cred(cred);
		kvfree(buf);
		return -ESRCH;
	}
	/* The tables are the app's: charged to it, whoever loads them. */
	prepage_charge_begin(mm, &charge);
	/* Opens the files with the app's credentials. */
	err = prepage_tables_parse(buf, cred, tables);
	kvfree(buf);
	put_cred(cred);
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

static ssize_t prepage_table_write(struct file *file, struct prepage_proc *pp,
				   const char __user *ubuf, size_t count)
{
	int err;

	if (count > PREPAGE_TABLE_MAX_BYTES)
		return -E2BIG;
	err = prepage_proc_may_write(file);
	if (err)
		return err;
	/*
	 * A table is one write on an open file: a second write would be the
	 * rest of a table split over several writes (writev(), a small
	 * stdio buffer), which must not replace the table with its part.
	 * Reads do not count: the file position is not used.
	 */
	if (test_and_set_bit(PREPAGE_PROC_LOADED, &pp->flags))
		return -EINVAL;
	err = prepage_table_load(pp, ubuf, count);
	if (err) {
		/* Nothing changed: the writer may try again. */
		clear_bit(PREPAGE_PROC_LOADED, &pp->flags);
		return err;
	}
	return count;
}

/**
 * prepage_proc_write() - write to /proc/<pid>/prepage or prepage_table
 * @file:	the file
 * @ubuf:	what is written
 * @count:	its size
 * @ppos:	the file position
 *
 * prepage takes "start", "end" or "reset"; prepage_table takes a whole
 * table in one write per open file: it replaces the file tables if it
 * has file lines, and the anonymous table if it has "anon" lines. Either
 * is checked in full before anything changes.
 *
 * Return: @count, or a negative error; see
 * Documentation/ABI/testing/procfs-prepage.
 */
ssize_t prepage_proc_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	struct seq_file *m = file->private_data;
	struct prepage_proc *pp = m->private;

	switch (pp->which) {
	case PREPAGE_PROC_CTL:
		return prepage_ctl_write(file, pp->mm, ubuf, count);
	case PREPAGE_PROC_TABLE:
		return prepage_table_write(file, pp, ubuf, count);
	default:
		return -EINVAL;
	}
}
