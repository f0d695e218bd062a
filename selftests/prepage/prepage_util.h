/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the prepage selftests: the /proc/self/prepage* files,
 * the /sys/kernel/mm/prepage knobs, memory cgroups, swap and tracefs.
 */
#ifndef PREPAGE_UTIL_H
#define PREPAGE_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../kselftest.h"

#define SYSFS		"/sys/kernel/mm/prepage/"
#define PAGE_CLUSTER	"/proc/sys/vm/page-cluster"

/* /proc/self/pagemap (Documentation/admin-guide/mm/pagemap.rst) */
#ifndef BIT_ULL
#define BIT_ULL(nr)	(1ULL << (nr))
#endif
#define PM_PFN_MASK	(BIT_ULL(55) - 1)
#define PM_SWAP		BIT_ULL(62)
#define PM_PRESENT	BIT_ULL(63)
#define KPF_ACTIVE	6
#define LRU_GEN		"/sys/kernel/mm/lru_gen/enabled"

/* Write @len bytes to @path in one write(); 0 or -errno. */
static inline int write_file(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY);
	ssize_t ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, buf, len);
	ret = ret < 0 ? -errno : 0;
	close(fd);
	return ret;
}

static inline int write_str(const char *path, const char *s)
{
	return write_file(path, s, strlen(s));
}

/* Empty @path (a tracefs instance's trace buffer, say); 0 or -errno. */
static inline int truncate_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Read a whole (small) file into @buf; return its length or -errno. */
static inline int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, len = 0;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	if (n < 0)
		return -errno;
	buf[len] = '\0';
	return len;
}

/* Whether a swap device is active. */
static inline bool have_swap(void)
{
	char buf[4096];

	return read_file("/proc/swaps", buf, sizeof(buf)) > 0 &&
	       strchr(buf, '\n') && strchr(buf, '\n')[1];
}

/* Whether every active swap device is zram (swap-in is synchronous). */
static inline bool swap_is_zram(void)
{
	char line[256];
	bool zram = true;
	FILE *f = fopen("/proc/swaps", "r");

	if (!f || !fgets(line, sizeof(line), f)) {
		if (f)
			fclose(f);
		return false;
	}
	while (fgets(line, sizeof(line), f))
		zram &= !strncmp(line, "/dev/zram", 9);
	fclose(f);
	return zram;
}

/* The /proc/self/pagemap entry (open in @fd) of the page at @addr, or 0. */
static inline uint64_t pagemap_entry(int fd, const void *addr)
{
	uint64_t ent = 0;
	off_t off = (uintptr_t)addr / getpagesize() * sizeof(ent);

	if (pread(fd, &ent, sizeof(ent), off) != sizeof(ent))
		return 0;
	return ent;
}

/*
 * Pages of [first, first + nr) whose /proc/kpageflags have flag @kpf
 * (KPF_ACTIVE: on the active list, or about to go there); -1 if they
 * cannot be read.
 */
static inline int kpf_count(char *buf, int first, int nr, int kpf)
{
	off_t off = ((uintptr_t)buf / getpagesize() + first) * sizeof(uint64_t);
	int pm = open("/proc/self/pagemap", O_RDONLY);
	int kpageflags = open("/proc/kpageflags", O_RDONLY);
	int i, n = 0;

	for (i = 0; i < nr && n >= 0; i++) {
		uint64_t ent, flags;

		/* The PFN is 0 without CAP_SYS_ADMIN: no answer then. */
		if (pm < 0 || kpageflags < 0 ||
		    pread(pm, &ent, sizeof(ent), off + i * sizeof(ent)) !=
		    sizeof(ent) || !(ent & PM_PRESENT) ||
		    !(ent & PM_PFN_MASK) ||
		    pread(kpageflags, &flags, sizeof(flags),
			  (ent & PM_PFN_MASK) * sizeof(flags)) != sizeof(flags))
			n = -1;
		else
			n += !!(flags & BIT_ULL(kpf));
	}
	if (pm >= 0)
		close(pm);
	if (kpageflags >= 0)
		close(kpageflags);
	return n;
}

/* Of the @nr pages from @addr, those whose pagemap entry has @bit, or -1. */
static inline int pagemap_count(const void *addr, int nr, uint64_t bit)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);
	uint64_t *ent = calloc(nr, sizeof(*ent));
	off_t off = (uintptr_t)addr / getpagesize() * sizeof(*ent);
	int i, n = -1;

	if (fd >= 0 && ent &&
	    pread(fd, ent, nr * sizeof(*ent), off) == nr * (ssize_t)sizeof(*ent))
		for (i = 0, n = 0; i < nr; i++)
			n += !!(ent[i] & bit);
	if (fd >= 0)
		close(fd);
	free(ent);
	return n;
}

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif

