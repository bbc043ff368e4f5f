// SPDX-License-Identifier: MIT
/*
 * Unit tests of proto/: the header's exact bytes and checks, body parsing,
 * send and receive over a socketpair (timeouts, partial I/O, a peer that
 * closes mid-message), and the spec as JSON with its decode errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "sockpair.h"

#include "core/safe.h"
#include "platform/clock.h"
#include "proto/proto.h"

#define BIG_BODY_BYTES (900 * 1024) /* well over a socketpair's buffer */

/* ---- helpers --------------------------------------------------------- */

static void close_end(int *sv, int i)
{
	close(sv[i]);
	sv[i] = -1;
}

static void put_hdr(uint8_t *buf, uint32_t magic, uint16_t version,
		    uint16_t type, uint32_t length)
{
	struct rp_msg_hdr h = { magic, version, type, length };

	rp_proto_hdr_encode(&h, buf);
}

static void write_all(int fd, const void *buf, size_t len)
{
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
}

static void set_nonblock(int fd)
{
	assert_int_equal(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK),
			 0);
}

static cJSON *big_object(void)
{
	char *text = malloc(BIG_BODY_BYTES + 1);
	cJSON *obj = cJSON_CreateObject();

	assert_non_null(text);
	assert_non_null(obj);
	memset(text, 'x', BIG_BODY_BYTES);
	text[BIG_BODY_BYTES] = '\0';
	assert_non_null(cJSON_AddStringToObject(obj, "blob", text));
	free(text);
	return obj;
}

/* ---- header ---------------------------------------------------------- */

static void test_hdr_layout(void **state)
{
	static const uint8_t want[RP_PROTO_HDR_LEN] = {
		'R',  'D',  'P',  'F',	0x02, 0x03,
		0x00, 0x09, 0x00, 0x01, 0x02, 0x03,
	};
	struct rp_msg_hdr h = { RP_PROTO_MAGIC, 0x0203, RP_MSG_ERROR,
				0x010203 };
	struct rp_msg_hdr out;
	uint8_t buf[RP_PROTO_HDR_LEN];

	(void)state;
	rp_proto_hdr_encode(&h, buf);
	assert_memory_equal(buf, want, sizeof(want));
	assert_int_equal(rp_proto_hdr_decode(buf, &out), 0);
	assert_int_equal(out.magic, RP_PROTO_MAGIC);
	assert_int_equal(out.version, 0x0203);
	assert_int_equal(out.type, RP_MSG_ERROR);
	assert_int_equal(out.length, 0x010203);
}

static void test_hdr_round_trip(void **state)
{
	struct rp_msg_hdr h = { RP_PROTO_MAGIC, RP_PROTO_VERSION, 0, 0 };
	struct rp_msg_hdr out;
	uint8_t buf[RP_PROTO_HDR_LEN];
	uint16_t t;

	(void)state;
	for (t = RP_MSG_HELLO; t <= RP_MSG__MAX; t++) {
		h.type = t;
		h.length = t == RP_MSG_BYE ? RP_PROTO_MAX_BODY : t * 1000u;
		rp_proto_hdr_encode(&h, buf);
		assert_int_equal(rp_proto_hdr_decode(buf, &out), 0);
		assert_memory_equal(&out, &h, sizeof(h));
	}
}

static void test_hdr_bad_magic(void **state)
{
	struct rp_msg_hdr out = { 0, 0, 0, 0 };
	uint8_t buf[RP_PROTO_HDR_LEN];

	(void)state;
	put_hdr(buf, 0x52445047, RP_PROTO_VERSION, RP_MSG_HELLO, 0);
	assert_int_equal(rp_proto_hdr_decode(buf, &out), -EPROTO);
	memcpy(buf, "GET ", 4);
	assert_int_equal(rp_proto_hdr_decode(buf, &out), -EPROTO);
	assert_int_equal(out.magic, 0);
	assert_int_equal(out.type, 0);
}

static void test_hdr_version(void **state)
{
	struct rp_msg_hdr out;
	uint8_t buf[RP_PROTO_HDR_LEN];

	(void)state;
	put_hdr(buf, RP_PROTO_MAGIC, (RP_PROTO_MAJOR + 1) << 8, RP_MSG_HELLO,
		7);
	assert_int_equal(rp_proto_hdr_decode(buf, &out), -EPROTONOSUPPORT);
	assert_int_equal(out.version, (RP_PROTO_MAJOR + 1) << 8);
	assert_int_equal(out.length, 7);
	put_hdr(buf, RP_PROTO_MAGIC, 0x00ff, RP_MSG_HELLO, 0);
	assert_int_equal(rp_proto_hdr_decode(buf, &out), -EPROTONOSUPPORT);
	put_hdr(buf, RP_PROTO_MAGIC, RP_PROTO_MAJOR << 8 | 0xff, RP_MSG_HELLO,
		0);
	assert_int_equal(rp_proto_hdr_decode(buf, &out), 0);
	assert_int_equal(out.version & 0xff, 0xff);
}

