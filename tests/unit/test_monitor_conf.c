// SPDX-License-Identifier: MIT
/*
 * Unit tests of the monitor's config file (cli/monitor_conf.c): a full
 * file and its defaults read right, and every error path giving one line
 * that names the file and the line that caused it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/monitor.h"

static char path[64];
static char err[RP_MON_ERR_LEN];
static struct rp_mon_conf conf;

static int load(const char *text, size_t len)
{
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/rp_monconf_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
	err[0] = '\0';
	return rp_mon_conf_load(path, &conf, err, sizeof(err));
}

static void done(void)
{
	rp_mon_conf_free(&conf);
	unlink(path);
}

static const char good[] = "# a comment\n"
			   "; another\n"
			   "[monitor]\n"
			   "interval = 30\n"
			   "listen = [::1]:9600\n"
			   "source = rack-7 \"a\"\n"
			   "max_duty_cycle = 5%\n"
			   "backoff_max = 300\n"
			   "burst = 0.25\n"
			   "lat_iterations = 200\n"
			   "\n"
			   "[peer ib-2]\n"
			   "  address = 127.0.0.1\n"
			   "port = 18600\n"
			   "transport = tcp\n"
			   "op = read\n"
			   "size = 8K\n"
			   "queue_depth = 4\n"
			   "tos = af41\n"
			   "expect = bw>=1G, unloaded_p99<=20us\n"
			   "\n"
			   "[peer lo]\n"
			   "address = localhost\n"
			   "transport = tcp\n"
			   "burst = 100ms\n";

static void test_good(void **state)
{
	const struct rp_mon_peer_conf *p;

	(void)state;
	assert_int_equal(load(good, strlen(good)), 0);
	assert_true(conf.interval_s == 30);
	assert_string_equal(conf.listen, "[::1]:9600");
	assert_string_equal(conf.source, "rack-7 \"a\"");
	assert_true(conf.max_duty == 0.05);
	assert_true(conf.backoff_max_s == 300);
	assert_int_equal(conf.n_peers, 2);
	p = &conf.peers[0];
	assert_string_equal(p->name, "ib-2");
	assert_int_equal(p->line, 12);
	assert_string_equal(p->cfg.test.host, "127.0.0.1");
	assert_int_equal(p->cfg.test.port, 18600);
	assert_string_equal(p->cfg.test.transports[0], "tcp");
	assert_int_equal(p->cfg.test.spec.op, RP_OP_READ);
	assert_int_equal(p->cfg.test.spec.size_bytes, 8192);
	assert_int_equal(p->cfg.test.spec.queue_depth, 4);
	assert_int_equal(p->cfg.test.spec.tos, 34 << 2);
	assert_int_equal(p->cfg.test.spec.duration_ns, 250000000);
	assert_int_equal(p->cfg.test.spec.lat_iterations, 200);
	assert_int_equal(p->cfg.test.spec.warmup, 100);
	assert_int_equal(p->cfg.test.expect.n, 2);
	assert_true(p->burst_s == 0.25);
	p = &conf.peers[1];
	assert_int_equal(p->cfg.test.port, 18520);
	assert_int_equal(p->cfg.test.spec.duration_ns, 100000000);
	done();
}

static void test_defaults(void **state)
{
	static const char t[] = "[peer a]\naddress = 127.0.0.1\n";

	(void)state;
	assert_int_equal(load(t, strlen(t)), 0);
	assert_true(conf.interval_s == 60);
	assert_string_equal(conf.listen, "127.0.0.1:9520");
	assert_true(conf.max_duty == 0.1);
	assert_true(conf.backoff_max_s == 480);
	assert_true(conf.source[0]);
	assert_int_equal(conf.peers[0].cfg.test.spec.duration_ns, 200000000);
	assert_int_equal(conf.peers[0].cfg.test.spec.lat_iterations, 1000);
	assert_int_equal(conf.peers[0].cfg.stall_ns, 5000000000ULL);
	done();
}

/* The example the package installs as /etc/rdmaperf/monitor.conf. */
static void test_example(void **state)
{
	(void)state;
	if (rp_mon_conf_load(RP_SOURCE_DIR "/dist/monitor.conf", &conf, err,
			     sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(conf.n_peers, 2);
	assert_true(conf.interval_s == 60);
	assert_int_equal(conf.peers[0].cfg.test.expect.n, 3);
	rp_mon_conf_free(&conf);
}

/* Each bad file: the line its error must name (0: the file alone) and
 * words the message must hold. */
static const struct {
	const char *text;
	unsigned int line;
	const char *words;
} bad[] = {
	{ "[monitor]\ncolour = red\n[peer a]\naddress = 127.0.0.1\n", 2,
	  "unknown key 'colour' in [monitor]" },
	{ "[peer a]\naddress = 127.0.0.1\nflavour = x\n", 3,
	  "unknown key 'flavour' in a [peer] section" },
	{ "interval = soon\n[peer a]\naddress = 127.0.0.1\n", 1,
	  "interval: 'soon' is not a duration" },
	{ "interval = 0.1\n[peer a]\naddress = 127.0.0.1\n", 1,
	  "is not a duration from 0.5" },
	{ "listen = 9520\n[peer a]\naddress = 127.0.0.1\n", 1,
	  "listen: '9520' is not ADDR:PORT" },
	{ "listen = 1.2.3.4:99999\n[peer a]\naddress = 127.0.0.1\n", 1,
	  "is not ADDR:PORT" },
	{ "max_duty_cycle = 2\n[peer a]\naddress = 127.0.0.1\n", 1,
	  "max_duty_cycle: '2' is not a share" },
	{ "[peer a]\naddress 127.0.0.1\n", 2, "is not KEY = VALUE" },
	{ "[peer a]\naddress =\n", 2, "address: no value" },
	{ "[peer a]\naddress = 127.0.0.1\naddress = ::1\n", 3,
	  "address: given twice (first on line 2)" },
	{ "[monitors]\n", 1, "unknown section [monitors]" },
	{ "[peer a\n", 1, "a section ends with ']'" },
	{ "[peer a b]\naddress = 127.0.0.1\n", 1, "a name is 1 to" },
	{ "[peer]\n", 1, "unknown section [peer]" },
	{ "[peer a]\naddress = 127.0.0.1\n[peer a]\n", 3,
	  "[peer a] twice (first on line 1)" },
	{ "[peer a]\nport = 1\n", 1, "peer a: no address" },
	{ "[peer a]\naddress = 127.0.0.1\nop = scribble\n", 3,
	  "-o/--op: unknown operation 'scribble'" },
	{ "[peer a]\naddress = 127.0.0.1\nport = 70000\n", 3, "--port" },
	{ "[peer a]\naddress = 127.0.0.1\ntos = 0x100\n", 3,
	  "--tos: 0x100: a TOS byte" },
	{ "[peer a]\naddress = 127.0.0.1\ntransport = rsocket\ntos = 8\n", 4,
	  "--tos: rsocket cannot mark" },
	{ "[peer a]\naddress = 127.0.0.1\ntransport = carrier-pigeon\n", 3,
	  "carrier-pigeon" },
	{ "[peer a]\naddress = 127.0.0.1\ntransport = tcp,rdma\n", 3,
	  "one network transport per peer" },
	{ "[peer a]\naddress = 127.0.0.1\nexpect = speed>1\n", 3,
	  "--expect: \"speed>1\": unknown metric" },
	{ "[peer a]\naddress = 127.0.0.1\nsize = 4K,8K\n", 1,
	  "a probe is one point" },
	{ "[peer a]\ntransport = tcp\naddress = no-such-peer.invalid\n", 3,
	  "cannot resolve no-such-peer.invalid" },
	{ "burst = never\n[peer a]\naddress = 127.0.0.1\n", 1, "-t/--time" },
	{ "[peer a]\naddress = 127.0.0.1\nburst = 0.0001\n", 3, "-t/--time" },
	{ "interval = 1\nburst = 0.6\n[peer a]\naddress = 127.0.0.1\n"
	  "[peer b]\naddress = 127.0.0.1\n",
	  1, "interval 1 s is shorter than the probes' own time" },
	{ "interval = 10\n[peer a]\naddress = 127.0.0.1\nburst = 2\n", 1,
	  "above max_duty_cycle 10%" },
	{ "interval = 10\nmax_duty_cycle = 0.15\n[peer a]\n"
	  "address = 127.0.0.1\nburst = 2\n",
	  2, "the probes would send 20.0% of each 10 s interval" },
	{ "interval = 10\nbackoff_max = 5\n[peer a]\naddress = 127.0.0.1\n", 2,
	  "backoff_max 5 s is shorter than the interval" },
	{ "textfile = /no/such/dir/x.prom\n[peer a]\naddress = 127.0.0.1\n", 1,
	  "textfile: '/no/such/dir' is not a directory" },
	{ "[monitor]\ninterval = 30\n", 0, "no [peer NAME] section" },
};

static void test_errors(void **state)
{
	char want[160];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(load(bad[i].text, strlen(bad[i].text)),
				 -EINVAL);
		if (bad[i].line)
			snprintf(want, sizeof(want), "%s:%u: ", path,
				 bad[i].line);
		else
			snprintf(want, sizeof(want), "%s: ", path);
		if (strncmp(err, want, strlen(want)) ||
		    !strstr(err, bad[i].words) || strchr(err, '\n'))
			fail_msg("case %zu: wanted %s...%s, got: %s", i, want,
				 bad[i].words, err);
		done();
	}
}

static void test_odd_bytes(void **state)
{
	static const char nul[] = "[peer a]\naddress = 127.0.0.1\nop = w\0x\n";
	char *long_line = malloc(5000);

	(void)state;
	assert_int_equal(load(nul, sizeof(nul) - 1), -EINVAL);
	assert_non_null(strstr(err, ":3: a NUL byte"));
	done();
	assert_non_null(long_line);
	memset(long_line, '#', 4999);
	long_line[4999] = '\n';
	assert_int_equal(load(long_line, 5000), -EINVAL);
	assert_non_null(strstr(err, ":1: a line longer than"));
	done();
	free(long_line);
	assert_int_equal(
		rp_mon_conf_load("/no/such/file.conf", &conf, err, sizeof(err)),
		-EINVAL);
	assert_string_equal(err, "/no/such/file.conf: cannot open: No such "
				 "file or directory");
	rp_mon_conf_free(&conf);
}

static void test_listen_split(void **state)
{
	char host[64];
	uint16_t port;

	(void)state;
	assert_int_equal(rp_mon_listen_split("127.0.0.1:9520", host,
					     sizeof(host), &port),
			 0);
	assert_string_equal(host, "127.0.0.1");
	assert_int_equal(port, 9520);
	assert_int_equal(
		rp_mon_listen_split("[::1]:80", host, sizeof(host), &port), 0);
	assert_string_equal(host, "::1");
	assert_int_equal(rp_mon_listen_split(":0", host, sizeof(host), &port),
			 0);
	assert_string_equal(host, "");
	assert_int_equal(port, 0);
	assert_int_equal(
		rp_mon_listen_split("::1:80", host, sizeof(host), &port),
		-EINVAL);
	assert_int_equal(rp_mon_listen_split("a:", host, sizeof(host), &port),
			 -EINVAL);
	assert_int_equal(rp_mon_listen_split("a:-1", host, sizeof(host), &port),
			 -EINVAL);
	assert_int_equal(rp_mon_listen_split("[]:1", host, sizeof(host), &port),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_example),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_odd_bytes),
		cmocka_unit_test(test_listen_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
