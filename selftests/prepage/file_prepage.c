// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for file prepaging: /proc/<pid>/prepage, prepage_table and
 * prepage_stat. Every count is exact: the test files are read with
 * readahead disabled (POSIX_FADV_RANDOM, MADV_RANDOM), mapped a page at
 * a time (no fault-around), evicted with POSIX_FADV_DONTNEED, and their
 * residency checked with mincore().
 *
 * Each test runs in its own process, so its prepage state starts empty.
 * The files must be on a file system whose page cache can be evicted
 * and read back (not tmpfs): PREPAGE_TESTDIR names a directory on one
 * (the test VM mounts an ext4 disk there); tests SKIP otherwise.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "prepage_util.h"

#define NR_PAGES	64
#define NO_EVICT	"test file pages cannot be evicted (tmpfs?): set PREPAGE_TESTDIR to a directory on a disk file system"

static long psz;

static unsigned char pattern(int page)
{
	return (unsigned char)(page * 7 + 1);
}

/* A file of @nr pages on the test file system, page i full of pattern(i). */
static int make_file(char *path, int nr)
{
	const char *dir = getenv("PREPAGE_TESTDIR");
	char *page = malloc(psz);
	int fd, i;

	if (!page)
		return -1;
	if (!dir)
		dir = "/tmp";
	snprintf(path, PATH_MAX, "%s/prepage.XXXXXX", dir);
	fd = mkstemp(path);
	for (i = 0; fd >= 0 && i < nr; i++) {
		memset(page, pattern(i), psz);
		if (write(fd, page, psz) != psz) {
			close(fd);
			fd = -1;
		}
	}
	free(page);
	if (fd >= 0 && (fsync(fd) ||
			posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Pages of [first, first + nr) of @fd in the page cache. */
static int resident(int fd, int first, int nr)
{
	unsigned char vec[NR_PAGES * 64];
	void *map;
	int i, n = 0;

	map = mmap(NULL, (first + nr) * psz, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -1;
	if (mincore(map, (first + nr) * psz, vec))
		n = -1;
	for (i = first; n >= 0 && i < first + nr; i++)
		n += vec[i] & 1;
	munmap(map, (first + nr) * psz);
	return n;
}

/*
 * Pages of [first, first + nr) in the page cache once @want of them are:
 * mincore() counts a page only when its read has completed, and the
 * prepagers only start the reads. Gives up after two seconds.
 */
static int resident_wait(int fd, int first, int nr, int want)
{
	int i, n = -1;

	for (i = 0; i < 400; i++) {
		n = resident(fd, first, nr);
		if (n == want)
			break;
		usleep(5000);
	}
	return n;
}

/* Drop @fd's pages from the page cache; false if they stay. */
static bool evict(int fd, int nr)
{
	fdatasync(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	return resident(fd, 0, nr) == 0;
}

/*
 * The test file of a fixture: NR_PAGES pages at @path, none of them
 * cached. Return: its descriptor; -1 if it cannot be made; -2 if its
 * page cache cannot be dropped here (the caller skips).
 */
static int fixture_file(char *path)
{
	int fd = make_file(path, NR_PAGES);

	if (fd >= 0 && !evict(fd, NR_PAGES)) {
		close(fd);
		unlink(path);
		return -2;
	}
	return fd;
}

static void fixture_file_close(int fd, const char *path)
{
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
}

/*
 * The start of a fixture with a test file: prepage enabled (its
 * settings restored by the teardown), then the file of fixture_file() at
 * @path, in *@fd (-1 if it cannot be made), and, if @cg is not NULL, a
 * memory cgroup of its own for the test (memcg_enter() into @cg, of
 * @size bytes). Return: NULL, or why the test is skipped, with all of
 * it undone already (a skipped setup has no teardown).
 */
static const char *setup_file_fixture(char *path, int *fd, char *cg,
				      size_t size)
{
	const char *why;

	psz = sysconf(_SC_PAGESIZE);
	why = setup_prepage();
	if (why)
		return why;
	*fd = fixture_file(path);
	if (*fd == -2) {
		settings_restore();
		return NO_EVICT;
	}
	if (!cg || *fd < 0)
		return NULL;
	why = memcg_enter(cg, size);
	if (why) {
		cg[0] = '\0';
		settings_restore();
		fixture_file_close(*fd, path);
	}
	return why;
}

/*
 * Touch pages [first, first + nr) through mappings, one fault each; false
 * on bad data. Each page is mapped alone: fault-around maps the cached
 * pages next to a fault, as far as the page table and the VMA go, and
 * the next touches would then fault or not depending on where mmap()
 * puts the mapping.
 */
static bool touch_mmap(int fd, int first, int nr)
{
	bool ok = true;
	char *map;
	int i;

	for (i = 0; ok && i < nr; i++) {
		map = mmap(NULL, psz, PROT_READ, MAP_SHARED, fd,
			   (first + i) * psz);
		if (map == MAP_FAILED)
			return false;
		/* No read-around of the pages next to it, if not cached. */
		madvise(map, psz, MADV_RANDOM);
		ok = __atomic_load_n(map, __ATOMIC_RELAXED) ==
		     (char)pattern(first + i);
		munmap(map, psz);
	}
	return ok;
}

/* Read pages [first, first + nr) with pread(), one page at a time. */
static bool touch_read(int fd, int first, int nr)
{
	unsigned char *buf = malloc(psz);
	bool ok = buf;
	int i;

	for (i = first; ok && i < first + nr; i++)
		ok = pread(fd, buf, psz, i * psz) == psz &&
		     buf[0] == pattern(i) && buf[psz - 1] == pattern(i);
	free(buf);
	return ok;
}

static char *table_line(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return buf;
}

/*
 * A test file of @nr pages, none of them cached, in @path, and a table
 * of all of it loaded. Return: its descriptor; -1 if it could not be
 * made or loaded; -2 if its pages cannot be evicted. A file that was
 * made is removed on a failure.
 */
static int loaded_file(char *path, long nr)
{
	char line[PATH_MAX + 64];
	int fd = make_file(path, nr);

	if (fd < 0)
		return -1;
	if (!evict(fd, nr)) {
		fixture_file_close(fd, path);
		return -2;
	}
	table_line(line, sizeof(line), "%s 0:%ld\n", path, nr * psz);
	if (load(line)) {
		fixture_file_close(fd, path);
		return -1;
	}
	return fd;
}

FIXTURE(file)
{
	char path[PATH_MAX];
	char line[PATH_MAX + 256];
	int fd;
};

FIXTURE_SETUP(file)
{
	const char *why = setup_file_fixture(self->path, &self->fd, NULL, 0);

	if (why)
		SKIP(return, "%s", why);
	SETUP_ASSERT(self->fd >= 0);
}

FIXTURE_TEARDOWN(file)
{
	settings_restore();
	fixture_file_close(self->fd, self->path);
}

/* Tests that make their own files: prepage enabled, settings restored. */
FIXTURE(prepage)
{
};

FIXTURE_SETUP(prepage)
{
	const char *why = setup_prepage();

	psz = sysconf(_SC_PAGESIZE);
	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(prepage)
{
	settings_restore();
}

/*
 * The table covers pages 0-31; the app uses 0-15 through a mapping and
 * 16-23 through read(): 32 prepaged, 24 hits, no miss.
 */
TEST_F(file, hit)
{
	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:%ld\n", self->path, 32 * psz)));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	EXPECT_EQ(32, resident_wait(self->fd, 0, 32, 32));
	EXPECT_EQ(0, resident(self->fd, 32, 32));
	EXPECT_EQ(32, stat_of("file_prepaged"));

	ASSERT_TRUE(touch_mmap(self->fd, 0, 16));
	ASSERT_TRUE(touch_read(self->fd, 16, 8));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(32, stat_of("file_prepaged"));
	EXPECT_EQ(24, stat_of("file_hit"));
	EXPECT_EQ(0, stat_of("file_miss"));
	EXPECT_EQ(750, stat_of("file_precision_permille"));
	EXPECT_EQ(1000, stat_of("file_recall_permille"));
	EXPECT_EQ(1, stat_of("switches"));
	/* 24-31: prepaged, cached and not used */
	EXPECT_EQ(8, stat_of("file_demoted"));
	EXPECT_EQ(0, stat_of("file_evicted"));
}

/*
 * As hit, and the app also reads 40-47, which no table has: 8 misses.
 * The target learns only candidates it used: 0-23 (24-31 were prepaged
 * and not used, 40-47 are no candidates).
 */
TEST_F(file, miss)
{
	char buf[PATH_MAX + 256], want[PATH_MAX + 256];
	struct stat st;

	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:%ld\n", self->path, 32 * psz)));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	ASSERT_TRUE(touch_mmap(self->fd, 0, 16));
	ASSERT_TRUE(touch_read(self->fd, 16, 8));
	ASSERT_TRUE(touch_read(self->fd, 40, 8));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(32, stat_of("file_prepaged"));
	EXPECT_EQ(24, stat_of("file_hit"));
	EXPECT_EQ(8, stat_of("file_miss"));
	/* 40-47 are no target pages: missed, not late. */
	EXPECT_EQ(0, stat_of("file_late"));
	EXPECT_EQ(750, stat_of("file_recall_permille"));

	ASSERT_EQ(0, fstat(self->fd, &st));
	snprintf(want, sizeof(want),
		 "%s 0:%ld ino=%lu size=%ld ctime=%ld.%09ld target=0:%ld\n",
		 self->path, 32 * psz, (unsigned long)st.st_ino,
		 (long)st.st_size, (long)st.st_ctim.tv_sec,
		 (long)st.st_ctim.tv_nsec, 24 * psz);
	ASSERT_LT(0, dump(buf, sizeof(buf)));
	EXPECT_STREQ(want, buf);
	EXPECT_EQ(24, read_key("/proc/self/prepage", "file_target_pages"));
}

/*
 * Pages that fault-around maps are no accesses. The table covers pages
 * 0-31, all prepaged, mapped as one range: one touch of page 0 maps the
 * cached pages after it as far as fault-around goes (0 to M-1), but the
 * app faulted on page 0 only: one hit. The mapped pages may have been
 * used without a fault, so they stay in the target, and are not demoted
 * while mapped; the target loses 32-M. Pages 48-63 are not cached: a
 * touch of 48 reads the pages around it, and the fault, retried once
 * they are read, maps those after it too: one miss, whatever it mapped.
 */
TEST_F(file, fault_around)
{
	char *map, *far;
	int m, n;

	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:%ld\n", self->path, 32 * psz)));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	EXPECT_EQ(32, resident_wait(self->fd, 0, 32, 32));
	EXPECT_EQ(0, resident(self->fd, 48, 16));
	map = mmap(NULL, 32 * psz, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	far = mmap(NULL, 16 * psz, PROT_READ, MAP_SHARED, self->fd, 48 * psz);
	ASSERT_NE(MAP_FAILED, far);
	ASSERT_EQ((char)pattern(0), __atomic_load_n(map, __ATOMIC_RELAXED));
	m = pagemap_count(map, 32, PM_PRESENT);
	ASSERT_EQ((char)pattern(48), __atomic_load_n(far, __ATOMIC_RELAXED));
	n = pagemap_count(far, 16, PM_PRESENT);
	ASSERT_EQ(0, ctl("end"));
	munmap(map, 32 * psz);
	munmap(far, 16 * psz);
	if (m < 2)
		SKIP(return, "fault-around mapped no page next to a fault");
	TH_LOG("fault-around mapped pages 0-%d and 48-%d", m - 1, 48 + n - 1);
	EXPECT_EQ(32, stat_of("file_prepaged"));
	EXPECT_EQ(1, stat_of("file_hit"));
	EXPECT_EQ(1, stat_of("file_miss"));
	EXPECT_EQ(32 - m, stat_of("file_demoted"));
	EXPECT_EQ(m, read_key("/proc/self/prepage", "file_target_pages"));
}

/*
 * Pages prepaged but not used in a switch leave the target, splitting
 * it; a candidate the app then needs again (a miss) comes back.
 */
TEST_F(file, eviction)
{
	char buf[PATH_MAX + 256], *target;

	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:%ld\n", self->path, 48 * psz)));
	/* Switch 1: only 0-7 and 32-39 are used. */
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	ASSERT_TRUE(touch_read(self->fd, 0, 8));
	ASSERT_TRUE(touch_read(self->fd, 32, 8));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(48, stat_of("file_prepaged"));
	EXPECT_EQ(16, stat_of("file_hit"));
	ASSERT_LT(0, dump(buf, sizeof(buf)));
	target = strstr(buf, " target=");
	ASSERT_NE(NULL, target);
	table_line(self->line, sizeof(self->line), " target=0:%ld,%ld:%ld\n",
		   8 * psz, 32 * psz, 8 * psz);
	EXPECT_STREQ(self->line, target);

	/*
	 * Switch 2: only the 16 target pages come in (24 pages apart: two
	 * I/Os); the app needs 8-15 again, a miss, and they are relearned.
	 */
	ASSERT_TRUE(evict(self->fd, NR_PAGES));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	EXPECT_EQ(16, resident_wait(self->fd, 0, NR_PAGES, 16));
	EXPECT_EQ(0, resident(self->fd, 8, 24));
	ASSERT_TRUE(touch_read(self->fd, 0, 16));
	ASSERT_TRUE(touch_read(self->fd, 32, 8));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(64, stat_of("file_prepaged"));
	EXPECT_EQ(32, stat_of("file_hit"));
	EXPECT_EQ(8, stat_of("file_miss"));
	ASSERT_LT(0, dump(buf, sizeof(buf)));
	target = strstr(buf, " target=");
	ASSERT_NE(NULL, target);
	table_line(self->line, sizeof(self->line), " target=0:%ld,%ld:%ld\n",
		   16 * psz, 32 * psz, 8 * psz);
	EXPECT_STREQ(self->line, target);
}

/* Only the app's own tasks count: another process's reads do not. */
TEST_F(file, other_process)
{
	pid_t pid;
	int status;

	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:%ld\n", self->path, 32 * psz)));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(touch_read(self->fd, 0, 32) && touch_read(self->fd, 40, 8) ?
		      0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(32, stat_of("file_prepaged"));
	EXPECT_EQ(0, stat_of("file_hit"));
	EXPECT_EQ(0, stat_of("file_miss"));
	EXPECT_EQ(0, read_key("/proc/self/prepage", "file_target_pages"));
}

FIXTURE(merge)
{
	char path[PATH_MAX];
	char line[PATH_MAX + 256];
	int fd;
};

FIXTURE_VARIANT(merge)
{
	int gap;		/* pages between the two extents */
	int prepaged;		/* pages read */
};

/* 10 pages apart, closer than file/merge_gap_pages: one I/O, the gap read. */
FIXTURE_VARIANT_ADD(merge, gap10) { .gap = 10, .prepaged = 26 };
/* 20 pages apart: two I/Os, nothing between them read. */
FIXTURE_VARIANT_ADD(merge, gap20) { .gap = 20, .prepaged = 16 };

FIXTURE_SETUP(merge)
{
	const char *why = setup_file_fixture(self->path, &self->fd, NULL, 0);

	if (why)
		SKIP(return, "%s", why);
	SETUP_ASSERT(self->fd >= 0);
	SETUP_ASSERT(!knob_set("file/merge_gap_pages", 16));
}

FIXTURE_TEARDOWN(merge)
{
	settings_restore();
	fixture_file_close(self->fd, self->path);
}

/*
 * The pages between two extents are read with them only if both need a
 * read: with both extents cached, a window reads nothing (gap10 would
 * read the 10 pages between them); with the first one cached, it reads
 * the second one alone. (gap20, whose extents are not merged, is the
 * control: it reads the same either way.)
 */
TEST_F(merge, cached)
{
	int second = 8 + variant->gap;

	ASSERT_TRUE(touch_read(self->fd, 0, 8));
	ASSERT_TRUE(touch_read(self->fd, second, 8));
	ASSERT_EQ(16, resident(self->fd, 0, NR_PAGES));
	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:%ld,%ld:%ld\n", self->path, 8 * psz,
				     second * psz, 8 * psz)));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	EXPECT_EQ(0, stat_of("file_prepaged"));
	EXPECT_EQ(16, resident(self->fd, 0, NR_PAGES));
	ASSERT_EQ(0, ctl("end"));

	ASSERT_EQ(0, posix_fadvise(self->fd, second * psz, 8 * psz,
				   POSIX_FADV_DONTNEED));
	ASSERT_EQ(8, resident(self->fd, 0, NR_PAGES));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	EXPECT_EQ(8, stat_of("file_prepaged"));
	EXPECT_EQ(16, resident_wait(self->fd, 0, NR_PAGES, 16));
	EXPECT_EQ(8, resident(self->fd, second, 8));
	ASSERT_EQ(0, ctl("end"));
}

TEST_F(merge, extents)
{
	int second = 8 + variant->gap;

	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:%ld,%ld:%ld\n", self->path, 8 * psz,
				     second * psz, 8 * psz)));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	EXPECT_EQ(variant->prepaged, stat_of("file_prepaged"));
	EXPECT_EQ(variant->prepaged,
		  resident_wait(self->fd, 0, NR_PAGES, variant->prepaged));
	EXPECT_EQ(8, resident(self->fd, 0, 8));
	EXPECT_EQ(8, resident(self->fd, second, 8));
	EXPECT_EQ(variant->prepaged - 16, resident(self->fd, 8, variant->gap));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(0, stat_of("file_hit"));
	EXPECT_EQ(0, stat_of("file_miss"));
}

/*
 * The target pages a window reads are for the switch happening now, and
 * go on the LRU active; the pages read with them between two extents
 * are not wanted, and stay inactive, where readahead puts its pages. On
 * the classic LRU (MGLRU's generations are not in /proc/kpageflags), the
 * pages mapped by read faults, which do not mark them accessed; then
 * what the faults read is checked against read(2).
 */
TEST_F(merge, active)
{
	int second = 8 + variant->gap, i;
	long sum = 0;
	char *map, c;

	if (!access(LRU_GEN, F_OK))
		ASSERT_EQ(0, setting_write(LRU_GEN, "0"));
	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:%ld,%ld:%ld\n", self->path, 8 * psz,
				     second * psz, 8 * psz)));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	ASSERT_EQ(variant->prepaged,
		  resident_wait(self->fd, 0, NR_PAGES, variant->prepaged));
	map = mmap(NULL, NR_PAGES * psz, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	for (i = 0; i < second + 8; i++)
		sum += map[i * psz];
	EXPECT_EQ(8, kpf_count(map, 0, 8, KPF_ACTIVE));
	EXPECT_EQ(8, kpf_count(map, second, 8, KPF_ACTIVE));
	EXPECT_EQ(0, kpf_count(map, 8, variant->gap, KPF_ACTIVE));
	for (i = 0; i < second + 8; i++) {
		ASSERT_EQ(1, pread(self->fd, &c, 1, i * psz));
		sum -= c;
	}
	EXPECT_EQ(0, sum);
	munmap(map, NR_PAGES * psz);
	ASSERT_EQ(0, ctl("end"));
}

