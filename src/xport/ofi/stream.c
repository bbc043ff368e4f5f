// SPDX-License-Identifier: MIT
/*
 * The ops that make streams and swap what the peers need: listen (the
 * provider and endpoint type the client is to use; FI_EP_MSG: a passive
 * endpoint's port), accept and connect (an endpoint each; FI_EP_MSG
 * connects it: cm.c), local_info and set_peer (the endpoint's name, the
 * buffer's address, length and key), set_point, close.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "platform/clock.h"
#include "xport/ofi/ofi.h"

static int ofi_check_spec(const struct rp_spec *spec, struct rp_err *why)
{
	char text[RP_ERR_LEN];
	int ret = rp_spec_validate(spec, text, sizeof(text));

	return ret ? rp_errf(why, ret, "invalid test: %s", text) : 0;
}

/* What the client needs: the provider, the endpoint type and, for
 * FI_EP_MSG, the port the passive endpoint listens on. */
static int ofi_describe(const struct ofi_listener *l, cJSON *endpoint,
			struct rp_err *why)
{
	if (!cJSON_AddStringToObject(endpoint, "provider", l->provider) ||
	    !cJSON_AddStringToObject(endpoint, "ep_type",
				     l->ep == FI_EP_MSG ? "msg" : "rdm"))
		return rp_errf(why, -ENOMEM, "out of memory");
	return l->ep == FI_EP_MSG ? rp_endpoint_set_port(endpoint, l->port, why)
				  : 0;
}

/* The provider (-x's, or the default), the endpoint type (--ep-type, or
 * what auto picks), and for FI_EP_MSG a passive endpoint on any address
 * (or the server's --bind). */
static int ofi_listen_on(struct ofi_listener *l, const struct rp_spec *spec,
			 const struct rp_xport_params *p, struct rp_err *why)
{
	const char *prov = ofi_provider_of(spec->transport);
	struct ofi_want w = ofi_want_of(spec, FI_EP_RDM);
	struct ofi_where any = { p ? p->bind : NULL, "0", FI_SOURCE };
	char name[OFI_NAME_MAX];
	struct fi_info *info;
	int ret = 0;

	if (!prov) {
		ret = ofi_default_provider(&l->opts, spec->op, name,
					   sizeof(name), why);
		prov = name;
	}
	if (!ret)
		ret = ofi_pick_ep(prov, &l->opts, spec->ep_type, &w, why);
	if (!ret)
		ret = ofi_getinfo_at(prov, &l->opts, &w,
				     w.ep == FI_EP_MSG ? &any : NULL, &info,
				     why);
	if (ret)
		return ret;
	snprintf(l->provider, sizeof(l->provider), "%s",
		 info->fabric_attr->prov_name);
	l->ep = w.ep;
	if (w.ep == FI_EP_MSG)
		return ofi_pep_open(l, info, why); /* takes @info */
	fi_freeinfo(info);
	return 0;
}

int ofi_listen(const struct rp_xport_ops *self, const struct rp_spec *spec,
	       const struct rp_xport_params *p, cJSON *endpoint,
	       struct rp_listener **out, struct rp_err *why)
{
	struct ofi_listener *l;
	int ret = ofi_check_spec(spec, why);

	if (ret)
		return ret;
	l = calloc(1, sizeof(*l));
	if (!l)
		return rp_errf(why, -ENOMEM, "out of memory");
	ofi_opts_init(&l->opts, p);
	l->admit = p ? p->admit : NULL;
	l->admit_ctx = p ? p->admit_ctx : NULL;
	ret = ofi_listen_on(l, spec, p, why);
	if (!ret)
		ret = ofi_describe(l, endpoint, why);
	if (ret) {
		ofi_pep_close(l);
		free(l);
		return ret;
	}
	rp_listener_init(&l->base, self, spec);
	*out = &l->base;
	return 0;
}

void ofi_unlisten(struct rp_listener *bl)
{
	struct ofi_listener *l;

	if (!bl)
		return;
	l = rp_container_of(bl, struct ofi_listener, base);
	ofi_pep_close(l);
	free(l);
}

