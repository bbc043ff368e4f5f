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
	[RP_MSG_AUTH] = "AUTH",	  [RP_MSG_TIME] = "TIME",
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
	cJSON *o = cJSON_CreateObject();

	if (o && rp_fields_write(o, s, rp_spec_fields, rp_spec_n_fields,
				 RP_FIELD_WIRE)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

int rp_proto_spec_decode(const cJSON *obj, struct rp_spec *out, char *err,
			 size_t errlen)
{
	struct rp_spec s;

	memset(&s, 0, sizeof(s));
	if (!cJSON_IsObject(obj))
		return rp_spec_errf(err, errlen, "spec must be a JSON object");
	if (rp_fields_decode(obj, &s, rp_spec_fields, rp_spec_n_fields, "spec",
			     err, errlen))
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
