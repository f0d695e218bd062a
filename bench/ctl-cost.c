// SPDX-License-Identifier: GPL-2.0
/*
 * ctl-cost: what the switch signals cost, in the guest, away from the
 * benchmark's memory pressure. A child maps NF files of FSZ bytes and a
 * 4 MiB heap; a table naming the files is loaded and four windows learn
 * the heap. Then, 2N times: the child's pages are paged out
 * (MADV_PAGEOUT), a window opens, the child touches every third file
 * page and every second heap page, the window ends; the signals of one
 * window in two are written to a file kept open, of the other to a file
 * opened for each. Prints p50/p95/max of:
 *   open+close          of /proc/<pid>/prepage (a procfs path walk)
 *   open+start+close    as the benchmark did before it kept the file open
 *   open+end+close
 *   write start, end    on the kept-open file (what the benchmark times),
 *                       and the writer's CPU time in the start
 *   write bogus         the floor of a write to the file
 *
 * Build: gcc -O2 -static -o build/ctl-cost bench/ctl-cost.c
 * Run:   dev/vm.sh -x build/ctl-cost -- \
 *          'echo 1 > /sys/kernel/mm/prepage/enabled; /extra/ctl-cost 100'
 * With bench/signal-phases.patch applied, the trace buffer has the phases
 * of each 'start' and 'end'. A timing tool, not a benchmark.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NF	8
#define FSZ	(1 << 20)
#define HEAP	(4 << 20)
#define DIR	"/mnt/disk"

static int to_child[2], from_child[2];

static double now(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *name, double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp);
	printf("%-28s p50 %8.1f us  p95 %8.1f us  max %8.1f us\n", name,
	       v[n / 2] / 1e3, v[n * 95 / 100] / 1e3, v[n - 1] / 1e3);
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Commands: 'u' use the pages (a window's work), 'o' page them out. */
static void child(void)
{
	char *map[NF], *heap, path[64], c;
	volatile char sum = 0;
	long o;
	int i;

	for (i = 0; i < NF; i++) {
		int fd;

		snprintf(path, sizeof(path), DIR "/ctl-cost.%d", i);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			die(path);
		map[i] = mmap(NULL, FSZ, PROT_READ, MAP_SHARED, fd, 0);
		if (map[i] == MAP_FAILED)
			die("mmap");
		close(fd);
	}
	heap = mmap(NULL, HEAP, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (heap == MAP_FAILED)
		die("mmap");
	while (read(to_child[0], &c, 1) == 1) {
		if (c == 'u') {
			for (i = 0; i < NF; i++)
				for (o = 0; o < FSZ; o += 3 * 4096)
					sum += map[i][o];
			for (o = 0; o < HEAP; o += 2 * 4096)
				heap[o]++;
		} else {
			for (i = 0; i < NF; i++)
				madvise(map[i], FSZ, MADV_PAGEOUT);
			madvise(heap, HEAP, MADV_PAGEOUT);
		}
		if (write(from_child[1], &c, 1) != 1)
			_exit(1);
	}
	_exit(0);
}

static void ask(char c)
{
	if (write(to_child[1], &c, 1) != 1 || read(from_child[0], &c, 1) != 1)
		die("child");
}

static void put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, s, strlen(s)) < 0)
		die(path);
	close(fd);
}

static double timed_put(const char *path, const char *s)
{
	double t = now(CLOCK_MONOTONIC);

	put(path, s);
	return now(CLOCK_MONOTONIC) - t;
}

/* A write on the kept-open file (seq_file: no pwrite(); no position). */
static double timed_write(int fd, const char *s, int ok)
{
	double t = now(CLOCK_MONOTONIC);

	if ((write(fd, s, strlen(s)) < 0) == ok)
		die(s);
	return now(CLOCK_MONOTONIC) - t;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, i, fd;
	double *v[7];
	char path[64], ctl[64], table[NF * 64], *t = table;
	static char data[FSZ];
	pid_t pid;

	if (n < 2)
		n = 2;
	for (i = 0; i < 7; i++) {
		v[i] = calloc(n, sizeof(double));
		if (!v[i])
			die("calloc");
	}
	for (i = 0; i < NF; i++) {
		snprintf(path, sizeof(path), DIR "/ctl-cost.%d", i);
		fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
		memset(data, i + 1, FSZ);
		if (fd < 0 || write(fd, data, FSZ) != FSZ)
			die(path);
		close(fd);
		t += sprintf(t, "%s 0:%d\n", path, FSZ);
	}
	sync();
	if (pipe(to_child) || pipe(from_child))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid)
		child();
	snprintf(ctl, sizeof(ctl), "/proc/%d/prepage", pid);
	snprintf(path, sizeof(path), "/proc/%d/prepage_table", pid);
	put(path, table);
	/* Learn the heap: candidates, then targets. */
	for (i = 0; i < 4; i++) {
		ask('o');
		put(ctl, "start");
		ask('u');
		put(ctl, "end");
	}
	fd = open(ctl, O_WRONLY);
	if (fd < 0)
		die(ctl);
	/* Windows alike, their signals sent one way or the other in turn. */
	for (i = 0; i < 2 * n; i++) {
		int k = i / 2;
		double t0, c0;

		ask('o');
		t0 = now(CLOCK_MONOTONIC);
		c0 = now(CLOCK_THREAD_CPUTIME_ID);
		if (i % 2) {
			timed_write(fd, "start", 1);
			v[4][k] = now(CLOCK_THREAD_CPUTIME_ID) - c0;
			v[3][k] = now(CLOCK_MONOTONIC) - t0;
		} else {
			v[1][k] = timed_put(ctl, "start");
		}
		ask('u');
		if (i % 2)
			v[5][k] = timed_write(fd, "end", 1);
		else
			v[2][k] = timed_put(ctl, "end");
	}
	for (i = 0; i < n; i++) {
		double t0 = now(CLOCK_MONOTONIC);
		int x = open(ctl, O_WRONLY);

		close(x);
		v[0][i] = now(CLOCK_MONOTONIC) - t0;
		v[6][i] = timed_write(fd, "bogus", 0);
	}
	snprintf(path, sizeof(path), "cat /proc/%d/prepage", pid);
	if (system(path))
		fprintf(stderr, "cannot show the table sizes\n");
	report("open+close", v[0], n);
	report("open+start+close", v[1], n);
	report("open+end+close", v[2], n);
	report("write start (kept open)", v[3], n);
	report("  its CPU", v[4], n);
	report("write end (kept open)", v[5], n);
	report("write bogus (EINVAL)", v[6], n);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	for (i = 0; i < NF; i++) {
		snprintf(path, sizeof(path), DIR "/ctl-cost.%d", i);
		unlink(path);
	}
	return 0;
}
