// SPDX-License-Identifier: MIT
/* Failure reasons: formatting only, no I/O. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "platform/err.h"

int rp_verrf(struct rp_err *e, int err, const char *fmt, va_list ap)
{
	if (e && !e->msg[0])
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	return err;
}

int rp_errf(struct rp_err *e, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err = rp_verrf(e, err, fmt, ap);
	va_end(ap);
	return err;
}

const char *rp_err_text(const struct rp_err *e, int err)
{
	if (rp_err_set(e))
		return e->msg;
	return strerror(err < 0 ? -err : err);
}
