// SPDX-License-Identifier: GPL-2.0-only
/*
 * prepagectl: record, load, dump and watch the prepage tables of a
 * process, send it switch signals, and replay a table from userspace
 *
 * Usage:
 *	prepagectl record -p PID [-n WINDOWS] [-k MIN] [-o FILE]
 *	prepagectl load -p PID FILE	load a table (FILE or - for stdin)
 *	prepagectl dump -p PID [-o FILE]
 *	prepagectl reset -p PID
 *	prepagectl switch -p PID start|end|background
 *	prepagectl stat [-p PID] [--json]
 *	prepagectl replay -p PID FILE
 *
 * See Documentation/admin-guide/mm/prepage.rst for the interface this
 * tool uses: /proc/<pid>/prepage, prepage_table and prepage_stat, and
 * /sys/kernel/mm/prepage, and, to record, the prepage, filemap and anon
 * trace events in a tracefs instance of its own.
 *
 * Exit status: 0 on success, 1 when the kernel or the system refused
 * (no such process, no permission, prepage disabled, a file of the table
 * cannot be loaded), 2 for bad usage or a malformed table, which is
 * reported with its line number before anything is written.
 */

#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#define SYSFS_PREPAGE	"/sys/kernel/mm/prepage"
/* The most a table write may hold (the kernel's limit). */
#define TABLE_MAX	(4UL << 20)
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(x)	(sizeof(x) / sizeof((x)[0]))
#endif
/* Ranges a process_madvise() call takes (UIO_MAXIOV). */
#define IOV_MAX_NR	1024

#ifndef __NR_pidfd_open
#define __NR_pidfd_open		434
#endif
#ifndef __NR_process_madvise
#define __NR_process_madvise	440
#endif

enum {
	EXIT_REFUSED = 1,	/* the kernel or the system said no */
	EXIT_USAGE = 2,		/* bad arguments or a malformed table */
};

static const char *prog = "prepagectl";
static long page_size;

/* Print a message and exit with @status. */
#define fatal(status, ...)					\
	do {							\
		fprintf(stderr, "%s: ", prog);			\
		fprintf(stderr, __VA_ARGS__);			\
		fputc('\n', stderr);				\
		exit(status);					\
	} while (0)

/* Print a message and go on. */
#define note(...)						\
	do {							\
		fprintf(stderr, "%s: ", prog);			\
		fprintf(stderr, __VA_ARGS__);			\
		fputc('\n', stderr);				\
	} while (0)

static const char usage_text[] =
"usage: prepagectl COMMAND [OPTIONS]\n"
"\n"
"  record -p PID [-n WINDOWS] [-k MIN] [-o FILE]\n"
"                            follow the process's next WINDOWS switch windows\n"
"                            (default 3) and write a table of the file pages\n"
"                            it accessed and the anon pages it swapped in, in\n"
"                            at least MIN of them (default 2); needs root\n"
"  load -p PID FILE          load a prepage table (FILE, or - for stdin) into\n"
"                            the process: replaces the tables it has lines for\n"
"  dump -p PID [-o FILE]     write the process's tables (loads back unchanged)\n"
"  reset -p PID              close an open window uncounted, drop the tables\n"
"  switch -p PID start|end|background\n"
"                            signal a switch to the process, its end, or\n"
"                            that it left the foreground; an end returns\n"
"                            once the window is counted\n"
"  stat [-p PID] [--json]    counters of one process, or of every process\n"
"                            with a prepage state and of the whole system\n"
"  replay -p PID FILE        bring the table's target pages in from userspace:\n"
"                            readahead(2) of the file ranges,\n"
"                            process_madvise(MADV_WILLNEED) of the anon ones\n"
"\n"
"Exit status: 0 done, 1 refused (no such process, no permission, prepage\n"
"disabled, a line the kernel rejects), 2 bad usage or malformed table.\n";

static void print_usage(int status)
{
	fputs(usage_text, status ? stderr : stdout);
	exit(status);
}

/* ---- the process and the kernel interface ------------------------------ */

/* Why a proc or sysfs access failed, in the user's terms. */
static void refused(int pid, const char *what, int err)
{
	switch (err) {
	case ENOENT:
	case ESRCH:
		if (access("/proc/self/prepage", F_OK))
			fatal(EXIT_REFUSED, "this kernel has no prepage (CONFIG_PREPAGE)");
		fatal(EXIT_REFUSED, "no process %d", pid);
	case EACCES:
	case EPERM:
		fatal(EXIT_REFUSED,
		      "%s of process %d: permission denied (needs ptrace read access to it and CAP_SYS_NICE)",
		      what, pid);
	default:
		fatal(EXIT_REFUSED, "%s of process %d: %s", what, pid,
		      strerror(err));
	}
}

/* The value of /sys/kernel/mm/prepage/@name, or -1. */
static long read_knob(const char *name)
{
	char path[128], buf[24] = "";
	long val = -1;
	int fd;

	snprintf(path, sizeof(path), SYSFS_PREPAGE "/%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) > 0)
		val = strtol(buf, NULL, 10);
	close(fd);
	return val;
}

static bool prepage_enabled(void)
{
	return read_knob("enabled") == 1;
}

static void need_enabled(void)
{
	if (access(SYSFS_PREPAGE, F_OK))
		fatal(EXIT_REFUSED, "this kernel has no prepage (CONFIG_PREPAGE)");
	if (!prepage_enabled())
		fatal(EXIT_REFUSED, "prepage is disabled (echo 1 > %s/enabled)",
		      SYSFS_PREPAGE);
}

static int open_proc(int pid, const char *file, int flags)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	fd = open(path, flags);
	if (fd < 0)
		refused(pid, flags == O_RDONLY ? "reading" : "writing", errno);
	return fd;
}

/* Read all of @fd; the buffer ends with a NUL byte. */
static char *read_all(int fd, size_t *lenp, size_t max, const char *name)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap + 1);
	ssize_t n;

	if (!buf)
		fatal(EXIT_REFUSED, "out of memory");
	for (;;) {
		if (len == cap) {
			if (cap > max)
				fatal(EXIT_USAGE, "%s: larger than %zu bytes", name, max);
			cap *= 2;
			buf = realloc(buf, cap + 1);
			if (!buf)
				fatal(EXIT_REFUSED, "out of memory");
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fatal(EXIT_REFUSED, "reading %s: %s", name, strerror(errno));
		if (!n)
			break;
		len += n;
	}
	if (len > max)
		fatal(EXIT_USAGE, "%s: larger than %zu bytes", name, max);
	buf[len] = 0;
	*lenp = len;
	return buf;
}

static void write_all(int fd, const char *buf, size_t len, const char *name)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fatal(EXIT_REFUSED, "writing %s: %s", name, strerror(errno));
		buf += n;
		len -= n;
	}
}

static int parse_pid(const char *s)
{
	char *end;
	long pid;

	errno = 0;
	pid = strtol(s, &end, 10);
	if (errno || *end || end == s || pid <= 0 || pid > INT_MAX)
		fatal(EXIT_USAGE, "bad process id '%s'", s);
	return pid;
}

