// SPDX-License-Identifier: MIT
/*
 * --auth-key: the mutual challenge-response of auth.h over the control
 * connection. The crypto is the platform's (platform/crypto.h): HMAC-SHA256
 * for the proofs, its random generator for the nonces, a comparison in
 * constant time for a proof.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/safe.h"
#include "platform/crypto.h"
#include "proto/auth.h"
#include "proto/proto.h"

#define LABEL_BYTES 15 /* "rdmaperf-server", "rdmaperf-client" */
#define HEX_BYTES   (2 * RP_AUTH_NONCE_BYTES + 1)

static const char *const labels[] = {
	[RP_AUTH_SERVER] = "rdmaperf-server",
	[RP_AUTH_CLIENT] = "rdmaperf-client",
};

int rp_auth_proof(const uint8_t *key, size_t key_len, enum rp_auth_side side,
		  const uint8_t *first, const uint8_t *second,
		  uint8_t out[RP_AUTH_MAC_BYTES])
{
	uint8_t msg[LABEL_BYTES + 2 * RP_AUTH_NONCE_BYTES];

	memcpy(msg, labels[side], LABEL_BYTES);
	memcpy(msg + LABEL_BYTES, first, RP_AUTH_NONCE_BYTES);
	memcpy(msg + LABEL_BYTES + RP_AUTH_NONCE_BYTES, second,
	       RP_AUTH_NONCE_BYTES);
	return rp_hmac_sha256(key, key_len, msg, sizeof(msg), out);
}

/* ---- hex fields ------------------------------------------------------ */

/* @n bytes at @raw as 2 * @n hex digits and a NUL into @out. */
static void hex_bytes(const uint8_t *raw, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[raw[i] >> 4];
		out[2 * i + 1] = digits[raw[i] & 15];
	}
	out[2 * n] = '\0';
}

