// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the anonymous access tracepoints (trace/events/anon.h):
 * exactly the pages a task touches produce mm_anon_fault/mm_anon_swapin
 * events, with the right addresses, and nothing else does.
 *
 * The events are enabled in a private tracefs instance, filtered to the
 * test's pid, so the global trace buffer and other tasks do not matter.
 * Swap-in tests need a swap device (the test VM uses zram) and SKIP
 * without one.
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
#include <unistd.h>

#include "../kselftest_harness.h"
#include "prepage_util.h"

#define NR_PAGES	64

static size_t page_size;

/* The events one fault left in the trace: one line, parsed. */
struct anon_event {
	unsigned long address;
	unsigned int nr_pages;
	int write, zero, sync;
	char source[16];
};

/* Expected contents of page @i: every word names the page. */
static uint64_t pattern(unsigned int i)
{
	return 0x5052455041474500ULL ^ ((uint64_t)i * 0x9e3779b97f4a7c15ULL);
}

FIXTURE(anon_trace) {
	char inst[256];
	char *buf;
	int pagemap;
};

FIXTURE_SETUP(anon_trace)
{
	const char *root;
	char path[512];

	page_size = getpagesize();
	self->buf = MAP_FAILED;
	self->pagemap = -1;
	self->inst[0] = '\0';

	root = tracefs_root();
	if (!root)
		SKIP(return, "tracefs is not available");
	snprintf(path, sizeof(path), "%s/events/anon/mm_anon_swapin", root);
	if (access(path, F_OK))
		SKIP(return, "kernel lacks the anon access tracepoints");

	snprintf(self->inst, sizeof(self->inst), "%s/instances/prepage_anon_%d",
		 root, getpid());
	ASSERT_EQ(0, mkdir(self->inst, 0700))
		TH_LOG("mkdir %s: %s", self->inst, strerror(errno));

	self->pagemap = open("/proc/self/pagemap", O_RDONLY);
	ASSERT_LE(0, self->pagemap);

	self->buf = mmap(NULL, NR_PAGES * page_size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
	/* One fault, one page: keep THP out of the exact counts. */
	ASSERT_EQ(0, madvise(self->buf, NR_PAGES * page_size, MADV_NOHUGEPAGE));
}

FIXTURE_TEARDOWN(anon_trace)
{
	if (self->buf != MAP_FAILED)
		munmap(self->buf, NR_PAGES * page_size);
	if (self->pagemap >= 0)
		close(self->pagemap);
	if (self->inst[0])
		rmdir(self->inst);
}

/* Enable @event (filtered to this pid) in the fixture's instance. */
static int trace_event(const char *inst, const char *event, bool on)
{
	char path[512], val[64];
	int ret;

	if (on) {
		snprintf(path, sizeof(path), "%s/events/anon/%s/filter",
			 inst, event);
		snprintf(val, sizeof(val), "common_pid == %d", getpid());
		ret = write_str(path, val);
		if (ret)
			return ret;
		snprintf(path, sizeof(path), "%s/trace", inst);
		ret = truncate_file(path);
		if (ret)
			return ret;
	}
	snprintf(path, sizeof(path), "%s/events/anon/%s/enable", inst, event);
	return write_str(path, on ? "1" : "0");
}

/* Collect the @event lines of the instance's buffer into @ev. */
static int read_events(const char *inst, const char *event,
		       struct anon_event *ev, int max)
{
	char path[512], line[512], tag[64];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace", inst);
	snprintf(tag, sizeof(tag), " %s: ", event);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct anon_event e = { 0 };
		char *p = strstr(line, tag);

		if (line[0] == '#' || !p)
			continue;
		p = strstr(p, "address=");
		if (!p || sscanf(p, "address=%lx nr_pages=%u", &e.address,
				 &e.nr_pages) != 2) {
			n = -EINVAL;
			break;
		}
		if (strstr(p, " zero=") &&
		    sscanf(strstr(p, " write="), " write=%d zero=%d",
			   &e.write, &e.zero) != 2) {
			n = -EINVAL;
			break;
		}
		if (strstr(p, " sync=") &&
		    sscanf(strstr(p, " write="), " write=%d sync=%d source=%15s",
			   &e.write, &e.sync, e.source) != 3) {
			n = -EINVAL;
			break;
		}
		if (n < max)
			ev[n] = e;
		n++;
	}
	fclose(f);
	return n;
}

static int page_index(const char *buf, unsigned long address)
{
	unsigned long start = (unsigned long)buf;

	if (address < start || address >= start + NR_PAGES * page_size)
		return -1;
	return (address - start) / page_size;
}

/*
 * First touch: writes map fresh pages, reads map the zero page, and a
 * write to a zero-page mapping is a COW (do_wp_page), not a first touch.
 */