/* A number of windows: 1 to 1000. */
static unsigned int parse_count(const char *s, const char *opt)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || *end || end == s || n < 1 || n > 1000)
		fatal(EXIT_USAGE, "%s '%s': expected 1 to 1000", opt, s);
	return n;
}

/* ---- table lines --------------------------------------------------------- */

/*
 * The grammar is the kernel's (Documentation/ABI/testing/procfs-prepage),
 * tokenized as the kernel does (mm/prepage/file.c, anon.c, core.c), so
 * that a table the kernel would reject for its syntax is reported here,
 * by line, before anything is written.
 */

struct range {
	uint64_t start, len;	/* bytes */
};

struct line {
	int lineno;			/* in the table, from 1 */
	bool anon;
	char *path;			/* unescaped, in the line's buffer */
	struct range *cand, *target;	/* file: byte ranges */
	int nr_cand, nr_target;
	bool target_none, target_given;
	uint64_t addr, nr_pages;	/* anon */
	bool anon_target;
};

static void line_free(struct line *l)
{
	free(l->cand);
	free(l->target);
	memset(l, 0, sizeof(*l));
}

/* Decimal, or hexadecimal with a 0x prefix; no octal (the kernel's rule). */
static bool parse_u64(const char *s, uint64_t *val)
{
	int base = 10;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		base = 16;
	} else if (*s == '+') {
		s++;
	}
	if (!isxdigit((unsigned char)*s) || (base == 10 && !isdigit((unsigned char)*s)))
		return false;
	errno = 0;
	*val = strtoull(s, &end, base);
	return !errno && !*end;
}

static bool parse_dec_u64(const char *s, uint64_t *val)
{
	return s[0] != '0' || (s[1] != 'x' && s[1] != 'X') ? parse_u64(s, val) : false;
}

/* "OFF:LEN[,OFF:LEN...]": page aligned byte ranges within a file's size. */
static const char *parse_ranges(char *s, struct range **out, int *nr)
{
	char *range;
	int cap = 0;

	while ((range = strsep(&s, ","))) {
		char *len = strchr(range, ':');
		uint64_t off, bytes;

		if (!len)
			return "expected OFF:LEN";
		*len++ = 0;
		if (!parse_u64(range, &off) || !parse_u64(len, &bytes))
			return "expected OFF:LEN, numbers in decimal or 0x hexadecimal";
		if (!bytes || off % page_size || bytes % page_size)
			return "a range must be page aligned and not empty";
		if (off > (uint64_t)LLONG_MAX - bytes)
			return "a range ends past the largest file size";
		if (*nr == cap) {
			cap = cap ? 2 * cap : 8;
			*out = realloc(*out, cap * sizeof(**out));
			if (!*out)
				fatal(EXIT_REFUSED, "out of memory");
		}
		(*out)[(*nr)++] = (struct range){ off, bytes };
	}
	return NULL;
}

/* Octal escapes (\ and 1-3 octal digits) in place, as string_unescape(). */
static const char *unescape_path(char *path)
{
	char *in = path, *out = path;

	while (*in) {
		if (in[0] == '\\' && in[1] >= '0' && in[1] <= '7') {
			int v = 0, n;

			for (n = 0, in++; n < 3 && *in >= '0' && *in <= '7'; n++)
				v = v * 8 + *in++ - '0';
			if (!(v & 0xff))
				return "NUL in the path";
			*out++ = v;
		} else {
			*out++ = *in++;
		}
	}
	*out = 0;
	return NULL;
}

static const char *parse_file_field(char *field, struct line *l, bool *seen)
{
	char *val = strchr(field, '=');
	uint64_t v;

	if (!val)
		return "a field is NAME=VALUE";
	*val++ = 0;
	if (!strcmp(field, "ino") && !seen[0]) {
		seen[0] = true;
		return parse_u64(val, &v) ? NULL : "ino= takes a number";
	}
	if (!strcmp(field, "size") && !seen[1]) {
		seen[1] = true;
		return parse_u64(val, &v) && v <= LLONG_MAX ? NULL :
		       "size= takes a number of bytes";
	}
	if (!strcmp(field, "ctime") && !seen[2]) {
		char *nsec = strchr(val, '.');
		char *end;

		seen[2] = true;
		if (!nsec || strlen(nsec + 1) != 9)
			return "ctime= takes SEC.NSEC, NSEC in nine digits";
		*nsec++ = 0;
		errno = 0;
		if (!*val || (strtoll(val, &end, 10), errno || *end) ||
		    !parse_dec_u64(nsec, &v) || v >= 1000000000)
			return "ctime= takes SEC.NSEC, NSEC in nine digits";
		return NULL;
	}
	if (!strcmp(field, "target") && !seen[3]) {
		seen[3] = true;
		l->target_given = true;
		if (!strcmp(val, "none")) {
			l->target_none = true;
			return NULL;
		}
		return parse_ranges(val, &l->target, &l->nr_target);
	}
	return "unknown or repeated field";
}

static const char *parse_anon_line(char *s, struct line *l)
{
	char *range = strsep(&s, " \t"), *nr, *field;
	uint64_t target = 2, timeout = 0;

	l->anon = true;
	nr = strchr(range, ':');
	if (!nr)
		return "expected anon ADDR:NR_PAGES";
	*nr++ = 0;
	if (!parse_u64(range, &l->addr) || !parse_u64(nr, &l->nr_pages))
		return "expected anon ADDR:NR_PAGES";
	if (l->addr % page_size || !l->nr_pages)
		return "anon address not page aligned, or no pages";
	while ((field = s ? strsep(&s, " \t") : NULL)) {
		if (!*field)
			continue;
		if (!strncmp(field, "target=", 7) && target == 2 &&
		    parse_dec_u64(field + 7, &target) && target <= 1)
			continue;
		if (!strncmp(field, "timeout=", 8) && !timeout &&
		    parse_dec_u64(field + 8, &timeout) && timeout &&
		    timeout <= 255)
			continue;
		return "anon fields are target=0|1 and timeout=1..255, once each";
	}
	if (target == 2 || !timeout)
		return "an anon line needs target= and timeout=";
	l->anon_target = target;
	return NULL;
}

/*
 * Parse table line @s (modified; trimmed, not empty) into @l, which
 * points into it. Return: NULL, or what is wrong.
 */
static const char *parse_line(char *s, struct line *l)
{
	char *ranges, *field;
	bool seen[4] = {};
	const char *err;

	memset(l, 0, sizeof(*l));
	if (!strncmp(s, "anon", 4) && (s[4] == ' ' || s[4] == '\t'))
		return parse_anon_line(s + 5, l);
	l->path = strsep(&s, " \t");
	ranges = s ? strsep(&s, " \t") : NULL;
	if (l->path[0] != '/')
		return "a path must be absolute";
	if (!ranges || !*ranges)
		return "expected PATH OFF:LEN[,OFF:LEN...], one blank between";
	err = unescape_path(l->path);
	if (!err)
		err = parse_ranges(ranges, &l->cand, &l->nr_cand);
	while (!err && (field = s ? strsep(&s, " \t") : NULL))
		if (*field)
			err = parse_file_field(field, l, seen);
	return err;
}

