// SPDX-License-Identifier: MIT
/*
 * A stream transport whose socket calls cap the streams a process may hold
 * (max_open: rsockets on a librdmacm before rdma-core v53, see rsocket.c),
 * exercised over kernel TCP on loopback with a cap of 2: a test that does
 * not fit is refused by listen and connect before any stream opens, and a
 * third stream of the process is refused while two are open, then allowed
 * once one closed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "xport/sock/sock.h"

#define TOKEN	   "0123456789abcdef0123456789abcdef"
#define TIMEOUT_MS 5000
#define WHY	   "capped at 2 for the test"

static struct rp_sock_calls capped_calls;

static int capped_probe(const struct rp_xport_ops *self, struct rp_err *why)
{
	(void)self;
	(void)why;
	return 0;
}

static const struct rp_sock_xport capped = {
	.ops = RP_SOCK_OPS("capped", capped_probe, NULL, NULL, false),
	.calls = &capped_calls,
};

static int setup(void **state)
{
	(void)state;
	capped_calls = rp_sock_kernel;
	capped_calls.max_open = 2;
	capped_calls.max_open_why = WHY;
	return 0;
}

static struct rp_spec spec_of(uint32_t streams, bool bidir)
{
	struct rp_spec s;

	rp_spec_defaults(&s);
	s.size_bytes = 64;
	s.queue_depth = 2;
	s.streams = streams;
	s.bidir = bidir;
	return s;
}

/* tcp has no block of its own: the defaults of the others do not matter */
static const struct rp_xport_params params = { .bind = "127.0.0.1" };

static int try_listen(const struct rp_spec *spec, cJSON *ep,
		      struct rp_listener **l, struct rp_err *why)
{
	return capped.ops.listen(&capped.ops, spec, &params, ep, l, why);
}

static int try_connect(const struct rp_spec *spec, const cJSON *ep,
		       struct rp_stream **s, struct rp_err *why)
{
	return capped.ops.connect(&capped.ops, spec, &params, "127.0.0.1", ep,
				  TOKEN, RP_ROLE_INITIATOR, TIMEOUT_MS, s, why);
}

/* 3 streams, or 2 doubled by --bidir: refused up front, with the reason. */
static void test_spec_does_not_fit(void **state)
{
	struct rp_spec three = spec_of(3, false), two_bidir = spec_of(2, true);
	struct rp_err why = { "" };
	struct rp_listener *l = NULL;
	struct rp_stream *s = NULL;
	cJSON *ep = cJSON_CreateObject();

	(void)state;
	assert_int_equal(try_listen(&three, ep, &l, &why), -EUSERS);
	assert_string_equal(why.msg, WHY);
	assert_null(l);
	rp_err_clear(&why);
	assert_int_equal(try_listen(&two_bidir, ep, &l, &why), -EUSERS);
	cJSON_AddNumberToObject(ep, "port", 9); /* never dialled */
	rp_err_clear(&why);
	assert_int_equal(try_connect(&three, ep, &s, &why), -EUSERS);
	assert_string_equal(why.msg, WHY);
	assert_null(s);
	cJSON_Delete(ep);
}

/* Two open streams hold both slots (here a client and the stream it was
 * accepted as); a third is refused; closing one frees its slot. */
static void test_process_slots(void **state)
{
	struct rp_spec one = spec_of(1, false);
	struct rp_err why = { "" };
	struct rp_listener *l = NULL;
	struct rp_stream *cli = NULL, *srv = NULL, *third = NULL;
	cJSON *ep = cJSON_CreateObject();

	(void)state;
	assert_int_equal(try_listen(&one, ep, &l, &why), 0);
	assert_int_equal(try_connect(&one, ep, &cli, &why), 0);
	assert_int_equal(capped.ops.accept(l, TOKEN, RP_ROLE_RESPONDER,
					   TIMEOUT_MS, &srv),
			 0);
	assert_int_equal(try_connect(&one, ep, &third, &why), -EUSERS);
	assert_string_equal(why.msg, WHY);
	assert_null(third);
	capped.ops.close(srv);
	rp_err_clear(&why);
	assert_int_equal(try_connect(&one, ep, &third, &why), 0);
	capped.ops.close(third);
	capped.ops.close(cli);
	capped.ops.unlisten(l);
	cJSON_Delete(ep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_does_not_fit),
		cmocka_unit_test(test_process_slots),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
