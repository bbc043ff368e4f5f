// SPDX-License-Identifier: MIT
/*
 * Unit tests of core/counters: what each provider's names mean, deltas
 * across a reset and a counter that appeared, the document's form and its
 * sums read back, the text line, and documents of the wrong shape.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/counters.h"

static void set(struct rp_counters *c, const char *group, const char *name,
		uint64_t v)
{
	struct rp_counter *e = &c->c[c->n++];

	snprintf(e->group, sizeof(e->group), "%s", group);
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->value = v;
}

static void test_classes(void **state)
{
	(void)state;
	/* every IB port's PMA counters, whatever the provider */
	assert_int_equal(rp_counter_class("mlx5", "symbol_error"),
			 RP_COUNTER_ERROR);
	assert_int_equal(rp_counter_class(NULL, "port_xmit_discards"),
			 RP_COUNTER_ERROR);
	assert_int_equal(rp_counter_class("mlx5", "port_xmit_wait"),
			 RP_COUNTER_CONGESTION);
	assert_int_equal(rp_counter_class("mlx5", "port_rcv_data"),
			 RP_COUNTER_INFO);
	/* each provider's own */
	assert_int_equal(rp_counter_class("rxe", "completer_retry_err"),
			 RP_COUNTER_ERROR);
	assert_int_equal(rp_counter_class("rxe", "sent_pkts"), RP_COUNTER_INFO);
	assert_int_equal(rp_counter_class("mlx5", "np_cnp_sent"),
			 RP_COUNTER_CONGESTION);
	assert_int_equal(rp_counter_class("mlx5", "out_of_sequence"),
			 RP_COUNTER_ERROR);
	assert_int_equal(rp_counter_class("bnxt_re", "rx_cnp_pkts"),
			 RP_COUNTER_CONGESTION);
	assert_int_equal(rp_counter_class("bnxt_re", "to_retransmits"),
			 RP_COUNTER_ERROR);
	assert_int_equal(rp_counter_class("irdma", "tcpRetransSegs"),
			 RP_COUNTER_ERROR);
	assert_int_equal(rp_counter_class("irdma", "cnpHandled"),
			 RP_COUNTER_CONGESTION);
	assert_int_equal(rp_counter_class("efa", "rx_drops"), RP_COUNTER_ERROR);
	assert_int_equal(rp_counter_class("efa", "tx_bytes"), RP_COUNTER_INFO);
	assert_int_equal(rp_counter_class("tcp", "RetransSegs"),
			 RP_COUNTER_ERROR);
	assert_int_equal(rp_counter_class("tcp", "rx_dropped"),
			 RP_COUNTER_ERROR); /* a netdev's, shared */
	/* siw runs on TCP: TCP's names */
	assert_int_equal(rp_counter_class("siw", "RetransSegs"),
			 RP_COUNTER_ERROR);
	/* a name of another provider is not this one's */
	assert_int_equal(rp_counter_class("rxe", "np_cnp_sent"),
			 RP_COUNTER_INFO);
	assert_int_equal(rp_counter_class("mlx5", "made_up"), RP_COUNTER_INFO);
	assert_int_equal(rp_counter_class("nosuch", "symbol_error"),
			 RP_COUNTER_ERROR);
	assert_int_equal(rp_counter_class("rxe", NULL), RP_COUNTER_INFO);
	assert_string_equal(rp_counter_class_name(RP_COUNTER_CONGESTION),
			    "congestion");
}

/* Retransmissions counted once: TCP's sum, not its breakdown. */
static void test_retrans(void **state)
{
	(void)state;
	assert_true(rp_counter_is_retrans("tcp", "RetransSegs"));
	assert_false(rp_counter_is_retrans("tcp", "TCPFastRetrans"));
	assert_false(rp_counter_is_retrans("tcp", "TCPLossProbes"));
	assert_true(rp_counter_is_retrans("rxe", "completer_retry_err"));
	assert_false(rp_counter_is_retrans("rxe", "rcvd_seq_err"));
	assert_true(rp_counter_is_retrans("mlx5", "local_ack_timeout_err"));
	assert_false(rp_counter_is_retrans("mlx5", "roce_adp_retrans"));
	assert_true(rp_counter_is_retrans("bnxt_re", "to_retransmits"));
	assert_true(rp_counter_is_retrans("efa", "retrans_pkts"));
	assert_false(rp_counter_is_retrans("mlx5", "symbol_error"));
}

static void test_tables(void **state)
{
	char dup[96] = "";

	(void)state;
	assert_true(rp_counter_tables_check(dup, sizeof(dup)));
	assert_string_equal(dup, "");
}