/* Trim white space at both ends, as the kernel's strim(). */
static char *trim(char *s)
{
	char *end = s + strlen(s);

	while (isspace((unsigned char)*s))
		s++;
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = 0;
	return s;
}

/*
 * Check every line of table @buf (named @name in messages), then, if @fn
 * is given, call it for each. Exits on the first malformed line, before
 * any call.
 */
static void table_lines(const char *buf, const char *name,
			void (*fn)(struct line *l, void *arg), void *arg)
{
	int pass, lineno, nr = 0;

	for (pass = 0; pass < (fn ? 2 : 1); pass++) {
		const char *s = buf, *nl;

		for (lineno = 1; *s; s = *nl ? nl + 1 : nl, lineno++) {
			char *copy, *t;
			const char *err;
			struct line l;

			nl = strchrnul(s, '\n');
			copy = strndup(s, nl - s);
			if (!copy)
				fatal(EXIT_REFUSED, "out of memory");
			t = trim(copy);
			if (*t) {
				err = parse_line(t, &l);
				if (err)
					fatal(EXIT_USAGE, "%s:%d: %s", name, lineno, err);
				l.lineno = lineno;
				if (pass)
					fn(&l, arg);
				else
					nr++;
				line_free(&l);
			}
			free(copy);
		}
		if (!nr)
			fatal(EXIT_USAGE, "%s: no table line", name);
	}
}

static char *read_table(const char *file, size_t *len)
{
	int fd = strcmp(file, "-") ? open(file, O_RDONLY) : 0;
	char *buf;

	if (fd < 0)
		fatal(EXIT_REFUSED, "%s: %s", file, strerror(errno));
	buf = read_all(fd, len, TABLE_MAX, file);
	if (fd)
		close(fd);
	if (strlen(buf) != *len)
		fatal(EXIT_USAGE, "%s: NUL byte", file);
	return buf;
}

/* ---- commands ------------------------------------------------------------ */

/* The key/value lines of a stat file, in order. */
struct kv {
	char key[64];
	unsigned long long val;
};

/* The lines of @path whose key starts with @prefix, without it. */
static int read_kv_path(const char *path, const char *prefix, struct kv *kv,
			int max)
{
	size_t plen = strlen(prefix);
	char line[128];
	FILE *f;
	int n = 0;

	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (n < max && fgets(line, sizeof(line), f))
		if (!strncmp(line, prefix, plen) &&
		    sscanf(line + plen, "%63s %llu", kv[n].key, &kv[n].val) == 2)
			n++;
	fclose(f);
	return n;
}

static int read_kv(int pid, const char *file, struct kv *kv, int max)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	return read_kv_path(path, "", kv, max);
}

static unsigned long long kv_get(struct kv *kv, int n, const char *key)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(kv[i].key, key))
			return kv[i].val;
	return 0;
}

/* The first line of a table whose file is gone, and its path. */
struct gone {
	int lineno;		/* 0 if none is */
	char path[PATH_MAX];
};

static void gone_one(struct line *l, void *arg)
{
	struct gone *g = arg;
	struct stat st;

	if (g->lineno || l->anon || !lstat(l->path, &st) ||
	    (errno != ENOENT && errno != ENOTDIR))
		return;
	g->lineno = l->lineno;
	snprintf(g->path, sizeof(g->path), "%s", l->path);
}

/* The file_stale counter of the process, or -1. */
static long long stale_lines(int pid)
{
	struct kv kv[64];
	int n = read_kv(pid, "prepage_stat", kv, 64);

	return n < 0 ? -1 : (long long)kv_get(kv, n, "file_stale");
}

static int cmd_load(int pid, const char *file)
{
	ssize_t n;
	size_t len;
	char *buf = read_table(file, &len);
	long long stale;
	int fd;

	table_lines(buf, file, NULL, NULL);
	need_enabled();
	fd = open_proc(pid, "prepage_table", O_WRONLY);
	stale = stale_lines(pid);
	n = write(fd, buf, len);
	if (n != (ssize_t)len) {
		int err = n < 0 ? errno : EIO;

		switch (err) {
		case EINVAL:
			fatal(EXIT_REFUSED, "%s: rejected (%s): %s%s; nothing was loaded",
			      file, strerror(err),
			      "a file prepage cannot read, a target outside its candidates, ",
			      "a repeated file or an address past the user address space");
		case ENOSPC:
			fatal(EXIT_REFUSED, "%s: %s; nothing was loaded", file,
			      "more ranges than file/max_extents or pages than anon/max_pages");
		case ELOOP:
		case EACCES:
			fatal(EXIT_REFUSED, "%s: %s %d: %s; nothing was loaded", file,
			      "a file of the table cannot be opened by process", pid,
			      strerror(err));
		default:
			refused(pid, "writing the table", err);
		}
	}
	close(fd);
	/* The kernel drops the lines of a file changed or gone: say so. */
	if (stale >= 0) {
		long long now = stale_lines(pid);
		struct gone g = {};

		if (now > stale)
			table_lines(buf, file, gone_one, &g);
		if (now > stale && g.lineno)
			note("%s: %lld stale line(s) dropped: %s; first gone: line %d, %s",
			     file, now - stale,
			     "the file changed (ino=, size= or ctime=) or is gone",
			     g.lineno, g.path);
		else if (now > stale)
			note("%s: %lld stale line(s) dropped: %s", file,
			     now - stale,
			     "the file changed since (ino=, size= or ctime=)");
	}
	free(buf);
	return 0;
}

static int cmd_dump(int pid, const char *out)
{
	int fd = open_proc(pid, "prepage_table", O_RDONLY);
	int ofd = 1;
	size_t len;
	char *buf = read_all(fd, &len, SIZE_MAX / 4, "prepage_table");

	close(fd);
	if (out) {
		ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (ofd < 0)
			fatal(EXIT_REFUSED, "%s: %s", out, strerror(errno));
	}
	write_all(ofd, buf, len, out ? out : "standard output");
	if (out && close(ofd))
		fatal(EXIT_REFUSED, "%s: %s", out, strerror(errno));
	free(buf);
	return 0;
}

static int cmd_signal(int pid, const char *what)
{
	int fd, stat = -1;

	need_enabled();
	fd = open_proc(pid, "prepage", O_WRONLY);
	/* Before the end: the process may exit as soon as it is written. */
	if (!strcmp(what, "end"))
		stat = open_proc(pid, "prepage_stat", O_RDONLY);
	if (write(fd, what, strlen(what)) < 0) {
		if (errno == EINVAL && !strcmp(what, "end"))
			fatal(EXIT_REFUSED, "process %d has no open switch window", pid);
		if (errno == EBUSY && !strcmp(what, "background"))
			fatal(EXIT_REFUSED, "process %d is in a switch window: end it first",
			      pid);
		refused(pid, what, errno);
	}
	close(fd);
	/*
	 * The kernel counts an ended window, and learns from it, after the
	 * write returns; a read of the counters waits for that, so that
	 * what is shown or traced next counts the window.
	 */
	if (stat >= 0) {
		char buf[64];

		/* A process gone since has nothing left to count. */
		if (read(stat, buf, sizeof(buf)) < 0 && errno != ESRCH)
			refused(pid, "reading", errno);
		close(stat);
	}
	return 0;
}

