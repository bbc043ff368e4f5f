// SPDX-License-Identifier: MIT
/*
 * The responder's side of a phase, over all the streams of its thread in
 * one loop, until the initiators' stop. Every provider here progresses
 * data only when its CQ is read (FI_PROGRESS_MANUAL), so the responder
 * reads each stream's CQ all through the phase, even for one-sided ops:
 *
 *   send, write_imm  count each arrival, check it (--verify), echo it in
 *                    the latency phase, repost a send's receive; after
 *                    stop, drain to the count the initiator completed
 *                    (rp_stream.due), RP_DRAIN_MS at most.
 *   write            latency: watch the marker byte of slot 0 and write
 *                    it back (with remote CQ data under --wait event, see
 *                    post.c); after a phase, --verify checks the slots.
 *   read, atomics    progress only.
 *
 * Under --wait event a pass that found nothing sleeps on the CQs' FDs
 * (OFI_EVENT_MS at most, to notice stop), but for write latency, where
 * nothing raises an event and the byte is watched spinning.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <time.h>

#include "platform/clock.h"
#include "xport/ofi/ofi.h"

static uint8_t *slot_at(struct ofi_stream *s, uint32_t slot)
{
	return s->buf + (size_t)slot * s->slot_bytes;
}

/* An echo of at most inject_size bytes: no completion comes. */
static int ofi_echo_inject(struct ofi_stream *s, uint32_t slot, size_t len,
			   uint64_t data)
{
	uint64_t to = s->peer_addr + s->slot_bytes;
	ssize_t ret;

	do {
		if (s->op->receives)
			ret = ofi_msg_inject(s, slot_at(s, slot), len);
		else if (s->op->cq_data || s->wait_fd >= 0)
			ret = fi_inject_writedata(s->ep, slot_at(s, slot), len,
						  data, s->peer, to,
						  s->peer_key);
		else
			ret = fi_inject_write(s->ep, slot_at(s, slot), len,
					      s->peer, to, s->peer_key);
	} while (ret == -FI_EAGAIN && fi_cq_read(s->cq, NULL, 0) <= 0);
	return ret ? ofi_fail(s, "echoing a ping", ret) : 0;
}

/* Latency: @len bytes of our slot @slot back into the initiator's slot 1,
 * as a send (send), or a write with @data (write_imm; write under --wait
 * event), or a plain write. At depth 1 at most one echo is on its way
 * when the next ping comes; OFI_ECHOES contexts cycle. */
static int ofi_echo(struct ofi_stream *s, uint32_t slot, size_t len,
		    uint64_t data)
{
	void *ctx = &s->ctx[s->nslots + 1 + s->echo_next++ % OFI_ECHOES];
	uint64_t to = s->peer_addr + s->slot_bytes;
	ssize_t ret;

	if (len <= s->inject_max)
		return ofi_echo_inject(s, slot, len, data);
	do {
		if (s->op->receives)
			ret = ofi_msg_send(s, slot_at(s, slot), len, ctx);
		else if (s->op->cq_data || s->wait_fd >= 0)
			ret = fi_writedata(s->ep, slot_at(s, slot), len,
					   s->desc, data, s->peer, to,
					   s->peer_key, ctx);
		else
			ret = fi_write(s->ep, slot_at(s, slot), len, s->desc,
				       s->peer, to, s->peer_key, ctx);
	} while (ret == -FI_EAGAIN && fi_cq_read(s->cq, NULL, 0) <= 0);
	if (ret)
		return ofi_fail(s, "echoing a ping", ret);
	s->echo_out++;
	return 0;
}

/* Write_imm: the slot may already hold a later lap of the initiator's:
 * the provider may have landed writes whose completions wait in our CQ
 * behind this one, and nothing paces the initiator (on the rdma transport
 * each write_imm takes a receive), so a lap may be far ahead. A message of
 * 8 bytes or more names its seq, so any later lap is recognised. A
 * shorter one holds the low bytes of its seq, v: some later lap seq +
 * j * depth has them exactly when gcd(depth, 2^(8 size)) divides
 * v - seq modulo 2^(8 size): checked so; at an odd depth that gcd is 1
 * and such a message is only counted, not checked. */
static bool ofi_short_ok(const struct ofi_stream *s, const uint8_t *p,
			 uint64_t seq)
{
	uint64_t mod = 1ULL << (8 * s->size), v = 0, g;
	size_t i;

	for (i = 0; i < s->size; i++)
		v |= (uint64_t)p[i] << (8 * i);
	g = s->depth & (0 - s->depth); /* the depth's lowest bit */
	if (g > mod)
		g = mod;
	return ((v - seq) & (mod - 1)) % g == 0;
}

