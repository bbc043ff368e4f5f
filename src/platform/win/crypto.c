// SPDX-License-Identifier: MIT
/* Windows side of platform/crypto.h: CNG's BCrypt. */
#include <errno.h>
#include <limits.h>

#include <windows.h>

#include <bcrypt.h>

#include "platform/crypto.h"

/* One HMAC over an open provider: 0 or -EIO. */
static int hmac_with(BCRYPT_ALG_HANDLE alg, const void *key, size_t key_len,
		     const void *msg, size_t msg_len, uint8_t *out)
{
	BCRYPT_HASH_HANDLE h = NULL;
	int err = -EIO;

	if (BCryptCreateHash(alg, &h, NULL, 0, (PUCHAR)key, (ULONG)key_len, 0) <
	    0)
		return -EIO;
	if (BCryptHashData(h, (PUCHAR)msg, (ULONG)msg_len, 0) >= 0 &&
	    BCryptFinishHash(h, out, RP_HMAC_SHA256_BYTES, 0) >= 0)
		err = 0;
	BCryptDestroyHash(h);
	return err;
}

int rp_hmac_sha256(const void *key, size_t key_len, const void *msg,
		   size_t msg_len, uint8_t out[RP_HMAC_SHA256_BYTES])
{
	BCRYPT_ALG_HANDLE alg = NULL;
	int err;

	if (key_len > ULONG_MAX || msg_len > ULONG_MAX)
		return -EIO;
	if (BCryptOpenAlgorithmProvider(&alg, BCRYPT_SHA256_ALGORITHM, NULL,
					BCRYPT_ALG_HANDLE_HMAC_FLAG) < 0)
		return -EIO;
	err = hmac_with(alg, key, key_len, msg, msg_len, out);
	BCryptCloseAlgorithmProvider(alg, 0);
	return err;
}

void rp_crypto_wipe(void *p, size_t len)
{
	SecureZeroMemory(p, len);
}

int rp_crypto_random(void *buf, size_t len)
{
	if (len > ULONG_MAX ||
	    BCryptGenRandom(NULL, buf, (ULONG)len,
			    BCRYPT_USE_SYSTEM_PREFERRED_RNG) < 0)
		return -EIO;
	return 0;
}
