// SPDX-License-Identifier: MIT
/*
 * fi_getinfo for a provider and an operation, the reasons when it finds
 * nothing (the provider is absent: the ones libfabric has; or it cannot
 * do the operation: the ones it can), the default provider, and opening
 * and closing a fabric and domain.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xport/ofi/ofi.h"

/* The modes a stream handles: FI_CONTEXT(2) (every operation passes a
 * struct fi_context2 of its own), and the MR modes fabric.h's comment
 * lists. FI_MR_RAW (keys wider than 64 bits) is not among them. */
#define OFI_MR_MODES                                                           \
	(FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY |    \
	 FI_MR_ENDPOINT)

/* FI_UNIVERSE_SIZE: the peers an endpoint may talk to, which libfabric
 * reads once, at its first fi_getinfo. Its default (256) sizes ofi_rxm's
 * completion queue beyond what a small device has: on rxe (max_cqe 32767)
 * every verbs;ofi_rxm endpoint failed fi_enable ("Unable to create verbs
 * CQ"). Each of our endpoints has one peer, so unless the user set it,
 * it is OFI_UNIVERSE. */
static void ofi_env_once(void)
{
	char v[16];

	snprintf(v, sizeof(v), "%d", OFI_UNIVERSE);
	setenv("FI_UNIVERSE_SIZE", v, 0);
}

int ofi_fi_getinfo_at(const struct ofi_where *at, struct fi_info *hints,
		      struct fi_info **out)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, ofi_env_once);
	return at ? fi_getinfo(OFI_API, at->node, at->service, at->flags, hints,
			       out)
		  : fi_getinfo(OFI_API, NULL, NULL, 0, hints, out);
}

int ofi_fi_getinfo(struct fi_info *hints, struct fi_info **out)
{
	return ofi_fi_getinfo_at(NULL, hints, out);
}

const char *ofi_universe(void)
{
	const char *v = getenv("FI_UNIVERSE_SIZE");

	return v && v[0] ? v : "256";
}

static struct fi_info *ofi_hints(const char *prov, const char *domain,
				 uint64_t caps, enum fi_ep_type ep)
{
	struct fi_info *h = fi_allocinfo();

	if (!h)
		return NULL;
	h->ep_attr->type = ep;
	h->caps = caps;
	h->mode = FI_CONTEXT | FI_CONTEXT2;
	h->domain_attr->mr_mode = OFI_MR_MODES;
	h->domain_attr->threading = FI_THREAD_DOMAIN;
	h->tx_attr->msg_order = FI_ORDER_SAS;
	h->rx_attr->msg_order = FI_ORDER_SAS;
	if (prov && !(h->fabric_attr->prov_name = strdup(prov)))
		goto out_free;
	if (domain && domain[0] && !(h->domain_attr->name = strdup(domain)))
		goto out_free;
	return h;
out_free:
	fi_freeinfo(h);
	return NULL;
}

/* fi_getinfo for @prov's @ep endpoints granting @caps; @node and
 * @service (and @flags: FI_SOURCE) as fi_getinfo takes them, or NULL. */
static int ofi_query_at(const char *prov, const char *domain, uint64_t caps,
			enum fi_ep_type ep, const struct ofi_where *at,
			struct fi_info **out)
{
	struct fi_info *h = ofi_hints(prov, domain, caps, ep);
	int ret;

	if (!h)
		return -ENOMEM;
	ret = ofi_fi_getinfo_at(at, h, out);
	fi_freeinfo(h);
	return ret;
}

static int ofi_query(const char *prov, const char *domain, uint64_t caps,
		     enum fi_ep_type ep, struct fi_info **out)
{
	return ofi_query_at(prov, domain, caps, ep, NULL, out);
}

/* Every provider libfabric finds (fi_info -l's that have an endpoint
 * here), each once, as "tcp;ofi_rxm, shm, ...". */
static void ofi_list_providers(char *buf, size_t len)
{
	struct fi_info *all = NULL, *i, *j;
	size_t at = 0;

	buf[0] = '\0';
	if (ofi_fi_getinfo(NULL, &all) || !all) {
		snprintf(buf, len, "none");
		return;
	}
	for (i = all; i && at < len; i = i->next) {
		for (j = all; j != i; j = j->next)
			if (!strcmp(j->fabric_attr->prov_name,
				    i->fabric_attr->prov_name))
				break;
		if (j == i)
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
					       at ? ", " : "",
					       i->fabric_attr->prov_name);
	}
	fi_freeinfo(all);
}

/* The operations @prov grants: fi_getinfo asked for each one's caps (a
 * provider lists only some of what it can do when asked for nothing:
 * ofi_rxm grants the atomics it emulates only when asked). */
