// SPDX-License-Identifier: MIT
/*
 * The walkers of a record's field table (fields.h): write, read leniently,
 * decode strictly. What differs per kind lives in small functions chosen
 * by switch at one place each; what differs per form, in the two writers'
 * and readers' number rules.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/fields.h"
#include "core/json.h"

#define AT(base, f)	  ((char *)(base) + (f)->off)
#define AT_C(base, f)	  ((const char *)(base) + (f)->off)
#define HAS_AT(base, f)	  ((bool *)((char *)(base) + (f)->has_off))
#define HAS_AT_C(base, f) ((const bool *)((const char *)(base) + (f)->has_off))

static double scale_of(const struct rp_field *f, enum rp_field_form form)
{
	return form == RP_FIELD_DOC && f->scale != 0 ? f->scale : 1;
}

static bool in_form(const struct rp_field *f, enum rp_field_form form)
{
	return f->flags & (1u << form);
}

/* ---- writing ------------------------------------------------------------ */

/* An integer or double field of @base as a double (unscaled). */
static double num_of(const struct rp_field *f, const void *base)
{
	switch (f->kind) {
	case RP_FIELD_U64:
		return (double)*(const uint64_t *)AT_C(base, f);
	case RP_FIELD_U32:
		return *(const uint32_t *)AT_C(base, f);
	case RP_FIELD_DOUBLE:
		return *(const double *)AT_C(base, f);
	case RP_FIELD_BOOL:
		return *(const bool *)AT_C(base, f);
	case RP_FIELD_ENUM:
		return *(const int *)AT_C(base, f);
	case RP_FIELD_STRING: /* sparse: "" is absent */
		return *(const char *)AT_C(base, f) != 0;
	default:
		return 0;
	}
}

static bool put_num(cJSON *o, const struct rp_field *f, double v,
		    enum rp_field_form form)
{
	if (f->flags & RP_FIELD_ZERO_DFLT && v == 0)
		v = f->dflt;
	v /= scale_of(f, form);
	if (!isfinite(v)) {
		if (form == RP_FIELD_WIRE)
			return cJSON_AddNumberToObject(o, f->key, 0);
		return cJSON_AddNullToObject(o, f->key);
	}
	return cJSON_AddNumberToObject(o, f->key, v);
}

static bool put_string(cJSON *o, const struct rp_field *f, const void *base)
{
	char buf[256];
	int len = f->size ? (int)f->size - 1 : 0;

	snprintf(buf, sizeof(buf), "%.*s", len, AT_C(base, f));
	return cJSON_AddStringToObject(o, f->key, buf);
}

static int put_nested(cJSON *o, const struct rp_field *f, const void *base,
		      enum rp_field_form form)
{
	const void *inner = f->kind == RP_FIELD_OBJECT ? AT_C(base, f) : base;
	cJSON *sub;

	if (f->flags & RP_FIELD_HAS && !*HAS_AT_C(base, f)) {
		if (form == RP_FIELD_WIRE) /* absent */
			return 0;
		return cJSON_AddNullToObject(o, f->key) ? 0 : -ENOMEM;
	}
	sub = cJSON_AddObjectToObject(o, f->key);
	if (!sub)
		return -ENOMEM;
	return rp_fields_write(sub, inner, f->sub, f->n_sub, form);
}

static int put_one(cJSON *o, const struct rp_field *f, const void *base,
		   enum rp_field_form form)
{
	bool ok;

	switch (f->kind) {
	case RP_FIELD_OBJECT:
	case RP_FIELD_GROUP:
		return put_nested(o, f, base, form);
	case RP_FIELD_BOOL:
		ok = cJSON_AddBoolToObject(o, f->key,
					   *(const bool *)AT_C(base, f));
		break;
	case RP_FIELD_STRING:
		ok = put_string(o, f, base);
		break;
	case RP_FIELD_ENUM:
		ok = cJSON_AddStringToObject(
			o, f->key, f->en->name(*(const int *)AT_C(base, f)));
		break;
	case RP_FIELD_TEXT:
		ok = cJSON_AddStringToObject(o, f->key, f->text);
		break;
	case RP_FIELD_HOOK:
		return f->put(o, f, base);
	default:
		ok = put_num(o, f, num_of(f, base), form);
		break;
	}
	return ok ? 0 : -ENOMEM;
}

