// SPDX-License-Identifier: MIT
/* Notes: formatting only, no I/O. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"

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
