// SPDX-License-Identifier: GPL-2.0-only
/*
 * prepagectl: load, dump and watch the prepage tables of a process, send
 * it switch signals, and replay a table from userspace
 *
 * Usage:
 *	prepagectl load -p PID FILE	load a table (FILE or - for stdin)
 *	prepagectl dump -p PID [-o FILE]
 *	prepagectl reset -p PID
 *	prepagectl switch -p PID start|end
 *	prepagectl stat [-p PID] [--json]
 *	prepagectl replay -p PID FILE
 *
 * See Documentation/admin-guide/mm/prepage.rst for the interface this
 * tool uses: /proc/<pid>/prepage, prepage_table and prepage_stat, and
 * /sys/kernel/mm/prepage.
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

#define SYSFS_PREPAGE	"/sys/kernel/mm/prepage"
/* The most a table write may hold (the kernel's limit). */
#define TABLE_MAX	(4UL << 20)
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

static const char usage_text[] =
"usage: prepagectl COMMAND [OPTIONS]\n"
"\n"
"  load -p PID FILE          load a prepage table (FILE, or - for stdin) into\n"
"                            the process: replaces the tables it has lines for\n"
"  dump -p PID [-o FILE]     write the process's tables (loads back unchanged)\n"
"  reset -p PID              close an open window uncounted, drop the tables\n"
"  switch -p PID start|end   signal a switch to the process, or its end\n"
"  stat [-p PID] [--json]    counters of one process, or of every process\n"
"                            with a prepage state\n"
"  replay -p PID FILE        bring the table's target pages in from userspace:\n"
"                            readahead(2) of the file ranges,\n"
"                            process_madvise(MADV_WILLNEED) of the anon ones\n"
"\n"
"Exit status: 0 done, 1 refused (no such process, no permission, prepage\n"
"disabled, a line the kernel rejects), 2 bad usage or malformed table.\n";

static void print_usage(void)
{
	fputs(usage_text, stderr);
	exit(EXIT_USAGE);
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
		      "%s of process %d: permission denied (needs ptrace read access to it%s)",
		      what, pid, strcmp(what, "reading") ? " and CAP_SYS_NICE" : "");
	default:
		fatal(EXIT_REFUSED, "%s of process %d: %s", what, pid,
		      strerror(err));
	}
}

