// SPDX-License-Identifier: GPL-2.0
/*
 * prepage file tables: the offline candidate table userspace loads, the
 * target table learned from what the app uses in its switch windows, and
 * the hit and miss accounting of a window.
 *
 * A table line names a file by path, its candidate pages as byte ranges,
 * and optionally the identity the file had when it was profiled and the
 * target pages:
 *
 *   PATH OFF:LEN[,OFF:LEN...] [ino=N] [size=BYTES] [ctime=SEC.NSEC]
 *	[target=OFF:LEN[,OFF:LEN...]|none]
 *
 * Without target= the whole candidate table is the target: a profile is
 * trusted until the app's use says otherwise.
 *
 * The file prepager reads the target tables at the start of a window,
 * one work per file, each file always on the same thread, so that no two
 * threads read one file: files of at least file/big_file_pages on one thread
 * of normal weight (SCHED_BATCH), the others on SCHED_IDLE threads.
 */

#define pr_fmt(fmt) "prepage-file: " fmt

#include <linux/backing-dev.h>
#include <linux/cred.h>
#include <linux/dax.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/magic.h>
#include <linux/namei.h>
#include <linux/pagemap.h>
#include <linux/pagevec.h>
#include <linux/prepage.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <linux/swap.h>
#include <trace/events/prepage.h>

#include "../internal.h"
#include "extents.h"
#include "internal.h"
#include "workers.h"

/**
 * struct prepage_file - the tables of one file of an app
 * @node:	link in &prepage_file_table.files
 * @file:	the file, opened with the credentials of the table's writer
 * @path:	the path the table named it by
 * @ino:	inode number when the table was loaded
 * @size:	size in bytes when the table was loaded
 * @ctime:	inode change time when the table was loaded
 * @candidates:	the offline candidate table: pages the profile expects
 * @target:	the target table: candidates the app confirmed by using
 *		them; what is prepaged at a switch
 * @prepaged:	pages the engine added to the page cache in this window
 * @nr_prepaged:	number of pages added to @prepaged
 * @pm:		the prepage state whose table this is in, once loaded
 * @plan:	@target as the window's prepagers started, less the small
 *		extents found cached as the data pass began: what @work reads
 *		(a view into &prepage_file_mm.plan, from prepage_file_start()
 *		until the plan is freed; empty otherwise)
 * @work:	the file prepager's work for this file
 * @worker:	the prepager thread that does @work, always the same one
 * @pass:	where @work is: 0 reading metadata, 1 data, 2 done
 * @next:	the page @work resumes its pass at when it queued itself
 *		again to give other works a turn
 * @nomem:	@work stopped for want of memory to record its pages
 *
 * Owned by the &struct prepage_mm whose table it is in, and protected by
 * its lock, except for what @work owns while it is queued or running (from
 * prepage_file_start() until it is done, stopped or not): it reads and
 * prunes @plan, its own copy of the target, and writes @prepaged,
 * @nr_prepaged, @pass, @next and @nomem, which the lock's holders read
 * only once it stopped.
 */
struct prepage_file {
	struct list_head node;
	struct file *file;
	char *path;
	u64 ino;
	loff_t size;
	struct timespec64 ctime;
	struct prepage_extents candidates;
	struct prepage_extents target;
	struct prepage_extents prepaged;
	unsigned long nr_prepaged;
	struct prepage_mm *pm;
	struct prepage_extents plan;
	struct kthread_work work;
	struct kthread_worker *worker;
	unsigned int pass;
	pgoff_t next;
	bool nomem;
};

/**
 * struct prepage_file_table - the file tables of an address space
 * @files:	&struct prepage_file entries, one per file
 * @nr_files:	number of entries in @files
 * @nr_stale:	lines dropped while the table was loaded (stale files)
 * @nr_extents:	candidate extents of all files, bounded by
 *		file/max_extents while the table is parsed
 */
struct prepage_file_table {
	struct list_head files;
	unsigned int nr_files;
	unsigned int nr_stale;
	unsigned int nr_extents;
};

/**
 * struct prepage_file_mm - the file side of an address space's state
 * @table:	the file tables
 * @stop:	tells the file prepagers to stop, and why: 0, or an &enum
 *		prepage_stop_reason of the window closing or the table being
 *		replaced (written under the state's lock)
 * @prepaging:	file prepager works queued or running
 * @plan:	the target extents of every file of @table as the prepagers
 *		started, their &prepage_file.plan: made by
 *		prepage_file_start() and freed when they start again, or the
 *		table is replaced or freed, once they are done, so that
 *		nothing they read changes under them
 * @plan_pages:	the pages in @plan when it was made (each prepager prunes
 *		its own view of @plan, so the lock's holders do not read it
 *		while they run)
 */
struct prepage_file_mm {
	struct prepage_file_table table;
	u8 stop;
	atomic_t prepaging;
	struct prepage_extent *plan;
	unsigned long plan_pages;
};

/* Prepage and log file pages. Default: true. */
static bool prepage_file_enabled __read_mostly = true;
/* Read extents fewer than this many pages apart as one I/O. Default: 16. */
static unsigned int prepage_merge_gap_pages __read_mostly = 16;
/* Most extents in the candidate table of one app. Default: 16384. */
static unsigned int prepage_max_file_extents __read_mostly = 16384;
/* Files of at least this many pages get the normal-weight prepager. */
static unsigned int prepage_big_file_pages __read_mostly = 16384;
/* Read one page per this many first, for the file system's block map. */
static unsigned int prepage_metadata_stride_pages __read_mostly = 512;
/*
 * Back off below this file precision, in permille (prepage_backoff_judge()).
 * Default: 100.
 */
static unsigned int prepage_file_min_precision_permille __read_mostly = 100;

/* The file side of @pm's state (see prepage_side_make()). */
static struct prepage_file_mm *prepage_file_mm(struct prepage_mm *pm)
{
	return pm->side[PREPAGE_SIDE_FILE];
}

/* Initialize the empty file table @table. */
static void prepage_file_table_init(struct prepage_file_table *table)
{
	INIT_LIST_HEAD(&table->files);
	table->nr_files = 0;
	table->nr_stale = 0;
	table->nr_extents = 0;
}

/* Move the files of @src to the empty table @dst; @src is left empty. */
static void prepage_file_table_move(struct prepage_file_table *dst,
				    struct prepage_file_table *src)
{
	WARN_ON_ONCE(!list_empty(&dst->files));
	list_splice_init(&src->files, &dst->files);
	dst->nr_files = src->nr_files;
	src->nr_files = 0;
}

static void prepage_file_free(struct prepage_file *f)
{
	if (f->file)
		fput(f->file);
	kfree(f->path);
	prepage_extents_destroy(&f->candidates);
	prepage_extents_destroy(&f->target);
	prepage_extents_destroy(&f->prepaged);
	kfree(f);
}

