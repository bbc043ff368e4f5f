// SPDX-License-Identifier: MIT
/* The phases' names, as the protocol and the documents spell them. */
#include <errno.h>
#include <string.h>

#include "core/phase.h"

static const char *const phase_names[RP_PHASE__COUNT] = {
	[RP_PHASE_WARMUP] = "warmup",
	[RP_PHASE_LATENCY] = "latency",
	[RP_PHASE_BANDWIDTH] = "bandwidth",
};

const char *rp_phase_name(enum rp_phase p)
{
	return p < RP_PHASE__COUNT ? phase_names[p] : "unknown";
}

int rp_phase_parse(const char *name, enum rp_phase *out)
{
	int p;

	for (p = 0; p < RP_PHASE__COUNT; p++) {
		if (name && strcmp(name, phase_names[p]) == 0) {
			*out = (enum rp_phase)p;
			return 0;
		}
	}
	return -EINVAL;
}
