// SPDX-License-Identifier: MIT
/*
 * Control protocol: framing, header and body codecs, the spec as JSON.
 *
 *   0        4        6        8        12
 *   +--------+--------+--------+--------+-------------------------+
 *   | magic  |version | type   | length | JSON object, length B   |
 *   | u32 BE | u16 BE | u16 BE | u32 BE |                         |
 *   +--------+--------+--------+--------+-------------------------+
 *
 * The header is encoded byte by byte, never through a struct, so the wire
 * format does not depend on the host's byte order, padding or word size.
 * A zero-length body stands for the empty object.
 *
 * rp_proto_send and rp_proto_recv work on blocking and non-blocking sockets
 * alike: every call is MSG_DONTWAIT, and poll() waits with what is left of
 * one deadline on CLOCK_MONOTONIC, so a message as a whole never takes longer
 * than its timeout however the peer dribbles it. A negative timeout waits
 * forever.
 *
 * Numbers in the spec are JSON numbers, which cJSON holds as doubles: whole
 * values up to 2^53 are exact, anything else is refused rather than rounded.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/safe.h"
#include "platform/clock.h"
#include "platform/net.h"
#include "proto/proto.h"

#define ERROR_SEND_TIMEOUT_MS 1000

static const char *const type_names[RP_MSG__MAX + 1] = {
	[RP_MSG_HELLO] = "HELLO", [RP_MSG_TEST] = "TEST",
	[RP_MSG_SETUP] = "SETUP", [RP_MSG_START] = "START",
	[RP_MSG_READY] = "READY", [RP_MSG_STOP] = "STOP",
	[RP_MSG_DONE] = "DONE",	  [RP_MSG_BYE] = "BYE",
	[RP_MSG_ERROR] = "ERROR", [RP_MSG_STREAMS] = "STREAMS",
	[RP_MSG_AUTH] = "AUTH",
};

/* ---- header ---------------------------------------------------------- */

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

void rp_proto_hdr_encode(const struct rp_msg_hdr *h,
			 uint8_t buf[RP_PROTO_HDR_LEN])
{
	put_be32(buf, h->magic);
	put_be16(buf + 4, h->version);
	put_be16(buf + 6, h->type);
	put_be32(buf + 8, h->length);
}

int rp_proto_hdr_decode(const uint8_t buf[RP_PROTO_HDR_LEN],
			struct rp_msg_hdr *out)
{
	if (get_be32(buf) != RP_PROTO_MAGIC)
		return -EPROTO;
	out->magic = RP_PROTO_MAGIC;
	out->version = get_be16(buf + 4);
	out->type = get_be16(buf + 6);
	out->length = get_be32(buf + 8);
	if (out->version >> 8 != RP_PROTO_MAJOR)
		return -EPROTONOSUPPORT;
	if (out->type < RP_MSG_HELLO || out->type > RP_MSG__MAX)
		return -EBADMSG;
	if (out->length > RP_PROTO_MAX_BODY)
		return -EMSGSIZE;
	return 0;
}

const char *rp_proto_type_name(uint16_t type)
{
	if (type > RP_MSG__MAX || !type_names[type])
		return "UNKNOWN";
	return type_names[type];
}

/* ---- body ------------------------------------------------------------ */

static bool only_space(const char *p, const char *end)
{
	for (; p < end; p++) {
		if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
			return false;
	}
	return true;
}

int rp_proto_body_parse(const char *buf, size_t len, cJSON **out)
{
	const char *end = NULL;
	cJSON *obj;

	*out = NULL;
	if (len > RP_PROTO_MAX_BODY)
		return -EBADMSG;
	if (len == 0) {
		*out = cJSON_CreateObject();
		return *out ? 0 : -ENOMEM;
	}
	if (rp_json_text_has_nul(buf, len))
		return -EBADMSG;
	obj = cJSON_ParseWithLengthOpts(buf, len, &end, false);
	if (!obj)
		return -EBADMSG;
	if (!cJSON_IsObject(obj) || !end || !only_space(end, buf + len) ||
	    rp_json_has_duplicate_key(obj)) {
		cJSON_Delete(obj);
		return -EBADMSG;
	}
	*out = obj;
	return 0;
}

