// SPDX-License-Identifier: GPL-2.0
/*
 * Tests that nothing waits for a stuck prepager: an "end", a restarting
 * "start", a "start" right after an "end", and disabling prepage return
 * at once while a prepager is blocked in I/O; a reset and a table load
 * give up with -EBUSY after a bounded wait. Once the prepager is done,
 * what waited for it happens: the window is counted, the restarted
 * window's prepagers run, the state is released. Nor does anything wait
 * for an app that holds its own mmap lock across a slow fault.
 *
 * The prepager is blocked by a swap device whose every I/O completes
 * DELAY_MS after it was issued: a null_blk device (configfs, timer
 * completions), made for each test, with a higher priority than any
 * other swap. The test's pages are swapped out to it and dropped from
 * the swap cache (memory.reclaim of the test's own memory cgroup, the
 * rest of the test's memory locked), so that the prepager's swap-in
 * reads them from the device and waits DELAY_MS for each page. The
 * tests SKIP without null_blk or without a memory cgroup.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "prepage_util.h"

#define NR_PAGES	4
/* Every I/O of the swap device completes this long after it was issued. */
#define DELAY_MS	2000
/* What returns at once must return within this (the delay is longer). */
#define PROMPT_MS	1000
#define CONFIGFS	"/sys/kernel/config"
#define NULLB		CONFIGFS "/nullb"

static long psz;