static void test_delta(void **state)
{
	static struct rp_counters a, b, d;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	snprintf(b.provider, sizeof(b.provider), "rxe");
	set(&a, "hw", "sent_pkts", 100);
	set(&a, "hw", "rcvd_seq_err", 9);
	set(&a, "port", "sent_pkts", 5);  /* same name, another group */
	set(&b, "hw", "rcvd_seq_err", 2); /* reset meanwhile */
	set(&b, "hw", "sent_pkts", 350);
	set(&b, "hw", "send_err", 4); /* appeared: nothing to compare */
	set(&b, "port", "sent_pkts", 6);
	rp_counters_delta(&a, &b, &d);
	assert_string_equal(d.provider, "rxe");
	assert_int_equal(d.n, 3);
	assert_string_equal(d.c[0].name, "rcvd_seq_err");
	assert_int_equal(d.c[0].value, 0);
	assert_string_equal(d.c[1].name, "sent_pkts");
	assert_int_equal(d.c[1].value, 250);
	assert_string_equal(d.c[2].group, "port");
	assert_int_equal(d.c[2].value, 1);
}

static double num(const cJSON *o, const char *a, const char *b)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, a);

	if (b)
		j = cJSON_GetObjectItemCaseSensitive(j, b);
	assert_true(cJSON_IsNumber(j));
	return j->valuedouble;
}

static cJSON *lossy(void)
{
	static struct rp_counters d;

	memset(&d, 0, sizeof(d));
	snprintf(d.provider, sizeof(d.provider), "rxe");
	set(&d, "hw", "sent_pkts", 1000);
	set(&d, "hw", "completer_retry_err", 8);
	set(&d, "hw", "rcvd_seq_err", 5); /* a cause of the retries */
	set(&d, "hw", "out_of_seq_request", 4);
	set(&d, "hw", "duplicate_request", 0);
	set(&d, "port", "port_xmit_wait", 3);
	return rp_counters_json(&d);
}

static void test_json_and_sum(void **state)
{
	struct rp_counters_sum s;
	cJSON *j = lossy();

	(void)state;
	assert_non_null(j);
	assert_true(
		cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(j, "deltas")));
	assert_true(num(cJSON_GetObjectItemCaseSensitive(j, "deltas"), "hw",
			"sent_pkts") == 1000);
	assert_true(num(cJSON_GetObjectItemCaseSensitive(j, "deltas"), "hw",
			"duplicate_request") == 0);
	assert_true(num(j, "errors", "completer_retry_err") == 8);
	assert_null(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(j, "errors"), "rcvd_seq_err"));
	assert_null(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(j, "errors"),
		"duplicate_request")); /* zero: not listed */
	assert_true(num(j, "congestion", "port_xmit_wait") == 3);
	assert_true(num(j, "error_total", NULL) == 12);
	assert_true(num(j, "congestion_total", NULL) == 3);
	rp_counters_sum(j, &s);
	assert_true(s.present);
	assert_int_equal(s.errors, 12);
	assert_int_equal(s.congestion, 3);
	assert_int_equal(s.retrans, 8);
	cJSON_Delete(j);
}

static void test_line(void **state)
{
	static struct rp_counters d;
	char buf[256];
	cJSON *j = lossy();
	size_t len;

	(void)state;
	static const char want[] = "lossy: 12 errors (completer_retry_err 8, "
				   "out_of_seq_request 4), 3 congestion "
				   "(port_xmit_wait 3)";

	rp_counters_line(j, buf, sizeof(buf));
	assert_string_equal(buf, want);
	for (len = 1; len < sizeof(want) + 2; len++) {
		/* truncated where it ends, always terminated */
		memset(buf, 'x', sizeof(buf));
		rp_counters_line(j, buf, len);
		assert_true(strlen(buf) < len);
		assert_int_equal(strncmp(buf, want, strlen(buf)), 0);
		assert_int_equal(strlen(buf), len - 1 < sizeof(want) - 1
						      ? len - 1
						      : sizeof(want) - 1);
	}
	cJSON_Delete(j);
	memset(&d, 0, sizeof(d));
	snprintf(d.provider, sizeof(d.provider), "mlx5");
	set(&d, "hw", "np_cnp_sent", 5);
	set(&d, "port", "port_rcv_data", 1 << 20);
	j = rp_counters_json(&d);
	rp_counters_line(j, buf, sizeof(buf));
	assert_string_equal(buf, "congested: 5 congestion (np_cnp_sent 5)");
	cJSON_Delete(j);
	d.n = 1;
	d.c[0].value = 0;
	j = rp_counters_json(&d);
	rp_counters_line(j, buf, sizeof(buf));
	assert_string_equal(buf, "clean");
	cJSON_Delete(j);
	rp_counters_line(NULL, buf, sizeof(buf));
	assert_string_equal(buf, "not read");
}

