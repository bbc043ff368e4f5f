// SPDX-License-Identifier: MIT
/* platform/mem.h: the kinds' names, on every system. */
#include <errno.h>
#include <string.h>

#include "platform/mem.h"

static const char *const names[RP_MEM__COUNT] = { "host", "huge", "file",
						  "odp" };

const char *rp_mem_kind_name(int kind)
{
	return kind >= 0 && kind < RP_MEM__COUNT ? names[kind] : "unknown";
}

int rp_mem_kind_parse(const char *s, int *out)
{
	int i;

	for (i = 0; s && i < RP_MEM__COUNT; i++)
		if (!strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
	return -EINVAL;
}
