/* SPDX-License-Identifier: MIT */
/*
 * The "ofi" transport's private header: one libfabric endpoint per stream,
 * on the provider -x names (ofi:PROV) or the one libfabric ranks first
 * (-x ofi), of the type --ep-type asks for or the server picks: reliable
 * datagrams (FI_EP_RDM, drawn below) or connected (FI_EP_MSG: a passive
 * endpoint's port in the listener's endpoint, fi_connect and fi_accept in
 * accept and connect; cm.c draws it).
 *
 *   Server                                        Client
 *   listen: fi_getinfo for the provider
 *     endpoint {"provider": P}  ~~~~~~~~~~~~~~~~>  fi_getinfo for P
 *   accept: open fabric, domain, AV, CQ,           connect: the same
 *     endpoint, buffer and MR
 *   local_info: fi_getname, buffer address, MR key ~~~~ both ways
 *   set_peer: fi_av_insert the peer's name
 *   ... set_point, phases ...
 *   close: endpoint, MR, CQ, AV, domain, fabric
 *
 * FI_EP_RDM: no data connection is made: the endpoint reaches the peer through
 * its address vector once the control connection has carried the names, so
 * accept() never waits and the stream's token is not needed (the control
 * connection authenticated the peer). Each stream has its own fabric,
 * domain and endpoint, used by one thread (FI_THREAD_DOMAIN).
 *
 * Memory: each side registers one buffer of slots once, for the setup
 * point (the sweep's largest): slot_bytes stride, nslots slots (the setup
 * depth, at least two: slot 1 takes latency echoes; a send responder's
 * receives, depth + OFI_RECV_MARGIN). Operation seq goes from the
 * initiator's slot seq % depth to the responder's slot seq % depth, as on
 * the rdma transport. The MR is registered as the domain's mr_mode says
 * (FI_MR_LOCAL: every local buffer passes its descriptor; FI_MR_VIRT_ADDR:
 * remote addresses are virtual, else offsets; FI_MR_PROV_KEY: the key is
 * the provider's; FI_MR_ENDPOINT: bound to the endpoint and enabled).
 *
 * Progress: the providers here have manual data progress, so a responder
 * reads its CQ all through a phase, even for one-sided operations (a
 * write or read to it completes only as it does); that costs it a CPU the
 * rdma transport's responder does not spend, and the notes say so.
 *
 * Waiting (spec.wait): busy reads the CQ; event opens it with an FD wait
 * object: arm() is fi_trywait, then poll(2) on the FD.
 *
 * What differs per operation is one entry of ofi_ops[] (ops.c). Files:
 * caps.c (names, the capabilities each op needs, what a provider grants;
 * pure), errors.c (reasons), msg.c (a message, tagged or not), fabric.c
 * (fi_getinfo, opening and closing a fabric and domain), setup.c (a
 * stream's endpoint, CQ, buffer and MR), cm.c (FI_EP_MSG's connections),
 * stream.c (the ops that make
 * streams and swap names), post.c (the initiator), serve.c (the
 * responder), ops.c (the per-operation table), ofi.c (the ops table),
 * params.c (--ofi-domain, built everywhere).
 */
#ifndef RP_XPORT_OFI_OFI_H
#define RP_XPORT_OFI_OFI_H

#include <stdbool.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#include "platform/mem.h"
#include "xport/ofi/params.h"
#include "xport/xport.h"

#define OFI_API		FI_VERSION(1, 9)
#define OFI_RECV_MARGIN 16     /* a send responder's receives beyond depth */
#define OFI_BATCH	16     /* completions per fi_cq_read */
#define OFI_ECHOES	4      /* a responder's echoes in flight, at most */
#define OFI_ATOM_SLOT	32     /* atomics: result, operand, compare */
#define OFI_SPIN_CHECK	64     /* empty turns between looks at stop */
#define OFI_EVENT_MS	5      /* --wait event responder: sleep slices */
#define OFI_ADDR_MAX	256    /* fi_getname's bytes, at most */
#define OFI_LATE_LAPS	8      /* write_imm: later laps a slot may hold */
#define OFI_NAME_MAX	64     /* a provider's name */
#define OFI_UNIVERSE	16     /* FI_UNIVERSE_SIZE unless set: fabric.c */
#define OFI_TAG		0x7270 /* --tagged: every message's tag ("rp") */

#define OFI_HANDSHAKE_MS 10000 /* MSG: a connection taken in hand, at most */
#define OFI_CM_DATA	 64    /* MSG: a connect request's data (the token) */

struct ofi_stream;

/* What a test asks of fi_getinfo. */
struct ofi_want {
	enum rp_op op;
	enum rp_wait wait;
	bool tagged;
	enum fi_ep_type ep; /* FI_EP_RDM or FI_EP_MSG */
};

/* Where: fi_getinfo's node, service and flags (FI_SOURCE). */
struct ofi_where {
	const char *node;
	const char *service;
	uint64_t flags;
};

static inline struct ofi_want ofi_want_of(const struct rp_spec *spec,
					  enum fi_ep_type ep)
{
	struct ofi_want w = { spec->op, spec->wait, spec->tagged, ep };

