// SPDX-License-Identifier: MIT
/* Failure reasons and notes: formatting only, no I/O. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"

int rp_errf(struct rp_err *e, int err, const char *fmt, ...)
{
	va_list ap;

	if (!e || e->msg[0])
		return err;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return err;
}

const char *rp_err_text(const struct rp_err *e, int err)
{
	if (rp_err_set(e))
		return e->msg;
	return strerror(err < 0 ? -err : err);
}

void rp_notef(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	va_list ap;

	if (used + 3 >= len)
		return;
	if (used) {
		memcpy(buf + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}