/* Free the files of @table, which no prepager uses; it is left empty. */
static void prepage_file_table_clear(struct prepage_file_table *table)
{
	struct prepage_file *f, *next;

	list_for_each_entry_safe(f, next, &table->files, node) {
		list_del(&f->node);
		prepage_file_free(f);
	}
	table->nr_files = 0;
}

static int prepage_file_parse_ctime(char *s, struct timespec64 *ts)
{
	char *nsec = strchr(s, '.');
	u32 ns;
	s64 sec;

	if (!nsec)
		return -EINVAL;
	*nsec++ = '\0';
	/* Nine digits, as dumped: "1700000000.5" is not 5 ns. */
	if (strlen(nsec) != 9)
		return -EINVAL;
	if (kstrtos64(s, 10, &sec) || kstrtou32(nsec, 10, &ns) ||
	    ns >= NSEC_PER_SEC)
		return -EINVAL;
	*ts = (struct timespec64){ .tv_sec = sec, .tv_nsec = ns };
	return 0;
}

/* The identity and target fields of a table line. */
struct prepage_line_fields {
	bool has_ino, has_size, has_ctime, has_target;
	u64 ino;
	u64 size;
	struct timespec64 ctime;
};

static int prepage_file_parse_field(char *field, struct prepage_file *f,
				    struct prepage_line_fields *lf)
{
	char *val = strchr(field, '=');
	unsigned int max = READ_ONCE(prepage_max_file_extents);
	int err;

	if (!val)
		return -EINVAL;
	*val++ = '\0';
	if (!strcmp(field, "ino") && !lf->has_ino) {
		lf->has_ino = true;
		return prepage_parse_u64(val, &lf->ino);
	}
	if (!strcmp(field, "size") && !lf->has_size) {
		lf->has_size = true;
		if (prepage_parse_u64(val, &lf->size) ||
		    lf->size > MAX_LFS_FILESIZE)
			return -EINVAL;
		return 0;
	}
	if (!strcmp(field, "ctime") && !lf->has_ctime) {
		lf->has_ctime = true;
		return prepage_file_parse_ctime(val, &lf->ctime);
	}
	if (!strcmp(field, "target") && !lf->has_target) {
		struct prepage_extents common = {};
		unsigned long pages;

		lf->has_target = true;
		if (!strcmp(val, "none"))
			return 0;
		err = prepage_parse_ranges(val, &f->target, max);
		if (err)
			return err == -E2BIG ? -ENOSPC : err;
		/* The target is made of candidates. */
		err = prepage_extents_intersect(&common, &f->target,
						&f->candidates);
		pages = prepage_extents_pages(&common);
		prepage_extents_destroy(&common);
		if (err)
			return err;
		return pages == prepage_extents_pages(&f->target) ? 0 : -EINVAL;
	}
	return -EINVAL;
}

/* Whether the file changed since the table line was made. */
static bool prepage_file_stale(struct inode *inode,
			       const struct prepage_line_fields *lf)
{
	struct timespec64 ctime = inode_get_ctime(inode);

	return (lf->has_ino && lf->ino != inode->i_ino) ||
	       (lf->has_size && lf->size != i_size_read(inode)) ||
	       (lf->has_ctime && !timespec64_equal(&lf->ctime, &ctime));
}

/*
 * Whether the page cache of @inode can be prepaged at all: evictable
 * pages read through readahead, from a local block device. Not ramfs
 * (its pages are unevictable; prepaging would fill holes with them),
 * kernfs or shmem (no readahead), nor DAX (no page cache). Nor a file
 * system without a block device of its own (NFS, FUSE, overlayfs), or
 * FUSE on one (fuseblk): there a read may wait on a server or a daemon
 * without bound, holding a prepager, and the work queued behind it, for
 * as long.
 */
static bool prepage_file_inode_supported(struct inode *inode)
{
	struct address_space *mapping = inode->i_mapping;
	struct super_block *sb = inode->i_sb;

	return S_ISREG(inode->i_mode) && !IS_DAX(inode) &&
	       mapping->a_ops->readahead && !mapping_unevictable(mapping) &&
	       sb->s_bdev && sb->s_magic != FUSE_SUPER_MAGIC;
}

/*
 * Open the file a table line names, with the credentials of the process
 * the table is for: a table can only name files that process could read
 * itself. The last component of @name is not followed, and what it names
 * is checked to be a regular file on a file system prepage supports
 * before it is opened: no FIFO, device or special file is ever opened,
 * and the open cannot block.
 */
static struct file *prepage_file_open(const char *name,
				      const struct cred *cred)
{
	const struct cred *old = override_creds(cred);
	struct file *file = NULL;
	struct inode *inode;
	struct path path;
	int err;

	err = kern_path(name, 0, &path);
	if (err)
		goto out;
	inode = d_backing_inode(path.dentry);
	if (d_is_symlink(path.dentry))
		err = -ELOOP;
	else if (!d_is_reg(path.dentry) || !prepage_file_inode_supported(inode))
		err = -EINVAL;
	else
		err = inode_permission(mnt_idmap(path.mnt), inode, MAY_READ);
	if (!err) {
		file = dentry_open(&path, O_RDONLY | O_LARGEFILE, cred);
		if (IS_ERR(file))
			err = PTR_ERR(file);
	}
	path_put(&path);
out:
	revert_creds(old);
	return err ? ERR_PTR(err) : file;
}

static int prepage_file_parse_line(char *line, const struct cred *cred,
				   struct prepage_file_table *table)
{
	unsigned int max = READ_ONCE(prepage_max_file_extents);
	struct prepage_line_fields lf = {};
	char *path, *ranges, *field;
	struct prepage_file *f, *other;
	size_t len;
	struct inode *inode;
	unsigned int i;
	pgoff_t eof;
	int err;

	path = strsep(&line, " \t");
	ranges = line ? strsep(&line, " \t") : NULL;
	if (path[0] != '/' || !ranges || !*ranges)
		return -EINVAL;
	/*
	 * White space and backslashes in a path are octal escapes, as the
	 * dump writes them (and /proc/mounts); an escaped NUL is no path.
	 */
	len = string_unescape_inplace(path, UNESCAPE_OCTAL);
	if (len != strlen(path))
		return -EINVAL;

