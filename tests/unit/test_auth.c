// SPDX-License-Identifier: MIT
/*
 * Unit tests of proto/auth: the proof's exact bytes, and the exchange over
 * a socketpair, real client against real server (the same key, different
 * keys) and each against a hand-played peer: one without a key, a
 * replayed, altered or reflected proof, a server whose proof is wrong.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "sockpair.h"

#include "proto/auth.h"
#include "proto/proto.h"

#define T_MS 5000
#define KEY  ((const uint8_t *)"correct horse battery staple")
#define KEY2 ((const uint8_t *)"correct horse battery stapler")

static size_t klen(const uint8_t *k)
{
	return strlen((const char *)k);
}

/* ---- the two ends ---------------------------------------------------- */

/* The real server on sv[1], in a thread: HELLO, then rp_auth_server. */
struct server_run {
	pthread_t thread;
	int fd;
	const uint8_t *key;
	size_t key_len;
	int err;
	struct rp_err why;
};

static void *server_main(void *arg)
{
	struct server_run *r = arg;
	cJSON *hello = NULL;
	uint16_t type = 0;

	r->err = rp_proto_recv(r->fd, T_MS, &type, &hello);
	if (!r->err && type != RP_MSG_HELLO)
		r->err = -EPROTO;
	if (!r->err)
		r->err = rp_auth_server(r->fd, r->key, r->key_len, hello, T_MS,
					&r->why);
	cJSON_Delete(hello);
	return NULL;
}

static void server_start(struct server_run *r, int fd, const uint8_t *key)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->key = key;
	r->key_len = klen(key);
	assert_int_equal(pthread_create(&r->thread, NULL, server_main, r), 0);
}

static int server_join(struct server_run *r)
{
	assert_int_equal(pthread_join(r->thread, NULL), 0);
	return r->err;
}

/* The real client on sv[0], in a thread: rp_auth_client, then its AUTH. */
struct client_run {
	pthread_t thread;
	int fd;
	const uint8_t *key;
	int err;
	cJSON *error;
	struct rp_err why;
};

static void *client_main(void *arg)
{
	struct client_run *r = arg;
	cJSON *answer = NULL;

	r->err = rp_auth_client(r->fd, r->key, klen(r->key), T_MS, &answer,
				&r->error, &r->why);
	if (!r->err)
		r->err = rp_proto_send(r->fd, RP_MSG_AUTH, answer, T_MS);
	cJSON_Delete(answer);
	return NULL;
}

static void client_start(struct client_run *r, int fd, const uint8_t *key)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->key = key;
	assert_int_equal(pthread_create(&r->thread, NULL, client_main, r), 0);
}

static int client_join(struct client_run *r)
{
	assert_int_equal(pthread_join(r->thread, NULL), 0);
	return r->err;
}

/* ---- a hand-played peer ---------------------------------------------- */

static void hex(const uint8_t *raw, char *out)
{
	size_t i;

	for (i = 0; i < RP_AUTH_NONCE_BYTES; i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
}

static void send_msg(int fd, uint16_t type, const char *json)
{
	cJSON *obj = cJSON_Parse(json);

	assert_non_null(obj);
	assert_int_equal(rp_proto_send(fd, type, obj, T_MS), 0);
	cJSON_Delete(obj);
}

static cJSON *recv_msg(int fd, uint16_t want)
{
	cJSON *body = NULL;
	uint16_t type = 0;

	assert_int_equal(rp_proto_recv(fd, T_MS, &type, &body), 0);
	assert_int_equal(type, want);
	return body;
}

static void get_hex(const cJSON *obj, const char *name, uint8_t *out)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(obj, name);
	size_t i;
	unsigned int b;

	assert_true(cJSON_IsString(f));
	assert_int_equal(strlen(f->valuestring), 2 * RP_AUTH_NONCE_BYTES);
	for (i = 0; i < RP_AUTH_NONCE_BYTES; i++) {
		assert_int_equal(sscanf(f->valuestring + 2 * i, "%2x", &b), 1);
		out[i] = (uint8_t)b;
	}
}

/* One ERROR {auth, "authentication failed"} on @fd, and nothing after. */
static void expect_auth_error(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	cJSON *e = recv_msg(fd, RP_MSG_ERROR);
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(e, "code");
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(e, "message");

	assert_true(cJSON_IsString(code) && cJSON_IsString(msg));
	assert_string_equal(code->valuestring, "auth");
	assert_string_equal(msg->valuestring, RP_AUTH_FAILED);
	assert_int_equal(cJSON_GetArraySize(e), 2); /* no hint */
	cJSON_Delete(e);
	assert_int_equal(poll(&pfd, 1, 50), 0);
}

