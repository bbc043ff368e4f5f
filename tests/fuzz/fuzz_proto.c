// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the control protocol decoders. The input is a byte
 * stream as a receiver would see it: header, body, header, body, ... Each
 * header is decoded (and must re-encode to the same bytes), each body parsed
 * from an exact-size copy so that AddressSanitizer catches any read past its
 * length, and an object body is decoded as a spec; a spec that decodes must
 * survive encode and decode unchanged. Decoding stops at the first error, as
 * rp_proto_recv does.
 *
 * Built with clang -fsanitize=fuzzer for fuzzing, or with replay.c as a plain
 * program that CTest runs over the seed corpus.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool spec_equal(const struct rp_spec *a, const struct rp_spec *b)
{
	return !strcmp(a->transport, b->transport) && a->op == b->op &&
	       a->size_bytes == b->size_bytes &&
	       a->queue_depth == b->queue_depth &&
	       a->iterations == b->iterations &&
	       a->duration_ns == b->duration_ns && a->warmup == b->warmup &&
	       a->lat_iterations == b->lat_iterations &&
	       a->latency == b->latency && a->bandwidth == b->bandwidth &&
	       a->verify == b->verify;
}

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
	if (rp_proto_spec_decode(enc, &again, err, sizeof(err)) ||
	    !spec_equal(&s, &again))
		abort();
	cJSON_Delete(enc);
}

static void check_body(const uint8_t *data, uint32_t len)
{
	char *copy = malloc(len ? len : 1);
	char text[128];
	cJSON *body;

	if (!copy)
		return;
	if (len)
		memcpy(copy, data, len);
	if (!rp_proto_body_parse(copy, len, &body)) {
		rp_proto_error_text(body, text, sizeof(text));
		check_spec(body);
		cJSON_Delete(body);
	}
	free(copy);
}

/* One message at @data; return its length, or 0 to stop the stream. */
static size_t one_message(const uint8_t *data, size_t size)
{
	uint8_t again[RP_PROTO_HDR_LEN];
	struct rp_msg_hdr h;

	if (size < RP_PROTO_HDR_LEN || rp_proto_hdr_decode(data, &h))
		return 0;
	rp_proto_hdr_encode(&h, again);
	if (memcmp(again, data, RP_PROTO_HDR_LEN))
		abort();
	if (!strcmp(rp_proto_type_name(h.type), "UNKNOWN"))
		abort();
	if (h.length > size - RP_PROTO_HDR_LEN)
		return 0; /* truncated: rp_proto_recv would wait, then fail */
	check_body(data + RP_PROTO_HDR_LEN, h.length);
	return RP_PROTO_HDR_LEN + h.length;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n;

	while ((n = one_message(data, size)) > 0) {
		data += n;
		size -= n;
	}
	return 0;
}
