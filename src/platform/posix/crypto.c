// SPDX-License-Identifier: MIT
/* POSIX side of platform/crypto.h: OpenSSL's libcrypto. */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "platform/crypto.h"

int rp_hmac_sha256(const void *key, size_t key_len, const void *msg,
		   size_t msg_len, uint8_t out[RP_HMAC_SHA256_BYTES])
{
	unsigned int len = 0;

	if (key_len > INT_MAX ||
	    !HMAC(EVP_sha256(), key, (int)key_len, msg, msg_len, out, &len) ||
	    len != RP_HMAC_SHA256_BYTES)
		return -EIO;
	return 0;
}

void rp_crypto_wipe(void *p, size_t len)
{
	explicit_bzero(p, len);
}

int rp_crypto_random(void *buf, size_t len)
{
	return len > INT_MAX || RAND_bytes(buf, (int)len) != 1 ? -EIO : 0;
}
