// SPDX-License-Identifier: MIT
/*
 * The initiator: each operation's call (every one asks for a completion,
 * which covers --signal's "at the latest"), the completions in the order
 * they come, --wait event's arm and sleep, and the latency round trips:
 *
 *   write            perftest's method: our slot 0 is written with a
 *                    marker in its last byte; the responder, reading its
 *                    CQ (manual progress) and that byte, writes its slot 0
 *                    back into our slot 1, where we look for the marker.
 *                    Under --wait event the echo carries remote CQ data,
 *                    so that it wakes us (the responder still watches the
 *                    byte), as the rdma transport's does.
 *   send, write_imm  the responder echoes each arrival into our slot 1 (a
 *                    send into a receive posted for it; a write with
 *                    data); done when our operation and the echo are.
 *   read, atomics    the operation's completion is the round trip.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>

#include "platform/clock.h"
#include "xport/ofi/ofi.h"

#define OFI_CLOCK_CHECK 4096 /* spins between clock reads */

static void *slot_at(struct ofi_stream *s, uint32_t slot)
{
	return s->buf + (size_t)slot * s->slot_bytes;
}

static uint64_t peer_at(const struct ofi_stream *s, uint32_t slot)
{
	return s->peer_addr + (uint64_t)slot * s->slot_bytes;
}

static int ofi_write_slot(struct ofi_stream *s, uint32_t slot)
{
	return (int)fi_write(s->ep, slot_at(s, slot), s->size, s->desc, s->peer,
			     peer_at(s, slot), s->peer_key, &s->ctx[slot]);
}

int ofi_post_write(struct ofi_stream *s, uint32_t slot, uint64_t seq)
{
	if (s->base.spec.verify)
		rp_payload_fill(slot_at(s, slot), s->size, seq);
	return ofi_write_slot(s, slot);
}

/* Latency pings of at most inject_size bytes go as fi_pingpong's do: the
 * buffer is the provider's at once and no completion comes; the echo is
 * the round trip. */
int ofi_inject_write(struct ofi_stream *s, uint32_t slot, uint64_t seq)
{
	(void)seq;
	return (int)fi_inject_write(s->ep, slot_at(s, slot), s->size, s->peer,
				    peer_at(s, slot), s->peer_key);
}

int ofi_inject_send(struct ofi_stream *s, uint32_t slot, uint64_t seq)
{
	(void)seq;
	return (int)ofi_msg_inject(s, slot_at(s, slot), s->size);
}

int ofi_inject_write_imm(struct ofi_stream *s, uint32_t slot, uint64_t seq)
{
	return (int)fi_inject_writedata(s->ep, slot_at(s, slot), s->size, seq,
					s->peer, peer_at(s, slot), s->peer_key);
}

/* --verify: the header cleared, so that a read that lands nothing fails */
int ofi_post_read(struct ofi_stream *s, uint32_t slot, uint64_t seq)
{
	(void)seq;
	if (s->base.spec.verify)
		memset(slot_at(s, slot), 0, s->size < 8 ? s->size : 8);
	return (int)fi_read(s->ep, slot_at(s, slot), s->size, s->desc, s->peer,
			    peer_at(s, slot), s->peer_key, &s->ctx[slot]);
}

int ofi_post_send(struct ofi_stream *s, uint32_t slot, uint64_t seq)
{
	if (s->base.spec.verify)
		rp_payload_fill(slot_at(s, slot), s->size, seq);
	return (int)ofi_msg_send(s, slot_at(s, slot), s->size, &s->ctx[slot]);
}

int ofi_post_write_imm(struct ofi_stream *s, uint32_t slot, uint64_t seq)
{
	if (s->base.spec.verify)
		rp_payload_fill(slot_at(s, slot), s->size, seq);
	return (int)fi_writedata(s->ep, slot_at(s, slot), s->size, s->desc, seq,
				 s->peer, peer_at(s, slot), s->peer_key,
				 &s->ctx[slot]);
}

/* Slot layout for atomics: the old value at 0, the operand at 8 (1 for
 * fetch_add, the swap for cmp_swap), the compare at 16. */
int ofi_post_fetch_add(struct ofi_stream *s, uint32_t slot, uint64_t seq)
{
	uint8_t *p = slot_at(s, slot);

	(void)seq;
	return (int)fi_fetch_atomic(s->ep, p + 8, 1, s->desc, p, s->desc,
				    s->peer, peer_at(s, slot), s->peer_key,
				    FI_UINT64, FI_SUM, &s->ctx[slot]);
}