	return w;
}

/* Initiator: post the operation on @slot for message @seq. */
typedef int (*ofi_post_fn)(struct ofi_stream *s, uint32_t slot, uint64_t seq);
/* Initiator: the operation on @slot completed (--verify checks). */
typedef void (*ofi_done_fn)(struct ofi_stream *s, uint32_t slot);

/* Everything the transport does differently for one operation. */
struct ofi_op_info {
	uint64_t caps;	  /* what fi_getinfo must grant (both roles) */
	bool cq_data;	  /* needs remote CQ data (FI_REMOTE_CQ_DATA) */
	bool receives;	  /* the responder posts receives */
	bool recv_data;	  /* a receive takes the message's bytes */
	bool one_sided;	  /* the responder's CPU sees nothing arrive */
	bool marker;	  /* latency: perftest's marker byte and a write back */
	bool echo;	  /* latency: the responder echoes each arrival */
	bool prefill;	  /* --verify: the responder fills slot i with i */
	ofi_post_fn post; /* the initiator's operation */
	ofi_post_fn
		inject; /* the same without a completion (latency, small
			 * enough for the provider's inject_size), or NULL */
	ofi_done_fn done;
};

extern const struct ofi_op_info ofi_ops[RP_OP__COUNT];

/* What was opened for one provider: the facts a report shows. */
struct ofi_fabric {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
};

struct ofi_listener {
	struct rp_listener base; /* first: rp_container_of */
	struct ofi_opts opts;
	char provider[OFI_NAME_MAX]; /* what the client is told to use */
	enum fi_ep_type ep;	     /* and the endpoint type */
	/* FI_EP_MSG: the passive endpoint connections come to (cm.c) */
	struct ofi_fabric fab;
	struct fid_eq *eq;
	struct fid_pep *pep;
	uint16_t port;
	bool (*admit)(const void *ctx, const struct sockaddr *peer);
	const void *admit_ctx;
};

struct ofi_stream {
	struct rp_stream base; /* first: rp_container_of */
	const struct ofi_op_info *op;
	struct ofi_opts opts;
	struct ofi_fabric fab;
	enum fi_ep_type ep_type;
	struct fid_eq *eq; /* FI_EP_MSG: connection events */
	struct fid_av *av; /* FI_EP_RDM: the peer's address */
	struct fid_cq *cq; /* transmit and receive */
	struct fid_ep *ep;
	struct fid_mr *mr;
	void *desc;	   /* the MR's descriptor, for FI_MR_LOCAL */
	size_t inject_max; /* the provider's inject_size */
	int wait_fd;	   /* --wait event: the CQ's FD, else -1 */
	fi_addr_t peer;
	uint64_t peer_addr; /* the peer's buffer: virtual or offset 0 */
	uint64_t peer_key;
	uint64_t peer_len;
	uint8_t *buf;
	size_t buf_len;
	struct rp_mem mem;	 /* what buf is: spec.mem's kind */
	struct fi_context2 *ctx; /* one per slot, then the echoes' */
	uint64_t slot_bytes;	 /* slot stride: the setup size */
	uint32_t max_depth;	 /* the setup depth */
	uint32_t nslots;
	uint64_t size;	     /* the point's */
	uint32_t depth;	     /* the point's */
	uint64_t *atom_next; /* initiator atomics: old value due, per slot */
	uint64_t done_acc;   /* completions reaped while posting */
	uint32_t echo_out;   /* echoes not yet completed */
	uint32_t echo_next;  /* the next echo's context */
	uint64_t rx_next;    /* responder: the next seq, counted in order */
	bool have_peer;
	uint8_t marker;
	uint64_t verify_errors;
};

static inline struct ofi_stream *ofi_of(struct rp_stream *s)
{
	return rp_container_of(s, struct ofi_stream, base);
}

static inline bool ofi_responder(const struct ofi_stream *s)
{
	return s->base.role == RP_ROLE_RESPONDER;
}

static inline bool ofi_stopped(const atomic_int *stop)
{
	return atomic_load_explicit(stop, memory_order_relaxed) != 0;
}

/* caps.c: pure. */
const char *ofi_provider_of(const char *transport);
uint32_t ofi_ops_granted(uint64_t caps, size_t cq_data_size);
const char *ofi_ep_type_name(enum fi_ep_type t);
const char *ofi_mr_mode_text(int mode, char *buf, size_t len);
int ofi_hex_encode(const uint8_t *in, size_t n, char *out, size_t len);
int ofi_hex_decode(const char *in, uint8_t *out, size_t len, size_t *n);

/* errors.c: reasons; each returns the negative errno it records. */
int ofi_fail(struct ofi_stream *s, const char *what, ssize_t ret);
int ofi_cq_error(struct ofi_stream *s);

/* fabric.c: fi_getinfo and opening a provider. */
int ofi_fi_getinfo(struct fi_info *hints, struct fi_info **out);
int ofi_fi_getinfo_at(const struct ofi_where *at, struct fi_info *hints,
		      struct fi_info **out);
const char *ofi_universe(void);
int ofi_getinfo(const char *prov, const struct ofi_opts *o,
		const struct ofi_want *w, struct fi_info **out,
		struct rp_err *why);