TEST_F(anon_trace, first_touch)
{
	struct anon_event ev[NR_PAGES * 2];
	int seen[NR_PAGES] = { 0 };
	char *p = self->buf;
	int i, n, sum = 0;

	ASSERT_EQ(0, trace_event(self->inst, "mm_anon_fault", true));
	for (i = 0; i < 8; i++)
		p[i * page_size] = 1;
	for (i = 8; i < 12; i++)
		sum += p[i * page_size];
	p[8 * page_size] = 1;	/* COW of the zero page: no event */
	ASSERT_EQ(0, trace_event(self->inst, "mm_anon_fault", false));
	ASSERT_EQ(0, sum);	/* the reads happened, and read zeroes */

	n = read_events(self->inst, "mm_anon_fault", ev, NR_PAGES * 2);
	ASSERT_EQ(12, n);
	for (i = 0; i < n; i++) {
		int idx = page_index(self->buf, ev[i].address);

		ASSERT_LE(0, idx) TH_LOG("event outside the buffer: 0x%lx",
					 ev[i].address);
		ASSERT_GT(12, idx);
		ASSERT_EQ(1U, ev[i].nr_pages);
		ASSERT_EQ(idx < 8, ev[i].write);
		ASSERT_EQ(idx >= 8, ev[i].zero);
		seen[idx]++;
	}
	for (i = 0; i < 12; i++)
		ASSERT_EQ(1, seen[i]) TH_LOG("page %d: %d events", i, seen[i]);
}

/*
 * Swap-in: page the whole buffer out to swap, touch a known subset, every
 * other one of them by a write, and find exactly one swap-in event per
 * touched page, saying whether it was a write, and none for the rest,
 * which must still be swapped out.
 */
TEST_F(anon_trace, swapin_exact)
{
	static const int touched[] = { 0, 1, 2, 3, 10, 17, 18, 19, 20, 33, 62, 63 };
	const int nr_touched = ARRAY_SIZE(touched);
	struct anon_event ev[NR_PAGES * 2];
	int seen[NR_PAGES] = { 0 };
	bool want[NR_PAGES] = { false }, wrote[NR_PAGES] = { false };
	bool zram = swap_is_zram();
	int i, n;

	if (!have_swap())
		SKIP(return, "no swap device is active");

	for (i = 0; i < NR_PAGES; i++) {
		uint64_t *w = (uint64_t *)(self->buf + i * page_size);
		size_t j;

		for (j = 0; j < page_size / sizeof(*w); j++)
			w[j] = pattern(i);
	}
	ASSERT_TRUE(pageout(self->buf, 0, NR_PAGES))
		TH_LOG("MADV_PAGEOUT did not swap the buffer out");

	ASSERT_EQ(0, trace_event(self->inst, "mm_anon_swapin", true));
	for (i = 0; i < nr_touched; i++) {
		uint64_t *w = (uint64_t *)(self->buf + touched[i] * page_size);

		want[touched[i]] = true;
		/* A write first, not moved after the reads: a write fault. */
		wrote[touched[i]] = i & 1;
		if (wrote[touched[i]]) {
			__atomic_store_n(&w[1], pattern(touched[i]),
					 __ATOMIC_RELAXED);
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
		}
		ASSERT_EQ(pattern(touched[i]), w[0]);
		ASSERT_EQ(pattern(touched[i]), w[page_size / sizeof(*w) - 1]);
	}
	ASSERT_EQ(0, trace_event(self->inst, "mm_anon_swapin", false));

	n = read_events(self->inst, "mm_anon_swapin", ev, NR_PAGES * 2);
	ASSERT_EQ(nr_touched, n);
	for (i = 0; i < n; i++) {
		int idx = page_index(self->buf, ev[i].address);

		ASSERT_LE(0, idx) TH_LOG("event outside the buffer: 0x%lx",
					 ev[i].address);
		ASSERT_TRUE(want[idx]) TH_LOG("page %d was not touched", idx);
		ASSERT_EQ(1U, ev[i].nr_pages);
		/* A write that maps the page writable is still a write. */
		ASSERT_EQ(wrote[idx], ev[i].write) TH_LOG("page %d", idx);
		if (zram) {
			/* zram is SWP_SYNCHRONOUS_IO: read bypassing swapcache */
			ASSERT_EQ(1, ev[i].sync);
			ASSERT_STREQ("sync", ev[i].source);
		}
		seen[idx]++;
	}
	for (i = 0; i < NR_PAGES; i++) {
		uint64_t ent = pagemap_entry(self->pagemap, self->buf + i * page_size);

		ASSERT_EQ(want[i] ? 1 : 0, seen[i])
			TH_LOG("page %d: %d events", i, seen[i]);
		/* Untouched pages were not brought back by anything else. */
		ASSERT_EQ(!want[i], !!(ent & PM_SWAP)) TH_LOG("page %d", i);
		ASSERT_EQ(want[i], !!(ent & PM_PRESENT)) TH_LOG("page %d", i);
	}
}

TEST_HARNESS_MAIN