static void test_hdr_type(void **state)
{
	struct rp_msg_hdr out;
	uint8_t buf[RP_PROTO_HDR_LEN];
	uint16_t t;

	(void)state;
	put_hdr(buf, RP_PROTO_MAGIC, RP_PROTO_VERSION, 0, 0);
	assert_int_equal(rp_proto_hdr_decode(buf, &out), -EBADMSG);
	put_hdr(buf, RP_PROTO_MAGIC, RP_PROTO_VERSION, RP_MSG__MAX + 1, 0);
	assert_int_equal(rp_proto_hdr_decode(buf, &out), -EBADMSG);
	assert_int_equal(out.type, RP_MSG__MAX + 1);
	put_hdr(buf, RP_PROTO_MAGIC, RP_PROTO_VERSION, 0xffff, 0);
	assert_int_equal(rp_proto_hdr_decode(buf, &out), -EBADMSG);
	assert_string_equal(rp_proto_type_name(RP_MSG_HELLO), "HELLO");
	assert_string_equal(rp_proto_type_name(RP_MSG_TEST), "TEST");
	assert_string_equal(rp_proto_type_name(RP_MSG_ERROR), "ERROR");
	assert_string_equal(rp_proto_type_name(RP_MSG_STREAMS), "STREAMS");
	for (t = RP_MSG_HELLO; t <= RP_MSG__MAX; t++)
		assert_string_not_equal(rp_proto_type_name(t), "UNKNOWN");
	assert_string_equal(rp_proto_type_name(0), "UNKNOWN");
	assert_string_equal(rp_proto_type_name(RP_MSG__MAX + 1), "UNKNOWN");
}

static void test_hdr_length(void **state)
{
	struct rp_msg_hdr out;
	uint8_t buf[RP_PROTO_HDR_LEN];

	(void)state;
	put_hdr(buf, RP_PROTO_MAGIC, RP_PROTO_VERSION, RP_MSG_TEST,
		RP_PROTO_MAX_BODY);
	assert_int_equal(rp_proto_hdr_decode(buf, &out), 0);
	put_hdr(buf, RP_PROTO_MAGIC, RP_PROTO_VERSION, RP_MSG_TEST,
		RP_PROTO_MAX_BODY + 1);
	assert_int_equal(rp_proto_hdr_decode(buf, &out), -EMSGSIZE);
	assert_int_equal(out.length, RP_PROTO_MAX_BODY + 1);
	put_hdr(buf, RP_PROTO_MAGIC, RP_PROTO_VERSION, RP_MSG_TEST, UINT32_MAX);
	assert_int_equal(rp_proto_hdr_decode(buf, &out), -EMSGSIZE);
}

/* ---- body ------------------------------------------------------------ */

static void expect_body(const char *text, size_t len, int want)
{
	cJSON *obj = (cJSON *)1;
	int ret = rp_proto_body_parse(text, len, &obj);

	if (ret != want)
		fail_msg("\"%.*s\": %d, expected %d", (int)len, text, ret,
			 want);
	if (want) {
		assert_null(obj);
		return;
	}
	assert_true(cJSON_IsObject(obj));
	cJSON_Delete(obj);
}

static void test_body_parse(void **state)
{
	static const char *const bad[] = {
		"[]",	   "[{}]",     "1",	   "\"s\"",	 "null",
		"garbage", "{\"a\":1", "{\"a\":}", "{\"a\":1}x", "{}{}",
		"{",	   " ",	       "\xff\xfe",
	};
	cJSON *obj;
	size_t i;

	(void)state;
	expect_body("{\"a\":1}", 7, 0);
	expect_body(" {\"a\":[1,2,{}]} \r\n", 18, 0);
	expect_body("{}xyz", 2, 0); /* stops at the length, not at a NUL */
	expect_body("{}\0", 3, -EBADMSG);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_body(bad[i], strlen(bad[i]), -EBADMSG);
	assert_int_equal(rp_proto_body_parse("", 0, &obj), 0);
	assert_true(cJSON_IsObject(obj));
	assert_int_equal(cJSON_GetArraySize(obj), 0);
	cJSON_Delete(obj);
}

/* ---- send and receive ------------------------------------------------ */

static void test_round_trip(void **state)
{
	int *sv = *state;
	cJSON *hello = cJSON_CreateObject(), *got = NULL;
	uint16_t type = 0;

	assert_non_null(cJSON_AddStringToObject(hello, "proto", "rdmaperf"));
	assert_non_null(cJSON_AddStringToObject(hello, "version", "0.1.0"));
	assert_non_null(
		cJSON_AddStringToObject(hello, "host", "h\"\n\xc3\xa9"));
	assert_int_equal(rp_proto_send(sv[0], RP_MSG_HELLO, hello, 1000), 0);
	assert_int_equal(rp_proto_recv(sv[1], 1000, &type, &got), 0);
	assert_int_equal(type, RP_MSG_HELLO);
	assert_true(cJSON_Compare(hello, got, true));
	cJSON_Delete(got);
	cJSON_Delete(hello);
}

