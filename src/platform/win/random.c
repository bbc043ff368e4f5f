// SPDX-License-Identifier: MIT
/* Windows side of rp_random_bytes (platform/wait.h): the system's RNG. */
#include <errno.h>

#include "platform/crypto.h"
#include "platform/wait.h"

int rp_random_bytes(void *buf, size_t len)
{
	return rp_crypto_random(buf, len);
}
