/* SPDX-License-Identifier: MIT */
/*
 * Failure reasons (struct rp_err, rp_errf: platform/err.h, the bottom layer,
 * so that platform/ says why too) and notes: something the user should know
 * that is not a failure, such as a setting that could not be applied.
 */
#ifndef RP_CORE_ERR_H
#define RP_CORE_ERR_H

#include <stdarg.h>
#include <stddef.h>

#include "platform/err.h"

/**
 * rp_notef - append a note (something the user should know that is not a
 * failure: a setting that could not be applied) to @buf of @len bytes,
 * separated from earlier ones by "; ". Silently truncated.
 */
__attribute__((format(printf, 3, 4))) void rp_notef(char *buf, size_t len,
						    const char *fmt, ...);

/** rp_vnotef - rp_notef() with a va_list. */
__attribute__((format(printf, 3, 0))) void
rp_vnotef(char *buf, size_t len, const char *fmt, va_list ap);

#endif