/* A stream on @info (which it takes, and frees on failure). */
static int ofi_stream_new(const struct rp_xport_ops *ops,
			  const struct rp_spec *spec, const struct ofi_opts *o,
			  struct fi_info *info, enum rp_role role,
			  struct ofi_stream **out, struct rp_err *why)
{
	struct ofi_stream *s = calloc(1, sizeof(*s));
	bool atomic = rp_op_is_atomic(spec->op);
	int ret;

	if (!s) {
		fi_freeinfo(info);
		return rp_errf(why, -ENOMEM, "out of memory");
	}
	rp_stream_init(&s->base, ops, spec, role);
	s->op = &ofi_ops[spec->op];
	s->opts = *o;
	s->wait_fd = -1;
	s->size = spec->size_bytes;
	s->slot_bytes = atomic ? OFI_ATOM_SLOT : spec->size_bytes;
	s->max_depth = s->depth = spec->queue_depth;
	s->nslots = s->max_depth < 2 ? 2 : s->max_depth;
	if (role == RP_ROLE_RESPONDER && s->op->receives)
		s->nslots = s->max_depth + OFI_RECV_MARGIN;
	ret = ofi_stream_open(s, info);
	if (ret) {
		rp_errf(why, ret, "%s", rp_err_text(&s->base.err, ret));
		ofi_stream_close(s);
		free(s);
		return ret;
	}
	*out = s;
	return 0;
}

/* FI_EP_RDM: nothing connects. The stream is this side's endpoint, which
 * the peer reaches once set_peer has its name. */
static int ofi_stream_rdm(const struct rp_xport_ops *ops,
			  const struct rp_spec *spec, const struct ofi_opts *o,
			  const char *prov, enum rp_role role,
			  struct rp_stream **out, struct rp_err *why)
{
	struct ofi_want w = ofi_want_of(spec, FI_EP_RDM);
	struct ofi_stream *s;
	struct fi_info *info;
	int ret = ofi_getinfo(prov, o, &w, &info, why);

	if (!ret)
		ret = ofi_stream_new(ops, spec, o, info, role, &s, why);
	if (!ret)
		*out = &s->base;
	return ret;
}

/* Connected (FI_EP_MSG: cm.c), or closed with why in @why. A handshake
 * that timed out is -ECONNABORTED: not "nobody came yet". */
static int ofi_joined(struct ofi_stream *s, int ret, struct rp_stream **out,
		      struct rp_err *why)
{
	if (!ret) {
		*out = &s->base;
		return 0;
	}
	ret = ret == -ETIMEDOUT ? -ECONNABORTED : ret;
	rp_errf(why, ret, "%s", rp_err_text(&s->base.err, ret));
	ofi_close(&s->base);
	return ret;
}

int ofi_accept(struct rp_listener *bl, const char *token, enum rp_role role,
	       int timeout_ms, struct rp_stream **out)
{
	struct ofi_listener *l = rp_container_of(bl, struct ofi_listener, base);
	struct ofi_stream *s;
	struct fi_info *info;
	int ret;

	rp_err_clear(&bl->err);
	if (l->ep != FI_EP_MSG)
		return ofi_stream_rdm(bl->ops, &bl->spec, &l->opts, l->provider,
				      role, out, &bl->err);
	ret = ofi_cm_request(l, token ? token : "", rp_deadline_ns(timeout_ms),
			     &info);
	if (ret)
		return ret; /* -ETIMEDOUT: callers accept in slices */
	ret = ofi_stream_new(bl->ops, &bl->spec, &l->opts, info, role, &s,
			     &bl->err);
	return ret ? ret : ofi_joined(s, ofi_cm_accept(s), out, &bl->err);
}

/* The endpoint type the server opened: "msg" or "rdm" (a server that
 * does not say opened rdm). */
