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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../kselftest.h"

#define SYSFS		"/sys/kernel/mm/prepage/"

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

static inline int ctl(const char *verb)
{
	return write_str("/proc/self/prepage", verb);
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

/* Set a knob, returning the old value to restore, or -1. */
static inline long set_knob(const char *name, long val)
{
	char path[128], buf[32];
	long old;

	snprintf(path, sizeof(path), SYSFS "%s", name);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	old = strtol(buf, NULL, 10);
	snprintf(buf, sizeof(buf), "%ld", val);
	if (write_str(path, buf))
		return -1;
	return old;
}

/* 0 when prepage is available and enabled, else why not. */
static inline const char *prepage_unavailable(void)
{
	if (access("/proc/self/prepage", F_OK))
		return "kernel without CONFIG_PREPAGE";
	if (write_str(SYSFS "enabled", "1"))
		return "cannot enable prepage (not root?)";
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
