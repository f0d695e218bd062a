// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in app for dev/demo.sh: reads FILE (64 pages) and keeps a
 * 64-page anonymous heap. On SIGUSR1 it "comes to the foreground": reads
 * file pages 0-15 and touches heap pages 0-31; on SIGUSR2 it is "pushed
 * out": the heap is paged out (MADV_PAGEOUT) and the file's pages are
 * dropped (POSIX_FADV_DONTNEED). Prints "ready" once set up.
 *
 *	demo-app FILE
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif
#define NR	64

int main(int argc, char **argv)
{
	long psz = sysconf(_SC_PAGESIZE);
	volatile char *heap;
	sigset_t set;
	char *buf;
	int fd, sig, i;

	if (argc != 2) {
		fprintf(stderr, "usage: demo-app FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	buf = malloc(psz);
	heap = mmap(NULL, NR * psz, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || !buf || heap == MAP_FAILED) {
		perror("demo-app");
		return 1;
	}
	for (i = 0; i < NR; i++)
		memset((char *)heap + i * psz, i + 1, psz);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready heap=%p\n", (void *)heap);
	fflush(stdout);
	while (!sigwait(&set, &sig)) {
		if (sig == SIGUSR1) {
			for (i = 0; i < 16; i++)
				if (pread(fd, buf, psz, i * psz) != psz)
					return 1;
			for (i = 0; i < 32; i++)
				if (heap[i * psz] != i + 1)
					return 1;
		} else {
			madvise((void *)heap, NR * psz, MADV_PAGEOUT);
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		}
	}
	return 0;
}