int ofi_getinfo_at(const char *prov, const struct ofi_opts *o,
		   const struct ofi_want *w, const struct ofi_where *at,
		   struct fi_info **out, struct rp_err *why);
int ofi_pick_ep(const char *prov, const struct ofi_opts *o,
		enum rp_ep_type want, struct ofi_want *w, struct rp_err *why);
int ofi_default_provider(const struct ofi_opts *o, enum rp_op op, char *buf,
			 size_t len, struct rp_err *why);
int ofi_fabric_open(struct ofi_fabric *f, struct fi_info *info,
		    struct rp_err *why);
void ofi_fabric_close(struct ofi_fabric *f);
int ofi_check(const char *prov, const struct ofi_opts *o,
	      const struct ofi_want *w, struct rp_err *why);

/* setup.c: a stream's endpoint and memory. */
int ofi_stream_open(struct ofi_stream *s, struct fi_info *info);
void ofi_stream_close(struct ofi_stream *s);
int ofi_post_recv(struct ofi_stream *s, uint32_t slot);

/* cm.c: FI_EP_MSG's connections. */
int ofi_eq_open(struct fid_fabric *fabric, struct fid_eq **eq,
		struct rp_err *why);
int ofi_pep_open(struct ofi_listener *l, struct fi_info *info,
		 struct rp_err *why);
void ofi_pep_close(struct ofi_listener *l);
int ofi_cm_request(struct ofi_listener *l, const char *token,
		   uint64_t deadline_ns, struct fi_info **out);
int ofi_cm_accept(struct ofi_stream *s);
int ofi_cm_connect(struct ofi_stream *s, const char *token, int timeout_ms);

/* msg.c: a message, tagged under --tagged. */
ssize_t ofi_msg_send(struct ofi_stream *s, void *buf, size_t len, void *ctx);
ssize_t ofi_msg_inject(struct ofi_stream *s, void *buf, size_t len);
ssize_t ofi_msg_recv(struct ofi_stream *s, void *buf, size_t len, void *ctx);
int ofi_info_facts(const struct ofi_stream *s, cJSON *info);

/* post.c: the initiator. */
int ofi_reap(struct ofi_stream *s, int *rx, uint64_t *rx_data);
int ofi_post(struct rp_stream *bs, uint64_t seq, uint32_t count, bool last);
int ofi_poll(struct rp_stream *bs);
int ofi_arm(struct rp_stream *bs, int *fd, short *events);
int ofi_sleep(struct ofi_stream *const *s, unsigned int n, int ms);
int ofi_ping(struct rp_stream *bs, uint64_t seq, uint64_t deadline_ns);
int ofi_post_write(struct ofi_stream *s, uint32_t slot, uint64_t seq);
int ofi_post_read(struct ofi_stream *s, uint32_t slot, uint64_t seq);
int ofi_post_send(struct ofi_stream *s, uint32_t slot, uint64_t seq);
int ofi_post_write_imm(struct ofi_stream *s, uint32_t slot, uint64_t seq);
int ofi_post_fetch_add(struct ofi_stream *s, uint32_t slot, uint64_t seq);
int ofi_post_cmp_swap(struct ofi_stream *s, uint32_t slot, uint64_t seq);
int ofi_inject_write(struct ofi_stream *s, uint32_t slot, uint64_t seq);
int ofi_inject_send(struct ofi_stream *s, uint32_t slot, uint64_t seq);
int ofi_inject_write_imm(struct ofi_stream *s, uint32_t slot, uint64_t seq);
void ofi_done_nothing(struct ofi_stream *s, uint32_t slot);
void ofi_done_read(struct ofi_stream *s, uint32_t slot);
void ofi_done_fetch_add(struct ofi_stream *s, uint32_t slot);
void ofi_done_cmp_swap(struct ofi_stream *s, uint32_t slot);

/* stream.c: the ops of the same names. */
int ofi_listen(const struct rp_xport_ops *self, const struct rp_spec *spec,
	       const struct rp_xport_params *p, cJSON *endpoint,
	       struct rp_listener **out, struct rp_err *why);
void ofi_unlisten(struct rp_listener *bl);
int ofi_accept(struct rp_listener *bl, const char *token, enum rp_role role,
	       int timeout_ms, struct rp_stream **out);
int ofi_connect(const struct rp_xport_ops *self, const struct rp_spec *spec,
		const struct rp_xport_params *p, const char *host,
		const cJSON *endpoint, const char *token, enum rp_role role,
		int timeout_ms, struct rp_stream **out, struct rp_err *why);
int ofi_local_info(struct rp_stream *bs, cJSON *info);
int ofi_set_peer(struct rp_stream *bs, const cJSON *info);
int ofi_set_point(struct rp_stream *bs, uint64_t size_bytes, uint32_t depth);
void ofi_close(struct rp_stream *bs);

/* serve.c: the responder. */
int ofi_serve(struct rp_stream *const *bs, unsigned int n, enum rp_phase phase,
	      const atomic_int *stop, struct rp_side_stats *st);

#endif