/* Five errors of their own, then more: four named, the rest "...". */
static void test_line_many(void **state)
{
	static struct rp_counters d;
	char buf[256];
	cJSON *j;

	(void)state;
	memset(&d, 0, sizeof(d));
	snprintf(d.provider, sizeof(d.provider), "mlx5");
	set(&d, "port", "symbol_error", 1);
	set(&d, "port", "link_downed", 2);
	set(&d, "port", "port_rcv_errors", 3);
	set(&d, "hw", "out_of_sequence", 4);
	set(&d, "hw", "packet_seq_err", 5);
	j = rp_counters_json(&d);
	rp_counters_line(j, buf, sizeof(buf));
	assert_string_equal(buf, "lossy: 15 errors (packet_seq_err 5, "
				 "out_of_sequence 4, port_rcv_errors 3, "
				 "link_downed 2, ...)");
	cJSON_Delete(j);
}

/* Where a counter sums or causes others, each event is counted once: a
 * netdev's totals and not their kinds, TCP's resends and not the
 * timeouts behind them, rxe's retries and not the NAKs that start them,
 * mlx5's and bnxt_re's completion errors and not their sums or parts. */
static void expect_sum(const char *provider, const char *const *names,
		       const uint64_t *values, size_t n, uint64_t errors,
		       uint64_t retrans, uint64_t congestion)
{
	static struct rp_counters d;
	struct rp_counters_sum s;
	size_t i;
	cJSON *j;

	memset(&d, 0, sizeof(d));
	snprintf(d.provider, sizeof(d.provider), "%s", provider);
	for (i = 0; i < n; i++)
		set(&d, "hw", names[i], values[i]);
	j = rp_counters_json(&d);
	assert_non_null(j);
	rp_counters_sum(j, &s);
	if (s.errors != errors || s.retrans != retrans ||
	    s.congestion != congestion)
		fail_msg("%s: errors %llu retrans %llu congestion %llu, want "
			 "%llu %llu %llu",
			 provider, (unsigned long long)s.errors,
			 (unsigned long long)s.retrans,
			 (unsigned long long)s.congestion,
			 (unsigned long long)errors,
			 (unsigned long long)retrans,
			 (unsigned long long)congestion);
	cJSON_Delete(j);
}

static void test_counted_once(void **state)
{
	/* a netdev: 7 bad frames (5 CRC, 2 too long) and 3 drops */
	static const char *const net[] = {
		"rx_errors",  "rx_crc_errors", "rx_length_errors",
		"rx_dropped", "tx_errors",     "tx_carrier_errors"
	};
	static const uint64_t netv[] = { 7, 5, 2, 3, 1, 1 };
	/* TCP: 9 segments resent, 4 of them after 3 timeouts, 2 SYNs;
	 * 2 bad segments, 1 a checksum */
	static const char *const tcp[] = { "RetransSegs",   "TCPTimeouts",
					   "TCPSynRetrans", "TCPFastRetrans",
					   "InErrs",	    "InCsumErrors" };
	static const uint64_t tcpv[] = { 9, 3, 2, 5, 2, 1 };
	/* rxe: 6 retries, 4 of them started by a NAK */
	static const char *const rxe[] = { "completer_retry_err",
					   "rcvd_seq_err", "sent_pkts" };
	static const uint64_t rxev[] = { 6, 4, 1000 };
	/* mlx5: 3 timeouts resent (adaptively), 2 NAKs; 2 error
	 * completions, one a remote access error */
	static const char *const mlx5[] = { "local_ack_timeout_err",
					    "roce_adp_retrans",
					    "packet_seq_err",
					    "req_cqe_error",
					    "req_remote_access_errors",
					    "req_transport_retries_exceeded",
					    "np_cnp_sent" };
	static const uint64_t mlx5v[] = { 3, 3, 2, 2, 1, 1, 4 };
	/* bnxt_re (the newer names): req_cqe_error sums its parts */
	static const char *const bnxt[] = {
		"local_ack_timeout_err", "req_remote_access_errors",
		"bad_resp_err",		 "req_cqe_error",
		"res_mem_err",		 "rp_cnp_handled"
	};
	static const uint64_t bnxtv[] = { 2, 1, 1, 2, 1, 3 };
	/* irdma: both spellings of its TCP's resends, gen3's RTO */
	static const char *const irdma[] = { "RetransSegs",    "tcpRetransSegs",
					     "ip4InDiscards",  "RTO",
					     "iwInRdmaWrites", "InRdmaWrites" };
	static const uint64_t irdmav[] = { 2, 3, 1, 1, 100, 100 };

	(void)state;
	expect_sum("tcp", net, netv, 6, 3 + 7 + 1, 0, 0);
	expect_sum("tcp", tcp, tcpv, 6, 9 + 2, 9, 0);
	expect_sum("siw", tcp, tcpv, 6, 9 + 2, 9, 0);
	expect_sum("rxe", rxe, rxev, 3, 6, 6, 0);
	expect_sum("mlx5", mlx5, mlx5v, 7, 3 + 2 + 2, 3 + 2, 4);
	expect_sum("bnxt_re", bnxt, bnxtv, 6, 2 + 1 + 1 + 1, 2, 3);
	expect_sum("irdma", irdma, irdmav, 6, 2 + 3 + 1 + 1, 2 + 3 + 1, 0);
}