static void test_empty_body(void **state)
{
	int *sv = *state;
	uint8_t hdr[RP_PROTO_HDR_LEN];
	cJSON *got = NULL;
	uint16_t type = 0;

	assert_int_equal(rp_proto_send(sv[0], RP_MSG_BYE, NULL, 1000), 0);
	assert_int_equal(rp_proto_recv(sv[1], 1000, &type, &got), 0);
	assert_int_equal(type, RP_MSG_BYE);
	assert_true(cJSON_IsObject(got));
	assert_int_equal(cJSON_GetArraySize(got), 0);
	cJSON_Delete(got);

	put_hdr(hdr, RP_PROTO_MAGIC, RP_PROTO_VERSION, RP_MSG_READY, 0);
	write_all(sv[0], hdr, sizeof(hdr));
	assert_int_equal(rp_proto_recv(sv[1], 1000, &type, &got), 0);
	assert_int_equal(type, RP_MSG_READY);
	assert_int_equal(cJSON_GetArraySize(got), 0);
	cJSON_Delete(got);
}

static void *send_big(void *arg)
{
	int fd = *(int *)arg;
	cJSON *obj = big_object();
	intptr_t ret = rp_proto_send(fd, RP_MSG_DONE, obj, 5000);

	cJSON_Delete(obj);
	return (void *)ret;
}

/* Larger than the socket buffer: both sides go through partial I/O. */
static void test_big_message(void **state)
{
	int *sv = *state;
	cJSON *got = NULL;
	uint16_t type = 0;
	pthread_t thread;
	void *sent;

	set_nonblock(sv[0]);
	set_nonblock(sv[1]);
	assert_int_equal(pthread_create(&thread, NULL, send_big, &sv[0]), 0);
	assert_int_equal(rp_proto_recv(sv[1], 5000, &type, &got), 0);
	assert_int_equal(pthread_join(thread, &sent), 0);
	assert_int_equal((intptr_t)sent, 0);
	assert_int_equal(type, RP_MSG_DONE);
	assert_int_equal(
		strlen(cJSON_GetStringValue(cJSON_GetObjectItem(got, "blob"))),
		BIG_BODY_BYTES);
	cJSON_Delete(got);
}

static void test_recv_timeout(void **state)
{
	int *sv = *state;
	cJSON *got = (cJSON *)1;
	uint16_t type;
	uint64_t t0 = rp_clock_ns(), ms;

	assert_int_equal(rp_proto_recv(sv[1], 200, &type, &got), -ETIMEDOUT);
	ms = (rp_clock_ns() - t0) / RP_NS_PER_MS;
	assert_true(ms >= 199 && ms < 1000);
	assert_null(got);
}

/* Half a header arrives, then nothing: still one timeout for the whole. */
static void test_recv_timeout_partial(void **state)
{
	int *sv = *state;
	cJSON *got;
	uint16_t type;
	uint64_t t0 = rp_clock_ns(), ms;

	write_all(sv[0], "RDPF\x01", 5);
	assert_int_equal(rp_proto_recv(sv[1], 200, &type, &got), -ETIMEDOUT);
	ms = (rp_clock_ns() - t0) / RP_NS_PER_MS;
	assert_true(ms >= 199 && ms < 1000);
}

/* A blocking socket whose peer never reads must not block past the limit. */
static void test_send_timeout(void **state)
{
	int *sv = *state;
	cJSON *obj = big_object();
	uint64_t t0 = rp_clock_ns(), ms;

	assert_int_equal(rp_proto_send(sv[0], RP_MSG_DONE, obj, 200),
			 -ETIMEDOUT);
	ms = (rp_clock_ns() - t0) / RP_NS_PER_MS;
	assert_true(ms >= 199 && ms < 1000);
	cJSON_Delete(obj);
}

static void test_closed_before(void **state)
{
	int *sv = *state;
	cJSON *got;
	uint16_t type;

	close_end(sv, 0);
	assert_int_equal(rp_proto_recv(sv[1], 1000, &type, &got), -ECONNRESET);
}

static void test_closed_mid_header(void **state)
{
	int *sv = *state;
	cJSON *got;
	uint16_t type;

	write_all(sv[0], "RDPF\x01", 5);
	close_end(sv, 0);
	assert_int_equal(rp_proto_recv(sv[1], 1000, &type, &got), -ECONNRESET);
}