static int ofi_server_ep(const cJSON *endpoint, const struct rp_spec *spec,
			 enum fi_ep_type *ep, struct rp_err *why)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(endpoint, "ep_type");
	enum rp_ep_type got = RP_EP_RDM;

	if (cJSON_IsString(t) && !strcmp(t->valuestring, "msg"))
		got = RP_EP_MSG;
	else if (t && (!cJSON_IsString(t) || strcmp(t->valuestring, "rdm")))
		return rp_errf(why, -EPROTO,
			       "the server named a malformed endpoint type");
	if (spec->ep_type != RP_EP_AUTO && spec->ep_type != got)
		return rp_errf(
			why, -EPROTO, "the server opened %s endpoints, not %s",
			rp_ep_type_name(got), rp_ep_type_name(spec->ep_type));
	*ep = got == RP_EP_MSG ? FI_EP_MSG : FI_EP_RDM;
	return 0;
}

int ofi_connect(const struct rp_xport_ops *self, const struct rp_spec *spec,
		const struct rp_xport_params *p, const char *host,
		const cJSON *endpoint, const char *token, enum rp_role role,
		int timeout_ms, struct rp_stream **out, struct rp_err *why)
{
	const cJSON *prov =
		cJSON_GetObjectItemCaseSensitive(endpoint, "provider");
	struct ofi_where at = { host, NULL, 0 };
	struct ofi_want w;
	struct ofi_stream *s;
	struct fi_info *info;
	struct ofi_opts o;
	char service[8];
	uint16_t port;
	int ret = ofi_check_spec(spec, why);

	if (ret)
		return ret;
	if (!cJSON_IsString(prov) || !prov->valuestring[0] ||
	    strlen(prov->valuestring) >= OFI_NAME_MAX)
		return rp_errf(why, -EPROTO,
			       "the server named no provider, or a malformed "
			       "one");
	w = ofi_want_of(spec, FI_EP_RDM);
	ret = ofi_server_ep(endpoint, spec, &w.ep, why);
	if (ret)
		return ret;
	ofi_opts_init(&o, p);
	if (w.ep == FI_EP_RDM)
		return ofi_stream_rdm(self, spec, &o, prov->valuestring, role,
				      out, why);
	ret = rp_endpoint_port(endpoint, &port, why);
	if (ret)
		return ret;
	snprintf(service, sizeof(service), "%u", port);
	at.service = service;
	ret = ofi_getinfo_at(prov->valuestring, &o, &w, &at, &info, why);
	if (!ret)
		ret = ofi_stream_new(self, spec, &o, info, role, &s, why);
	return ret ? ret
		   : ofi_joined(s, ofi_cm_connect(s, token, timeout_ms), out,
				why);
}

int ofi_local_info(struct rp_stream *bs, cJSON *info)
{
	struct ofi_stream *s = ofi_of(bs);
	uint8_t name[OFI_ADDR_MAX];
	char hex[2 * OFI_ADDR_MAX + 1], num[24];
	size_t len = sizeof(name);
	int ret = fi_getname(&s->ep->fid, name, &len);

	if (ret)
		return ofi_fail(s, "fi_getname", ret);
	if (ofi_hex_encode(name, len, hex, sizeof(hex)))
		return rp_stream_fail(bs, -ENOSPC,
				      "an endpoint name of %zu "
				      "bytes",
				      len);
	snprintf(num, sizeof(num), "%" PRIu64,
		 s->fab.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR
			 ? (uint64_t)(uintptr_t)s->buf
			 : 0);
	if (!cJSON_AddStringToObject(info, "ep_name", hex) ||
	    !cJSON_AddStringToObject(info, "addr", num) ||
	    !cJSON_AddNumberToObject(info, "len", (double)s->buf_len) ||
	    !cJSON_AddStringToObject(info, "wait",
				     rp_wait_name(bs->spec.wait)) ||
	    !cJSON_AddStringToObject(info, "role", rp_role_name(bs->role)))
		return rp_stream_fail(bs, -ENOMEM, "out of memory");
	snprintf(num, sizeof(num), "%" PRIu64, fi_mr_key(s->mr));
	if (!cJSON_AddStringToObject(info, "key", num) ||
	    ofi_info_facts(s, info))
		return rp_stream_fail(bs, -ENOMEM, "out of memory");
	return 0;
}

