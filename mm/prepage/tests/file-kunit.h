/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the accounting of a window on the file side: the log,
 * sorted and merged per file, turned into hits, misses, late and evicted
 * pages, and the target table learned from it. The files are empty shmem
 * files: a prepaged page the app did not use is not cached, so it counts
 * as evicted (demotion needs cached pages; the selftests cover it).
 */

#ifdef CONFIG_PREPAGE_KUNIT_TEST

#ifndef _PREPAGE_FILE_KUNIT_H
#define _PREPAGE_FILE_KUNIT_H

#include <kunit/test.h>
#include <linux/shmem_fs.h>

#include "prepage-kunit.h"

/* A state with no window, for the accounting only. */
static struct prepage_mm *prepage_test_pm(struct kunit *test)
{
	struct prepage_mm *pm = kunit_kzalloc(test, sizeof(*pm), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pm);
	mutex_init(&pm->lock);
	pm->side[PREPAGE_SIDE_FILE] = prepage_file_state_new(pm);
	KUNIT_ASSERT_NOT_NULL(test, pm->side[PREPAGE_SIDE_FILE]);
	return pm;
}

/* Free the file state of @pm, its table with it. */
static void prepage_test_pm_free(struct prepage_mm *pm)
{
	mutex_lock(&pm->lock);
	prepage_file_state_free(pm);
	pm->side[PREPAGE_SIDE_FILE] = NULL;
	mutex_unlock(&pm->lock);
}

/* A file of @pm's table: candidates 0-63, and the @n runs of @target. */
static struct prepage_file *prepage_test_file(struct kunit *test,
					      struct prepage_mm *pm,
					      const pgoff_t *target,
					      unsigned int n)
{
	struct prepage_file *f = kzalloc(sizeof(*f), GFP_KERNEL);
	struct file *file;

	KUNIT_ASSERT_NOT_NULL(test, f);
	file = shmem_file_setup("prepage-kunit", 64 * PAGE_SIZE, 0);
	if (IS_ERR(file)) {
		kfree(f);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, file);
	}
	f->file = file;
	f->pm = pm;
	list_add_tail(&f->node, &prepage_file_mm(pm)->table.files);
	prepage_file_mm(pm)->table.nr_files++;
	prepage_fill_set(test, &f->candidates, (pgoff_t []){ 0, 64 }, 1);
	prepage_fill_set(test, &f->target, target, n);
	return f;
}

/* Close @pm's window with @nr entries of @log; return its outcome. */
static struct prepage_outcome
prepage_test_window_close(struct kunit *test, struct prepage_mm *pm,
			  struct prepage_log_entry *log, unsigned int nr)
{
	struct prepage_outcome out = {};

	mutex_lock(&pm->lock);
	prepage_file_window_close(pm, log, nr, &out);
	mutex_unlock(&pm->lock);
	return out;
}

static void prepage_test_file_account(struct kunit *test)
{
	struct prepage_mm *pm = prepage_test_pm(test);
	struct prepage_file *f, *idle;
	struct prepage_outcome out;
	const void *key;

	/* Target 0-31 and 40-43; the engine prepaged 0-31 of it. */
	f = prepage_test_file(test, pm, (pgoff_t []){ 0, 32, 40, 4 }, 2);
	prepage_fill_set(test, &f->prepaged, (pgoff_t []){ 0, 32 }, 1);
	/* A file the app does not touch: its prepaged 0-7 go unused. */
	idle = prepage_test_file(test, pm, (pgoff_t []){ 0, 8 }, 1);
	prepage_fill_set(test, &idle->prepaged, (pgoff_t []){ 0, 8 }, 1);
	/* As the prepagers counted them, since the window opened. */
	atomic_long_set(&pm->stat[PREPAGE_STAT_FILE_PREPAGED], 32 + 8);
	key = f->file->f_mapping;
	{
		/* Out of order and split, as the hooks log them. */
		struct prepage_log_entry log[] = {
			{ key, 28, 4, PREPAGE_LOG_FILE_ADDED },
			{ key, 8, 8, PREPAGE_LOG_FILE_ACCESS },
			{ key, 50, 2, PREPAGE_LOG_FILE_ACCESS },
			{ key, 40, 4, PREPAGE_LOG_FILE_ADDED },
			{ key, 0, 8, PREPAGE_LOG_FILE_ACCESS },
			{ key, 28, 4, PREPAGE_LOG_FILE_ACCESS },
			{ key, 40, 4, PREPAGE_LOG_FILE_ACCESS },
		};

		out = prepage_test_window_close(test, pm, log,
						ARRAY_SIZE(log));
	}
	/* 0-15 and 28-31 were prepaged and used (28-31 evicted first). */
	KUNIT_EXPECT_EQ(test, prepage_stat_read(pm, PREPAGE_STAT_FILE_HIT), 20UL);
	/* The app read 28-31 and 40-43 into the cache itself. */
	KUNIT_EXPECT_EQ(test, prepage_stat_read(pm, PREPAGE_STAT_FILE_MISS), 8UL);
	/* 40-43: target pages the engine had not prepaged. */
	KUNIT_EXPECT_EQ(test, prepage_stat_read(pm, PREPAGE_STAT_FILE_LATE), 4UL);
	/* 28-31 read again, 16-27 gone unused; and the idle file's 0-7. */
	KUNIT_EXPECT_EQ(test, prepage_stat_read(pm, PREPAGE_STAT_FILE_EVICTED),
			4UL + 12 + 8);
	KUNIT_EXPECT_EQ(test, prepage_stat_read(pm, PREPAGE_STAT_FILE_DEMOTED), 0UL);
	/* The outcome the core judges the window by: the same counts. */
	KUNIT_EXPECT_EQ(test, out.prepaged, 40UL);
	KUNIT_EXPECT_EQ(test, out.hit, 20UL);
	KUNIT_EXPECT_EQ(test, out.miss, 8UL);
	KUNIT_EXPECT_EQ(test, out.refetched, 4UL);
	/* Used candidates join the target; prepaged pages not used leave. */
	prepage_expect_set(test, &f->target,
			   (pgoff_t []){ 0, 16, 28, 4, 40, 4, 50, 2 }, 4);
	prepage_expect_set(test, &idle->target, NULL, 0);
	KUNIT_EXPECT_EQ(test, f->prepaged.nr, 0U);
	KUNIT_EXPECT_EQ(test, idle->prepaged.nr, 0U);
	prepage_test_pm_free(pm);
}