/* A client's HELLO with nonce @nc, as the hand-played client sends it. */
static void send_hello(int fd, const uint8_t *nc)
{
	char json[200], h[2 * RP_AUTH_NONCE_BYTES + 1];

	hex(nc, h);
	snprintf(json, sizeof(json),
		 "{\"proto\": %d, \"auth\": \"hmac-sha256\", \"nonce\": "
		 "\"%s\"}",
		 RP_PROTO_VERSION, h);
	send_msg(fd, RP_MSG_HELLO, json);
}

static void send_mac(int fd, const uint8_t *mac)
{
	char json[120], h[2 * RP_AUTH_MAC_BYTES + 1];

	hex(mac, h);
	snprintf(json, sizeof(json), "{\"mac\": \"%s\"}", h);
	send_msg(fd, RP_MSG_AUTH, json);
}

/* Play a client up to the server's AUTH: its nonce into @ns, after
 * checking its proof. */
static void client_until_auth(int fd, const uint8_t *nc, uint8_t *ns)
{
	uint8_t mac[RP_AUTH_MAC_BYTES], want[RP_AUTH_MAC_BYTES];
	cJSON *a;

	send_hello(fd, nc);
	a = recv_msg(fd, RP_MSG_AUTH);
	get_hex(a, "nonce", ns);
	get_hex(a, "mac", mac);
	assert_int_equal(cJSON_GetArraySize(a), 2); /* no host info */
	cJSON_Delete(a);
	assert_int_equal(
		rp_auth_proof(KEY, klen(KEY), RP_AUTH_SERVER, nc, ns, want), 0);
	assert_memory_equal(mac, want, sizeof(mac));
}

/* ---- tests ----------------------------------------------------------- */

/* The wire format: HMAC-SHA256(K, label || first || second), as Python's
 * hmac module computes it. */
static void test_proof_bytes(void **state)
{
	static const char *const want[] = {
		[RP_AUTH_SERVER] = "984198a6be7c2f1365c8913fe3018066"
				   "199f73988ba4a09eda7991c0bc96afe2",
		[RP_AUTH_CLIENT] = "e5f9480fdb12f4d78f17a80d9c9ec4e3"
				   "b6f3b0d00535cdba05f0839e86323416",
	};
	uint8_t a[RP_AUTH_NONCE_BYTES], b[RP_AUTH_NONCE_BYTES];
	uint8_t mac[RP_AUTH_MAC_BYTES];
	char h[2 * RP_AUTH_MAC_BYTES + 1];
	int side;

	(void)state;
	memset(a, 0, sizeof(a));
	memset(b, 1, sizeof(b));
	for (side = RP_AUTH_SERVER; side <= RP_AUTH_CLIENT; side++) {
		assert_int_equal(rp_auth_proof((const uint8_t *)"key", 3,
					       (enum rp_auth_side)side, a, b,
					       mac),
				 0);
		hex(mac, h);
		assert_string_equal(h, want[side]);
	}
}

static void test_same_key(void **state)
{
	int *sv = *state;
	struct server_run s;
	struct client_run c;

	server_start(&s, sv[1], KEY);
	client_start(&c, sv[0], KEY);
	assert_int_equal(client_join(&c), 0);
	assert_int_equal(server_join(&s), 0);
	assert_null(c.error);
}

/* The client finds the server's proof wrong first, and says only that. */
static void test_different_keys(void **state)
{
	int *sv = *state;
	struct server_run s;
	struct client_run c;

	server_start(&s, sv[1], KEY);
	client_start(&c, sv[0], KEY2);
	assert_int_equal(client_join(&c), -EACCES);
	assert_int_equal(server_join(&s), -ECONNABORTED);
	assert_non_null(strstr(c.why.msg, "proof is wrong"));
	assert_non_null(strstr(s.why.msg, "this server's proof wrong"));
}

/* A client without a key: a plain HELLO gets one ERROR, no host info. */
static void test_client_without_key(void **state)
{
	int *sv = *state;
	struct server_run s;

	server_start(&s, sv[1], KEY);
	send_msg(sv[0], RP_MSG_HELLO, "{\"proto\": 512, \"hostname\": \"c\"}");
	assert_int_equal(server_join(&s), -EACCES);
	expect_auth_error(sv[0]);
	assert_non_null(strstr(s.why.msg, "did not authenticate"));
}

static void test_client_other_method(void **state)
{
	int *sv = *state;
	struct server_run s;

	server_start(&s, sv[1], KEY);
	send_msg(sv[0], RP_MSG_HELLO,
		 "{\"auth\": \"none\", \"nonce\": \"00\"}");
	assert_int_equal(server_join(&s), -EACCES);
	expect_auth_error(sv[0]);
}