static void print_permille(const char *name, unsigned long long pm,
			   unsigned long long base)
{
	if (base)
		printf("  %-10s %5.1f%%", name, pm / 10.0);
	else
		printf("  %-10s     -", name);
}

/* Counter @key of one side ("file" or "anon"): "@side_@key". */
static unsigned long long side_get(struct kv *kv, int n, const char *side,
				   const char *key)
{
	char name[64];

	snprintf(name, sizeof(name), "%s_%s", side, key);
	return kv_get(kv, n, name);
}

/* The table sizes (of a process), counters and ratios of one side. */
static void stat_side(struct kv *kv, int n, const char *side, bool tables)
{
	if (tables)
		printf("%llu target / %llu candidate pages\n        ",
		       side_get(kv, n, side, "target_pages"),
		       side_get(kv, n, side, "candidate_pages"));
	printf("prepaged %llu  hit %llu  miss %llu  late %llu",
	       side_get(kv, n, side, "prepaged"), side_get(kv, n, side, "hit"),
	       side_get(kv, n, side, "miss"), side_get(kv, n, side, "late"));
	printf("  evicted %llu  demoted %llu",
	       side_get(kv, n, side, "evicted"),
	       side_get(kv, n, side, "demoted"));
	if (!strcmp(side, "file"))
		printf("  stale lines %llu", side_get(kv, n, side, "stale"));
	printf("\n");
	print_permille("precision", side_get(kv, n, side, "precision_permille"),
		       side_get(kv, n, side, "prepaged"));
	print_permille("recall", side_get(kv, n, side, "recall_permille"),
		       side_get(kv, n, side, "hit") + side_get(kv, n, side, "miss"));
}

/* Why windows' prepaging stopped early, and what the logs missed. */
static void stat_stops(struct kv *kv, int n)
{
	printf("\n  stops: budget %llu  pressure %llu  closed %llu  nomem %llu",
	       kv_get(kv, n, "budget_stops"), kv_get(kv, n, "pressure_stops"),
	       kv_get(kv, n, "closed_stops"), kv_get(kv, n, "nomem_stops"));
	printf("\n  sat out: file %llu  anon %llu  log dropped %llu",
	       kv_get(kv, n, "file_sat_out"), kv_get(kv, n, "anon_sat_out"),
	       kv_get(kv, n, "log_dropped"));
}

/*
 * The ratios of one side from its counters, as prepage_stat computes them:
 * hits per prepaged page, and hits per page the app used.
 */
static void side_ratios(struct kv *kv, int *n, int max, const char *side)
{
	unsigned long long hit = side_get(kv, *n, side, "hit");
	unsigned long long prepaged = side_get(kv, *n, side, "prepaged");
	unsigned long long used = hit + side_get(kv, *n, side, "miss");

	if (*n + 2 > max)
		return;
	snprintf(kv[*n].key, sizeof(kv[*n].key), "%s_precision_permille", side);
	kv[(*n)++].val = prepaged ? hit * 1000 / prepaged : 0;
	snprintf(kv[*n].key, sizeof(kv[*n].key), "%s_recall_permille", side);
	kv[(*n)++].val = used ? hit * 1000 / used : 0;
}

static void stat_one(int pid, struct kv *kv, int n, bool json, bool *first)
{
	char comm[64] = "?", path[64];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	}
	if (json) {
		printf("%s\n  {\"pid\": %d, \"comm\": \"", *first ? "" : ",", pid);
		for (i = 0; comm[i]; i++) {
			unsigned char c = comm[i];

			if (c == '"' || c == '\\')
				printf("\\%c", c);
			else if (c < 0x20 || c >= 0x7f)
				printf("\\u%04x", c);
			else
				putchar(c);
		}
		printf("\"");
		for (i = 0; i < n; i++)
			printf(", \"%s\": %llu", kv[i].key, kv[i].val);
		printf("}");
		*first = false;
		return;
	}
	printf("%d %s: %llu switches (%llu restarted)\n", pid, comm,
	       kv_get(kv, n, "switches"), kv_get(kv, n, "restarts"));
	printf("  file: %llu files, ", kv_get(kv, n, "files"));
	stat_side(kv, n, "file", true);
	printf("\n  anon: ");
	stat_side(kv, n, "anon", true);
	stat_stops(kv, n);
	printf("\n  last window %.3f ms  last prepage %.3f ms\n",
	       kv_get(kv, n, "last_window_ns") / 1e6,
	       kv_get(kv, n, "last_prepage_ns") / 1e6);
}

/* /sys/kernel/mm/prepage/stat: every process since boot. */
static void stat_system(bool json)
{
	struct kv kv[64];
	int i, n;

	n = read_kv_path("/sys/kernel/mm/prepage/stat", "", kv, 60);
	if (n <= 0) {
		/* No sysfs: no system counters. */
		if (json)
			printf(",\n \"system\": null");
		return;
	}
	side_ratios(kv, &n, 64, "file");
	side_ratios(kv, &n, 64, "anon");
	if (json) {
		printf(",\n \"system\": {");
		for (i = 0; i < n; i++)
			printf("%s\"%s\": %llu", i ? ", " : "", kv[i].key,
			       kv[i].val);
		printf("}");
		return;
	}
	printf("system: %llu switches (%llu restarted)\n",
	       kv_get(kv, n, "switches"), kv_get(kv, n, "restarts"));
	printf("  file: ");
	stat_side(kv, n, "file", false);
	printf("\n  anon: ");
	stat_side(kv, n, "anon", false);
	stat_stops(kv, n);
	printf("\n");
}

static int cmd_stat(int pid, bool json)
{
	struct kv kv[64];
	bool first = true;
	int n;

	if (access(SYSFS_PREPAGE, F_OK))
		fatal(EXIT_REFUSED, "this kernel has no prepage (CONFIG_PREPAGE)");
	if (pid) {
		n = read_kv(pid, "prepage_stat", kv, 64);
		if (n < 0)
			refused(pid, "reading", -n);
		if (json)
			printf("{\"processes\": [");
		stat_one(pid, kv, n, json, &first);
	} else {
		DIR *d = opendir("/proc");
		struct dirent *de;

		if (!d)
			fatal(EXIT_REFUSED, "/proc: %s", strerror(errno));
		if (json)
			printf("{\"processes\": [");
		while ((de = readdir(d))) {
			int p = atoi(de->d_name);

			if (p <= 0)
				continue;
			n = read_kv(p, "prepage_stat", kv, 64);
			/* Gone, not ours to read, or never switched. */
			if (n <= 0 || (!kv_get(kv, n, "switches") &&
				       !kv_get(kv, n, "files") &&
				       !kv_get(kv, n, "anon_candidate_pages") &&
				       !kv_get(kv, n, "anon_target_pages")))
				continue;
			stat_one(p, kv, n, json, &first);
		}
		closedir(d);
	}
	if (json)
		printf("%s]", first ? "" : "\n");
	if (!pid)
		stat_system(json);
	if (json)
		printf("}\n");
	return 0;
}