	if (table->nr_extents >= max)
		return -ENOSPC;
	f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f)
		return -ENOMEM;
	err = prepage_parse_ranges(ranges, &f->candidates,
				   max - table->nr_extents);
	if (err) {
		if (err == -E2BIG)
			err = -ENOSPC;
		goto fail;
	}
	while ((field = strsep(&line, " \t"))) {
		if (!*field)
			continue;
		err = prepage_file_parse_field(field, f, &lf);
		if (err)
			goto fail;
	}
	for (i = 0; !lf.has_target && i < f->candidates.nr; i++) {
		err = prepage_extents_add(&f->target, f->candidates.ext[i].start,
					  f->candidates.ext[i].nr);
		if (err)
			goto fail;
	}

	f->file = prepage_file_open(path, cred);
	if (IS_ERR(f->file)) {
		err = PTR_ERR(f->file);
		f->file = NULL;
		/*
		 * Gone (an app update renamed its directory): stale, as a
		 * file changed since; the other lines still load.
		 */
		if (err != -ENOENT && err != -ENOTDIR)
			goto fail;
		table->nr_stale++;
		prepage_file_free(f);
		return 0;
	}
	inode = file_inode(f->file);
	err = -EINVAL;
	list_for_each_entry(other, &table->files, node)
		if (file_inode(other->file) == inode)
			goto fail;	/* one line per file */
	/* Nothing past the end of the file is ever read. */
	eof = DIV_ROUND_UP(i_size_read(inode), PAGE_SIZE);
	prepage_extents_truncate(&f->candidates, eof);
	prepage_extents_truncate(&f->target, eof);
	/* A line with no page left in the file describes another file. */
	if (prepage_file_stale(inode, &lf) || !f->candidates.nr) {
		table->nr_stale++;
		prepage_file_free(f);
		return 0;
	}
	err = -ENOMEM;
	f->path = kstrdup(path, GFP_KERNEL_ACCOUNT);
	if (!f->path)
		goto fail;
	f->ino = inode->i_ino;
	f->size = i_size_read(inode);
	f->ctime = inode_get_ctime(inode);
	table->nr_extents += f->candidates.nr;
	list_add_tail(&f->node, &table->files);
	table->nr_files++;
	return 0;
fail:
	prepage_file_free(f);
	return err;
}

/* Whether @line is a file table line: it starts with the file's path. */
static bool prepage_file_table_owns(const char *line)
{
	return line[0] == '/';
}

static void *prepage_file_table_new(void)
{
	struct prepage_file_table *table;

	table = kmalloc(sizeof(*table), GFP_KERNEL_ACCOUNT);
	if (table)
		prepage_file_table_init(table);
	return table;
}

/**
 * prepage_file_table_parse() - add a table line to file tables
 * @table:	the tables, from prepage_file_table_new()
 * @line:	the line, without its newline; modified
 * @cred:	the credentials of the process the tables are for
 *
 * The file is opened with @cred, without following a symbolic link it
 * is named by, and only if it is a regular file on a file system whose
 * pages can be prepaged. Ranges are clamped to the file's size. A line
 * whose file changed since it was made or is gone (no such file or
 * directory), or with no page left within the file, is dropped and
 * counted in &prepage_file_table.nr_stale.
 *
 * Return: 0; -EINVAL for a malformed line, a relative path, an unaligned
 * or overflowing range, a target outside the candidates, a file that
 * cannot be prepaged or two lines for one file; -ELOOP for a path
 * naming a symbolic link; -ENOSPC for more than file/max_extents
 * candidate ranges in all; the error of opening a file that is there
 * (such as -EACCES); -ENOMEM.
 */
static int prepage_file_table_parse(void *table, char *line,
				    const struct cred *cred)
{
	return prepage_file_parse_line(line, cred, table);
}

static void prepage_file_table_free(void *table)
{
	if (!table)
		return;
	prepage_file_table_clear(table);
	kfree(table);
}

static void prepage_file_demote(struct prepage_mm *pm, struct prepage_file *f);

/**
 * prepage_file_window_discard() - forget what a window not ended prepaged
 * @pm:	the prepage state; its lock is held and its prepagers stopped
 *
 * When a window is reset or its tables replaced, what was prepaged for
 * it and not used since (not mapped, not read through a file descriptor)
 * is demoted as at its end; nothing is counted or learned. After a
 * window ended there is nothing to forget; a restarted window keeps it.
 */
static void prepage_file_window_discard(struct prepage_mm *pm)
{
	struct prepage_file *f;

	lockdep_assert_held(&pm->lock);

	list_for_each_entry(f, &prepage_file_mm(pm)->table.files, node) {
		if (f->prepaged.nr)
			prepage_file_demote(pm, f);
		prepage_extents_destroy(&f->prepaged);
		f->nr_prepaged = 0;
	}
}

static int prepage_file_log_cmp(const void *a, const void *b)
{
	const struct prepage_log_entry *x = a, *y = b;

	if (x->key != y->key)
		return (unsigned long)x->key < (unsigned long)y->key ? -1 : 1;
	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return 0;
}

static struct prepage_file *prepage_file_find(struct prepage_mm *pm,
					      const void *key)
{
	struct prepage_file *f;

	list_for_each_entry(f, &prepage_file_mm(pm)->table.files, node)
		if (f->file->f_mapping == key)
			return f;
	return NULL;
}

static unsigned long prepage_file_common_pages(const struct prepage_extents *a,
					       const struct prepage_extents *b)
{
	struct prepage_extents common = {};
	unsigned long pages;

	/* On -ENOMEM this undercounts; there is nothing better to do. */
	prepage_extents_intersect(&common, a, b);
	pages = prepage_extents_pages(&common);
	prepage_extents_destroy(&common);
	return pages;
}

/*
 * The pages of @f->prepaged were prepaged in the window and not used:
 * those still cached go to the tail of the inactive list (the oldest
 * generation with MGLRU), to be reclaimed first, as the pages
 * POSIX_FADV_DONTNEED cannot drop are; those no longer cached were
 * reclaimed before the app used them. A folio is left alone if it is
 * mapped, was accessed through a file descriptor (PG_referenced: by
 * another process, say, whose accesses the window does not log) or
 * holds pages outside @f->prepaged (a large folio the app used part of).
 */
static void prepage_file_demote(struct prepage_mm *pm, struct prepage_file *f)
{
	struct address_space *mapping = f->file->f_mapping;
	unsigned long demoted = 0, evicted = 0;
	struct folio_batch fbatch;
	unsigned int i, k;

	if (!f->prepaged.nr)
		return;
	folio_batch_init(&fbatch);
	for (i = 0; i < f->prepaged.nr; i++) {
		pgoff_t first = f->prepaged.ext[i].start;
		pgoff_t end = first + f->prepaged.ext[i].nr;
		pgoff_t pos = first, next = first;

		while (pos < end &&
		       filemap_get_folios(mapping, &next, end - 1, &fbatch)) {
			for (k = 0; k < folio_batch_count(&fbatch); k++) {
				struct folio *folio = fbatch.folios[k];
				pgoff_t fend = folio_next_index(folio);

				if (folio->index > pos)
					evicted += folio->index - pos;
				if (folio->index >= first && fend <= end &&
				    folio_test_lru(folio) &&
				    !folio_mapped(folio) &&
				    !folio_test_referenced(folio)) {
					deactivate_file_folio(folio);
					demoted += fend - folio->index;
				}
				pos = min(fend, end);
			}
			folio_batch_release(&fbatch);
			cond_resched();
		}
		evicted += end - pos;
	}
	/*
	 * Where they go now, not when this CPU's batch fills: the core
	 * drains every CPU's batches once a settle, without its lock held.
	 */
	if (demoted)
		lru_add_drain();
	prepage_stat_add(pm, PREPAGE_STAT_FILE_DEMOTED, demoted);
	prepage_stat_add(pm, PREPAGE_STAT_FILE_EVICTED, evicted);
}