/* ---- messages -------------------------------------------------------- */

static int frame(uint16_t type, const char *json, size_t len, uint8_t **out)
{
	struct rp_msg_hdr h = {
		.magic = RP_PROTO_MAGIC,
		.version = RP_PROTO_VERSION,
		.type = type,
		.length = (uint32_t)len,
	};
	uint8_t *msg;

	if (len > RP_PROTO_MAX_BODY)
		return -EMSGSIZE;
	msg = malloc(RP_PROTO_HDR_LEN + len);
	if (!msg)
		return -ENOMEM;
	rp_proto_hdr_encode(&h, msg);
	if (len)
		memcpy(msg + RP_PROTO_HDR_LEN, json, len);
	*out = msg;
	return 0;
}

int rp_proto_send(rp_sock_t fd, uint16_t type, const cJSON *body,
		  int timeout_ms)
{
	uint64_t deadline = rp_deadline_ns(timeout_ms);
	char *json = NULL;
	uint8_t *msg = NULL;
	size_t len = 0;
	int ret;

	if (type < RP_MSG_HELLO || type > RP_MSG__MAX)
		return -EINVAL;
	if (body && !cJSON_IsObject(body))
		return -EINVAL;
	if (body) {
		json = cJSON_PrintUnformatted(body);
		if (!json)
			return -ENOMEM;
		len = strlen(json);
	}
	ret = frame(type, json, len, &msg);
	if (!ret)
		ret = rp_net_xfer_all(&rp_sock_kernel, fd, msg,
				      RP_PROTO_HDR_LEN + len, true, deadline);
	free(msg);
	cJSON_free(json);
	return ret;
}

int rp_proto_recv(rp_sock_t fd, int timeout_ms, uint16_t *type, cJSON **body)
{
	uint64_t deadline = rp_deadline_ns(timeout_ms);
	uint8_t hdr[RP_PROTO_HDR_LEN];
	struct rp_msg_hdr h;
	char *buf;
	int ret;

	*body = NULL;
	ret = rp_net_xfer_all(&rp_sock_kernel, fd, hdr, sizeof(hdr), false,
			      deadline);
	if (ret)
		return ret;
	ret = rp_proto_hdr_decode(hdr, &h);
	if (ret)
		return ret;
	buf = malloc(h.length ? h.length : 1);
	if (!buf)
		return -ENOMEM;
	ret = rp_net_xfer_all(&rp_sock_kernel, fd, buf, h.length, false,
			      deadline);
	if (!ret)
		ret = rp_proto_body_parse(buf, h.length, body);
	free(buf);
	if (!ret)
		*type = h.type;
	return ret;
}

int rp_proto_send_error(rp_sock_t fd, const char *code, const char *message)
{
	cJSON *obj = cJSON_CreateObject();
	int ret = -ENOMEM;

	if (!obj)
		return ret;
	if (cJSON_AddStringToObject(obj, "code", code ? code : "error") &&
	    cJSON_AddStringToObject(obj, "message", message ? message : ""))
		ret = rp_proto_send(fd, RP_MSG_ERROR, obj,
				    ERROR_SEND_TIMEOUT_MS);
	cJSON_Delete(obj);
	return ret;
}

/* Clean UTF-8 @s, cut by snprintf, back to whole characters: a last one
 * whose lead byte wants more bytes than follow it is dropped. */
static void whole_chars(char *s)
{
	size_t n = strlen(s), j = n, need;
	unsigned char c;

	while (j > 0 && n - j < 4 && ((unsigned char)s[j - 1] & 0xc0) == 0x80)
		j--;
	if (!j--)
		return;
	c = (unsigned char)s[j];
	need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
	if (n - j < need)
		s[j] = '\0';
}

