/* SPDX-License-Identifier: MIT */
/*
 * A record's members described once, as a table, and walked generically:
 * written to a cJSON object, read back from one. One table serves every
 * form a record takes; a flag says which walkers include a field:
 *
 *   form           written by            read back by
 *   RP_FIELD_WIRE  rp_fields_write       rp_fields_read (lenient) or
 *                                        rp_fields_decode (one-line errors)
 *   RP_FIELD_DOC   rp_fields_write       rp_fields_read (the saved document)
 *
 * The wire carries values as they are (nanoseconds); the user's document
 * holds value / scale (microseconds for scale 1e3) and prints a figure
 * that is not finite as null. Readers never fail on hostile input except
 * rp_fields_decode, which refuses it with the reason, naming the field.
 */
#ifndef RP_CORE_FIELDS_H
#define RP_CORE_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

enum rp_field_kind {
	RP_FIELD_U64,	 /* uint64_t */
	RP_FIELD_U32,	 /* uint32_t */
	RP_FIELD_DOUBLE, /* double */
	RP_FIELD_BOOL,	 /* bool */
	RP_FIELD_STRING, /* char[size], NUL-terminated */
	RP_FIELD_ENUM,	 /* an enum, by its name (struct rp_field_enum) */
	RP_FIELD_TEXT,	 /* the constant string text, written only */
	RP_FIELD_OBJECT, /* a nested struct at off, described by sub */
	RP_FIELD_GROUP,	 /* a nested JSON object of sub: members of this
			  * same struct (offsets from its start) */
	RP_FIELD_HOOK,	 /* written by put (what no other kind says: a
			  * list, a figure derived); read by the caller */
};

enum rp_field_form { RP_FIELD_WIRE, RP_FIELD_DOC, RP_FIELD__FORMS };

/* Which walkers include a field. */
#define RP_FIELD_IN_WIRE (1u << RP_FIELD_WIRE)
#define RP_FIELD_IN_DOC	 (1u << RP_FIELD_DOC)
#define RP_FIELD_IN_BOTH (RP_FIELD_IN_WIRE | RP_FIELD_IN_DOC)
/* has_off names a bool: false, the field is not written (an OBJECT in the
 * document: null); reading an OBJECT sets it to whether one is there. */
#define RP_FIELD_HAS 0x10u
/* Written only when nonzero (true); absent, it reads as 0. */
#define RP_FIELD_SPARSE 0x20u
/* rp_fields_decode: absent reads as dflt instead of being refused. */
#define RP_FIELD_OPTIONAL 0x40u
/* A zero is written as dflt (a count that means "one" when unset). */
#define RP_FIELD_ZERO_DFLT 0x80u
/* Written, never read (a figure derived from one read elsewhere). */
#define RP_FIELD_WRITE_ONLY 0x100u

/** An enum's names: values 0..n-1. */
struct rp_field_enum {
	int n;
	const char *(*name)(int v); /* any v: out of range, "unknown" */
	/* the document reader's parse (other spellings too); NULL: by
	 * name only. Return: 0, or -EINVAL leaving *out alone. */
	int (*parse)(const char *s, int *out);
};

struct rp_field;

/* rp_fields_decode: refuse @v for @f with a one-line reason in @err. */
typedef int (*rp_field_check_fn)(const struct rp_field *f, uint64_t v,
				 char *err, size_t errlen);

/* RP_FIELD_HOOK: write @f's member(s) of @base into @o. Return: 0 or
 * -ENOMEM. */
typedef int (*rp_field_put_fn)(cJSON *o, const struct rp_field *f,
			       const void *base);

/** One member of a record. */
struct rp_field {
	const char *key; /* its JSON name */
	size_t off;	 /* in the struct walked */
	enum rp_field_kind kind;
	unsigned int flags; /* RP_FIELD_IN_* and the modifiers above */
	/* RP_FIELD_DOC holds value / scale; 0 is 1 */
	double scale;
	/*
	 * The largest value read; 0: the kind's own (2^53 for u64 in the
	 * document, UINT32_MAX for u32; none for a double). Above it, the
	 * document reader clamps to it, the wire reader reads 0.
	 */
	double max;
	double dflt;	  /* RP_FIELD_OPTIONAL, RP_FIELD_ZERO_DFLT */
	size_t has_off;	  /* RP_FIELD_HAS: the bool, in the same struct */
	size_t size;	  /* RP_FIELD_STRING: the array's size */
	const char *text; /* RP_FIELD_TEXT */
	const struct rp_field_enum *en; /* RP_FIELD_ENUM */
	const struct rp_field *sub;	/* RP_FIELD_OBJECT, RP_FIELD_GROUP */
	size_t n_sub;
	rp_field_check_fn check; /* rp_fields_decode, integers; NULL: none */
	rp_field_put_fn put;	 /* RP_FIELD_HOOK */
};

#define RP_FIELDS_N(t) (sizeof(t) / sizeof((t)[0]))

/**
 * rp_fields_write - the fields of @f[0..@n) that @form includes, from the
 * struct at @base into the object @o, in table order.
 * Return: 0, or -ENOMEM.
 */
int rp_fields_write(cJSON *o, const void *base, const struct rp_field *f,
		    size_t n, enum rp_field_form form);

/**
 * rp_fields_read - the inverse, never failing: a missing or mistyped member
 * reads as 0 (an enum keeps its value). RP_FIELD_WIRE: what a peer sent;
 * whole numbers to 2^53 (or decimal strings), a double finite and in
 * [0, max] or 0. RP_FIELD_DOC: a saved document; integers clamped to
 * [0, max], fractions cut; null reads as NAN; value * scale, the double
 * that prints the same value again.
 */
void rp_fields_read(const cJSON *o, void *base, const struct rp_field *f,
		    size_t n, enum rp_field_form form);

/**
 * rp_fields_decode - the wire fields of @f from @o, strictly: a missing
 * field (unless RP_FIELD_OPTIONAL), a mistyped one, a number that is not
 * whole in [0, 2^53], a u32 above UINT32_MAX, a string that does not fit,
 * an unknown name, each refused with "@what field \"key\" ..." in @err.
 * Fields are read in table order; the first refused stops.
 * Return: 0, or -EINVAL.
 */
int rp_fields_decode(const cJSON *o, void *base, const struct rp_field *f,
		     size_t n, const char *what, char *err, size_t errlen);

/**
 * rp_fields_unscale - @v * @scale, or the double nearest it whose value /
 * @scale is @v again, so that a figure read back prints as it was.
 */
double rp_fields_unscale(double v, double scale);

#endif