/*
 * Fire the table events of @f for the pages that joined its target
 * (@promote) or left it since it was @before, which is destroyed.
 */
static void prepage_file_trace_table(struct prepage_mm *pm,
				     struct prepage_file *f,
				     struct prepage_extents *before,
				     bool promote)
{
	const struct prepage_extents *now = promote ? &f->target : before;
	const struct prepage_extents *less = promote ? before : &f->target;
	struct prepage_extents diff = {};
	struct prepage_extent *e;
	unsigned int i;

	if (prepage_extents_copy(&diff, now) ||
	    prepage_extents_subtract(&diff, less))
		goto out;
	for (i = 0; i < diff.nr; i++) {
		e = &diff.ext[i];
		if (promote)
			trace_prepage_file_promote(pm->slot.mm, pm->pid,
						   file_inode(f->file),
						   e->start, e->nr);
		else
			trace_prepage_file_evict(pm->slot.mm, pm->pid,
						 file_inode(f->file),
						 e->start, e->nr);
	}
out:
	prepage_extents_destroy(&diff);
	prepage_extents_destroy(before);
}

/*
 * Account what the app did with one file in the window, and learn from
 * it: candidates it used join the target; target pages that were
 * prepaged and not used leave it. A prepaged page that a fault mapped
 * around another (@mapped) and that the app did not access otherwise
 * is no hit, but may have been used without a fault of its own: it
 * stays in the target. @f is NULL for a file not in the tables, whose
 * misses still count. Return: the pages prepaged for the window that
 * were reclaimed and that the app then read itself.
 */
static unsigned long prepage_file_account(struct prepage_mm *pm,
					  struct prepage_file *f,
					  const struct prepage_extents *accessed,
					  const struct prepage_extents *added,
					  const struct prepage_extents *mapped)
{
	unsigned int max = READ_ONCE(prepage_max_file_extents);
	struct prepage_extents used = {}, missed = {}, before = {};
	unsigned long refetched;
	unsigned int i;
	bool traced;

	prepage_stat_add(pm, PREPAGE_STAT_FILE_MISS,
			 prepage_file_common_pages(accessed, added));
	if (!f)
		return 0;
	prepage_stat_add(pm, PREPAGE_STAT_FILE_HIT,
			 prepage_file_common_pages(accessed, &f->prepaged));
	/*
	 * Misses on target pages the engine had not prepaged: the app got
	 * there first (prepaged and reclaimed is file_evicted).
	 */
	if (!prepage_extents_intersect(&missed, accessed, added) &&
	    !prepage_extents_subtract(&missed, &f->prepaged))
		prepage_stat_add(pm, PREPAGE_STAT_FILE_LATE,
				 prepage_file_common_pages(&missed, &f->target));
	prepage_extents_destroy(&missed);

	prepage_extents_intersect(&used, accessed, &f->candidates);
	traced = trace_prepage_file_promote_enabled() &&
		 !prepage_extents_copy(&before, &f->target);
	for (i = 0; i < used.nr && f->target.nr < max; i++)
		prepage_extents_add(&f->target, used.ext[i].start,
				    used.ext[i].nr);
	prepage_extents_destroy(&used);
	if (traced)
		prepage_file_trace_table(pm, f, &before, true);

	/* Prepaged, reclaimed, and read again by the app itself. */
	refetched = prepage_file_common_pages(added, &f->prepaged);
	prepage_stat_add(pm, PREPAGE_STAT_FILE_EVICTED, refetched);
	/*
	 * What is left of @f->prepaged after this was not used, unless the
	 * log was full: then it may have been, and the target keeps it.
	 */
	if (!prepage_extents_subtract(&f->prepaged, accessed) &&
	    !prepage_extents_subtract(&f->prepaged, mapped)) {
		traced = !pm->log_dropped && trace_prepage_file_evict_enabled() &&
			 !prepage_extents_copy(&before, &f->target);
		for (i = 0; !pm->log_dropped && i < f->prepaged.nr &&
		     f->target.nr < max; i++)
			prepage_extents_remove(&f->target,
					       f->prepaged.ext[i].start,
					       f->prepaged.ext[i].nr);
		if (traced)
			prepage_file_trace_table(pm, f, &before, false);
		/* Pages the app read again itself are the app's now. */
		if (!prepage_extents_subtract(&f->prepaged, added))
			prepage_file_demote(pm, f);
	}
	prepage_extents_destroy(&f->prepaged);
	f->nr_prepaged = 0;
	return refetched;
}

static const struct prepage_ops prepage_file_ops;

/**
 * prepage_file_window_close() - account a closed window and learn from it
 * @pm:		the prepage state; its lock is held
 * @log:	the window's access log; sorted here
 * @nr:		number of entries in @log
 * @out:	the window's outcome for the file side
 *
 * Counts the window's file hits (pages the engine prepaged that the app
 * accessed) and misses (pages the app accessed that it had to read
 * itself), and updates the target tables. Pages that fault-around
 * mapped are not accesses.
 */
static void prepage_file_window_close(struct prepage_mm *pm,
				      struct prepage_log_entry *log,
				      unsigned int nr,
				      struct prepage_outcome *out)
{
	struct prepage_extents accessed = {}, added = {}, mapped = {};
	struct prepage_file *f;
	unsigned int i, j;

	lockdep_assert_held(&pm->lock);

	sort(log, nr, sizeof(*log), prepage_file_log_cmp, NULL);
	for (i = 0; i < nr; i = j) {
		const void *key = log[i].key;

		for (j = i; j < nr && log[j].key == key; j++) {
			struct prepage_extents *set;

			switch (log[j].kind) {
			case PREPAGE_LOG_FILE_ACCESS:
				set = &accessed;
				break;
			case PREPAGE_LOG_FILE_ADDED:
				set = &added;
				break;
			case PREPAGE_LOG_FILE_MAPPED:
				set = &mapped;
				break;
			default:
				continue;
			}
			/* On -ENOMEM the window undercounts. */
			prepage_extents_add(set, log[j].index, log[j].nr);
		}
		out->refetched += prepage_file_account(pm,
						       prepage_file_find(pm, key),
						       &accessed, &added, &mapped);
		prepage_extents_destroy(&accessed);
		prepage_extents_destroy(&added);
		prepage_extents_destroy(&mapped);
	}
	/* Files the app did not touch at all in the window. */
	list_for_each_entry(f, &prepage_file_mm(pm)->table.files, node)
		if (f->prepaged.nr)
			out->refetched += prepage_file_account(pm, f, &accessed,
							       &added, &mapped);
	prepage_window_counts(pm, &prepage_file_ops, out);
}

