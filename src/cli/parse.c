// SPDX-License-Identifier: MIT
/*
 * The bottom file of the parser: what every option handler calls to refuse
 * its argument (rp_cli_bad) or to read a count in a range (rp_cli_num_in).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "cli/parse.h"
#include "core/units.h"

int rp_cli_bad(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, p->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int rp_cli_num_in(struct parse *p, const char *flag, const char *arg,
		  uint64_t lo, uint64_t hi, uint64_t *out)
{
	return rp_units_count_in(flag, arg, lo, hi, out, p->err, p->errlen);
}