static void test_closed_mid_body(void **state)
{
	int *sv = *state;
	uint8_t hdr[RP_PROTO_HDR_LEN];
	cJSON *got;
	uint16_t type;

	put_hdr(hdr, RP_PROTO_MAGIC, RP_PROTO_VERSION, RP_MSG_TEST, 100);
	write_all(sv[0], hdr, sizeof(hdr));
	write_all(sv[0], "{\"size\": 1", 10);
	close_end(sv, 0);
	assert_int_equal(rp_proto_recv(sv[1], 1000, &type, &got), -ECONNRESET);
}

static void expect_recv_error(int *sv, const uint8_t *hdr, const char *body,
			      int want)
{
	cJSON *got = (cJSON *)1;
	uint16_t type;

	write_all(sv[0], hdr, RP_PROTO_HDR_LEN);
	if (body)
		write_all(sv[0], body, strlen(body));
	assert_int_equal(rp_proto_recv(sv[1], 1000, &type, &got), want);
	assert_null(got);
}

static void test_recv_bad_header(void **state)
{
	int *sv = *state;
	uint8_t hdr[RP_PROTO_HDR_LEN];

	put_hdr(hdr, RP_PROTO_MAGIC, RP_PROTO_VERSION, RP_MSG_TEST,
		RP_PROTO_MAX_BODY + 1);
	expect_recv_error(sv, hdr, NULL, -EMSGSIZE);
	put_hdr(hdr, 0x47455420, RP_PROTO_VERSION, RP_MSG_TEST, 0);
	expect_recv_error(sv, hdr, NULL, -EPROTO);
	put_hdr(hdr, RP_PROTO_MAGIC, 0x0300, RP_MSG_TEST, 0);
	expect_recv_error(sv, hdr, NULL, -EPROTONOSUPPORT);
	put_hdr(hdr, RP_PROTO_MAGIC, RP_PROTO_VERSION, 77, 0);
	expect_recv_error(sv, hdr, NULL, -EBADMSG);
	put_hdr(hdr, RP_PROTO_MAGIC, RP_PROTO_VERSION, RP_MSG_TEST, 2);
	expect_recv_error(sv, hdr, "[]", -EBADMSG);
}

static void test_send_errors(void **state)
{
	int *sv = *state;
	cJSON *arr = cJSON_CreateArray();

	assert_int_equal(rp_proto_send(sv[0], RP_MSG_TEST, arr, 100), -EINVAL);
	assert_int_equal(rp_proto_send(sv[0], 0, NULL, 100), -EINVAL);
	assert_int_equal(rp_proto_send(sv[0], RP_MSG__MAX + 1, NULL, 100),
			 -EINVAL);
	cJSON_Delete(arr);
	close_end(sv, 1);
	assert_int_equal(rp_proto_send(sv[0], RP_MSG_BYE, NULL, 100), -EPIPE);
	assert_int_equal(rp_proto_send(-1, RP_MSG_BYE, NULL, 100), -EBADF);
}

static void test_error_message(void **state)
{
	int *sv = *state;
	cJSON *got = NULL;
	uint16_t type = 0;
	char text[64];

	assert_int_equal(rp_proto_send_error(sv[0], "busy", "one test\nat a"),
			 0);
	assert_int_equal(rp_proto_recv(sv[1], 1000, &type, &got), 0);
	assert_int_equal(type, RP_MSG_ERROR);
	rp_proto_error_text(got, text, sizeof(text));
	assert_string_equal(text, "busy: one test\\nat a");
	rp_proto_error_text(got, text, 6);
	assert_string_equal(text, "busy:");
	cJSON_Delete(got);
	rp_proto_error_text(NULL, text, sizeof(text));
	assert_string_equal(text, "error: (no message)");
}

/* A server's ERROR as the client shows it: no control byte, valid UTF-8,
 * cut whole; its code likewise. */
static void test_error_hostile(void **state)
{
	char text[200], code[32], big[4096], shortbuf[13];
	cJSON *b = cJSON_CreateObject();

	(void)state;
	cJSON_AddStringToObject(b, "code", "busy\x1b[2J\xff");
	cJSON_AddStringToObject(b, "message",
				"go \x1b]0;pwned\x07 \xc2\x9b"
				"31m \xed\xa0\x80!");
	rp_proto_error_text(b, text, sizeof(text));
	assert_string_equal(text, "busy\\x1b[2J\xef\xbf\xbd: go "
				  "\\x1b]0;pwned\\x07 \\xc2\\x9b31m "
				  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd!");
	rp_proto_error_code(b, code, sizeof(code));
	assert_string_equal(code, "busy\\x1b[2J\xef\xbf\xbd");
	/* "busy\\x1b[2J" is 11 bytes: U+FFFD's 3 do not fit in the 12 left */
	rp_proto_error_text(b, shortbuf, sizeof(shortbuf));
	assert_string_equal(shortbuf, "busy\\x1b[2J");
	cJSON_Delete(b);

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "message", big);
	rp_proto_error_text(b, text, sizeof(text));
	assert_int_equal(strlen(text), sizeof(text) - 1);
	cJSON_Delete(b);

	b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "message", big + sizeof(big) - 300);
	rp_proto_error_text(b, text, sizeof(text));
	assert_non_null(strstr(text, "error: xxx"));
	cJSON_Delete(b);
	/* "e: ", 195 x, then U+2026 across the end of the 200 bytes */
	memcpy(big + 195, "\xe2\x80\xa6\xe2\x80\xa6", 7);
	b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "code", "e");
	cJSON_AddStringToObject(b, "message", big);
	rp_proto_error_text(b, text, sizeof(text));
	assert_int_equal(strlen(text), 3 + 195);
	assert_true(rp_safe_is_clean(text));
	cJSON_Delete(b);

	rp_proto_error_code(NULL, code, sizeof(code));
	assert_string_equal(code, "server");
}

