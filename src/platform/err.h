/* SPDX-License-Identifier: MIT */
/*
 * A reason for a failure. The layer that fails says why, once, into a
 * struct rp_err that travels up beside the negative errno; only cli/ (or the
 * server's log) prints it. The first reason recorded is kept: it is the
 * cause, what follows it is consequence. It lives at the bottom layer so
 * that platform/ (a name that does not resolve) can say why too; notes
 * (core/err.h) are built on it.
 */
#ifndef RP_PLATFORM_ERR_H
#define RP_PLATFORM_ERR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "platform/errnos.h"

#define RP_ERR_LEN 256

struct rp_err {
	char msg[RP_ERR_LEN];
};

/**
 * rp_errf - record a reason in @e, unless it already holds one.
 * @e: may be NULL (the reason is dropped).
 * @err: the negative errno handed back.
 * Return: @err, for `return rp_errf(e, -EIO, "...")`.
 */
__attribute__((format(printf, 3, 4))) int rp_errf(struct rp_err *e, int err,
						  const char *fmt, ...);

/** rp_verrf - rp_errf() with a va_list, for wrappers that add a context. */
__attribute__((format(printf, 3, 0))) int rp_verrf(struct rp_err *e, int err,
						   const char *fmt, va_list ap);

/** rp_err_set - true when @e holds a reason. */
static inline bool rp_err_set(const struct rp_err *e)
{
	return e && e->msg[0];
}

/** rp_err_clear - forget the reason @e holds (NULL accepted). */
static inline void rp_err_clear(struct rp_err *e)
{
	if (e)
		e->msg[0] = '\0';
}

/**
 * rp_err_text - the reason of @e, or, when none was recorded, the text of
 * the errno @err. Never NULL.
 */
const char *rp_err_text(const struct rp_err *e, int err);

#endif
