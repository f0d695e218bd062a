// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the prepage events (trace/events/prepage.h): every window
 * opened and closed, and every stop of the prepage threads, fires
 * exactly one event with the right fields, in order.
 *
 * The events are enabled in a private tracefs instance and only those
 * of this test's processes are looked at. File tests need a file system
 * whose page cache can be dropped (PREPAGE_TESTDIR, see file_prepage.c),
 * the anonymous one a swap device; they SKIP otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "prepage_util.h"

#define NR_PAGES	64
#define TRACE_SIZE	(1024 * 1024)

static long psz;

/* Value of " KEY=" in @line, up to the next space, into @val. */
static bool field(const char *line, const char *key, char *val, size_t size)
{
	char pat[32];
	const char *p;
	size_t n;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	if (!p)
		return false;
	p += strlen(pat);
	n = strcspn(p, "\n ");
	if (n >= size)
		return false;
	memcpy(val, p, n);
	val[n] = '\0';
	return true;
}

#define MAX_KEYS	7

/*
 * The prepage events of process @pid in the instance's buffer, one per
 * line, as "EVENT KEY=VALUE..." with the fields the tests check: open
 * restart and lead; side start side and why; close reason and counts;
 * file ino, prepaged, reason; file extent index, nr, added; file table
 * index, nr; anon prepaged, reason; anon batch pages, prepaged. The
 * anon table events (a page each) are counted: a run of N of them is one
 * line "EVENT*N". Return: the number of events, or -1.
 */
static int events(const char *inst, pid_t pid, char *out, size_t size)
{
	static const struct {
		const char *name, *keys[MAX_KEYS];
	} evs[] = {
		{ "prepage_window_open:", { "restart", "lead" } },
		{ "prepage_side_start:", { "side", "why" } },
		{ "prepage_window_close:", { "reason", "file_prepaged",
			"file_hit", "file_miss", "anon_prepaged", "anon_hit",
			"anon_miss" } },
		{ "prepage_file_done:", { "ino", "prepaged", "reason" } },
		{ "prepage_file_extent:", { "ino", "index", "nr", "added" } },
		{ "prepage_file_promote:", { "ino", "index", "nr" } },
		{ "prepage_file_evict:", { "ino", "index", "nr" } },
		{ "prepage_anon_done:", { "prepaged", "reason" } },
		{ "prepage_anon_batch:", { "nr_pages", "prepaged" } },
		{ "prepage_anon_promote:", { NULL } },
		{ "prepage_anon_demote:", { NULL } },
		{ "prepage_anon_evict:", { NULL } },
	};
	char path[512], *buf = malloc(TRACE_SIZE), *line, *save;
	char want[32], val[64];
	unsigned int last = ARRAY_SIZE(evs), run = 0;
	int nr = 0;
	size_t len = 0, run_at = 0;

	snprintf(path, sizeof(path), "%s/trace", inst);
	if (!buf || read_file(path, buf, TRACE_SIZE) < 0) {
		free(buf);
		return -1;
	}
	out[0] = '\0';
	snprintf(want, sizeof(want), "%d", pid);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned int e, k;

		if (line[0] == '#')
			continue;
		for (e = 0; e < ARRAY_SIZE(evs); e++)
			if (strstr(line, evs[e].name))
				break;
		if (e == ARRAY_SIZE(evs) || !field(line, "pid", val, sizeof(val)) ||
		    strcmp(val, want))
			continue;
		if (!evs[e].keys[0] && e == last) {
			/* One more of a run: "EVENT*N" */
			len = run_at;
			len += snprintf(out + len, size - len, "*%u", ++run);
			len = len < size ? len : size - 1;
			nr++;
			continue;
		}
		last = e;
		len += snprintf(out + len, size - len, "%s%.*s", nr ? "\n" : "",
				(int)strlen(evs[e].name) - 9, evs[e].name + 8);
		len = len < size ? len : size - 1;
		run_at = len;
		run = 1;
		for (k = 0; k < MAX_KEYS && evs[e].keys[k]; k++) {
			if (!field(line, evs[e].keys[k], val, sizeof(val)))
				snprintf(val, sizeof(val), "?");
			len += snprintf(out + len, size - len, " %s=%s",
					evs[e].keys[k], val);
			len = len < size ? len : size - 1;
		}
		nr++;
	}
	free(buf);
	return nr;
}

FIXTURE(trace)
{
	char inst[256];
	char out[4096];
};

FIXTURE_SETUP(trace)
{
	const char *root, *why;
	char path[512];

	psz = sysconf(_SC_PAGESIZE);
	self->inst[0] = '\0';
	why = setup_prepage();
	if (why)
		SKIP(return, "%s", why);
	/* A page used in two windows is a target in the tests below. */
	SETUP_ASSERT(!knob_set("anon/promote_windows", 2));
	root = tracefs_root();
	if (!root) {
		settings_restore();
		SKIP(return, "tracefs is not available");
	}
	snprintf(path, sizeof(path), "%s/events/prepage/prepage_window_open",
		 root);
	if (access(path, F_OK)) {
		settings_restore();
		SKIP(return, "kernel lacks the prepage events");
	}
	snprintf(self->inst, sizeof(self->inst),
		 "%s/instances/prepage_events_%d", root, getpid());
	SETUP_ASSERT(!mkdir(self->inst, 0700));
	snprintf(path, sizeof(path), "%s/buffer_size_kb", self->inst);
	SETUP_ASSERT(!write_str(path, "256"));
	/* Events of different CPUs in the order they happened. */
	snprintf(path, sizeof(path), "%s/trace_clock", self->inst);
	SETUP_ASSERT(!write_str(path, "global"));
	snprintf(path, sizeof(path), "%s/events/prepage/enable", self->inst);
	SETUP_ASSERT(!write_str(path, "1"));
}