static void hex_encode(const uint8_t *raw, char out[HEX_BYTES])
{
	hex_bytes(raw, RP_AUTH_NONCE_BYTES, out);
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Field @name of @obj: exactly 32 bytes in hex, into @out. */
static bool get_hex(const cJSON *obj, const char *name, uint8_t *out)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(obj, name);
	const char *s = cJSON_IsString(f) ? f->valuestring : "";
	size_t i;
	int hi, lo;

	if (strlen(s) != 2 * RP_AUTH_NONCE_BYTES)
		return false;
	for (i = 0; i < RP_AUTH_NONCE_BYTES; i++) {
		hi = hex_digit(s[2 * i]);
		lo = hex_digit(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

static bool add_hex(cJSON *obj, const char *name, const uint8_t *raw)
{
	char hex[HEX_BYTES];

	hex_encode(raw, hex);
	return cJSON_AddStringToObject(obj, name, hex) != NULL;
}

/* ---- the exchange ---------------------------------------------------- */

static int new_nonce(uint8_t out[RP_AUTH_NONCE_BYTES], struct rp_err *why)
{
	if (rp_crypto_random(out, RP_AUTH_NONCE_BYTES))
		return rp_errf(why, -EIO, "no random source for a nonce");
	return 0;
}

/* Whether field "mac" of @msg is @side's proof over @first, @second. */
static int check_proof(const cJSON *msg, const uint8_t *key, size_t key_len,
		       enum rp_auth_side side, const uint8_t *first,
		       const uint8_t *second, struct rp_err *why)
{
	uint8_t want[RP_AUTH_MAC_BYTES], got[RP_AUTH_MAC_BYTES];
	const char *who = side == RP_AUTH_SERVER ? "server" : "client";
	int err = rp_auth_proof(key, key_len, side, first, second, want);

	if (err)
		return rp_errf(why, err, "HMAC-SHA256 failed");
	if (!get_hex(msg, "mac", got))
		return rp_errf(why, -EACCES, "the %s's AUTH has no proof", who);
	if (!rp_crypto_memeq(want, got, sizeof(want)))
		return rp_errf(why, -EACCES,
			       "the %s's proof is wrong: another key?", who);
	return 0;
}

/* The server's AUTH {nonce, mac}. */
static int send_auth(rp_sock_t fd, const uint8_t *nonce, const uint8_t *mac,
		     int timeout_ms, struct rp_err *why)
{
	cJSON *msg = cJSON_CreateObject();
	int err = -ENOMEM;

	if (msg && add_hex(msg, "nonce", nonce) && add_hex(msg, "mac", mac))
		err = rp_proto_send(fd, RP_MSG_AUTH, msg, timeout_ms);
	cJSON_Delete(msg);
	if (err)
		rp_errf(why, err, "sending AUTH: %s", rp_proto_strerror(err));
	return err;
}

/* The peer's next message into *@msg and *@type (AUTH, or what it said
 * instead), or why none came. */
static int recv_auth(rp_sock_t fd, int timeout_ms, cJSON **msg, uint16_t *type,
		     struct rp_err *why)
{
	int err = rp_proto_recv(fd, timeout_ms, type, msg);

	return err ? rp_errf(why, err, "waiting for AUTH: %s",
			     rp_proto_strerror(err))
		   : 0;
}

/* The server's answer to HELLO: AUTH into *@msg, or why not. */
static int recv_server_auth(rp_sock_t fd, int timeout_ms, cJSON **msg,
			    cJSON **error, struct rp_err *why)
{
	uint16_t type;
	int err = recv_auth(fd, timeout_ms, msg, &type, why);

	if (err || type == RP_MSG_AUTH)
		return err;
	if (type == RP_MSG_ERROR) {
		*error = *msg;
		*msg = NULL;
		return rp_errf(why, -EREMOTEIO, "the server sent ERROR");
	}
	cJSON_Delete(*msg);
	*msg = NULL;
	if (type == RP_MSG_HELLO)
		return rp_errf(why, -EACCES,
			       "the server does not authenticate (it has no "
			       "--auth-key)");
	return rp_errf(why, -EACCES, "the server answered %s, not AUTH",
		       rp_proto_type_name(type));
}

static int send_client_hello(rp_sock_t fd, const uint8_t *nonce, int timeout_ms,
			     struct rp_err *why)
{
	cJSON *hello = cJSON_CreateObject();
	int err = -ENOMEM;

	if (hello &&
	    cJSON_AddNumberToObject(hello, "proto", RP_PROTO_VERSION) &&
	    cJSON_AddStringToObject(hello, "auth", RP_AUTH_METHOD) &&
	    add_hex(hello, "nonce", nonce))
		err = rp_proto_send(fd, RP_MSG_HELLO, hello, timeout_ms);
	cJSON_Delete(hello);
	if (err)
		rp_errf(why, err, "sending HELLO: %s", rp_proto_strerror(err));
	return err;
}

/* The client's proof, once the server's checked out: AUTH {mac}. */
static int client_answer(const uint8_t *key, size_t key_len, const uint8_t *nc,
			 const uint8_t *ns, cJSON **answer, struct rp_err *why)
{
	uint8_t mac[RP_AUTH_MAC_BYTES];
	int err = rp_auth_proof(key, key_len, RP_AUTH_CLIENT, ns, nc, mac);

	if (err)
		return rp_errf(why, err, "HMAC-SHA256 failed");
	*answer = cJSON_CreateObject();
	if (!*answer || !add_hex(*answer, "mac", mac)) {
		cJSON_Delete(*answer);
		*answer = NULL;
		return rp_errf(why, -ENOMEM, "out of memory");
	}
	return 0;
}

int rp_auth_client(rp_sock_t fd, const uint8_t *key, size_t key_len,
		   int timeout_ms, cJSON **answer, cJSON **error,
		   struct rp_err *why)
{
	uint8_t nc[RP_AUTH_NONCE_BYTES], ns[RP_AUTH_NONCE_BYTES];
	cJSON *msg = NULL;
	int err;

	*answer = *error = NULL;
	err = new_nonce(nc, why);
	if (!err)
		err = send_client_hello(fd, nc, timeout_ms, why);
	if (!err)
		err = recv_server_auth(fd, timeout_ms, &msg, error, why);
	if (!err && !get_hex(msg, "nonce", ns))
		err = rp_errf(why, -EACCES, "the server's AUTH has no nonce");
	if (!err)
		err = check_proof(msg, key, key_len, RP_AUTH_SERVER, nc, ns,
				  why);
	if (!err)
		err = client_answer(key, key_len, nc, ns, answer, why);
	cJSON_Delete(msg);
	if (err == -EACCES)
		rp_proto_send_error(fd, "auth", RP_AUTH_FAILED);
	return err;
}

/* The client's nonce from its HELLO; none: it has no key. */
static int client_nonce(const cJSON *hello, uint8_t *nc, struct rp_err *why)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(hello, "auth");
	char asked[48]; /* the peer's: shown safe, and short */

	if (!cJSON_IsString(m))
		return rp_errf(why, -EACCES,
			       "the client did not authenticate (no "
			       "--auth-key)");
	if (strcmp(m->valuestring, RP_AUTH_METHOD)) {
		rp_safe_text(asked, sizeof(asked), m->valuestring);
		return rp_errf(why, -EACCES, "the client asked for auth '%s'",
			       asked);
	}
	if (!get_hex(hello, "nonce", nc))
		return rp_errf(why, -EACCES, "the client's HELLO has no nonce");
	return 0;
}

/* The client's ERROR instead of its AUTH: it gave up, or (code "auth")
 * found this server's proof wrong. */
static int client_gave_up(const cJSON *error, struct rp_err *why)
{
	const char *code = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(error, "code"));
	char text[200];

	if (code && !strcmp(code, "auth"))
		return rp_errf(why, -ECONNABORTED,
			       "the client found this server's proof wrong: "
			       "another key?");
	rp_proto_error_text(error, text, sizeof(text));
	return rp_errf(why, -ECONNABORTED, "client error: %s", text);
}

/* The client's answer to the server's AUTH: its own AUTH into *@msg. */
static int recv_client_auth(rp_sock_t fd, int timeout_ms, cJSON **msg,
			    struct rp_err *why)
{
	uint16_t type;
	int err = recv_auth(fd, timeout_ms, msg, &type, why);

	if (err || type == RP_MSG_AUTH)
		return err;
	if (type == RP_MSG_ERROR)
		err = client_gave_up(*msg, why);
	else
		err = rp_errf(why, -EACCES, "the client answered %s, not AUTH",
			      rp_proto_type_name(type));
	cJSON_Delete(*msg);
	*msg = NULL;
	return err;
}

int rp_auth_server(rp_sock_t fd, const uint8_t *key, size_t key_len,
		   const cJSON *hello, int timeout_ms, struct rp_err *why)
{
	uint8_t nc[RP_AUTH_NONCE_BYTES], ns[RP_AUTH_NONCE_BYTES];
	uint8_t mac[RP_AUTH_MAC_BYTES];
	cJSON *msg = NULL;
	int err;

	err = client_nonce(hello, nc, why);
	if (!err)
		err = new_nonce(ns, why);
	if (!err &&
	    (err = rp_auth_proof(key, key_len, RP_AUTH_SERVER, nc, ns, mac)))
		rp_errf(why, err, "HMAC-SHA256 failed");
	if (!err)
		err = send_auth(fd, ns, mac, timeout_ms, why);
	if (!err)
		err = recv_client_auth(fd, timeout_ms, &msg, why);
	if (!err)
		err = check_proof(msg, key, key_len, RP_AUTH_CLIENT, ns, nc,
				  why);
	cJSON_Delete(msg);
	if (err && err != -ECONNABORTED)
		rp_proto_send_error(fd, "auth", RP_AUTH_FAILED);
	return err;
}

/* ---- data streams ---------------------------------------------------- */

#define STREAM_LABEL	  "rdmaperf-stream"
#define STREAM_TOKEN_TEXT 24 /* token text a stream's MAC covers, at most */
#define STREAM_MAC_BYTES  (RP_AUTH_STREAM_TOKEN_LEN / 2)

int rp_auth_stream_token(const uint8_t *key, size_t key_len, const char *token,
			 unsigned int i, char *out, size_t len)
{
	uint8_t msg[sizeof(STREAM_LABEL) - 1 + STREAM_TOKEN_TEXT + 4];
	uint8_t mac[RP_AUTH_MAC_BYTES];
	size_t tlen = strlen(token), n = sizeof(STREAM_LABEL) - 1, k;
	int err;

	if (tlen > STREAM_TOKEN_TEXT || len <= RP_AUTH_STREAM_TOKEN_LEN)
		return -EINVAL;
	if (!key_len)
		return snprintf(out, len, "%s.%u", token, i) >
				       RP_AUTH_STREAM_TOKEN_LEN
			       ? -EINVAL
			       : 0;
	memcpy(msg, STREAM_LABEL, n);
	memcpy(msg + n, token, tlen);
	n += tlen;
	for (k = 0; k < 4; k++)
		msg[n++] = (uint8_t)(i >> (24 - 8 * k));
	err = rp_hmac_sha256(key, key_len, msg, n, mac);
	if (err)
		return err;
	hex_bytes(mac, STREAM_MAC_BYTES, out);
	return 0;
}
