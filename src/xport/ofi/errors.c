// SPDX-License-Identifier: MIT
/*
 * Reasons: a libfabric call that failed, a completion in error. The bottom
 * file of ofi/: it calls no other.
 */
#include <errno.h>

#include "xport/ofi/ofi.h"

int ofi_fail(struct ofi_stream *s, const char *what, ssize_t ret)
{
	int err = ret < 0 ? (int)ret : -EIO;

	return rp_stream_fail(&s->base, err, "%s: %s (provider %s)", what,
			      fi_strerror(-err),
			      s->fab.info->fabric_attr->prov_name);
}

int ofi_cq_error(struct ofi_stream *s)
{
	struct fi_cq_err_entry e = { 0 };
	char text[128];

	if (fi_cq_readerr(s->cq, &e, 0) < 0)
		return ofi_fail(s, "fi_cq_readerr", -EIO);
	return rp_stream_fail(&s->base, -(e.err ? e.err : EIO),
			      "a completion failed: %s (%s; provider %s)",
			      fi_strerror(e.err),
			      fi_cq_strerror(s->cq, e.prov_errno, e.err_data,
					     text, sizeof(text)),
			      s->fab.info->fabric_attr->prov_name);
}
