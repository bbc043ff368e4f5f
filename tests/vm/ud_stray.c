// SPDX-License-Identifier: MIT
/*
 * ud_stray: datagrams from a queue pair that no test connected, for the
 * robust group's "ud strays" case (tests/vm/guest_tests.py). rdma_cm's UDP
 * port space gives every UD queue pair the same qkey (RDMA_UDP_QKEY), so
 * any process on the fabric can reach a --qp ud stream's queue pair; the
 * stream must neither count such a datagram nor answer it.
 *
 *   ud_stray ADDR SECONDS SIZE FIRST LAST
 *
 * For SECONDS, sends datagrams of SIZE bytes to every QP number from FIRST
 * to LAST in turn, on the device and port that ADDR (a local IPv4 address,
 * the server's) is on, through an address handle to ADDR's own GID: the
 * streams' queue pairs are among those numbers. Prints how many it sent.
 * Exit: 0, or 1 with a line on stderr.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

static int fail(const char *what)
{
	fprintf(stderr, "ud_stray: %s: %s\n", what, strerror(errno));
	return 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The GID index of @addr (IPv4-mapped) on @id's port, or -1. */
static int gid_of(struct rdma_cm_id *id, const struct sockaddr_in *addr)
{
	struct ibv_port_attr pa;
	union ibv_gid gid, want = { .raw = { 0 } };
	int i;

	want.raw[10] = want.raw[11] = 0xff;
	memcpy(&want.raw[12], &addr->sin_addr, 4);
	if (ibv_query_port(id->verbs, id->port_num, &pa))
		return -1;
	for (i = 0; i < pa.gid_tbl_len; i++)
		if (!ibv_query_gid(id->verbs, id->port_num, i, &gid) &&
		    !memcmp(&gid, &want, sizeof(gid)))
			return i;
	return -1;
}

/* Send one datagram to @qpn and wait for its completion. */
static int send_one(struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_ah *ah,
		    struct ibv_sge *sge, uint32_t qpn)
{
	struct ibv_send_wr wr = { .sg_list = sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED },
			   *bad;
	struct ibv_wc wc;
	int n;

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = RDMA_UDP_QKEY;
	if (ibv_post_send(qp, &wr, &bad))
		return -1;
	while ((n = ibv_poll_cq(cq, 1, &wc)) == 0)
		;
	return n < 0 || wc.status != IBV_WC_SUCCESS ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_UD,
				       .cap = { .max_send_wr = 4,
						.max_recv_wr = 1,
						.max_send_sge = 1,
						.max_recv_sge = 1 } };
	struct addrinfo hints = { .ai_family = AF_INET }, *ai;
	struct ibv_ah_attr ah_attr = { .is_global = 1 };
	struct rdma_cm_id *id;
	struct ibv_sge sge;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	unsigned long first, last, q, sent = 0;
	double end;
	size_t size;
	char *buf;
	int gid;

	if (argc != 6) {
		fprintf(stderr,
			"usage: ud_stray ADDR SECONDS SIZE FIRST LAST\n");
		return 2;
	}
	end = now_s() + atof(argv[2]);
	size = strtoul(argv[3], NULL, 0);
	first = strtoul(argv[4], NULL, 0);
	last = strtoul(argv[5], NULL, 0);
	if (getaddrinfo(argv[1], NULL, &hints, &ai))
		return fail("getaddrinfo");
	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_UDP))
		return fail("rdma_create_id");
	if (rdma_bind_addr(id, ai->ai_addr) || !id->verbs)
		return fail("rdma_bind_addr (is ADDR local?)");
	gid = gid_of(id, (const struct sockaddr_in *)ai->ai_addr);
	if (gid < 0)
		return fail("no GID for ADDR");
	pd = ibv_alloc_pd(id->verbs);
	cq = pd ? ibv_create_cq(id->verbs, 8, NULL, NULL, 0) : NULL;
	if (!cq)
		return fail("ibv_alloc_pd, ibv_create_cq");
	qa.send_cq = qa.recv_cq = cq;
	if (rdma_create_qp(id, pd, &qa))
		return fail("rdma_create_qp");
	buf = calloc(1, size);
	mr = buf ? ibv_reg_mr(pd, buf, size, IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!mr)
		return fail("ibv_reg_mr");
	memset(buf, 0xa5, size);
	sge = (struct ibv_sge){ (uintptr_t)buf, (uint32_t)size, mr->lkey };
	ibv_query_gid(id->verbs, id->port_num, gid, &ah_attr.grh.dgid);
	ah_attr.grh.sgid_index = (uint8_t)gid;
	ah_attr.grh.hop_limit = 64;
	ah_attr.port_num = id->port_num;
	ah = ibv_create_ah(pd, &ah_attr);
	if (!ah)
		return fail("ibv_create_ah");
	while (now_s() < end)
		for (q = first; q <= last; q++, sent++)
			if (send_one(id->qp, cq, ah, &sge, (uint32_t)q))
				return fail("a send");
	printf("ud_stray: %lu datagrams of %zu bytes to QPs %lu-%lu\n", sent,
	       size, first, last);
	ibv_destroy_ah(ah);
	rdma_destroy_qp(id);
	ibv_dereg_mr(mr);
	free(buf);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_id(id);
	freeaddrinfo(ai);
	return 0;
}
