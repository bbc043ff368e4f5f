// SPDX-License-Identifier: MIT
/* --tos: the TOS byte's spellings (tos.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/tos.h"

#define DSCP_EF 46

/* The DSCP named @s (ef, afXY with X 1-4 and Y 1-3, csN with N 0-7), or -1. */
static int dscp_named(const char *s)
{
	if (!strcasecmp(s, "ef"))
		return DSCP_EF;
	if (!strncasecmp(s, "af", 2) && s[2] >= '1' && s[2] <= '4' &&
	    s[3] >= '1' && s[3] <= '3' && !s[4])
		return (s[2] - '0') * 8 + (s[3] - '0') * 2;
	if (!strncasecmp(s, "cs", 2) && s[2] >= '0' && s[2] <= '7' && !s[3])
		return (s[2] - '0') * 8;
	return -1;
}

int rp_tos_parse(const char *s, uint32_t *out)
{
	unsigned long v;
	char *end;
	int d;

	if (!s || !*s)
		return -EINVAL;
	d = dscp_named(s);
	if (d >= 0) {
		*out = (uint32_t)d << 2;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, !strncasecmp(s, "0x", 2) ? 16 : 10);
	if (errno || *end || v > 255)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

void rp_tos_describe(uint32_t tos, char *buf, size_t len)
{
	unsigned int dscp = (tos >> 2) & 0x3f, ecn = tos & 3;
	char name[8] = "";

	if (dscp == DSCP_EF)
		snprintf(name, sizeof(name), " ef");
	else if (dscp % 8 == 0)
		snprintf(name, sizeof(name), " cs%u", dscp / 8);
	else if (dscp / 8 >= 1 && dscp / 8 <= 4 && dscp % 2 == 0 &&
		 dscp % 8 <= 6)
		snprintf(name, sizeof(name), " af%u%u", dscp / 8, dscp % 8 / 2);
	snprintf(buf, len, "0x%02x (DSCP %u%s, ECN %u)", tos & 0xff, dscp, name,
		 ecn);
}
