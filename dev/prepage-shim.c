// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim of the no-regression run (dev/upstream-selftests.sh):
 * every process that loads it opens a prepage switch window for itself
 * ("start" to /proc/self/prepage) when it starts, and every child it
 * forks opens its own, so that the upstream kselftests run with the
 * series' hooks live (the file access log, the anonymous swap-in log,
 * the accessed-bit scan and the prepage threads at each "start"). The
 * runner cycles the windows (end, start) while the tests run.
 *
 * Errors are ignored: prepage may be off, the process may have dropped
 * CAP_SYS_NICE, /proc may not be mounted. errno is left as it was.
 *
 * Built by dev/selftests.sh: gcc -shared -fPIC -pthread.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

static void prepage_window_start(void)
{
	int saved = errno;
	int fd = open("/proc/self/prepage", O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (write(fd, "start", 5) < 0) {
			/* no window: nothing to do */
		}
		close(fd);
	}
	errno = saved;
}

__attribute__((constructor))
static void prepage_shim_init(void)
{
	prepage_window_start();
	pthread_atfork(NULL, NULL, prepage_window_start);
}