FIXTURE(stale)
{
	char path[PATH_MAX];
	char line[2 * PATH_MAX + 256];
	int fd;
};

FIXTURE_VARIANT(stale)
{
	const char *field;	/* identity field to get wrong */
};

FIXTURE_VARIANT_ADD(stale, ctime) { .field = "ctime" };
FIXTURE_VARIANT_ADD(stale, size) { .field = "size" };
FIXTURE_VARIANT_ADD(stale, ino) { .field = "ino" };
/* The file's directory was renamed: a line of the table names no file. */
FIXTURE_VARIANT_ADD(stale, path) { .field = "path" };
FIXTURE_VARIANT_ADD(stale, none) { .field = NULL };

FIXTURE_SETUP(stale)
{
	const char *why = setup_file_fixture(self->path, &self->fd, NULL, 0);

	if (why)
		SKIP(return, "%s", why);
	SETUP_ASSERT(self->fd >= 0);
}

FIXTURE_TEARDOWN(stale)
{
	settings_restore();
	fixture_file_close(self->fd, self->path);
}

/*
 * A line whose file changed since the profile (as after an OTA update)
 * is dropped and counted, and nothing is prepaged for it; with the right
 * identity ("none" gets nothing wrong) the line loads. A line whose file
 * is gone ("path": an app update renamed its directory) is dropped and
 * counted the same way, and the table's other lines load.
 */
