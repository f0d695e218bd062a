// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for anonymous prepaging: the tables learned from swap-in faults
 * and accessed bits, the prepager that swaps target pages in and maps
 * them, and the exact anon_prepaged / anon_hit / anon_miss counters.
 *
 * Pages are paged out with MADV_PAGEOUT and their state read from
 * /proc/self/pagemap, so the tests need swap (the test VM has zram) and
 * SKIP without it. Every page the tests touch is checked against the
 * pattern written before it was paged out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "prepage_util.h"

#define KPF_IDLE	25
#define NR_PAGES	256
#define PAGE_IDLE	"/sys/kernel/mm/page_idle/bitmap"

static long psz;

static unsigned char pattern(unsigned long page)
{
	return (unsigned char)(page * 13 + 5);
}

static void fill(char *buf, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		memset(buf + i * psz, pattern(i), psz);
}

/* Pages of [first, first + nr) whose pagemap entry has @bit. */
static int pages_with(char *buf, int first, int nr, uint64_t bit)
{
	return pagemap_count(buf + first * psz, nr, bit);
}

/*
 * Put the folios every CPU holds in its LRU batch on the LRU: a
 * prepager that moved to another CPU may have left its last ones there,
 * where idle page tracking does not see them. MADV_PAGEOUT drains the
 * batch of the CPU it runs on, here for a page outside the buffer.
 */