/* Whether @f is written at all: its form, its presence, its value. */
static bool written(const struct rp_field *f, const void *base,
		    enum rp_field_form form)
{
	if (!in_form(f, form))
		return false;
	if (f->flags & RP_FIELD_SPARSE && num_of(f, base) == 0)
		return false;
	if (f->flags & RP_FIELD_HAS && f->kind != RP_FIELD_OBJECT &&
	    f->kind != RP_FIELD_GROUP && !*HAS_AT_C(base, f))
		return false;
	return true;
}

int rp_fields_write(cJSON *o, const void *base, const struct rp_field *f,
		    size_t n, enum rp_field_form form)
{
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		if (!written(&f[i], base, form))
			continue;
		err = put_one(o, &f[i], base, form);
		if (err)
			return err;
	}
	return 0;
}

/* ---- reading ------------------------------------------------------------ */

static double miss(double x, double scale, double v)
{
	return fabs(x / scale - v);
}

/* v * scale rounds, so it may land an ulp or two from the value that gives
 * v back: look at its neighbours. Not every v has one: then the nearest,
 * which cJSON prints as the same text. */
double rp_fields_unscale(double v, double scale)
{
	double x = v * scale, best = x, up = x, down = x;
	int i;

	if (!isfinite(x) || scale == 1)
		return x;
	for (i = 0; i < 4 && miss(best, scale, v) > 0; i++) {
		up = nextafter(up, INFINITY);
		down = nextafter(down, -INFINITY);
		if (miss(up, scale, v) < miss(best, scale, v))
			best = up;
		if (miss(down, scale, v) < miss(best, scale, v))
			best = down;
	}
	return best;
}

static double int_max(const struct rp_field *f, enum rp_field_form form)
{
	if (f->max > 0)
		return f->max;
	if (f->kind == RP_FIELD_U32)
		return UINT32_MAX;
	return form == RP_FIELD_DOC ? RP_JSON_MAX_EXACT
				    : 18446744073709551615.0;
}

/* The document's integer: clamped to [0, max], a fraction cut; with a
 * scale, the nearest whole number of it, and 0 out of range. */
static uint64_t doc_int(const cJSON *v, const struct rp_field *f)
{
	double max = int_max(f, RP_FIELD_DOC), s = scale_of(f, RP_FIELD_DOC);
	double d;

	if (!cJSON_IsNumber(v))
		return 0;
	d = v->valuedouble;
	if (s != 1)
		return d > 0 && d < max / s ? (uint64_t)llround(d * s) : 0;
	if (!(d > 0))
		return 0;
	return d >= max ? (uint64_t)max : (uint64_t)d;
}

/* A peer's integer: a whole number to 2^53 or a decimal string, at most
 * max; else 0. */
static uint64_t wire_int(const cJSON *o, const struct rp_field *f)
{
	uint64_t v = rp_json_u64_or(o, f->key, 0);

	return (double)v > int_max(f, RP_FIELD_WIRE) ? 0 : v;
}

static double read_double(const cJSON *v, const struct rp_field *f,
			  enum rp_field_form form)
{
	double d;

	if (form == RP_FIELD_DOC) {
		if (!cJSON_IsNumber(v))
			return cJSON_IsNull(v) ? NAN : 0;
		return rp_fields_unscale(v->valuedouble, scale_of(f, form));
	}
	if (!cJSON_IsNumber(v))
		return 0;
	d = v->valuedouble;
	if (!isfinite(d) || d < 0 || (f->max > 0 && d > f->max))
		return 0;
	return d;
}

static void get_int(const cJSON *o, const cJSON *v, void *base,
		    const struct rp_field *f, enum rp_field_form form)
{
	uint64_t x = form == RP_FIELD_DOC ? doc_int(v, f) : wire_int(o, f);

	if (f->kind == RP_FIELD_U64)
		*(uint64_t *)AT(base, f) = x;
	else
		*(uint32_t *)AT(base, f) = (uint32_t)x;
}

