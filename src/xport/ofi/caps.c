// SPDX-License-Identifier: MIT
/*
 * What needs no provider: the provider an -x entry names, the operations
 * a provider's capabilities grant (ofi_ops[].caps), the names a report
 * shows, and the hex form fi_getname's bytes travel in. Pure functions.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "xport/ofi/ofi.h"

/* "ofi:tcp" -> "tcp"; "ofi" -> NULL (the default provider). */
const char *ofi_provider_of(const char *transport)
{
	const char *colon = strchr(transport, ':');

	return colon && colon[1] ? colon + 1 : NULL;
}

uint32_t ofi_ops_granted(uint64_t caps, size_t cq_data_size)
{
	uint32_t mask = 0;
	int op;

	for (op = 0; op < RP_OP__COUNT; op++)
		if ((caps & ofi_ops[op].caps) == ofi_ops[op].caps &&
		    (!ofi_ops[op].cq_data || cq_data_size >= 4))
			mask |= RP_OP_BIT(op);
	return mask;
}

const char *ofi_ep_type_name(enum fi_ep_type t)
{
	switch (t) {
	case FI_EP_MSG:
		return "FI_EP_MSG";
	case FI_EP_RDM:
		return "FI_EP_RDM";
	case FI_EP_DGRAM:
		return "FI_EP_DGRAM";
	default:
		return "unknown";
	}
}

static const struct {
	int bit;
	const char *name;
} mr_bits[] = {
	{ FI_MR_LOCAL, "FI_MR_LOCAL" },
	{ FI_MR_RAW, "FI_MR_RAW" },
	{ FI_MR_VIRT_ADDR, "FI_MR_VIRT_ADDR" },
	{ FI_MR_ALLOCATED, "FI_MR_ALLOCATED" },
	{ FI_MR_PROV_KEY, "FI_MR_PROV_KEY" },
	{ FI_MR_MMU_NOTIFY, "FI_MR_MMU_NOTIFY" },
	{ FI_MR_RMA_EVENT, "FI_MR_RMA_EVENT" },
	{ FI_MR_ENDPOINT, "FI_MR_ENDPOINT" },
	{ FI_MR_HMEM, "FI_MR_HMEM" },
	{ FI_MR_COLLECTIVE, "FI_MR_COLLECTIVE" },
};

/* "FI_MR_LOCAL|FI_MR_VIRT_ADDR", or "none". */
const char *ofi_mr_mode_text(int mode, char *buf, size_t len)
{
	size_t i, at = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(mr_bits) / sizeof(mr_bits[0]); i++)
		if (mode & mr_bits[i].bit && at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
					       at ? "|" : "", mr_bits[i].name);
	if (!buf[0])
		snprintf(buf, len, "none");
	return buf;
}

int ofi_hex_encode(const uint8_t *in, size_t n, char *out, size_t len)
{
	size_t i;

	if (2 * n + 1 > len)
		return -ENOSPC;
	for (i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", in[i]);
	out[2 * n] = '\0';
	return 0;
}

static int nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* @in (even length, lower-case hex) into at most @len bytes, @n of them. */
int ofi_hex_decode(const char *in, uint8_t *out, size_t len, size_t *n)
{
	size_t i, l = strlen(in);
	int hi, lo;

	if (!l || l % 2 || l / 2 > len)
		return -EINVAL;
	for (i = 0; i < l / 2; i++) {
		hi = nibble(in[2 * i]);
		lo = nibble(in[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	*n = l / 2;
	return 0;
}