static bool prepage_enabled(void)
{
	char buf[8] = "";
	int fd = open(SYSFS_PREPAGE "/enabled", O_RDONLY);

	if (fd < 0)
		return false;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = 0;
	close(fd);
	return buf[0] == '1';
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

/* ---- table lines --------------------------------------------------------- */

struct range {
	unsigned long start, len;	/* bytes for files, pages for anon */
};

struct line {
	bool anon;
	char path[PATH_MAX];
	struct range *cand, *target;	/* file: byte ranges */
	int nr_cand, nr_target;
	bool target_none, target_given;
	unsigned long addr, nr_pages;	/* anon */
	bool anon_target;
};

static void line_free(struct line *l)
{
	free(l->cand);
	free(l->target);
	memset(l, 0, sizeof(*l));
}

static bool parse_ulong(const char *s, const char **end, unsigned long *val)
{
	char *e;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*val = strtoul(s, &e, 0);
	if (errno)
		return false;
	*end = e;
	return true;
}

static bool parse_decimal(const char *s, const char **end, unsigned long *val)
{
	char *e;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*val = strtoul(s, &e, 10);
	if (errno)
		return false;
	*end = e;
	return true;
}

/* "OFF:LEN[,OFF:LEN...]", page aligned byte ranges, up to the next blank. */
static const char *parse_ranges(const char *s, struct range **out, int *nr)
{
	int cap = 0;

	*out = NULL;
	*nr = 0;
	for (;;) {
		unsigned long off, len;

		if (!parse_ulong(s, &s, &off) || *s++ != ':' ||
		    !parse_ulong(s, &s, &len))
			return "expected OFF:LEN";
		if (!len || off % page_size || len % page_size ||
		    off + len < off)
			return "a range must be page aligned and not empty";
		if (*nr == cap) {
			cap = cap ? 2 * cap : 8;
			*out = realloc(*out, cap * sizeof(**out));
			if (!*out)
				fatal(EXIT_REFUSED, "out of memory");
		}
		(*out)[(*nr)++] = (struct range){ off, len };
		if (*s != ',')
			break;
		s++;
	}
	if (*s && !isspace((unsigned char)*s))
		return "junk after the ranges";
	return NULL;
}

/* A path as the table writes it: octal escapes for blanks and backslash. */
static const char *parse_path(const char *s, const char **end, char *path)
{
	size_t n = 0;

	if (*s != '/')
		return "a path must be absolute";
	while (*s && !isspace((unsigned char)*s)) {
		char c = *s++;

		if (c == '\\') {
			if (s[0] < '0' || s[0] > '3' || s[1] < '0' || s[1] > '7' ||
			    s[2] < '0' || s[2] > '7')
				return "bad escape in the path";
			c = (s[0] - '0') << 6 | (s[1] - '0') << 3 | (s[2] - '0');
			s += 3;
			if (!c)
				return "NUL in the path";
		}
		if (n == PATH_MAX - 1)
			return "path too long";
		path[n++] = c;
	}
	path[n] = 0;
	*end = s;
	return NULL;
}

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/*
 * Parse one table line, @s up to its end (no newline). The grammar is the
 * kernel's (Documentation/ABI/testing/procfs-prepage), checked here so that
 * a malformed table is reported by line before anything is written.
 * Return: NULL, or what is wrong.
 */
static const char *parse_line(const char *s, struct line *l)
{
	const char *err;

	memset(l, 0, sizeof(*l));
	if (!strncmp(s, "anon ", 5)) {
		bool have_target = false, have_timeout = false;
		unsigned long v;

		l->anon = true;
		s = skip_blanks(s + 5);
		if (!parse_ulong(s, &s, &l->addr) || *s++ != ':' ||
		    !parse_ulong(s, &s, &l->nr_pages))
			return "expected anon ADDR:NR_PAGES";
		if (l->addr % page_size || !l->nr_pages)
			return "anon address not page aligned, or no pages";
		for (s = skip_blanks(s); *s; s = skip_blanks(s)) {
			if (!strncmp(s, "target=", 7)) {
				if (!parse_decimal(s + 7, &s, &v) || v > 1)
					return "target= takes 0 or 1";
				l->anon_target = v;
				have_target = true;
			} else if (!strncmp(s, "timeout=", 8)) {
				if (!parse_decimal(s + 8, &s, &v) || !v)
					return "timeout= takes a number of windows";
				have_timeout = true;
			} else {
				return "unknown anon field";
			}
			if (*s && !isspace((unsigned char)*s))
				return "junk after a field";
		}
		if (!have_target || !have_timeout)
			return "an anon line needs target= and timeout=";
		return NULL;
	}
	err = parse_path(s, &s, l->path);
	if (err)
		return err;
	s = skip_blanks(s);
	err = parse_ranges(s, &l->cand, &l->nr_cand);
	if (err)
		return err;
	while (*s && !isspace((unsigned char)*s))
		s++;
	for (s = skip_blanks(s); *s; s = skip_blanks(s)) {
		unsigned long v;

		if (!strncmp(s, "target=", 7)) {
			s += 7;
			l->target_given = true;
			if (!strncmp(s, "none", 4)) {
				l->target_none = true;
				s += 4;
			} else {
				err = parse_ranges(s, &l->target, &l->nr_target);
				if (err)
					return err;
				while (*s && !isspace((unsigned char)*s))
					s++;
			}
		} else if (!strncmp(s, "ino=", 4) || !strncmp(s, "size=", 5)) {
			if (!parse_ulong(strchr(s, '=') + 1, &s, &v))
				return "ino= and size= take a number";
		} else if (!strncmp(s, "ctime=", 6)) {
			if (!parse_ulong(s + 6, &s, &v) || *s++ != '.' ||
			    !parse_ulong(s, &s, &v))
				return "ctime= takes SEC.NSEC";
		} else {
			return "unknown field";
		}
		if (*s && !isspace((unsigned char)*s))
			return "junk after a field";
	}
	return NULL;
}

/*
 * Check every line of table @buf (named @name in messages), calling @fn for
 * each parsed line if given. Exits on the first malformed line.
 */
static void table_lines(const char *buf, const char *name,
			void (*fn)(struct line *l, void *arg), void *arg)
{
	const char *s = buf, *nl;
	int lineno = 0, nr = 0;
	struct line l;

	for (; *s; s = *nl ? nl + 1 : nl) {
		const char *err;
		char *copy;

		lineno++;
		nl = strchrnul(s, '\n');
		copy = strndup(s, nl - s);
		if (!copy)
			fatal(EXIT_REFUSED, "out of memory");
		if (*skip_blanks(copy)) {
			err = parse_line(skip_blanks(copy), &l);
			if (err)
				fatal(EXIT_USAGE, "%s:%d: %s", name, lineno, err);
			nr++;
			if (fn)
				fn(&l, arg);
			line_free(&l);
		}
		free(copy);
	}
	if (!nr)
		fatal(EXIT_USAGE, "%s: no table line", name);
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

static int cmd_load(int pid, const char *file)
{
	size_t len;
	char *buf = read_table(file, &len);
	int fd;

	table_lines(buf, file, NULL, NULL);
	need_enabled();
	fd = open_proc(pid, "prepage_table", O_WRONLY);
	if (write(fd, buf, len) != (ssize_t)len) {
		int err = errno;

		switch (err) {
		case EINVAL:
			fatal(EXIT_REFUSED, "%s: rejected (%s): %s; nothing was loaded",
			      file, strerror(err),
			      "a file prepage cannot read, a target outside its candidates, or a repeated file");
		case ENOSPC:
			fatal(EXIT_REFUSED, "%s: %s; nothing was loaded", file,
			      "more ranges than max_file_extents or pages than max_anon_pages");
		case ENOENT:
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
	int fd;

	need_enabled();
	fd = open_proc(pid, "prepage", O_WRONLY);
	if (write(fd, what, strlen(what)) < 0) {
		if (errno == EINVAL && !strcmp(what, "end"))
			fatal(EXIT_REFUSED, "process %d has no open switch window", pid);
		refused(pid, what, errno);
	}
	close(fd);
	return 0;
}

/* The key/value lines of a stat file, in order. */
struct kv {
	char key[64];
	unsigned long long val;
};

static int read_kv(int pid, const char *file, struct kv *kv, int max)
{
	char path[64], line[128];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (n < max && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %llu", kv[n].key, &kv[n].val) == 2)
			n++;
	fclose(f);
	return n;
}

static unsigned long long kv_get(struct kv *kv, int n, const char *key)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(kv[i].key, key))
			return kv[i].val;
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
		for (i = 0; comm[i]; i++)
			printf(comm[i] == '"' || comm[i] == '\\' ? "\\%c" :
			       (unsigned char)comm[i] < 0x20 ? "?" : "%c", comm[i]);
		printf("\"");
		for (i = 0; i < n; i++)
			printf(", \"%s\": %llu", kv[i].key, kv[i].val);
		printf("}");
		*first = false;
		return;
	}
	printf("%d %s: %llu switches (%llu restarted)\n", pid, comm,
	       kv_get(kv, n, "switches"), kv_get(kv, n, "restarts"));
	printf("  file: %llu files, %llu target / %llu candidate pages\n",
	       kv_get(kv, n, "files"), kv_get(kv, n, "file_target_pages"),
	       kv_get(kv, n, "file_candidate_pages"));
	printf("        prepaged %llu  hit %llu  miss %llu  late %llu",
	       kv_get(kv, n, "file_prepaged"), kv_get(kv, n, "file_hit"),
	       kv_get(kv, n, "file_miss"), kv_get(kv, n, "file_late"));
	printf("  evicted %llu  demoted %llu  stale lines %llu\n",
	       kv_get(kv, n, "file_evicted"), kv_get(kv, n, "file_demoted"),
	       kv_get(kv, n, "file_stale"));
	print_permille("precision", kv_get(kv, n, "file_precision_permille"),
		       kv_get(kv, n, "file_prepaged"));
	print_permille("recall", kv_get(kv, n, "file_recall_permille"),
		       kv_get(kv, n, "file_hit") + kv_get(kv, n, "file_miss"));
	printf("\n  anon: %llu target / %llu candidate pages\n",
	       kv_get(kv, n, "anon_target_pages"),
	       kv_get(kv, n, "anon_candidate_pages"));
	printf("        prepaged %llu  hit %llu  miss %llu  late %llu",
	       kv_get(kv, n, "anon_prepaged"), kv_get(kv, n, "anon_hit"),
	       kv_get(kv, n, "anon_miss"), kv_get(kv, n, "anon_late"));
	printf("  evicted %llu  demoted %llu\n",
	       kv_get(kv, n, "anon_evicted"), kv_get(kv, n, "anon_demoted"));
	print_permille("precision", kv_get(kv, n, "anon_precision_permille"),
		       kv_get(kv, n, "anon_prepaged"));
	print_permille("recall", kv_get(kv, n, "anon_recall_permille"),
		       kv_get(kv, n, "anon_hit") + kv_get(kv, n, "anon_miss"));
	printf("\n  budget stops %llu  log dropped %llu",
	       kv_get(kv, n, "budget_stops"), kv_get(kv, n, "log_dropped"));
	printf("  last window %.3f ms  last prepage %.3f ms\n",
	       kv_get(kv, n, "last_window_ns") / 1e6,
	       kv_get(kv, n, "last_prepage_ns") / 1e6);
}

static int cmd_stat(int pid, bool json)
{
	struct kv kv[64];
	bool first = true;
	int n;

	if (access(SYSFS_PREPAGE, F_OK))
		fatal(EXIT_REFUSED, "this kernel has no prepage (CONFIG_PREPAGE)");
	if (json)
		printf("[");
	if (pid) {
		n = read_kv(pid, "prepage_stat", kv, 64);
		if (n < 0)
			refused(pid, "reading", -n);
		stat_one(pid, kv, n, json, &first);
	} else {
		DIR *d = opendir("/proc");
		struct dirent *de;

		if (!d)
			fatal(EXIT_REFUSED, "/proc: %s", strerror(errno));
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
		printf("%s]\n", first ? "" : "\n");
	return 0;
}

struct replay {
	int pid, pidfd;
	struct iovec iov[IOV_MAX_NR];
	int nr_iov;
	unsigned long file_pages, anon_pages;
	int errors;
};

static void replay_flush(struct replay *r)
{
	ssize_t ret;

	if (!r->nr_iov)
		return;
	ret = syscall(__NR_process_madvise, r->pidfd, r->iov, r->nr_iov,
		      MADV_WILLNEED, 0);
	if (ret < 0) {
		if (errno == EPERM)
			fatal(EXIT_REFUSED, "process_madvise() of process %d: %s", r->pid,
			      "permission denied (needs ptrace access to it and CAP_SYS_NICE)");
		/* A range unmapped since the table was made. */
		r->errors++;
	} else {
		r->anon_pages += ret / page_size;
	}
	r->nr_iov = 0;
}

static void replay_line(struct line *l, void *arg)
{
	struct replay *r = arg;
	struct range *rg = l->target_given ? l->target : l->cand;
	int nr = l->target_given ? l->nr_target : l->nr_cand;
	char path[PATH_MAX + 32];
	int fd, i;

	if (l->anon) {
		if (!l->anon_target)
			return;
		r->iov[r->nr_iov].iov_base = (void *)l->addr;
		r->iov[r->nr_iov].iov_len = l->nr_pages * page_size;
		if (++r->nr_iov == IOV_MAX_NR)
			replay_flush(r);
		return;
	}
	if (l->target_none)
		return;
	/* The path as the process sees it, in its mount namespace. */
	snprintf(path, sizeof(path), "/proc/%d/root%s", r->pid, l->path);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s (skipped)\n", prog, l->path,
			strerror(errno));
		r->errors++;
		return;
	}
	for (i = 0; i < nr; i++) {
		if (readahead(fd, rg[i].start, rg[i].len)) {
			r->errors++;
			break;
		}
		r->file_pages += rg[i].len / page_size;
	}
	close(fd);
}

static int cmd_replay(int pid, const char *file)
{
	struct replay *r = calloc(1, sizeof(*r));
	size_t len;
	char *buf = read_table(file, &len);

	if (!r)
		fatal(EXIT_REFUSED, "out of memory");
	r->pid = pid;
	r->pidfd = syscall(__NR_pidfd_open, pid, 0);
	if (r->pidfd < 0)
		refused(pid, "opening", errno);
	table_lines(buf, file, replay_line, r);
	replay_flush(r);
	close(r->pidfd);
	printf("replayed %lu file pages, %lu anonymous pages%s\n",
	       r->file_pages, r->anon_pages,
	       r->errors ? " (some ranges skipped, see above)" : "");
	free(r);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *cmd, *out = NULL;
	bool json = false;
	int pid = 0, c;

	page_size = sysconf(_SC_PAGESIZE);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		print_usage();
	cmd = argv[1];
	argv++;
	argc--;
	while ((c = getopt_long(argc, argv, "p:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			pid = parse_pid(optarg);
			break;
		case 'o':
			out = optarg;
			break;
		case 'j':
			json = true;
			break;
		default:
			print_usage();
		}
	}
	argc -= optind;
	argv += optind;

	if (!strcmp(cmd, "stat")) {
		if (argc || out)
			print_usage();
		return cmd_stat(pid, json);
	}
	if (!pid) {
		fprintf(stderr, "%s: %s needs -p PID\n", prog, cmd);
		print_usage();
	}
	if (json || (out && strcmp(cmd, "dump")))
		print_usage();
	if (!strcmp(cmd, "load") && argc == 1)
		return cmd_load(pid, argv[0]);
	if (!strcmp(cmd, "replay") && argc == 1)
		return cmd_replay(pid, argv[0]);
	if (!strcmp(cmd, "dump") && !argc)
		return cmd_dump(pid, out);
	if (!strcmp(cmd, "reset") && !argc)
		return cmd_signal(pid, "reset");
	if (!strcmp(cmd, "switch") && argc == 1 &&
	    (!strcmp(argv[0], "start") || !strcmp(argv[0], "end")))
		return cmd_signal(pid, argv[0]);
	print_usage();
	return EXIT_USAGE;
}
