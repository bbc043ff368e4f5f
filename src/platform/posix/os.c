// SPDX-License-Identifier: MIT
/* POSIX side of platform/os.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

#include "platform/os.h"

/* A closed stdin, stdout or stderr is reopened on /dev/null, read-only:
 * else the first socket or file opened takes its number and the report
 * would be written into it. Writing there still fails (EBADF), as it
 * would have, and is told. */
int rp_os_init(void)
{
	int fd;

	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", O_RDONLY) < 0)
			break; /* best effort: no /dev/null, as before */
	return 0;
}

bool rp_os_tsc_trusted(void)
{
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/"
			"current_clocksource",
			"r");
	char name[32] = "";
	bool tsc;

	if (!f)
		return false;
	tsc = fgets(name, sizeof(name), f) && !strcmp(name, "tsc\n");
	fclose(f);
	return tsc;
}

void rp_os_on_interrupt(void (*fn)(int sig))
{
	struct sigaction sa = { .sa_handler = fn };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void *rp_os_aligned_alloc(size_t align, size_t len)
{
	return aligned_alloc(align, (len + align - 1) & ~(align - 1));
}

void rp_os_aligned_free(void *p)
{
	free(p);
}

FILE *rp_os_fmemopen(void *buf, size_t size, const char *mode)
{
	return fmemopen(buf, size, mode);
}

int rp_os_open_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	return fd < 0 ? -errno : fd;
}

int rp_os_file_perm(int fd, unsigned int *perm)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	*perm = (unsigned int)(st.st_mode & 07777);
	return 0;
}

#if defined(__linux__)
void rp_os_flag_wait(const atomic_int *flag, int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	if (!atomic_load(flag))
		syscall(SYS_futex, flag, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
}

void rp_os_flag_wake(atomic_int *flag)
{
	syscall(SYS_futex, flag, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}
#else
void rp_os_flag_wait(const atomic_int *flag, int ms)
{
	struct timespec ts = { 0, 1000000L };

	if (!atomic_load(flag) && ms > 0)
		nanosleep(&ts, NULL);
}

void rp_os_flag_wake(atomic_int *flag)
{
	(void)flag;
}
#endif
