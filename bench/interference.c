// SPDX-License-Identifier: GPL-2.0
/*
 * interference: what background work on the other CPU costs a process
 * that takes file faults (a probe, in the guest; not part of the series).
 *
 * The foreground process reads 400 random pages of FILE (on the throttled
 * app disk, its cache dropped first) through a MADV_RANDOM mapping, each
 * fault followed by a fixed CPU loop, and prints its wall time; before
 * each measurement a background process starts one kind of work and is
 * killed after it:
 *
 *   none              nothing
 *   spin              a user-space loop, SCHED_IDLE
 *   swapin-idle       swap a 96 MiB buffer out (MADV_PAGEOUT), then read it
 *                     back page by page, again and again: SCHED_IDLE, as
 *                     the anonymous prepagers
 *   swapin-normal     the same at normal priority (as a replay thread)
 *   swapin-idle-pin   the same as swapin-idle, pinned to CPU 1
 *   alloc             map, touch and unmap 4 MiB of anonymous memory
 *                     over and over, SCHED_IDLE
 *   readzero          read /dev/zero (kernel copies only), SCHED_IDLE
 *
 * Build and run (2 CPUs, the benchmark's disk throttling):
 *   gcc -O2 -static -o build/interference bench/interference.c
 *   D=throttling.bps-read=157286400,throttling.iops-read=4000,throttling.bps-write=52428800,throttling.iops-write=2000
 *   BENCH_KERNEL=1 VM_DISK_SIZE=1G VM_DISK_OPTS=$D dev/vm.sh -x build/interference -- \
 *     "dd if=/dev/urandom of=/mnt/disk/f bs=1M count=256 && sync && /extra/interference /mnt/disk/f 4"
 * Output: "INTERF rep=N bg=KIND wall_ms=X" lines, the kinds interleaved
 * in each repetition; drop repetition 0 (warm-up). Measured 2026-11-26,
 * three boots (this program and its first versions), means of 3 or 4
 * repetitions against none: swapin-idle 8-36% above, swapin-normal -6%
 * to +7%, swapin-idle-pin and spin not above it. The spread within a
 * boot is as large: compare within one boot only.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
	    READZERO, NR_KINDS };
static const char * const names[NR_KINDS] = {
	"none", "spin", "swapin-idle", "swapin-normal", "swapin-idle-pin",
	"alloc", "readzero",
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

	if (kind != SWAPIN_NORMAL &&
	    sched_setscheduler(0, SCHED_IDLE, &sp))
		die("SCHED_IDLE");
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
		buf = mmap(NULL, SWAP_BYTES, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED)
			die("mmap");
		madvise(buf, SWAP_BYTES, MADV_NOHUGEPAGE);
		for (i = 0; i < SWAP_BYTES; i += 4096)
			memset(buf + i, (int)(i >> 12), 64);
		if (write(ready, "x", 1) != 1)
			_exit(1);
		for (;;) {
			madvise(buf, SWAP_BYTES, MADV_PAGEOUT);
			for (i = 0; i < SWAP_BYTES; i += 4096)
				sink += buf[i];
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
	map = mmap(NULL, (size_t)FILE_PAGES * 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap FILE");
	madvise(map, (size_t)FILE_PAGES * 4096, MADV_RANDOM);
	for (rep = 0; rep < reps; rep++) {
		for (k = 0; k < NR_KINDS; k++) {
			uint64_t x = rep * 7 + k + 1, t0, t1;
			pid_t bg;

			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
			bg = start_background(k);
			usleep(50000);
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
			if (bg) {
				kill(bg, SIGKILL);
				waitpid(bg, NULL, 0);
			}
			printf("INTERF rep=%d bg=%s wall_ms=%.1f\n", rep,
			       names[k], (t1 - t0) / 1e6);
			fflush(stdout);
		}
	}
	return 0;
}