static void test_strerror(void **state)
{
	(void)state;
	assert_string_equal(rp_proto_strerror(-EPROTO), "bad magic");
	assert_string_equal(rp_proto_strerror(-EPROTONOSUPPORT),
			    "unsupported protocol version");
	assert_string_equal(rp_proto_strerror(-EMSGSIZE), "message too large");
	assert_string_equal(rp_proto_strerror(-EBADMSG), "malformed message");
	assert_string_equal(rp_proto_strerror(-ETIMEDOUT), "timed out");
	assert_string_equal(rp_proto_strerror(-ECONNRESET),
			    "connection closed");
	assert_string_equal(rp_proto_strerror(-ENOMEM), strerror(ENOMEM));
}

/* ---- the spec -------------------------------------------------------- */

static struct rp_spec odd_spec(void)
{
	struct rp_spec s;

	rp_spec_defaults(&s);
	strcpy(s.transport, "rsocket_2");
	s.op = RP_OP_CMP_SWAP;
	s.size_bytes = 8;
	s.queue_depth = RP_SPEC_MAX_DEPTH;
	s.iterations = 0;
	s.duration_ns = RP_SPEC_MAX_SECONDS * RP_NS_PER_SEC;
	s.warmup = 0;
	s.lat_iterations = RP_SPEC_MAX_ITERS;
	s.latency = false;
	s.bandwidth = true;
	s.verify = true;
	return s;
}

static void assert_spec_equal(const struct rp_spec *a, const struct rp_spec *b)
{
	assert_string_equal(a->transport, b->transport);
	assert_int_equal(a->op, b->op);
	assert_int_equal(a->size_bytes, b->size_bytes);
	assert_int_equal(a->queue_depth, b->queue_depth);
	assert_int_equal(a->iterations, b->iterations);
	assert_int_equal(a->duration_ns, b->duration_ns);
	assert_int_equal(a->warmup, b->warmup);
	assert_int_equal(a->lat_iterations, b->lat_iterations);
	assert_int_equal(a->latency, b->latency);
	assert_int_equal(a->bandwidth, b->bandwidth);
	assert_int_equal(a->verify, b->verify);
	assert_int_equal(a->zerocopy, b->zerocopy);
	assert_int_equal(a->tos, b->tos);
	assert_int_equal(a->mem, b->mem);
	assert_int_equal(a->qp, b->qp);
	assert_int_equal(a->tagged, b->tagged);
	assert_int_equal(a->ep_type, b->ep_type);
	assert_int_equal(a->srq, b->srq);
	assert_int_equal(a->srq_size, b->srq_size);
	assert_int_equal(a->sl, b->sl);
	assert_int_equal(a->flow_label, b->flow_label);
	assert_int_equal(a->path_mtu, b->path_mtu);
}

/* Through the text form too, so number printing is covered. */
static void test_spec_round_trip(void **state)
{
	struct rp_spec in = odd_spec(), out;
	cJSON *obj = rp_proto_spec_encode(&in), *back;
	char *text, err[128] = "";

	(void)state;
	assert_non_null(obj);
	text = cJSON_PrintUnformatted(obj);
	assert_non_null(text);
	assert_int_equal(rp_proto_body_parse(text, strlen(text), &back), 0);
	memset(&out, 0xa5, sizeof(out));
	if (rp_proto_spec_decode(back, &out, err, sizeof(err)))
		fail_msg("%s in %s", err, text);
	assert_spec_equal(&in, &out);
	assert_string_equal(
		cJSON_GetStringValue(cJSON_GetObjectItem(back, "op")),
		"cmp_swap");
	cJSON_free(text);
	cJSON_Delete(back);
	cJSON_Delete(obj);
}

/* Encode a valid spec, replace @key by @v (NULL: remove it), decode. */
static int decode_with(const char *key, cJSON *v, char *err, size_t errlen)
{
	struct rp_spec s = odd_spec(), out;
	cJSON *obj = rp_proto_spec_encode(&s);
	int ret;

	if (v)
		cJSON_ReplaceItemInObjectCaseSensitive(obj, key, v);
	else
		cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
	ret = rp_proto_spec_decode(obj, &out, err, errlen);
	cJSON_Delete(obj);
	return ret;
}

