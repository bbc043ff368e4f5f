/* SPDX-License-Identifier: MIT */
/*
 * What the fuzz targets share: an exact-size copy of an input (so that
 * AddressSanitizer sees a read one byte past it), a spec comparison that
 * covers every field, and the reporters run over results to /dev/null.
 * A broken invariant is reported on stderr and abort()s, which libFuzzer
 * and the replay driver both count as a crash.
 */
#ifndef RP_FUZZ_COMMON_H
#define RP_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "core/spec.h"
#include "run/run.h"

/* Stop with @what on stderr when @cond is false. */
#define FUZZ_CHECK(cond, what)                                                 \
	do {                                                                   \
		if (!(cond))                                                   \
			fuzz_fail(__FILE__, __LINE__, what);                   \
	} while (0)

/** fuzz_fail - print where an invariant broke and abort(). */
__attribute__((noreturn)) void fuzz_fail(const char *file, int line,
					 const char *what);

/** fuzz_copy - @len bytes of @data in a new heap block of exactly @len
 *  bytes (1 when @len is 0). Return: NULL on no memory. */
char *fuzz_copy(const uint8_t *data, size_t len);

/**
 * fuzz_json_same - @a and @b hold the same items in the same order, names,
 * strings and numbers alike (duplicate names included, which cJSON_Compare
 * does not tell apart). @exact: numbers to the bit; else within the
 * epsilon cJSON prints them to (a value printed and parsed again).
 */
bool fuzz_json_same(const cJSON *a, const cJSON *b, bool exact);

/** fuzz_json_finite - every number in @j is finite (cJSON prints the
 *  others as null). */
bool fuzz_json_finite(const cJSON *j);

/** fuzz_spec_equal - true when every field of @a and @b is the same. */
bool fuzz_spec_equal(const struct rp_spec *a, const struct rp_spec *b);

/**
 * fuzz_render - run every reporter over @res: the JSON document (built and
 * printed), the text summary and the CSV, both to /dev/null. Return: the
 * document as text (caller frees), or NULL on no memory.
 */
char *fuzz_render(const struct rp_test *cfg, const struct rp_result *res,
		  size_t n);

/** fuzz_config - a client's config of one point, transport tcp, the
 *  default spec; host "127.0.0.1". */
void fuzz_config(struct rp_config *cfg);

#endif
