// SPDX-License-Identifier: MIT
/*
 * rsocket transport: the stream transport driven through librdmacm's
 * rsocket calls, which carry a byte stream over RDMA (the successor of
 * SDP). Same semantics as TCP: cumulative acknowledgements, queue depth,
 * ping-pong. Like rdma, it needs an RDMA netdev's address for --loopback.
 * Its descriptors are rsockets, not the kernel's: every wait on them, the
 * engine's under --wait event (the ops' wait_poll) and the responder's,
 * goes through rsocket_poll, rpoll without the timeout that hangs it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rsocket.h>

#include "core/spec.h"
#include "platform/clock.h"
#include "xport/rdma_addr.h"
#include "xport/sock/sock.h"

/*
 * rpoll() with a finite timeout that runs out leaves librdmacm's count of
 * polling threads one too high (it enters, then returns 0 on the spent
 * timeout without leaving). The next rpoll() that sleeps and wakes then
 * suspends every later one, which spins inside the library, past its own
 * timeout, until one of its own rsockets has an event: a responder waiting
 * for a stop flag, or a client for its next intended start, never returns
 * (linux-rdma, 2025-09, "librdmacm infinite loop in rpoll when timeout >
 * 0"; Debian 12's v44 has it). So rpoll() here only ever gets 0 or -1: a
 * finite wait adds the thread's timerfd to the set, armed at the deadline
 * or earlier, and sleeps with -1. It may return 0 before @timeout, which
 * every caller takes as "look again".
 */
#define RS_POLL_MAX (2 * RP_SPEC_MAX_STREAMS) /* both directions */

struct rs_timer {
	int fd;		/* timerfd, CLOCK_MONOTONIC; -1 until made */
	uint64_t armed; /* when it fires, ns; 0: not armed */
};

static _Thread_local struct rs_timer rs_timer = { .fd = -1 };
static pthread_key_t rs_timer_key;
static pthread_once_t rs_timer_once = PTHREAD_ONCE_INIT;
static int rs_timer_key_err;

/* A thread's timerfd closes when the thread ends (a server runs a thread
 * per test). */
static void rs_timer_close(void *fd)
{
	close((int)(intptr_t)fd - 1);
}

static void rs_timer_key_make(void)
{
	rs_timer_key_err = pthread_key_create(&rs_timer_key, rs_timer_close);
}

static int rs_timer_get(void)
{
	struct rs_timer *t = &rs_timer;
	int fd;

	if (t->fd >= 0)
		return t->fd;
	pthread_once(&rs_timer_once, rs_timer_key_make);
	if (rs_timer_key_err)
		return -rs_timer_key_err;
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (pthread_setspecific(rs_timer_key, (void *)(intptr_t)(fd + 1))) {
		close(fd);
		return -ENOMEM;
	}
	t->fd = fd;
	return fd;
}

/* The thread's timer fires at or before @timeout_ms from now: re-armed
 * only when it would fire later than that or has fired already. The
 * timerfd or -errno. */
static int rs_timer_by(int timeout_ms)
{
	uint64_t now = rp_clock_mono_ns(); /* the timerfd's clock */
	uint64_t due = now + (uint64_t)timeout_ms * RP_NS_PER_MS;
	struct itimerspec its = { 0 };
	int fd = rs_timer_get();

	if (fd < 0)
		return fd;
	if (rs_timer.armed > now && rs_timer.armed <= due)
		return fd;
	its.it_value.tv_sec = (time_t)(due / RP_NS_PER_SEC);
	its.it_value.tv_nsec = (long)(due % RP_NS_PER_SEC);
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return -errno;
	rs_timer.armed = due;
	return fd;
}

/* The timer fired: take its count, so that it reads empty until armed. */
static void rs_timer_drain(int fd)
{
	uint64_t ticks;

	if (read(fd, &ticks, sizeof(ticks)) < 0)
		ticks = 0; /* EAGAIN: nothing to take */
	rs_timer.armed = 0;
}