TEST_F(stale, identity)
{
	const char *f = variant->field;
	bool wrong = f, gone = f && !strcmp(f, "path");
	char first[PATH_MAX + 64] = "";
	struct stat st;

	ASSERT_EQ(0, fstat(self->fd, &st));
	if (gone) {
		table_line(first, sizeof(first), "%s.old/%s 0:%ld\n",
			   self->path, "gone", 32 * psz);
		wrong = false;
	}
	table_line(self->line, sizeof(self->line),
		   "%s%s 0:%ld ino=%lu size=%ld ctime=%ld.%09ld\n", first,
		   self->path, 32 * psz,
		   (unsigned long)st.st_ino + (wrong && !strcmp(f, "ino")),
		   (long)st.st_size + (wrong && !strcmp(f, "size")) * psz,
		   (long)st.st_ctim.tv_sec,
		   ((long)st.st_ctim.tv_nsec + (wrong && !strcmp(f, "ctime"))) %
		   1000000000);
	ASSERT_EQ(0, load(self->line));
	EXPECT_EQ(wrong || gone, stat_of("file_stale"));
	EXPECT_EQ(!wrong, read_key("/proc/self/prepage", "files"));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(wrong ? 0 : 32, stat_of("file_prepaged"));
	EXPECT_EQ(wrong ? 0 : 32,
		  resident_wait(self->fd, 0, NR_PAGES, wrong ? 0 : 32));
}

/* dump -> write back -> dump is identical, for two files. */
TEST_F(file, round_trip)
{
	char first[2 * PATH_MAX + 512], second[2 * PATH_MAX + 512];
	char other[PATH_MAX], want[2 * PATH_MAX + 512];
	struct stat st, ost;
	int ofd;

	ofd = make_file(other, 8);
	ASSERT_LE(0, ofd);
	ASSERT_EQ(0, fstat(self->fd, &st));
	ASSERT_EQ(0, fstat(ofd, &ost));
	snprintf(first, sizeof(first), "%s 0:%ld target=0:%ld\n%s 0:%ld,%ld:%ld\n",
		 self->path, 32 * psz, 16 * psz, other, 2 * psz, 4 * psz, psz);
	ASSERT_EQ(0, load(first));
	ASSERT_LT(0, dump(first, sizeof(first)));
	snprintf(want, sizeof(want),
		 "%s 0:%ld ino=%lu size=%ld ctime=%ld.%09ld target=0:%ld\n"
		 "%s 0:%ld,%ld:%ld ino=%lu size=%ld ctime=%ld.%09ld target=0:%ld,%ld:%ld\n",
		 self->path, 32 * psz, (unsigned long)st.st_ino,
		 (long)st.st_size, (long)st.st_ctim.tv_sec,
		 (long)st.st_ctim.tv_nsec, 16 * psz,
		 other, 2 * psz, 4 * psz, psz, (unsigned long)ost.st_ino,
		 (long)ost.st_size, (long)ost.st_ctim.tv_sec,
		 (long)ost.st_ctim.tv_nsec, 2 * psz, 4 * psz, psz);
	EXPECT_STREQ(want, first);

	ASSERT_EQ(0, ctl("reset"));
	ASSERT_EQ(0, dump(second, sizeof(second)));
	ASSERT_EQ(0, load(first));
	ASSERT_LT(0, dump(second, sizeof(second)));
	EXPECT_STREQ(first, second);

	/* An empty target survives the trip too. */
	snprintf(first, sizeof(first), "%s 0:%ld target=none\n", other, psz);
	ASSERT_EQ(0, load(first));
	ASSERT_LT(0, dump(first, sizeof(first)));
	EXPECT_NE(NULL, strstr(first, " target=none\n"));
	ASSERT_EQ(0, load(first));
	ASSERT_LT(0, dump(second, sizeof(second)));
	EXPECT_STREQ(first, second);
	close(ofd);
	unlink(other);
}

/*
 * White space and backslashes in a path are octal escapes in a table, in
 * both directions, so that a dump of any path loads back.
 */
TEST_F(file, escaped_path)
{
	char named[PATH_MAX], esc[2 * PATH_MAX], buf[2 * PATH_MAX + 256];

	ASSERT_GT(sizeof(self->path), snprintf(named, sizeof(named),
					       "%s a\tb\\c", self->path));
	ASSERT_EQ(0, rename(self->path, named));
	memcpy(self->path, named, strlen(named) + 1);
	/* The fixture's name, then the escaped tail. */
	snprintf(esc, sizeof(esc), "%.*s\\040a\\011b\\134c",
		 (int)(strchr(named, ' ') - named), named);
	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:%ld\n", esc, psz)));
	ASSERT_LT(0, dump(buf, sizeof(buf)));
	table_line(self->line, sizeof(self->line), "%s 0:%ld ", esc, psz);
	EXPECT_EQ(0, strncmp(buf, self->line, strlen(self->line)))
		TH_LOG("dump: %s", buf);
	ASSERT_EQ(0, ctl("reset"));
	ASSERT_EQ(0, load(buf));
	EXPECT_EQ(1, read_key("/proc/self/prepage", "files"));

	/* An escaped NUL would cut the path short. */
	EXPECT_EQ(-EINVAL, load(table_line(self->line, sizeof(self->line),
					   "%s\\000x 0:%ld\n", esc, psz)));
	/* An unescaped name with white space is two fields. */
	EXPECT_EQ(-EINVAL, load(table_line(self->line, sizeof(self->line),
					   "%s 0:%ld\n", named, psz)));
	EXPECT_EQ(1, read_key("/proc/self/prepage", "files"));
}

/*
 * A table is one write on an open file, whatever was read from it
 * before; a second write on the same file (the rest of a table split
 * over writes) is refused and changes nothing, while one after a failed
 * write is taken. The tables a write has no lines for stay.
 */
TEST_F(file, one_write)
{
	char buf[PATH_MAX + 256];
	char *anon;
	int fd;

	anon = mmap(NULL, psz, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, anon);
	fd = open("/proc/self/prepage_table", O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, read(fd, buf, sizeof(buf)));
	/* A bad line: nothing loaded, the file can still take a table. */
	table_line(self->line, sizeof(self->line), "%s 0:%ld,\n", self->path,
		   psz);
	EXPECT_EQ(-1, write(fd, self->line, strlen(self->line)));
	EXPECT_EQ(EINVAL, errno);
	table_line(self->line, sizeof(self->line), "%s 0:%ld\n", self->path,
		   psz);
	EXPECT_EQ(strlen(self->line), write(fd, self->line, strlen(self->line)));
	table_line(self->line, sizeof(self->line), "%s 0:%ld\n", self->path,
		   2 * psz);
	EXPECT_EQ(-1, write(fd, self->line, strlen(self->line)));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
	EXPECT_EQ(1, read_key("/proc/self/prepage", "file_candidate_pages"));

	/* Anon lines only: the file table stays. */
	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "anon %p:1 target=0 timeout=5\n", anon)));
	EXPECT_EQ(1, read_key("/proc/self/prepage", "files"));
	EXPECT_EQ(1, read_key("/proc/self/prepage", "file_candidate_pages"));
	EXPECT_EQ(1, read_key("/proc/self/prepage", "anon_candidate_pages"));
	/* File lines only: the anonymous table stays. */
	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:%ld\n", self->path, 2 * psz)));
	EXPECT_EQ(2, read_key("/proc/self/prepage", "file_candidate_pages"));
	EXPECT_EQ(1, read_key("/proc/self/prepage", "anon_candidate_pages"));
	munmap(anon, psz);
}

FIXTURE(bad)
{
	char path[PATH_MAX];
	char before[PATH_MAX + 256];
	int fd;
};

FIXTURE_VARIANT(bad)
{
	const char *file;	/* prepage or prepage_table */
	const char *fmt;	/* what is written; %s is the test file */
	int err;
	int max_extents;	/* file/max_extents for the test, or 0 */
	bool huge;		/* write more than the largest table */
};

FIXTURE_VARIANT_ADD(bad, unknown_verb) {
	.file = "prepage",
	.fmt = "begin",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, verb_suffix) {
	.file = "prepage",
	.fmt = "startx",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, empty_verb) {
	.file = "prepage",
	.fmt = "\n",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, no_ranges) {
	.file = "prepage_table",
	.fmt = "%s\n",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, malformed_range) {
	.file = "prepage_table",
	.fmt = "%s 0-4096\n",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, unaligned_offset) {
	.file = "prepage_table",
	.fmt = "%s 100:4096\n",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, unaligned_length) {
	.file = "prepage_table",
	.fmt = "%s 0:4000\n",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, empty_range) {
	.file = "prepage_table",
	.fmt = "%s 0:0\n",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, overflow) {
	.file = "prepage_table",
	.fmt = "%s 0xfffffffffffff000:0x2000\n",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, trailing_comma) {
	.file = "prepage_table",
	.fmt = "%s 0:4096,\n",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, relative_path) {
	.file = "prepage_table",
	.fmt = "prepage.table 0:4096\n",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, directory) {
	.file = "prepage_table",
	.fmt = "/ 0:4096\n",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, unknown_field) {
	.file = "prepage_table",
	.fmt = "%s 0:4096 color=blue\n",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, repeated_field) {
	.file = "prepage_table",
	.fmt = "%s 0:4096 ino=1 ino=1\n",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, bad_ctime) {
	.file = "prepage_table",
	.fmt = "%s 0:4096 ctime=12\n",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, short_ctime) {
	.file = "prepage_table",
	.fmt = "%s 0:4096 ctime=1700000000.5\n",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, target_not_candidate) {
	.file = "prepage_table",
	.fmt = "%s 0:4096 target=8192:4096\n",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, same_file_twice) {
	.file = "prepage_table",
	.fmt = "%1$s 0:4096\n%1$s 8192:4096\n",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, good_then_bad) {
	.file = "prepage_table",
	.fmt = "%1$s 0:4096\n%1$s\n",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, too_many_extents) {
	.file = "prepage_table",
	.fmt = "%s 0:4096,8192:4096,16384:4096,24576:4096,32768:4096\n",
	.err = ENOSPC,
	.max_extents = 4,
};

/* Ranges count, merged or not: the work of a parse is bounded. */
FIXTURE_VARIANT_ADD(bad, repeated_ranges) {
	.file = "prepage_table",
	.fmt = "%s 0:4096,0:4096,0:4096,0:4096,0:4096\n",
	.err = ENOSPC,
	.max_extents = 4,
};