static void prepage_file_show_ranges(struct seq_file *m,
				     const struct prepage_extents *set)
{
	unsigned int i;

	for (i = 0; i < set->nr; i++)
		seq_printf(m, "%s%llu:%llu", i ? "," : "",
			   (u64)set->ext[i].start << PAGE_SHIFT,
			   (u64)set->ext[i].nr << PAGE_SHIFT);
}

/**
 * prepage_file_table_show() - print the file tables as table lines
 * @m:	where to print
 * @pm:	the prepage state; its lock is held
 *
 * The lines, written back with prepage_file_table_parse(), give the same
 * tables as long as the files did not change.
 */
static void prepage_file_table_show(struct seq_file *m, struct prepage_mm *pm)
{
	struct prepage_file *f;

	lockdep_assert_held(&pm->lock);

	list_for_each_entry(f, &prepage_file_mm(pm)->table.files, node) {
		seq_escape(m, f->path, " \t\n\\");
		seq_putc(m, ' ');
		prepage_file_show_ranges(m, &f->candidates);
		seq_printf(m, " ino=%llu size=%lld ctime=%lld.%09ld target=",
			   f->ino, f->size, (s64)f->ctime.tv_sec,
			   f->ctime.tv_nsec);
		if (f->target.nr)
			prepage_file_show_ranges(m, &f->target);
		else
			seq_puts(m, "none");
		seq_putc(m, '\n');
	}
}

/* ---- the file prepager ------------------------------------------------ */

/* Pages read under one hold of the invalidate lock. */
#define PREPAGE_FILE_CHUNK	64
/* Upper bound on SCHED_IDLE prepager threads. */
#define PREPAGE_MAX_IDLE_WORKERS	8

/*
 * Created by prepage_file_workers_init() when prepage is enabled, destroyed
 * by prepage_file_workers_exit() when it is disabled.
 */
static struct kthread_worker *prepage_big_worker;
static struct kthread_worker *prepage_idle_workers[PREPAGE_MAX_IDLE_WORKERS];
static unsigned int prepage_nr_idle_workers;
static atomic_t prepage_next_idle_worker = ATOMIC_INIT(0);

/**
 * prepage_file_workers_init() - start the file prepager threads
 *
 * The first call starts them; later calls do nothing until they are
 * destroyed. Called with the lock that serializes enabling prepage.
 *
 * Return: 0, or the error of creating the first thread.
 */
static int prepage_file_workers_init(void)
{
	int nr;

	if (prepage_big_worker)
		return 0;
	nr = prepage_idle_workers_create(prepage_idle_workers,
					 PREPAGE_MAX_IDLE_WORKERS, "kprepaged");
	if (nr < 0)
		return nr;
	prepage_nr_idle_workers = nr;
	prepage_big_worker = prepage_worker_create("kprepaged/big");
	if (IS_ERR(prepage_big_worker)) {
		/* Big files share an idle thread then. */
		pr_warn("no thread for big files: %ld\n",
			PTR_ERR(prepage_big_worker));
		prepage_big_worker = prepage_idle_workers[0];
	}
	return 0;
}

/**
 * prepage_file_workers_exit() - destroy the file prepager threads
 *
 * Called with the lock that serializes enabling prepage, once no address
 * space has prepage state.
 */
static void prepage_file_workers_exit(void)
{
	if (prepage_big_worker == prepage_idle_workers[0])
		WRITE_ONCE(prepage_big_worker, NULL);
	prepage_workers_destroy(&prepage_big_worker, 1);
	prepage_workers_destroy(prepage_idle_workers, prepage_nr_idle_workers);
	prepage_nr_idle_workers = 0;
}

/* A file's work is done with @pm's window; the last one says so. */
static void prepage_file_worker_done(struct prepage_mm *pm)
{
	if (atomic_dec_and_test(&prepage_file_mm(pm)->prepaging))
		prepage_prepagers_done(pm, PREPAGE_SIDE_FILE);
}

/**
 * prepage_file_worker_added() - count a folio a prepager thread added
 * @mapping:	the page cache it was added to
 * @folio:	the folio, locked, not on the LRU yet
 *
 * Called from the page cache insertion hook in kernel thread context:
 * if the thread is a file prepager reading @mapping, the folio is one it
 * prepaged. Exactly those pages count, however readahead batched them,
 * and pages that were cached already do not.
 *
 * A folio of pages of @f's plan is for the app's switch, which is
 * happening now: it goes on the LRU active (the youngest generation with
 * MGLRU), as a refault of the workingset does, and not where readahead
 * puts its pages, among the first that reclaim takes. A folio only of
 * the pages between target extents that are read with them
 * (file/merge_gap_pages) is not wanted, and stays where readahead puts it.
 * At the end of the window, prepaged pages the app did not use are
 * demoted (prepage_file_demote()).
 */
static void prepage_file_worker_added(struct address_space *mapping,
				      struct folio *folio)
{
	/* The file a file prepager is reading, else NULL. */
	struct prepage_file *f = prepage_worker_context();
	long nr = folio_nr_pages(folio);

	if (!f || f->file->f_mapping != mapping)
		return;
	/*
	 * Called from filemap_add_folio(): never allocate here. The reader
	 * made room; a page that cannot be recorded is not counted either.
	 */
	if (!prepage_extents_add_reserved(&f->prepaged, folio->index, nr)) {
		f->nr_prepaged += nr;
		prepage_stat_add(f->pm, PREPAGE_STAT_FILE_PREPAGED, nr);
		if (prepage_extents_overlaps(&f->plan, folio->index, nr))
			folio_set_active(folio);
	}
}

/*
 * Read the pages of [@index, @end) that are missing from @f's page cache,
 * asynchronously, as readahead does: batched into large reads, pages
 * already cached left alone, as far as the window's budget goes.
 * Return: the pages covered, from @index on; 0 if the prepager should
 * stop.
 */