/*
 * Page [first, first + nr) of @buf out: true once /proc/self/pagemap has
 * every page swapped out and, if @uncached, none of them is left in the
 * swap cache, so that the next access to each of them reads it. A folio
 * still in an LRU batch of another CPU (left there by a prepager, by the
 * settle's hand-over of accessed bits, or by the caller before it moved)
 * is not on the LRU yet, or has a reference that keeps it in the swap
 * cache; MADV_PAGEOUT drains the batches of the CPU it runs on, so the
 * tries go round the online CPUs, each of them at least once, whatever
 * CPUs the caller is pinned to (its affinity is put back). A folio kept
 * in the swap cache after its page was unmapped is mapped again, by a
 * read, and paged out once more.
 */
static inline bool __pageout(char *buf, int first, int nr, bool uncached)
{
	char *start = buf + (long)first * getpagesize();
	long nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned char *vec = malloc(nr);
	int i, tries, cpu = -1;
	bool can_move, done = false;
	cpu_set_t was, one;

	can_move = !sched_getaffinity(0, sizeof(was), &was);
	if (nr_cpus < 1 || nr_cpus > CPU_SETSIZE)
		nr_cpus = 1;
	for (tries = 0; vec && tries < 10 + 2 * nr_cpus && !done; tries++) {
		if (can_move) {
			cpu = (cpu + 1) % nr_cpus;
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			sched_setaffinity(0, sizeof(one), &one);
		}
		madvise(start, (size_t)nr * getpagesize(), MADV_PAGEOUT);
		if (pagemap_count(start, nr, PM_SWAP) != nr)
			continue;
		done = true;
		if (!uncached)
			break;
		if (mincore(start, (size_t)nr * getpagesize(), vec)) {
			done = false;
			continue;
		}
		for (i = 0; i < nr; i++) {
			if (!(vec[i] & 1))
				continue;
			done = false;
			(void)__atomic_load_n(start + (long)i * getpagesize(),
					      __ATOMIC_RELAXED);
		}
	}
	if (can_move)
		sched_setaffinity(0, sizeof(was), &was);
	free(vec);
	return done;
}

/* Page [first, first + nr) of @buf out, to be read back by a fault. */
static inline bool pageout(char *buf, int first, int nr)
{
	return __pageout(buf, first, nr, true);
}

/* Where tracefs is; mounted there if it is not yet (a minimal guest). */
static inline const char *tracefs_root(void)
{
	static const char * const roots[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[128];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(roots); i++) {
		snprintf(path, sizeof(path), "%s/instances", roots[i]);
		if (!access(path, F_OK))
			return roots[i];
	}
	if (!mount("tracefs", roots[0], "tracefs", 0, NULL))
		return roots[0];
	return NULL;
}

/* The value of "KEY VALUE" line @key in @path (up to 64 KiB), or -1. */
static inline long read_key(const char *path, const char *key)
{
	const size_t size = 65536;
	size_t klen = strlen(key);
	char *buf = malloc(size), *p;
	long val = -1;

	if (!buf || read_file(path, buf, size) < 0) {
		free(buf);
		return -1;
	}
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ' ') {
			val = strtol(p + klen + 1, NULL, 10);
			break;
		}
	free(buf);
	return val;
}

/* Counter @key of /proc/vmstat, or -1. */
static inline long vmstat_of(const char *key)
{
	return read_key("/proc/vmstat", key);
}

static inline long stat_of(const char *key)
{
	return read_key("/proc/self/prepage_stat", key);
}

/*
 * Write @verb to /proc/self/prepage. An "end" returns before the window
 * is counted and learned from, which its settle work does once the
 * window's prepagers, told to stop, are done; reading prepage_stat does
 * it at once, after waiting for them for up to 200 ms, so that what a
 * test checks next (counters, tables, events, page flags) is the
 * window's, and its accesses after the "end" count in the next window.
 */
static inline int ctl(const char *verb)
{
	int ret = write_str("/proc/self/prepage", verb);

	if (!ret && !strcmp(verb, "end") && stat_of("switches") < 0)
		return -EIO;
	return ret;
}

static inline int load(const char *table)
{
	return write_str("/proc/self/prepage_table", table);
}

static inline int dump(char *buf, size_t size)
{
	return read_file("/proc/self/prepage_table", buf, size);
}

/* Wait for the window's prepagers to have done everything. */
static inline int wait_prepaged(void)
{
	int i;

	for (i = 0; i < 2000; i++) {
		if (read_key("/proc/self/prepage", "prepaging") == 0)
			return 0;
		usleep(5000);
	}
	return -1;
}

/*
 * The system settings a test changes: the knobs in /sys/kernel/mm/prepage
 * and others, such as MGLRU's. Each is saved before its first change;
 * every fixture's teardown puts them all back with settings_restore(),
 * also after a failed assertion.
 */
#define MAX_SETTINGS	16