/* Decimal or 0x: 010000 is ten thousand, not a page in octal. */
FIXTURE_VARIANT_ADD(bad, octal) {
	.file = "prepage_table",
	.fmt = "%s 0:010000\n",
	.err = EINVAL,
};

/* An empty table would drop the tables silently: that is "reset". */
FIXTURE_VARIANT_ADD(bad, empty_table) {
	.file = "prepage_table",
	.fmt = "\n\n",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, procfs_file) {
	.file = "prepage_table",
	.fmt = "/proc/self/status 0:4096\n",
	.err = EINVAL,
};

FIXTURE_VARIANT_ADD(bad, too_big) {
	.file = "prepage_table",
	.fmt = "",
	.err = E2BIG,
	.huge = true,
};

FIXTURE_SETUP(bad)
{
	char line[PATH_MAX + 64];
	const char *why;

	psz = sysconf(_SC_PAGESIZE);
	why = setup_prepage();
	if (why)
		SKIP(return, "%s", why);
	self->fd = make_file(self->path, NR_PAGES);
	SETUP_ASSERT(self->fd >= 0);
	/* The table each bad write must leave alone. */
	snprintf(line, sizeof(line), "%s 0:%ld target=0:%ld\n", self->path,
		 8 * psz, 4 * psz);
	SETUP_ASSERT(!load(line));
	SETUP_ASSERT(dump(self->before, sizeof(self->before)) > 0);
	if (variant->max_extents)
		SETUP_ASSERT(!knob_set("file/max_extents", variant->max_extents));
}

FIXTURE_TEARDOWN(bad)
{
	settings_restore();
	fixture_file_close(self->fd, self->path);
}

TEST_F(bad, input)
{
	char path[64], after[PATH_MAX + 256], *buf;
	size_t len;

	if (variant->huge) {
		len = (4 << 20) + 1;
		buf = malloc(len);
		ASSERT_NE(NULL, buf);
		memset(buf, '\n', len);
	} else {
		len = strlen(variant->fmt) + 2 * PATH_MAX;
		buf = malloc(len);
		ASSERT_NE(NULL, buf);
		snprintf(buf, len, variant->fmt, self->path);
		len = strlen(buf);
	}
	snprintf(path, sizeof(path), "/proc/self/%s", variant->file);
	EXPECT_EQ(-variant->err, write_file(path, buf, len));
	free(buf);

	ASSERT_LT(0, dump(after, sizeof(after)));
	EXPECT_STREQ(self->before, after);
	EXPECT_EQ(0, stat_of("file_stale"));
	EXPECT_EQ(0, stat_of("switches"));
	ASSERT_LT(0, read_file("/proc/self/prepage", after, sizeof(after)));
	EXPECT_EQ(0, strncmp(after, "state idle\n", 11));
}

struct caps {
	struct __user_cap_header_struct hdr;
	struct __user_cap_data_struct data[2];
};

/*
 * The tables and counters reveal page cache residency: another user may
 * neither read nor write them, and every reader and writer needs
 * CAP_SYS_NICE, also over its own process; with it and ptrace read
 * access, a manager of another user needs nothing more.
 */
TEST_F(prepage, permissions)
{
	char path[3][64];
	pid_t parent = getpid(), pid;
	int status, i;

	if (geteuid())
		SKIP(return, "needs root to switch users");
	snprintf(path[0], sizeof(path[0]), "/proc/%d/prepage", parent);
	snprintf(path[1], sizeof(path[1]), "/proc/%d/prepage_table", parent);
	snprintf(path[2], sizeof(path[2]), "/proc/%d/prepage_stat", parent);

	/* Another user: no access at all. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setgid(65534) || setuid(65534))
			_exit(10);
		/* Keep our own /proc files ours after the uid change. */
		prctl(PR_SET_DUMPABLE, 1);
		for (i = 0; i < 3; i++) {
			int fd = open(path[i], i == 2 ? O_RDONLY : O_WRONLY);

			if (fd >= 0 || (errno != EACCES && errno != EPERM))
				_exit(20 + i);
			fd = open(path[i], O_RDONLY);
			if (fd >= 0 || (errno != EACCES && errno != EPERM))
				_exit(30 + i);
		}
		/*
		 * Not even its own: a table and file_prepaged would tell it
		 * which pages of any file it can read are cached.
		 */
		if (write_str("/proc/self/prepage", "start") != -EPERM)
			_exit(40);
		if (write_str("/proc/self/prepage_table", "/ 0:4096\n") != -EPERM)
			_exit(41);
		/*
		 * Nor the system's sums: around another app's window they
		 * are that window's counts.
		 */
		if (open(SYSFS "stat", O_RDONLY) >= 0 || errno != EACCES)
			_exit(42);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status) TH_LOG("unprivileged child failed at step %d",
				    WEXITSTATUS(status));

	/*
	 * Same user without CAP_SYS_NICE, its own process included: may
	 * neither read nor write. Diffing its own table dumps or
	 * file_prepaged across a switch would tell it which pages of files
	 * it may only read were cached when the switch started.
	 */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct caps c = { .hdr = { .version = _LINUX_CAPABILITY_VERSION_3 } };
		char self_path[64];

		if (syscall(SYS_capget, &c.hdr, c.data))
			_exit(10);
		c.data[CAP_TO_INDEX(CAP_SYS_NICE)].effective &=
			~CAP_TO_MASK(CAP_SYS_NICE);
		c.data[CAP_TO_INDEX(CAP_SYS_NICE)].permitted &=
			~CAP_TO_MASK(CAP_SYS_NICE);
		if (syscall(SYS_capset, &c.hdr, c.data))
			_exit(11);
		for (i = 0; i < 3; i++) {
			const char *name = strrchr(path[i], '/') + 1;
			int fd = open(path[i], O_RDONLY);

			if (fd >= 0 || errno != EPERM)
				_exit(20 + i);
			snprintf(self_path, sizeof(self_path), "/proc/self/%s",
				 name);
			fd = open(self_path, O_RDONLY);
			if (fd >= 0 || errno != EPERM)
				_exit(30 + i);
		}
		if (write_str(path[0], "start") != -EPERM)
			_exit(13);
		if (write_str(path[1], "/ 0:4096\n") != -EPERM)
			_exit(14);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status) TH_LOG("child without CAP_SYS_NICE failed at step %d",
				    WEXITSTATUS(status));
	/* Nothing the children did reached the parent. */
	EXPECT_EQ(0, read_key("/proc/self/prepage_stat", "switches"));

	/*
	 * A manager of another user, as the ActivityManager (the system
	 * user) is of the apps: CAP_SYS_NICE and ptrace read access, but no
	 * DAC override. The files are not the manager's, and it may use
	 * them all the same: the checks are those of their open, not the
	 * mode (as timerslack_ns's).
	 */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct caps c = { .hdr = { .version = _LINUX_CAPABILITY_VERSION_3 } };
		char buf[256];
		int fd;

		if (prctl(PR_SET_KEEPCAPS, 1) || setgid(1000) || setuid(1000))
			_exit(10);
		c.data[CAP_TO_INDEX(CAP_SYS_NICE)].effective |=
			CAP_TO_MASK(CAP_SYS_NICE);
		c.data[CAP_TO_INDEX(CAP_SYS_NICE)].permitted |=
			CAP_TO_MASK(CAP_SYS_NICE);
		c.data[CAP_TO_INDEX(CAP_SYS_PTRACE)].effective |=
			CAP_TO_MASK(CAP_SYS_PTRACE);
		c.data[CAP_TO_INDEX(CAP_SYS_PTRACE)].permitted |=
			CAP_TO_MASK(CAP_SYS_PTRACE);
		if (syscall(SYS_capset, &c.hdr, c.data))
			_exit(11);
		if (write_str(path[0], "start") || write_str(path[0], "end"))
			_exit(12);
		if (read_file(path[2], buf, sizeof(buf)) <= 0)
			_exit(13);
		fd = open(path[1], O_RDONLY);
		if (fd < 0)
			_exit(14);
		close(fd);
		/* What it has not: another user's own files stay closed. */
		if (open("/proc/1/environ", O_RDONLY) >= 0 || errno != EACCES)
			_exit(15);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status) TH_LOG("the manager of another user failed at step %d",
				    WEXITSTATUS(status));
	EXPECT_EQ(1, read_key("/proc/self/prepage_stat", "switches"));
}

/* The child of TEST(table_after_exec): shares its parent's mm until exec. */
static int exec_when_told(void *arg)
{
	int *go = arg;
	char c;

	if (read(go[0], &c, 1) != 1)
		_exit(1);
	execl("/bin/sleep", "sleep", "10", NULL);
	_exit(2);
}

/*
 * The table file of a process opened while it shared its parent's
 * address space (CLONE_VM, as vfork() does), written after it exec'd:
 * the process now has an address space of its own, and maybe other
 * credentials (a set-user-ID program), which must not open the files of
 * a table for the address space it left. The write fails with ESRCH and
 * the parent's tables are not changed.
 */
TEST_F(file, table_after_exec)
{
	char path[64], comm[32] = "", before[PATH_MAX + 256];
	char after[PATH_MAX + 256];
	size_t stack_size = 256 * 1024;
	int go[2], fd, i, status;
	char *stack;
	pid_t pid;

	ASSERT_LE(0, dump(before, sizeof(before)));
	stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	ASSERT_NE(MAP_FAILED, stack);
	ASSERT_EQ(0, pipe(go));
	pid = clone(exec_when_told, stack + stack_size, CLONE_VM | SIGCHLD, go);
	ASSERT_LE(0, pid);
	snprintf(path, sizeof(path), "/proc/%d/prepage_table", pid);
	fd = open(path, O_WRONLY);
	EXPECT_LE(0, fd);
	ASSERT_EQ(1, write(go[1], "x", 1));
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	for (i = 0; i < 200 && strncmp(comm, "sleep", 5); i++) {
		usleep(10000);
		read_file(path, comm, sizeof(comm));
	}
	EXPECT_EQ(0, strncmp(comm, "sleep", 5));
	table_line(self->line, sizeof(self->line), "%s 0:%ld\n", self->path,
		   psz);
	if (fd >= 0) {
		EXPECT_EQ(-1, write(fd, self->line, strlen(self->line)));
		EXPECT_EQ(ESRCH, errno);
		close(fd);
	}
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	close(go[0]);
	close(go[1]);
	munmap(stack, stack_size);
	ASSERT_LE(0, dump(after, sizeof(after)));
	EXPECT_STREQ(before, after);
}

