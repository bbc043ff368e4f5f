// SPDX-License-Identifier: MIT
/*
 * The file transport's options, their parsers and what is checked of them
 * against the test. Compiled in every build (nothing here needs liburing):
 * one without the transport still knows them, and says what it lacks.
 */
#include <errno.h>
#include <stdio.h>

#include "core/units.h"
#include "xport/file/params.h"

static int o_file_size(void *own, const char *flag, const char *arg, char *err,
		       size_t errlen)
{
	uint64_t v;

	if (rp_units_parse_size(arg, &v) || !v || v > RP_FILE_SIZE_MAX) {
		snprintf(err, errlen,
			 "%s: '%s' is not a size from 1 to 1024T (K, M, G, T "
			 "suffixes)",
			 flag, arg);
		return -EINVAL;
	}
	((struct rp_file_params *)own)->file_size = v;
	return 0;
}

static int o_buffered(void *own, const char *flag, const char *arg, char *err,
		      size_t errlen)
{
	(void)flag, (void)arg, (void)err, (void)errlen;
	((struct rp_file_params *)own)->buffered = true;
	return 0;
}

static int o_random(void *own, const char *flag, const char *arg, char *err,
		    size_t errlen)
{
	(void)flag, (void)arg, (void)err, (void)errlen;
	((struct rp_file_params *)own)->random = true;
	return 0;
}

static int o_fsync_every(void *own, const char *flag, const char *arg,
			 char *err, size_t errlen)
{
	return rp_units_count_in(flag, arg, 1, RP_FILE_FSYNC_EVERY_MAX,
				 &((struct rp_file_params *)own)->fsync_every,
				 err, errlen);
}

static const struct rp_file_params dflt = { .file_size = RP_FILE_SIZE_DEFAULT };

static void defaults(void *own)
{
	*(struct rp_file_params *)own = dflt;
}

/* A file can do only what makes sense for one. */
static int check(const void *own, const struct rp_spec *s, char *err,
		 size_t errlen)
{
	const struct rp_file_params *f = own;

	if (s->bidir)
		snprintf(err, errlen,
			 "--bidir: a file (-x file:PATH) has no "
			 "other end to send back");
	else if (f->fsync_every && s->op != RP_OP_WRITE)
		snprintf(err, errlen,
			 "--fsync-every makes writes durable: "
			 "give -o write");
	else if (f->file_size < s->size_bytes)
		snprintf(err, errlen,
			 "--file-size %llu is smaller than the largest "
			 "-S/--size %llu",
			 (unsigned long long)f->file_size,
			 (unsigned long long)s->size_bytes);
	else
		return 0;
	return -EINVAL;
}

static const struct rp_xport_opt opts[] = {
	{ "file-size", 0, true, false, "SIZE",
	  "the region read or written (default 1G)",
	  "the region read or written, at least the largest\n.B \\-S\n"
	  "(default 1G).",
	  o_file_size },
	{ "buffered", 0, false, false, NULL,
	  "through the page cache (default O_DIRECT)",
	  "through the page cache instead of\n.BR O_DIRECT .", o_buffered },
	{ "random", 0, false, false, NULL,
	  "random offsets (default sequential)",
	  "random offsets (uniform over the region's slots, the same "
	  "sequence\non every run) instead of sequential ones.",
	  o_random },
	{ "fsync-every", 0, true, false, "N",
	  "an fsync after every N writes (default none)",
	  "write only: an fsync after every\n.I N\nwrites, linked after the "
	  "N-th, whose operation then completes with the\nfsync's CQE; "
	  "reported in the results. Default: none.",
	  o_fsync_every },
};

_Static_assert(sizeof(struct rp_file_params) <= RP_XPORT_OWN_BYTES,
	       "the file block fits struct rp_xport_params");

const struct rp_xport_options rp_xport_file_options = {
	.transport = "file",
	.local = true,
	.absent = "liburing",
	.opts = opts,
	.n_opts = sizeof(opts) / sizeof(opts[0]),
	.size = sizeof(struct rp_file_params),
	.defaults = defaults,
	.check = check,
};

const struct rp_file_params *rp_file_params(const struct rp_xport_params *p)
{
	const struct rp_file_params *f =
		rp_xport_own_c(p, &rp_xport_file_options);

	return f ? f : &dflt;
}