static bool ofi_landed_ok(struct ofi_stream *s, uint32_t slot, uint64_t seq)
{
	const uint8_t *p = slot_at(s, slot);
	uint64_t k, h;

	if (s->size < 8)
		return ofi_short_ok(s, p, seq);
	for (k = 0; k <= OFI_LATE_LAPS; k++)
		if (!rp_payload_check(p, s->size, seq + k * s->depth))
			return true;
	memcpy(&h, p, sizeof(h));
	h = le64toh(h);
	return h > seq && h % s->depth == slot;
}

/* One arrival: a send into receive @slot of @len bytes, or a write with
 * @data (its seq). */
static int ofi_arrived(struct ofi_stream *s, enum rp_phase phase,
		       const struct fi_cq_data_entry *e,
		       struct rp_side_stats *st)
{
	bool lat = phase == RP_PHASE_LATENCY;
	size_t slot =
		s->op->recv_data
			? (size_t)((struct fi_context2 *)e->op_context - s->ctx)
			: (lat ? 0 : e->data % s->depth);
	size_t len = s->op->recv_data ? e->len : s->size;
	uint64_t seq = s->op->recv_data ? s->rx_next++ : e->data;
	bool ok;
	int ret;

	if (slot >= s->nslots)
		return rp_stream_fail(&s->base, -EPROTO,
				      "an arrival in no slot of ours");
	st->messages++;
	st->bytes += len;
	if (s->base.spec.verify) {
		ok = s->op->recv_data
			     ? len == s->size &&
				       !rp_payload_check(slot_at(s, slot),
							 s->size, seq)
			     : ofi_landed_ok(s, (uint32_t)slot, seq);
		st->verify_errors += !ok;
	}
	if (lat && (ret = ofi_echo(s, (uint32_t)slot, len, e->data)))
		return ret;
	return s->op->receives ? ofi_post_recv(s, (uint32_t)slot) : 0;
}

/* Read @s's CQ once: arrivals handled, echoes' completions counted off.
 * Return: how many arrived, or -errno. */
static int ofi_serve_batch(struct ofi_stream *s, enum rp_phase phase,
			   struct rp_side_stats *st)
{
	struct fi_cq_data_entry e[OFI_BATCH];
	ssize_t n = fi_cq_read(s->cq, e, OFI_BATCH), i;
	int got = 0, ret;

	if (n == -FI_EAGAIN)
		return 0;
	if (n < 0)
		return n == -FI_EAVAIL ? ofi_cq_error(s)
				       : ofi_fail(s, "fi_cq_read", n);
	for (i = 0; i < n; i++) {
		if (!(e[i].flags & (FI_RECV | FI_REMOTE_WRITE))) {
			s->echo_out -= s->echo_out > 0;
			continue;
		}
		ret = ofi_arrived(s, phase, &e[i], st);
		if (ret)
			return ret;
		got++;
	}
	return got;
}

/* Write latency: a new marker in slot 0 is a ping: echo it. */
static int ofi_watch_marker(struct ofi_stream *s)
{
	uint8_t b = *(const volatile uint8_t *)(s->buf + s->size - 1);
	int ret;

	if (b == s->marker)
		return 0;
	s->marker = b;
	ret = ofi_echo(s, 0, s->size, 0);
	return ret ? ret : 1;
}

static int ofi_serve_pass(struct ofi_stream *const *s, unsigned int n,
			  enum rp_phase phase, struct rp_side_stats *st)
{
	unsigned int i;
	int got = 0, ret;

	for (i = 0; i < n; i++) {
		ret = ofi_serve_batch(s[i], phase, &st[i]);
		if (ret >= 0 && s[i]->op->marker && phase == RP_PHASE_LATENCY)
			ret = ofi_watch_marker(s[i]);
		if (ret < 0)
			return ret;
		got += ret;
	}
	return got;
}

/* Is a stream short of what its initiator completed? Only arrivals
 * count; a one-sided op's written slots are awaited by ofi_await. */
static bool ofi_short(struct ofi_stream *const *s, unsigned int n,
		      const struct rp_side_stats *st)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!s[i]->op->one_sided &&
		    st[i].messages < atomic_load(&s[i]->base.due))
			return true;
	return false;
}