int ofi_post_cmp_swap(struct ofi_stream *s, uint32_t slot, uint64_t seq)
{
	uint8_t *p = slot_at(s, slot);
	uint64_t swap = s->atom_next[slot] + 1;

	(void)seq;
	memcpy(p + 8, &swap, sizeof(swap));
	memcpy(p + 16, &s->atom_next[slot], sizeof(swap));
	return (int)fi_compare_atomic(s->ep, p + 8, 1, s->desc, p + 16, s->desc,
				      p, s->desc, s->peer, peer_at(s, slot),
				      s->peer_key, FI_UINT64, FI_CSWAP,
				      &s->ctx[slot]);
}

void ofi_done_nothing(struct ofi_stream *s, uint32_t slot)
{
	(void)s;
	(void)slot;
}

void ofi_done_read(struct ofi_stream *s, uint32_t slot)
{
	if (s->base.spec.verify &&
	    rp_payload_check(slot_at(s, slot), s->size, slot))
		s->verify_errors++;
}

static bool ofi_atomic_ok(struct ofi_stream *s, uint32_t slot, uint64_t *got)
{
	memcpy(got, slot_at(s, slot), sizeof(*got));
	if (*got == s->atom_next[slot])
		return true;
	if (s->base.spec.verify)
		s->verify_errors++;
	return false;
}

void ofi_done_fetch_add(struct ofi_stream *s, uint32_t slot)
{
	uint64_t got;

	ofi_atomic_ok(s, slot, &got);
	s->atom_next[slot]++;
}

/* After a mismatch, compare with what is there from now on. */
void ofi_done_cmp_swap(struct ofi_stream *s, uint32_t slot)
{
	uint64_t got;

	if (ofi_atomic_ok(s, slot, &got))
		s->atom_next[slot]++;
	else
		s->atom_next[slot] = got;
}

/* Read the CQ: our operations' completions (each op's done() on its
 * slot), counted in the return value; arrivals (an echo) into @rx. */
int ofi_reap(struct ofi_stream *s, int *rx, uint64_t *rx_data)
{
	struct fi_cq_data_entry e[OFI_BATCH];
	ssize_t n = fi_cq_read(s->cq, e, OFI_BATCH), i;
	int tx = 0;
	size_t slot;

	if (n == -FI_EAGAIN)
		return 0;
	if (n < 0)
		return n == -FI_EAVAIL ? ofi_cq_error(s)
				       : ofi_fail(s, "fi_cq_read", n);
	for (i = 0; i < n; i++) {
		if (e[i].flags & (FI_RECV | FI_REMOTE_WRITE)) {
			(*rx)++;
			if (rx_data)
				*rx_data = e[i].data;
			continue;
		}
		slot = (size_t)((struct fi_context2 *)e[i].op_context - s->ctx);
		if (slot < s->nslots)
			s->op->done(s, (uint32_t)slot);
		tx++;
	}
	return tx;
}

/* Post the operation on @slot; a full queue (-FI_EAGAIN) is emptied by
 * reading the CQ, whose completions poll() then reports. */
static int ofi_post_one(struct ofi_stream *s, uint32_t slot, uint64_t seq)
{
	int ret, rx = 0;

	while ((ret = s->op->post(s, slot, seq)) == -FI_EAGAIN) {
		ret = ofi_reap(s, &rx, NULL);
		if (ret < 0)
			return ret;
		s->done_acc += (uint64_t)ret;
	}
	return ret ? ofi_fail(s, "posting an operation", ret) : 0;
}

int ofi_post(struct rp_stream *bs, uint64_t seq, uint32_t count, bool last)
{
	struct ofi_stream *s = ofi_of(bs);
	uint32_t i;
	int ret;

	(void)last; /* every operation completes on its own */
	if (count > s->depth)
		return rp_stream_fail(bs, -EINVAL,
				      "%u operations posted at queue depth %u",
				      count, s->depth);
	if (!seq)
		s->done_acc = 0;
	for (i = 0; i < count; i++) {
		ret = ofi_post_one(s, (uint32_t)((seq + i) % s->depth),
				   seq + i);
		if (ret)
			return ret;
	}
	return 0;
}

int ofi_poll(struct rp_stream *bs)
{
	struct ofi_stream *s = ofi_of(bs);
	int rx = 0, n = ofi_reap(s, &rx, NULL);
	uint64_t acc = s->done_acc;

	if (n < 0)
		return n;
	s->done_acc = 0;
	return n + (int)acc;
}

/* fi_trywait: 0 when sleeping on the FD is safe, 1 when something may
 * already be there. */