static void expect_decode_error(const char *key, cJSON *v, const char *what)
{
	char err[160] = "";

	assert_int_equal(decode_with(key, v, err, sizeof(err)), -EINVAL);
	if (!strstr(err, key) || !strstr(err, what))
		fail_msg("\"%s\" should name %s and say \"%s\"", err, key,
			 what);
}

static void test_spec_decode_errors(void **state)
{
	(void)state;
	expect_decode_error("size", NULL, "missing");
	expect_decode_error("verify", NULL, "missing");
	expect_decode_error("size", cJSON_CreateString("8"), "number");
	expect_decode_error("latency", cJSON_CreateNumber(1), "true or false");
	expect_decode_error("op", cJSON_CreateNumber(0), "string");
	expect_decode_error("op", cJSON_CreateString("W"), "write");
	expect_decode_error("transport", cJSON_CreateString("0123456789abcdef"),
			    "15");
	expect_decode_error("warmup", cJSON_CreateNumber(-1), "-1");
	expect_decode_error("warmup", cJSON_CreateNumber(1.5), "1.5");
	expect_decode_error("lat_iterations", cJSON_CreateNumber(0x1p60),
			    "1152921504606846976");
	expect_decode_error("iterations", cJSON_CreateNumber(0x1p53 + 2),
			    "whole");
	expect_decode_error("queue_depth", cJSON_CreateNumber(0x1p32),
			    "out of range");
	expect_decode_error("size", cJSON_CreateNumber(0),
			    "size 0 out of range: accepted 1 to 1073741824");
	expect_decode_error("size", cJSON_CreateNumber(16), "atomics");
}

/* zerocopy travels only when true; a spec without it has it false. */
static void test_spec_zerocopy(void **state)
{
	struct rp_spec in, out;
	cJSON *obj;

	(void)state;
	rp_spec_defaults(&in);
	strcpy(in.transport, "tcp");
	obj = rp_proto_spec_encode(&in);
	assert_null(cJSON_GetObjectItem(obj, "zerocopy"));
	cJSON_Delete(obj);
	in.zerocopy = true;
	obj = rp_proto_spec_encode(&in);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(obj, "zerocopy")));
	assert_int_equal(rp_proto_spec_decode(obj, &out, NULL, 0), 0);
	assert_spec_equal(&in, &out);
	cJSON_Delete(obj);
}

/* tos travels only when set; a server refuses one beyond a byte. */
static void test_spec_tos(void **state)
{
	struct rp_spec in, out;
	char err[128] = "";
	cJSON *obj;

	(void)state;
	rp_spec_defaults(&in);
	strcpy(in.transport, "tcp");
	obj = rp_proto_spec_encode(&in);
	assert_null(cJSON_GetObjectItem(obj, "tos"));
	cJSON_Delete(obj);
	in.tos = 0x88;
	obj = rp_proto_spec_encode(&in);
	assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(obj, "tos")),
			 0x88);
	assert_int_equal(rp_proto_spec_decode(obj, &out, NULL, 0), 0);
	assert_spec_equal(&in, &out);
	cJSON_SetNumberValue(cJSON_GetObjectItem(obj, "tos"), 256);
	assert_int_not_equal(rp_proto_spec_decode(obj, &out, err, sizeof(err)),
			     0);
	assert_non_null(strstr(err, "tos 256 out of range: accepted 0 to 255"));
	cJSON_Delete(obj);
}

/* qp travels only when not rc, by name; uc with an op UC lacks, or a
 * type rdmaperf does not run, is refused. */