/* Write, --verify: has each slot its last due write (seq below due)? */
static bool ofi_writes_in(struct ofi_stream *s)
{
	uint64_t due = atomic_load(&s->base.due), last;
	uint32_t slot;

	if (!s->base.spec.verify || !s->op->marker || s->size < 8)
		return true;
	for (slot = 0; slot < s->depth && slot < due; slot++) {
		last = due - 1 - (due - 1 - slot) % s->depth;
		if (rp_payload_check(slot_at(s, slot), s->size, last))
			return false;
	}
	return true;
}

static bool ofi_pending(struct ofi_stream *const *s, unsigned int n,
			const struct rp_side_stats *st)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!ofi_writes_in(s[i]))
			return true;
	return ofi_short(s, n, st);
}

/* After stop: progress until what the initiators completed is here, at
 * most RP_DRAIN_MS (what never comes then shows in the counts). */
static int ofi_drain(struct ofi_stream *const *s, unsigned int n,
		     enum rp_phase phase, struct rp_side_stats *st)
{
	uint64_t end = rp_clock_ns() + RP_DRAIN_MS * 1000000ULL;
	int ret = 0;

	while (ret >= 0 && ofi_pending(s, n, st) && rp_clock_ns() < end)
		ret = ofi_serve_pass(s, n, phase, st);
	while (ret > 0)
		ret = ofi_serve_pass(s, n, phase, st);
	return ret < 0 ? ret : 0;
}

/* Write, after a phase: check the slots (--verify: each holds a whole
 * message of a seq of that slot), then zero them: the next point's
 * marker must read "no ping yet". */
static void ofi_write_done(struct ofi_stream *s, enum rp_phase phase,
			   struct rp_side_stats *st)
{
	uint64_t h;
	uint32_t slot;
	const uint8_t *p;

	if (!s->op->marker)
		return;
	for (slot = 0; phase != RP_PHASE_LATENCY && s->base.spec.verify &&
		       s->size >= 8 && slot < s->depth;
	     slot++) {
		p = slot_at(s, slot);
		memcpy(&h, p, sizeof(h));
		h = le64toh(h);
		if (!p[0] && !memcmp(p, p + 1, s->size - 1))
			continue; /* never written */
		if (h % s->depth != slot || rp_payload_check(p, s->size, h))
			st->verify_errors++;
	}
	memset(s->buf, 0, s->buf_len);
}

static int ofi_serve_loop(struct ofi_stream *const *s, unsigned int n,
			  enum rp_phase phase, const atomic_int *stop,
			  struct rp_side_stats *st)
{
	bool spin = s[0]->wait_fd < 0 ||
		    (s[0]->op->marker && phase == RP_PHASE_LATENCY);
	unsigned int spins = 0;
	int ret = 0;

	while (ret >= 0) {
		ret = ofi_serve_pass(s, n, phase, st);
		if (ret > 0) {
			rp_stream_active(&s[0]->base);
			continue;
		}
		if (ret < 0 || (spin && ++spins % OFI_SPIN_CHECK))
			continue;
		if (ofi_stopped(stop))
			break;
		if (!spin)
			ret = ofi_sleep(s, n, OFI_EVENT_MS);
	}
	return ret < 0 ? ret : ofi_drain(s, n, phase, st);
}

int ofi_serve(struct rp_stream *const *bs, unsigned int n, enum rp_phase phase,
	      const atomic_int *stop, struct rp_side_stats *st)
{
	struct ofi_stream *s[RP_SPEC_MAX_STREAMS];
	bool blind;
	unsigned int i;
	int ret;

	if (!n)
		return 0;
	if (n > RP_SPEC_MAX_STREAMS)
		return rp_stream_fail(bs[0], -EINVAL, "serve: %u streams", n);
	for (i = 0; i < n; i++) {
		if (bs[i]->ops != bs[0]->ops ||
		    bs[i]->spec.op != bs[0]->spec.op ||
		    bs[i]->spec.wait != bs[0]->spec.wait ||
		    bs[i]->role != RP_ROLE_RESPONDER)
			return rp_stream_fail(bs[i], -EINVAL,
					      "serve: stream %u is not a "
					      "responder of this test",
					      i);
		s[i] = ofi_of(bs[i]);
		s[i]->rx_next = 0;
		s[i]->marker = 0;
	}
	blind = s[0]->op->one_sided && phase != RP_PHASE_LATENCY;
	for (i = 0; i < n; i++)
		atomic_store(&bs[i]->blind, blind);
	ret = ofi_serve_loop(s, n, phase, stop, st);
	for (i = 0; i < n; i++) {
		atomic_store(&bs[i]->blind, 0);
		ofi_write_done(s[i], phase, &st[i]);
	}
	return ret;
}
