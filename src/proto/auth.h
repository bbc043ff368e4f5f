/* SPDX-License-Identifier: MIT */
/*
 * --auth-key: both ends prove they hold the same key before anything else
 * is said, each over a fresh random challenge from the other (HMAC-SHA256,
 * from platform/crypto.h: libcrypto, or BCrypt on Windows). K the key, Nc
 * and Ns 32 random bytes each:
 *
 *   C -> S  HELLO {proto, auth: "hmac-sha256", nonce: hex(Nc)}
 *   S -> C  AUTH  {nonce: hex(Ns),
 *                  mac: hex(HMAC(K, "rdmaperf-server" || Nc || Ns))}
 *           the client checks mac: a server without K cannot make it
 *   C -> S  AUTH  {mac: hex(HMAC(K, "rdmaperf-client" || Ns || Nc))}
 *           the server checks mac, then answers HELLO with its host info
 *
 * The labels differ, so neither proof can be reflected to stand for the
 * other; each covers the other side's fresh nonce, so none can be
 * replayed. Whichever side finds a proof wrong (or missing: a client
 * without a key, a server that answers HELLO without AUTH) sends one
 * ERROR {code: "auth", message: "authentication failed"}, with no hint of
 * which side or why, and closes. A keyed client's HELLO carries nothing
 * about its host, and a keyed server says nothing about its own before
 * the client's proof. This authenticates the two ends; it does not
 * encrypt or protect the connection after the proof.
 */
#ifndef RP_PROTO_AUTH_H
#define RP_PROTO_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/err.h"
#include "platform/sock.h"

#define RP_AUTH_METHOD	    "hmac-sha256"
#define RP_AUTH_NONCE_BYTES 32
#define RP_AUTH_MAC_BYTES   32 /* SHA-256 */
#define RP_AUTH_FAILED	    "authentication failed"

/** Whose proof: the label that starts what the MAC covers. */
enum rp_auth_side {
	RP_AUTH_SERVER, /* "rdmaperf-server" || Nc || Ns */
	RP_AUTH_CLIENT, /* "rdmaperf-client" || Ns || Nc */
};

/**
 * rp_auth_proof - HMAC-SHA256 under @key of @side's label, then @first
 * and @second (RP_AUTH_NONCE_BYTES each: the nonce of the side that
 * checks this proof first).
 * Return: 0, or -EIO when the crypto library fails.
 */
int rp_auth_proof(const uint8_t *key, size_t key_len, enum rp_auth_side side,
		  const uint8_t *first, const uint8_t *second,
		  uint8_t out[RP_AUTH_MAC_BYTES]);

/**
 * rp_auth_client - the client's half, on a fresh control connection: send
 * HELLO with a fresh nonce (and nothing about this host), check the
 * server's AUTH, and build this side's AUTH into *@answer; the caller sends
 * it and the server answers HELLO (or ERROR auth).
 * @error: set, when the server answered ERROR (busy, auth...), to its body
 * (the caller deletes it).
 * @why: the reason of a failure, for this side's user only.
 * Return: 0; -EACCES when the server's proof is wrong or missing (the
 * server has been told ERROR auth); -EREMOTEIO with *@error; -ENOMEM;
 * -EIO (no random source, the crypto library); the errors of
 * rp_proto_send/recv.
 */
int rp_auth_client(rp_sock_t fd, const uint8_t *key, size_t key_len,
		   int timeout_ms, cJSON **answer, cJSON **error,
		   struct rp_err *why);

/**
 * rp_auth_server - the server's half, after the client's HELLO @hello:
 * send AUTH with a fresh nonce and this side's proof, then receive and
 * check the client's AUTH. Any failure but the client's own ERROR sends the
 * client one ERROR {"auth", RP_AUTH_FAILED} and nothing more.
 * @why: the reason of a failure, for the server's log.
 * Return: 0; -EACCES when the client's proof is wrong or missing;
 * -ECONNABORTED when the client sent ERROR; -ENOMEM; -EIO; the errors of
 * rp_proto_send/recv.
 */
int rp_auth_server(rp_sock_t fd, const uint8_t *key, size_t key_len,
		   const cJSON *hello, int timeout_ms, struct rp_err *why);

/* The text a data connection presents: RP_AUTH_STREAM_TOKEN_LEN bytes at
 * most (what fits a stream transport's token and an RC connect request's
 * private data), and its NUL. */
#define RP_AUTH_STREAM_TOKEN_LEN 32

/**
 * rp_auth_stream_token - what data stream @i of a test presents, from the
 * test's @token (the server's SETUP hands it out, fresh and random per
 * test): "TOKEN.I" without a key; with one, the hex of the first 16 bytes
 * of HMAC(K, "rdmaperf-stream" || TOKEN || I as 4 bytes, big-endian), so
 * that only a holder of the key can open a stream, and seeing one
 * stream's token (or SETUP, which travels in clear) does not give another.
 * Each stream's own token lets the server match a stream to its place
 * whatever order the connections arrive in.
 * @out: RP_AUTH_STREAM_TOKEN_LEN + 1 bytes at least (@len).
 * Return: 0; -EINVAL when @token or @out do not fit; -EIO when the crypto
 * library fails.
 */
int rp_auth_stream_token(const uint8_t *key, size_t key_len, const char *token,
			 unsigned int i, char *out, size_t len);

#endif