struct replay {
	int pid, pidfd;
	struct iovec iov[IOV_MAX_NR];
	int nr_iov;
	unsigned long file_pages, anon_pages;
	int errors;
};

/* Advise @nr ranges; on an error, one at a time, to say which failed. */
static void replay_advise(struct replay *r, struct iovec *iov, int nr)
{
	size_t want = 0;
	ssize_t ret;
	int i;

	for (i = 0; i < nr; i++)
		want += iov[i].iov_len;
	ret = syscall(__NR_process_madvise, r->pidfd, iov, nr, MADV_WILLNEED, 0);
	if (ret < 0 && errno == EPERM)
		fatal(EXIT_REFUSED, "process_madvise() of process %d: %s", r->pid,
		      "permission denied (needs ptrace access to it and CAP_SYS_NICE)");
	if (ret >= 0 && (size_t)ret == want) {
		r->anon_pages += want / page_size;
		return;
	}
	if (nr == 1) {
		fprintf(stderr, "%s: anon %p:%zu: %s (skipped)\n", prog,
			iov->iov_base, iov->iov_len / page_size,
			ret < 0 ? strerror(errno) : "partly advised");
		r->errors++;
		return;
	}
	for (i = 0; i < nr; i++)
		replay_advise(r, &iov[i], 1);
}

static void replay_flush(struct replay *r)
{
	if (r->nr_iov)
		replay_advise(r, r->iov, r->nr_iov);
	r->nr_iov = 0;
}

/* Bytes readahead(2) is asked for at a time: it reads at most a window. */
#define RA_CHUNK	(128UL << 10)

static void replay_file(struct replay *r, struct line *l)
{
	struct range *rg = l->target_given ? l->target : l->cand;
	int nr = l->target_given ? l->nr_target : l->nr_cand;
	struct stat st;
	int fd, i;

	/* Looked up where the kernel looks a table's paths up: here. */
	fd = open(l->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
		errno = EINVAL;
	}
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s (skipped)\n", prog, l->path,
			errno == EINVAL ? "not a regular file" : strerror(errno));
		r->errors++;
		return;
	}
	for (i = 0; i < nr; i++) {
		uint64_t off = rg[i].start;
		uint64_t end = rg[i].start + rg[i].len;

		if (end > (uint64_t)st.st_size)
			end = (st.st_size + page_size - 1) / page_size * page_size;
		for (; off < end; off += RA_CHUNK) {
			uint64_t len = end - off < RA_CHUNK ? end - off : RA_CHUNK;

			if (readahead(fd, off, len)) {
				fprintf(stderr, "%s: %s: readahead: %s\n", prog,
					l->path, strerror(errno));
				r->errors++;
				close(fd);
				return;
			}
			r->file_pages += len / page_size;
		}
	}
	close(fd);
}

static void replay_line(struct line *l, void *arg)
{
	struct replay *r = arg;

	if (!l->anon) {
		if (!l->target_none)
			replay_file(r, l);
		return;
	}
	if (!l->anon_target)
		return;
	if (l->nr_pages > SIZE_MAX / page_size) {
		r->errors++;
		return;
	}
	r->iov[r->nr_iov].iov_base = (void *)(uintptr_t)l->addr;
	r->iov[r->nr_iov].iov_len = l->nr_pages * page_size;
	if (++r->nr_iov == IOV_MAX_NR)
		replay_flush(r);
}

static int cmd_replay(int pid, const char *file)
{
	struct replay *r = calloc(1, sizeof(*r));
	size_t len;
	char *buf = read_table(file, &len);
	int ret;

	if (!r)
		fatal(EXIT_REFUSED, "out of memory");
	r->pid = pid;
	r->pidfd = syscall(__NR_pidfd_open, pid, 0);
	if (r->pidfd < 0)
		refused(pid, "opening", errno);
	table_lines(buf, file, replay_line, r);
	replay_flush(r);
	close(r->pidfd);
	printf("replayed %lu file pages, %lu anonymous pages\n",
	       r->file_pages, r->anon_pages);
	ret = r->errors ? EXIT_REFUSED : 0;
	free(r);
	free(buf);
	return ret;
}

/* ---- record ------------------------------------------------------------- */

/*
 * record follows the process's switch windows through its own tracefs
 * instance: the window events of prepage (filtered on the process), and
 * the access events of the process's threads (filtered on their ids,
 * looked up again at each window): the file pages it read, mapped or
 * faulted on (the 6.12 filemap access events, which fire for pages
 * already cached too), and the anonymous pages it swapped in.
 */

static const char * const record_events[] = {
	"prepage/prepage_window_open",
	"prepage/prepage_window_close",
	"filemap/mm_filemap_get_pages",
	"filemap/mm_filemap_map_pages",
	"filemap/mm_filemap_fault",
	"anon/mm_anon_swapin",
};

#define NR_WINDOW_EVENTS	2
#define NR_RECORD_EVENTS	ARRAY_SIZE(record_events)
/* A filter is at most a page; this many thread ids fit in one. */
#define MAX_FILTER_TIDS		150

struct rec_file {
	unsigned int major, minor;
	unsigned long ino;
	char *path;			/* NULL until found */
	unsigned long size_pages;	/* when found */
	uint32_t tried;			/* looked for in window - 1 */
	uint32_t *seen;			/* per page: windows it was seen in */
	uint32_t *last;			/* per page: the last window, + 1 */
	unsigned long nr;		/* pages the arrays cover */
};

struct rec_anon {
	uint64_t vpn;
	uint32_t seen, last;
};

static struct recorder {
	int pid;
	char inst[PATH_MAX];		/* the tracefs instance */
	struct rec_file *files;
	int nr_files;
	struct rec_anon *anon;		/* open addressing, vpn + 1 as key */
	size_t anon_cap, anon_nr;
	uint32_t window;		/* windows counted so far */
	bool open;			/* in a window */
	bool done;
} rec;

