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
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "prepage_util.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif
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

/*
 * The prepage events of process @pid in the instance's buffer, one per
 * line, as "EVENT KEY=VALUE..." with the fields the tests check: open
 * restart; close reason; file ino, prepaged, reason; anon prepaged,
 * reason. Return: the number of events, or -1.
 */
static int events(const char *inst, pid_t pid, char *out, size_t size)
{
	static const struct {
		const char *name, *keys[3];
	} evs[] = {
		{ "prepage_window_open:", { "restart" } },
		{ "prepage_window_close:", { "reason" } },
		{ "prepage_file_done:", { "ino", "prepaged", "reason" } },
		{ "prepage_anon_done:", { "prepaged", "reason" } },
	};
	char path[512], *buf = malloc(TRACE_SIZE), *line, *save;
	char want[32], val[64];
	int nr = 0;
	size_t len = 0;

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
		len += snprintf(out + len, size - len, "%s%.*s", nr ? "\n" : "",
				(int)strlen(evs[e].name) - 9, evs[e].name + 8);
		for (k = 0; k < 3 && evs[e].keys[k]; k++) {
			if (!field(line, evs[e].keys[k], val, sizeof(val)))
				snprintf(val, sizeof(val), "?");
			len += snprintf(out + len, size - len, " %s=%s",
					evs[e].keys[k], val);
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
	long old_budget;	/* max_switch_kbytes to restore, or -1 */
};

FIXTURE_SETUP(trace)
{
	const char *root;
	char path[512];

	psz = sysconf(_SC_PAGESIZE);
	self->inst[0] = '\0';
	self->old_budget = -1;
	if (prepage_unavailable())
		SKIP(return, "%s", prepage_unavailable());
	root = tracefs_root();
	if (!root)
		SKIP(return, "tracefs is not available");
	snprintf(path, sizeof(path), "%s/events/prepage/prepage_window_open",
		 root);
	if (access(path, F_OK))
		SKIP(return, "kernel lacks the prepage events");
	snprintf(self->inst, sizeof(self->inst),
		 "%s/instances/prepage_events_%d", root, getpid());
	ASSERT_EQ(0, mkdir(self->inst, 0700));
	snprintf(path, sizeof(path), "%s/buffer_size_kb", self->inst);
	ASSERT_EQ(0, write_str(path, "256"));
	snprintf(path, sizeof(path), "%s/events/prepage/enable", self->inst);
	ASSERT_EQ(0, write_str(path, "1"));
}

FIXTURE_TEARDOWN(trace)
{
	if (self->old_budget >= 0)
		set_knob("max_switch_kbytes", self->old_budget);
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
	self->old_budget = set_knob("max_switch_kbytes", 0);
	ASSERT_LE(0, self->old_budget);
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	ASSERT_EQ(0, ctl("reset"));

	snprintf(want, sizeof(want),
		 "window_open restart=0\n"
		 "file_done ino=%s prepaged=%d reason=done\n"
		 "window_close reason=restart\n"
		 "window_open restart=1\n"
		 "file_done ino=%s prepaged=%d reason=done\n"
		 "window_close reason=end\n"
		 "window_open restart=0\n"
		 "file_done ino=%s prepaged=0 reason=budget\n"
		 "window_close reason=reset",
		 ino, NR_PAGES, ino, NR_PAGES, ino);
	EXPECT_EQ(9, events(self->inst, getpid(), self->out, sizeof(self->out)));
	EXPECT_STREQ(want, self->out);
	close(fd);
	unlink(path);
}

/* A process exits in a window: the window closes, "gone". */
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
	EXPECT_STREQ("window_open restart=0\nwindow_close reason=gone",
		     self->out);
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
	buf = mmap(NULL, NR_PAGES * psz, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	madvise(buf, NR_PAGES * psz, MADV_NOHUGEPAGE);
	for (i = 0; i < NR_PAGES; i++)
		buf[i * psz] = i + 1;
	for (round = 0; round < 3; round++) {
		ASSERT_EQ(0, madvise(buf, NR_PAGES * psz, MADV_PAGEOUT));
		ASSERT_EQ(0, ctl("start"));
		ASSERT_EQ(0, wait_prepaged());
		for (i = 0; i < NR_PAGES; i++)
			ASSERT_EQ(i + 1, buf[i * psz]);
		ASSERT_EQ(0, ctl("end"));
	}
	EXPECT_EQ(NR_PAGES, stat_of("anon_prepaged"));
	EXPECT_EQ(7, events(self->inst, getpid(), self->out,
			    sizeof(self->out)));
	EXPECT_STREQ("window_open restart=0\nwindow_close reason=end\n"
		     "window_open restart=0\nwindow_close reason=end\n"
		     "window_open restart=0\n"
		     "anon_done prepaged=64 reason=done\n"
		     "window_close reason=end", self->out);
	munmap(buf, NR_PAGES * psz);
}

TEST_HARNESS_MAIN