static void drain_lru_batches(void)
{
	char *page = mmap(NULL, psz, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long cpu, nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	cpu_set_t was, one;

	if (page == MAP_FAILED)
		return;
	/* Every CPU, not only those of the fixture's affinity. */
	if (!sched_getaffinity(0, sizeof(was), &was)) {
		for (cpu = 0; cpu < nr_cpus && cpu < CPU_SETSIZE; cpu++) {
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			if (!sched_setaffinity(0, sizeof(one), &one))
				madvise(page, psz, MADV_PAGEOUT);
		}
		sched_setaffinity(0, sizeof(was), &was);
	}
	munmap(page, psz);
}

/*
 * Mark pages [first, first + nr) idle through idle page tracking
 * (Documentation/admin-guide/mm/idle_page_tracking.rst); false if a PFN
 * cannot be read (it is 0 without CAP_SYS_ADMIN) or the bitmap written.
 * Whether a page is idle is read from its KPF_IDLE: the bitmap does not
 * report the last PFNs of memory if their number is not a multiple of
 * 64, and its write returns 0 for them (having marked them).
 */
static bool idle_mark(char *buf, int first, int nr)
{
	int pm = open("/proc/self/pagemap", O_RDONLY);
	int bitmap = open(PAGE_IDLE, O_WRONLY);
	bool ok = pm >= 0 && bitmap >= 0;
	int i;

	for (i = 0; i < nr && ok; i++) {
		uint64_t ent = pagemap_entry(pm, buf + (first + i) * psz);
		uint64_t pfn = ent & PM_PFN_MASK, word = BIT_ULL(pfn % 64);

		ok = (ent & PM_PRESENT) && pfn &&
		     pwrite(bitmap, &word, sizeof(word),
			    pfn / 64 * sizeof(word)) >= 0;
	}
	if (pm >= 0)
		close(pm);
	if (bitmap >= 0)
		close(bitmap);
	return ok;
}

/* Read pages [first, first + nr): false if one is not what was written. */
static bool touch(char *buf, int first, int nr)
{
	bool ok = true;
	int i;

	for (i = first; i < first + nr; i++)
		ok &= buf[i * psz] == (char)pattern(i) &&
		      buf[i * psz + psz - 1] == (char)pattern(i);
	return ok;
}

FIXTURE(anon)
{
	char *buf;
};

FIXTURE_SETUP(anon)
{
	const char *why;
	cpu_set_t one;

	psz = sysconf(_SC_PAGESIZE);
	self->buf = MAP_FAILED;
	/*
	 * Fault and page out on one CPU: pages sit in a per-CPU LRU batch
	 * for a while after a fault, where MADV_PAGEOUT on another CPU
	 * cannot take them.
	 */
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	sched_setaffinity(0, sizeof(one), &one);
	why = setup_prepage();
	if (why)
		SKIP(return, "%s", why);
	if (!have_swap()) {
		settings_restore();
		SKIP(return, "no swap: the anonymous tests need a swap device");
	}
	self->buf = mmap(NULL, NR_PAGES * psz, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	SETUP_ASSERT(self->buf != MAP_FAILED);
	/* Whole pages, no THP: the tables count base pages. */
	madvise(self->buf, NR_PAGES * psz, MADV_NOHUGEPAGE);
	fill(self->buf, NR_PAGES);
	SETUP_ASSERT(!knob_set("anon/timeout", 5));
	/* Two windows of use make a target here; promote_windows tests 3. */
	SETUP_ASSERT(!knob_set("anon/promote_windows", 2));
	if (!pageout(self->buf, 0, NR_PAGES)) {
		settings_restore();
		SKIP(return, "MADV_PAGEOUT does not swap the test buffer out");
	}
}

FIXTURE_TEARDOWN(anon)
{
	settings_restore();
	if (self->buf != MAP_FAILED)
		munmap(self->buf, NR_PAGES * psz);
}

/* One switch in which the app reads [first, first + nr) itself. */
static int plain_switch(char *buf, int first, int nr)
{
	if (!pageout(buf, 0, NR_PAGES) || ctl("start"))
		return -1;
	if (!touch(buf, first, nr))
		return -2;
	return ctl("end");
}

/* One switch in which the app reads [first, first + nr) once prepaged. */
static int prepaged_switch(char *buf, int first, int nr)
{
	if (!pageout(buf, 0, NR_PAGES) || ctl("start") || wait_prepaged())
		return -1;
	if (!touch(buf, first, nr))
		return -2;
	return ctl("end");
}

/*
 * One switch in which, once prepaged, [out, out + nr_out) is paged out
 * again, then the app reads [a, a + nr_a) and [b, b + nr_b).
 */
static int prepaged_switch_out(char *buf, int out, int nr_out, int a,
			       int nr_a, int b, int nr_b)
{
	if (!pageout(buf, 0, NR_PAGES) || ctl("start") || wait_prepaged())
		return -1;
	if (!pageout(buf, out, nr_out))
		return -3;
	if (!touch(buf, a, nr_a) || !touch(buf, b, nr_b))
		return -2;
	return ctl("end");
}

/*
 * Two switches in which the app swaps the whole buffer in itself make it
 * a target; then, paged out, it is all prepaged in a window left open.
 * Return: 0; -1 if a step failed; -2 if not all 64 pages were prepaged.
 */
static int prepaged_window(char *buf)
{
	if (plain_switch(buf, 0, 64) || plain_switch(buf, 0, 64) ||
	    !pageout(buf, 0, NR_PAGES) || ctl("start") || wait_prepaged())
		return -1;
	return stat_of("anon_prepaged") == 64 ? 0 : -2;
}

/*
 * The counters of prepage_stat, summed over the system in
 * /sys/kernel/mm/prepage/stat.
 */
static const char * const counters[] = {
	"switches", "restarts", "file_prepaged", "file_hit", "file_miss",
	"file_demoted", "file_evicted", "file_late", "file_stale",
	"budget_stops", "closed_stops", "nomem_stops", "log_dropped",
	"anon_prepaged", "anon_hit", "anon_miss", "anon_evicted",
	"anon_demoted", "anon_late", "file_sat_out", "anon_sat_out",
	"pressure_stops",
};

static long system_counter(const char *name)
{
	return read_key("/sys/kernel/mm/prepage/stat", name);
}

/*
 * With three windows of use to a target (the default): pages 0-63, which
 * the app swaps in during switch 1 and uses in switch 2, are candidates
 * still; 0-31, used in switch 3 too, are then targets. Switch 4: 0-31
 * are prepaged and the app uses 0-15; 16-31 go back to being candidates,
 * one window of use from a target. Switch 5: 0-15 are prepaged, the app
 * uses 16-31 only (swapping them in), and they are targets again.
 */
TEST_F(anon, promote_windows)
{
	char want[256], got[4096];

	ASSERT_EQ(0, knob_set("anon/promote_windows", 3));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_TRUE(touch(self->buf, 0, 64));
	ASSERT_EQ(0, ctl("end"));
	ASSERT_EQ(0, plain_switch(self->buf, 0, 64));
	EXPECT_EQ(64, read_key("/proc/self/prepage", "anon_candidate_pages"));
	EXPECT_EQ(0, read_key("/proc/self/prepage", "anon_target_pages"));

	ASSERT_EQ(0, plain_switch(self->buf, 0, 32));
	EXPECT_EQ(32, read_key("/proc/self/prepage", "anon_candidate_pages"));
	EXPECT_EQ(32, read_key("/proc/self/prepage", "anon_target_pages"));
	EXPECT_EQ(0, stat_of("anon_prepaged"));

	ASSERT_EQ(0, prepaged_switch(self->buf, 0, 16));
	EXPECT_EQ(32, stat_of("anon_prepaged"));
	EXPECT_EQ(16, stat_of("anon_hit"));
	EXPECT_EQ(48, read_key("/proc/self/prepage", "anon_candidate_pages"));
	EXPECT_EQ(16, read_key("/proc/self/prepage", "anon_target_pages"));

	ASSERT_EQ(0, prepaged_switch(self->buf, 16, 16));
	EXPECT_EQ(48, stat_of("anon_prepaged"));
	EXPECT_EQ(16, stat_of("anon_hit"));
	EXPECT_EQ(64 + 64 + 32 + 16, stat_of("anon_miss"));
	EXPECT_EQ(48, read_key("/proc/self/prepage", "anon_candidate_pages"));
	EXPECT_EQ(16, read_key("/proc/self/prepage", "anon_target_pages"));
	snprintf(want, sizeof(want),
		 "anon %p:16 target=0 timeout=4\n"
		 "anon %p:16 target=1 timeout=5\n"
		 "anon %p:32 target=0 timeout=2\n",
		 self->buf, self->buf + 16 * psz, self->buf + 32 * psz);
	ASSERT_LT(0, dump(got, sizeof(got)));
	EXPECT_STREQ(want, got);
}

/*
 * Switch 1: the app swaps pages 0-63 in itself: 64 misses, 64 new
 * candidates. Switch 2: again, and their accessed bits promote them.
 * Switch 3: the prepager swaps 0-63 in and maps them before the app
 * touches anything; the app reads 0-47 and 100-107: 64 prepaged,
 * 48 hits, 8 misses, and 48-63 are deactivated at the end.
 */
TEST_F(anon, hit_miss)
{
	long deactivated, vm[ARRAY_SIZE(counters)];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(counters); i++)
		vm[i] = system_counter(counters[i]);
	ASSERT_EQ(0, ctl("start"));
	ASSERT_TRUE(touch(self->buf, 0, 64));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(64, stat_of("anon_miss"));
	EXPECT_EQ(64, read_key("/proc/self/prepage", "anon_candidate_pages"));
	EXPECT_EQ(0, read_key("/proc/self/prepage", "anon_target_pages"));
	EXPECT_EQ(0, stat_of("anon_prepaged"));

	ASSERT_EQ(0, plain_switch(self->buf, 0, 64));
	EXPECT_EQ(128, stat_of("anon_miss"));
	EXPECT_EQ(0, read_key("/proc/self/prepage", "anon_candidate_pages"));
	EXPECT_EQ(64, read_key("/proc/self/prepage", "anon_target_pages"));
	EXPECT_EQ(0, stat_of("anon_prepaged"));

	ASSERT_TRUE(pageout(self->buf, 0, NR_PAGES));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	EXPECT_EQ(64, pages_with(self->buf, 0, 64, PM_PRESENT));
	EXPECT_EQ(NR_PAGES - 64,
		  pages_with(self->buf, 64, NR_PAGES - 64, PM_SWAP));
	EXPECT_EQ(64, stat_of("anon_prepaged"));
	ASSERT_TRUE(touch(self->buf, 0, 48));
	ASSERT_TRUE(touch(self->buf, 100, 8));
	/* -1 without CONFIG_VM_EVENT_COUNTERS */
	deactivated = vmstat_of("pgdeactivate");
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(64, stat_of("anon_prepaged"));
	EXPECT_EQ(48, stat_of("anon_hit"));
	EXPECT_EQ(136, stat_of("anon_miss"));
	EXPECT_EQ(750, stat_of("anon_precision_permille"));
	EXPECT_EQ(0, stat_of("anon_evicted"));
	/* 48-63, prepaged and not used, are deactivated. */
	EXPECT_EQ(16, stat_of("anon_demoted"));
	/* 100-107 were not planned: missed, not late. */
	EXPECT_EQ(0, stat_of("anon_late"));
	if (deactivated >= 0)
		EXPECT_LE(16, vmstat_of("pgdeactivate") - deactivated);
	/*
	 * 48-63 were not used: back to candidates (timeout not reached),
	 * with 100-107, new ones.
	 */
	EXPECT_EQ(48, read_key("/proc/self/prepage", "anon_target_pages"));
	EXPECT_EQ(24, read_key("/proc/self/prepage", "anon_candidate_pages"));
	/*
	 * No other process switches: the system counters moved as this
	 * one's, which started at 0.
	 */
	for (i = 0; i < ARRAY_SIZE(counters); i++) {
		ASSERT_LE(0, vm[i]) TH_LOG("no system %s", counters[i]);
		EXPECT_EQ(stat_of(counters[i]),
			  system_counter(counters[i]) - vm[i])
			TH_LOG("system %s", counters[i]);
	}
	/* Every page holds what was written before the first page-out. */
	EXPECT_TRUE(touch(self->buf, 0, NR_PAGES));
}

/*
 * With no budget the window is planned and nothing is prepaged: the
 * target pages the app swaps in itself are late, the others only missed.
 */
TEST_F(anon, late)
{
	ASSERT_EQ(0, knob_set("max_switch_kbytes", 0));
	ASSERT_EQ(0, plain_switch(self->buf, 0, 64));
	ASSERT_EQ(0, plain_switch(self->buf, 0, 64));
	ASSERT_EQ(64, read_key("/proc/self/prepage", "anon_target_pages"));
	ASSERT_EQ(0, prepaged_switch(self->buf, 32, 64));
	EXPECT_EQ(0, stat_of("anon_prepaged"));
	EXPECT_EQ(128 + 64, stat_of("anon_miss"));
	EXPECT_EQ(32, stat_of("anon_late"));
}

/*
 * A swap-in the app takes from the swap cache (the pages read ahead,
 * here by MADV_WILLNEED) waits for no read: it is not a miss, though
 * its pages are learned as candidates, as a miss's are.
 */
TEST_F(anon, swapcache_not_missed)
{
	unsigned char vec[64];
	int i, in = 0;

	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, madvise(self->buf, 64 * psz, MADV_WILLNEED));
	for (i = 0; i < 100 && in < 64; i++) {
		ASSERT_EQ(0, mincore(self->buf, 64 * psz, vec));
		for (in = 0; in < 64 && (vec[in] & 1); in++)
			;
		usleep(50000);
	}
	ASSERT_EQ(64, in);
	/* In the swap cache, not mapped. */
	ASSERT_EQ(64, pages_with(self->buf, 0, 64, PM_SWAP));
	ASSERT_TRUE(touch(self->buf, 0, 64));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(0, stat_of("anon_miss"));
	EXPECT_EQ(64, read_key("/proc/self/prepage", "anon_candidate_pages"));
	/* A page read by the app's own fault is a miss again. */
	ASSERT_EQ(0, plain_switch(self->buf, 64, 8));
	EXPECT_EQ(8, stat_of("anon_miss"));
}