FIXTURE_TEARDOWN(trace)
{
	settings_restore();
	if (self->inst[0])
		rmdir(self->inst);
}

/*
 * A file of NR_PAGES pages under PREPAGE_TESTDIR, not cached; its inode
 * number in @ino (hex, as the events print it). -1, or -2 if its cache
 * cannot be dropped.
 */
static int test_file(char *path, char *ino, size_t size)
{
	const char *dir = getenv("PREPAGE_TESTDIR");
	char *page = calloc(1, psz);
	struct stat st;
	int fd, i;

	snprintf(path, PATH_MAX, "%s/prepage_trace.XXXXXX", dir ? dir : "/tmp");
	fd = page ? mkstemp(path) : -1;
	for (i = 0; fd >= 0 && i < NR_PAGES; i++)
		if (write(fd, page, psz) != psz)
			fd = -1;
	free(page);
	if (fd < 0 || fsync(fd) || fstat(fd, &st))
		return -1;
	snprintf(ino, size, "%llx", (unsigned long long)st.st_ino);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	return fd;
}

/* All of @fd's pages cached? */
static bool all_cached(int fd)
{
	unsigned char vec[NR_PAGES];
	void *map = mmap(NULL, NR_PAGES * psz, PROT_READ, MAP_SHARED, fd, 0);
	bool all = map != MAP_FAILED && !mincore(map, NR_PAGES * psz, vec);
	int i;

	for (i = 0; all && i < NR_PAGES; i++)
		all = vec[i] & 1;
	if (map != MAP_FAILED)
		munmap(map, NR_PAGES * psz);
	return all;
}

/*
 * NR_PAGES anonymous pages, not THP, page i holding i + 1 in its first
 * byte; MAP_FAILED if they cannot be mapped.
 */
