// SPDX-License-Identifier: MIT
/* Windows side of platform/os.h. */
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <malloc.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>

#include "platform/os.h"
#include "platform/sock.h"

int rp_os_init(void)
{
	WSADATA wsa;
	int err = WSAStartup(MAKEWORD(2, 2), &wsa);

	return err ? -ENETDOWN : 0;
}

bool rp_os_tsc_trusted(void)
{
	return true;
}

static void (*_Atomic on_interrupt)(int sig);

/* Runs on a thread the system starts for the event. */
static BOOL WINAPI console_event(DWORD type)
{
	void (*fn)(int) = atomic_load(&on_interrupt);

	if (!fn || (type != CTRL_C_EVENT && type != CTRL_BREAK_EVENT &&
		    type != CTRL_CLOSE_EVENT))
		return FALSE;
	fn(SIGINT);
	return TRUE;
}

void rp_os_on_interrupt(void (*fn)(int sig))
{
	atomic_store(&on_interrupt, fn);
	SetConsoleCtrlHandler(console_event, TRUE);
}

void *rp_os_aligned_alloc(size_t align, size_t len)
{
	return _aligned_malloc(len ? len : 1, align);
}

void rp_os_aligned_free(void *p)
{
	_aligned_free(p);
}

FILE *rp_os_fmemopen(void *buf, size_t size, const char *mode)
{
	(void)buf;
	(void)size;
	(void)mode;
	errno = ENOSYS;
	return NULL;
}

int rp_os_open_read(const char *path)
{
	int fd = _open(path, _O_RDONLY | _O_BINARY | _O_NOINHERIT);

	return fd < 0 ? -errno : fd;
}

int rp_os_file_perm(int fd, unsigned int *perm)
{
	struct _stat64 st;

	if (_fstat64(fd, &st))
		return -errno;
	if (!(st.st_mode & _S_IFREG))
		return -EINVAL;
	*perm = 0600;
	return 0;
}

/* A nap of at most a millisecond (WaitOnAddress would need Windows 8's
 * synchronization library). */
void rp_os_flag_wait(const atomic_int *flag, int ms)
{
	if (!atomic_load(flag) && ms > 0)
		Sleep(1);
}

void rp_os_flag_wake(atomic_int *flag)
{
	(void)flag;
}
