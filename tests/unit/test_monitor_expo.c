// SPDX-License-Identifier: MIT
/*
 * Unit tests of the monitor's exposition (cli/monitor_expo.c): the
 * OpenMetrics and Prometheus text of a snapshot line for line where the
 * two formats differ (counters' names, units, "# EOF"), label values and
 * help escaped, peers not probed or down showing only what they have, the
 * Accept header's choice, and the textfile written atomically.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/monitor.h"

static struct rp_mon_peer peers[3];
static struct rp_mon_snapshot snap = { .source = "host\"1",
				       .interval_s = 60,
				       .max_duty = 0.1,
				       .duty = 0.025,
				       .n = 3,
				       .p = peers };

#define LABELS_UP                                                              \
	"{source=\"host\\\"1\",peer=\"a\\\"b\\\\c\\nd\",device=\"mlx5_0\","    \
	"transport=\"rdma\",op=\"write\""

static void setup_peers(void)
{
	struct rp_mon_peer *p = &peers[0];

	memset(peers, 0, sizeof(peers));
	snprintf(p->peer, sizeof(p->peer), "a\"b\\c\nd");
	snprintf(p->device, sizeof(p->device), "mlx5_0");
	snprintf(p->transport, sizeof(p->transport), "rdma");
	snprintf(p->op, sizeof(p->op), "write");
	p->probed = p->up = true;
	p->duration_s = 0.5;
	p->probes = 3;
	p->has_bw = true;
	p->bits_per_second = 8e9;
	p->messages_per_second = 1e6;
	p->unloaded = (struct rp_mon_latency){
		true, { 2e-6, 3e-6, 4.5e-6 }, 3000, 0.0066
	};
	p->loaded.count = 5; /* no quantiles this time, a count before */
	p->loaded.sum = 1e-5;
	p->has_sums = true;
	p->retrans = 7;
	p->n_counters = 1;
	snprintf(p->c[0].side, sizeof(p->c[0].side), "server");
	snprintf(p->c[0].group, sizeof(p->c[0].group), "hw");
	snprintf(p->c[0].name, sizeof(p->c[0].name), "rnr_nak_retry_err");
	p->c[0].delta = 2;
	p->has_verdict = true;
	p->n_checks = 1;
	snprintf(p->k[0].text, sizeof(p->k[0].text), "p99<=5us");
	p = &peers[1]; /* down */
	snprintf(p->peer, sizeof(p->peer), "down");
	snprintf(p->transport, sizeof(p->transport), "tcp");
	snprintf(p->op, sizeof(p->op), "send");
	p->probed = true;
	p->probes = p->failures = 2;
	p->consecutive_failures = 2;
	p->backoff_s = 120;
	p = &peers[2]; /* not probed yet */
	snprintf(p->peer, sizeof(p->peer), "new");
}

static char *render(enum rp_mon_format f)
{
	struct rp_mon_buf b = { 0 };

	assert_int_equal(rp_mon_render(&snap, f, &b), 0);
	assert_non_null(b.s);
	assert_int_equal(strlen(b.s), b.len);
	return b.s;
}

static void has(const char *text, const char *line)
{
	const char *at = strstr(text, line);

	if (!at || (at != text && at[-1] != '\n') || at[strlen(line)] != '\n')
		fail_msg("no line \"%s\" in:\n%s", line, text);
}

static void lacks(const char *text, const char *s)
{
	if (strstr(text, s))
		fail_msg("\"%s\" should not be in:\n%s", s, text);
}

static void test_openmetrics(void **state)
{
	char *t;
	size_t n;

	(void)state;
	setup_peers();
	t = render(RP_MON_OPENMETRICS);
	n = strlen(t);
	assert_true(n > 6 && !strcmp(t + n - 6, "# EOF\n"));
	has(t, "# TYPE rdmaperf_probes counter");
	has(t, "rdmaperf_probes_total" LABELS_UP "} 3");
	has(t, "# TYPE rdmaperf_latency_seconds summary");
	has(t, "# UNIT rdmaperf_latency_seconds seconds");
	has(t, "rdmaperf_latency_seconds" LABELS_UP ",quantile=\"0.5\"} 2e-06");
	has(t, "rdmaperf_latency_seconds" LABELS_UP
	       ",quantile=\"0.999\"} 4.5e-06");
	has(t, "rdmaperf_latency_seconds_count" LABELS_UP "} 3000");
	has(t, "rdmaperf_latency_seconds_sum" LABELS_UP "} 0.0066");
	has(t, "rdmaperf_loaded_latency_seconds_count" LABELS_UP "} 5");
	lacks(t, "rdmaperf_loaded_latency_seconds{");
	has(t, "rdmaperf_throughput_bytes_per_second" LABELS_UP "} 1000000000");
	has(t, "rdmaperf_link_retransmissions" LABELS_UP "} 7");
	has(t, "rdmaperf_link_delta" LABELS_UP ",side=\"server\",group=\"hw\","
	       "counter=\"rnr_nak_retry_err\"} 2");
	has(t, "rdmaperf_expect_pass" LABELS_UP "} 0");
	has(t,
	    "rdmaperf_expect_check_pass" LABELS_UP ",expect=\"p99<=5us\"} 0");
	has(t, "rdmaperf_duty_cycle_ratio{source=\"host\\\"1\"} 0.025");
	has(t, "# UNIT rdmaperf_duty_cycle_ratio ratio");
	free(t);
}