static char *anon_pages(void)
{
	char *buf = mmap(NULL, NR_PAGES * psz, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	if (buf == MAP_FAILED)
		return buf;
	madvise(buf, NR_PAGES * psz, MADV_NOHUGEPAGE);
	for (i = 0; i < NR_PAGES; i++)
		buf[i * psz] = i + 1;
	return buf;
}

/*
 * Windows ended, restarted and reset; the file prepager done with the
 * whole file, then with nothing left to read (the restarted window keeps
 * the pages prepaged before the restart), then out of budget.
 */
TEST_F(trace, windows)
{
	char path[PATH_MAX], ino[32], line[PATH_MAX + 64], want[1024];
	int fd;

	fd = test_file(path, ino, sizeof(ino));
	ASSERT_LE(0, fd);
	if (all_cached(fd) && !unlink(path) && !close(fd))
		SKIP(return, "the test file's pages cannot be dropped");
	snprintf(line, sizeof(line), "%s 0:%ld\n", path, NR_PAGES * psz);
	ASSERT_EQ(0, load(line));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	ASSERT_EQ(0, ctl("end"));
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	ASSERT_EQ(0, knob_set("max_switch_kbytes", 0));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	ASSERT_EQ(0, ctl("reset"));

	/*
	 * The metadata pass reads page 0, the data pass the rest; after the
	 * restart the metadata pass finds page 0 cached, and the data pass
	 * leaves the extent out, all of it cached. The restarted window counts
	 * what was prepaged since its first start; its log lacks the
	 * accesses before the restart, so its end evicts nothing from the
	 * target.
	 */
	snprintf(want, sizeof(want),
		 "window_open restart=0 lead=none\n"
		 "file_extent ino=%s index=0 nr=1 added=1\n"
		 "file_extent ino=%s index=0 nr=%d added=%d\n"
		 "file_done ino=%s prepaged=%d reason=done\n"
		 "window_close reason=restart file_prepaged=%d file_hit=0 file_miss=0 anon_prepaged=0 anon_hit=0 anon_miss=0\n"
		 "window_open restart=1 lead=none\n"
		 "file_extent ino=%s index=0 nr=1 added=0\n"
		 "file_done ino=%s prepaged=%d reason=done\n"
		 "window_close reason=end file_prepaged=%d file_hit=0 file_miss=0 anon_prepaged=0 anon_hit=0 anon_miss=0\n"
		 "window_open restart=0 lead=none\n"
		 "file_done ino=%s prepaged=0 reason=budget\n"
		 "window_close reason=reset file_prepaged=0 file_hit=0 file_miss=0 anon_prepaged=0 anon_hit=0 anon_miss=0",
		 ino, ino, NR_PAGES, NR_PAGES - 1, ino, NR_PAGES, NR_PAGES,
		 ino, ino, NR_PAGES, NR_PAGES, ino);
	EXPECT_EQ(12, events(self->inst, getpid(), self->out, sizeof(self->out)));
	EXPECT_STREQ(want, self->out);
	close(fd);
	unlink(path);
}

/*
 * One window over a test file of NR_PAGES pages, none of it cached,
 * whose table is the @nr ranges [page, pages] of @ranges, reset once
 * its prepagers are done; the file's inode number in @ino. Return: 0,
 * 1 if the file's pages cannot be dropped, or -1.
 */
static int window_over(const int ranges[][2], int nr, char *ino,
		       size_t size)
{
	char path[PATH_MAX], line[PATH_MAX + 256];
	int fd, i, len, ret = -1;

	fd = test_file(path, ino, size);
	if (fd < 0)
		return -1;
	if (all_cached(fd)) {
		ret = 1;
		goto out;
	}
	len = snprintf(line, sizeof(line), "%s ", path);
	for (i = 0; i < nr; i++)
		len += snprintf(line + len, sizeof(line) - len, "%s%ld:%ld",
				i ? "," : "", ranges[i][0] * psz,
				ranges[i][1] * psz);
	snprintf(line + len, sizeof(line) - len, "\n");
	if (!load(line) && !ctl("start") && !wait_prepaged() && !ctl("reset"))
		ret = 0;
out:
	close(fd);
	unlink(path);
	return ret;
}

/* Two pages at 0, 8, 20, 34 and 40. */
static const int five_ranges[][2] = {
	{ 0, 2 }, { 8, 2 }, { 20, 2 }, { 34, 2 }, { 40, 2 },
};

/*
 * The metadata pass reads one target page per file/metadata_stride_pages of
 * the file, each at least a stride past the last, and target pages
 * only: with a stride of 16, of five_ranges it reads pages 0, 20 and 40
 * (not 34, not one per range nor one per stride-aligned block, and not
 * the pages 16 and 32 of the gaps of a merged read). The data pass then
 * reads the ranges apart (file/merge_gap_pages 0), or as one (16).
 */
TEST_F(trace, metadata_stride)
{
	static const struct {
		int gap, nr;
		int read[5][3];		/* the data pass: index, nr, added */
	} cases[] = {
		{ 0, 5, { { 0, 2, 1 }, { 8, 2, 2 }, { 20, 2, 1 }, { 34, 2, 2 },
			  { 40, 2, 1 } } },
		{ 16, 1, { { 0, 42, 39 } } },
	};
	char ino[32], want[1024], path[512];
	int i, len, ret, prepaged;
	unsigned int c;

	snprintf(path, sizeof(path), "%s/trace", self->inst);
	ASSERT_EQ(0, knob_set("file/metadata_stride_pages", 16));
	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		ASSERT_EQ(0, knob_set("file/merge_gap_pages", cases[c].gap));
		ASSERT_EQ(0, truncate_file(path));
		ret = window_over(five_ranges, 5, ino, sizeof(ino));
		if (ret == 1)
			SKIP(return, "the test file's pages cannot be dropped");
		ASSERT_EQ(0, ret);
		len = snprintf(want, sizeof(want), "window_open restart=0 lead=none\n");
		for (i = 0; i <= 40; i += 20)
			len += snprintf(want + len, sizeof(want) - len,
					"file_extent ino=%s index=%d nr=1 added=1\n",
					ino, i);
		for (i = prepaged = 0; i < cases[c].nr; i++) {
			const int *r = cases[c].read[i];

			len += snprintf(want + len, sizeof(want) - len,
					"file_extent ino=%s index=%d nr=%d added=%d\n",
					ino, r[0], r[1], r[2]);
			prepaged += r[1];
		}
		snprintf(want + len, sizeof(want) - len,
			 "file_done ino=%s prepaged=%d reason=done\n"
			 "window_close reason=reset file_prepaged=%d file_hit=0 file_miss=0 anon_prepaged=0 anon_hit=0 anon_miss=0",
			 ino, prepaged, prepaged);
		EXPECT_EQ(cases[c].nr + 6,
			  events(self->inst, getpid(), self->out,
				 sizeof(self->out)));
		EXPECT_STREQ(want, self->out)
			TH_LOG("file/merge_gap_pages %d", cases[c].gap);
	}
}

/*
 * A metadata pass longer than a work's turn on its thread resumes where
 * it stopped: with a stride of 4 over one 64-page range it reads pages
 * 0, 4, ... 60 (two turns of eight), then the data pass the other 48.
 */
