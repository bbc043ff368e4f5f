// SPDX-License-Identifier: MIT
/* POSIX side of platform/os.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "platform/os.h"

int rp_os_init(void)
{
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