static const char *tracefs_root(void)
{
	static const char * const roots[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	unsigned int i;

	for (i = 0; i < 2; i++) {
		char path[64];

		snprintf(path, sizeof(path), "%s/instances", roots[i]);
		if (!access(path, F_OK))
			return roots[i];
	}
	return NULL;
}

/* Write @s to @file of the instance; 0 or an errno. */
static int inst_write(const char *file, const char *s)
{
	char path[PATH_MAX + 128];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", rec.inst, file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return errno;
	if (write(fd, s, strlen(s)) < 0)
		err = errno;
	close(fd);
	return err;
}

static void record_cleanup(void)
{
	if (!rec.inst[0])
		return;
	inst_write("tracing_on", "0");
	if (rmdir(rec.inst))
		note("removing %s: %s", rec.inst, strerror(errno));
	rec.inst[0] = 0;
}

/* The access events follow the process's threads (ids as of now). */
static void record_filter(void)
{
	char path[64], filter[4096], *p = filter;
	struct dirent *d;
	unsigned int i, n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", rec.pid);
	dir = opendir(path);
	if (!dir)
		return;		/* gone: its close event ends the window */
	*p = 0;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		if (n == MAX_FILTER_TIDS) {
			note("process %d has more than %d threads: recording the first ones",
			     rec.pid, MAX_FILTER_TIDS);
			break;
		}
		p += snprintf(p, filter + sizeof(filter) - p, "%scommon_pid==%s",
			      n++ ? "||" : "", d->d_name);
	}
	closedir(dir);
	for (i = NR_WINDOW_EVENTS; i < NR_RECORD_EVENTS; i++) {
		char file[128];
		int err;

		snprintf(file, sizeof(file), "events/%s/filter", record_events[i]);
		err = inst_write(file, n ? filter : "common_pid==0");
		if (err)
			fatal(EXIT_REFUSED, "setting the filter of %s: %s",
			      record_events[i], strerror(err));
	}
}

static void record_setup(void)
{
	const char *root = tracefs_root();
	char filter[64];
	unsigned int i;
	int err;

	if (!root)
		fatal(EXIT_REFUSED,
		      "no tracefs with instances (mount tracefs on /sys/kernel/tracing)");
	snprintf(rec.inst, sizeof(rec.inst), "%s/instances/prepagectl.%d",
		 root, (int)getpid());
	if (mkdir(rec.inst, 0700)) {
		err = errno;
		rec.inst[0] = 0;
		fatal(EXIT_REFUSED, "creating a tracefs instance: %s%s",
		      strerror(err), err == EACCES || err == EPERM ?
		      " (recording needs root)" : "");
	}
	atexit(record_cleanup);
	inst_write("buffer_size_kb", "4096");
	snprintf(filter, sizeof(filter), "pid==%d", rec.pid);
	for (i = 0; i < NR_RECORD_EVENTS; i++) {
		char file[128];

		if (i < NR_WINDOW_EVENTS) {
			snprintf(file, sizeof(file), "events/%s/filter",
				 record_events[i]);
			err = inst_write(file, filter);
			if (err)
				fatal(EXIT_REFUSED, "setting the filter of %s: %s",
				      record_events[i], strerror(err));
		}
		snprintf(file, sizeof(file), "events/%s/enable", record_events[i]);
		err = inst_write(file, "1");
		if (err)
			fatal(EXIT_REFUSED, "enabling %s: %s%s", record_events[i],
			      strerror(err), err == ENOENT ?
			      " (a kernel without the prepage series' events?)" : "");
	}
	record_filter();
}

/* The file seen as (@major:@minor, @ino), or NULL. */
static struct rec_file *rec_file_find(unsigned int major, unsigned int minor,
				      unsigned long ino)
{
	int i;

	for (i = 0; i < rec.nr_files; i++)
		if (rec.files[i].ino == ino && rec.files[i].major == major &&
		    rec.files[i].minor == minor)
			return &rec.files[i];
	return NULL;
}

/* The same, added if new. */
static struct rec_file *rec_file_of(unsigned int major, unsigned int minor,
				    unsigned long ino)
{
	struct rec_file *f = rec_file_find(major, minor, ino);

	if (f)
		return f;
	rec.files = realloc(rec.files, (rec.nr_files + 1) * sizeof(*f));
	if (!rec.files)
		fatal(EXIT_REFUSED, "out of memory");
	f = &rec.files[rec.nr_files++];
	memset(f, 0, sizeof(*f));
	f->major = major;
	f->minor = minor;
	f->ino = ino;
	return f;
}

/* Page @index of @f was accessed in the current window. */
static void rec_file_page(struct rec_file *f, unsigned long index)
{
	if (index >= f->nr) {
		unsigned long nr = index + 1 > 2 * f->nr ? index + 1 : 2 * f->nr;

		f->seen = realloc(f->seen, nr * sizeof(*f->seen));
		f->last = realloc(f->last, nr * sizeof(*f->last));
		if (!f->seen || !f->last)
			fatal(EXIT_REFUSED, "out of memory");
		memset(f->seen + f->nr, 0, (nr - f->nr) * sizeof(*f->seen));
		memset(f->last + f->nr, 0, (nr - f->nr) * sizeof(*f->last));
		f->nr = nr;
	}
	if (f->last[index] != rec.window + 1) {
		f->last[index] = rec.window + 1;
		f->seen[index]++;
	}
}

static void rec_anon_page(uint64_t vpn)
{
	size_t i;

	if (2 * (rec.anon_nr + 1) > rec.anon_cap) {
		struct rec_anon *old = rec.anon;
		size_t cap = rec.anon_cap ? 2 * rec.anon_cap : 1024, j;

		rec.anon = calloc(cap, sizeof(*rec.anon));
		if (!rec.anon)
			fatal(EXIT_REFUSED, "out of memory");
		for (j = 0; j < rec.anon_cap; j++) {
			if (!old[j].vpn)
				continue;
			i = (old[j].vpn * 0x9e3779b97f4a7c15ULL) >> 20;
			while (rec.anon[i % cap].vpn)
				i++;
			rec.anon[i % cap] = old[j];
		}
		free(old);
		rec.anon_cap = cap;
	}
	i = ((vpn + 1) * 0x9e3779b97f4a7c15ULL) >> 20;
	for (;; i++) {
		struct rec_anon *a = &rec.anon[i % rec.anon_cap];

		if (!a->vpn) {
			a->vpn = vpn + 1;
			rec.anon_nr++;
		} else if (a->vpn != vpn + 1) {
			continue;
		}
		if (a->last != rec.window + 1) {
			a->last = rec.window + 1;
			a->seen++;
		}
		return;
	}
}

/* Does @path name the file? Its identity then, in @st. */
static bool rec_file_is(struct rec_file *f, const char *path, struct stat *st)
{
	return !stat(path, st) && S_ISREG(st->st_mode) &&
	       st->st_ino == f->ino && major(st->st_dev) == f->major &&
	       minor(st->st_dev) == f->minor;
}

static void rec_file_found(struct rec_file *f, const char *path)
{
	struct stat st;

	if (f->path || path[0] != '/' || !rec_file_is(f, path, &st))
		return;
	f->path = strdup(path);
	if (!f->path)
		fatal(EXIT_REFUSED, "out of memory");
	f->size_pages = (st.st_size + page_size - 1) / page_size;
}

/*
 * Paths of the files seen, from the process's mappings and open files,
 * as long as it runs (called at each window's end).
 */
