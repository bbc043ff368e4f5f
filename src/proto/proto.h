/* SPDX-License-Identifier: MIT */
/* clang-format off */
/*
 * Control protocol. Every message on the control connection is
 *
 *   0        4        6        8        12
 *   +--------+--------+--------+--------+-------------------------+
 *   | magic  |version | type   | length | JSON object, length B   |
 *   | u32 BE | u16 BE | u16 BE | u32 BE |                         |
 *   +--------+--------+--------+--------+-------------------------+
 *
 * magic is "RDPF", version is major << 8 | minor; a receiver rejects another
 * major. The body is a JSON object of at most RP_PROTO_MAX_BODY bytes.
 * START, STOP and DONE's bodies are proto/bodies.h's.
 *
 * A test: one message a line, the client's (C) on the left, the server's
 * (S) on the right, each answer on the line below what it answers.
 *
 *   C                                          S
 *   HELLO   {proto, version, host}  ------->
 *                                   <-------   HELLO (or ERROR busy)
 *   TEST    {spec}                  ------->
 *                                   <-------   SETUP   {token, endpoint}
 *     C connects every data stream, one after the other, presenting the
 *     token: spec.streams the client initiates, then (spec.bidir) as many
 *     the server initiates; the i-th accept is the i-th connect.
 *   STREAMS {streams: [info per     ------->
 *            stream]}
 *                                   <-------   STREAMS {streams}
 *   for each point of the sweep, for each phase:
 *   START   {phase, size, depth,    ------->
 *            iterations,
 *            duration_ns, rate}
 *                                   <-------   READY
 *     (a size or depth other than the streams' moves both ends' streams
 *     to that point first; iterations, duration_ns: how long the server's
 *     own initiators run under --bidir; rate: --rate, in the throughput
 *     phase only, 0 otherwise)
 *   ... the phase runs on the data streams ...
 *   STOP    {phase, abort, sent}    ------->
 *                                   <-------   DONE    {server side: messages,
 *                                                       bytes, verify_errors,
 *                                                       cpu; under --bidir
 *                                                       its direction}
 *     (abort: only if the client was interrupted. sent, outside the
 *     latency phase: per client-initiated stream, the operations the
 *     client completed; the server's responders drain to it, RP_DRAIN_MS
 *     at most, as an iWARP send completes once it has left; a STOP
 *     without it, from an older client, drains as before)
 *   BYE                             ------->
 *                                              S releases the test
 *
 * Protocol 2.0 (1.x had one stream) added spec.streams, threads, bidir and
 * wait (a spec without them means one stream, busy), the STREAMS arrays
 * and START's point; a 1.x peer is told "unsupported protocol version".
 * spec.zerocopy (--zerocopy) is sent only when true; a server that
 * predates it ignores it, sends copied, and its DONE then lacks the
 * "zerocopy" counts {issued, sends, copied} over the test that a newer
 * one reports.
 *
 * With --auth-key (proto/auth.h) HELLO becomes a mutual proof before the
 * server says anything about its host:
 *
 *   C                                          S
 *   HELLO   {proto, auth, nonce}    ------->
 *                                   <-------   AUTH    {nonce, mac}
 *   AUTH    {mac}                   ------->
 *                                   <-------   HELLO (or ERROR auth)
 *
 * Either side may send ERROR {code, message} at any time; it ends the test.
 */
/* clang-format on */
#ifndef RP_PROTO_PROTO_H
#define RP_PROTO_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/spec.h"
#include "platform/sock.h"

#define RP_PROTO_MAGIC	      0x52445046u /* "RDPF" */
#define RP_PROTO_MAJOR	      2
#define RP_PROTO_MINOR	      0
#define RP_PROTO_VERSION      ((RP_PROTO_MAJOR << 8) | RP_PROTO_MINOR)
#define RP_PROTO_HDR_LEN      12
#define RP_PROTO_MAX_BODY     (1u << 20)
#define RP_PROTO_DEFAULT_PORT 18520