void rp_proto_error_code(const cJSON *body, char *buf, size_t len)
{
	const char *code = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(body, "code"));

	if (buf && len)
		rp_safe_text(buf, len, code && code[0] ? code : "server");
}

/* The text comes from the peer: keep it on one printable line. */
void rp_proto_error_text(const cJSON *body, char *buf, size_t len)
{
	char code[64], msg[4 * RP_SAFE_MAX + 32];
	const char *c, *m;

	if (!buf || !len)
		return;
	c = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(body, "code"));
	m = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(body, "message"));
	rp_safe_text(code, sizeof(code), c ? c : "error");
	rp_safe_text(msg, sizeof(msg), m ? m : "(no message)");
	snprintf(buf, len, "%s: %s", code, msg);
	whole_chars(buf);
}

/* ---- the spec -------------------------------------------------------- */

cJSON *rp_proto_spec_encode(const struct rp_spec *s)
{
	char transport[RP_SPEC_NAME_LEN];
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	snprintf(transport, sizeof(transport), "%.*s", RP_SPEC_NAME_LEN - 1,
		 s->transport);
	if (!cJSON_AddStringToObject(o, "transport", transport) ||
	    !cJSON_AddStringToObject(o, "op", rp_op_name(s->op)) ||
	    !cJSON_AddNumberToObject(o, "size", (double)s->size_bytes) ||
	    !cJSON_AddNumberToObject(o, "queue_depth", s->queue_depth) ||
	    !cJSON_AddNumberToObject(o, "iterations", (double)s->iterations) ||
	    !cJSON_AddNumberToObject(o, "duration_ns",
				     (double)s->duration_ns) ||
	    !cJSON_AddNumberToObject(o, "warmup", (double)s->warmup) ||
	    !cJSON_AddNumberToObject(o, "lat_iterations",
				     (double)s->lat_iterations) ||
	    !cJSON_AddBoolToObject(o, "latency", s->latency) ||
	    !cJSON_AddBoolToObject(o, "bandwidth", s->bandwidth) ||
	    !cJSON_AddBoolToObject(o, "verify", s->verify) ||
	    !cJSON_AddNumberToObject(o, "streams", s->streams) ||
	    !cJSON_AddNumberToObject(o, "threads", s->threads) ||
	    !cJSON_AddBoolToObject(o, "bidir", s->bidir) ||
	    !cJSON_AddStringToObject(o, "wait", rp_wait_name(s->wait)) ||
	    !cJSON_AddNumberToObject(o, "rate", (double)s->rate) ||
	    !cJSON_AddNumberToObject(o, "signal", s->signal) ||
	    !cJSON_AddNumberToObject(o, "post_list", s->post_list) ||
	    (s->zerocopy && !cJSON_AddTrueToObject(o, "zerocopy"))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static const cJSON *spec_field(const cJSON *obj, const char *key, char *err,
			       size_t errlen)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!v)
		rp_spec_errf(err, errlen, "spec field \"%s\" is missing", key);
	return v;
}

/* A rejected number as the user wrote it: 1152921504606846976, not 1e18. */
static void number_text(double d, char *buf, size_t len)
{
	double mag = d < 0 ? -d : d;

	if (mag < 1e20 && (mag >= RP_JSON_MAX_EXACT || d == (double)(int64_t)d))
		snprintf(buf, len, "%.0f", d);
	else
		snprintf(buf, len, "%.17g", d);
}

static int get_u64(const cJSON *obj, const char *key, uint64_t *out, char *err,
		   size_t errlen)
{
	const cJSON *v = spec_field(obj, key, err, errlen);
	char num[32];

	if (!v)
		return -EINVAL;
	if (!cJSON_IsNumber(v))
		return rp_spec_errf(err, errlen,
				    "spec field \"%s\" must be a number", key);
	if (rp_json_u64(obj, key, UINT64_MAX, out)) {
		number_text(v->valuedouble, num, sizeof(num));
		return rp_spec_errf(err, errlen,
				    "spec field \"%s\" is %s: accepted whole "
				    "numbers 0 to %.0f",
				    key, num, RP_JSON_MAX_EXACT);
	}
	return 0;
}

