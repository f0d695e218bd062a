// SPDX-License-Identifier: GPL-2.0
/*
 * interference: what background work on the other CPU costs a process
 * that takes file faults (a probe, in the guest; not part of the series).
 *
 * The foreground process reads 400 random pages of FILE (on the throttled
 * app disk; each measurement unmaps them and drops the cache first, and
 * reads pages of its own) through a MADV_RANDOM mapping, each fault
 * followed by a fixed CPU loop, and prints its wall time; before each
 * measurement a background process starts one kind of work and is
 * killed after it:
 *
 *   none              nothing
 *   spin              a user-space loop, SCHED_IDLE
 *   swapin-idle       swap a 96 MiB buffer out (MADV_PAGEOUT), then read it
 *                     back page by page, again and again: SCHED_IDLE
 *   swapin-normal     the same at normal priority (as a replay thread)
 *   swapin-idle-pin   the same as swapin-idle, pinned to CPU 1
 *   alloc             map, touch and unmap 4 MiB of anonymous memory
 *                     over and over, SCHED_IDLE
 *   readzero          read /dev/zero (kernel copies only), SCHED_IDLE
 *   swapin-nice19     as swapin-idle, but SCHED_OTHER at nice 19
 *   readin-idle       the buffer swapped out before the measurement, which
 *                     sees swap-ins only (as the anonymous prepagers do):
 *                     SCHED_IDLE
 *   readin-nice19     the same at nice 19
 *
 * Environment: INTERF_KINDS=KIND,... runs only those kinds;
 * INTERF_TRACE=1 records the scheduler's events of each measurement
 * (sched_switch, sched_wakeup, sched_migrate_task; with INTERF_LOCKS=1
 * also lock contention_begin/end) and prints them after its INTERF line,
 * as "TRACE rep=N bg=KIND <trace line>" (tracefs mounted at
 * /sys/kernel/tracing). bench/interference.py reads the output: wall
 * time per kind and, from the traces, the foreground's time on a CPU,
 * blocked and woken-but-waiting, where its wakeups landed and its lock
 * contention.
 *
 * Build and run (2 CPUs, the benchmark's disk throttling):
 *   gcc -O2 -static -o build/interference bench/interference.c
 *   printf '%s\n' 'mount -t tracefs nodev /sys/kernel/tracing' \
 *     'dd if=/dev/urandom of=/mnt/disk/f bs=1M count=256 2>/dev/null && sync' \
 *     'INTERF_KINDS=none,spin,readin-idle,readin-nice19 INTERF_TRACE=1 INTERF_LOCKS=1 /extra/interference /mnt/disk/f 4' \
 *     > build/interference.sh
 *   D=throttling.bps-read=157286400,throttling.iops-read=4000,throttling.bps-write=52428800,throttling.iops-write=2000
 *   BENCH_KERNEL=1 VM_DISK_SIZE=1G VM_DISK_OPTS=$D dev/vm.sh -x build/interference \
 *     -x build/interference.sh -- "sh /extra/interference.sh" > build/interference.out
 *   bench/interference.py build/interference.out
 * Output: "INTERF rep=N bg=KIND wall_ms=X fg=PID bgpid=PID" lines, the
 * kinds interleaved in each repetition; repetition 0 is a warm-up.
 *
 * What it showed (2026-11-26, each boot compared within itself; the
 * spread within a boot is as large as most differences):
 * - Three boots of the first versions (7 kinds): swapin-idle 8-36% above
 *   none, swapin-normal -6% to +7%, swapin-idle-pin and spin not above.
 *   (Those versions left earlier measurements' pages mapped, so cached:
 *   later repetitions read fewer pages from the disk.)
 * - Two boots of this version, traced: readin-idle 18% and 20% above
 *   none, readin-nice19 27% and 6% above: the scheduling class is not
 *   what costs. 93-100% of the foreground's wakeups landed on an idle
 *   CPU, whatever the kind; it never waited for a lock (no contention
 *   event). A SCHED_IDLE user-space spin on the other CPU made it 29%
 *   *faster* (91 ms against 129), with a third of the wakeups: what the
 *   other vCPU does changes how long this one waits for its reads, an
 *   effect of the emulator (waking a halted vCPU) more than of the guest
 *   kernel.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif
#define SWAP_BYTES	(96UL << 20)
#define FILE_PAGES	65536	/* of FILE read at random: 256 MiB */
#define FAULTS		400