static unsigned char pattern(unsigned long page)
{
	return (unsigned char)(page * 29 + 7);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Write "@val" to attribute @name of the null_blk device at @dir. */
static int nullb_set(const char *dir, const char *name, long val)
{
	char path[PATH_MAX + 64], buf[32];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(buf, sizeof(buf), "%ld", val);
	return write_str(path, buf);
}

/*
 * Make a null_blk device of @mb MiB whose I/O completes DELAY_MS late,
 * at configfs directory @dir, and a device node for it at @node.
 * Return: NULL, or why not.
 */
static const char *nullb_make(const char *dir, char *node, size_t size,
			      int mb)
{
	char path[PATH_MAX + 64], buf[64];
	unsigned int major, minor;
	const char *name;

	if (access(NULLB, F_OK))
		mount("configfs", CONFIGFS, "configfs", 0, NULL);
	if (access(NULLB, F_OK))
		return "no null_blk with configfs (CONFIG_BLK_DEV_NULL_BLK)";
	if (mkdir(dir, 0755))
		return "cannot make a null_blk device";
	if (nullb_set(dir, "size", mb) || nullb_set(dir, "blocksize", 4096) ||
	    nullb_set(dir, "memory_backed", 1) ||
	    nullb_set(dir, "irqmode", 2) ||
	    nullb_set(dir, "completion_nsec", DELAY_MS * 1000000L) ||
	    nullb_set(dir, "power", 1))
		return "cannot configure the null_blk device";
	/* The disk is named after the device's directory. */
	name = strrchr(dir, '/') + 1;
	snprintf(path, sizeof(path), "/sys/block/%s/dev", name);
	if (read_file(path, buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%u:%u", &major, &minor) != 2)
		return "no null_blk block device";
	snprintf(node, size, "/tmp/%s", name);
	unlink(node);
	if (mknod(node, S_IFBLK | 0600, makedev(major, minor)))
		return "cannot make the device node";
	return NULL;
}

/* Write a swap header (version 1, no bad pages) on @node, of @mb MiB. */
static bool mkswap(const char *node, int mb)
{
	char *hdr = calloc(1, psz);
	uint32_t *info = (uint32_t *)(hdr + 1024);
	int fd = open(node, O_WRONLY);
	bool ok;

	if (!hdr || fd < 0) {
		free(hdr);
		if (fd >= 0)
			close(fd);
		return false;
	}
	info[0] = 1;					/* version */
	info[1] = (uint32_t)((long)mb * 1024 * 1024 / psz - 1); /* last page */
	memcpy(hdr + psz - 10, "SWAPSPACE2", 10);
	ok = pwrite(fd, hdr, psz, 0) == psz && !fsync(fd);
	close(fd);
	free(hdr);
	return ok;
}

/* Pages of [buf, buf + NR_PAGES pages) resident or in the swap cache. */
static int resident(char *buf)
{
	unsigned char vec[NR_PAGES];
	int i, n = 0;

	if (mincore(buf, NR_PAGES * psz, vec))
		return -1;
	for (i = 0; i < NR_PAGES; i++)
		n += vec[i] & 1;
	return n;
}

/* Whether every page reads back what was written. */
static bool intact(char *buf)
{
	bool ok = true;
	int i;

	for (i = 0; i < NR_PAGES; i++)
		ok &= buf[i * psz] == (char)pattern(i) &&
		      buf[(i + 1) * psz - 1] == (char)pattern(i);
	return ok;
}

/* Kilobytes used on swap device @node, from /proc/swaps; -1 if none. */
static long swap_used(const char *node)
{
	char line[256], name[PATH_MAX];
	long size, used = -1;
	FILE *f = fopen("/proc/swaps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%s %*s %ld %ld", name, &size, &used) == 3 &&
		    !strcmp(name, node))
			break;
		used = -1;
	}
	if (f)
		fclose(f);
	return used;
}

/* The swap devices, as /proc/swaps lists them, for a message. */
static const char *swap_devices(void)
{
	static char buf[1024];

	if (read_file("/proc/swaps", buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	return buf;
}

/* Wait until no prepager of this process runs; 0, or -1 after 60 s. */
static int wait_idle(void)
{
	int i;

	for (i = 0; i < 600; i++) {
		if (read_key("/proc/self/prepage", "prepaging") == 0)
			return 0;
		usleep(100000);
	}
	return -1;
}

/* What a test's setup made, for its cleanup. */
struct stop_setup {
	char *buf;
	char dir[PATH_MAX];
	char node[PATH_MAX];
	char cg[PATH_MAX];
	bool swapped_on;
	bool in_cg;
};

FIXTURE(stop) {
	struct stop_setup s;
};

/* Undo what the setup did, as far as it got. */
static void stop_cleanup(struct stop_setup *st)
{
	/* Nothing of the test may be left on the device. */
	if (st->buf != MAP_FAILED)
		munmap(st->buf, NR_PAGES * psz);
	st->buf = MAP_FAILED;
	wait_idle();
	if (st->in_cg)
		memcg_leave(st->cg);
	st->in_cg = false;
	munlockall();
	if (st->swapped_on)
		swapoff(st->node);
	st->swapped_on = false;
	unlink(st->node);
	nullb_set(st->dir, "power", 0);
	rmdir(st->dir);
}

/* A setup that fails leaves nothing behind: no teardown runs then. */
#define STOP_SETUP_ASSERT(expr) do {					\
	bool __stop_ok = (expr);					\
									\
	if (!__stop_ok)							\
		stop_cleanup(&self->s);					\
	SETUP_ASSERT(__stop_ok);					\
} while (0)

FIXTURE_SETUP(stop)
{
	char reclaim[PATH_MAX + 16], table[128];
	const char *why;
	int i, mb = 16;

	psz = sysconf(_SC_PAGESIZE);
	self->s.buf = MAP_FAILED;
	self->s.swapped_on = false;
	self->s.in_cg = false;
	why = setup_prepage();
	if (why)
		SKIP(return, "%s", why);
	snprintf(self->s.dir, sizeof(self->s.dir), NULLB "/prepage-stop-%d",
		 getpid());
	why = nullb_make(self->s.dir, self->s.node, sizeof(self->s.node), mb);
	if (why) {
		stop_cleanup(&self->s);
		settings_restore();
		SKIP(return, "%s", why);
	}
	STOP_SETUP_ASSERT(mkswap(self->s.node, mb));
	/* Above every other swap device: the test's pages go there. */
	STOP_SETUP_ASSERT(!swapon(self->s.node, SWAP_FLAG_PREFER | 32767));
	self->s.swapped_on = true;
	/*
	 * Slots of the other swap devices that CPUs cached before (the
	 * swap slots cache) are handed out first, whatever the priority: a
	 * swapoff gives them back.
	 */
	STOP_SETUP_ASSERT(!swapoff(self->s.node));
	self->s.swapped_on = false;
	STOP_SETUP_ASSERT(!swapon(self->s.node, SWAP_FLAG_PREFER | 32767));
	self->s.swapped_on = true;
	/* Only the test buffer is to be reclaimed, not the test itself. */
	STOP_SETUP_ASSERT(!mlockall(MCL_CURRENT));
	why = memcg_enter(self->s.cg, sizeof(self->s.cg));
	if (why) {
		stop_cleanup(&self->s);
		settings_restore();
		SKIP(return, "%s", why);
	}
	self->s.in_cg = true;
	/*
	 * Free memory above the low watermark, whatever the tests before
	 * left in the page cache: below it the prepager would not start
	 * (a pressure stop), and nothing would block.
	 */
	sync();
	write_str("/proc/sys/vm/drop_caches", "3");
	self->s.buf = mmap(NULL, NR_PAGES * psz, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	STOP_SETUP_ASSERT(self->s.buf != MAP_FAILED);
	madvise(self->s.buf, NR_PAGES * psz, MADV_NOHUGEPAGE);
	for (i = 0; i < NR_PAGES; i++)
		memset(self->s.buf + i * psz, pattern(i), psz);
	STOP_SETUP_ASSERT(__pageout(self->s.buf, 0, NR_PAGES, false));
	/* Slots are taken from a device in batches: some, at least. */
	STOP_SETUP_ASSERT(swap_used(self->s.node) > 0);
	/* Written out after DELAY_MS; then out of the swap cache too. */
	usleep((DELAY_MS + 500) * 1000);
	snprintf(reclaim, sizeof(reclaim), "%s/memory.reclaim", self->s.cg);
	for (i = 0; i < 50 && resident(self->s.buf); i++) {
		write_str(reclaim, "16M");
		usleep(200000);
	}
	STOP_SETUP_ASSERT(resident(self->s.buf) == 0);
	snprintf(table, sizeof(table), "anon %p:%d target=1 timeout=5\n",
		 self->s.buf, NR_PAGES);
	STOP_SETUP_ASSERT(!load(table));
}

FIXTURE_TEARDOWN(stop)
{
	stop_cleanup(&self->s);
	settings_restore();
}

/*
 * Open a window whose anonymous prepager then waits for the device: its
 * first swap-in takes DELAY_MS.
 */
static int blocked_start(void)
{
	int ret = write_str("/proc/self/prepage", "start");

	usleep(300000);
	return ret;
}

/* An "end" returns at once; the window is counted once the prepager is done. */
TEST_F(stop, end)
{
	long t;

	ASSERT_EQ(0, blocked_start());
	ASSERT_EQ(1, read_key("/proc/self/prepage", "prepaging"))
		TH_LOG("prepaged %ld, resident %d, stops %ld/%ld/%ld, swaps %s",
		       stat_of("anon_prepaged"), resident(self->s.buf),
		       stat_of("pressure_stops"), stat_of("nomem_stops"),
		       stat_of("budget_stops"), swap_devices());
	t = now_ms();
	ASSERT_EQ(0, write_str("/proc/self/prepage", "end"));
	EXPECT_GT(PROMPT_MS, now_ms() - t);
	ASSERT_EQ(0, wait_idle());
	EXPECT_EQ(1, stat_of("switches"));
	EXPECT_EQ(1, stat_of("closed_stops"));
	/* Stopped after the page it waited for: the rest is the app's. */
	EXPECT_GT(NR_PAGES, stat_of("anon_prepaged"));
	EXPECT_EQ(stat_of("anon_prepaged"),
		  pagemap_count(self->s.buf, NR_PAGES, PM_PRESENT));
	EXPECT_TRUE(intact(self->s.buf));
}

/*
 * A "start" while the window's prepager is blocked restarts the window
 * at once; its prepagers go on with the plan once the stopped one is
 * done, and bring in the rest.
 */
TEST_F(stop, restart)
{
	long t;

	ASSERT_EQ(0, blocked_start());
	t = now_ms();
	ASSERT_EQ(0, write_str("/proc/self/prepage", "start"));
	EXPECT_GT(PROMPT_MS, now_ms() - t);
	ASSERT_EQ(0, wait_idle());
	EXPECT_EQ(NR_PAGES, pagemap_count(self->s.buf, NR_PAGES, PM_PRESENT));
	EXPECT_EQ(NR_PAGES, stat_of("anon_prepaged"));
	EXPECT_EQ(1, stat_of("restarts"));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(0, stat_of("closed_stops"));
	EXPECT_TRUE(intact(self->s.buf));
}

/*
 * A "start" right after an "end", the ended window's prepager still
 * blocked, opens the next window at once; the ended window is forgotten,
 * not counted, and the new window's prepagers start once the stopped one
 * is done.
 */
TEST_F(stop, end_then_start)
{
	long t;

	ASSERT_EQ(0, blocked_start());
	t = now_ms();
	ASSERT_EQ(0, write_str("/proc/self/prepage", "end"));
	ASSERT_EQ(0, write_str("/proc/self/prepage", "start"));
	EXPECT_GT(PROMPT_MS, now_ms() - t);
	ASSERT_EQ(0, wait_idle());
	EXPECT_EQ(NR_PAGES, pagemap_count(self->s.buf, NR_PAGES, PM_PRESENT));
	EXPECT_EQ(NR_PAGES, stat_of("anon_prepaged"));
	ASSERT_EQ(0, ctl("end"));
	EXPECT_EQ(2, stat_of("switches"));
	/* Neither window counted the app's use: it used nothing. */
	EXPECT_EQ(0, stat_of("anon_hit"));
	EXPECT_TRUE(intact(self->s.buf));
}

/*
 * The app touches a page the blocked prepager is reading: its fault
 * waits for that read and may map the page before the prepager does.
 * Either way the page was the prepager's read: one prepaged page, not a
 * miss (the app read nothing) nor an eviction. (Whether it counts as a
 * hit is not pinned: when the prepager maps it first, its walk of the
 * span, once the span's other pages are in, clears the accessed bit the
 * app's touch set.)
 */
TEST_F(stop, touch_while_prepaged)
{
	ASSERT_EQ(0, blocked_start());
	ASSERT_EQ(1, read_key("/proc/self/prepage", "prepaging"));
	/* Waits for the prepager's read of page 0. */
	EXPECT_EQ((char)pattern(0), self->s.buf[0]);
	ASSERT_EQ(0, write_str("/proc/self/prepage", "end"));
	ASSERT_EQ(0, wait_idle());
	EXPECT_EQ(0, stat_of("anon_miss"));
	EXPECT_EQ(0, stat_of("anon_evicted"));
	EXPECT_LE(1, stat_of("anon_prepaged"));
	EXPECT_TRUE(intact(self->s.buf));
}

/*
 * A table load and a reset wait for the prepagers they stop for a
 * bounded time only: -EBUSY while one is blocked, and nothing changed;
 * once it is done they go through.
 */
TEST_F(stop, reset_and_load)
{
	char table[128], buf[4096];
	long t;

	ASSERT_EQ(0, blocked_start());
	snprintf(table, sizeof(table), "anon %p:1 target=1 timeout=5\n",
		 self->s.buf);
	t = now_ms();
	EXPECT_EQ(-EBUSY, load(table));
	EXPECT_EQ(-EBUSY, ctl("reset"));
	EXPECT_GT(PROMPT_MS, now_ms() - t);
	/* The table is the one loaded before. */
	EXPECT_EQ(NR_PAGES, read_key("/proc/self/prepage",
				     "anon_target_pages"));
	ASSERT_EQ(0, wait_idle());
	EXPECT_EQ(0, load(table));
	EXPECT_EQ(1, read_key("/proc/self/prepage", "anon_target_pages"));
	EXPECT_EQ(0, ctl("reset"));
	ASSERT_LE(0, dump(buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
	EXPECT_TRUE(intact(self->s.buf));
}

/*
 * Disabling prepage returns at once; the prepage threads go once the
 * blocked one is done, and prepage can be enabled again meanwhile.
 */
TEST_F(stop, disable)
{
	long t;

	ASSERT_EQ(0, blocked_start());
	t = now_ms();
	ASSERT_EQ(0, write_str(SYSFS "enabled", "0"));
	EXPECT_GT(PROMPT_MS, now_ms() - t);
	EXPECT_EQ(0, read_key("/proc/self/prepage", "prepaging"));
	/* Enabled again before the blocked prepager is done. */
	ASSERT_EQ(0, write_str(SYSFS "enabled", "1"));
	usleep((DELAY_MS + 500) * 1000);
	ASSERT_EQ(0, write_str(SYSFS "enabled", "0"));
	EXPECT_TRUE(intact(self->s.buf));
}

struct holder {
	char *addr;
	size_t len;
	bool done;
	long ok;
	long ret;
	long ms;
	int err;
	bool go;
};

/*
 * Wait for @h->go: the threads, and what they allocate, are made before
 * the app is stuck, as mapping memory waits for the mmap lock too.
 */
static void holder_wait(struct holder *h)
{
	while (!__atomic_load_n(&h->go, __ATOMIC_SEQ_CST))
		usleep(1000);
}

static void holder_go(struct holder *h)
{
	__atomic_store_n(&h->go, true, __ATOMIC_SEQ_CST);
}

/*
 * Read @h->len bytes at @h->addr through /proc/self/mem: a remote access
 * (access_remote_vm()) that holds the mmap lock across the faults of the
 * pages, each a read from the slow device: DELAY_MS each.
 */
static void *mem_reader(void *arg)
{
	struct holder *h = arg;
	char *out = malloc(h->len);
	int fd = open("/proc/self/mem", O_RDONLY);
	long t0;

	holder_wait(h);
	t0 = now_ms();
	if (out && fd >= 0)
		h->ret = pread(fd, out, h->len, (off_t)(uintptr_t)h->addr);
	h->ms = now_ms() - t0;
	h->err = errno;
	h->ok = h->ret == (ssize_t)h->len;
	if (fd >= 0)
		close(fd);
	free(out);
	__atomic_store_n(&h->done, true, __ATOMIC_SEQ_CST);
	return NULL;
}

/* Unmap @h->addr: it waits for the mmap lock, behind the reader. */
static void *unmapper(void *arg)
{
	struct holder *h = arg;

	holder_wait(h);
	h->ok = !munmap(h->addr, h->len);
	__atomic_store_n(&h->done, true, __ATOMIC_SEQ_CST);
	return NULL;
}

/* Milliseconds a write of @val to @path took; -1 if it failed. */
static long timed_write(const char *path, const char *val)
{
	long t = now_ms();

	if (write_str(path, val))
		return -1;
	return now_ms() - t;
}

/*
 * An app stuck on its own mmap lock: one thread holds it across slow
 * faults (a read through /proc/self/mem of a mapping of another slow
 * null_blk device, without readahead: DELAY_MS a page), another waits
 * for it in munmap(), so that every later mmap_read_lock() waits too. An
 * "end" whose window is to be settled (its prepager had nothing to do),
 * a read of the counters, a "background", a "start" and disabling
 * prepage all return at once: the settle only tries the lock, and is
 * left to the settle work, then forgotten when the next window opens, as
 * is what "background" would forget. Once the app's threads are
 * through, prepage can be enabled again.
 */
TEST(stuck_app)
{
	struct holder hold, unmap = {};
	char table[128], dir[PATH_MAX], node[PATH_MAX], *res;
	pthread_t reader, unmapping;
	const char *why;
	int fd, i;
	long t;

	psz = sysconf(_SC_PAGESIZE);
	hold = (struct holder){ .len = NR_PAGES * psz };
	unmap.len = psz;
	why = setup_prepage();
	if (why)
		SKIP(return, "%s", why);
	snprintf(dir, sizeof(dir), NULLB "/prepage-hold-%d", getpid());
	why = nullb_make(dir, node, sizeof(node), 16);
	if (why) {
		rmdir(dir);
		settings_restore();
		SKIP(return, "%s", why);
	}
	fd = open(node, O_RDONLY);
	ASSERT_LE(0, fd);
	/* Away from what the partition scan read. */
	hold.addr = mmap(NULL, hold.len, PROT_READ, MAP_SHARED, fd, 8 << 20);
	ASSERT_NE(MAP_FAILED, hold.addr);
	/* A fault reads its page alone. */
	ASSERT_EQ(0, madvise(hold.addr, hold.len, MADV_RANDOM));

	/* A table of resident pages only: its window's prepager is done at once. */
	res = mmap(NULL, 16 * psz, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, res);
	for (i = 0; i < 16; i++)
		res[i * psz] = 1;
	unmap.addr = mmap(NULL, psz, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	ASSERT_NE(MAP_FAILED, unmap.addr);
	snprintf(table, sizeof(table), "anon %p:16 target=1 timeout=5\n", res);
	ASSERT_EQ(0, load(table));
	ASSERT_EQ(0, ctl("start"));
	ASSERT_EQ(0, wait_idle());

	ASSERT_EQ(0, pthread_create(&reader, NULL, mem_reader, &hold));
	ASSERT_EQ(0, pthread_create(&unmapping, NULL, unmapper, &unmap));
	/* The reader's buffer is mapped once it waits. */
	usleep(200000);
	t = now_ms();
	holder_go(&hold);
	usleep(300000);
	holder_go(&unmap);
	usleep(300000);
	ASSERT_FALSE(__atomic_load_n(&hold.done, __ATOMIC_SEQ_CST))
		TH_LOG("the read returned %ld (%s) in %ld ms, %ld ms ago",
		       hold.ret, strerror(hold.err), hold.ms, now_ms() - t);
	ASSERT_FALSE(__atomic_load_n(&unmap.done, __ATOMIC_SEQ_CST));

	t = timed_write("/proc/self/prepage", "end");
	EXPECT_LE(0, t);
	EXPECT_GT(PROMPT_MS, t);
	/* The settle work tries the lock meanwhile. */
	usleep(200000);
	t = now_ms();
	EXPECT_EQ(1, stat_of("switches"));
	EXPECT_GT(PROMPT_MS, now_ms() - t);
	t = timed_write("/proc/self/prepage", "background");
	EXPECT_LE(0, t);
	EXPECT_GT(PROMPT_MS, t);
	/* Its work tries the lock meanwhile, as the next start does. */
	usleep(200000);
	t = timed_write("/proc/self/prepage", "start");
	EXPECT_LE(0, t);
	EXPECT_GT(PROMPT_MS, t);
	t = now_ms();
	EXPECT_EQ(2, stat_of("switches"));
	EXPECT_GT(PROMPT_MS, now_ms() - t);
	t = timed_write(SYSFS "enabled", "0");
	EXPECT_LE(0, t);
	EXPECT_GT(PROMPT_MS, t);
	/* All of it while the app was still stuck. */
	EXPECT_FALSE(__atomic_load_n(&unmap.done, __ATOMIC_SEQ_CST));

	ASSERT_EQ(0, pthread_join(reader, NULL));
	ASSERT_EQ(0, pthread_join(unmapping, NULL));
	EXPECT_TRUE(hold.ok) TH_LOG("the read returned %ld (%s)", hold.ret,
				    strerror(hold.err));
	EXPECT_TRUE(unmap.ok);
	ASSERT_EQ(0, write_str(SYSFS "enabled", "1"));
	EXPECT_EQ(0, read_key("/proc/self/prepage", "prepaging"));
	munmap(res, 16 * psz);
	munmap(hold.addr, hold.len);
	close(fd);
	unlink(node);
	nullb_set(dir, "power", 0);
	rmdir(dir);
	settings_restore();
}

TEST_HARNESS_MAIN