struct setting {
	char path[128];
	char val[64];
};

static inline struct setting *settings_saved(int **nr)
{
	static struct setting saved[MAX_SETTINGS];
	static int nr_saved;

	*nr = &nr_saved;
	return saved;
}

/* Write @val to the setting @path, saved first; 0 or -1. */
static inline int setting_write(const char *path, const char *val)
{
	int *nr, i;
	struct setting *s = settings_saved(&nr);

	for (i = 0; i < *nr && strcmp(s[i].path, path); i++)
		;
	if (i == *nr) {
		if (i == MAX_SETTINGS || strlen(path) >= sizeof(s[i].path) ||
		    read_file(path, s[i].val, sizeof(s[i].val)) < 0)
			return -1;
		s[i].val[strcspn(s[i].val, "\n")] = '\0';
		snprintf(s[i].path, sizeof(s[i].path), "%s", path);
		(*nr)++;
	}
	return write_str(path, val) ? -1 : 0;
}

/* Set the knob /sys/kernel/mm/prepage/@name, saved first; 0 or -1. */
static inline int knob_set(const char *name, long val)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), SYSFS "%s", name);
	snprintf(buf, sizeof(buf), "%ld", val);
	return setting_write(path, buf);
}

/* Put every saved setting back, the last one saved first. */
static inline void settings_restore(void)
{
	int *nr;
	struct setting *s = settings_saved(&nr);

	while (*nr > 0) {
		--*nr;
		write_str(s[*nr].path, s[*nr].val);
	}
}

/*
 * A fixture's teardown, and its settings_restore(), runs only after a
 * setup that completed: a setup that changed settings puts them back
 * itself before it skips (settings_restore(), then SKIP()) or fails
 * (SETUP_ASSERT()).
 */
#define SETUP_ASSERT(expr) do {						\
	bool __setup_ok = (expr);					\
									\
	if (!__setup_ok)						\
		settings_restore();					\
	ASSERT_TRUE(__setup_ok) TH_LOG("%s", #expr);			\
} while (0)

/* NULL when this system can run the prepage tests, else why not. */
static inline const char *prepage_unavailable(void)
{
	if (access("/proc/self/prepage", F_OK))
		return "kernel without CONFIG_PREPAGE";
	if (access(SYSFS "enabled", W_OK))
		return "cannot enable prepage (not root?)";
	return NULL;
}

/*
 * The start of every fixture's setup: prepage enabled until the
 * teardown's settings_restore(). NULL, or why the test skips.
 */
static inline const char *setup_prepage(void)
{
	const char *why = prepage_unavailable();

	if (why)
		return why;
	if (knob_set("enabled", 1))
		return "cannot enable prepage";
	/*
	 * No swap readahead: a page the app swaps in is then one its fault
	 * read (a miss), unless the test put it in the swap cache itself.
	 */
	if (!access(PAGE_CLUSTER, F_OK) && setting_write(PAGE_CLUSTER, "0")) {
		settings_restore();
		return "cannot turn swap readahead off";
	}
	return NULL;
}

/*
 * Move this process into a new memory cgroup, whose directory is written
 * to @cg. Return: NULL, or why not (the caller skips).
 */
static inline const char *memcg_enter(char *cg, size_t size)
{
	const char *root = "/sys/fs/cgroup";
	char procs[PATH_MAX + 16], pid[32];

	if (access("/sys/fs/cgroup/cgroup.controllers", F_OK)) {
		mkdir(root, 0755);
		if (mount("none", root, "cgroup2", 0, NULL))
			return "no cgroup2 file system";
	}
	if (write_str("/sys/fs/cgroup/cgroup.subtree_control", "+memory"))
		return "no memory controller";
	snprintf(cg, size, "%s/prepage-test.%d", root, getpid());
	if (mkdir(cg, 0755))
		return "cannot create a memory cgroup";
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (write_str(procs, pid)) {
		rmdir(cg);
		return "cannot enter a memory cgroup";
	}
	return NULL;
}

/* Back to the root cgroup; the one of memcg_enter() goes. */
static inline void memcg_leave(const char *cg)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", getpid());
	write_str("/sys/fs/cgroup/cgroup.procs", pid);
	rmdir(cg);
}

/*
 * "KEY VALUE" @key of the memory.stat of cgroup @cg, or -1. Exact: the
 * per-CPU counts are flushed first (reading cpu.stat flushes them all,
 * where memory.stat alone waits for enough of them to have changed).
 */
static inline long memcg_stat(const char *cg, const char *key)
{
	char path[PATH_MAX + 16], buf[1024];

	snprintf(path, sizeof(path), "%s/cpu.stat", cg);
	read_file(path, buf, sizeof(buf));
	snprintf(path, sizeof(path), "%s/memory.stat", cg);
	return read_key(path, key);
}

#endif /* PREPAGE_UTIL_H */