static int get_bool(const cJSON *obj, const char *key, bool *out, char *err,
		    size_t errlen)
{
	const cJSON *v = spec_field(obj, key, err, errlen);

	if (!v)
		return -EINVAL;
	if (!cJSON_IsBool(v))
		return rp_spec_errf(err, errlen,
				    "spec field \"%s\" must be true or false",
				    key);
	*out = cJSON_IsTrue(v);
	return 0;
}

static int get_string(const cJSON *obj, const char *key, const char **out,
		      char *err, size_t errlen)
{
	const cJSON *v = spec_field(obj, key, err, errlen);

	if (!v)
		return -EINVAL;
	if (!cJSON_IsString(v) || !v->valuestring)
		return rp_spec_errf(err, errlen,
				    "spec field \"%s\" must be a string", key);
	*out = v->valuestring;
	return 0;
}

static int get_transport(const cJSON *obj, struct rp_spec *s, char *err,
			 size_t errlen)
{
	const char *name = NULL;

	if (get_string(obj, "transport", &name, err, errlen))
		return -EINVAL;
	if (strlen(name) >= RP_SPEC_NAME_LEN)
		return rp_spec_errf(
			err, errlen,
			"spec field \"transport\" too long: accepted "
			"up to %d characters",
			RP_SPEC_NAME_LEN - 1);
	strcpy(s->transport, name);
	return 0;
}

/* Only canonical names travel on the wire; letters are for the CLI. */
static int get_op(const cJSON *obj, struct rp_spec *s, char *err, size_t errlen)
{
	const char *name = NULL;
	int i;

	if (get_string(obj, "op", &name, err, errlen))
		return -EINVAL;
	for (i = 0; i < RP_OP__COUNT; i++) {
		if (!strcmp(name, rp_op_name((enum rp_op)i))) {
			s->op = (enum rp_op)i;
			return 0;
		}
	}
	return rp_spec_errf(err, errlen,
			    "spec field \"op\" unknown: accepted write, read, "
			    "send, write_imm, fetch_add, cmp_swap");
}

static int get_depth(const cJSON *obj, struct rp_spec *s, char *err,
		     size_t errlen)
{
	uint64_t v;

	if (get_u64(obj, "queue_depth", &v, err, errlen))
		return -EINVAL;
	if (v > UINT32_MAX)
		return rp_spec_errf(err, errlen,
				    "queue_depth %llu out of range: accepted 1 "
				    "to %d",
				    (unsigned long long)v, RP_SPEC_MAX_DEPTH);
	s->queue_depth = (uint32_t)v;
	return 0;
}

struct spec_key {
	const char *key;
	size_t off; /* in struct rp_spec */
};

static const struct spec_key u64_fields[] = {
	{ "size", offsetof(struct rp_spec, size_bytes) },
	{ "iterations", offsetof(struct rp_spec, iterations) },
	{ "duration_ns", offsetof(struct rp_spec, duration_ns) },
	{ "warmup", offsetof(struct rp_spec, warmup) },
	{ "lat_iterations", offsetof(struct rp_spec, lat_iterations) },
};

static const struct spec_key bool_fields[] = {
	{ "latency", offsetof(struct rp_spec, latency) },
	{ "bandwidth", offsetof(struct rp_spec, bandwidth) },
	{ "verify", offsetof(struct rp_spec, verify) },
};