static pgoff_t prepage_file_read(struct prepage_file *f, pgoff_t index,
				 pgoff_t end)
{
	struct address_space *mapping = f->file->f_mapping;
	unsigned long nr, done, step, before;

	if (READ_ONCE(prepage_file_mm(f->pm)->stop) ||
	    prepage_mm_dying(f->pm->slot.mm))
		return 0;
	/*
	 * The insertion hook records the pages in @f->prepaged without
	 * allocating: make room first.
	 */
	if (prepage_extents_reserve(&f->prepaged,
				    f->prepaged.nr + (end - index + 1) / 2 + 1)) {
		f->nomem = true;
		prepage_nomem_stop(f->pm);
		return 0;
	}
	nr = prepage_budget_take(f->pm, end - index);
	if (!nr)
		return 0;
	/*
	 * As readahead(2) reads, within the file, in I/Os the device takes,
	 * under the invalidate lock; but where readahead(2) reads at most
	 * max(io_pages, ra_pages) pages a call (eight with 16K pages and the
	 * default 128K readahead), all @nr are read, in as many calls. Pages
	 * that were cached already go back to the budget.
	 */
	step = max3(inode_to_bdi(mapping->host)->io_pages,
		    (unsigned long)f->file->f_ra.ra_pages, 1UL);
	before = f->nr_prepaged;
	for (done = 0; done < nr && !READ_ONCE(prepage_file_mm(f->pm)->stop);
	     done += step) {
		DEFINE_READAHEAD(ractl, f->file, &f->file->f_ra, mapping,
				 index + done);

		force_page_cache_ra(&ractl, min(step, nr - done));
	}
	trace_prepage_file_extent(f->pm->slot.mm, f->pm->pid,
				  file_inode(f->file), index, min(done, nr),
				  f->nr_prepaged - before);
	prepage_budget_give(f->pm, nr - min(nr, f->nr_prepaged - before));
	return READ_ONCE(prepage_file_mm(f->pm)->stop) ? 0 : nr;
}

/* Read [@start, @start + @nr) of @f, within the file, in chunks. */
static bool prepage_file_read_range(struct prepage_file *f, pgoff_t start,
				    pgoff_t nr)
{
	pgoff_t eof = DIV_ROUND_UP(i_size_read(file_inode(f->file)), PAGE_SIZE);
	pgoff_t end = min(start + nr, eof);

	while (start < end) {
		pgoff_t done = prepage_file_read(f, start, min(end, start +
							       PREPAGE_FILE_CHUNK));

		if (!done)
			return false;
		start += done;
		cond_resched();
	}
	return true;
}

/*
 * Steps (chunks, or metadata pages) a work takes before the works queued
 * behind it on its thread get a turn: a big table of one app must not
 * hold the thread it shares with the others for all of its reads.
 */
#define PREPAGE_FILE_SLICE	8

/*
 * Whether all of [@start, @start + @nr) is in @mapping's page cache.
 * (page_cache_next_miss() cannot tell for a range from page 0: there
 * its check for an index that wrapped around reports a miss at 0.)
 */
static bool prepage_file_cached(struct address_space *mapping,
				pgoff_t start, pgoff_t nr)
{
	XA_STATE(xas, &mapping->i_pages, start);
	void *entry;

	/*
	 * Every index of a large folio is met as the folio; a shadow entry
	 * is a miss, and the walk stops at its first index.
	 */
	rcu_read_lock();
	while (nr) {
		entry = xas_next(&xas);
		if (xas_retry(&xas, entry))
			continue;
		if (!entry || xa_is_value(entry))
			break;
		nr--;
	}
	rcu_read_unlock();
	return !nr;
}

/*
 * Drop from the plan of @f the extents of at most %PREPAGE_FILE_CHUNK
 * pages that are all cached, before the data pass merges the extents
 * closer than file/merge_gap_pages: the pages between two extents are worth
 * reading with them only if both need a read. Otherwise a target that
 * is cached (the app used it a moment ago) would have the prepager read
 * nothing but the pages between its extents, which nobody asked for.
 * Larger extents are kept (readahead skips their cached pages): so a
 * look is at most a chunk of the page cache, under RCU, and the prune at
 * most file/max_extents of them, rescheduling between them.
 * Return: false if the prepagers are to stop (the plan is then cut short).
 */
static bool prepage_file_prune(struct prepage_file *f)
{
	struct address_space *mapping = f->file->f_mapping;
	unsigned int i, kept = 0;

	for (i = 0; i < f->plan.nr; i++) {
		struct prepage_extent e = f->plan.ext[i];

		if (e.nr > PREPAGE_FILE_CHUNK ||
		    !prepage_file_cached(mapping, e.start, e.nr))
			f->plan.ext[kept++] = e;
		if (READ_ONCE(prepage_file_mm(f->pm)->stop)) {
			f->plan.nr = kept;
			return false;
		}
		cond_resched();
	}
	f->plan.nr = kept;
	return true;
}

/*
 * One pass over the plan of @f (its target as the window's prepagers
 * started, pruned as the data pass begins), from @f->next on: the data
 * pass reads all of each range, a chunk a step; the metadata pass reads
 * one target page per @stride of the file, each the first at least
 * @stride past the last one it read: a target of many small ranges
 * costs a few single-page reads, not one per range. Nothing past @eof,
 * or past the file's end if it was truncated since, is visited; every
 * step checks whether to stop.
 * Return: 1 when the pass is done; 0 to stop; -EAGAIN when the slice is
 * used up, @f->next then being where to resume.
 */
static int prepage_file_pass(struct prepage_file *f, bool data, pgoff_t gap,
			     pgoff_t stride, pgoff_t eof, unsigned int *left)
{
	pgoff_t i, end, step = data ? PREPAGE_FILE_CHUNK : stride;
	struct prepage_extent io;
	unsigned int pos = 0;

	if (data && !f->next && !prepage_file_prune(f))
		return 0;
	/* Metadata reads are of target pages, not of gaps merged over. */
	while (prepage_extents_next_io(&f->plan, &pos, data ? gap : 0, &io) &&
	       io.start < eof) {
		end = min(io.start + io.nr, eof);
		if (end <= f->next)
			continue;
		for (i = max(io.start, f->next); i < end; i += step) {
			/*
			 * A file truncated since the work began ends the
			 * pass at its new end, rather than stepping, with
			 * nothing to read, over what it was.
			 */
			eof = min_t(pgoff_t, eof,
				    DIV_ROUND_UP(i_size_read(file_inode(f->file)),
						 PAGE_SIZE));
			if (i >= eof)
				break;
			if (READ_ONCE(prepage_file_mm(f->pm)->stop))
				return 0;
			if (!*left) {
				f->next = i;
				return -EAGAIN;
			}
			(*left)--;
			if (!prepage_file_read_range(f, i,
						     data ? min(step, end - i) : 1))
				return 0;
			if (!data)
				f->next = i + stride;
		}
	}
	f->next = 0;
	return 1;
}

/* Why the work of @f stopped, its last pass having returned @ret. */
static enum prepage_stop_reason prepage_file_stop_reason(struct prepage_file *f,
							 int ret)
{
	u8 stop = READ_ONCE(prepage_file_mm(f->pm)->stop);

	if (ret > 0)
		return PREPAGE_STOP_DONE;
	if (f->nomem)
		return PREPAGE_STOP_NOMEM;
	if (stop)
		return stop;
	if (prepage_mm_dying(f->pm->slot.mm))
		return PREPAGE_STOP_EXIT;
	/* Only a stopped work is not queued again for its next slice. */
	WARN_ON_ONCE(ret < 0);
	return prepage_budget_stop_reason(f->pm);
}