static void get_enum(const cJSON *v, void *base, const struct rp_field *f)
{
	int i;

	if (!cJSON_IsString(v) || !v->valuestring)
		return;
	if (f->en->parse) {
		f->en->parse(v->valuestring, (int *)AT(base, f));
		return;
	}
	for (i = 0; i < f->en->n; i++)
		if (!strcmp(v->valuestring, f->en->name(i)))
			*(int *)AT(base, f) = i;
}

static void get_nested(const cJSON *v, void *base, const struct rp_field *f,
		       enum rp_field_form form)
{
	void *inner = f->kind == RP_FIELD_OBJECT ? AT(base, f) : base;

	if (f->flags & RP_FIELD_HAS) {
		*HAS_AT(base, f) = cJSON_IsObject(v);
		if (!cJSON_IsObject(v))
			return;
	}
	rp_fields_read(cJSON_IsObject(v) ? v : NULL, inner, f->sub, f->n_sub,
		       form);
}

static void get_one(const cJSON *o, void *base, const struct rp_field *f,
		    enum rp_field_form form)
{
	const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, f->key) : NULL;

	switch (f->kind) {
	case RP_FIELD_U64:
	case RP_FIELD_U32:
		get_int(o, v, base, f, form);
		break;
	case RP_FIELD_DOUBLE:
		*(double *)AT(base, f) = read_double(v, f, form);
		break;
	case RP_FIELD_BOOL:
		*(bool *)AT(base, f) = cJSON_IsTrue(v);
		break;
	case RP_FIELD_STRING:
		snprintf(AT(base, f), f->size, "%s",
			 cJSON_IsString(v) && v->valuestring ? v->valuestring
							     : "");
		break;
	case RP_FIELD_ENUM:
		get_enum(v, base, f);
		break;
	case RP_FIELD_OBJECT:
	case RP_FIELD_GROUP:
		get_nested(v, base, f, form);
		break;
	case RP_FIELD_TEXT:
	case RP_FIELD_HOOK:
		break;
	}
}

void rp_fields_read(const cJSON *o, void *base, const struct rp_field *f,
		    size_t n, enum rp_field_form form)
{
	size_t i;

	if (!cJSON_IsObject(o))
		o = NULL;
	for (i = 0; i < n; i++)
		if (in_form(&f[i], form) && !(f[i].flags & RP_FIELD_WRITE_ONLY))
			get_one(o, base, &f[i], form);
}

/* ---- decoding ----------------------------------------------------------- */