/* A server without a key answers HELLO with HELLO: the client refuses. */
static void test_server_without_key(void **state)
{
	int *sv = *state;
	struct client_run c;
	cJSON *hello;

	client_start(&c, sv[0], KEY);
	hello = recv_msg(sv[1], RP_MSG_HELLO);
	assert_null(cJSON_GetObjectItemCaseSensitive(hello, "hostname"));
	assert_string_equal(
		cJSON_GetObjectItemCaseSensitive(hello, "auth")->valuestring,
		RP_AUTH_METHOD);
	cJSON_Delete(hello);
	send_msg(sv[1], RP_MSG_HELLO, "{\"proto\": 512, \"hostname\": \"s\"}");
	assert_int_equal(client_join(&c), -EACCES);
	assert_non_null(strstr(c.why.msg, "does not authenticate"));
	expect_auth_error(sv[1]);
}

/* A proof from an earlier session does not open a later one. */
static void test_replayed_mac(void **state)
{
	uint8_t nc[RP_AUTH_NONCE_BYTES], ns1[RP_AUTH_NONCE_BYTES];
	uint8_t ns2[RP_AUTH_NONCE_BYTES], mac[RP_AUTH_MAC_BYTES];
	int *sv = *state;
	struct server_run s;

	memset(nc, 0x5a, sizeof(nc));
	server_start(&s, sv[1], KEY);
	client_until_auth(sv[0], nc, ns1);
	assert_int_equal(
		rp_auth_proof(KEY, klen(KEY), RP_AUTH_CLIENT, ns1, nc, mac), 0);
	send_mac(sv[0], mac);
	assert_int_equal(server_join(&s), 0);

	server_start(&s, sv[1], KEY); /* the same client nonce, again */
	client_until_auth(sv[0], nc, ns2);
	assert_memory_not_equal(ns1, ns2, sizeof(ns1));
	send_mac(sv[0], mac);
	assert_int_equal(server_join(&s), -EACCES);
	expect_auth_error(sv[0]);
}

static void altered(int *sv, const char *json_mac)
{
	uint8_t nc[RP_AUTH_NONCE_BYTES], ns[RP_AUTH_NONCE_BYTES];
	struct server_run s;

	memset(nc, 7, sizeof(nc));
	server_start(&s, sv[1], KEY);
	client_until_auth(sv[0], nc, ns);
	send_msg(sv[0], RP_MSG_AUTH, json_mac);
	assert_int_equal(server_join(&s), -EACCES);
	expect_auth_error(sv[0]);
}

static void test_altered_mac(void **state)
{
	uint8_t nc[RP_AUTH_NONCE_BYTES], ns[RP_AUTH_NONCE_BYTES];
	uint8_t mac[RP_AUTH_MAC_BYTES];
	int *sv = *state;
	struct server_run s;

	memset(nc, 7, sizeof(nc));
	server_start(&s, sv[1], KEY);
	client_until_auth(sv[0], nc, ns);
	assert_int_equal(
		rp_auth_proof(KEY, klen(KEY), RP_AUTH_CLIENT, ns, nc, mac), 0);
	mac[RP_AUTH_MAC_BYTES - 1] ^= 1;
	send_mac(sv[0], mac);
	assert_int_equal(server_join(&s), -EACCES);
	expect_auth_error(sv[0]);
	assert_non_null(strstr(s.why.msg, "the client's proof is wrong"));
	altered(sv, "{}");
	altered(sv, "{\"mac\": \"zz\"}");
	altered(sv, "{\"mac\": 12}");
	altered(sv, "{\"mac\": \"0123456789abcdef0123456789abcdef0123456789ab"
		    "cdef0123456789abcdeg\"}");
}

/* The server's own proof sent back as the client's: the labels differ. */
static void test_reflected_mac(void **state)
{
	uint8_t nc[RP_AUTH_NONCE_BYTES], ns[RP_AUTH_NONCE_BYTES];
	uint8_t mac[RP_AUTH_MAC_BYTES];
	int *sv = *state;
	struct server_run s;

	memset(nc, 9, sizeof(nc));
	server_start(&s, sv[1], KEY);
	client_until_auth(sv[0], nc, ns);
	assert_int_equal(
		rp_auth_proof(KEY, klen(KEY), RP_AUTH_SERVER, ns, nc, mac), 0);
	send_mac(sv[0], mac);
	assert_int_equal(server_join(&s), -EACCES);
	expect_auth_error(sv[0]);
}