/*
 * The work of one file in a window, from its plan: first single target
 * pages, at most one per file/metadata_stride_pages of the file, so that the
 * file system reads the block map of the whole range early, then the
 * target extents in file order, less the small ones found all cached,
 * extents closer than file/merge_gap_pages read as one range.
 * After %PREPAGE_FILE_SLICE steps the work queues itself again, behind
 * the works of other files (and apps) on its thread.
 */
static void prepage_file_work(struct kthread_work *work)
{
	struct prepage_file *f = container_of(work, struct prepage_file, work);
	pgoff_t gap = READ_ONCE(prepage_merge_gap_pages);
	pgoff_t stride = max(READ_ONCE(prepage_metadata_stride_pages), 1U);
	pgoff_t eof = DIV_ROUND_UP(i_size_read(file_inode(f->file)), PAGE_SIZE);
	unsigned int left = PREPAGE_FILE_SLICE;
	struct prepage_charge charge;
	int ret = 1;

	/* The table's mm is pinned by its state, which outlives this work. */
	prepage_charge_begin(f->pm->slot.mm, &charge);
	/* What the page cache hook counts as prepaged, while it reads. */
	prepage_worker_set_context(f);
	/*
	 * Every step reads at most one chunk, then reschedules and checks
	 * whether to stop.
	 */
	while (f->pass < 2) {
		ret = prepage_file_pass(f, f->pass, gap, stride, eof, &left);
		if (ret <= 0)
			break;
		f->pass++;
	}
	prepage_worker_set_context(NULL);
	/* Unused prepaged pages must be reclaimable, not held in a batch. */
	lru_add_drain();
	prepage_charge_end(&charge);
	/* Its next slice: it checks first whether to stop. */
	if (ret == -EAGAIN && kthread_queue_work(f->worker, &f->work))
		return;
	trace_prepage_file_done(f->pm->slot.mm, f->pm->pid,
				file_inode(f->file), f->nr_prepaged,
				prepage_file_stop_reason(f, ret));
	prepage_file_worker_done(f->pm);
}

/*
 * Bind the files of the new table @table to prepagers; @pm is the state
 * it is loaded into, whose lock is held.
 */
static void prepage_file_attach(struct prepage_mm *pm,
				struct prepage_file_table *table)
{
	unsigned long big = READ_ONCE(prepage_big_file_pages);
	struct prepage_file *f;

	lockdep_assert_held(&pm->lock);

	list_for_each_entry(f, &table->files, node) {
		f->pm = pm;
		kthread_init_work(&f->work, prepage_file_work);
		if (DIV_ROUND_UP(f->size, PAGE_SIZE) >= big)
			f->worker = prepage_big_worker;
		else
			f->worker = prepage_idle_workers[(unsigned int)
				atomic_inc_return(&prepage_next_idle_worker) %
				prepage_nr_idle_workers];
	}
}

/*
 * Free the plan of @pm's file prepagers, and their views of it; @pm's lock
 * is held, and they are done.
 */
static void prepage_file_plan_free(struct prepage_mm *pm)
{
	struct prepage_file_mm *fm = prepage_file_mm(pm);
	struct prepage_file *f;

	list_for_each_entry(f, &fm->table.files, node)
		f->plan = (struct prepage_extents){};
	kvfree(fm->plan);
	fm->plan = NULL;
	fm->plan_pages = 0;
}

/*
 * Copy the targets of @pm's files that have a prepager into one plan, the
 * prepagers' own (see &prepage_file_mm.plan). Return: false if there was
 * no memory for it.
 */
static bool prepage_file_plan(struct prepage_mm *pm)
{
	struct prepage_file_mm *fm = prepage_file_mm(pm);
	struct prepage_extent *next;
	struct prepage_file *f;
	unsigned long nr = 0;

	lockdep_assert_held(&pm->lock);
	prepage_file_plan_free(pm);
	list_for_each_entry(f, &fm->table.files, node)
		if (f->worker)
			nr += f->target.nr;
	if (!nr)
		return true;
	/* A window without it is counted as a nomem stop. */
	fm->plan = kvmalloc_array(nr, sizeof(*fm->plan),
				  GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!fm->plan)
		return false;
	next = fm->plan;
	list_for_each_entry(f, &fm->table.files, node) {
		if (!f->worker || !f->target.nr)
			continue;
		memcpy(next, f->target.ext, f->target.nr * sizeof(*next));
		fm->plan_pages += prepage_extents_pages(&f->target);
		f->plan = (struct prepage_extents){
			.ext = next, .nr = f->target.nr, .cap = f->target.nr,
		};
		next += f->target.nr;
	}
	return true;
}

/**
 * prepage_file_start() - start prepaging the target tables
 * @pm:	the prepage state; its lock is held and a window is open
 *
 * Return: whether a file's work was queued.
 */
static bool prepage_file_start(struct prepage_mm *pm)
{
	struct prepage_file_mm *fm = prepage_file_mm(pm);
	struct prepage_file *f;
	bool queued = false;

	lockdep_assert_held(&pm->lock);

	WRITE_ONCE(fm->stop, 0);
	if (!prepage_file_plan(pm)) {
		prepage_nomem_stop(pm);
		return false;
	}
	/* Held while the works are queued: one may be done at once. */
	atomic_set(&fm->prepaging, 1);
	list_for_each_entry(f, &prepage_file_mm(pm)->table.files, node) {
		if (!f->plan.nr)
			continue;
		f->pass = 0;
		f->next = 0;
		f->nomem = false;
		atomic_inc(&fm->prepaging);
		/* Not pending: the last start's works are all done. */
		if (WARN_ON_ONCE(!kthread_queue_work(f->worker, &f->work)))
			atomic_dec(&fm->prepaging);
		else
			queued = true;
	}
	/* The last to be done says so, this start if they all are. */
	if (!atomic_dec_and_test(&fm->prepaging) || !queued)
		return queued;
	prepage_prepagers_done(pm, PREPAGE_SIDE_FILE);
	return true;
}

/**
 * prepage_file_stop() - tell the file prepagers to stop
 * @pm:	the prepage state; its lock is held
 *
 * Waits for none: a work queued or running stops at its next check
 * (each chunk it reads), and is done on its own.
 */
static void prepage_file_stop(struct prepage_mm *pm)
{
	lockdep_assert_held(&pm->lock);

	/* The core says why before it stops the prepagers. */
	WRITE_ONCE(prepage_file_mm(pm)->stop,
		   pm->stop_reason ?: PREPAGE_STOP_END);
}