TEST_F(trace, metadata_resume)
{
	static const int range[][2] = { { 0, NR_PAGES } };
	char ino[32], want[2048];
	int i, len, ret;

	ASSERT_EQ(0, knob_set("file/metadata_stride_pages", 4));
	ret = window_over(range, 1, ino, sizeof(ino));
	if (ret == 1)
		SKIP(return, "the test file's pages cannot be dropped");
	ASSERT_EQ(0, ret);
	len = snprintf(want, sizeof(want), "window_open restart=0 lead=none\n");
	for (i = 0; i < NR_PAGES; i += 4)
		len += snprintf(want + len, sizeof(want) - len,
				"file_extent ino=%s index=%d nr=1 added=1\n",
				ino, i);
	snprintf(want + len, sizeof(want) - len,
		 "file_extent ino=%s index=0 nr=%d added=%d\n"
		 "file_done ino=%s prepaged=%d reason=done\n"
		 "window_close reason=reset file_prepaged=%d file_hit=0 file_miss=0 anon_prepaged=0 anon_hit=0 anon_miss=0",
		 ino, NR_PAGES, NR_PAGES - NR_PAGES / 4, ino, NR_PAGES,
		 NR_PAGES);
	EXPECT_EQ(NR_PAGES / 4 + 4,
		  events(self->inst, getpid(), self->out, sizeof(self->out)));
	EXPECT_STREQ(want, self->out);
}

/*
 * An "end" returns before its window is counted: the settle work counts
 * it, and fires its close event, with nobody reading the counters or
 * the tables.
 */
TEST_F(trace, settle)
{
	int i, nr = 0;

	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, write_str("/proc/self/prepage", "end"));
	for (i = 0; i < 400 && nr < 2; i++) {
		nr = events(self->inst, getpid(), self->out, sizeof(self->out));
		if (nr < 2)
			usleep(5000);
	}
	EXPECT_EQ(2, nr);
	EXPECT_STREQ("window_open restart=0 lead=none\n"
		     "window_close reason=end file_prepaged=0 file_hit=0 file_miss=0 anon_prepaged=0 anon_hit=0 anon_miss=0",
		     self->out);
}