/*
 * Prepaged pages swapped out again before the app used them are
 * counted: 56-59 stay out, 60-63 the app swaps in again itself (hits,
 * and misses too); 48-55, never used, are the ones deactivated.
 */
TEST_F(anon, evicted)
{
	ASSERT_EQ(0, plain_switch(self->buf, 0, 64));
	ASSERT_EQ(0, plain_switch(self->buf, 0, 64));
	ASSERT_EQ(64, read_key("/proc/self/prepage", "anon_target_pages"));
	ASSERT_EQ(0, prepaged_switch_out(self->buf, 56, 8, 0, 48, 60, 4));
	EXPECT_EQ(64, stat_of("anon_prepaged"));
	EXPECT_EQ(52, stat_of("anon_hit"));
	EXPECT_EQ(128 + 4, stat_of("anon_miss"));
	EXPECT_EQ(8, stat_of("anon_evicted"));
	/* 48-55: prepaged, still mapped, not used. */
	EXPECT_EQ(8, stat_of("anon_demoted"));
	EXPECT_TRUE(touch(self->buf, 0, NR_PAGES));
}

/*
 * Back-off, as file.backoff: the app uses 16 of the 64 pages prepaged,
 * 250 permille, below min_precision_permille 500, so the anonymous
 * prepagers sit out the next window, in which the app swaps all 64 in
 * itself (and uses them: they are targets again); they prepage in the
 * one after, which pays.
 */
