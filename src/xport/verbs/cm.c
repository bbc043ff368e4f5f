// SPDX-License-Identifier: MIT
/*
 * rdma_cm events: a non-blocking event channel per listener and per stream,
 * waited on under a deadline; the one event expected next, or a reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>

#include "platform/clock.h"
#include "platform/wait.h"
#include "xport/verbs/verbs.h"

/* The errno an unexpected event stands for (0: its status, or abort). */
static const int rv_event_errnos[] = {
	[RDMA_CM_EVENT_ADDR_ERROR] = -EADDRNOTAVAIL,
	[RDMA_CM_EVENT_ROUTE_ERROR] = -ENETUNREACH,
	[RDMA_CM_EVENT_REJECTED] = -ECONNREFUSED,
	[RDMA_CM_EVENT_UNREACHABLE] = -EHOSTUNREACH,
	[RDMA_CM_EVENT_DEVICE_REMOVAL] = -ENODEV,
	[RDMA_CM_EVENT_DISCONNECTED] = -ECONNRESET,
};

static int rv_event_errno(const struct rdma_cm_event *ev)
{
	size_t n = sizeof(rv_event_errnos) / sizeof(rv_event_errnos[0]);

	if ((size_t)ev->event < n && rv_event_errnos[ev->event])
		return rv_event_errnos[ev->event];
	return ev->status < 0 ? ev->status : -ECONNABORTED;
}

int rv_channel_create(struct rdma_event_channel **out, struct rp_err *e)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	int fl;

	if (!ch)
		return rv_fail(e, "rdma_create_event_channel (is rdma_ucm "
				  "loaded?)");
	fl = fcntl(ch->fd, F_GETFL);
	if (fl < 0 || fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		fl = rv_fail(e, "fcntl on the rdma_cm channel");
		rdma_destroy_event_channel(ch);
		return fl;
	}
	*out = ch;
	return 0;
}

/* Next event on @ch, or -ETIMEDOUT at @deadline_ns. The caller acks it. */
int rv_get_event(struct rdma_event_channel *ch, uint64_t deadline_ns,
		 struct rdma_cm_event **ev)
{
	int ret;

	for (;;) {
		if (rdma_get_cm_event(ch, ev) == 0)
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return rv_neg(errno);
		ret = rp_wait_fd(NULL, ch->fd, POLLIN, deadline_ns);
		if (ret)
			return ret;
	}
}

/* Wait for event @want on @ch; anything else (or nothing) is an error,
 * said in @e as "@what: ...". */
int rv_expect(struct rdma_event_channel *ch, enum rdma_cm_event_type want,
	      uint64_t deadline_ns, const char *what, struct rp_err *e)
{
	struct rdma_cm_event *ev;
	int ret;

	ret = rv_get_event(ch, deadline_ns, &ev);
	if (ret)
		return rp_errf(e, ret, "%s: %s", what,
			       ret == -ETIMEDOUT ? "timed out"
						 : strerror(-ret));
	if (ev->event != want)
		ret = rp_errf(e, rv_event_errno(ev), "%s: got %s (status %d)%s",
			      what, rdma_event_str(ev->event), ev->status,
			      ev->event == RDMA_CM_EVENT_REJECTED
				      ? ": no listener or a wrong token"
				      : "");
	rdma_ack_cm_event(ev);
	return ret;
}

/* Wait for ESTABLISHED after accept or connect; on failure tell the peer
 * and wait no longer. */
int rv_established(struct rv_stream *s, uint64_t deadline_ns, const char *what)
{
	int ret = rv_expect(s->ch, RDMA_CM_EVENT_ESTABLISHED, deadline_ns, what,
			    &s->base.err);

	if (ret)
		rdma_disconnect(s->id);
	else
		rv_connected(s);
	return ret;
}

/* Disconnect and wait (bounded) for the peer to do the same: an rxe peer
 * left undisconnected blocks its process's exit for about 100 s. A peer
 * that closes later than RV_CLOSE_MS is not an error: the kernel finishes
 * the handshake after our id is gone. */
void rv_disconnect(struct rv_stream *s)
{
	uint64_t deadline = rp_deadline_ns(RV_CLOSE_MS);
	struct rdma_cm_event *ev;
	bool done = false;

	if (rdma_disconnect(s->id))
		return;
	while (!done && rv_get_event(s->ch, deadline, &ev) == 0) {
		done = ev->event == RDMA_CM_EVENT_DISCONNECTED;
		rdma_ack_cm_event(ev);
	}
}