enum rp_msg_type {
	RP_MSG_HELLO = 1,
	RP_MSG_TEST = 2,
	RP_MSG_SETUP = 3,
	RP_MSG_START = 4,
	RP_MSG_READY = 5,
	RP_MSG_STOP = 6,
	RP_MSG_DONE = 7,
	RP_MSG_BYE = 8,
	RP_MSG_ERROR = 9,
	RP_MSG_STREAMS = 10,
	RP_MSG_AUTH = 11, /* --auth-key: proto/auth.h */
	RP_MSG_TIME = 12, /* --mcast: the server's clock, for the offset */
	RP_MSG__MAX = RP_MSG_TIME
};

struct rp_msg_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint32_t length;
};

/** rp_proto_hdr_encode - write @h in network byte order into @buf. */
void rp_proto_hdr_encode(const struct rp_msg_hdr *h,
			 uint8_t buf[RP_PROTO_HDR_LEN]);

/**
 * rp_proto_hdr_decode - parse and check a header.
 * Return: 0; -EPROTO on a bad magic; -EPROTONOSUPPORT on another major
 * version; -EBADMSG on an unknown type; -EMSGSIZE when length exceeds
 * RP_PROTO_MAX_BODY. @out is filled in every case but a bad magic.
 */
int rp_proto_hdr_decode(const uint8_t buf[RP_PROTO_HDR_LEN],
			struct rp_msg_hdr *out);

/** rp_proto_type_name - "HELLO", "TEST", ...; "UNKNOWN" otherwise. */
const char *rp_proto_type_name(uint16_t type);

/**
 * rp_proto_body_parse - parse a body; it must be one JSON object.
 * Return: 0 and *out set, or -EBADMSG.
 */
int rp_proto_body_parse(const char *buf, size_t len, cJSON **out);

/**
 * rp_proto_send - frame and send one message on a blocking or non-blocking
 * socket, waiting at most @timeout_ms in total.
 * @body: a JSON object, or NULL for an empty object.
 * Return: 0, -ETIMEDOUT, -EMSGSIZE, -EPIPE/-ECONNRESET or another -errno.
 */
int rp_proto_send(rp_sock_t fd, uint16_t type, const cJSON *body,
		  int timeout_ms);

/**
 * rp_proto_recv - receive one message, waiting at most @timeout_ms in total.
 * @type: receives the type; @body: receives the parsed object (caller
 * deletes it with cJSON_Delete).
 * Return: 0; -ETIMEDOUT; -ECONNRESET when the peer closed; the header
 * errors of rp_proto_hdr_decode; -EBADMSG for a body that is not an object.
 */
int rp_proto_recv(rp_sock_t fd, int timeout_ms, uint16_t *type, cJSON **body);

/**
 * rp_proto_send_error - send ERROR {"code": code, "message": message},
 * best effort, with a short timeout. Return: as rp_proto_send.
 */
int rp_proto_send_error(rp_sock_t fd, const char *code, const char *message);

/**
 * rp_proto_error_text - for an ERROR body, "code: message" into @buf, safe
 * to print (core/safe.h: no control character, valid UTF-8, the message
 * cut at RP_SAFE_MAX bytes) and cut, if @len is short, at a character.
 */
void rp_proto_error_text(const cJSON *body, char *buf, size_t len);

/**
 * rp_proto_error_code - an ERROR body's code into @buf, safe to print as
 * rp_proto_error_text's; "server" when it has none.
 */
void rp_proto_error_code(const cJSON *body, char *buf, size_t len);

/** rp_proto_spec_encode - the spec as a JSON object; NULL on no memory. */
cJSON *rp_proto_spec_encode(const struct rp_spec *s);

/**
 * rp_proto_spec_decode - parse a spec from @obj and validate it
 * (rp_spec_validate). Missing or mistyped fields are errors.
 * @err: one-line reason on failure.
 * Return: 0, or -EINVAL.
 */
int rp_proto_spec_decode(const cJSON *obj, struct rp_spec *out, char *err,
			 size_t errlen);

/** rp_proto_strerror - a short text for the errors above. */
const char *rp_proto_strerror(int err);

#endif