/* A count of at most UINT32_MAX; absent (a 1.0 client): @dflt. */
static int get_u32_or(const cJSON *obj, const char *key, uint32_t dflt,
		      uint32_t *out, char *err, size_t errlen)
{
	uint64_t v;

	*out = dflt;
	if (!cJSON_GetObjectItemCaseSensitive(obj, key))
		return 0;
	if (get_u64(obj, key, &v, err, errlen))
		return -EINVAL;
	if (v > UINT32_MAX)
		return rp_spec_errf(err, errlen,
				    "spec field \"%s\" is %llu: too large", key,
				    (unsigned long long)v);
	*out = (uint32_t)v;
	return 0;
}

/* Fields of protocol 1.1: streams, threads, bidir, wait; rate, signal,
 * post_list (0 when absent: a client that predates them); zerocopy (sent
 * only when true). */
static int get_run_fields(const cJSON *obj, struct rp_spec *s, char *err,
			  size_t errlen)
{
	const char *wait = "busy";

	if (get_u32_or(obj, "streams", 1, &s->streams, err, errlen) ||
	    get_u32_or(obj, "threads", 1, &s->threads, err, errlen) ||
	    get_u32_or(obj, "signal", 0, &s->signal, err, errlen) ||
	    get_u32_or(obj, "post_list", 0, &s->post_list, err, errlen))
		return -EINVAL;
	s->rate = 0;
	if (cJSON_GetObjectItemCaseSensitive(obj, "rate") &&
	    get_u64(obj, "rate", &s->rate, err, errlen))
		return -EINVAL;
	if (cJSON_GetObjectItemCaseSensitive(obj, "bidir") &&
	    get_bool(obj, "bidir", &s->bidir, err, errlen))
		return -EINVAL;
	if (cJSON_GetObjectItemCaseSensitive(obj, "zerocopy") &&
	    get_bool(obj, "zerocopy", &s->zerocopy, err, errlen))
		return -EINVAL;
	if (cJSON_GetObjectItemCaseSensitive(obj, "wait") &&
	    get_string(obj, "wait", &wait, err, errlen))
		return -EINVAL;
	if (rp_wait_parse(wait, &s->wait))
		return rp_spec_errf(err, errlen,
				    "spec field \"wait\" unknown: accepted "
				    "busy, event");
	return 0;
}

static int get_fields(const cJSON *obj, struct rp_spec *s, char *err,
		      size_t errlen)
{
	char *base = (char *)s;
	size_t i;

	if (get_transport(obj, s, err, errlen) || get_op(obj, s, err, errlen) ||
	    get_depth(obj, s, err, errlen))
		return -EINVAL;
	for (i = 0; i < sizeof(u64_fields) / sizeof(u64_fields[0]); i++) {
		if (get_u64(obj, u64_fields[i].key,
			    (uint64_t *)(base + u64_fields[i].off), err,
			    errlen))
			return -EINVAL;
	}
	for (i = 0; i < sizeof(bool_fields) / sizeof(bool_fields[0]); i++) {
		if (get_bool(obj, bool_fields[i].key,
			     (bool *)(base + bool_fields[i].off), err, errlen))
			return -EINVAL;
	}
	return get_run_fields(obj, s, err, errlen);
}

int rp_proto_spec_decode(const cJSON *obj, struct rp_spec *out, char *err,
			 size_t errlen)
{
	struct rp_spec s;

	memset(&s, 0, sizeof(s));
	if (!cJSON_IsObject(obj))
		return rp_spec_errf(err, errlen, "spec must be a JSON object");
	if (get_fields(obj, &s, err, errlen))
		return -EINVAL;
	if (rp_spec_validate(&s, err, errlen))
		return -EINVAL;
	*out = s;
	return 0;
}

const char *rp_proto_strerror(int err)
{
	switch (err < 0 ? -err : err) {
	case EPROTO:
		return "bad magic";
	case EPROTONOSUPPORT:
		return "unsupported protocol version";
	case EMSGSIZE:
		return "message too large";
	case EBADMSG:
		return "malformed message";
	case ETIMEDOUT:
		return "timed out";
	case ECONNRESET:
	case EPIPE:
		return "connection closed";
	default:
		return strerror(err < 0 ? -err : err);
	}
}