TEST_F(anon, backoff)
{
	ASSERT_EQ(0, knob_set("anon/min_precision_permille", 500));
	ASSERT_EQ(0, plain_switch(self->buf, 0, 64));
	ASSERT_EQ(0, plain_switch(self->buf, 0, 64));
	ASSERT_EQ(0, prepaged_switch(self->buf, 0, 16));
	EXPECT_EQ(64, stat_of("anon_prepaged"));
	EXPECT_EQ(16, stat_of("anon_hit"));
	EXPECT_EQ(0, stat_of("anon_sat_out"));

	ASSERT_EQ(0, prepaged_switch(self->buf, 0, 64));
	EXPECT_EQ(64, stat_of("anon_prepaged"));
	EXPECT_EQ(128 + 64, stat_of("anon_miss"));
	EXPECT_EQ(1, stat_of("anon_sat_out"));
	EXPECT_EQ(0, stat_of("file_sat_out"));

	ASSERT_EQ(0, prepaged_switch(self->buf, 0, 64));
	EXPECT_EQ(128, stat_of("anon_prepaged"));
	EXPECT_EQ(16 + 64, stat_of("anon_hit"));
	EXPECT_EQ(128 + 64, stat_of("anon_miss"));
	EXPECT_EQ(1, stat_of("anon_sat_out"));
}

/*
 * A page the prepager swaps back in is not a refault: the app's memory
 * cgroup counts none for the 64 pages prepaged (nor, then, the memory
 * stall of reading refaulting pages), and 64 when the app swaps them in
 * itself. The pages are charged to the cgroup and paged out from it, so
 * that their shadow entries are its own; the second part shows that the
 * cgroup counts refaults at all.
 */