static void test_down_and_new(void **state)
{
	const char *down = "{source=\"host\\\"1\",peer=\"down\",device=\"\","
			   "transport=\"tcp\",op=\"send\"}";
	char line[256];
	char *t;

	(void)state;
	setup_peers();
	t = render(RP_MON_OPENMETRICS);
	snprintf(line, sizeof(line), "rdmaperf_probe_success%s 0", down);
	has(t, line);
	snprintf(line, sizeof(line), "rdmaperf_probe_backoff_seconds%s 120",
		 down);
	has(t, line);
	snprintf(line, sizeof(line), "rdmaperf_probe_failures_total%s 2", down);
	has(t, line);
	snprintf(line, sizeof(line), "rdmaperf_throughput_bytes_per_second%s",
		 down);
	lacks(t, line);
	/* not probed yet: its totals (0), nothing it has not measured */
	lacks(t, "rdmaperf_probe_success{source=\"host\\\"1\",peer=\"new\"");
	assert_non_null(
		strstr(t, "rdmaperf_probes_total{source=\"host\\\"1\",peer="
			  "\"new\",device=\"\",transport=\"\",op=\"\"} 0\n"));
	free(t);
}

static void test_prometheus(void **state)
{
	char *t;

	(void)state;
	setup_peers();
	t = render(RP_MON_PROMETHEUS);
	lacks(t, "# EOF");
	lacks(t, "# UNIT");
	has(t, "# TYPE rdmaperf_probes_total counter");
	has(t, "# HELP rdmaperf_probes_total Probes of the peer since the "
	       "monitor started");
	has(t, "rdmaperf_probes_total" LABELS_UP "} 3");
	has(t, "# TYPE rdmaperf_probe_success gauge");
	free(t);
}

static void test_numbers(void **state)
{
	char *t;

	(void)state;
	setup_peers();
	snap.duty = NAN;
	peers[0].bits_per_second = INFINITY;
	t = render(RP_MON_OPENMETRICS);
	has(t, "rdmaperf_duty_cycle_ratio{source=\"host\\\"1\"} NaN");
	has(t, "rdmaperf_throughput_bytes_per_second" LABELS_UP "} +Inf");
	free(t);
	snap.duty = 0.025;
}

static void test_accept(void **state)
{
	(void)state;
	assert_int_equal(rp_mon_format_of(NULL), RP_MON_PROMETHEUS);
	assert_int_equal(rp_mon_format_of("*/*"), RP_MON_PROMETHEUS);
	assert_int_equal(rp_mon_format_of("text/plain;version=0.0.4"),
			 RP_MON_PROMETHEUS);
	assert_int_equal(
		rp_mon_format_of("application/openmetrics-text;version=1.0.0,"
				 "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
		RP_MON_OPENMETRICS);
}

static void test_textfile(void **state)
{
	char dir[] = "/tmp/rp_montext_XXXXXX", file[64], tmp[80], err[256];
	char *want, got[65536];
	FILE *f;
	size_t n;

	(void)state;
	setup_peers();
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/rdmaperf.prom", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	assert_int_equal(rp_mon_textfile_write(&snap, file, err, sizeof(err)),
			 0);
	want = render(RP_MON_PROMETHEUS);
	f = fopen(file, "r");
	assert_non_null(f);
	n = fread(got, 1, sizeof(got) - 1, f);
	fclose(f);
	got[n] = '\0';
	assert_string_equal(got, want);
	assert_int_equal(access(tmp, F_OK), -1); /* renamed, none left */
	free(want);
	unlink(file);
	rmdir(dir);
	/* the directory gone: the error says which file */
	assert_int_equal(rp_mon_textfile_write(&snap, file, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "cannot write"));
	assert_non_null(strstr(err, "rdmaperf.prom.tmp"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_openmetrics),
		cmocka_unit_test(test_down_and_new),
		cmocka_unit_test(test_prometheus),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_accept),
		cmocka_unit_test(test_textfile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
