// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the control protocol's framing. The input is a byte
 * stream as a receiver sees it on the control connection: header, body,
 * header, body, ...
 *
 * Each message is decoded twice and the two must agree:
 *   - by the pure codecs: the header (which must re-encode to the same
 *     bytes), the body parsed from an exact-size heap copy (so that
 *     AddressSanitizer catches any read past its length), an object body
 *     also read as an ERROR text and as a spec (a spec that decodes
 *     survives encode and decode unchanged, every field);
 *   - by rp_proto_recv itself, reading the same bytes from a socket whose
 *     peer wrote them and closed: the same type and body, or the same
 *     error (a header's; -ECONNRESET for a stream cut short; -EBADMSG for
 *     a body that is not one object).
 * Every message received is sent back with rp_proto_send and received
 * again, unchanged: numbers within the epsilon cJSON prints them to, and
 * none too large for a double (cJSON prints those as null). Decoding stops at
 * the first error, as a receiver does.
 *
 * Built with clang -fsanitize=fuzzer for fuzzing, or with replay.c as a plain
 * program that CTest runs over the seed corpus.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/proto.h"
#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RECV_TIMEOUT_MS 2000
/* What fits in a local socket's buffer at once: larger inputs (replayed
 * seeds only) skip the socket half. */
#define SOCKET_MAX_INPUT (64 * 1024)

/* What the pure codecs make of the message at the head of the stream. */
struct expect {
	int err; /* what rp_proto_recv must return */
	uint16_t type;
	cJSON *body; /* when err == 0 */
	size_t len;  /* bytes of the message */
};

static void check_spec(const cJSON *body)
{
	struct rp_spec s, again;
	char err[256];
	cJSON *enc;

	if (rp_proto_spec_decode(body, &s, err, sizeof(err)))
		return;
	enc = rp_proto_spec_encode(&s);
	if (!enc)
		return;
	FUZZ_CHECK(!rp_proto_spec_decode(enc, &again, err, sizeof(err)) &&
			   fuzz_spec_equal(&s, &again),
		   "spec round trip");
	cJSON_Delete(enc);
}

static int decode_body(const uint8_t *data, uint32_t len, cJSON **out)
{
	char *copy = fuzz_copy(data, len);
	char text[128];
	int err;

	*out = NULL;
	if (!copy)
		return -ENOMEM;
	err = rp_proto_body_parse(copy, len, out);
	free(copy);
	if (err)
		return err;
	rp_proto_error_text(*out, text, sizeof(text));
	check_spec(*out);
	return 0;
}

/* The message at @data, by the codecs alone. */
static void expect_message(const uint8_t *data, size_t size, struct expect *e)
{
	uint8_t again[RP_PROTO_HDR_LEN];
	struct rp_msg_hdr h;

	memset(e, 0, sizeof(*e));
	e->err = -ECONNRESET;
	if (size < RP_PROTO_HDR_LEN)
		return;
	e->err = rp_proto_hdr_decode(data, &h);
	if (e->err)
		return;
	rp_proto_hdr_encode(&h, again);
	FUZZ_CHECK(!memcmp(again, data, RP_PROTO_HDR_LEN), "header round trip");
	FUZZ_CHECK(strcmp(rp_proto_type_name(h.type), "UNKNOWN"),
		   "an accepted type has a name");
	e->err = -ECONNRESET; /* cut short: the peer closed mid-body */
	if (h.length > size - RP_PROTO_HDR_LEN)
		return;
	e->type = h.type;
	e->len = RP_PROTO_HDR_LEN + h.length;
	e->err = decode_body(data + RP_PROTO_HDR_LEN, h.length, &e->body);
}

/* A message sent with rp_proto_send comes back as it went. */
static void check_resend(int pair[2], uint16_t type, const cJSON *body)
{
	cJSON *back = NULL;
	uint16_t got = 0;

	if (rp_proto_send(pair[0], type, body, RECV_TIMEOUT_MS))
		return; /* no memory, or printed larger than a body may be */
	FUZZ_CHECK(!rp_proto_recv(pair[1], RECV_TIMEOUT_MS, &got, &back),
		   "what rp_proto_send sent is received");
	FUZZ_CHECK(got == type && fuzz_json_same(back, body, false),
		   "resent message unchanged");
	cJSON_Delete(back);
}

/* rp_proto_recv on @fd agrees with @e. Return: whether to go on. */
static bool check_recv(int fd, int echo[2], const struct expect *e)
{
	cJSON *body = NULL;
	uint16_t type = 0;
	int err = rp_proto_recv(fd, RECV_TIMEOUT_MS, &type, &body);

	if (e->err == -ENOMEM || err == -ENOMEM) {
		cJSON_Delete(body);
		return false;
	}
	FUZZ_CHECK(err == e->err, "rp_proto_recv returns what the codecs say");
	if (err) {
		FUZZ_CHECK(!body, "no body on an error");
		return false;
	}
	FUZZ_CHECK(type == e->type && fuzz_json_same(body, e->body, true),
		   "rp_proto_recv gives the codecs' message");
	if (echo && fuzz_json_finite(body))
		check_resend(echo, type, body);
	cJSON_Delete(body);
	return true;
}

/* The whole stream into one end of a socket pair, that end closed; the
 * other end in @fd. Return: 0, or -1 (no socket: codecs only). */
static int stream_socket(const uint8_t *data, size_t size, int *fd)
{
	int pair[2];
	size_t off = 0;
	ssize_t n;

	if (size > SOCKET_MAX_INPUT ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, pair))
		return -1;
	while (off < size) {
		n = send(pair[0], data + off, size - off, MSG_NOSIGNAL);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(pair[0]);
	if (off < size) {
		close(pair[1]);
		return -1;
	}
	*fd = pair[1];
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = -1, echo[2] = { -1, -1 };
	bool more = true;
	struct expect e;

	if (stream_socket(data, size, &fd) == 0 &&
	    socketpair(AF_UNIX, SOCK_STREAM, 0, echo))
		echo[0] = echo[1] = -1;
	while (more) {
		expect_message(data, size, &e);
		more = !e.err;
		if (fd >= 0)
			more = check_recv(fd, echo[0] >= 0 ? echo : NULL, &e) &&
			       more;
		cJSON_Delete(e.body);
		data += e.len;
		size -= e.len;
	}
	if (fd >= 0)
		close(fd);
	if (echo[0] >= 0) {
		close(echo[0]);
		close(echo[1]);
	}
	return 0;
}