/* A server whose proof is wrong: the client tells it nothing more. */
static void wrong_server(int *sv, const char *how)
{
	uint8_t nc[RP_AUTH_NONCE_BYTES], ns[RP_AUTH_NONCE_BYTES];
	uint8_t mac[RP_AUTH_MAC_BYTES];
	char json[300], hn[2 * RP_AUTH_NONCE_BYTES + 1];
	char hm[2 * RP_AUTH_MAC_BYTES + 1];
	struct client_run c;
	cJSON *hello;

	client_start(&c, sv[0], KEY);
	hello = recv_msg(sv[1], RP_MSG_HELLO);
	get_hex(hello, "nonce", nc);
	cJSON_Delete(hello);
	memset(ns, 3, sizeof(ns));
	if (!strcmp(how, "other key"))
		rp_auth_proof(KEY2, klen(KEY2), RP_AUTH_SERVER, nc, ns, mac);
	else if (!strcmp(how, "client label"))
		rp_auth_proof(KEY, klen(KEY), RP_AUTH_CLIENT, nc, ns, mac);
	else /* the nonces the wrong way round */
		rp_auth_proof(KEY, klen(KEY), RP_AUTH_SERVER, ns, nc, mac);
	hex(ns, hn);
	hex(mac, hm);
	snprintf(json, sizeof(json), "{\"nonce\": \"%s\", \"mac\": \"%s\"}", hn,
		 hm);
	send_msg(sv[1], RP_MSG_AUTH, json);
	assert_int_equal(client_join(&c), -EACCES);
	expect_auth_error(sv[1]);
}

static void test_server_wrong_mac(void **state)
{
	wrong_server(*state, "other key");
	wrong_server(*state, "client label");
	wrong_server(*state, "swapped");
}

static void test_server_no_nonce(void **state)
{
	int *sv = *state;
	struct client_run c;

	client_start(&c, sv[0], KEY);
	cJSON_Delete(recv_msg(sv[1], RP_MSG_HELLO));
	send_msg(sv[1], RP_MSG_AUTH, "{\"mac\": \"00\"}");
	assert_int_equal(client_join(&c), -EACCES);
	expect_auth_error(sv[1]);
}

/* Another ERROR (busy) reaches the caller as it came. */
static void test_server_error(void **state)
{
	int *sv = *state;
	struct client_run c;

	client_start(&c, sv[0], KEY);
	cJSON_Delete(recv_msg(sv[1], RP_MSG_HELLO));
	send_msg(sv[1], RP_MSG_ERROR,
		 "{\"code\": \"busy\", \"message\": \"x\"}");
	assert_int_equal(client_join(&c), -EREMOTEIO);
	assert_non_null(c.error);
	assert_string_equal(
		cJSON_GetObjectItemCaseSensitive(c.error, "code")->valuestring,
		"busy");
	cJSON_Delete(c.error);
}

static void test_peer_gone(void **state)
{
	int *sv = *state;
	struct client_run c;

	client_start(&c, sv[0], KEY);
	cJSON_Delete(recv_msg(sv[1], RP_MSG_HELLO));
	shutdown(sv[1], SHUT_RDWR);
	assert_int_equal(client_join(&c), -ECONNRESET);
	assert_null(c.error);
}

/* Each data stream's token: "TOKEN.i" without a key; with one, the first
 * 16 bytes of HMAC(K, "rdmaperf-stream" || TOKEN || be32(i)) in hex (the
 * value from Python's hmac), different per stream; a token or a buffer
 * that does not fit is refused. */
static void test_stream_tokens(void **state)
{
	const uint8_t key[32] = "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk";
	const char *tok = "0123456789abcdef01234567";
	char a[RP_AUTH_STREAM_TOKEN_LEN + 1], b[sizeof(a)];

	(void)state;
	assert_int_equal(rp_auth_stream_token(NULL, 0, tok, 7, a, sizeof(a)),
			 0);
	assert_string_equal(a, "0123456789abcdef01234567.7");
	assert_int_equal(rp_auth_stream_token(key, 32, tok, 3, a, sizeof(a)),
			 0);
	assert_string_equal(a, "d029a32c6d35e9482bae72d3982d5f46");
	assert_int_equal(rp_auth_stream_token(key, 32, tok, 4, b, sizeof(b)),
			 0);
	assert_string_not_equal(a, b);
	assert_int_equal(rp_auth_stream_token(key, 32,
					      "0123456789abcdef012345678", 0, a,
					      sizeof(a)),
			 -EINVAL);
	assert_int_equal(rp_auth_stream_token(NULL, 0, tok, 0, a, 32), -EINVAL);
}

#define PAIR_TEST(f)                                                           \
	cmocka_unit_test_setup_teardown(f, setup_pair, teardown_pair)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proof_bytes),
		cmocka_unit_test(test_stream_tokens),
		PAIR_TEST(test_same_key),
		PAIR_TEST(test_different_keys),
		PAIR_TEST(test_client_without_key),
		PAIR_TEST(test_client_other_method),
		PAIR_TEST(test_server_without_key),
		PAIR_TEST(test_replayed_mac),
		PAIR_TEST(test_altered_mac),
		PAIR_TEST(test_reflected_mac),
		PAIR_TEST(test_server_wrong_mac),
		PAIR_TEST(test_server_no_nonce),
		PAIR_TEST(test_server_error),
		PAIR_TEST(test_peer_gone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
