/* SPDX-License-Identifier: MIT */
/*
 * The phases of a test (DESIGN.md, "The shape of a run"): a word the
 * protocol carries, the transports serve, and a result records.
 */
#ifndef RP_CORE_PHASE_H
#define RP_CORE_PHASE_H

enum rp_phase {
	RP_PHASE_WARMUP,    /* as bandwidth, numbers discarded */
	RP_PHASE_LATENCY,   /* depth-1 ping-pong */
	RP_PHASE_BANDWIDTH, /* depth-q stream of operations */
	RP_PHASE__COUNT
};

/** rp_phase_name - "warmup", "latency", "bandwidth"; "unknown" beyond. */
const char *rp_phase_name(enum rp_phase p);

/** rp_phase_parse - inverse of rp_phase_name. Return: 0 or -EINVAL. */
int rp_phase_parse(const char *name, enum rp_phase *out);

#endif
