// SPDX-License-Identifier: MIT
/*
 * --verify: senders fill each message with rp_payload_fill() before posting
 * (send carries seq in an immediate then, as write_imm always does; on a
 * device without immediate data, iWARP, the responder counts the sends
 * instead: an RC queue pair delivers them in order). The
 * responder checks sends and write_imms as they arrive, and at the end of a
 * write phase checks that every written slot holds the pattern of some seq
 * of that slot (the pattern starts with seq, least significant byte
 * first). For read the responder fills slot i with the pattern of seq i
 * and the initiator checks every read; for atomics the initiator checks
 * the old value each one returns (a host-order u64 the device wrote).
 * Everything is checked at the current point: its size from the start of
 * each slot (stride slot_bytes), its depth for the slot of a seq.
 */
#include <endian.h>
#include <string.h>

#include "xport/verbs/verbs.h"

/* The seq a payload's first 8 bytes claim. */
static uint64_t rv_header_seq(const uint8_t *p)
{
	uint64_t raw;

	memcpy(&raw, p, sizeof(raw));
	return le64toh(raw);
}

static bool rv_all_zero(const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

/* Write, end of a phase: every slot written holds a whole message of a seq
 * of that slot. Slots of fewer than 8 bytes cannot name their seq and are
 * not checked. */
void rv_check_slots(struct rv_stream *s, struct rp_side_stats *st)
{
	const uint8_t *p;
	uint32_t slot;
	uint64_t h;

	if (s->size < 8)
		return;
	for (slot = 0; slot < s->depth; slot++) {
		p = s->buf + slot * s->slot_bytes;
		if (rv_all_zero(p, s->size))
			continue;
		h = rv_header_seq(p);
		if (h % s->depth != slot || rp_payload_check(p, s->size, h))
			st->verify_errors++;
	}
}

/* Write_imm: the initiator may already be writing a later lap into the slot
 * (its completion can precede our look); that is not an error. A message
 * of 8 bytes or more names its seq, so any later lap is recognised; a
 * shorter one only by trying the laps. Each write_imm takes one of our
 * posted receives, so the initiator is at most nrecv messages ahead. */
static bool rv_landed_ok(const struct rv_stream *s, uint32_t slot, uint64_t seq)
{
	const uint8_t *p = s->buf + slot * s->slot_bytes;
	uint64_t k, h;
	uint64_t laps = s->size < 8 ? s->nrecv / s->depth + 1 : RV_LATE_LAPS;

	if (!rp_payload_check(p, s->size, seq))
		return true;
	for (k = 1; k <= laps; k++)
		if (!rp_payload_check(p, s->size, seq + k * s->depth))
			return true;
	if (s->size < 8)
		return false;
	h = rv_header_seq(p);
	return h > seq && h % s->depth == slot;
}

bool rv_recv_imm_ok(struct rv_stream *s, enum rp_phase phase,
		    const struct ibv_wc *wc, uint64_t seq)
{
	uint32_t slot = phase == RP_PHASE_LATENCY ? 0 : seq % s->depth;

	(void)wc;
	return rv_landed_ok(s, slot, seq);
}

/* Send: the message is in the receive's buffer, its seq in the imm. */
bool rv_recv_send_ok(struct rv_stream *s, enum rp_phase phase,
		     const struct ibv_wc *wc, uint64_t seq)
{
	const uint8_t *p =
		(const uint8_t *)(uintptr_t)rv_recv_sge(s, wc->wr_id)->addr;

	(void)phase;
	return (s->no_imm || (wc->wc_flags & IBV_WC_WITH_IMM)) &&
	       rv_recv_len(s, wc) == s->size &&
	       !rp_payload_check(p, s->size, seq);
}

/* The full seq of a message whose low 32 bits came as the immediate. */
static uint64_t rv_widen(uint64_t last, uint32_t lo)
{
	uint64_t v = (last & ~0xffffffffULL) | lo;

	if (v + 0x80000000ULL < last)
		v += 1ULL << 32;
	return v;
}

/* Responder, --verify: a send or write_imm arrived as @wc. */
void rv_check_recv(struct rv_stream *s, enum rp_phase phase,
		   const struct ibv_wc *wc, struct rp_side_stats *st)
{
	uint64_t seq = s->no_imm ? s->rx_next++
				 : rv_widen(s->rx_seq, be32toh(wc->imm_data));

	s->rx_seq = seq;
	if (!s->op->check_recv(s, phase, wc, seq))
		st->verify_errors++;
	/* UD: a lost datagram leaves a gap, not an error (the client counts
	 * the loss); one path delivers in order, so a seq again or back is */
	else if (rv_ud(s) && seq < s->rx_next)
		st->verify_errors++;
	if (rv_ud(s) && seq >= s->rx_next)
		s->rx_next = seq + 1;
}

/* Initiator, after an operation on a slot completed: write, send and
 * write_imm complete with nothing to check on this side. */
void rv_done_nothing(struct rv_stream *s, uint32_t slot)
{
	(void)s;
	(void)slot;
}

void rv_done_read(struct rv_stream *s, uint32_t slot)
{
	if (s->base.spec.verify &&
	    rp_payload_check(s->buf + slot * s->slot_bytes, s->size, slot))
		s->verify_errors++;
}

/* Atomics: did the old value returned match the one due? */
static bool rv_atomic_ok(struct rv_stream *s, uint32_t slot, uint64_t *got)
{
	memcpy(got, s->buf + slot * s->slot_bytes, sizeof(*got));
	if (*got == s->atom_next[slot])
		return true;
	if (s->base.spec.verify)
		s->verify_errors++;
	return false;
}

void rv_done_fetch_add(struct rv_stream *s, uint32_t slot)
{
	uint64_t got;

	rv_atomic_ok(s, slot, &got);
	s->atom_next[slot]++;
}

/* Cmp_swap after a mismatch: compare with what is there from now on. */
void rv_done_cmp_swap(struct rv_stream *s, uint32_t slot)
{
	uint64_t got;

	if (rv_atomic_ok(s, slot, &got))
		s->atom_next[slot]++;
	else
		s->atom_next[slot] = got;
}
