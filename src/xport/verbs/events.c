// SPDX-License-Identifier: MIT
/*
 * --wait event: a completion channel per stream, shared by its two CQs,
 * its descriptor non-blocking. The classic sequence, so that no completion
 * is slept through:
 *
 *   poll the CQ: empty -> arm it (ibv_req_notify_cq) -> poll it once more:
 *   still empty -> sleep on the channel -> take the events, acknowledge
 *   each at once -> poll the CQ ...
 *
 * A CQ's bit in rv_stream.armed is set when it is armed and cleared when
 * its event is taken: while it is set, either the CQ is armed or its event
 * waits in the channel, so sleeping is safe. Busy mode never sets a bit.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "platform/wait.h"
#include "xport/verbs/verbs.h"

/* Under --wait event, the stream's completion channel (before its CQs). */
int rv_events_create(struct rv_stream *s)
{
	int fl;

	if (s->base.spec.wait != RP_WAIT_EVENT)
		return 0;
	s->cchan = ibv_create_comp_channel(s->id->verbs);
	if (!s->cchan)
		return rv_fail(&s->base.err, "ibv_create_comp_channel");
	fl = fcntl(s->cchan->fd, F_GETFL);
	if (fl < 0 || fcntl(s->cchan->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return rv_fail(&s->base.err, "fcntl on the completion channel");
	return 0;
}

/* After the CQs that report to it; NULL channel ok. */
void rv_events_destroy(struct rv_stream *s)
{
	if (s->cchan)
		ibv_destroy_comp_channel(s->cchan);
	s->cchan = NULL;
}

static int rv_arm_one(struct rv_stream *s, struct ibv_cq *cq, unsigned int bit)
{
	int ret = ibv_req_notify_cq(cq, 0);

	if (ret)
		return rv_call_failed(s, "ibv_req_notify_cq", ret);
	s->armed |= bit;
	return 0;
}

/* Arm the CQs of @want (RV_ARMED_*) that are not armed yet. Return: 1 when
 * one was armed now (poll it once more before sleeping), 0 when all were
 * (sleep), or -errno. */
int rv_arm_cqs(struct rv_stream *s, unsigned int want)
{
	unsigned int now = want & ~s->armed;
	int ret = 0;

	if (now & RV_ARMED_SEND)
		ret = rv_arm_one(s, s->scq, RV_ARMED_SEND);
	if (!ret && (now & RV_ARMED_RECV))
		ret = rv_arm_one(s, s->rcq, RV_ARMED_RECV);
	return ret ? ret : now != 0;
}

/* Take every event waiting in the channel, without blocking, and
 * acknowledge each (ibv_destroy_cq waits for the acknowledgements). */
int rv_take_events(struct rv_stream *s)
{
	struct ibv_cq *cq;
	void *ctx;
	int err;

	while (ibv_get_cq_event(s->cchan, &cq, &ctx) == 0) {
		ibv_ack_cq_events(cq, 1);
		s->armed &= cq == s->scq ? ~RV_ARMED_SEND : ~RV_ARMED_RECV;
	}
	err = rv_neg(errno);
	if (err == -EAGAIN || err == -EWOULDBLOCK || err == -EINTR)
		return 0;
	return rp_stream_fail(&s->base, err, "ibv_get_cq_event failed: %s",
			      strerror(-err));
}

/* Sleep until an event of @s comes or @deadline_ns (-ETIMEDOUT, no
 * reason recorded), then take the events. */
int rv_sleep(struct rv_stream *s, uint64_t deadline_ns)
{
	int ret = rp_wait_fd(NULL, s->cchan->fd, POLLIN, deadline_ns);

	if (ret == -ETIMEDOUT)
		return ret;
	if (ret)
		return rp_stream_fail(&s->base, ret,
				      "poll on the completion channel: %s",
				      strerror(-ret));
	return rv_take_events(s);
}

/* Responder: arm the receive CQs of the @n streams @bs; when all already
 * were, sleep on their channels for up to RV_EVENT_MS (@fds: room for @n)
 * and take what woke them. Return: 0, or -errno (the reason in the stream
 * that failed, in the first one for poll itself). */
int rv_sleep_many(struct rp_stream *const *bs, unsigned int n,
		  struct pollfd *fds)
{
	unsigned int i, fresh = 0;
	int ret, err;

	for (i = 0; i < n; i++) {
		ret = rv_arm_cqs(rv_of(bs[i]), RV_ARMED_RECV);
		if (ret < 0)
			return ret;
		fresh |= (unsigned int)ret;
	}
	if (fresh) /* poll them once more first */
		return 0;
	for (i = 0; i < n; i++)
		fds[i] = (struct pollfd){ .fd = rv_of(bs[i])->cchan->fd,
					  .events = POLLIN };
	ret = poll(fds, n, RV_EVENT_MS);
	if (ret < 0) {
		err = rv_neg(errno);
		return err == -EINTR ? 0
				     : rp_stream_fail(bs[0], err,
						      "poll on the completion "
						      "channels: %s",
						      strerror(-err));
	}
	for (i = 0; ret > 0 && i < n; i++) {
		err = fds[i].revents ? rv_take_events(rv_of(bs[i])) : 0;
		if (err)
			return err;
	}
	return 0;
}

/* The arm op (the initiator's engine, about to sleep): the send CQ, where
 * every operation of the throughput phase completes. A receive CQ left
 * armed by ping() may hold an event: take it, or the descriptor would
 * stay readable and the engine would never sleep. */
int rv_arm(struct rp_stream *bs, int *fd, short *events)
{
	struct rv_stream *s = rv_of(bs);
	int ret;

	if (!s->cchan)
		return rp_stream_fail(bs, -EINVAL,
				      "arm: the stream was not set up for "
				      "--wait event");
	*fd = s->cchan->fd;
	*events = POLLIN;
	if (s->cr.waiting) /* a credit write raises no event: keep polling */
		return 1;
	if (s->armed & ~RV_ARMED_SEND) {
		ret = rv_take_events(s);
		if (ret)
			return ret;
	}
	return rv_arm_cqs(s, RV_ARMED_SEND);
}
