/* SPDX-License-Identifier: MIT */
/*
 * The process and the system around it: start-up, the user's interrupt,
 * memory aligned for the transports, files read for a secret.
 * Implementations: posix/os.c, win/os.c.
 */
#ifndef RP_PLATFORM_OS_H
#define RP_PLATFORM_OS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/**
 * rp_os_init - what the system needs before any other call here (Windows:
 * Winsock's WSAStartup; POSIX: a closed descriptor 0, 1 or 2 reopened on
 * /dev/null, so that no socket or file takes its number). Call once,
 * first thing in main().
 * Return: 0 or -errno.
 */
int rp_os_init(void);

/**
 * rp_os_tsc_trusted - whether the system itself keeps time by the TSC
 * (Linux: the clocksource is "tsc", so it found the counter synchronized
 * across CPUs and stable; Windows: its performance counter runs on it
 * wherever the TSC is invariant). platform/clock.c reads the TSC only then.
 */
bool rp_os_tsc_trusted(void);

/**
 * rp_os_on_interrupt - call @fn (with SIGINT) when the user interrupts
 * (SIGINT, SIGTERM; Windows: Ctrl-C, Ctrl-Break, the console closing),
 * and never die of a peer that closed (SIGPIPE ignored). @fn runs in a
 * signal handler (POSIX) or on a thread of its own (Windows): it may only
 * touch lock-free atomics and end the process.
 */
void rp_os_on_interrupt(void (*fn)(int sig));

/**
 * rp_os_aligned_alloc - @len bytes aligned to @align (a power of two),
 * free them with rp_os_aligned_free. Return: the memory, or NULL.
 */
void *rp_os_aligned_alloc(size_t align, size_t len);

/** rp_os_aligned_free - free what rp_os_aligned_alloc gave; NULL is fine. */
void rp_os_aligned_free(void *p);

/**
 * rp_os_fmemopen - a stream writing into @buf (@size bytes), as
 * fmemopen(3); Windows has none: NULL (errno ENOSYS), and the caller does
 * without.
 */
FILE *rp_os_fmemopen(void *buf, size_t size, const char *mode);

/**
 * rp_os_open_read - open the file @path for reading, not as a terminal,
 * not inherited by child processes.
 * Return: a descriptor for read(2) and close(2), or -errno.
 */
int rp_os_open_read(const char *path);

/**
 * rp_os_file_perm - the permission bits (07777) of the regular file open
 * on @fd. Windows has no such bits (its ACLs are not read): 0600.
 * Return: 0; -EINVAL when @fd is not a regular file; or -errno.
 */
int rp_os_file_perm(int fd, unsigned int *perm);

/**
 * rp_os_flag_wait - sleep while *@flag is 0, at most @ms milliseconds; it
 * may return early: look at the flag again. Linux: a futex, woken at once
 * by rp_os_flag_wake(); elsewhere a nap of at most a millisecond.
 */
void rp_os_flag_wait(const atomic_int *flag, int ms);

/** rp_os_flag_wake - wake every rp_os_flag_wait() on @flag; set it first. */
void rp_os_flag_wake(atomic_int *flag);

#endif