__attribute__((format(printf, 3, 4))) static int errf(char *err, size_t len,
						      const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* A rejected number as the user wrote it: 1152921504606846976, not 1e18. */
static void number_text(double d, char *buf, size_t len)
{
	double mag = d < 0 ? -d : d;

	if (mag < 1e20 && (mag >= RP_JSON_MAX_EXACT || d == (double)(int64_t)d))
		snprintf(buf, len, "%.0f", d);
	else
		snprintf(buf, len, "%.17g", d);
}

struct dec {
	const char *what;
	char *err;
	size_t errlen;
};

static int dec_int(const struct dec *d, const cJSON *o, const cJSON *v,
		   void *base, const struct rp_field *f)
{
	char num[32];
	uint64_t x;

	if (!cJSON_IsNumber(v))
		return errf(d->err, d->errlen,
			    "%s field \"%s\" must be a number", d->what,
			    f->key);
	if (rp_json_u64(o, f->key, UINT64_MAX, &x)) {
		number_text(v->valuedouble, num, sizeof(num));
		return errf(d->err, d->errlen,
			    "%s field \"%s\" is %s: accepted whole numbers 0 "
			    "to %.0f",
			    d->what, f->key, num, RP_JSON_MAX_EXACT);
	}
	if (f->check && f->check(f, x, d->err, d->errlen))
		return -EINVAL;
	if (f->kind == RP_FIELD_U64) {
		*(uint64_t *)AT(base, f) = x;
		return 0;
	}
	if (x > UINT32_MAX)
		return errf(d->err, d->errlen,
			    "%s field \"%s\" is %llu: too large", d->what,
			    f->key, (unsigned long long)x);
	*(uint32_t *)AT(base, f) = (uint32_t)x;
	return 0;
}

static int dec_string(const struct dec *d, const cJSON *v, void *base,
		      const struct rp_field *f)
{
	if (!cJSON_IsString(v) || !v->valuestring)
		return errf(d->err, d->errlen,
			    "%s field \"%s\" must be a string", d->what,
			    f->key);
	if (f->kind == RP_FIELD_ENUM)
		return 0;
	if (strlen(v->valuestring) >= f->size)
		return errf(d->err, d->errlen,
			    "%s field \"%s\" too long: accepted up to %zu "
			    "characters",
			    d->what, f->key, f->size - 1);
	strcpy(AT(base, f), v->valuestring);
	return 0;
}

/* Only an enum's names are accepted, exactly: other spellings (letters)
 * are for the command line. */
static int dec_enum(const struct dec *d, const char *s, void *base,
		    const struct rp_field *f)
{
	char names[256] = "";
	size_t len = 0;
	int i;

	for (i = 0; i < f->en->n; i++) {
		if (!strcmp(s, f->en->name(i))) {
			*(int *)AT(base, f) = i;
			return 0;
		}
	}
	for (i = 0; i < f->en->n && len < sizeof(names); i++)
		len += (size_t)snprintf(names + len, sizeof(names) - len,
					"%s%s", i ? ", " : "", f->en->name(i));
	return errf(d->err, d->errlen, "%s field \"%s\" unknown: accepted %s",
		    d->what, f->key, names);
}

/* An absent RP_FIELD_OPTIONAL (or RP_FIELD_SPARSE) field: its default. */
static void dec_default(void *base, const struct rp_field *f)
{
	switch (f->kind) {
	case RP_FIELD_U64:
		*(uint64_t *)AT(base, f) = (uint64_t)f->dflt;
		break;
	case RP_FIELD_U32:
		*(uint32_t *)AT(base, f) = (uint32_t)f->dflt;
		break;
	case RP_FIELD_BOOL:
		*(bool *)AT(base, f) = f->dflt != 0;
		break;
	case RP_FIELD_ENUM:
		*(int *)AT(base, f) = (int)f->dflt;
		break;
	case RP_FIELD_STRING:
		*(char *)AT(base, f) = 0;
		break;
	default:
		break;
	}
}

static int dec_one(const struct dec *d, const cJSON *o, void *base,
		   const struct rp_field *f)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, f->key);

	if (!v && f->flags & (RP_FIELD_OPTIONAL | RP_FIELD_SPARSE)) {
		dec_default(base, f);
		return 0;
	}
	if (!v)
		return errf(d->err, d->errlen, "%s field \"%s\" is missing",
			    d->what, f->key);
	switch (f->kind) {
	case RP_FIELD_U64:
	case RP_FIELD_U32:
		return dec_int(d, o, v, base, f);
	case RP_FIELD_BOOL:
		if (!cJSON_IsBool(v))
			return errf(d->err, d->errlen,
				    "%s field \"%s\" must be true or false",
				    d->what, f->key);
		*(bool *)AT(base, f) = cJSON_IsTrue(v);
		return 0;
	case RP_FIELD_STRING:
		return dec_string(d, v, base, f);
	case RP_FIELD_ENUM:
		if (dec_string(d, v, base, f))
			return -EINVAL;
		return dec_enum(d, v->valuestring, base, f);
	default:
		return 0;
	}
}

int rp_fields_decode(const cJSON *o, void *base, const struct rp_field *f,
		     size_t n, const char *what, char *err, size_t errlen)
{
	struct dec d = { .what = what, .err = err, .errlen = errlen };
	size_t i;

	for (i = 0; i < n; i++) {
		if (in_form(&f[i], RP_FIELD_WIRE) &&
		    dec_one(&d, o, base, &f[i]))
			return -EINVAL;
	}
	return 0;
}