static void record_paths(void)
{
	char path[PATH_MAX], *line = NULL;
	size_t size = 0;
	struct rec_file *f;
	struct dirent *d;
	bool missing = false;
	DIR *dir;
	FILE *maps;
	int i;

	for (i = 0; i < rec.nr_files; i++)
		missing |= !rec.files[i].path;
	if (!missing)
		return;
	snprintf(path, sizeof(path), "/proc/%d/maps", rec.pid);
	maps = fopen(path, "r");
	while (maps && getline(&line, &size, maps) > 0) {
		unsigned int major, minor;
		unsigned long ino;
		int at = 0;
		char *nl;

		if (sscanf(line, "%*s %*s %*s %x:%x %lu %n", &major, &minor,
			   &ino, &at) < 3 || !at || !ino)
			continue;
		nl = strchr(line + at, '\n');
		if (nl)
			*nl = 0;
		f = rec_file_find(major, minor, ino);
		if (f)
			rec_file_found(f, line + at);
	}
	if (maps)
		fclose(maps);
	free(line);
	snprintf(path, sizeof(path), "/proc/%d/fd", rec.pid);
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		char link[PATH_MAX + 64], target[PATH_MAX];
		struct stat st;
		ssize_t n;

		if (d->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "/proc/%d/fd/%s", rec.pid, d->d_name);
		if (stat(link, &st) || !S_ISREG(st.st_mode))
			continue;
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		f = rec_file_find(major(st.st_dev), minor(st.st_dev),
				  st.st_ino);
		if (f)
			rec_file_found(f, target);
	}
	if (dir)
		closedir(dir);
}

/* An aborted window's accesses are not counted. */
static void record_discard(void)
{
	unsigned long p;
	size_t i;
	int n;

	for (n = 0; n < rec.nr_files; n++)
		for (p = 0; p < rec.files[n].nr; p++)
			if (rec.files[n].last[p] == rec.window + 1) {
				rec.files[n].last[p] = 0;
				rec.files[n].seen[p]--;
			}
	for (i = 0; i < rec.anon_cap; i++)
		if (rec.anon[i].vpn && rec.anon[i].last == rec.window + 1) {
			rec.anon[i].last = 0;
			rec.anon[i].seen--;
		}
}

/* Find " @name=" in @s and parse what follows with @fmt. */
static bool field(const char *s, const char *name, const char *fmt, ...)
{
	const char *p;
	char pat[32];
	va_list ap;
	int n;

	snprintf(pat, sizeof(pat), " %s=", name);
	p = strstr(s, pat);
	if (!p)
		return false;
	va_start(ap, fmt);
	n = vsscanf(p + strlen(pat), fmt, ap);
	va_end(ap);
	return n > 0;
}

static void record_line(char *line)
{
	unsigned int major, minor, nr;
	unsigned long long from, to;
	unsigned long ino, addr;
	char *ev, reason[16];
	int pid;

	ev = strstr(line, ": prepage_window_");
	if (ev) {
		/* Another process's (not filtered, by a tracer elsewhere). */
		if (!field(ev, "pid", "%d", &pid) || pid != rec.pid)
			return;
		if (!strncmp(ev, ": prepage_window_open:", 22)) {
			record_filter();
			rec.open = true;
			return;
		}
		if (!rec.open || !field(ev, "reason", "%15s", reason))
			return;
		if (!strcmp(reason, "restart"))
			return;		/* the same switch goes on */
		rec.open = false;
		if (!strcmp(reason, "end")) {
			record_paths();
			rec.window++;
			return;
		}
		/* reset, exit or disabled: its accesses are not counted */
		record_discard();
		return;
	}
	if (!rec.open)
		return;
	ev = strstr(line, ": mm_filemap_");
	if (ev) {
		struct rec_file *f;

		if (!field(ev, "dev", "%u:%u", &major, &minor) ||
		    !field(ev, "ino", "%lx", &ino) ||
		    !field(ev, "ofs", "%llu", &from))
			return;
		to = from;
		if (strncmp(ev, ": mm_filemap_fault:", 19))
			field(ev, "ofs", "%*u-%llu", &to);
		f = rec_file_of(major, minor, ino);
		/* Looked for once a window, while the process runs. */
		if (!f->path && f->tried != rec.window + 1) {
			f->tried = rec.window + 1;
			record_paths();
		}
		/* A read's range may reach past the end of the file. */
		if (!f->path)
			return;
		from /= page_size;
		to /= page_size;
		if (to >= f->size_pages)
			to = f->size_pages - 1;
		for (; from <= to && from < f->size_pages; from++)
			rec_file_page(f, from);
		return;
	}
	ev = strstr(line, ": mm_anon_swapin:");
	if (ev && field(ev, "address", "%lx", &addr) &&
	    field(ev, "nr_pages", "%u", &nr))
		while (nr--)
			rec_anon_page(addr / page_size + nr);
}

static int rec_anon_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The path as a table line has it: white space and backslash escaped. */
static void put_path(FILE *out, const char *path)
{
	for (; *path; path++) {
		if (*path == ' ' || *path == '\t' || *path == '\n' ||
		    *path == '\\')
			fprintf(out, "\\%03o", (unsigned char)*path);
		else
			fputc(*path, out);
	}
}

/*
 * Note how many pages were used in exactly 1, 2, ... of the windows, file
 * and anonymous: how stable the process's switch footprint is, and what
 * a higher or lower -k would keep. @file and @anon have rec.window + 1
 * entries.
 */
static void record_histogram(const unsigned long *file,
			     const unsigned long *anon)
{
	size_t size = 24 * (rec.window + 1) + 1;
	char *buf[2];
	unsigned int w;
	int side;

	for (side = 0; side < 2; side++) {
		const unsigned long *h = side ? anon : file;
		size_t len = 0;

		buf[side] = malloc(size);
		if (!buf[side])
			fatal(EXIT_REFUSED, "out of memory");
		buf[side][0] = 0;
		for (w = 1; w <= rec.window; w++)
			len += snprintf(buf[side] + len, size - len, "%s%lu",
					w > 1 ? " " : "", h[w]);
	}
	note("pages by the number of windows they were used in, 1 to %u: file %s; anon %s",
	     rec.window, buf[0], buf[1]);
	free(buf[0]);
	free(buf[1]);
}