TEST_F(anon, not_a_refault)
{
	char cg[PATH_MAX];
	const char *why;
	long before;

	why = memcg_enter(cg, sizeof(cg));
	if (why)
		SKIP(return, "%s", why);
	/* The fixture's pages are the root cgroup's: new ones. */
	munmap(self->buf, NR_PAGES * psz);
	self->buf = mmap(NULL, NR_PAGES * psz, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
	madvise(self->buf, NR_PAGES * psz, MADV_NOHUGEPAGE);
	fill(self->buf, NR_PAGES);
	ASSERT_EQ(0, plain_switch(self->buf, 0, 64));
	ASSERT_EQ(0, plain_switch(self->buf, 0, 64));
	ASSERT_EQ(64, read_key("/proc/self/prepage", "anon_target_pages"));
	ASSERT_TRUE(pageout(self->buf, 0, NR_PAGES));
	before = memcg_stat(cg, "workingset_refault_anon");
	ASSERT_LE(0, before);
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(64, stat_of("anon_prepaged"));
	EXPECT_EQ(before, memcg_stat(cg, "workingset_refault_anon"));

	ASSERT_TRUE(pageout(self->buf, 0, 64));
	before = memcg_stat(cg, "workingset_refault_anon");
	ASSERT_TRUE(touch(self->buf, 0, 64));
	EXPECT_EQ(before + 64, memcg_stat(cg, "workingset_refault_anon"));
	EXPECT_TRUE(touch(self->buf, 0, NR_PAGES));
	munmap(self->buf, NR_PAGES * psz);
	self->buf = MAP_FAILED;
	memcg_leave(cg);
}

/*
 * Pages the prepager swaps in are protected while the window is open,
 * as prepaged file pages are: with the classic LRU (MGLRU off; its
 * generations are not in /proc/kpageflags) they are active, where a
 * swap-in fault alone leaves them inactive unless its refault is recent.
 * At the end the ones the app used stay active, the others are
 * deactivated.
 */
TEST_F(anon, active_in_window)
{
	if (!access(LRU_GEN, F_OK))
		ASSERT_EQ(0, setting_write(LRU_GEN, "0"));
	ASSERT_EQ(0, prepaged_window(self->buf));
	ASSERT_TRUE(touch(self->buf, 0, 32));
	/* The end drains every CPU's LRU batches before it demotes. */
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(32, stat_of("anon_hit"));
	EXPECT_EQ(32, stat_of("anon_demoted"));
	EXPECT_EQ(32, kpf_count(self->buf, 0, 32, KPF_ACTIVE));
	EXPECT_EQ(0, kpf_count(self->buf, 32, 32, KPF_ACTIVE));
	EXPECT_TRUE(touch(self->buf, 0, NR_PAGES));
}

/*
 * MGLRU's aging finds accesses in the page tables. The end of
 * a window clears the bits of the pages the app used, and moves each of
 * them to the youngest generation, as the aging would have on seeing its
 * bit (counted in pgactivate): 32 used of 64 prepaged, 32 activations
 * (more only from whatever else the system does meanwhile). The pages
 * not used are not moved up (they are demoted).
 */
TEST_F(anon, mglru_used_stay_young)
{
	long activated;

	if (access(LRU_GEN, F_OK))
		SKIP(return, "no MGLRU (CONFIG_LRU_GEN)");
	ASSERT_EQ(0, setting_write(LRU_GEN, "y"));
	if (vmstat_of("pgactivate") < 0)
		SKIP(return, "no pgactivate (CONFIG_VM_EVENT_COUNTERS)");
	ASSERT_EQ(0, prepaged_window(self->buf));
	ASSERT_TRUE(touch(self->buf, 0, 32));
	activated = vmstat_of("pgactivate");
	/* The end drains every CPU's LRU batches before it demotes. */
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(32, stat_of("anon_hit"));
	EXPECT_EQ(32, stat_of("anon_demoted"));
	activated = vmstat_of("pgactivate") - activated;
	/* All the used pages, not the others (or not all of them). */
	EXPECT_LE(32, activated);
	EXPECT_GT(64, activated);
	EXPECT_TRUE(touch(self->buf, 0, NR_PAGES));
}

/*
 * An accessed bit the end of a window clears is handed on to the folio,
 * as idle page tracking hands on the bits it clears, so that whoever
 * else reads accessed bits still sees the access: of 64 prepaged pages
 * marked idle, the 32 the app used are no longer idle after the end,
 * the other 32 still are.
 */
TEST_F(anon, idle_tracking_sees_use)
{
	if (access(PAGE_IDLE, F_OK))
		SKIP(return, "no idle page tracking (CONFIG_IDLE_PAGE_TRACKING)");
	ASSERT_EQ(0, prepaged_window(self->buf));
	drain_lru_batches();
	ASSERT_TRUE(idle_mark(self->buf, 0, 64));
	ASSERT_EQ(64, kpf_count(self->buf, 0, 64, KPF_IDLE));
	ASSERT_TRUE(touch(self->buf, 0, 32));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(32, stat_of("anon_hit"));
	EXPECT_EQ(0, kpf_count(self->buf, 0, 32, KPF_IDLE));
	EXPECT_EQ(32, kpf_count(self->buf, 32, 32, KPF_IDLE));
	EXPECT_TRUE(touch(self->buf, 0, NR_PAGES));
}

/*
 * Target pages the app cannot read (PROT_NONE, then execute-only, the
 * mapping's protection changed after they were learned) are not
 * prepaged: a read fault of the app would not map them. Once readable
 * again, they are.
 */
TEST_F(anon, unreadable_not_prepaged)
{
	char table[128];

	/* A target the app does not use in a window is one no more. */
	snprintf(table, sizeof(table), "anon %p:64 target=1 timeout=5\n",
		 self->buf);
	ASSERT_EQ(0, load(table));
	ASSERT_EQ(0, mprotect(self->buf, 64 * psz, PROT_NONE));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(0, stat_of("anon_prepaged"));
	EXPECT_EQ(64, pages_with(self->buf, 0, 64, PM_SWAP));

	ASSERT_EQ(0, load(table));
	ASSERT_EQ(0, mprotect(self->buf, 64 * psz, PROT_EXEC));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(0, stat_of("anon_prepaged"));
	EXPECT_EQ(64, pages_with(self->buf, 0, 64, PM_SWAP));

	ASSERT_EQ(0, load(table));
	ASSERT_EQ(0, mprotect(self->buf, 64 * psz, PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(64, stat_of("anon_prepaged"));
	EXPECT_EQ(64, pages_with(self->buf, 0, 64, PM_PRESENT));
	EXPECT_TRUE(touch(self->buf, 0, NR_PAGES));
}

/*
 * A reset deactivates the pages prepaged for the window that the app did
 * not use, and counts nothing. A restarted window, instead, keeps what
 * was prepaged for the window it restarts (it wants the same pages):
 * nothing is demoted at the restart, the new window finds the target
 * mapped and prepages nothing, and at its end the pages used since the
 * last end are hits, those used before the restart too (their accessed
 * bits count), and the others are deactivated.
 */
TEST_F(anon, discard_demotes)
{
	ASSERT_EQ(0, prepaged_window(self->buf));
	ASSERT_TRUE(touch(self->buf, 0, 48));
	ASSERT_EQ(0, ctl("reset"));
	EXPECT_EQ(16, stat_of("anon_demoted"));
	EXPECT_EQ(64, stat_of("anon_prepaged"));
	EXPECT_EQ(0, stat_of("anon_hit"));

	/* The tables are gone: these switches prepage nothing. */
	ASSERT_EQ(0, plain_switch(self->buf, 0, 64));
	ASSERT_EQ(0, plain_switch(self->buf, 0, 64));
	EXPECT_EQ(64, stat_of("anon_prepaged"));
	ASSERT_TRUE(pageout(self->buf, 0, NR_PAGES));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	ASSERT_TRUE(touch(self->buf, 0, 40));
	ASSERT_EQ(0, ctl("start"));
	EXPECT_EQ(16, stat_of("anon_demoted"));
	ASSERT_EQ(0, wait_prepaged());
	ASSERT_TRUE(touch(self->buf, 40, 8));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(128, stat_of("anon_prepaged"));
	EXPECT_EQ(48, stat_of("anon_hit"));
	EXPECT_EQ(16 + 16, stat_of("anon_demoted"));
	EXPECT_TRUE(touch(self->buf, 0, NR_PAGES));
}

/*
 * A page counts as used in a window if it was accessed after the last
 * window ended: accesses before that end do not count again (its
 * accessed bits were cleared, and the TLB flushed), accesses between two
 * windows do unless the app says it left the foreground in between (the
 * second half; background_forgets). After the two learning switches no
 * page is swapped out.
 */
TEST_F(anon, used_since_last_end)
{
	ASSERT_EQ(0, plain_switch(self->buf, 0, 64));
	ASSERT_EQ(0, plain_switch(self->buf, 0, 64));
	ASSERT_EQ(64, read_key("/proc/self/prepage", "anon_target_pages"));

	/* All 64 present, accessed before the last end, 0-15 again. */
	ASSERT_EQ(0, ctl("start"));
	ASSERT_TRUE(touch(self->buf, 0, 16));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(16, read_key("/proc/self/prepage", "anon_target_pages"));
	EXPECT_EQ(48, read_key("/proc/self/prepage", "anon_candidate_pages"));

	/* 16-23 accessed between two windows, nothing in the window. */
	ASSERT_TRUE(touch(self->buf, 16, 8));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(8, read_key("/proc/self/prepage", "anon_target_pages"));
	EXPECT_EQ(56, read_key("/proc/self/prepage", "anon_candidate_pages"));
	EXPECT_EQ(0, stat_of("anon_prepaged"));
	EXPECT_EQ(128, stat_of("anon_miss"));
}

/*
 * "background" forgets what the app used between two windows: all 64
 * pages present and targets, 0-31 used after the last end, then the app
 * says it left the foreground; the next window uses 0-15 only, and only
 * they stay targets (without "background", 0-31 would: see
 * used_since_last_end). It is refused in a window, and changes nothing
 * there.
 */
TEST_F(anon, background_forgets)
{
	ASSERT_EQ(0, plain_switch(self->buf, 0, 64));
	ASSERT_EQ(0, plain_switch(self->buf, 0, 64));
	ASSERT_EQ(64, read_key("/proc/self/prepage", "anon_target_pages"));

	ASSERT_TRUE(touch(self->buf, 0, 32));
	ASSERT_EQ(0, ctl("background"));
	/* Twice is once. */
	ASSERT_EQ(0, ctl("background"));
	/*
	 * A reader forgets it now if the settle work has not yet: "start"
	 * never walks the table.
	 */
	EXPECT_EQ(0, read_key("/proc/self/prepage", "prepaging"));
	ASSERT_EQ(0, ctl("start"));
	EXPECT_EQ(-EBUSY, ctl("background"));
	ASSERT_TRUE(touch(self->buf, 0, 16));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(16, read_key("/proc/self/prepage", "anon_target_pages"));
	EXPECT_EQ(48, read_key("/proc/self/prepage", "anon_candidate_pages"));
	EXPECT_EQ(0, stat_of("anon_prepaged"));
	EXPECT_EQ(128, stat_of("anon_miss"));
}

/*
 * A window's new candidates are added after the table is aged: with the
 * table full of candidates that time out in this window, the pages the
 * app swapped in take their place.
 */
TEST_F(anon, full_table_ages_first)
{
	ASSERT_EQ(0, knob_set("anon/max_pages", 64));
	ASSERT_EQ(0, knob_set("anon/timeout", 1));
	EXPECT_EQ(0, plain_switch(self->buf, 0, 64));
	EXPECT_EQ(64, read_key("/proc/self/prepage", "anon_candidate_pages"));
	EXPECT_EQ(0, plain_switch(self->buf, 64, 64));
	EXPECT_EQ(64, read_key("/proc/self/prepage", "anon_candidate_pages"));
	EXPECT_EQ(0, read_key("/proc/self/prepage", "anon_target_pages"));
	EXPECT_EQ(128, stat_of("anon_miss"));
}

/*
 * A target not used in a window is not prepaged in the next; an entry
 * whose page is not accessed for anon/timeout windows goes.
 */
TEST_F(anon, timeout)
{
	char want[128], got[4096];

	ASSERT_EQ(0, knob_set("anon/timeout", 2));
	ASSERT_EQ(0, plain_switch(self->buf, 0, 64));
	ASSERT_EQ(0, plain_switch(self->buf, 0, 64));
	EXPECT_EQ(64, read_key("/proc/self/prepage", "anon_target_pages"));

	/*
	 * Two windows in which only 0-31 are used: 32-63, prepaged in the
	 * first, are candidates in the second, and then time out.
	 */
	ASSERT_EQ(0, prepaged_switch(self->buf, 0, 32));
	EXPECT_EQ(64, stat_of("anon_prepaged"));
	EXPECT_EQ(32, read_key("/proc/self/prepage", "anon_target_pages"));
	EXPECT_EQ(32, read_key("/proc/self/prepage", "anon_candidate_pages"));
	ASSERT_EQ(0, prepaged_switch(self->buf, 0, 32));
	EXPECT_EQ(32, read_key("/proc/self/prepage", "anon_target_pages"));
	EXPECT_EQ(0, read_key("/proc/self/prepage", "anon_candidate_pages"));
	EXPECT_EQ(96, stat_of("anon_prepaged"));
	EXPECT_EQ(64, stat_of("anon_hit"));

	snprintf(want, sizeof(want), "anon %p:32 target=1 timeout=2\n",
		 self->buf);
	ASSERT_LT(0, dump(got, sizeof(got)));
	EXPECT_STREQ(want, got);
}

/* dump -> write back -> dump is identical. */
TEST_F(anon, round_trip)
{
	char table[256], first[4096], second[4096];

	snprintf(table, sizeof(table),
		 "anon %p:16 target=1 timeout=3\nanon %p:4 target=0 timeout=5\n",
		 self->buf, self->buf + 100 * psz);
	ASSERT_EQ(0, load(table));
	ASSERT_LT(0, dump(first, sizeof(first)));
	EXPECT_STREQ(table, first);
	EXPECT_EQ(16, read_key("/proc/self/prepage", "anon_target_pages"));
	EXPECT_EQ(4, read_key("/proc/self/prepage", "anon_candidate_pages"));
	ASSERT_EQ(0, ctl("reset"));
	ASSERT_EQ(0, load(first));
	ASSERT_LT(0, dump(second, sizeof(second)));
	EXPECT_STREQ(first, second);

	/* A table loaded by hand is prepaged like a learned one. */
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	EXPECT_EQ(16, stat_of("anon_prepaged"));
	EXPECT_EQ(16, pages_with(self->buf, 0, 16, PM_PRESENT));
	ASSERT_EQ(0, ctl("end"));

	/* Malformed anon lines change nothing. */
	EXPECT_EQ(-EINVAL, load("anon 0x1001:1 target=1 timeout=1\n"));
	EXPECT_EQ(-EINVAL, load("anon 0x1000:0 target=1 timeout=1\n"));
	EXPECT_EQ(-EINVAL, load("anon 0x1000:1 target=2 timeout=1\n"));
	EXPECT_EQ(-EINVAL, load("anon 0x1000:1 target=1 timeout=0\n"));
	EXPECT_EQ(-EINVAL, load("anon 0x1000:1 target=1\n"));
	EXPECT_EQ(-EINVAL, load("anon 0x1000:1 target=1 timeout=1 x=1\n"));
	ASSERT_LT(0, dump(second, sizeof(second)));
	ASSERT_EQ(0, ctl("reset"));
}

/*
 * After fork the pages are shared copy-on-write: the child's prepager
 * swaps them in for the child only, read-only, and the child's writes do
 * not reach the parent, whose pages stay swapped out and intact.
 */
/*
 * Tables are bounded by the work of a parse and by memory: pages count
 * whether or not lines overlap, entries spread too thinly (one XArray
 * node each) are refused, and addresses must be user addresses.
 */
TEST_F(anon, bounds)
{
	size_t size = 64 * 1024, len, len16;
	char *table = malloc(size);
	int i;

	ASSERT_NE(NULL, table);
	ASSERT_EQ(0, knob_set("anon/max_pages", 256));
	/* The same 200 pages twice: 400 pages of work, over 256. */
	snprintf(table, size, "anon %p:200 target=1 timeout=5\n"
		 "anon %p:200 target=1 timeout=5\n", self->buf, self->buf);
	EXPECT_EQ(-ENOSPC, load(table));
	/* 256 entries may use 16 chunks of 64 pages, not 17. */
	for (i = 0, len = 0, len16 = 0; i < 17; i++) {
		len16 = len;
		len += snprintf(table + len, size - len,
				"anon 0x%lx:1 target=1 timeout=5\n",
				0x10000000UL + i * 64 * psz);
	}
	EXPECT_EQ(-ENOSPC, load(table));
	EXPECT_EQ(0, read_key("/proc/self/prepage", "anon_target_pages"));
	table[len16] = '\0';	/* the first 16 lines */
	EXPECT_EQ(0, load(table));
	EXPECT_EQ(16, read_key("/proc/self/prepage", "anon_target_pages"));
	/* Kernel addresses, and ranges past any user address space. */
	EXPECT_EQ(-EINVAL, load("anon 0xfffffffffffff000:1 target=1 timeout=1\n"));
	EXPECT_EQ(-EINVAL, load("anon 0x200000000000000:1 target=1 timeout=1\n"));
	EXPECT_EQ(-EINVAL, load("anon 0x1000:0x10000000000000 target=1 timeout=1\n"));
	EXPECT_EQ(16, read_key("/proc/self/prepage", "anon_target_pages"));
	ASSERT_EQ(0, ctl("reset"));
	free(table);
}

TEST_F(anon, cow_after_fork)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char table[128];
		int i;

		snprintf(table, sizeof(table), "anon %p:64 target=1 timeout=5\n",
			 self->buf);
		if (load(table) || ctl("start") || wait_prepaged())
			_exit(1);
		if (stat_of("anon_prepaged") != 64 ||
		    pages_with(self->buf, 0, 64, PM_PRESENT) != 64)
			_exit(2);
		if (!touch(self->buf, 0, 64))
			_exit(3);
		for (i = 0; i < 64; i++)
			self->buf[i * psz] = ~pattern(i);
		_exit(ctl("end") ? 4 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status) TH_LOG("child failed at step %d", WEXITSTATUS(status));
	EXPECT_EQ(64, pages_with(self->buf, 0, 64, PM_SWAP));
	EXPECT_TRUE(touch(self->buf, 0, NR_PAGES));
	EXPECT_EQ(0, stat_of("anon_prepaged"));
}

/* A read-only mapping stays read-only when its pages are prepaged. */
TEST_F(anon, read_only)
{
	char table[128];
	int status;
	pid_t pid;

	ASSERT_EQ(0, mprotect(self->buf, 32 * psz, PROT_READ));
	snprintf(table, sizeof(table), "anon %p:32 target=1 timeout=5\n",
		 self->buf);
	ASSERT_EQ(0, load(table));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	EXPECT_EQ(32, stat_of("anon_prepaged"));
	EXPECT_EQ(32, pages_with(self->buf, 0, 32, PM_PRESENT));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		self->buf[0] = 1;
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
	ASSERT_EQ(0, ctl("end"));
	EXPECT_TRUE(touch(self->buf, 0, 32));
}

/*
 * MAP_SHARED anonymous memory is shmem: not the app's alone, and its
 * swapped pages are not in the page tables. Skipped by design.
 */
TEST_F(anon, shared_skipped)
{
	char table[128], *shm;

	shm = mmap(NULL, 32 * psz, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, shm);
	fill(shm, 32);
	madvise(shm, 32 * psz, MADV_PAGEOUT);
	snprintf(table, sizeof(table), "anon %p:32 target=1 timeout=5\n", shm);
	ASSERT_EQ(0, load(table));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	EXPECT_EQ(0, stat_of("anon_prepaged"));
	EXPECT_TRUE(touch(shm, 0, 32));
	ASSERT_EQ(0, ctl("end"));
	munmap(shm, 32 * psz);
}

/*
 * Table pages unmapped or moved between switches: the prepager skips
 * what is no longer there; moved pages are missed and learned anew.
 */
TEST_F(anon, munmap_mremap)
{
	char *moved;

	ASSERT_EQ(0, plain_switch(self->buf, 0, 128));
	ASSERT_EQ(0, plain_switch(self->buf, 0, 128));
	EXPECT_EQ(128, read_key("/proc/self/prepage", "anon_target_pages"));

	/*
	 * 64-95 move to a new place (taken first, so that it cannot be
	 * the hole 96-127 leave when they go away).
	 */
	moved = mmap(NULL, 32 * psz, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	ASSERT_NE(MAP_FAILED, moved);
	ASSERT_EQ(0, munmap(self->buf + 96 * psz, 32 * psz));
	ASSERT_EQ(moved, mremap(self->buf + 64 * psz, 32 * psz, 32 * psz,
				MREMAP_MAYMOVE | MREMAP_FIXED, moved));
	ASSERT_TRUE(pageout(self->buf, 0, 64));
	ASSERT_TRUE(pageout(moved, 0, 32));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_prepaged());
	EXPECT_EQ(64, stat_of("anon_prepaged"));
	ASSERT_TRUE(touch(self->buf, 0, 64));
	/* The moved pages still hold pages 64-95 of the pattern. */
	ASSERT_TRUE(touch(moved - 64 * psz, 64, 32));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(64, stat_of("anon_hit"));
	EXPECT_EQ(256 + 32, stat_of("anon_miss"));
	/* 64-127 of the old addresses were not used: candidates again. */
	EXPECT_EQ(64 + 32, read_key("/proc/self/prepage", "anon_candidate_pages"));
	munmap(moved, 32 * psz);
	/* Keep the teardown's munmap inside what is still mapped. */
	munmap(self->buf, 64 * psz);
	munmap(self->buf + 128 * psz, (NR_PAGES - 128) * psz);
	self->buf = MAP_FAILED;
}

static void *start_many(void *arg)
{
	long i, *failed = arg;

	for (i = 0; i < 100; i++)
		*failed += ctl("start") != 0;
	return NULL;
}

/* Concurrent starts from two writers: each one counts, none is lost. */
TEST_F(anon, concurrent_start)
{
	long failed[2] = { 0, 0 };
	pthread_t t;

	ASSERT_EQ(0, plain_switch(self->buf, 0, 64));
	ASSERT_EQ(0, plain_switch(self->buf, 0, 64));
	ASSERT_TRUE(pageout(self->buf, 0, NR_PAGES));
	ASSERT_EQ(0, pthread_create(&t, NULL, start_many, &failed[0]));
	start_many(&failed[1]);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, failed[0] + failed[1]);
	EXPECT_EQ(202, stat_of("switches"));
	EXPECT_EQ(199, stat_of("restarts"));
	ASSERT_EQ(0, wait_prepaged());
	ASSERT_EQ(0, ctl("end"));
	EXPECT_TRUE(touch(self->buf, 0, NR_PAGES));
}

/* The app exits while its anonymous prepagers run: no leak, no warning. */
TEST_F(anon, exit_during_prepage)
{
	int round, status;

	ASSERT_EQ(0, plain_switch(self->buf, 0, NR_PAGES));
	ASSERT_EQ(0, plain_switch(self->buf, 0, NR_PAGES));
	for (round = 0; round < 4; round++) {
		char table[4096];
		pid_t pid;

		ASSERT_LT(0, dump(table, sizeof(table)));
		ASSERT_TRUE(pageout(self->buf, 0, NR_PAGES));
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			_exit(load(table) || ctl("start") ? 1 : 0);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_EQ(0, status);
	}
	EXPECT_TRUE(touch(self->buf, 0, NR_PAGES));
}

TEST_HARNESS_MAIN