/*
 * A range far past the end of the file is clamped to it, at load and
 * when it is prepaged: the window ends at once. It used to make the
 * prepager walk 2^39 pages without ever stopping.
 */
TEST_F(file, past_eof)
{
	char buf[PATH_MAX + 256];

	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:0x7ffffffffffff000\n", self->path)));
	ASSERT_LT(0, dump(buf, sizeof(buf)));
	table_line(self->line, sizeof(self->line), " 0:%ld ", NR_PAGES * psz);
	EXPECT_EQ(0, strncmp(buf + strlen(self->path), self->line,
			     strlen(self->line))) TH_LOG("dump: %s", buf);
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	EXPECT_EQ(NR_PAGES, stat_of("file_prepaged"));
	ASSERT_EQ(0, ctl("end"));

	/* A line with nothing left within the file is stale. */
	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s %ld:4096\n", self->path,
				     NR_PAGES * psz)));
	EXPECT_EQ(1, stat_of("file_stale"));
	EXPECT_EQ(0, read_key("/proc/self/prepage", "files"));
}

/*
 * What a table names is checked before anything is opened: a symbolic
 * link is not followed, and a FIFO, a file on tmpfs (no readahead) or
 * in procfs is refused without being opened, so the write cannot block.
 */
TEST_F(file, special_files)
{
	const char *dir = getenv("PREPAGE_TESTDIR");
	char link[PATH_MAX + 8], fifo[PATH_MAX + 8], shm[PATH_MAX];
	int fd;

	snprintf(link, sizeof(link), "%s.link", self->path);
	snprintf(fifo, sizeof(fifo), "%s.fifo", self->path);
	ASSERT_EQ(0, symlink(self->path, link));
	ASSERT_EQ(0, mkfifo(fifo, 0600));
	EXPECT_EQ(-ELOOP, load(table_line(self->line, sizeof(self->line),
					  "%s 0:4096\n", link)));
	/* Opening the FIFO for reading would wait for a writer. */
	EXPECT_EQ(-EINVAL, load(table_line(self->line, sizeof(self->line),
					   "%s 0:4096\n", fifo)));
	unlink(link);
	unlink(fifo);

	/* /dev/shm or /tmp: tmpfs in the test VM, unless it is the disk. */
	snprintf(shm, sizeof(shm), "/dev/shm/prepage.XXXXXX");
	fd = mkstemp(shm);
	if (fd < 0) {
		snprintf(shm, sizeof(shm), "/tmp/prepage.XXXXXX");
		fd = mkstemp(shm);
	}
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, psz));
	if (!dir || strncmp(shm, dir, strlen(dir)))
		EXPECT_EQ(-EINVAL, load(table_line(self->line,
						   sizeof(self->line),
						   "%s 0:4096\n", shm)));
	close(fd);
	unlink(shm);
	EXPECT_EQ(0, read_key("/proc/self/prepage", "files"));
}

/*
 * The work of a window is bounded by max_switch_kbytes: with a budget of
 * 16 pages, 16 of the 64 target pages are read (the first one by the
 * metadata pass, then 1-15), and the stop is counted; with 0, none, and
 * the target pages 16-23 the app then reads itself are late.
 */
TEST_F(file, budget)
{
	ASSERT_EQ(0, knob_set("max_switch_kbytes", 16 * psz / 1024));
	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:%ld\n", self->path,
				     NR_PAGES * psz)));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	EXPECT_EQ(16, stat_of("file_prepaged"));
	EXPECT_EQ(16, resident_wait(self->fd, 0, 16, 16));
	EXPECT_EQ(0, resident(self->fd, 16, NR_PAGES - 16));
	EXPECT_EQ(1, stat_of("budget_stops"));
	ASSERT_EQ(0, ctl("end"));

	ASSERT_TRUE(evict(self->fd, NR_PAGES));
	ASSERT_EQ(0, knob_set("max_switch_kbytes", 0));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	EXPECT_EQ(0, stat_of("file_late"));
	ASSERT_TRUE(touch_read(self->fd, 16, 8));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(16, stat_of("file_prepaged"));
	EXPECT_EQ(2, stat_of("budget_stops"));
	EXPECT_EQ(8, stat_of("file_miss"));
	EXPECT_EQ(8, stat_of("file_late"));
}

/*
 * One window over the fixture's file, none of it cached, in which the
 * app reads its first @use pages once the prepagers are done. Return:
 * the pages prepaged in it, or -1.
 */
static long file_window(int fd, int use)
{
	long before = stat_of("file_prepaged"), prepaged;

	if (!evict(fd, NR_PAGES) || ctl("start") || wait_prepaged())
		return -1;
	prepaged = stat_of("file_prepaged") - before;
	/* The reads must be done: the next window evicts what they read. */
	if (resident_wait(fd, 0, NR_PAGES, prepaged) != prepaged ||
	    !touch_read(fd, 0, use) || ctl("end"))
		return -1;
	return prepaged;
}

/*
 * Back-off: a window whose prepaging does not pay (the app uses 16 of
 * the 64 pages prepaged, 250 permille, below a
 * file/min_precision_permille of 500) makes the file prepagers sit out
 * the next 2^level - 1 windows, level counting such windows in a row,
 * and try again in the one after; a window that pays ends the back-off
 * (the next one that does not pay is level 1 again), and so do a new
 * table and file/min_precision_permille 0. In the windows sat out the
 * app reads all 64 pages itself, and the target learns them all again.
 */
TEST_F(file, backoff)
{
	const int all = NR_PAGES;
	int i;

	ASSERT_EQ(0, knob_set("file/min_precision_permille", 500));
	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:%ld\n", self->path, all * psz)));

	/* Level 1: one window sat out. */
	EXPECT_EQ(all, file_window(self->fd, 16));
	EXPECT_EQ(0, file_window(self->fd, all));
	EXPECT_EQ(1, stat_of("file_sat_out"));

	/* It tries again and still does not pay: level 2, three sat out. */
	EXPECT_EQ(all, file_window(self->fd, 16));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, file_window(self->fd, all));
	EXPECT_EQ(4, stat_of("file_sat_out"));

	/* It tries again and pays; then level 1 again, one sat out. */
	EXPECT_EQ(all, file_window(self->fd, all));
	EXPECT_EQ(all, file_window(self->fd, 16));
	EXPECT_EQ(0, file_window(self->fd, all));
	EXPECT_EQ(5, stat_of("file_sat_out"));

	/* Level 2 again; a new table ends it. */
	EXPECT_EQ(all, file_window(self->fd, 16));
	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:%ld\n", self->path, all * psz)));
	EXPECT_EQ(all, file_window(self->fd, 16));
	EXPECT_EQ(5, stat_of("file_sat_out"));

	/* Level 1; file/min_precision_permille 0 ends it too. */
	ASSERT_EQ(0, knob_set("file/min_precision_permille", 0));
	EXPECT_EQ(16, file_window(self->fd, 16));
	EXPECT_EQ(5, stat_of("file_sat_out"));
	EXPECT_EQ(6 * all + 16, stat_of("file_prepaged"));
	EXPECT_EQ(6 * 16 + all, stat_of("file_hit"));
	/* The app read what it used itself only in the windows sat out. */
	EXPECT_EQ(5 * all, stat_of("file_miss"));
}

/*
 * A table loaded in a window is not judged by that window, whose
 * prepaged pages were the old table's: none of the 64 is used, and the
 * next window prepages all the same.
 */
TEST_F(file, backoff_table_in_window)
{
	ASSERT_EQ(0, knob_set("file/min_precision_permille", 500));
	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:%ld\n", self->path,
				     NR_PAGES * psz)));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	EXPECT_EQ(NR_PAGES, stat_of("file_prepaged"));
	EXPECT_EQ(NR_PAGES, resident_wait(self->fd, 0, NR_PAGES, NR_PAGES));
	ASSERT_EQ(0, load(self->line));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(0, stat_of("file_hit"));

	EXPECT_EQ(NR_PAGES, file_window(self->fd, NR_PAGES));
	EXPECT_EQ(0, stat_of("file_sat_out"));
	EXPECT_EQ(NR_PAGES, stat_of("file_hit"));
}

/*
 * Make the last @cold of the @nr pages of @fd the only ones not cached,
 * start a window, and wait for its prepagers. Return: the pages they
 * prepaged, or -1.
 */
static long cached_but(int fd, int nr, int cold)
{
	long before = stat_of("file_prepaged");

	/* Outside a window: not logged. */
	if (!touch_read(fd, 0, nr) ||
	    posix_fadvise(fd, (nr - cold) * psz, cold * psz,
			  POSIX_FADV_DONTNEED) ||
	    resident(fd, 0, nr) != nr - cold || ctl("start") ||
	    wait_prepaged())
		return -1;
	return stat_of("file_prepaged") - before;
}

/*
 * A window that prepaged less than an eighth of its target pages, the
 * others being cached, does not judge the prepagers: it read the 63 of
 * the 512 not cached and the app used none of them, and the next window
 * prepages. One that prepaged an eighth does: the 63 left the target
 * (prepaged, not used), the next window read 56 of the 449 left, none
 * used, and the window after it sits out.
 */
TEST_F(prepage, backoff_mostly_cached)
{
	const int nr = 8 * NR_PAGES;
	char path[PATH_MAX];
	int fd;

	psz = sysconf(_SC_PAGESIZE);
	ASSERT_EQ(0, knob_set("file/min_precision_permille", 500));
	fd = loaded_file(path, nr);
	if (fd == -2)
		SKIP(return, NO_EVICT);
	ASSERT_LE(0, fd) TH_LOG("cannot create and load a test file");

	EXPECT_EQ(nr / 8 - 1, cached_but(fd, nr, nr / 8 - 1));
	EXPECT_EQ(nr, resident_wait(fd, 0, nr, nr));
	ASSERT_TRUE(touch_read(fd, 0, 16));
	ASSERT_EQ(0, ctl("end"));

	EXPECT_EQ(56, cached_but(fd, nr - (nr / 8 - 1), 56));
	EXPECT_EQ(nr - (nr / 8 - 1),
		  resident_wait(fd, 0, nr - (nr / 8 - 1), nr - (nr / 8 - 1)));
	ASSERT_TRUE(touch_read(fd, 0, 16));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(0, stat_of("file_sat_out"));

	ASSERT_TRUE(evict(fd, nr));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(nr / 8 - 1 + 56, stat_of("file_prepaged"));
	EXPECT_EQ(1, stat_of("file_sat_out"));
	EXPECT_EQ(0, stat_of("file_hit"));
	fixture_file_close(fd, path);
}