static uint32_t ofi_ops_offered(const char *prov, const struct ofi_opts *o,
				enum fi_ep_type ep)
{
	struct fi_info *info;
	uint32_t mask = 0;
	int op;

	for (op = 0; op < RP_OP__COUNT; op++) {
		info = NULL;
		if (!ofi_query(prov, o->domain, ofi_ops[op].caps, ep, &info) &&
		    info)
			mask |= ofi_ops_granted(
					info->caps,
					info->domain_attr->cq_data_size) &
				RP_OP_BIT(op);
		fi_freeinfo(info);
	}
	return mask;
}

/* Nothing for @prov and @op: why, in @why. */
static int ofi_why_none(const char *prov, const struct ofi_opts *o,
			enum rp_op op, enum fi_ep_type ep, struct rp_err *why)
{
	struct fi_info *any = NULL, *dom = NULL;
	char list[512];

	if (ofi_query(prov, NULL, 0, ep, &any)) {
		ofi_list_providers(list, sizeof(list));
		return rp_errf(why, -EOPNOTSUPP,
			       "libfabric has no provider %s with a %s "
			       "endpoint here; it finds: %s",
			       prov,
			       ep == FI_EP_MSG ? "connected (msg)"
					       : "reliable datagram (rdm)",
			       list);
	}
	if (o->domain[0] && ofi_query(prov, o->domain, 0, ep, &dom)) {
		snprintf(list, sizeof(list), "%s", any->domain_attr->name);
		fi_freeinfo(any);
		return rp_errf(why, -EOPNOTSUPP,
			       "provider %s has no domain %s (--ofi-domain); "
			       "its first is %s",
			       prov, o->domain, list);
	}
	fi_freeinfo(dom);
	fi_freeinfo(any);
	rp_op_mask_list(ofi_ops_offered(prov, o, ep), list, sizeof(list));
	return rp_errf(why, -EOPNOTSUPP,
		       "provider %s cannot do %s on %s endpoints; it does %s",
		       prov, rp_op_name(op), ofi_ep_type_name(ep),
		       list[0] ? list : "nothing rdmaperf runs");
}

int ofi_getinfo_at(const char *prov, const struct ofi_opts *o,
		   const struct ofi_want *w, const struct ofi_where *at,
		   struct fi_info **out, struct rp_err *why)
{
	enum rp_op op = w->op;
	enum rp_wait wait = w->wait;
	struct fi_info *info = NULL;
	int ret = ofi_query_at(prov, o->domain,
			       ofi_ops[op].caps | (w->tagged ? FI_TAGGED : 0),
			       w->ep, at, &info);

	if (ret == -FI_ENODATA && w->tagged &&
	    !ofi_query(prov, o->domain, ofi_ops[op].caps, w->ep, &info)) {
		fi_freeinfo(info);
		return rp_errf(why, -EOPNOTSUPP,
			       "provider %s has no tagged messages (FI_TAGGED) "
			       "on %s endpoints for --tagged",
			       prov, ofi_ep_type_name(w->ep));
	}

	if (ret == -FI_ENODATA && at && at->node &&
	    !ofi_query(prov, o->domain, ofi_ops[op].caps, w->ep, &info)) {
		fi_freeinfo(info);
		return rp_errf(why, -EHOSTUNREACH,
			       "provider %s cannot reach %s port %s", prov,
			       at->node, at->service);
	}
	if (ret == -FI_ENODATA)
		return ofi_why_none(prov, o, op, w->ep, why);
	if (ret)
		return rp_errf(why, ret, "fi_getinfo for %s: %s", prov,
			       fi_strerror(-ret));
	if ((ofi_ops[op].cq_data ||
	     (ofi_ops[op].marker && wait == RP_WAIT_EVENT)) &&
	    info->domain_attr->cq_data_size < 4) {
		fi_freeinfo(info);
		return rp_errf(why, -EOPNOTSUPP,
			       "provider %s carries no remote CQ data (%s%s "
			       "needs 4 bytes of it)",
			       prov, rp_op_name(op),
			       wait == RP_WAIT_EVENT ? " under --wait event"
						     : "");
	}
	if (w->ep == FI_EP_MSG && rp_op_is_atomic(op) &&
	    !strcmp(info->fabric_attr->prov_name, "verbs")) {
		fi_freeinfo(info);
		return rp_errf(why, -EOPNOTSUPP,
			       "provider verbs's FI_EP_MSG atomics are wrong "
			       "in libfabric: they take the operands' "
			       "addresses for their values (fetch_add adds "
			       "the address; seen on 1.17); --ep-type rdm "
			       "runs them through ofi_rxm");
	}
	if (o->domain[0] && strcmp(info->domain_attr->name, o->domain)) {
		rp_errf(why, -EOPNOTSUPP,
			"provider %s has no domain %s (--ofi-domain); it has "
			"%s",
			prov, o->domain, info->domain_attr->name);
		fi_freeinfo(info);
		return -EOPNOTSUPP;
	}
	*out = info;
	return 0;
}