/* The table of the pages seen in at least @min windows. */
static void record_write(FILE *out, unsigned int min)
{
	long timeout = read_knob("anon/timeout");
	unsigned long *hist_file, *hist_anon;
	unsigned int unnamed = 0;
	uint64_t *vpns;
	size_t i, n = 0;
	int k;

	hist_file = calloc(rec.window + 1, sizeof(*hist_file));
	hist_anon = calloc(rec.window + 1, sizeof(*hist_anon));
	if (!hist_file || !hist_anon)
		fatal(EXIT_REFUSED, "out of memory");

	/* The kernel's default, if its knob cannot be read. */
	if (timeout < 1 || timeout > 255)
		timeout = 5;
	for (k = 0; k < rec.nr_files; k++) {
		struct rec_file *f = &rec.files[k];
		unsigned long p, nr, run = 0;
		bool any = false;
		struct stat st;

		if (!f->path) {
			unnamed++;
			continue;
		}
		if (!rec_file_is(f, f->path, &st)) {
			note("%s is not the file the process used any more: left out",
			     f->path);
			continue;
		}
		nr = (st.st_size + page_size - 1) / page_size;
		if (nr > f->nr)
			nr = f->nr;
		for (p = 0; p < nr; p++)
			if (f->seen[p] && f->seen[p] <= rec.window)
				hist_file[f->seen[p]]++;
		for (p = 0; p <= nr; p++) {
			if (p < nr && f->seen[p] >= min) {
				run++;
				continue;
			}
			if (!run)
				continue;
			if (!any)
				put_path(out, f->path);
			fprintf(out, "%c%lu:%lu", any ? ',' : ' ',
				(p - run) * page_size, run * page_size);
			any = true;
			run = 0;
		}
		if (any)
			fprintf(out, " ino=%lu size=%lld ctime=%lld.%09ld\n",
				(unsigned long)st.st_ino, (long long)st.st_size,
				(long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	}
	if (unnamed)
		note("%u file(s) were neither mapped nor open when looked for: left out",
		     unnamed);

	vpns = malloc((rec.anon_nr + 1) * sizeof(*vpns));
	if (!vpns)
		fatal(EXIT_REFUSED, "out of memory");
	for (i = 0; i < rec.anon_cap; i++) {
		if (!rec.anon[i].vpn)
			continue;
		if (rec.anon[i].seen && rec.anon[i].seen <= rec.window)
			hist_anon[rec.anon[i].seen]++;
		if (rec.anon[i].seen >= min)
			vpns[n++] = rec.anon[i].vpn - 1;
	}
	qsort(vpns, n, sizeof(*vpns), rec_anon_cmp);
	for (i = 0; i < n;) {
		size_t j = i + 1;

		while (j < n && vpns[j] == vpns[j - 1] + 1)
			j++;
		fprintf(out, "anon 0x%llx:%zu target=1 timeout=%ld\n",
			(unsigned long long)vpns[i] * page_size, j - i, timeout);
		i = j;
	}
	free(vpns);
	record_histogram(hist_file, hist_anon);
	free(hist_file);
	free(hist_anon);
}

static int cmd_record(int pid, unsigned int windows, unsigned int min,
		      const char *out)
{
	sigset_t sigs;
	char path[PATH_MAX + 64], buf[65536];
	size_t have = 0;
	bool lost = false, gone = false, stop = false;
	FILE *ofile = stdout;
	int fd, sfd;

	if (min > windows)
		fatal(EXIT_USAGE, "-k %u: more than the %u windows recorded",
		      min, windows);
	need_enabled();
	close(open_proc(pid, "prepage", O_RDONLY));
	if (out) {
		ofile = fopen(out, "w");
		if (!ofile)
			fatal(EXIT_REFUSED, "%s: %s", out, strerror(errno));
	}
	rec.pid = pid;
	/* Interrupted, it writes what it has: the signals come as input. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (sfd < 0)
		fatal(EXIT_REFUSED, "signalfd: %s", strerror(errno));
	record_setup();
	snprintf(path, sizeof(path), "%s/trace_pipe", rec.inst);
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		fatal(EXIT_REFUSED, "%s: %s", path, strerror(errno));
	note("recording process %d for %u switch windows", pid, windows);

	while (rec.window < windows) {
		struct pollfd pfd[2] = {
			{ .fd = fd, .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
		};
		char *line, *nl;
		bool drain;
		ssize_t n;

		if (!gone && kill(pid, 0) && errno == ESRCH)
			gone = true;
		/* Gone or interrupted: read what is left, then stop. */
		drain = gone || stop;
		if (poll(pfd, drain ? 1 : 2, drain ? 0 : 500) <= 0) {
			if (drain)
				break;
			continue;
		}
		if (!drain && pfd[1].revents) {
			stop = true;
			continue;
		}
		n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				fatal(EXIT_REFUSED, "reading %s: %s", path,
				      strerror(errno));
			if (drain)
				break;
			continue;
		}
		have += n;
		buf[have] = 0;
		for (line = buf; (nl = strchr(line, '\n')) &&
		     rec.window < windows; line = nl + 1) {
			*nl = 0;
			if (strstr(line, "[LOST "))
				lost = true;
			record_line(line);
		}
		have -= line - buf;
		memmove(buf, line, have);
		/* A line longer than the buffer is no event of ours. */
		if (have == sizeof(buf) - 1)
			have = 0;
	}
	close(fd);
	close(sfd);
	record_cleanup();
	if (lost)
		note("the trace buffer overflowed: some accesses were not recorded");
	if (!rec.window)
		fatal(EXIT_REFUSED, "no switch window of process %d ended: nothing recorded",
		      pid);
	if (rec.window < windows)
		note("recorded %u of %u windows", rec.window, windows);
	record_write(ofile, min);
	if (fflush(ofile) || (out && fclose(ofile)))
		fatal(EXIT_REFUSED, "%s: %s", out ? out : "standard output",
		      strerror(errno));
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "windows", required_argument, NULL, 'n' },
		{ "min", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *cmd, *out = NULL;
	unsigned int windows = 3, min = 2;
	bool json = false, counts = false;
	int pid = 0, c;

	page_size = sysconf(_SC_PAGESIZE);
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		print_usage(0);
	if (argc < 2)
		print_usage(EXIT_USAGE);
	cmd = argv[1];
	argv++;
	argc--;
	while ((c = getopt_long(argc, argv, "p:o:n:k:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			windows = parse_count(optarg, "-n");
			counts = true;
			break;
		case 'k':
			min = parse_count(optarg, "-k");
			counts = true;
			break;
		case 'p':
			pid = parse_pid(optarg);
			break;
		case 'o':
			out = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			print_usage(0);
			break;
		default:
			print_usage(EXIT_USAGE);
		}
	}
	argc -= optind;
	argv += optind;

	if (!strcmp(cmd, "stat")) {
		if (argc || out || counts)
			print_usage(EXIT_USAGE);
		return cmd_stat(pid, json);
	}
	if (!pid) {
		fprintf(stderr, "%s: %s needs -p PID\n", prog, cmd);
		print_usage(EXIT_USAGE);
	}
	if (!strcmp(cmd, "record")) {
		if (argc || json)
			print_usage(EXIT_USAGE);
		return cmd_record(pid, windows, min, out);
	}
	if (json || counts || (out && strcmp(cmd, "dump")))
		print_usage(EXIT_USAGE);
	if (!strcmp(cmd, "load") && argc == 1)
		return cmd_load(pid, argv[0]);
	if (!strcmp(cmd, "replay") && argc == 1)
		return cmd_replay(pid, argv[0]);
	if (!strcmp(cmd, "dump") && !argc)
		return cmd_dump(pid, out);
	if (!strcmp(cmd, "reset") && !argc)
		return cmd_signal(pid, "reset");
	if (!strcmp(cmd, "switch") && argc == 1 &&
	    (!strcmp(argv[0], "start") || !strcmp(argv[0], "end") ||
	     !strcmp(argv[0], "background")))
		return cmd_signal(pid, argv[0]);
	print_usage(EXIT_USAGE);
	return EXIT_USAGE;
}