static int rsocket_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	struct pollfd all[RS_POLL_MAX + 1];
	int fd, r;
	nfds_t i;

	if (timeout <= 0) /* 0: no sleep; -1: no timeout to run out */
		return rpoll(fds, n, timeout);
	if (n > RS_POLL_MAX) {
		errno = EINVAL;
		return -1;
	}
	fd = rs_timer_by(timeout);
	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	if (n) /* fds may be NULL then */
		memcpy(all, fds, n * sizeof(*fds));
	all[n] = (struct pollfd){ .fd = fd, .events = POLLIN };
	r = rpoll(all, n + 1, -1);
	if (r <= 0)
		return r;
	for (i = 0; i < n; i++)
		fds[i].revents = all[i].revents;
	if (!all[n].revents)
		return r;
	rs_timer_drain(fd);
	return r - 1;
}

static int rsocket_nonblock(int fd)
{
	int fl = rfcntl(fd, F_GETFL);

	return fl < 0 ? -1 : rfcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static const struct rp_sock_calls rsocket_calls = {
	.socket = rsocket,
	.bind = rbind,
	.listen = rlisten,
	.accept = raccept,
	.connect = rconnect,
	.send = rsend,
	.recv = rrecv,
	.poll = rsocket_poll,
	.close = rclose,
	.setsockopt = rsetsockopt,
	.getsockopt = rgetsockopt,
	.getsockname = rgetsockname,
	.set_nonblock = rsocket_nonblock,
	/* Two rsocket closes that cross can leave an MR referenced: each end
	 * sends its disconnect message (an RDMA write with immediate) and
	 * disconnects. Where a write with immediate completes as its QP
	 * goes to ERR, Soft-RoCE (Linux 6.1's rxe_resp.c: do_complete, then
	 * check_resource, then RESPST_EXIT without cleanup()) keeps the
	 * QP's reference to the MR written until the QP is destroyed; rclose
	 * deregisters the MRs first (rs_free), and rxe_dereg_mr waits 50 s
	 * for that reference before it warns and goes on. In the guest the
	 * server's session was held that long after 1 in 10 to 14 rsocket
	 * read sweeps. The client closes its streams at once after BYE; the
	 * server, on BYE, waits for their end of stream first, so its own
	 * disconnect comes after the client's message was taken. */
	.close_after_eof_ms = 1000,
#ifdef RP_RSOCKET_MAX_OPEN
	/* librdmacm before rdma-core v53: its connection service thread
	 * (cm_svc_run) keeps polling a freed pollfd array once its table
	 * grows past 3 rsockets, writing into memory the process reuses
	 * (rdma-core PR #1484). CMake sets the cap for such a library. */
	.max_open = RP_RSOCKET_MAX_OPEN,
	.max_open_why = "this librdmacm (before rdma-core v53) corrupts "
			"memory once a process holds more than 3 rsockets "
			"(rdma-core PR #1484): at most 3 rsocket streams per "
			"process here (-P, doubled by --bidir; client and "
			"server together with --loopback)",
#endif
};

static int rsocket_probe(const struct rp_xport_ops *self, struct rp_err *why)
{
	(void)self;
	if (rp_rdma_device_count() > 0)
		return 0;
	return rp_errf(why, -ENODEV,
		       "no RDMA device found (rsockets run over RDMA); "
		       "try -x tcp");
}

static const struct rp_sock_xport rsocket_xport = {
	/* no --tos: librdmacm's rsetsockopt has no IP_TOS (ENOTSUP) */
	.ops = RP_SOCK_OPS("rsocket", rsocket_probe, rp_rdma_loopback_addr,
			   rsocket_poll, false),
	.calls = &rsocket_calls,
};

const struct rp_xport_ops *const rp_xport_rsocket = &rsocket_xport.ops;