int ofi_arm(struct rp_stream *bs, int *fd, short *events)
{
	struct ofi_stream *s = ofi_of(bs);
	struct fid *f = &s->cq->fid;
	int ret = fi_trywait(s->fab.fabric, &f, 1);

	if (ret == -FI_EAGAIN)
		return 1;
	if (ret)
		return ofi_fail(s, "fi_trywait", ret);
	*fd = s->wait_fd;
	*events = POLLIN;
	return 0;
}

/* --wait event: sleep on the CQs of @n streams, @ms at most, unless one
 * may already have something. */
int ofi_sleep(struct ofi_stream *const *s, unsigned int n, int ms)
{
	struct pollfd fds[RP_SPEC_MAX_STREAMS];
	unsigned int i;
	short ev;
	int ret;

	for (i = 0; i < n && i < RP_SPEC_MAX_STREAMS; i++) {
		ret = ofi_arm(&s[i]->base, &fds[i].fd, &ev);
		if (ret)
			return ret < 0 ? ret : 0;
		fds[i].events = ev;
	}
	if (poll(fds, i, ms) < 0 && errno != EINTR)
		return rp_stream_fail(&s[0]->base, -errno, "poll: %s",
				      strerror(errno));
	return 0;
}

/* Wait for our operation (@tx) and the echo (@rx, or @flag showing
 * @mark), or @deadline_ns. */
static int ofi_ping_wait(struct ofi_stream *s, bool tx, bool rx,
			 const volatile uint8_t *flag, uint8_t mark,
			 uint64_t deadline_ns)
{
	unsigned int spins = 0;
	int ret, got = 0;

	for (;;) {
		ret = ofi_reap(s, &got, NULL);
		if (ret < 0)
			return ret;
		tx = tx || ret > 0;
		rx = rx || got > 0 || (flag && *flag == mark);
		if (tx && rx)
			return 0;
		if (s->wait_fd >= 0 && !flag)
			ret = ofi_sleep(&s, 1, 100);
		else if (++spins % OFI_CLOCK_CHECK)
			continue;
		if (ret < 0)
			return ret;
		if (rp_clock_ns() >= deadline_ns)
			return -ETIMEDOUT;
	}
}

static int ofi_post_echo_recv(struct ofi_stream *s)
{
	ssize_t ret;

	do
		ret = ofi_msg_recv(s, slot_at(s, 1), s->slot_bytes,
				   &s->ctx[s->nslots]);
	while (ret == -FI_EAGAIN && fi_cq_read(s->cq, NULL, 0) <= 0);
	return ret ? ofi_fail(s, "fi_recv", ret) : 0;
}

/* Write latency: the payload (--verify), then the marker over its last
 * byte, then the write. */
static bool ofi_injects(const struct ofi_stream *s)
{
	return s->op->inject && s->size <= s->inject_max;
}

/* A ping: injected where it fits; write's with the marker over the last
 * byte of its payload. */
static int ofi_post_ping(struct ofi_stream *s, uint64_t seq)
{
	int ret;

	if (!ofi_injects(s) && !s->op->marker)
		return ofi_post_one(s, 0, seq);
	if (s->base.spec.verify)
		rp_payload_fill(s->buf, s->size, seq);
	if (s->op->marker) {
		s->marker = (uint8_t)(s->marker % 255 + 1); /* never 0 */
		s->buf[s->size - 1] = s->marker;
		s->buf[s->slot_bytes + s->size - 1] = 0; /* no echo yet */
	}
	while ((ret = ofi_injects(s) ? s->op->inject(s, 0, seq)
				     : ofi_write_slot(s, 0)) == -FI_EAGAIN)
		fi_cq_read(s->cq, NULL, 0);
	return ret ? ofi_fail(s, "posting a ping", ret) : 0;
}

int ofi_ping(struct rp_stream *bs, uint64_t seq, uint64_t deadline_ns)
{
	struct ofi_stream *s = ofi_of(bs);
	const volatile uint8_t *flag = NULL;
	bool echo = s->op->echo;
	int ret = 0;

	if (s->op->marker) {
		echo = s->wait_fd >= 0; /* the echo carries data then */
		flag = echo ? NULL : s->buf + s->slot_bytes + s->size - 1;
	}
	if (s->op->receives)
		ret = ofi_post_echo_recv(s);
	if (!ret)
		ret = ofi_post_ping(s, seq);
	if (!ret)
		ret = ofi_ping_wait(s, ofi_injects(s), !echo && !flag, flag,
				    s->marker, deadline_ns);
	s->done_acc = 0;
	if (!ret && echo && !s->op->marker && s->base.spec.verify &&
	    rp_payload_check(slot_at(s, 1), s->size, seq))
		s->verify_errors++;
	return ret;
}
