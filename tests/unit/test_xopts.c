// SPDX-License-Identifier: MIT
/*
 * The transports' own options (struct rp_xport_options): getopt, --help and
 * the man page agree with the registry's tables, every option is refused
 * without its transport in -x, and no two options share a name or a flag.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli_args.h"

#include "cli/options.h"
#include "xport/xport.h"

/* What @print writes, in a buffer the caller frees. */
static char *capture(void (*print)(FILE *f))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	print(f);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* Rows of --help @hay that describe option --@name ("  -d, --name ..."
 * or "      --name ..."). */
static int count_opt(const char *hay, const char *name)
{
	size_t n = strlen(name);
	const char *line = hay;
	int k = 0;

	for (; line && *line; line = strchr(line, '\n'), line += !!line) {
		const char *p = line;

		if (strncmp(p, "  ", 2))
			continue;
		p += strspn(p, " ");
		if (p[0] == '-' && p[1] != '-' && p[2] == ',')
			p += 3 + strspn(p + 3, " ");
		if (!strncmp(p, "--", 2) && !strncmp(p + 2, name, n) &&
		    (p[2 + n] == ' ' || p[2 + n] == '\n'))
			k++;
	}
	return k;
}

/* @name as roff spells it: every '-' as "\-". */
static void roff(const char *name, char *out, size_t len)
{
	size_t k = 0;

	for (; *name && k + 3 < len; name++) {
		if (*name == '-')
			out[k++] = '\\';
		out[k++] = *name;
	}
	out[k] = '\0';
}

/* Every option of every set is in --help once and in the man page's
 * section, under its transport's heading. */
static void test_help_and_man(void **state)
{
	char *help = capture(rp_cli_usage), *man = capture(rp_cli_xopts_man);
	char want[96], name[64];
	size_t s, i;

	(void)state;
	assert_true(rp_xport_options_count() > 0);
	for (s = 0; s < rp_xport_options_count(); s++) {
		const struct rp_xport_options *x = rp_xport_options_at(s);
		const char *sect;

		snprintf(want, sizeof(want), ".SS %s transport\n",
			 x->transport);
		sect = strstr(man, want);
		assert_non_null(sect);
		snprintf(want, sizeof(want), "\nThe %s transport",
			 x->transport);
		assert_non_null(strstr(help, want));
		for (i = 0; i < x->n_opts; i++) {
			const struct rp_xport_opt *o = &x->opts[i];
			const char *at, *next;

			assert_int_equal(count_opt(help, o->name), 1);
			roff(o->name, name, sizeof(name));
			snprintf(want, sizeof(want), "\\-\\-%s", name);
			at = strstr(sect, want);
			assert_non_null(at);
			next = strstr(sect + 1, ".SS ");
			assert_true(!next || at < next);
			assert_non_null(o->help);
			assert_non_null(o->man);
			assert_non_null(o->parse);
		}
	}
	free(help);
	free(man);
}

/* No option of a set shares its name or short flag with another option,
 * the generic ones included: getopt would take the first. */
static void test_names_unique(void **state)
{
	char *help = capture(rp_cli_usage);
	char flag[8];
	size_t s, i;

	(void)state;
	for (s = 0; s < rp_xport_options_count(); s++) {
		const struct rp_xport_options *x = rp_xport_options_at(s);

		assert_true(x->size <= RP_XPORT_OWN_BYTES);
		for (i = 0; i < x->n_opts; i++) {
			if (!x->opts[i].flag)
				continue;
			snprintf(flag, sizeof(flag), "  -%c,", x->opts[i].flag);
			assert_non_null(strstr(help, flag));
			assert_null(strstr(strstr(help, flag) + 1, flag));
		}
	}
	free(help);
}

/* getopt knows every option: one that takes a value says it needs one
 * (never "unknown flag"); each is refused with -x naming another
 * transport only, with the name the user gave. */
static void test_getopt_and_rule(void **state)
{
	char name[48], shortf[4];
	size_t s, i;

	(void)state;
	for (s = 0; s < rp_xport_options_count(); s++) {
		const struct rp_xport_options *x = rp_xport_options_at(s);

		for (i = 0; i < x->n_opts; i++) {
			const struct rp_xport_opt *o = &x->opts[i];

			snprintf(name, sizeof(name), "--%s", o->name);
			if (o->has_arg) {
				assert_int_equal(PARSE("-c", "-a", "h", name),
						 -EINVAL);
				assert_non_null(strstr(err, "needs a value"));
				assert_non_null(strstr(err, name));
			}
			if (o->flag) {
				snprintf(shortf, sizeof(shortf), "-%c",
					 o->flag);
				if (o->has_arg)
					assert_int_equal(
						PARSE("-c", "-a", "h", shortf),
						-EINVAL);
				assert_true(!o->has_arg ||
					    strstr(err, "needs a value"));
			}
			if (o->has_arg)
				continue;
			/* a flag: given with tcp alone, refused by rule */
			assert_int_equal(
				PARSE("-c", "-a", "h", "-x", "tcp", name),
				-EINVAL);
			assert_null(strstr(err, "unknown flag"));
			assert_non_null(strstr(err, name));
			assert_non_null(strstr(err, x->transport));
		}
	}
}

/* The blocks start at their defaults, and a parse resets them. */
static void test_blocks_reset(void **state)
{
	struct rp_xport_params a, b;
	size_t s;

	(void)state;
	memset(&a, 0x5a, sizeof(a));
	rp_xport_params_defaults(&a);
	rp_xport_params_defaults(&b);
	for (s = 0; s < rp_xport_options_count(); s++) {
		const struct rp_xport_options *x = rp_xport_options_at(s);

		assert_ptr_equal(rp_xport_own(&a, x), &a.own[s]);
		assert_memory_equal(rp_xport_own_c(&a, x),
				    rp_xport_own_c(&b, x), x->size);
	}
	assert_null(rp_xport_own_c(NULL, rp_xport_options_at(0)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help_and_man),
		cmocka_unit_test(test_names_unique),
		cmocka_unit_test(test_getopt_and_rule),
		cmocka_unit_test(test_blocks_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
