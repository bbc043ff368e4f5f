// SPDX-License-Identifier: MIT
/* Strings from elsewhere made safe to print (safe.h has the rules). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/safe.h"

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */
#define SAFE_CAP    (4 * RP_SAFE_MAX + 32)

/* The length of the valid UTF-8 sequence at @s (1..4), or 0 if the byte
 * there starts none: overlong forms, surrogates, past U+10FFFF. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0; /* overlong */
	else if (c == 0xed)
		hi = 0x9f; /* surrogates */
	else if (c == 0xf0)
		lo = 0x90; /* overlong */
	else if (c == 0xf4)
		hi = 0x8f; /* past U+10FFFF */
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* Whether the sequence of @n bytes at @s is a control character. */
static bool is_control(const unsigned char *s, size_t n)
{
	if (n == 1)
		return s[0] < 0x20 || s[0] == 0x7f;
	return n == 2 && s[0] == 0xc2 && s[1] <= 0x9f;
}

/* How @n bytes at @s are written: into @buf (at least 16 bytes), its
 * length returned. */
static size_t shown(const unsigned char *s, size_t n, char *buf)
{
	static const char named[] = { '\n', 'n', '\r', 'r', '\t', 't' };
	size_t i, len = 0;

	if (!n) {
		memcpy(buf, REPLACEMENT, 3);
		return 3;
	}
	if (!is_control(s, n)) {
		memcpy(buf, s, n);
		return n;
	}
	for (i = 0; n == 1 && i < sizeof(named); i += 2)
		if (s[0] == (unsigned char)named[i]) {
			buf[0] = '\\';
			buf[1] = named[i + 1];
			return 2;
		}
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, 5, "\\x%02x", s[i]);
	return len;
}

bool rp_safe_is_clean(const char *in)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t i = 0, n;

	while (s[i]) {
		n = utf8_len(s + i);
		if (!n || is_control(s + i, n) ||
		    i + n > RP_SAFE_MAX + RP_SAFE_TAIL)
			return false;
		i += n;
	}
	return true;
}

size_t rp_safe_text(char *out, size_t cap, const char *in)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t i = 0, len = 0, n, k;
	char buf[16];

	if (!cap)
		return 0;
	n = strlen(in);
	if (n < cap && rp_safe_is_clean(in)) { /* what this wrote stays so */
		memcpy(out, in, n + 1);
		return n;
	}
	while (s[i]) {
		n = utf8_len(s + i);
		k = shown(s + i, n, buf);
		if (len + k > RP_SAFE_MAX || len + k >= cap)
			break;
		memcpy(out + len, buf, k);
		len += k;
		i += n ? n : 1;
	}
	out[len] = '\0';
	if (s[i]) {
		n = (size_t)snprintf(buf, sizeof(buf), "...[+%zu",
				     strlen(in + i));
		if (len + n + sizeof(" bytes]") <= cap)
			len += (size_t)snprintf(out + len, cap - len,
						"%s bytes]", buf);
	}
	return len;
}

/* @*str made safe: replaced by a new copy from cJSON's allocator unless
 * already clean; @owned: whether the old one is ours to free.
 * Return: 1 if replaced, 0 if clean, -ENOMEM. */
static int clean_string(char **str, bool owned)
{
	char buf[SAFE_CAP], *copy;
	size_t len;

	if (!*str || rp_safe_is_clean(*str))
		return 0;
	len = rp_safe_text(buf, sizeof(buf), *str);
	copy = cJSON_malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, len + 1);
	if (owned)
		cJSON_free(*str);
	*str = copy;
	return 1;
}

/* One item and, below it, its children (cJSON's parser bounds the depth:
 * CJSON_NESTING_LIMIT). */
static int clean_item(cJSON *item)
{
	bool key_owned = !(item->type & cJSON_StringIsConst);
	cJSON *c;
	int err;

	err = clean_string(&item->string, key_owned);
	if (err > 0) /* the key is a copy of ours now */
		item->type &= ~cJSON_StringIsConst;
	if (err >= 0 && cJSON_IsString(item))
		err = clean_string(&item->valuestring, true);
	for (c = item->child; err >= 0 && c; c = c->next)
		err = clean_item(c);
	return err < 0 ? err : 0;
}

int rp_safe_json(cJSON *root)
{
	return root ? clean_item(root) : 0;
}