/*
 * The eighth is of the window's budget when that is smaller than the
 * target: a budget of 40 pages, a target of 512 pages none of which is
 * cached or used; the window reads 40, fewer than an eighth of the
 * target but all the budget, is judged, and the next one sits out.
 */
TEST_F(prepage, backoff_budget)
{
	const int nr = 8 * NR_PAGES, budget = 40;
	char path[PATH_MAX];
	int fd;

	psz = sysconf(_SC_PAGESIZE);
	ASSERT_EQ(0, knob_set("file/min_precision_permille", 500));
	ASSERT_EQ(0, knob_set("max_switch_kbytes", budget * psz / 1024));
	fd = loaded_file(path, nr);
	if (fd == -2)
		SKIP(return, NO_EVICT);
	ASSERT_LE(0, fd) TH_LOG("cannot create and load a test file");
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	EXPECT_EQ(budget, stat_of("file_prepaged"));
	EXPECT_EQ(budget, resident_wait(fd, 0, nr, budget));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(1, stat_of("budget_stops"));

	ASSERT_TRUE(evict(fd, nr));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(budget, stat_of("file_prepaged"));
	EXPECT_EQ(1, stat_of("file_sat_out"));
	EXPECT_EQ(0, stat_of("file_hit"));
	fixture_file_close(fd, path);
}

/* Write @s to /proc/@pid/@file; 0 or -errno. */
static int app_write(pid_t pid, const char *file, const char *s)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	return write_str(path, s);
}

static long app_stat(pid_t pid, const char *key)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/prepage_stat", pid);
	return read_key(path, key);
}

/* One window of @pid, ended once its prepagers are done; 0 or -1. */
static int app_window(pid_t pid)
{
	char path[64];
	int i;

	snprintf(path, sizeof(path), "/proc/%d/prepage", pid);
	if (app_write(pid, "prepage", "start"))
		return -1;
	for (i = 0; i < 2000 && read_key(path, "prepaging") > 0; i++)
		usleep(5000);
	return app_write(pid, "prepage", "end");
}

/*
 * The pressure test: the file of the file fixture, and an app that is a
 * child waiting in a memory cgroup of its own, so that the cgroup's
 * limit holds up no test process. Teardown kills it and removes the
 * cgroup, also after a failed assertion.
 */
FIXTURE(pressure)
{
	char path[PATH_MAX];
	char line[PATH_MAX + 256];
	char cg[PATH_MAX];
	int fd;
	pid_t app;
};

FIXTURE_SETUP(pressure)
{
	pid_t parent = getpid();
	char me[32];
	const char *why;

	self->app = -1;
	self->cg[0] = '\0';
	why = setup_file_fixture(self->path, &self->fd, self->cg,
				 sizeof(self->cg));
	if (why)
		SKIP(return, "%s", why);
	SETUP_ASSERT(self->fd >= 0);
	self->app = fork();
	if (!self->app) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == parent)
			pause();
		_exit(0);
	}
	/* This process goes back to the root cgroup: the app stays. */
	snprintf(me, sizeof(me), "%d", getpid());
	write_str("/sys/fs/cgroup/cgroup.procs", me);
	if (self->app < 0) {
		memcg_leave(self->cg);
		fixture_file_close(self->fd, self->path);
	}
	SETUP_ASSERT(self->app > 0);
}

FIXTURE_TEARDOWN(pressure)
{
	int status;

	if (self->app > 0) {
		kill(self->app, SIGKILL);
		waitpid(self->app, &status, 0);
	}
	if (self->cg[0])
		memcg_leave(self->cg);
	settings_restore();
	fixture_file_close(self->fd, self->path);
}

/*
 * Pressure stop: with memory.high of the app's memory cgroup at 0, any
 * page brought in for it would make the cgroup reclaim, and its window
 * prepages nothing: one pressure stop, no budget stop. With memory.high
 * back at max, the next window prepages all 64 pages.
 */
TEST_F(pressure, stop)
{
	char high[PATH_MAX + 16];

	snprintf(high, sizeof(high), "%s/memory.high", self->cg);
	ASSERT_EQ(0, app_write(self->app, "prepage_table",
			       table_line(self->line, sizeof(self->line),
					  "%s 0:%ld\n", self->path,
					  NR_PAGES * psz)));

	ASSERT_EQ(0, write_str(high, "0"));
	ASSERT_EQ(0, app_window(self->app));
	EXPECT_EQ(0, app_stat(self->app, "file_prepaged"));
	EXPECT_EQ(1, app_stat(self->app, "pressure_stops"));
	EXPECT_EQ(0, app_stat(self->app, "budget_stops"));
	EXPECT_EQ(0, resident(self->fd, 0, NR_PAGES));

	ASSERT_EQ(0, write_str(high, "max"));
	ASSERT_EQ(0, app_window(self->app));
	EXPECT_EQ(NR_PAGES, app_stat(self->app, "file_prepaged"));
	EXPECT_EQ(1, app_stat(self->app, "pressure_stops"));
	EXPECT_EQ(NR_PAGES, resident_wait(self->fd, 0, NR_PAGES, NR_PAGES));
}

/*
 * A window that ends while its prepagers are still reading counts once in
 * closed_stops; a restart, which cuts them short too but lets them go on,
 * does not, nor does a window whose prepagers were done. The window is
 * ended right after it starts, over a target of 16 MB none of which is
 * cached: unless all of it was read by then (the test then tries again),
 * its prepagers were at work. The budget is more than that.
 */
TEST_F(prepage, closed_stop)
{
	long nr, before, prepaged = 0, closed = 0;
	char path[PATH_MAX];
	int fd, try;

	psz = sysconf(_SC_PAGESIZE);
	nr = (16 << 20) / psz;
	ASSERT_EQ(0, knob_set("max_switch_kbytes", 32 << 10));
	ASSERT_GE(NR_PAGES * 64, nr);
	fd = loaded_file(path, nr);
	if (fd == -2)
		SKIP(return, NO_EVICT);
	ASSERT_LE(0, fd) TH_LOG("cannot create and load a test file");
	for (try = 1; try <= 3; try++) {
		/*
		 * The reads of the last window may still be in flight:
		 * fadvise would leave their (locked) pages cached.
		 */
		EXPECT_EQ(prepaged, resident_wait(fd, 0, nr, prepaged));
		ASSERT_TRUE(evict(fd, nr));
		before = stat_of("file_prepaged");
		closed = stat_of("closed_stops");
		ASSERT_EQ(0, ctl("start"));
		ASSERT_EQ(0, ctl("start"));
		ASSERT_EQ(0, ctl("end"));
		/* Told to stop, they may finish their chunk. */
		ASSERT_EQ(0, wait_prepaged());
		prepaged = stat_of("file_prepaged") - before;
		if (prepaged < nr)
			break;
	}
	ASSERT_GT(nr, prepaged)
		TH_LOG("3 windows read all %ld pages before they ended", nr);
	EXPECT_EQ(closed + 1, stat_of("closed_stops"));
	EXPECT_EQ(try, stat_of("restarts"));
	EXPECT_EQ(0, stat_of("budget_stops"));
	EXPECT_EQ(0, stat_of("nomem_stops"));

	/* This one ends when they are done: all of it read, no stop. */
	EXPECT_EQ(prepaged, resident_wait(fd, 0, nr, prepaged));
	ASSERT_TRUE(evict(fd, nr));
	closed = stat_of("closed_stops");
	before = stat_of("file_prepaged");
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(nr, stat_of("file_prepaged") - before);
	EXPECT_EQ(closed, stat_of("closed_stops"));
	EXPECT_EQ(0, stat_of("budget_stops"));
	EXPECT_EQ(0, stat_of("nomem_stops"));
	fixture_file_close(fd, path);
}

/*
 * The queue directory in sysfs of the disk that holds @fd's file, in
 * @dir; false if there is none (not a block device file system).
 */
static bool disk_queue(int fd, char *dir, size_t size)
{
	struct stat st;

	if (fstat(fd, &st))
		return false;
	snprintf(dir, size, "/sys/dev/block/%u:%u/queue", major(st.st_dev),
		 minor(st.st_dev));
	if (!access(dir, F_OK))
		return true;
	/* A partition: the queue is its disk's. */
	snprintf(dir, size, "/sys/dev/block/%u:%u/../queue", major(st.st_dev),
		 minor(st.st_dev));
	return !access(dir, F_OK);
}

/* Set a queue limit of the disk in @dir, saved first; 0 or -1. */
static int set_queue(const char *dir, const char *name, long val)
{
	char path[PATH_MAX + 32], buf[32];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(buf, sizeof(buf), "%ld", val);
	return setting_write(path, buf);
}

/*
 * A device that takes one page per I/O, without readahead: readahead
 * reads at most max(io_pages, ra_pages) pages a call, and every page of
 * the target is still read (one I/O each), not one page per chunk. On
 * 16K pages the default 128K readahead is eight pages.
 */
TEST_F(file, small_io)
{
	char dir[PATH_MAX];

	if (!disk_queue(self->fd, dir, sizeof(dir)))
		SKIP(return, "the test file system is not on a block device");
	/* Both first: setting max_sectors_kb resets read_ahead_kb. */
	ASSERT_EQ(0, set_queue(dir, "read_ahead_kb", 0))
		TH_LOG("cannot set %s/read_ahead_kb", dir);
	ASSERT_EQ(0, set_queue(dir, "max_sectors_kb", psz / 1024))
		TH_LOG("cannot set %s/max_sectors_kb", dir);
	ASSERT_EQ(0, set_queue(dir, "read_ahead_kb", 0));
	/* The file takes its readahead state from the disk when opened. */
	EXPECT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:%ld\n", self->path,
				     NR_PAGES * psz)));
	EXPECT_EQ(0, ctl("start"));
	EXPECT_EQ(0, wait_prepaged());
	EXPECT_EQ(NR_PAGES, stat_of("file_prepaged"));
	EXPECT_EQ(NR_PAGES, resident_wait(self->fd, 0, NR_PAGES, NR_PAGES));
	EXPECT_EQ(0, ctl("end"));
}

/*
 * A table is checked against the credentials of the process it is for:
 * a privileged writer cannot make a process prepage, and so learn the
 * residency of, a file the process could not read itself.
 */
