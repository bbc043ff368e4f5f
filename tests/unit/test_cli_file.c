// SPDX-License-Identifier: MIT
/* The file transport's options (src/cli/file_opts.c): -x file:PATH
 * entries, the local mode without -c, and the one-line refusals. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cli_args.h"

#include "cli/options.h"
#include "xport/file/params.h"
#include "xport/xport.h"

static bool have_file(void)
{
	return rp_xport_find("file") != NULL;
}

static void test_local_without_client(void **state)
{
	(void)state;
	if (!have_file()) {
		assert_int_equal(PARSE("-x", "file:/tmp/f"), -EINVAL);
		assert_non_null(strstr(err, "without liburing"));
		skip();
	}
	assert_int_equal(PARSE("-x", "file:/tmp/a,file:/mnt/b c", "-o", "R",
			       "--file-size", "4M", "--random", "--buffered"),
			 0);
	assert_int_equal(cfg.mode, RP_MODE_CLIENT);
	assert_null(cfg.test.host);
	assert_int_equal(cfg.test.n_transports, 2);
	assert_string_equal(cfg.test.transports[1], "file");
	assert_string_equal(cfg.test.paths[0], "/tmp/a");
	assert_string_equal(cfg.test.paths[1], "/mnt/b c");
	assert_int_equal(rp_file_params(cfg.test.params)->file_size, 4 << 20);
	assert_true(rp_file_params(cfg.test.params)->random &&
		    rp_file_params(cfg.test.params)->buffered);
	assert_int_equal(rp_file_params(cfg.test.params)->fsync_every, 0);
}

static void test_mixed_list(void **state)
{
	(void)state;
	if (!have_file())
		skip();
	assert_int_equal(PARSE("-x", "tcp,file:/tmp/f"), -EINVAL);
	assert_non_null(strstr(err, "-c (client)")); /* tcp needs a server */
	assert_int_equal(PARSE("-c", "-x", "tcp,file:/tmp/f"), -EINVAL);
	assert_non_null(strstr(err, "-a/--address"));
	assert_int_equal(PARSE("-c", "-a", "h", "-x", "tcp,file:/tmp/f", "-o",
			       "W", "--fsync-every", "8"),
			 0);
	assert_string_equal(cfg.test.paths[0], "");
	assert_string_equal(cfg.test.paths[1], "/tmp/f");
	assert_int_equal(rp_file_params(cfg.test.params)->fsync_every, 8);
	assert_int_equal(rp_file_params(cfg.test.params)->file_size,
			 1ULL << 30); /* default */
}

static const struct {
	const char *args[8];
	const char *says;
} bad[] = {
	{ { "-x", "file" }, "file needs a path" },
	{ { "-x", "file:" }, "needs a path" },
	{ { "-x", "file:/f", "-o", "S" }, "transport file cannot do send" },
	{ { "-x", "file:/f", "-o", "fetch_add" }, "cannot do fetch_add" },
	{ { "-x", "file:/f", "-o", "R", "--fsync-every", "4" },
	  "--fsync-every makes writes durable" },
	{ { "-x", "file:/f", "--fsync-every", "0" }, "out of range" },
	{ { "-x", "file:/f", "--file-size", "0" }, "--file-size" },
	{ { "-x", "file:/f", "--file-size", "lots" }, "--file-size" },
	{ { "-x", "file:/f", "--file-size", "4K", "-S", "8K" },
	  "smaller than the largest" },
	{ { "-x", "file:/f", "--bidir" }, "--bidir" },
	{ { "-c", "-a", "h", "--buffered" }, "--buffered applies to" },
	{ { "-c", "-a", "h", "--random" }, "--random applies to" },
	{ { "-s", "--file-size", "1G" }, "the client's" },
};

static void test_rejects(void **state)
{
	size_t i, k;
	const char *list[9];

	(void)state;
	if (!have_file())
		skip();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (k = 0; k < 8 && bad[i].args[k]; k++)
			list[k] = bad[i].args[k];
		list[k] = NULL;
		if (parse_list(list) != -EINVAL || !strstr(err, bad[i].says))
			fail_msg("case %zu (%s %s): got \"%s\"", i,
				 bad[i].args[0], bad[i].args[1], err);
	}
}

/* --file-size: the message names the bound the check holds (1024T: the
 * size parser has no P), and the bound itself is taken (issue 39). */
static void test_file_size_bound(void **state)
{
	const char *refused[] = { "1P", "1025T", "0" };
	size_t i;

	(void)state;
	if (!have_file())
		skip();
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_int_equal(
			PARSE("-x", "file:/tmp/f", "--file-size", refused[i]),
			-EINVAL);
		assert_non_null(strstr(err, "from 1 to 1024T"));
	}
	assert_int_equal(PARSE("-x", "file:/tmp/f", "--file-size", "1024T"), 0);
	assert_int_equal(rp_file_params(cfg.test.params)->file_size,
			 1ULL << 50);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_local_without_client),
		cmocka_unit_test(test_mixed_list),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_file_size_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