/*
 * A window whose log overflowed may have used what looks unused: the
 * target keeps its prepaged pages; what was logged is still learned.
 */
static void prepage_test_file_log_dropped(struct kunit *test)
{
	struct prepage_mm *pm = prepage_test_pm(test);
	struct prepage_file *f;

	f = prepage_test_file(test, pm, (pgoff_t []){ 0, 16 }, 1);
	prepage_fill_set(test, &f->prepaged, (pgoff_t []){ 0, 16 }, 1);
	pm->log_dropped = true;
	{
		struct prepage_log_entry log[] = {
			{ f->file->f_mapping, 0, 4, PREPAGE_LOG_FILE_ACCESS },
			{ f->file->f_mapping, 32, 4, PREPAGE_LOG_FILE_ACCESS },
		};

		prepage_test_window_close(test, pm, log, ARRAY_SIZE(log));
	}
	KUNIT_EXPECT_EQ(test, prepage_stat_read(pm, PREPAGE_STAT_FILE_HIT), 4UL);
	KUNIT_EXPECT_EQ(test, prepage_stat_read(pm, PREPAGE_STAT_FILE_EVICTED), 12UL);
	prepage_expect_set(test, &f->target, (pgoff_t []){ 0, 16, 32, 4 }, 2);
	prepage_test_pm_free(pm);
}

static void prepage_test_readahead(struct readahead_control *ractl)
{
}

static const struct address_space_operations prepage_test_aops = {
	.readahead = prepage_test_readahead,
};

/*
 * Which files a table may name: regular files read through readahead
 * from a file system on a block device of its own, but FUSE on one; not
 * one without a block device (NFS, FUSE, overlayfs), whose reads may
 * wait on a server or a daemon without bound, nor a file whose pages
 * are unevictable, nor anything but a regular file.
 */
static void prepage_test_file_supported(struct kunit *test)
{
	struct super_block *sb = kunit_kzalloc(test, sizeof(*sb), GFP_KERNEL);
	struct address_space *mapping;
	struct inode *inode;

	mapping = kunit_kzalloc(test, sizeof(*mapping), GFP_KERNEL);
	inode = kunit_kzalloc(test, sizeof(*inode), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, sb && mapping && inode);
	mapping->a_ops = &prepage_test_aops;
	inode->i_mapping = mapping;
	inode->i_sb = sb;
	inode->i_mode = S_IFREG | 0644;
	/* Only compared with NULL. */
	sb->s_bdev = (struct block_device *)sb;
	sb->s_magic = EXT4_SUPER_MAGIC;
	KUNIT_EXPECT_TRUE(test, prepage_file_inode_supported(inode));

	sb->s_magic = FUSE_SUPER_MAGIC;		/* fuseblk */
	KUNIT_EXPECT_FALSE(test, prepage_file_inode_supported(inode));
	sb->s_bdev = NULL;			/* fuse */
	KUNIT_EXPECT_FALSE(test, prepage_file_inode_supported(inode));
	sb->s_magic = NFS_SUPER_MAGIC;
	KUNIT_EXPECT_FALSE(test, prepage_file_inode_supported(inode));

	sb->s_bdev = (struct block_device *)sb;
	sb->s_magic = EXT4_SUPER_MAGIC;
	mapping_set_unevictable(mapping);
	KUNIT_EXPECT_FALSE(test, prepage_file_inode_supported(inode));
	mapping_clear_unevictable(mapping);
	inode->i_mode = S_IFDIR | 0755;
	KUNIT_EXPECT_FALSE(test, prepage_file_inode_supported(inode));
	inode->i_mode = S_IFREG | 0644;
	mapping->a_ops = &empty_aops;
	KUNIT_EXPECT_FALSE(test, prepage_file_inode_supported(inode));
}

static struct kunit_case prepage_file_test_cases[] = {
	KUNIT_CASE(prepage_test_file_supported),
	KUNIT_CASE(prepage_test_file_account),
	KUNIT_CASE(prepage_test_file_log_dropped),
	{},
};

static struct kunit_suite prepage_file_test_suite = {
	.name = "prepage-file",
	.test_cases = prepage_file_test_cases,
};

kunit_test_suite(prepage_file_test_suite);

#endif /* _PREPAGE_FILE_KUNIT_H */

#endif /* CONFIG_PREPAGE_KUNIT_TEST */