static void test_spec_qp(void **state)
{
	struct rp_spec in, out;
	char err[128] = "";
	cJSON *obj;

	(void)state;
	rp_spec_defaults(&in);
	strcpy(in.transport, "rdma");
	obj = rp_proto_spec_encode(&in);
	assert_null(cJSON_GetObjectItem(obj, "qp"));
	cJSON_Delete(obj);
	in.qp = RP_QP_UC;
	in.op = RP_OP_SEND;
	obj = rp_proto_spec_encode(&in);
	assert_string_equal(
		cJSON_GetStringValue(cJSON_GetObjectItem(obj, "qp")), "uc");
	assert_int_equal(rp_proto_spec_decode(obj, &out, NULL, 0), 0);
	assert_spec_equal(&in, &out);
	cJSON_ReplaceItemInObject(obj, "op", cJSON_CreateString("read"));
	assert_int_not_equal(rp_proto_spec_decode(obj, &out, err, sizeof(err)),
			     0);
	assert_non_null(strstr(err, "qp uc has no read"));
	cJSON_ReplaceItemInObject(obj, "op", cJSON_CreateString("write"));
	cJSON_AddBoolToObject(obj, "tagged", 1);
	assert_int_not_equal(rp_proto_spec_decode(obj, &out, err, sizeof(err)),
			     0);
	assert_non_null(strstr(err, "tagged is for send, not write"));
	cJSON_DeleteItemFromObject(obj, "tagged");
	/* ud: send alone, one packet (4096 bytes at most) */
	cJSON_ReplaceItemInObject(obj, "qp", cJSON_CreateString("ud"));
	assert_int_not_equal(rp_proto_spec_decode(obj, &out, err, sizeof(err)),
			     0);
	assert_non_null(strstr(err, "qp ud has no write: send alone"));
	cJSON_ReplaceItemInObject(obj, "op", cJSON_CreateString("send"));
	cJSON_ReplaceItemInObject(obj, "size", cJSON_CreateNumber(4096));
	assert_int_equal(rp_proto_spec_decode(obj, &out, err, sizeof(err)), 0);
	assert_int_equal(out.qp, RP_QP_UD);
	cJSON_ReplaceItemInObject(obj, "size", cJSON_CreateNumber(8192));
	assert_int_not_equal(rp_proto_spec_decode(obj, &out, err, sizeof(err)),
			     0);
	assert_non_null(strstr(err, "qp ud: a message is one packet"));
	cJSON_ReplaceItemInObject(obj, "qp", cJSON_CreateString("xrc"));
	assert_int_not_equal(rp_proto_spec_decode(obj, &out, err, sizeof(err)),
			     0);
	cJSON_Delete(obj);
}

/* ep_type travels only when not auto, by name; another name is refused. */
static void test_spec_ep_type(void **state)
{
	struct rp_spec in, out;
	char err[128] = "";
	cJSON *obj;

	(void)state;
	rp_spec_defaults(&in);
	strcpy(in.transport, "ofi:tcp");
	obj = rp_proto_spec_encode(&in);
	assert_null(cJSON_GetObjectItem(obj, "ep_type"));
	cJSON_Delete(obj);
	in.ep_type = RP_EP_MSG;
	obj = rp_proto_spec_encode(&in);
	assert_string_equal(
		cJSON_GetStringValue(cJSON_GetObjectItem(obj, "ep_type")),
		"msg");
	assert_int_equal(rp_proto_spec_decode(obj, &out, NULL, 0), 0);
	assert_spec_equal(&in, &out);
	cJSON_ReplaceItemInObject(obj, "ep_type", cJSON_CreateString("rdm"));
	assert_int_equal(rp_proto_spec_decode(obj, &out, NULL, 0), 0);
	assert_int_equal(out.ep_type, RP_EP_RDM);
	cJSON_ReplaceItemInObject(obj, "ep_type", cJSON_CreateString("dgram"));
	assert_int_not_equal(rp_proto_spec_decode(obj, &out, err, sizeof(err)),
			     0);
	assert_non_null(strstr(err, "ep_type"));
	cJSON_Delete(obj);
}

/* sl and flow_label travel only when asked for, within their bits. */
static void test_spec_path(void **state)
{
	struct rp_spec in, out;
	char err[160] = "";
	cJSON *obj;

	(void)state;
	rp_spec_defaults(&in);
	strcpy(in.transport, "rdma");
	obj = rp_proto_spec_encode(&in);
	assert_null(cJSON_GetObjectItem(obj, "sl"));
	assert_null(cJSON_GetObjectItem(obj, "flow_label"));
	cJSON_Delete(obj);
	in.sl = 15;
	in.flow_label = 0xfffff;
	obj = rp_proto_spec_encode(&in);
	assert_int_equal(rp_proto_spec_decode(obj, &out, NULL, 0), 0);
	assert_int_equal(out.sl, 15);
	assert_int_equal(out.flow_label, 0xfffff);
	cJSON_ReplaceItemInObject(obj, "sl", cJSON_CreateNumber(16));
	assert_int_not_equal(rp_proto_spec_decode(obj, &out, err, sizeof(err)),
			     0);
	assert_non_null(strstr(err, "sl"));
	cJSON_ReplaceItemInObject(obj, "sl", cJSON_CreateNumber(1));
	cJSON_ReplaceItemInObject(obj, "flow_label",
				  cJSON_CreateNumber(0x100000));
	assert_int_not_equal(rp_proto_spec_decode(obj, &out, err, sizeof(err)),
			     0);
	assert_non_null(strstr(err, "flow_label"));
	cJSON_ReplaceItemInObject(obj, "flow_label", cJSON_CreateNumber(7));
	cJSON_AddNumberToObject(obj, "path_mtu", 1000);
	assert_int_not_equal(rp_proto_spec_decode(obj, &out, err, sizeof(err)),
			     0);
	assert_non_null(strstr(err, "path_mtu 1000"));
	cJSON_ReplaceItemInObject(obj, "path_mtu", cJSON_CreateNumber(512));
	assert_int_equal(rp_proto_spec_decode(obj, &out, NULL, 0), 0);
	assert_int_equal(out.path_mtu, 512);
	cJSON_Delete(obj);
}