int ofi_getinfo(const char *prov, const struct ofi_opts *o,
		const struct ofi_want *w, struct fi_info **out,
		struct rp_err *why)
{
	return ofi_getinfo_at(prov, o, w, NULL, out, why);
}

/* --wait event: can a CQ of @info's domain have an FD to sleep on? */
static int ofi_can_wait(struct fi_info *info, struct rp_err *why)
{
	struct fi_cq_attr attr = { .format = FI_CQ_FORMAT_DATA,
				   .wait_obj = FI_WAIT_FD };
	struct ofi_fabric f = { 0 };
	struct fid_cq *cq;
	int ret = ofi_fabric_open(&f, info, why);

	if (!ret) {
		ret = fi_cq_open(f.domain, &attr, &cq, NULL);
		if (ret)
			rp_errf(why, -EOPNOTSUPP,
				"provider %s has no FD to wait on its CQ for "
				"--wait event (fi_cq_open with FI_WAIT_FD: "
				"%s); use --wait busy",
				info->fabric_attr->prov_name,
				fi_strerror(-ret));
		else
			fi_close(&cq->fid);
	}
	ofi_fabric_close(&f); /* frees @info */
	return ret ? -EOPNOTSUPP : 0;
}

int ofi_check(const char *prov, const struct ofi_opts *o,
	      const struct ofi_want *w, struct rp_err *why)
{
	struct fi_info *info = NULL;
	int ret = ofi_getinfo(prov, o, w, &info, why);

	if (ret)
		return ret;
	if (w->wait == RP_WAIT_EVENT)
		return ofi_can_wait(info, why);
	fi_freeinfo(info);
	return 0;
}

/* @w->ep for @want: msg or rdm as asked; under auto, msg where @prov's
 * connected endpoints can run the test (tcp's and verbs' native ones),
 * else rdm (efa, cxi, opx, shm; atomics and tagged messages that only
 * ofi_rxm offers over tcp). */
int ofi_pick_ep(const char *prov, const struct ofi_opts *o,
		enum rp_ep_type want, struct ofi_want *w, struct rp_err *why)
{
	struct rp_err quiet;

	if (want != RP_EP_AUTO) {
		w->ep = want == RP_EP_MSG ? FI_EP_MSG : FI_EP_RDM;
		return ofi_check(prov, o, w, why);
	}
	w->ep = FI_EP_MSG;
	if (!ofi_check(prov, o, w, &quiet))
		return 0;
	w->ep = FI_EP_RDM;
	return ofi_check(prov, o, w, why);
}

/* -x ofi: the first provider libfabric ranks for @op (it ranks hardware
 * before the software ones) that reaches another host: shm does not. */
int ofi_default_provider(const struct ofi_opts *o, enum rp_op op, char *buf,
			 size_t len, struct rp_err *why)
{
	struct fi_info *info = NULL, *i;
	char list[512];

	ofi_query(NULL, o->domain, ofi_ops[op].caps, FI_EP_RDM, &info);
	for (i = info; i; i = i->next)
		if (strcmp(i->fabric_attr->prov_name, "shm"))
			break;
	/* the core provider: "tcp" of "tcp;ofi_rxm", so that --ep-type
	 * can still choose its endpoint */
	if (i)
		snprintf(buf, len, "%.*s",
			 (int)strcspn(i->fabric_attr->prov_name, ";"),
			 i->fabric_attr->prov_name);
	fi_freeinfo(info);
	if (i)
		return 0;
	ofi_list_providers(list, sizeof(list));
	return rp_errf(why, -EOPNOTSUPP,
		       "no libfabric provider here does %s between hosts; "
		       "it finds: %s",
		       rp_op_name(op), list);
}

int ofi_fabric_open(struct ofi_fabric *f, struct fi_info *info,
		    struct rp_err *why)
{
	int ret;

	f->info = info;
	ret = fi_fabric(info->fabric_attr, &f->fabric, NULL);
	if (ret)
		return rp_errf(why, ret, "fi_fabric %s: %s",
			       info->fabric_attr->name, fi_strerror(-ret));
	ret = fi_domain(f->fabric, info, &f->domain, NULL);
	if (ret)
		return rp_errf(why, ret, "fi_domain %s: %s",
			       info->domain_attr->name, fi_strerror(-ret));
	return 0;
}

void ofi_fabric_close(struct ofi_fabric *f)
{
	if (f->domain)
		fi_close(&f->domain->fid);
	if (f->fabric)
		fi_close(&f->fabric->fid);
	if (f->info)
		fi_freeinfo(f->info);
	memset(f, 0, sizeof(*f));
}
