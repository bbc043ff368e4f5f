/* SPDX-License-Identifier: MIT */
/*
 * Strings that came from elsewhere (a peer's HELLO or ERROR, a saved
 * document) made safe to print: a terminal must never see a raw control
 * character (ESC starts a sequence that can rewrite the screen or the
 * title), a JSON text must never carry invalid UTF-8, and no one string may
 * fill a screen. The rules, in one place for every layer:
 *
 *   - a control character (C0, DEL, and the C1 range U+0080..U+009F) is
 *     written as text: \n \r \t as such, any other as \xNN (its code unit,
 *     or for C1 its UTF-8 bytes: \xc2\x9b);
 *   - a byte that does not start or continue a valid UTF-8 sequence
 *     (overlong forms, surrogates and code points past U+10FFFF included)
 *     becomes U+FFFD, one per byte;
 *   - a string that needs any of that, or is longer than RP_SAFE_MAX +
 *     RP_SAFE_TAIL bytes, keeps at most RP_SAFE_MAX bytes of its safe
 *     form, cut at a character, and then "..." and the count of input
 *     bytes left out ("...[+1048320 bytes]");
 *   - a string already safe (valid, no control, at most RP_SAFE_MAX +
 *     RP_SAFE_TAIL bytes) is kept as it is, so that what this wrote is
 *     never changed again (a document read back gives itself).
 */
#ifndef RP_CORE_SAFE_H
#define RP_CORE_SAFE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#define RP_SAFE_MAX  256 /* bytes of a string's safe form kept */
#define RP_SAFE_TAIL 32	 /* room for the "...[+N bytes]" after them */

/**
 * rp_safe_text - @in made safe (the rules above) into @out of @cap bytes,
 * NUL-terminated; cut short, still whole characters, if @cap is too small
 * (4 * RP_SAFE_MAX + 32 bytes always hold the result of a cut string).
 * Return: the length written.
 */
size_t rp_safe_text(char *out, size_t cap, const char *in);

/** rp_safe_is_clean - whether @in is already safe (rp_safe_text would copy
 * it unchanged). */
bool rp_safe_is_clean(const char *in);

/**
 * rp_safe_json - every string value and every key in the tree @root made
 * safe in place (those already clean are left alone). Linear in the size
 * of the tree.
 * Return: 0, or -ENOMEM (the tree is then partly cleaned, still valid).
 */
int rp_safe_json(cJSON *root);

#endif