/* srq travels only when set; the server refuses what it cannot share:
 * an op without receives, bidir, UC, a size without srq or too large. */
static void test_spec_srq(void **state)
{
	struct rp_spec in, out;
	char err[160] = "";
	cJSON *obj;

	(void)state;
	rp_spec_defaults(&in);
	strcpy(in.transport, "rdma");
	in.op = RP_OP_SEND;
	obj = rp_proto_spec_encode(&in);
	assert_null(cJSON_GetObjectItem(obj, "srq"));
	cJSON_Delete(obj);
	in.srq = true;
	in.srq_size = 64;
	obj = rp_proto_spec_encode(&in);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(obj, "srq")));
	assert_int_equal(rp_proto_spec_decode(obj, &out, NULL, 0), 0);
	assert_spec_equal(&in, &out);
	cJSON_ReplaceItemInObject(obj, "op", cJSON_CreateString("write"));
	assert_int_not_equal(rp_proto_spec_decode(obj, &out, err, sizeof(err)),
			     0);
	assert_non_null(strstr(err, "srq is for operations that take"));
	cJSON_ReplaceItemInObject(obj, "op", cJSON_CreateString("write_imm"));
	assert_int_equal(rp_proto_spec_decode(obj, &out, NULL, 0), 0);
	cJSON_ReplaceItemInObject(obj, "bidir", cJSON_CreateBool(1));
	assert_int_not_equal(rp_proto_spec_decode(obj, &out, err, sizeof(err)),
			     0);
	assert_non_null(strstr(err, "not bidir"));
	cJSON_ReplaceItemInObject(obj, "bidir", cJSON_CreateBool(0));
	cJSON_DeleteItemFromObject(obj, "srq");
	assert_int_not_equal(rp_proto_spec_decode(obj, &out, err, sizeof(err)),
			     0);
	assert_non_null(strstr(err, "srq_size without srq"));
	cJSON_AddBoolToObject(obj, "srq", 1);
	cJSON_ReplaceItemInObject(obj, "size", cJSON_CreateNumber(1 << 30));
	cJSON_ReplaceItemInObject(obj, "srq_size", cJSON_CreateNumber(4096));
	cJSON_ReplaceItemInObject(obj, "queue_depth", cJSON_CreateNumber(1));
	assert_int_not_equal(rp_proto_spec_decode(obj, &out, err, sizeof(err)),
			     0);
	assert_non_null(strstr(err, "srq_size"));
	cJSON_Delete(obj);
}

static void test_spec_decode_lenient(void **state)
{
	struct rp_spec in = odd_spec(), out;
	cJSON *obj = rp_proto_spec_encode(&in);
	char err[128] = "";

	(void)state;
	assert_non_null(cJSON_AddStringToObject(obj, "future_field", "x"));
	assert_int_equal(rp_proto_spec_decode(obj, &out, err, sizeof(err)), 0);
	assert_spec_equal(&in, &out);
	cJSON_Delete(obj);
	obj = cJSON_CreateArray();
	assert_int_equal(rp_proto_spec_decode(obj, &out, NULL, 0), -EINVAL);
	cJSON_Delete(obj);
}

#define PAIR_TEST(f)                                                           \
	cmocka_unit_test_setup_teardown(f, setup_pair, teardown_pair)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hdr_layout),
		cmocka_unit_test(test_hdr_round_trip),
		cmocka_unit_test(test_hdr_bad_magic),
		cmocka_unit_test(test_hdr_version),
		cmocka_unit_test(test_hdr_type),
		cmocka_unit_test(test_hdr_length),
		cmocka_unit_test(test_body_parse),
		PAIR_TEST(test_round_trip),
		PAIR_TEST(test_empty_body),
		PAIR_TEST(test_big_message),
		PAIR_TEST(test_recv_timeout),
		PAIR_TEST(test_recv_timeout_partial),
		PAIR_TEST(test_send_timeout),
		PAIR_TEST(test_closed_before),
		PAIR_TEST(test_closed_mid_header),
		PAIR_TEST(test_closed_mid_body),
		PAIR_TEST(test_recv_bad_header),
		PAIR_TEST(test_send_errors),
		PAIR_TEST(test_error_message),
		cmocka_unit_test(test_error_hostile),
		cmocka_unit_test(test_strerror),
		cmocka_unit_test(test_spec_round_trip),
		cmocka_unit_test(test_spec_decode_errors),
		cmocka_unit_test(test_spec_decode_lenient),
		cmocka_unit_test(test_spec_zerocopy),
		cmocka_unit_test(test_spec_tos),
		cmocka_unit_test(test_spec_qp),
		cmocka_unit_test(test_spec_ep_type),
		cmocka_unit_test(test_spec_srq),
		cmocka_unit_test(test_spec_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
