/* SPDX-License-Identifier: MIT */
/*
 * The cryptography --auth-key needs: HMAC-SHA256, random bytes for nonces
 * and a comparison in constant time. POSIX: OpenSSL's libcrypto
 * (posix/crypto.c); Windows: CNG's BCrypt (win/crypto.c).
 */
#ifndef RP_PLATFORM_CRYPTO_H
#define RP_PLATFORM_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#define RP_HMAC_SHA256_BYTES 32

/**
 * rp_hmac_sha256 - HMAC-SHA256 of @msg (@msg_len bytes) under @key
 * (@key_len bytes, at least 1) into @out.
 * Return: 0, or -EIO when the crypto library fails.
 */
int rp_hmac_sha256(const void *key, size_t key_len, const void *msg,
		   size_t msg_len, uint8_t out[RP_HMAC_SHA256_BYTES]);

/**
 * rp_crypto_random - @len bytes from the crypto library's random
 * generator into @buf. Return: 0, or -EIO.
 */
int rp_crypto_random(void *buf, size_t len);

/** rp_crypto_wipe - zero @len bytes at @p (a secret), even if unread. */
void rp_crypto_wipe(void *p, size_t len);

/**
 * rp_crypto_memeq - whether @a and @b hold the same @len bytes, in a time
 * that does not depend on where they differ.
 */
static inline int rp_crypto_memeq(const void *a, const void *b, size_t len)
{
	const volatile uint8_t *x = a, *y = b;
	uint8_t d = 0;
	size_t i;

	for (i = 0; i < len; i++)
		d |= x[i] ^ y[i];
	return d == 0;
}

#endif
