// SPDX-License-Identifier: MIT
/*
 * What a server grants one test (--max-*): checked on the TEST's spec,
 * before anything is allocated, and on each START.
 */
#include <errno.h>
#include <stdio.h>

#include "run/limits.h"

/* What one stream of @sp takes beyond its buffers (the transport's). */
static uint64_t stream_extra(const struct rp_spec *sp)
{
	const struct rp_xport_ops *x = rp_xport_find(sp->transport);

	return x && x->stream_memory ? x->stream_memory(sp) : 0;
}

/* Memory a side allocates for @sp: every stream's ring, both ways, and
 * what each stream's transport library takes beside it; --srq-size's
 * receives beside them (counted twice over: an upper bound). */
uint64_t rp_limits_memory(const struct rp_spec *sp)
{
	uint64_t streams = sp->streams ? sp->streams : 1;

	return (sp->size_bytes * sp->queue_depth + stream_extra(sp)) * streams *
		       (sp->bidir ? 2 : 1) +
	       (sp->srq ? (uint64_t)sp->srq_size * sp->size_bytes : 0);
}

const char *rp_limits_size(uint64_t bytes, char *buf, size_t len)
{
	if (bytes >= (1ULL << 20) && !(bytes & ((1ULL << 20) - 1)))
		snprintf(buf, len, "%llu MiB",
			 (unsigned long long)(bytes >> 20));
	else
		snprintf(buf, len, "%llu bytes", (unsigned long long)bytes);
	return buf;
}

int rp_limits_check(const struct rp_limits *l, const struct rp_spec *sp,
		    char *why, size_t len)
{
	uint64_t streams = sp->streams ? sp->streams : 1;
	char a[32], b[32];

	if (sp->size_bytes > l->max_size)
		snprintf(why, len,
			 "message size %s is over this server's "
			 "--max-size %s",
			 rp_limits_size(sp->size_bytes, a, sizeof(a)),
			 rp_limits_size(l->max_size, b, sizeof(b)));
	else if (streams > l->max_streams)
		snprintf(why, len,
			 "%llu streams are over this server's "
			 "--max-streams %u",
			 (unsigned long long)streams, l->max_streams);
	else if (rp_limits_memory(sp) > l->max_memory)
		snprintf(why, len,
			 "%s x streams%s = %s is over this server's "
			 "--max-memory %s",
			 stream_extra(sp) ? "(size x depth + what the "
					    "transport's library takes a "
					    "stream)"
					  : "size x depth",
			 sp->bidir ? " x 2 (bidir)" : "",
			 rp_limits_size(rp_limits_memory(sp), a, sizeof(a)),
			 rp_limits_size(l->max_memory, b, sizeof(b)));
	else if (sp->duration_ns > l->max_time_ns)
		snprintf(why, len,
			 "a %.0f s phase is over this server's "
			 "--max-time %.0f s",
			 (double)sp->duration_ns / 1e9,
			 (double)l->max_time_ns / 1e9);
	else
		return 0;
	return -EPERM;
}