TEST_F(prepage, foreign_file)
{
	char path[PATH_MAX], line[PATH_MAX + 64], table[64];
	int fd, status, pipefd[2], ready[2];
	pid_t pid;
	char c = 0;

	psz = sysconf(_SC_PAGESIZE);
	if (geteuid())
		SKIP(return, "needs root to switch users");
	fd = make_file(path, 4);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fchmod(fd, 0600));
	ASSERT_EQ(0, pipe(pipefd));
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(pipefd[1]);
		close(ready[0]);
		if (setgid(65534) || setuid(65534))
			_exit(10);
		prctl(PR_SET_DUMPABLE, 1);
		if (write(ready[1], &c, 1) != 1)
			_exit(12);
		/* Wait until the parent is done with our tables. */
		_exit(read(pipefd[0], &c, 1) == 0 ? 0 : 11);
	}
	close(pipefd[0]);
	close(ready[1]);
	/* The child runs as nobody from here on. */
	ASSERT_EQ(1, read(ready[0], &c, 1));
	close(ready[0]);
	snprintf(table, sizeof(table), "/proc/%d/prepage_table", pid);
	snprintf(line, sizeof(line), "%s 0:%ld\n", path, 4 * psz);
	/* The file is root's alone: the child could not open it. */
	EXPECT_EQ(-EACCES, write_str(table, line));
	ASSERT_EQ(0, fchmod(fd, 0644));
	EXPECT_EQ(0, write_str(table, line));
	close(pipefd[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	close(fd);
	unlink(path);
}

/*
 * What is prepaged for an app is charged to the app's memory cgroup,
 * not to the root one of the prepager thread.
 */
TEST_F(file, memcg)
{
	char cg[PATH_MAX];
	const char *why;
	long before, after;

	why = memcg_enter(cg, sizeof(cg));
	if (why)
		SKIP(return, "%s", why);

	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:%ld\n", self->path,
				     NR_PAGES * psz)));
	before = memcg_stat(cg, "file");
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	EXPECT_EQ(NR_PAGES, resident_wait(self->fd, 0, NR_PAGES, NR_PAGES));
	after = memcg_stat(cg, "file");
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(NR_PAGES, stat_of("file_prepaged"));
	EXPECT_LE(before + NR_PAGES * psz, after)
		TH_LOG("memcg file bytes %ld -> %ld", before, after);

	/* The cgroup goes empty: nothing of it stays cached. */
	fixture_file_close(self->fd, self->path);
	self->fd = -1;
	memcg_leave(cg);
}

/*
 * The reclaim order tests: this process in a memory cgroup of its own,
 * without swap (reclaim takes file pages only), with the fixture's file
 * and another one of 4 * NR_PAGES pages, none of them cached.
 */
FIXTURE(reclaim)
{
	char cg[PATH_MAX];
	char path[PATH_MAX], other[PATH_MAX];
	int fd, ofd;
};

FIXTURE_SETUP(reclaim)
{
	char swap_max[PATH_MAX + 32];
	const char *why;

	self->ofd = -1;
	self->cg[0] = '\0';
	why = setup_file_fixture(self->path, &self->fd, self->cg,
				 sizeof(self->cg));
	if (why)
		SKIP(return, "%s", why);
	SETUP_ASSERT(self->fd >= 0);
	snprintf(swap_max, sizeof(swap_max), "%s/memory.swap.max", self->cg);
	if (!access(swap_max, F_OK))
		SETUP_ASSERT(!write_str(swap_max, "0"));
	self->ofd = make_file(self->other, 4 * NR_PAGES);
	SETUP_ASSERT(self->ofd >= 0);
	SETUP_ASSERT(evict(self->ofd, 4 * NR_PAGES));
}

FIXTURE_TEARDOWN(reclaim)
{
	settings_restore();
	fixture_file_close(self->fd, self->path);
	fixture_file_close(self->ofd, self->other);
	/* The cgroup goes empty: nothing of it stays cached. */
	if (self->cg[0])
		memcg_leave(self->cg);
}

/* Reclaim @nr pages of the memory cgroup @cg; 0 or -errno. */
static int memcg_reclaim(const char *cg, long nr)
{
	char path[PATH_MAX + 32], bytes[32];

	snprintf(path, sizeof(path), "%s/memory.reclaim", cg);
	snprintf(bytes, sizeof(bytes), "%ld", nr * psz);
	return write_str(path, bytes);
}

/* Load the whole test file @path as the table and prepage it. */
static int prepage_whole(const char *path, int fd)
{
	char line[PATH_MAX + 64];

	if (load(table_line(line, sizeof(line), "%s 0:%ld\n", path,
			    NR_PAGES * psz)) ||
	    ctl("start") || wait_prepaged())
		return -1;
	return resident_wait(fd, 0, NR_PAGES, NR_PAGES) == NR_PAGES ? 0 : -1;
}

/*
 * Prepaged pages the app did not use are the first to be reclaimed
 * after the window: the app has 256 pages of another file cached from
 * before, prepage brings 64 in that it does not use, and reclaiming 64
 * pages of its memory cgroup takes those 64 (at most one batch of
 * reclaim more, from the other file). Without the demotion the older
 * pages would go first and the prepaged ones stay.
 */
TEST_F(reclaim, demote_unused)
{
	ASSERT_TRUE(touch_read(self->ofd, 0, 4 * NR_PAGES));
	ASSERT_EQ(0, prepage_whole(self->path, self->fd));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(NR_PAGES, stat_of("file_demoted"));
	EXPECT_EQ(0, stat_of("file_evicted"));

	EXPECT_EQ(0, memcg_reclaim(self->cg, NR_PAGES));
	EXPECT_EQ(0, resident(self->fd, 0, NR_PAGES));
	EXPECT_LE(3 * NR_PAGES, resident(self->ofd, 0, 4 * NR_PAGES));
}

/*
 * While the window is open, the pages prepaged for it are not the first
 * to be reclaimed: the app reads 256 pages of another file after they
 * came in, then 64 pages of its memory cgroup are reclaimed, and the
 * prepaged pages all survive to be used (readahead alone would have put
 * them where reclaim takes them before the newer pages).
 */
TEST_F(reclaim, protect_window)
{
	ASSERT_EQ(0, prepage_whole(self->path, self->fd));
	ASSERT_TRUE(touch_read(self->ofd, 0, 4 * NR_PAGES));

	EXPECT_EQ(0, memcg_reclaim(self->cg, NR_PAGES));
	EXPECT_EQ(NR_PAGES, resident(self->fd, 0, NR_PAGES));
	EXPECT_GE(3 * NR_PAGES, resident(self->ofd, 0, 4 * NR_PAGES));

	ASSERT_TRUE(touch_read(self->fd, 0, NR_PAGES));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(NR_PAGES, stat_of("file_hit"));
	/* The other file is no table's: its pages are misses. */
	EXPECT_EQ(4 * NR_PAGES, stat_of("file_miss"));
	EXPECT_EQ(0, stat_of("file_evicted"));
}

/* Reclaim the pages of @fd (the cgroup's only reclaimable ones). */
static bool reclaim_file(const char *cg, int fd)
{
	int tries;

	for (tries = 0; tries < 10; tries++) {
		memcg_reclaim(cg, NR_PAGES);
		if (!resident(fd, 0, NR_PAGES))
			return true;
	}
	return false;
}

/*
 * A page prepage reads back in after reclaim took it is not a refault:
 * the app's memory cgroup counts none for the 64 pages prepaged (nor,
 * then, the memory stall of reading refaulting pages), and 64 when the
 * app reads them back itself.
 */
TEST_F(reclaim, not_a_refault)
{
	long before;

	ASSERT_TRUE(touch_read(self->fd, 0, NR_PAGES));
	ASSERT_TRUE(reclaim_file(self->cg, self->fd));
	before = memcg_stat(self->cg, "workingset_refault_file");
	ASSERT_LE(0, before);
	ASSERT_EQ(0, prepage_whole(self->path, self->fd));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(NR_PAGES, stat_of("file_prepaged"));
	EXPECT_EQ(before, memcg_stat(self->cg, "workingset_refault_file"));

	ASSERT_TRUE(reclaim_file(self->cg, self->fd));
	before = memcg_stat(self->cg, "workingset_refault_file");
	ASSERT_TRUE(touch_read(self->fd, 0, NR_PAGES));
	EXPECT_EQ(before + NR_PAGES,
		  memcg_stat(self->cg, "workingset_refault_file"));
}

/*
 * Prepaged pages reclaimed before the app used them are counted, also
 * when the app then read them again itself (a hit that cost a miss).
 */
TEST_F(file, evicted)
{
	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:%ld\n", self->path, 32 * psz)));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	EXPECT_EQ(32, resident_wait(self->fd, 0, 32, 32));
	ASSERT_TRUE(touch_read(self->fd, 0, 16));
	/* 24-31 are reclaimed; the app reads 28-31 again. */
	ASSERT_EQ(0, posix_fadvise(self->fd, 24 * psz, 8 * psz,
				   POSIX_FADV_DONTNEED));
	EXPECT_EQ(0, resident(self->fd, 24, 8));
	ASSERT_TRUE(touch_read(self->fd, 28, 4));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(32, stat_of("file_prepaged"));
	EXPECT_EQ(20, stat_of("file_hit"));
	EXPECT_EQ(4, stat_of("file_miss"));
	/* 24-27 gone unused, 28-31 read again by the app */
	EXPECT_EQ(8, stat_of("file_evicted"));
	/* 16-23: cached, not used */
	EXPECT_EQ(8, stat_of("file_demoted"));
}

/*
 * A window whose log was full learns only what it logged, and takes no
 * page out of the target: the 64 prepaged pages the app read after the
 * log filled up (5000 reads alternating between two pages of another
 * file, a log entry each) stay in it, where an unused page would go.
 */
TEST_F(file, log_full)
{
	char other[PATH_MAX], *buf = malloc(psz);
	int ofd, i;

	ASSERT_NE(NULL, buf);
	ofd = make_file(other, 4);
	ASSERT_LE(0, ofd);
	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:%ld\n", self->path,
				     NR_PAGES * psz)));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	for (i = 0; i < 5000; i++)
		ASSERT_EQ(psz, pread(ofd, buf, psz, (i % 2) * 2 * psz));
	EXPECT_LT(0, stat_of("log_dropped"));
	ASSERT_TRUE(touch_read(self->fd, 0, NR_PAGES));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(NR_PAGES, stat_of("file_prepaged"));
	EXPECT_EQ(NR_PAGES, read_key("/proc/self/prepage",
				     "file_target_pages"));
	/* Read through a file descriptor since: not demoted either. */
	EXPECT_EQ(0, stat_of("file_demoted"));
	fixture_file_close(ofd, other);
	free(buf);
}

