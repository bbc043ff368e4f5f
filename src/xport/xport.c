// SPDX-License-Identifier: MIT
/*
 * What every transport shares: the operations a transport can do, the
 * endpoint's port, the generic part of streams and listeners, and the
 * payload pattern used by --verify (the registry is registry.c's).
 *
 * The pattern of message seq: its first 8 bytes hold seq, least significant
 * byte first (so even a 1-byte message tells neighbours apart), the rest is
 * a byte sequence seeded by seq, so a message that was reordered,
 * duplicated, torn or left stale does not pass for another one.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/json.h"
#include "xport/xport.h"

const char *rp_op_mask_list(uint32_t mask, char *buf, size_t len)
{
	size_t n = 0;
	int o;

	buf[0] = '\0';
	for (o = 0; o < RP_OP__COUNT && n < len; o++)
		if (mask & RP_OP_BIT(o))
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? ", " : "",
					      rp_op_name((enum rp_op)o));
	return buf;
}

int rp_xport_check_op(const struct rp_xport_ops *x, enum rp_op op,
		      struct rp_err *why)
{
	char list[96];

	if (x->op_mask & RP_OP_BIT(op))
		return 0;
	rp_op_mask_list(x->op_mask, list, sizeof(list));
	return rp_errf(why, -EOPNOTSUPP,
		       "transport %s cannot do %s; it does %s", x->name,
		       rp_op_name(op), list);
}

int rp_stream_add_link(const struct rp_xport_ops *ops, struct rp_stream *s,
		       cJSON *info)
{
	cJSON *link;

	if (!ops->link_facts)
		return 0;
	link = ops->link_facts(s);
	if (!link)
		return 0; /* nothing known of it */
	if (!cJSON_AddItemToObject(info, "link", link)) {
		cJSON_Delete(link);
		return -ENOMEM;
	}
	return 0;
}

int rp_endpoint_set_port(cJSON *endpoint, int port, struct rp_err *why)
{
	if (!cJSON_AddNumberToObject(endpoint, "port", port))
		return rp_errf(why, -ENOMEM, "out of memory for the endpoint");
	return 0;
}

int rp_endpoint_port(const cJSON *endpoint, uint16_t *port, struct rp_err *why)
{
	uint64_t v;

	if (rp_json_u64(endpoint, "port", 65535, &v) || v == 0)
		return rp_errf(why, -EBADMSG,
			       "the server's endpoint has no valid \"port\"");
	*port = (uint16_t)v;
	return 0;
}

void rp_stream_init(struct rp_stream *s, const struct rp_xport_ops *ops,
		    const struct rp_spec *spec, enum rp_role role)
{
	s->ops = ops;
	s->spec = *spec;
	s->role = role;
	rp_err_clear(&s->err);
	s->note[0] = '\0';
}

const char *rp_role_name(enum rp_role role)
{
	return role == RP_ROLE_INITIATOR ? "initiator" : "responder";
}

void rp_listener_init(struct rp_listener *l, const struct rp_xport_ops *ops,
		      const struct rp_spec *spec)
{
	l->ops = ops;
	l->spec = *spec;
	rp_err_clear(&l->err);
	l->dropped = 0;
	l->drop_note[0] = '\0';
}

void rp_listener_drop(struct rp_listener *l, const char *fmt, ...)
{
	va_list ap;

	l->dropped++;
	va_start(ap, fmt);
	vsnprintf(l->drop_note, sizeof(l->drop_note), fmt, ap);
	va_end(ap);
}

int rp_stream_fail(struct rp_stream *s, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err = rp_verrf(&s->err, err, fmt, ap);
	va_end(ap);
	return err;
}

void rp_stream_note(struct rp_stream *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rp_vnotef(s->note, sizeof(s->note), fmt, ap);
	va_end(ap);
}

static inline uint8_t pattern_byte(uint64_t seq, size_t i)
{
	return (uint8_t)((seq * 131u + i * 7u + (i >> 8)) ^ 0x5a);
}

void rp_payload_fill(uint8_t *buf, size_t len, uint64_t seq)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = i < 8 ? (uint8_t)(seq >> (8 * i))
			       : pattern_byte(seq, i);
}

int rp_payload_check(const uint8_t *buf, size_t len, uint64_t seq)
{
	size_t i;

	for (i = 0; i < len; i++) {
		uint8_t want = i < 8 ? (uint8_t)(seq >> (8 * i))
				     : pattern_byte(seq, i);
		if (buf[i] != want)
			return -EIO;
	}
	return 0;
}