static int ofi_json_u64_str(const cJSON *info, const char *key, uint64_t *v)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(info, key);
	char *end;

	if (!cJSON_IsString(j) || !j->valuestring[0])
		return -EPROTO;
	errno = 0;
	*v = strtoull(j->valuestring, &end, 10);
	return errno || *end ? -EPROTO : 0;
}

/* fi_av_insert reads as many bytes as the provider's addresses have, not
 * @len: a name from the wire must be of our own endpoint's length (both
 * ends opened the same provider), or a string within @len where the
 * addresses are strings (shm's). */
static bool ofi_name_fits(struct ofi_stream *s, const uint8_t *name, size_t len)
{
	uint8_t own[OFI_ADDR_MAX];
	size_t own_len = sizeof(own);

	if (s->fab.info->addr_format == FI_ADDR_STR)
		return len > 1 && memchr(name, '\0', len) == name + len - 1;
	return !fi_getname(&s->ep->fid, own, &own_len) && len == own_len;
}

int ofi_set_peer(struct rp_stream *bs, const cJSON *info)
{
	struct ofi_stream *s = ofi_of(bs);
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(info, "ep_name");
	uint8_t name[OFI_ADDR_MAX] = { 0 };
	uint64_t need = (uint64_t)s->depth * s->slot_bytes;
	size_t len;

	if (!cJSON_IsString(n) ||
	    ofi_hex_decode(n->valuestring, name, sizeof(name), &len) ||
	    ofi_json_u64_str(info, "addr", &s->peer_addr) ||
	    ofi_json_u64_str(info, "key", &s->peer_key) ||
	    rp_json_u64(info, "len", UINT64_MAX, &s->peer_len))
		return rp_stream_fail(bs, -EPROTO,
				      "the peer's ep_name, addr, key or len "
				      "is missing or malformed");
	if (s->peer_len < need || s->peer_len < 2 * s->slot_bytes)
		return rp_stream_fail(bs, -EPROTO,
				      "the peer's buffer has %" PRIu64
				      " bytes, the test needs %" PRIu64,
				      s->peer_len, need);
	if (s->ep_type == FI_EP_MSG) { /* connected: no address to give */
		s->have_peer = true;
		return 0;
	}
	if (!ofi_name_fits(s, name, len))
		return rp_stream_fail(bs, -EPROTO,
				      "the peer's endpoint name (%zu bytes) "
				      "is not one of provider %s's",
				      len, s->fab.info->fabric_attr->prov_name);
	if (fi_av_insert(s->av, name, 1, &s->peer, 0, NULL) != 1)
		return rp_stream_fail(bs, -EPROTO,
				      "fi_av_insert refused the peer's "
				      "endpoint name (%zu bytes)",
				      len);
	s->have_peer = true;
	return 0;
}

/* Both ends, nothing in flight: the next point's size and depth. A write
 * responder clears the marker. What the slots hold stays valid: atomics'
 * counters, read's prefilled pattern (the same for any prefix). */
int ofi_set_point(struct rp_stream *bs, uint64_t size_bytes, uint32_t depth)
{
	struct ofi_stream *s = ofi_of(bs);
	uint64_t most = rp_op_is_atomic(bs->spec.op) ? 8 : s->slot_bytes;

	if (size_bytes > most)
		return rp_stream_fail(bs, -EINVAL,
				      "point of %" PRIu64 " bytes above the "
				      "setup's %" PRIu64,
				      size_bytes, most);
	if (depth > s->max_depth || !depth)
		return rp_stream_fail(bs, -EINVAL,
				      "point depth %u outside 1..%u", depth,
				      s->max_depth);
	s->size = size_bytes;
	s->depth = depth;
	bs->spec.size_bytes = size_bytes;
	bs->spec.queue_depth = depth;
	s->marker = 0;
	if (ofi_responder(s) && s->op->marker)
		memset(s->buf, 0, s->slot_bytes);
	return 0;
}

void ofi_close(struct rp_stream *bs)
{
	struct ofi_stream *s;

	if (!bs)
		return;
	s = ofi_of(bs);
	ofi_stream_close(s);
	free(s);
}