/* start twice restarts; end without start and end after end fail. */
TEST_F(file, start_twice)
{
	char state[64];

	EXPECT_EQ(-EINVAL, ctl("end"));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, ctl("start"));
	EXPECT_EQ(2, stat_of("switches"));
	EXPECT_EQ(1, stat_of("restarts"));
	ASSERT_LT(0, read_file("/proc/self/prepage", state, sizeof(state)));
	EXPECT_EQ(0, strncmp(state, "state switching\n", 16));
	ASSERT_EQ(0, ctl("end"));
	ASSERT_LT(0, read_file("/proc/self/prepage", state, sizeof(state)));
	EXPECT_EQ(0, strncmp(state, "state idle\n", 11));
	EXPECT_EQ(-EINVAL, ctl("end"));
}

/*
 * A writer that switches often keeps /proc/<pid>/prepage open: every
 * write(2) is one verb, whatever the file position. Once the process
 * has exec()ed, the file is of an address space that is gone: ESRCH.
 */
TEST_F(prepage, ctl_kept_open)
{
	int go[2], execd[2], fd, status;
	char path[64], c;
	pid_t pid;

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe2(execd, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(go[1]);
		close(execd[0]);
		/* Wait for the parent to open the file, then exec. */
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		dup2(go[0], 0);
		execl("/bin/sh", "sh", "-c", "read x; exit 0", (char *)NULL);
		_exit(1);
	}
	close(go[0]);
	close(execd[1]);
	snprintf(path, sizeof(path), "/proc/%d/prepage", pid);
	fd = open(path, O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(5, write(fd, "start", 5));
	EXPECT_EQ(3, write(fd, "end", 3));
	EXPECT_EQ(6, write(fd, "start\n", 6));
	EXPECT_EQ(3, write(fd, "end", 3));
	EXPECT_EQ(-1, write(fd, "end", 3));
	EXPECT_EQ(EINVAL, errno);
	snprintf(path, sizeof(path), "/proc/%d/prepage_stat", pid);
	EXPECT_EQ(2, read_key(path, "switches"));
	/* The close-on-exec pipe reads EOF once the exec is done. */
	ASSERT_EQ(1, write(go[1], "x", 1));
	ASSERT_EQ(0, read(execd[0], &c, 1));
	EXPECT_EQ(-1, write(fd, "start", 5));
	EXPECT_EQ(ESRCH, errno);
	close(fd);
	close(execd[0]);
	close(go[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
}

/*
 * reset in a window closes it without accounting and drops the tables;
 * what was prepaged for it and not used is demoted.
 */
TEST_F(file, reset_mid_switch)
{
	char buf[256];

	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:%ld\n", self->path, 32 * psz)));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	ASSERT_TRUE(touch_read(self->fd, 0, 8));
	ASSERT_TRUE(touch_read(self->fd, 40, 8));
	ASSERT_EQ(0, ctl("reset"));
	EXPECT_EQ(0, read_key("/proc/self/prepage", "files"));
	EXPECT_EQ(0, dump(buf, sizeof(buf)));
	EXPECT_EQ(-EINVAL, ctl("end"));
	EXPECT_EQ(0, stat_of("file_miss"));
	EXPECT_EQ(0, stat_of("file_hit"));
	/* 8-31 were prepaged and not used: demoted, as at an end. */
	EXPECT_EQ(32, stat_of("file_prepaged"));
	EXPECT_EQ(24, stat_of("file_demoted"));
	/* The next window works as usual. */
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(2, stat_of("switches"));
}

/*
 * start in a window restarts it: what was prepaged is kept for the new
 * window, which wants the same pages, and not demoted; the accesses made
 * before the restart are not counted, and as the new window's log lacks
 * them, no page leaves the target at its end.
 */
TEST_F(file, restart_carries_over)
{
	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:%ld\n", self->path, 32 * psz)));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	ASSERT_TRUE(touch_read(self->fd, 0, 8));
	ASSERT_EQ(0, ctl("start"));
	EXPECT_EQ(1, stat_of("restarts"));
	EXPECT_EQ(0, stat_of("file_demoted"));
	ASSERT_EQ(0, wait_prepaged());
	/* Nothing was left to read. */
	EXPECT_EQ(32, stat_of("file_prepaged"));
	ASSERT_TRUE(touch_read(self->fd, 8, 8));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(8, stat_of("file_hit"));
	EXPECT_EQ(0, stat_of("file_miss"));
	/* 16-31 were not used; 0-7 were read before the restart. */
	EXPECT_EQ(16, stat_of("file_demoted"));
	EXPECT_EQ(32, read_key("/proc/self/prepage", "file_target_pages"));
}

/*
 * A table replaced mid-switch: the old prepagers stop, what they
 * prepaged is demoted, the window goes on.
 */
TEST_F(file, replace_mid_switch)
{
	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s 0:%ld\n", self->path, 32 * psz)));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	ASSERT_EQ(0, load(table_line(self->line, sizeof(self->line),
				     "%s %ld:%ld\n", self->path, 48 * psz,
				     8 * psz)));
	/* What the old table prepaged was not used: demoted. */
	EXPECT_EQ(32, stat_of("file_demoted"));
	ASSERT_EQ(0, wait_prepaged());
	ASSERT_TRUE(touch_read(self->fd, 48, 8));
	ASSERT_EQ(0, ctl("end"));
	/* The new table was not prepaged in this window: 48-55 were misses. */
	EXPECT_EQ(8, stat_of("file_miss"));
	EXPECT_EQ(0, stat_of("file_hit"));
	EXPECT_EQ(32, stat_of("file_demoted"));
	EXPECT_EQ(8, read_key("/proc/self/prepage", "file_target_pages"));
}

/*
 * Two files on one prepager thread get turns: the 64 pages of the second
 * file are all read while the first, of 4096 pages and queued before
 * it, is still being read, where without turns the second file waited
 * for all of the first.
 */
TEST_F(prepage, fair_turns)
{
	char big[PATH_MAX], small[PATH_MAX], table[2 * PATH_MAX + 64];
	const int nr = NR_PAGES * 64;	/* as many as resident() counts */
	int bfd, sfd;

	psz = sysconf(_SC_PAGESIZE);
	bfd = make_file(big, nr);
	ASSERT_LE(0, bfd);
	sfd = make_file(small, NR_PAGES);
	ASSERT_LE(0, sfd);
	if (!evict(bfd, nr) || !evict(sfd, NR_PAGES))
		SKIP(goto out, NO_EVICT);
	/* Both files big: both on the one normal-priority thread. */
	ASSERT_EQ(0, knob_set("file/big_file_pages", NR_PAGES));
	snprintf(table, sizeof(table), "%s 0:%ld\n%s 0:%ld\n", big, nr * psz,
		 small, NR_PAGES * psz);
	ASSERT_EQ(0, load(table));
	ASSERT_EQ(0, ctl("start"));
	EXPECT_EQ(NR_PAGES, resident_wait(sfd, 0, NR_PAGES, NR_PAGES));
	EXPECT_GT(nr, resident(bfd, 0, nr));
	ASSERT_EQ(0, wait_prepaged());
	EXPECT_EQ(nr, resident_wait(bfd, 0, nr, nr));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(nr + NR_PAGES, stat_of("file_prepaged"));
out:
	fixture_file_close(bfd, big);
	fixture_file_close(sfd, small);
}

/*
 * A child loads the table @line and opens a window, then exits while its
 * prepagers work. Return: its wait status (0: both writes worked), or -1.
 */
static int exit_in_window(const char *line)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(load(line) || ctl("start") ? 1 : 0);
	return waitpid(pid, &status, 0) == pid ? status : -1;
}

/*
 * The app exits while its prepagers run, several times over, with the
 * file on the normal-priority and on the SCHED_IDLE prepager: no leak,
 * no warning (the VM checks the console; kmemleak on the debug kernel).
 */
TEST_F(prepage, exit_during_prepage)
{
	char path[PATH_MAX], line[PATH_MAX + 64];
	int fd, round;
	const int nr = 8192;	/* 32 MiB with 4 KiB pages */

	psz = sysconf(_SC_PAGESIZE);
	fd = make_file(path, nr);
	ASSERT_LE(0, fd);
	snprintf(line, sizeof(line), "%s 0:%ld\n", path, (long)nr * psz);
	for (round = 0; round < 4; round++) {
		/* Even rounds: a big file; odd rounds: a small one. */
		ASSERT_EQ(0, knob_set("file/big_file_pages", round & 1 ? nr + 1 : nr));
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		EXPECT_EQ(0, exit_in_window(line));
	}
	close(fd);
	unlink(path);
}

/* The prepage threads (kprepaged*) that run now. */
static int count_prepage_threads(void)
{
	struct dirent *d;
	char path[PATH_MAX], comm[32];
	DIR *dir = opendir("/proc");
	int n = 0;

	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		if (read_file(path, comm, sizeof(comm)) > 0 &&
		    !strncmp(comm, "kprepaged", 9))
			n++;
	}
	closedir(dir);
	return n;
}

/* @want prepage threads within a second? */
static bool prepage_threads_are(int want)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (count_prepage_threads() == want)
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * Disabling prepage destroys its threads, also right after an app's exit
 * cut its window's prepaging short; enabling starts them again.
 */
TEST_F(prepage, threads)
{
	char path[PATH_MAX], line[PATH_MAX + 64];
	const int nr = 8192;
	int fd, n = count_prepage_threads();

	ASSERT_LT(0, n);
	fd = make_file(path, nr);
	ASSERT_LE(0, fd);
	snprintf(line, sizeof(line), "%s 0:%ld\n", path, (long)nr * psz);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	EXPECT_EQ(0, exit_in_window(line));
	ASSERT_EQ(0, knob_set("enabled", 0));
	EXPECT_TRUE(prepage_threads_are(0));
	ASSERT_EQ(0, knob_set("enabled", 1));
	EXPECT_TRUE(prepage_threads_are(n));
	close(fd);
	unlink(path);
}

TEST_HARNESS_MAIN
