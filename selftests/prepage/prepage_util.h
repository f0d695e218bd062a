/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the prepage selftests: the /proc/self/prepage* files
 * and the /sys/kernel/mm/prepage knobs.
 */
#ifndef PREPAGE_UTIL_H
#define PREPAGE_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The value of "KEY VALUE" line @key in @path, or -1. */
static inline long read_key(const char *path, const char *key)
{
	char buf[4096], *p;
	size_t klen = strlen(key);

	if (read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ' ')
			return strtol(p + klen + 1, NULL, 10);
	return -1;
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

#endif /* PREPAGE_UTIL_H */