/* A saved document may hold anything: never a crash, no made-up sum. */
static void test_odd_documents(void **state)
{
	static const char *const docs[] = {
		"[]",
		"\"x\"",
		"{}",
		"{\"deltas\": []}",
		"{\"deltas\": {\"hw\": [1, 2]}}",
		"{\"provider\": 5, \"deltas\": {\"hw\": {\"rcvd_seq_err\": "
		"\"many\"}}}",
		"{\"provider\": \"rxe\", \"deltas\": {\"hw\": "
		"{\"rcvd_seq_err\": "
		"-4, \"send_err\": 1e300, \"out_of_seq_request\": 2}}}",
	};
	struct rp_counters_sum s;
	char buf[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		cJSON *j = cJSON_Parse(docs[i]);

		assert_non_null(j);
		rp_counters_sum(j, &s);
		rp_counters_line(j, buf, sizeof(buf));
		if (i == 6) {
			assert_int_equal(s.errors, 2);
			assert_string_equal(buf, "lossy: 2 errors "
						 "(out_of_seq_request 2)");
		} else {
			assert_int_equal(s.errors + s.congestion, 0);
			assert_true(!strcmp(buf, "clean") ||
				    !strcmp(buf, "not read"));
		}
		cJSON_Delete(j);
	}
}

/* TCP with the test's own connections read: their resends (summed with
 * rp_counters_add over the streams) are the errors and the retransmission
 * figure; the host's RetransSegs, every connection's, is information; the
 * socket group alone is what a server on the client's host adds. */
static void test_socket_group(void **state)
{
	struct rp_counters *d = calloc(1, sizeof(*d));
	struct rp_counters_sum s;
	char buf[256];
	cJSON *j;

	(void)state;
	assert_non_null(d);
	snprintf(d->provider, sizeof(d->provider), "tcp");
	set(d, "tcp", "RetransSegs", 40);
	set(d, "tcp", "InErrs", 2);
	rp_counters_add(d, RP_COUNTERS_SOCKET, "total_retrans", 3);
	rp_counters_add(d, RP_COUNTERS_SOCKET, "total_retrans", 4);
	assert_int_equal(d->n, 3); /* added into one counter */
	j = rp_counters_json(d);
	assert_non_null(j);
	assert_true(num(j, "errors", "total_retrans") == 7);
	assert_null(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(j, "errors"), "RetransSegs"));
	assert_null(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(j, "errors"), "InErrs"));
	assert_true(num(j, "error_total", NULL) == 7);
	rp_counters_sum(j, &s);
	assert_int_equal(s.errors, 7);
	assert_int_equal(s.retrans, 7);
	rp_counters_line(j, buf, sizeof(buf));
	assert_non_null(strstr(buf, "total_retrans 7"));
	assert_null(strstr(buf, "RetransSegs"));
	rp_counters_sum_socket(j, &s);
	assert_true(s.present && s.errors == 7 && s.retrans == 7);
	cJSON_Delete(j);
	/* without the socket group: the host's counters as before */
	d->n = 2;
	j = rp_counters_json(d);
	rp_counters_sum(j, &s);
	assert_int_equal(s.errors, 42);
	assert_int_equal(s.retrans, 40);
	rp_counters_sum_socket(j, &s);
	assert_false(s.present);
	assert_int_equal(s.errors, 0);
	cJSON_Delete(j);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_retrans),
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_json_and_sum),
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_line_many),
		cmocka_unit_test(test_counted_once),
		cmocka_unit_test(test_odd_documents),
		cmocka_unit_test(test_socket_group),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