/* Print the sizes of the file tables of @pm (its lock held, or NULL). */
static void prepage_file_sizes_show(struct seq_file *m, struct prepage_mm *pm)
{
	unsigned long files = 0, candidates = 0, targets = 0;
	struct prepage_file *f;

	if (pm && prepage_file_mm(pm)) {
		lockdep_assert_held(&pm->lock);
		files = prepage_file_mm(pm)->table.nr_files;
		list_for_each_entry(f, &prepage_file_mm(pm)->table.files, node) {
			candidates += prepage_extents_pages(&f->candidates);
			targets += prepage_extents_pages(&f->target);
		}
	}
	seq_printf(m, "files %lu\n", files);
	seq_printf(m, "file_candidate_pages %lu\n", candidates);
	seq_printf(m, "file_target_pages %lu\n", targets);
}

/*
 * Make @table (from prepage_file_table_parse()) the file tables of @pm,
 * whose lock is held and whose file prepagers are done. Return: the
 * tables it replaces.
 */
static void *prepage_file_table_swap(struct prepage_mm *pm, void *table)
{
	struct prepage_file_mm *fm = prepage_file_mm(pm);
	struct prepage_file_table *new = table, old;

	lockdep_assert_held(&pm->lock);

	prepage_file_window_discard(pm);
	prepage_file_plan_free(pm);
	prepage_file_table_init(&old);
	prepage_file_table_move(&old, &fm->table);
	prepage_file_attach(pm, new);
	prepage_file_table_move(&fm->table, new);
	prepage_stat_add(pm, PREPAGE_STAT_FILE_STALE, new->nr_stale);
	prepage_file_table_move(new, &old);
	return new;
}

static void *prepage_file_state_new(struct prepage_mm *pm)
{
	struct prepage_file_mm *fm;

	fm = kzalloc(sizeof(*fm), GFP_KERNEL_ACCOUNT);
	if (fm)
		prepage_file_table_init(&fm->table);
	return fm;
}

static void prepage_file_state_free(struct prepage_mm *pm)
{
	struct prepage_file_mm *fm = prepage_file_mm(pm);

	lockdep_assert_held(&pm->lock);

	/* Freed with the state only once its prepagers are done. */
	prepage_file_plan_free(pm);
	prepage_file_table_clear(&fm->table);
	kfree(fm);
}

/* ---- the hooks --------------------------------------------------------- */

/**
 * __prepage_file_access() - log file pages the current task accessed
 * @mapping:	the file's page cache
 * @index:	first page
 * @nr:		number of pages
 *
 * See prepage_file_access().
 */
void __prepage_file_access(struct address_space *mapping, pgoff_t index,
			   unsigned long nr)
{
	if (READ_ONCE(prepage_file_enabled))
		prepage_log(PREPAGE_LOG_FILE_ACCESS, mapping, index, nr);
}

/**
 * __prepage_file_mapped() - log file pages a fault mapped around another
 * @mapping:	the file's page cache
 * @index:	first page
 * @nr:		number of pages
 *
 * See prepage_file_mapped().
 */
void __prepage_file_mapped(struct address_space *mapping, pgoff_t index,
			   unsigned long nr)
{
	if (READ_ONCE(prepage_file_enabled))
		prepage_log(PREPAGE_LOG_FILE_MAPPED, mapping, index, nr);
}

/**
 * __prepage_file_added() - log a folio the current task added to the page
 * cache
 * @mapping:	the file's page cache
 * @folio:	the folio, locked, not on the LRU yet
 *
 * See prepage_file_added().
 */
void __prepage_file_added(struct address_space *mapping, struct folio *folio)
{
	/* Nothing to note while no window is open: no prepager runs then. */
	if (!READ_ONCE(prepage_file_enabled) || !prepage_windows_open())
		return;
	if (current->flags & PF_KTHREAD)
		prepage_file_worker_added(mapping, folio);
	else
		prepage_log(PREPAGE_LOG_FILE_ADDED, mapping, folio->index,
			    folio_nr_pages(folio));
}

/* ---- the backend ------------------------------------------------------- */

PREPAGE_SWITCH(file_enabled, enabled);
/* Pages; 0 reads every extent as its own I/O. */
PREPAGE_KNOB(merge_gap_pages, merge_gap_pages, 0, 1U << 20);
/* Pages; a file this large or larger gets the normal-weight prepager. */
PREPAGE_KNOB(big_file_pages, big_file_pages, 1, UINT_MAX);
/* Pages between the pages read first for the file system's block map. */
PREPAGE_KNOB(metadata_stride_pages, metadata_stride_pages, 1, UINT_MAX);
/* Extents; applies to tables loaded from now on. */
PREPAGE_KNOB(max_file_extents, max_extents, 1, 1U << 20);
/* The file precision below which a window did not pay; 0: never. */
PREPAGE_KNOB(file_min_precision_permille, min_precision_permille, 0, 1000);

static struct attribute *prepage_file_attrs[] = {
	&file_enabled_switch.attr.attr,
	&merge_gap_pages_knob.attr.attr,
	&big_file_pages_knob.attr.attr,
	&metadata_stride_pages_knob.attr.attr,
	&max_file_extents_knob.attr.attr,
	&file_min_precision_permille_knob.attr.attr,
	NULL,
};

static const struct attribute_group prepage_file_attr_group = {
	.attrs = prepage_file_attrs,
	.name = "file",
};

/* The target pages the file prepagers just started with, for the back-off. */
static unsigned long prepage_file_targets(struct prepage_mm *pm)
{
	lockdep_assert_held(&pm->lock);
	return prepage_file_mm(pm)->plan_pages;
}

static const struct prepage_ops prepage_file_ops = {
	.name		= "file",
	.side		= PREPAGE_SIDE_FILE,
	.enabled	= &prepage_file_enabled,
	.stat_prepaged	= PREPAGE_STAT_FILE_PREPAGED,
	.stat_hit	= PREPAGE_STAT_FILE_HIT,
	.stat_miss	= PREPAGE_STAT_FILE_MISS,
	.wait_kind	= PREPAGE_LOG_FILE_ADDED,
	.stat_sat_out	= PREPAGE_STAT_FILE_SAT_OUT,
	.min_precision	= &prepage_file_min_precision_permille,
	.hits_logged	= true,
	.targets	= prepage_file_targets,
	.attrs		= &prepage_file_attr_group,
	.workers_init	= prepage_file_workers_init,
	.workers_exit	= prepage_file_workers_exit,
	.state_new	= prepage_file_state_new,
	.state_free	= prepage_file_state_free,
	.start		= prepage_file_start,
	.stop		= prepage_file_stop,
	.window_close	= prepage_file_window_close,
	.window_discard	= prepage_file_window_discard,
	.table_owns	= prepage_file_table_owns,
	.table_new	= prepage_file_table_new,
	.table_parse	= prepage_file_table_parse,
	.table_swap	= prepage_file_table_swap,
	.table_free	= prepage_file_table_free,
	.table_show	= prepage_file_table_show,
	.sizes_show	= prepage_file_sizes_show,
};

static int __init prepage_file_init(void)
{
	return prepage_register_ops(&prepage_file_ops);
}
subsys_initcall(prepage_file_init);

#include "tests/file-kunit.h"
