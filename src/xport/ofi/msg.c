// SPDX-License-Identifier: MIT
/*
 * Messages as the test sends them: tagged under --tagged (fi_tsend,
 * fi_tinject, fi_trecv; every one OFI_TAG, matched exactly), else plain.
 * A bottom file: libfabric's calls alone, for post.c, serve.c, setup.c.
 */
#include "xport/ofi/ofi.h"

ssize_t ofi_msg_send(struct ofi_stream *s, void *buf, size_t len, void *ctx)
{
	return s->base.spec.tagged
		       ? fi_tsend(s->ep, buf, len, s->desc, s->peer, OFI_TAG,
				  ctx)
		       : fi_send(s->ep, buf, len, s->desc, s->peer, ctx);
}

ssize_t ofi_msg_inject(struct ofi_stream *s, void *buf, size_t len)
{
	return s->base.spec.tagged
		       ? fi_tinject(s->ep, buf, len, s->peer, OFI_TAG)
		       : fi_inject(s->ep, buf, len, s->peer);
}

ssize_t ofi_msg_recv(struct ofi_stream *s, void *buf, size_t len, void *ctx)
{
	return s->base.spec.tagged
		       ? fi_trecv(s->ep, buf, len, s->desc, FI_ADDR_UNSPEC,
				  OFI_TAG, 0, ctx)
		       : fi_recv(s->ep, buf, len, s->desc, FI_ADDR_UNSPEC, ctx);
}