enum kind { NONE, SPIN, SWAPIN_IDLE, SWAPIN_NORMAL, SWAPIN_IDLE_PIN, ALLOC,
	    READZERO, SWAPIN_NICE19, READIN_IDLE, READIN_NICE19, NR_KINDS };
static const char * const names[NR_KINDS] = {
	"none", "spin", "swapin-idle", "swapin-normal", "swapin-idle-pin",
	"alloc", "readzero", "swapin-nice19", "readin-idle", "readin-nice19",
};
static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* The background work of @kind, forever; @ready is written once it runs. */
static void background(enum kind kind, int ready)
{
	struct sched_param sp = { 0 };
	size_t i;
	char *buf;

	if (kind == SWAPIN_NICE19 || kind == READIN_NICE19) {
		if (setpriority(PRIO_PROCESS, 0, 19))
			die("nice 19");
	} else if (kind != SWAPIN_NORMAL &&
		   sched_setscheduler(0, SCHED_IDLE, &sp)) {
		die("SCHED_IDLE");
	}
	if (kind == SWAPIN_IDLE_PIN) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(1, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			die("pin to CPU 1");
	}
	switch (kind) {
	case SPIN:
		if (write(ready, "x", 1) != 1)
			_exit(1);
		for (;;)
			sink++;
	case SWAPIN_IDLE:
	case SWAPIN_NORMAL:
	case SWAPIN_IDLE_PIN:
	case SWAPIN_NICE19:
	case READIN_IDLE:
	case READIN_NICE19:
		buf = mmap(NULL, SWAP_BYTES, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED)
			die("mmap");
		madvise(buf, SWAP_BYTES, MADV_NOHUGEPAGE);
		for (i = 0; i < SWAP_BYTES; i += 4096)
			memset(buf + i, (int)(i >> 12), 64);
		/*
		 * readin-*: paged out before the measurement starts, so that
		 * it sees swap-ins only (a pass takes longer than it), as the
		 * anonymous prepagers do.
		 */
		if (kind == READIN_IDLE || kind == READIN_NICE19)
			madvise(buf, SWAP_BYTES, MADV_PAGEOUT);
		if (write(ready, "x", 1) != 1)
			_exit(1);
		for (;;) {
			if (kind != READIN_IDLE && kind != READIN_NICE19)
				madvise(buf, SWAP_BYTES, MADV_PAGEOUT);
			for (i = 0; i < SWAP_BYTES; i += 4096)
				sink += buf[i];
			if (kind == READIN_IDLE || kind == READIN_NICE19)
				madvise(buf, SWAP_BYTES, MADV_PAGEOUT);
		}
	case ALLOC:
		if (write(ready, "x", 1) != 1)
			_exit(1);
		for (;;) {
			buf = mmap(NULL, 4 << 20, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (buf == MAP_FAILED)
				die("mmap");
			for (i = 0; i < (4 << 20); i += 4096)
				buf[i] = 1;
			munmap(buf, 4 << 20);
		}
	case READZERO: {
		static char b[65536];
		int fd = open("/dev/zero", O_RDONLY);

		if (fd < 0)
			die("/dev/zero");
		if (write(ready, "x", 1) != 1)
			_exit(1);
		for (;;)
			if (read(fd, b, sizeof(b)) < 0)
				die("read /dev/zero");
	}
	default:
		_exit(0);
	}
}

static pid_t start_background(enum kind kind)
{
	int p[2];
	pid_t pid;
	char c;

	if (kind == NONE)
		return 0;
	if (pipe(p))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(p[0]);
		background(kind, p[1]);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		die("background work did not start");
	close(p[0]);
	return pid;
}

/*
 * INTERF_TRACE=1: record the scheduler's events of each measurement
 * (sched_switch, sched_wakeup, sched_migrate_task; with INTERF_LOCKS=1
 * also lock contention_begin/end) and print them after its INTERF line,
 * each prefixed "TRACE rep=N bg=KIND ".
 */
#define TRACEFS "/sys/kernel/tracing/"
static int tracing;

static void tfs_write(const char *file, const char *val)
{
	int fd = open(file, O_WRONLY | O_TRUNC);

	if (fd < 0 || write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		die(file);
	close(fd);
}

static void trace_on(bool on)
{
	if (on)
		tfs_write(TRACEFS "trace", "");
	tfs_write(TRACEFS "tracing_on", on ? "1" : "0");
}

static void trace_dump(int rep, const char *kind)
{
	char line[512];
	FILE *f = fopen(TRACEFS "trace", "r");

	if (!f)
		die("trace");
	while (fgets(line, sizeof(line), f))
		if (line[0] != '#')
			printf("TRACE rep=%d bg=%s %s", rep, kind, line);
	fclose(f);
	fflush(stdout);
}

static void trace_setup(void)
{
	tfs_write(TRACEFS "tracing_on", "0");
	tfs_write(TRACEFS "buffer_size_kb", "8192");
	tfs_write(TRACEFS "events/sched/sched_switch/enable", "1");
	tfs_write(TRACEFS "events/sched/sched_wakeup/enable", "1");
	tfs_write(TRACEFS "events/sched/sched_migrate_task/enable", "1");
	if (getenv("INTERF_LOCKS") && *getenv("INTERF_LOCKS") == '1') {
		tfs_write(TRACEFS "events/lock/contention_begin/enable", "1");
		tfs_write(TRACEFS "events/lock/contention_end/enable", "1");
	}
}

/* INTERF_KINDS=KIND,KIND...: only these kinds (all by default). */
static bool kind_selected(int k)
{
	const char *list = getenv("INTERF_KINDS"), *p;
	size_t n = strlen(names[k]);

	if (!list || !*list)
		return true;
	for (p = list; (p = strstr(p, names[k])); p += n)
		if ((p == list || p[-1] == ',') && (!p[n] || p[n] == ','))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	int fd, reps = argc > 2 ? atoi(argv[2]) : 4, rep, k, i, j;
	char *map;

	if (argc < 2 || reps < 1) {
		fprintf(stderr, "usage: interference FILE [REPETITIONS]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		die(argv[1]);
	tracing = getenv("INTERF_TRACE") && *getenv("INTERF_TRACE") == '1';
	if (tracing)
		trace_setup();
	map = mmap(NULL, (size_t)FILE_PAGES * 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap FILE");
	madvise(map, (size_t)FILE_PAGES * 4096, MADV_RANDOM);
	for (rep = 0; rep < reps; rep++) {
		for (k = 0; k < NR_KINDS; k++) {
			uint64_t x = rep * NR_KINDS + k + 1, t0, t1;
			pid_t bg;

			if (!kind_selected(k))
				continue;
			/* Unmapped first: mapped pages are not dropped. */
			madvise(map, (size_t)FILE_PAGES * 4096, MADV_DONTNEED);
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
			bg = start_background(k);
			usleep(50000);
			if (tracing)
				trace_on(true);
			t0 = now_ns();
			for (i = 0; i < FAULTS; i++) {
				uint64_t a;

				x = x * 6364136223846793005ULL + 1;
				sink += map[((x >> 20) % FILE_PAGES) * 4096];
				for (a = x, j = 0; j < 20000; j++)
					a = a * 2862933555777941757ULL + 3;
				sink += a;
			}
			t1 = now_ns();
			if (tracing)
				trace_on(false);
			if (bg) {
				kill(bg, SIGKILL);
				waitpid(bg, NULL, 0);
			}
			printf("INTERF rep=%d bg=%s wall_ms=%.1f fg=%d bgpid=%d\n",
			       rep, names[k], (t1 - t0) / 1e6, getpid(), bg);
			fflush(stdout);
			if (tracing)
				trace_dump(rep, names[k]);
		}
	}
	return 0;
}
