// SPDX-License-Identifier: MIT
/* Failure reasons and notes: formatting only, no I/O. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"

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

void rp_vnotef(char *buf, size_t len, const char *fmt, va_list ap)
{
	size_t used = strnlen(buf, len);

	if (used + 3 >= len)
		return;
	if (used) {
		memcpy(buf + used, "; ", 3);
		used += 2;
	}
	vsnprintf(buf + used, len - used, fmt, ap);
}

void rp_notef(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rp_vnotef(buf, len, fmt, ap);
	va_end(ap);
}