/* A process exits in a window: the window closes, "exit". */
TEST_F(trace, exit)
{
	pid_t pid = fork();
	int status;

	ASSERT_LE(0, pid);
	if (!pid)
		_exit(ctl("start") ? 1 : 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	EXPECT_EQ(2, events(self->inst, pid, self->out, sizeof(self->out)));
	EXPECT_STREQ("window_open restart=0 lead=none\n"
		     "window_close reason=exit file_prepaged=0 file_hit=0 file_miss=0 anon_prepaged=0 anon_hit=0 anon_miss=0",
		     self->out);
}

/* Processes that keep every CPU busy, to kill with spinners_stop(). */
static int spinners_start(pid_t *pids, int max)
{
	int i, n = sysconf(_SC_NPROCESSORS_ONLN);

	for (i = 0; i < n && i < max; i++) {
		pids[i] = fork();
		if (!pids[i]) {
			/* Not left spinning by a test that failed. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				;
		}
		if (pids[i] < 0)
			break;
	}
	return i;
}

static void spinners_stop(pid_t *pids, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
}

/* Whether event line @what is among the @pid's events, in @out. */
static bool has_event(const char *inst, pid_t pid, char *out, size_t size,
		      const char *what)
{
	return events(inst, pid, out, size) > 0 && strstr(out, what);
}

/*
 * The app is killed while its anonymous prepagers swap its pages in, as
 * a low-memory killer kills: they stop at once, for the exit, rather
 * than swap the rest of the victim in (their own reference keeps its
 * address space up until they are done). The app has KILLED_PAGES of
 * them, and a spinning process per CPU keeps the SCHED_IDLE prepagers
 * nearly off the CPUs from before the window opens until after the
 * kill, so that there is a rest to leave.
 */
#define KILLED_PAGES	4096

TEST_F(trace, killed)
{
	/* A line per batch: more than the fixture's buffer holds. */
	static char out[65536];
	char *buf, table[4096], swaps[4096], path[512], reason[16], *done, c;
	int i, round, nr_spin, prepaged, sync[2];
	pid_t pid, spin[64];

	if (read_file("/proc/swaps", swaps, sizeof(swaps)) <= 0 ||
	    !strchr(swaps, '\n') || !strchr(swaps, '\n')[1])
		SKIP(return, "no swap: the anonymous prepagers need one");
	buf = mmap(NULL, KILLED_PAGES * psz, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	madvise(buf, KILLED_PAGES * psz, MADV_NOHUGEPAGE);
	for (i = 0; i < KILLED_PAGES; i++)
		buf[i * psz] = (char)(i + 1);
	ASSERT_EQ(0, knob_set("anon/batch_pages", 16));
	for (round = 0; round < 2; round++) {
		ASSERT_TRUE(pageout(buf, 0, KILLED_PAGES));
		ASSERT_EQ(0, ctl("start"));
		for (i = 0; i < KILLED_PAGES; i++)
			ASSERT_EQ((char)(i + 1), buf[i * psz]);
		ASSERT_EQ(0, ctl("end"));
	}
	ASSERT_LT(0, dump(table, sizeof(table)));
	ASSERT_TRUE(!!strstr(table, "target=1"));
	ASSERT_TRUE(pageout(buf, 0, KILLED_PAGES));
	ASSERT_EQ(0, pipe(sync));
	/* Only the killed window's events: the learning ones were many. */
	snprintf(path, sizeof(path), "%s/trace", self->inst);
	ASSERT_EQ(0, truncate_file(path));

	nr_spin = spinners_start(spin, ARRAY_SIZE(spin));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* The parent's pages, swapped out, and its table. */
		c = load(table) || ctl("start") ? 'n' : 'y';
		if (write(sync[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	ASSERT_EQ(1, read(sync[0], &c, 1));
	ASSERT_EQ('y', c);
	/* A prepager at work for it: it holds the address space. */
	for (i = 0; i < 2000 && !has_event(self->inst, pid, out, sizeof(out),
					   "anon_batch");
	     i++)
		usleep(5000);
	ASSERT_GT(2000, i) TH_LOG("no prepager ran: %s", out);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	usleep(100000);
	spinners_stop(spin, nr_spin);
	for (i = 0; i < 2000 && !has_event(self->inst, pid, out, sizeof(out),
					   "anon_done");
	     i++)
		usleep(5000);
	ASSERT_GT(2000, i) TH_LOG("the prepagers did not stop: %s", out);
	done = strstr(out, "anon_done prepaged=");
	ASSERT_TRUE(!!done);
	i = sscanf(done, "anon_done prepaged=%d reason=%15s", &prepaged, reason);
	ASSERT_EQ(2, i);
	EXPECT_STREQ("exit", reason) TH_LOG("%s", out);
	EXPECT_GT(KILLED_PAGES / 2, prepaged) TH_LOG("%s", out);
	close(sync[0]);
	close(sync[1]);
	munmap(buf, KILLED_PAGES * psz);
}

/*
 * The anonymous prepagers: after two switches in which the app swapped
 * 64 pages in itself, the third prepages them, and then they are done.
 */
TEST_F(trace, anon)
{
	char *buf, swaps[4096];
	int i, round;

	if (read_file("/proc/swaps", swaps, sizeof(swaps)) <= 0 ||
	    !strchr(swaps, '\n') || !strchr(swaps, '\n')[1])
		SKIP(return, "no swap: the anonymous prepagers need one");
	buf = anon_pages();
	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_EQ(0, knob_set("anon/batch_pages", 16));
	for (round = 0; round < 3; round++) {
		ASSERT_TRUE(pageout(buf, 0, NR_PAGES));
		ASSERT_EQ(0, ctl("start"));
		ASSERT_EQ(0, wait_prepaged());
		for (i = 0; i < NR_PAGES; i++)
			ASSERT_EQ(i + 1, buf[i * psz]);
		ASSERT_EQ(0, ctl("end"));
	}
	EXPECT_EQ(NR_PAGES, stat_of("anon_prepaged"));
	/*
	 * The pages the app swaps in during the first window are candidates,
	 * promoted at the end of the second, where the app uses them again,
	 * and prepaged in the third in batches of anon/batch_pages (16).
	 */
	EXPECT_EQ(6 + NR_PAGES + 4 + 1,
		  events(self->inst, getpid(), self->out, sizeof(self->out)));
	EXPECT_STREQ("window_open restart=0 lead=none\n"
		     "window_close reason=end file_prepaged=0 file_hit=0 file_miss=0 anon_prepaged=0 anon_hit=0 anon_miss=64\n"
		     "window_open restart=0 lead=none\n"
		     "anon_promote*64\n"
		     "window_close reason=end file_prepaged=0 file_hit=0 file_miss=0 anon_prepaged=0 anon_hit=0 anon_miss=64\n"
		     "window_open restart=0 lead=none\n"
		     "anon_batch nr_pages=16 prepaged=16\n"
		     "anon_batch nr_pages=16 prepaged=16\n"
		     "anon_batch nr_pages=16 prepaged=16\n"
		     "anon_batch nr_pages=16 prepaged=16\n"
		     "anon_done prepaged=64 reason=done\n"
		     "window_close reason=end file_prepaged=0 file_hit=0 file_miss=0 anon_prepaged=64 anon_hit=64 anon_miss=0",
		     self->out);
	munmap(buf, NR_PAGES * psz);
}

/*
 * One switch of TEST(order): the app's pages are cold, a window opens,
 * the app waits for its prepagers if @wait, then swaps the NR_PAGES
 * pages of @anon in and reads those of file @fd, in the order @anon_first
 * says, and the window ends.
 */
static int order_round(char *anon, int fd, bool anon_first, bool wait)
{
	char *page = malloc(psz);
	int i, side, ret = -1;

	if (!page || !pageout(anon, 0, NR_PAGES) ||
	    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) || ctl("start") ||
	    (wait && wait_prepaged()))
		goto out;
	for (side = 0; side < 2; side++) {
		for (i = 0; i < NR_PAGES; i++) {
			if (side == !anon_first) {
				if (anon[i * psz] != (char)(i + 1))
					goto out;
			} else if (pread(fd, page, psz, i * psz) != psz) {
				goto out;
			}
		}
	}
	ret = ctl("end");
out:
	free(page);
	return ret;
}

/*
 * The side the app waited on first leads: its prepagers start when the
 * window opens, those of the other side once they are done. In the two
 * windows the app learns from, it swaps NR_PAGES anonymous pages in and
 * reads the NR_PAGES pages of a file itself, one side first; then the
 * file's table is loaded, and the third window prepages that side, then
 * the other. With order_sides off, the two sides start at once; the lead
 * is kept, and a reset forgets it.
 */
static void order_test(struct __test_metadata *_metadata, const char *inst,
		       char *out, size_t size, bool anon_first)
{
	char path[PATH_MAX], ino[32], line[PATH_MAX + 64], want[2048];
	const char *lead = anon_first ? "anon" : "file";
	char anon_done[512], file_done[256], closed[256], state[512];
	const char *other = anon_first ? "file" : "anon";
	char *buf, *rest, *ev, *save, *p, *last;
	int fd, round;

	if (!have_swap())
		SKIP(return, "no swap: the anonymous prepagers need one");
	fd = test_file(path, ino, sizeof(ino));
	ASSERT_LE(0, fd);
	if (all_cached(fd) && !unlink(path) && !close(fd))
		SKIP(return, "the test file's pages cannot be dropped");
	buf = anon_pages();
	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_EQ(0, knob_set("anon/batch_pages", NR_PAGES));
	/* No readahead: the app adds every page it reads itself. */
	ASSERT_EQ(0, posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM));
	for (round = 0; round < 2; round++)
		ASSERT_EQ(0, order_round(buf, fd, anon_first, false));
	snprintf(line, sizeof(line), "%s 0:%ld\n", path, NR_PAGES * psz);
	ASSERT_EQ(0, load(line));
	ASSERT_EQ(0, order_round(buf, fd, anon_first, true));
	ASSERT_EQ(0, knob_set("order_sides", 0));
	ASSERT_EQ(0, order_round(buf, fd, anon_first, true));
	/* The lead is kept with the sides unordered, and reset forgets it. */
	ASSERT_LT(0, read_file("/proc/self/prepage", state, sizeof(state)));
	snprintf(line, sizeof(line), "\nlead %s\n", lead);
	EXPECT_NE(NULL, strstr(state, line));
	ASSERT_EQ(0, ctl("reset"));
	ASSERT_LT(0, read_file("/proc/self/prepage", state, sizeof(state)));
	EXPECT_NE(NULL, strstr(state, "\nlead none\n"));

	snprintf(anon_done, sizeof(anon_done),
		 "anon_batch nr_pages=%d prepaged=%d\n"
		 "anon_done prepaged=%d reason=done\n",
		 NR_PAGES, NR_PAGES, NR_PAGES);
	snprintf(file_done, sizeof(file_done),
		 "file_extent ino=%s index=0 nr=1 added=1\n"
		 "file_extent ino=%s index=0 nr=%d added=%d\n"
		 "file_done ino=%s prepaged=%d reason=done\n",
		 ino, ino, NR_PAGES, NR_PAGES - 1, ino, NR_PAGES);
	/*
	 * The first window learns which side leads; at its end the swapped
	 * in pages are candidates, promoted at the end of the second, whose
	 * lead has nothing to prepage: the other side starts at once. The
	 * third prepages the lead side, then the other.
	 */
	snprintf(closed, sizeof(closed),
		 "window_close reason=end file_prepaged=%d file_hit=%d file_miss=0 anon_prepaged=%d anon_hit=%d anon_miss=0",
		 NR_PAGES, NR_PAGES, NR_PAGES, NR_PAGES);
	snprintf(want, sizeof(want),
		 "window_open restart=0 lead=none\n"
		 "window_close reason=end file_prepaged=0 file_hit=0 file_miss=%d anon_prepaged=0 anon_hit=0 anon_miss=%d\n"
		 "window_open restart=0 lead=%s\n"
		 "side_start side=%s why=done\n"
		 "anon_promote*%d\n"
		 "window_close reason=end file_prepaged=0 file_hit=0 file_miss=%d anon_prepaged=0 anon_hit=0 anon_miss=%d\n"
		 "window_open restart=0 lead=%s\n"
		 "%sside_start side=%s why=done\n%s%s\n"
		 "window_open restart=0 lead=none\n",
		 NR_PAGES, NR_PAGES, lead, other, NR_PAGES, NR_PAGES, NR_PAGES,
		 lead, anon_first ? anon_done : file_done, other,
		 anon_first ? file_done : anon_done, closed);
	EXPECT_EQ(8 + 2 + NR_PAGES + 2 * 5,
		  events(inst, getpid(), out, size));
	EXPECT_EQ(0, strncmp(want, out, strlen(want)));
	if (strncmp(want, out, strlen(want)))
		TH_LOG("want:\n%s\ngot:\n%s", want, out);
	/*
	 * Unordered, the two sides' events interleave: each of them once,
	 * then the close. The reset, with no window open, fires none.
	 */
	rest = out + strnlen(out, strlen(want));
	for (ev = strtok_r(strcat(anon_done, file_done), "\n", &save); ev;
	     ev = strtok_r(NULL, "\n", &save)) {
		p = strstr(rest, ev);
		EXPECT_TRUE(p && p[strlen(ev)] == '\n' &&
			    !strstr(p + 1, ev));
	}
	last = strrchr(out, '\n');
	ASSERT_NE(NULL, last);
	EXPECT_STREQ(closed, last + 1);
	munmap(buf, NR_PAGES * psz);
	close(fd);
	unlink(path);
}

TEST_F(trace, order_anon_first)
{
	order_test(_metadata, self->inst, self->out, sizeof(self->out),
		   true);
}

TEST_F(trace, order_file_first)
{
	order_test(_metadata, self->inst, self->out, sizeof(self->out),
		   false);
}

/*
 * Two processes are recorded at once; the file pages of the second are
 * those of the first, RECORD_SHIFT pages on.
 */
#define RECORD_SHIFT	32
/* prepagectl's note of how many pages were used in 1, 2 and 3 windows */
#define RECORD_HIST	"used in, 1 to 3: file %lu %lu %lu; anon %lu %lu %lu"

/* The accesses of recorded process @k in window @w of TEST(record). */
static void record_child_window(int fd, char *anon, int k, int w)
{
	static const struct { int file[9], nr_file, anon[4], nr_anon; } win[] = {
		{ { 0, 1, 2, 3, 4, 5, 6, 7, 20 }, 9, { 0, 1, 2, 3 }, 4 },
		{ { 0, 1, 2, 3, 4, 5, 6, 7, 10 }, 9, { 0, 1, 8 }, 3 },
		/* reset, not counted: 20 and 8 once more */
		{ { 20, 30, 31 }, 3, { 8 }, 1 },
		{ { 4, 5, 6, 7, 8, 9, 10, 11 }, 8, { 2, 3, 4, 5 }, 4 },
	};
	char *page = malloc(psz);
	int i;

	for (i = 0; page && i < win[w].nr_file; i++)
		if (pread(fd, page, psz,
			  (win[w].file[i] + k * RECORD_SHIFT) * psz) != psz)
			_exit(1);
	for (i = 0; anon && i < win[w].nr_anon; i++)
		if (anon[win[w].anon[i] * psz] != win[w].anon[i] + 1)
			_exit(1);
	free(page);
}

/*
 * Page the 16 anonymous pages of a recorded process out, all of them:
 * its accesses in the next window must all be swap-ins.
 */
static void record_child_pageout(char *anon)
{
	if (!pageout(anon, 0, 16))
		_exit(1);
}

/*
 * prepagectl record of two processes at once, over four known windows of
 * each, one of them reset: each table has exactly the file pages its
 * process read in at least 2 of the 3 counted windows (pages cached
 * before the recording included: the first process's 0-7; pages only
 * read ahead left out; nothing of the other process), with the file's
 * identity, and the anonymous pages it swapped in during at least 2 of
 * them.
 */
FIXTURE(record)
{
	char path[PATH_MAX], out[2][PATH_MAX + 8];
	pid_t pid[2];			/* the recorded processes, or 0 */
};

FIXTURE_SETUP(record)
{
	psz = sysconf(_SC_PAGESIZE);
	self->path[0] = '\0';
	self->out[0][0] = '\0';
	self->out[1][0] = '\0';
	self->pid[0] = 0;
	self->pid[1] = 0;
}

FIXTURE_TEARDOWN(record)
{
	int k;

	for (k = 0; k < 2; k++) {
		if (self->pid[k] > 0) {
			kill(self->pid[k], SIGKILL);
			waitpid(self->pid[k], NULL, 0);
		}
		if (self->out[k][0])
			unlink(self->out[k]);
	}
	settings_restore();
	if (self->path[0])
		unlink(self->path);
}

/* Start `prepagectl record` of @pid into @out; its standard error. */
static FILE *record_start(const char *ctlpath, pid_t pid, const char *out,
			  pid_t *rpid)
{
	char pidstr[16];
	int err[2];

	if (pipe(err))
		return NULL;
	snprintf(pidstr, sizeof(pidstr), "%d", pid);
	*rpid = fork();
	if (*rpid < 0)
		return NULL;
	if (!*rpid) {
		dup2(err[1], 2);
		close(err[0]);
		execl(ctlpath, "prepagectl", "record", "-p", pidstr, "-n", "3",
		      "-k", "2", "-o", out, (char *)NULL);
		_exit(127);
	}
	close(err[1]);
	return fdopen(err[0], "r");
}

TEST_F(record, tables)
{
	char ino[32], ctlpath[PATH_MAX], proc[2][64], timeout[16];
	char want[PATH_MAX + 256], got[PATH_MAX + 256], *anon = NULL, *p, c;
	int cmd[2][2], reply[2][2], fd, i, k, w, status;
	char *path = self->path;
	FILE *errf[2];
	pid_t rpid[2];
	const char *why;
	struct stat st;
	ssize_t n;

	why = setup_prepage();
	if (why)
		SKIP(return, "%s", why);
	if (!tracefs_root())
		SKIP(return, "tracefs is not available");
	n = readlink("/proc/self/exe", ctlpath, sizeof(ctlpath) - 16);
	ASSERT_LT(0, n);
	ctlpath[n] = '\0';
	p = strrchr(ctlpath, '/') + 1;
	snprintf(p, ctlpath + sizeof(ctlpath) - p, "prepagectl");
	ASSERT_EQ(0, access(ctlpath, X_OK));
	fd = test_file(path, ino, sizeof(ino));
	ASSERT_LE(0, fd);
	/* Pages 0-7 are cached before the recording starts. */
	p = malloc(psz);
	ASSERT_NE(NULL, p);
	for (i = 0; i < 8; i++)
		ASSERT_EQ(psz, pread(fd, p, psz, i * psz));
	free(p);
	if (have_swap()) {
		anon = mmap(NULL, 16 * psz, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, anon);
		madvise(anon, 16 * psz, MADV_NOHUGEPAGE);
	}
	/* Nothing prepaged: every access is the process's own. */
	ASSERT_EQ(0, knob_set("file/enabled", 0));
	ASSERT_EQ(0, knob_set("anon/enabled", 0));
	ASSERT_LT(0, read_file(SYSFS "anon/timeout", timeout, sizeof(timeout)));

	for (k = 0; k < 2; k++) {
		ASSERT_EQ(0, pipe(cmd[k]));
		ASSERT_EQ(0, pipe(reply[k]));
		self->pid[k] = fork();
		ASSERT_LE(0, self->pid[k]);
		if (!self->pid[k]) {
			cpu_set_t one;

			/*
			 * On one CPU: the LRU batch its faults fill is the
			 * one its pageout() drains.
			 */
			CPU_ZERO(&one);
			CPU_SET(sched_getcpu(), &one);
			sched_setaffinity(0, sizeof(one), &one);
			/* Its own pages, not shared with the parent: swappable. */
			for (i = 0; anon && i < 16; i++)
				anon[i * psz] = i + 1;
			/* 'o': page the anonymous memory out; '0'..'3': a window */
			while (read(cmd[k][0], &c, 1) == 1) {
				if (c == 'o' && anon)
					record_child_pageout(anon);
				else if (c != 'o')
					record_child_window(fd, anon, k, c - '0');
				if (write(reply[k][1], &c, 1) != 1)
					_exit(1);
			}
			_exit(0);
		}
		snprintf(proc[k], sizeof(proc[k]), "/proc/%d/prepage",
			 self->pid[k]);
		snprintf(self->out[k], sizeof(self->out[k]), "%s.table%d", path, k);
		errf[k] = record_start(ctlpath, self->pid[k], self->out[k],
				       &rpid[k]);
		ASSERT_NE(NULL, errf[k]);
		/* Its first line says it records. */
		ASSERT_NE(NULL, fgets(got, sizeof(got), errf[k]));
		ASSERT_NE(NULL, strstr(got, "recording process")) TH_LOG("%s", got);
	}

	/* The windows of the two processes in turn. */
	for (w = 0; w < 4; w++) {
		for (k = 0; k < 2; k++) {
			char verb = '0' + w;

			ASSERT_EQ(1, write(cmd[k][1], "o", 1));
			ASSERT_EQ(1, read(reply[k][0], &c, 1));
			ASSERT_EQ(0, write_str(proc[k], "start"));
			ASSERT_EQ(1, write(cmd[k][1], &verb, 1));
			ASSERT_EQ(1, read(reply[k][0], &c, 1));
			ASSERT_EQ(0, write_str(proc[k], w == 2 ? "reset" : "end"));
		}
	}
	ASSERT_EQ(0, fstat(fd, &st));
	for (k = 0; k < 2; k++) {
		long first = k * RECORD_SHIFT * psz;

		unsigned long hf[3] = { 0 }, ha[3] = { 0 };
		int hist = 0;

		ASSERT_EQ(rpid[k], waitpid(rpid[k], &status, 0));
		while (fgets(got, sizeof(got), errf[k])) {
			TH_LOG("prepagectl: %s", got);
			p = strstr(got, "used in, 1 to 3: file ");
			if (p)
				hist = sscanf(p, RECORD_HIST, &hf[0], &hf[1],
					      &hf[2], &ha[0], &ha[1], &ha[2]);
		}
		fclose(errf[k]);
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
		/*
		 * Its histogram: of the test file, 0-3 and 10 were used in two
		 * windows, 4-7 in three, 8, 9, 11 and 20 in one (pages of its
		 * program and libraries it first ran in a window can add to
		 * those); of the anonymous pages, 0-3 in two, 4, 5 and 8 in one.
		 */
		ASSERT_EQ(6, hist) TH_LOG("no histogram of process %d", k);
		EXPECT_LE(4, hf[0]);
		EXPECT_EQ(5, hf[1]);
		EXPECT_EQ(4, hf[2]);
		EXPECT_EQ(anon ? 3 : 0, ha[0]);
		EXPECT_EQ(anon ? 4 : 0, ha[1]);
		EXPECT_EQ(0, ha[2]);

		p = want + snprintf(want, sizeof(want),
				    "%s %ld:%ld,%ld:%ld ino=%llu size=%lld ctime=%lld.%09ld\n",
				    path, first, 8 * psz, first + 10 * psz, psz,
				    (unsigned long long)st.st_ino,
				    (long long)st.st_size,
				    (long long)st.st_ctim.tv_sec,
				    st.st_ctim.tv_nsec);
		if (anon)
			snprintf(p, want + sizeof(want) - p,
				 "anon %p:4 target=1 timeout=%ld\n", anon,
				 strtol(timeout, NULL, 10));
		memset(got, 0, sizeof(got));
		EXPECT_LE(0, read_file(self->out[k], got, sizeof(got)));
		EXPECT_STREQ(want, got) TH_LOG("process %d", k);
	}

	close(fd);
	if (anon)
		munmap(anon, 16 * psz);
}

TEST_HARNESS_MAIN
