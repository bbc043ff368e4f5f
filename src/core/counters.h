/* SPDX-License-Identifier: MIT */
/*
 * Counters a NIC or the kernel keeps, taken before and after a point: the
 * snapshot, its delta, and what each name means (an error, a sign of
 * congestion, or information), by provider. xport/link.c reads them; this
 * is what run/ and report/ do with them.
 */
#ifndef RP_CORE_COUNTERS_H
#define RP_CORE_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define RP_COUNTERS_MAX	    256
#define RP_COUNTER_NAME_LEN 48

struct rp_counter {
	char name[RP_COUNTER_NAME_LEN];
	char group[8]; /* "port", "hw", "tcp", "netdev" */
	uint64_t value;
};

struct rp_counters {
	char provider[16]; /* rxe, siw, mlx5, irdma, bnxt_re, efa, tcp, ... */
	unsigned n;
	struct rp_counter c[RP_COUNTERS_MAX];
};

enum rp_counter_class {
	RP_COUNTER_INFO,
	RP_COUNTER_ERROR,
	RP_COUNTER_CONGESTION,
};

/** rp_counter_class - what @name means for @provider (a table per
 *  provider, then names every provider shares); INFO when unknown. */
enum rp_counter_class rp_counter_class(const char *provider, const char *name);

/** rp_counter_is_retrans - @name counts retransmissions (for @provider):
 *  one counter per provider, so none is counted twice. */
bool rp_counter_is_retrans(const char *provider, const char *name);

/** rp_counter_tables_check - no table names a counter twice; else false,
 *  with "PROVIDER: NAME" in @dup. For the tests. */
bool rp_counter_tables_check(char *dup, size_t len);

/** rp_counter_class_name - "info", "error", "congestion". */
const char *rp_counter_class_name(enum rp_counter_class c);

/**
 * rp_counters_delta - @after minus @before, name by name (a counter that
 * went backwards, or is only in @after, counts from 0 / is skipped: a
 * reset NIC does not make a huge delta); provider from @after.
 */
void rp_counters_delta(const struct rp_counters *before,
		       const struct rp_counters *after,
		       struct rp_counters *delta);

/** rp_counters_add - add @v to @c's counter @name of @group, appended
 *  when new (nothing past RP_COUNTERS_MAX or a name too long). */
void rp_counters_add(struct rp_counters *c, const char *group, const char *name,
		     uint64_t v);

/* The group of the counters a connection's own socket keeps (TCP_INFO),
 * summed over a test's streams. Where it is read, the host's "tcp" group
 * (every connection of the host) is information only: its errors are the
 * host's, not the test's. */
#define RP_COUNTERS_SOCKET "socket"

/**
 * rp_counters_json - a delta as the document writes it (schema/:
 * "counters"): {"provider": P, "deltas": {NAME: N, ...} (every counter,
 * zero or not, grouped by group), "errors": {NAME: N} and "congestion":
 * {NAME: N} (the non-zero ones of those classes), "error_total",
 * "congestion_total"}. NULL only when out of memory.
 */
cJSON *rp_counters_json(const struct rp_counters *delta);

/** What a counters object (rp_counters_json's form, from either side or a
 *  saved document) says in sum. */
struct rp_counters_sum {
	bool present;
	uint64_t errors;     /* the sum of the error counters' deltas */
	uint64_t congestion; /* of the congestion counters' */
	uint64_t retrans;    /* of the retransmission counters' (a subset of
			      * errors: tcp's retransmits, rxe's retries) */
};

/** rp_counters_sum - read @j (NULL or not an object: present false). */
void rp_counters_sum(const cJSON *j, struct rp_counters_sum *out);

/** rp_counters_sum_socket - the same of @j's RP_COUNTERS_SOCKET group
 *  alone: a side's own connections (present false without them), what
 *  the server adds on the client's host, whose other counters the
 *  client's already hold. */
void rp_counters_sum_socket(const cJSON *j, struct rp_counters_sum *out);

/** rp_counters_line - "not read" (@j is not an object), "clean", or e.g.
 * "lossy: 12 errors (symbol_error 4, port_rcv_errors 8), 3 congestion
 * (port_xmit_wait 3)": the text line of
 *  @j into @buf (at most @len, always terminated). */
void rp_counters_line(const cJSON *j, char *buf, size_t len);

#endif
