// SPDX-License-Identifier: MIT
/*
 * What a NIC's or the kernel's counters mean: each name sorted into error,
 * congestion or information per provider (core/counters.h; counters.c
 * has the deltas, their JSON, sums and line). The names are the drivers' own
 * (Linux 6.x: drivers/infiniband/ core/sysfs.c for the port counters every IB
 * port shares, sw/rxe/rxe_hw_counters.c, hw/mlx5/counters.c, hw/irdma/verbs.c,
 * hw/bnxt_re/hw_counters.c, hw/efa/efa_verbs.c; /proc/net/snmp and
 * netstat for TCP; a netdev's statistics).
 *
 * Retransmissions are counted once: where one counter sums others (TCP's
 * RetransSegs holds the fast, timeout and loss-probe resends TcpExt breaks
 * down), only the sum is "retrans" and the breakdown is information.
 */
#include <stdio.h>
#include <string.h>

#include "core/counters.h"

#define R 1u /* a retransmission (also an error) */

struct class_entry {
	const char *name;
	enum rp_counter_class cls;
	unsigned int flags;
};

#define E(n)                                                                   \
	{                                                                      \
		n, RP_COUNTER_ERROR, 0                                         \
	}
#define ER(n)                                                                  \
	{                                                                      \
		n, RP_COUNTER_ERROR, R                                         \
	}
#define C(n)                                                                   \
	{                                                                      \
		n, RP_COUNTER_CONGESTION, 0                                    \
	}
#define I(n)                                                                   \
	{                                                                      \
		n, RP_COUNTER_INFO, 0                                          \
	}

/* The PMA port counters of ports/N/counters, and a netdev's statistics:
 * every provider's. */
static const struct class_entry shared[] = {
	E("symbol_error"),
	E("link_error_recovery"),
	E("link_downed"),
	E("port_rcv_errors"),
	E("port_rcv_remote_physical_errors"),
	E("port_rcv_switch_relay_errors"),
	E("port_xmit_discards"),
	E("port_xmit_constraint_errors"),
	E("port_rcv_constraint_errors"),
	E("local_link_integrity_errors"),
	E("excessive_buffer_overrun_errors"),
	E("VL15_dropped"),
	C("port_xmit_wait"),
	I("port_rcv_data"),
	I("port_xmit_data"),
	I("port_rcv_packets"),
	I("port_xmit_packets"),
	I("unicast_rcv_packets"),
	I("unicast_xmit_packets"),
	I("multicast_rcv_packets"),
	I("multicast_xmit_packets"),
	/* a netdev's statistics (include/uapi/linux/if_link.h): rx_errors
	 * and tx_errors are totals that must include the kinds listed after
	 * them, so only the totals are errors and the kinds information;
	 * rx_missed_errors is folded into drops, not errors */
	E("rx_dropped"),
	E("tx_dropped"),
	E("rx_errors"),
	E("tx_errors"),
	E("rx_missed_errors"),
	I("rx_crc_errors"),
	I("rx_frame_errors"),
	I("rx_fifo_errors"),
	I("rx_over_errors"),
	I("rx_length_errors"),
	I("tx_fifo_errors"),
	I("tx_carrier_errors"),
	I("tx_aborted_errors"),
	I("tx_heartbeat_errors"),
	I("tx_window_errors"),
	C("collisions"),
};

static const struct class_entry rxe[] = {
	I("sent_pkts"),
	I("rcvd_pkts"),
	I("rdma_sends"),
	I("rdma_recvs"),
	I("ack_deferred"),
	E("duplicate_request"),
	E("out_of_seq_request"),
	E("rcvd_rnr_err"),
	E("send_rnr_err"),
	/* rxe_comp.c: a NAK-sequence (rcvd_seq_err) or a timeout starts a
	 * retry, and every retry is one completer_retry_err: the retry is
	 * the retransmission, the NAK only one of its causes */
	I("rcvd_seq_err"),
	ER("completer_retry_err"),
	E("retry_exceeded_err"),
	E("retry_rnr_exceeded_err"),
	E("send_err"),
	E("link_downed"),
};

static const struct class_entry mlx5[] = {
	E("out_of_sequence"),
	ER("packet_seq_err"),
	ER("local_ack_timeout_err"),
	E("rnr_nak_retry_err"),
	E("implied_nak_seq_err"),
	E("duplicate_request"),
	E("out_of_buffer"),
	/* every completion in error, on each side: the kinds below are
	 * among them, so they are information */
	E("req_cqe_error"),
	E("resp_cqe_error"),
	I("req_cqe_flush_error"),
	I("resp_cqe_flush_error"),
	I("req_remote_access_errors"),
	I("req_remote_invalid_request"),
	I("resp_remote_access_errors"),
	I("resp_local_length_error"),
	I("req_rnr_retries_exceeded"),
	I("req_transport_retries_exceeded"),
	E("rx_icrc_encapsulated"),
	C("np_cnp_sent"),
	C("np_ecn_marked_roce_packets"),
	C("rp_cnp_handled"),
	C("rp_cnp_ignored"),
	/* adaptive retransmission: the same resends local_ack_timeout_err
	 * counts, timed otherwise */
	I("roce_adp_retrans"),
	I("roce_adp_retrans_to"),
	C("roce_slow_restart"),
	C("roce_slow_restart_cnps"),
	C("roce_slow_restart_trans"),
	I("rx_read_requests"),
	I("rx_write_requests"),
	I("rx_atomic_requests"),
	I("rx_dct_connect"),
	I("resp_cqe_error_recovery"),
};

/* irdma (Intel E810/X722, then gen3; hw/irdma/verbs.c): its own TCP for
 * iWARP under both spellings (tcp* and iw* before Linux 6.13 renamed
 * them), gen3's RoCE counters under their names with spaces. */
static const struct class_entry irdma[] = {
	E("ip4InDiscards"),
	E("ip4InTruncatedPkts"),
	E("ip4OutNoRoutes"),
	E("ip6InDiscards"),
	E("ip6InTruncatedPkts"),
	E("ip6OutNoRoutes"),
	E("rxVlanErrors"),
	ER("tcpRetransSegs"),
	E("tcpInOptErrors"),
	E("tcpInProtoErrors"),
	ER("RetransSegs"),
	E("InOptErrors"),
	E("InProtoErrors"),
	ER("RTO"),
	ER("Nak Sequence Error"),
	E("Nak Sequence Error Implied"),
	E("Rcvd Out of order packets"),
	E("CRC errors"),
	C("RNR sent"),
	C("RNR received"),
	C("RxECNMrkd"),
	C("cnpHandled"),
	C("cnpIgnored"),
	C("cnpSent"),
	I("tcpInSegs"),
	I("tcpOutSegs"),
	I("InSegs"),
	I("OutSegs"),
	I("ip4InOctets"),
	I("ip4InPkts"),
	I("ip4OutOctets"),
	I("ip4OutPkts"),
	I("ip6InOctets"),
	I("ip6InPkts"),
	I("ip6OutOctets"),
	I("ip6OutPkts"),
	I("RxUDP"),
	I("TxUDP"),
	I("iwInRdmaReads"),
	I("iwInRdmaSends"),
	I("iwInRdmaWrites"),
	I("iwOutRdmaReads"),
	I("iwOutRdmaSends"),
	I("iwOutRdmaWrites"),
	I("iwRdmaBnd"),
	I("iwRdmaInv"),
	I("InRdmaReads"),
	I("InRdmaSends"),
	I("InRdmaWrites"),
	I("OutRdmaReads"),
	I("OutRdmaSends"),
	I("OutRdmaWrites"),
	I("RdmaBnd"),
	I("RdmaInv"),
};

/* bnxt_re (Broadcom; hw/bnxt_re/hw_counters.c): newer drivers give the
 * same counters mlx5's names (to_retransmits is local_ack_timeout_err,
 * seq_err_naks_rcvd packet_seq_err, ...), so both spellings are here.
 * req_cqe_error, resp_cqe_error and resp_remote_access_errors are sums of
 * counters listed on their own: information, not errors twice. */
static const struct class_entry bnxt_re[] = {
	ER("to_retransmits"),
	ER("local_ack_timeout_err"),
	ER("seq_err_naks_rcvd"),
	ER("packet_seq_err"),
	E("max_retry_exceeded"),
	E("rnr_naks_rcvd"),
	E("rnr_nak_retry_err"),
	E("missing_resp"),
	E("implied_nak_seq_err"),
	E("unrecoverable_err"),
	E("bad_resp_err"),
	E("local_qp_op_err"),
	E("local_protection_err"),
	E("mem_mgmt_op_err"),
	E("remote_invalid_req_err"),
	E("req_remote_invalid_request"),
	E("remote_access_err"),
	E("req_remote_access_errors"),
	E("remote_op_err"),
	E("dup_req"),
	E("duplicate_request"),
	E("res_exceed_max"),
	E("res_length_mismatch"),
	E("resp_local_length_error"),
	E("res_exceeds_wqe"),
	E("res_opcode_err"),
	E("res_rx_invalid_rkey"),
	E("res_rx_domain_err"),
	E("res_rx_no_perm"),
	E("res_rx_range_err"),
	E("res_tx_invalid_rkey"),
	E("res_tx_domain_err"),
	E("res_tx_no_perm"),
	E("res_tx_range_err"),
	E("res_irrq_oflow"),
	E("res_unsup_opcode"),
	E("res_unaligned_atomic"),
	E("res_rem_inv_err"),
	E("res_mem_err"),
	E("res_srq_err"),
	E("res_cmp_err"),
	E("res_invalid_dup_rkey"),
	E("res_wqe_format_err"),
	E("res_cq_load_err"),
	E("res_srq_load_err"),
	E("res_tx_pci_err"),
	E("res_rx_pci_err"),
	E("oos_drop_count"),
	E("res_oos_drop_count"),
	E("out_of_sequence"),
	E("out_of_buffer"),
	E("rx_icrc_encapsulated"),
	E("rx_roce_discards"),
	E("tx_roce_discards"),
	E("rx_roce_errors"),
	E("tx_roce_errors"),
	I("req_cqe_error"),
	I("resp_cqe_error"),
	I("resp_remote_access_errors"),
	I("req_cqe_flush_error"),
	I("resp_cqe_flush_error"),
	I("roce_adp_retrans"),
	I("roce_adp_retrans_to"),
	C("rx_cnp_pkts"),
	C("tx_cnp_pkts"),
	C("rx_ecn_marked_pkts"),
	C("np_cnp_sent"),
	C("rp_cnp_handled"),
	C("rp_cnp_ignored"),
	C("np_ecn_marked_roce_packets"),
	C("roce_slow_restart"),
	C("roce_slow_restart_cnps"),
	C("roce_slow_restart_trans"),
	I("rx_pkts"),
	I("tx_pkts"),
	I("rx_bytes"),
	I("tx_bytes"),
	I("rx_roce_only_pkts"),
	I("tx_roce_only_pkts"),
	I("rx_roce_only_bytes"),
	I("tx_roce_only_bytes"),
	I("rx_good_pkts"),
	I("rx_good_bytes"),
};

static const struct class_entry efa[] = {
	E("rx_drops"),
	ER("retrans_pkts"),
	I("retrans_bytes"),
	E("retrans_timeout_events"),
	E("unresponsive_remote_events"),
	E("impaired_remote_conn_events"),
	I("tx_bytes"),
	I("tx_pkts"),
	I("rx_bytes"),
	I("rx_pkts"),
	I("send_bytes"),
	I("send_wrs"),
	I("recv_bytes"),
	I("recv_wrs"),
	I("rdma_read_bytes"),
	I("rdma_read_wrs"),
	I("rdma_read_wr_err"),
	I("rdma_read_resp_bytes"),
	I("rdma_write_bytes"),
	I("rdma_write_wrs"),
	I("rdma_write_wr_err"),
	I("rdma_write_recv_bytes"),
	I("submitted_cmds"),
	I("completed_cmds"),
	I("cmds_err"),
	I("no_completion_cmds"),
	I("keep_alive_rcvd"),
	I("alloc_pd_err"),
	I("create_qp_err"),
	I("create_cq_err"),
	I("reg_mr_err"),
	I("alloc_ucontext_err"),
	I("create_ah_err"),
	I("mmap_err"),
	I("lifespan"),
};

/* TCP (/proc/net/snmp, netstat): RetransSegs counts every segment sent
 * again (timeouts', fast, SYN, loss probes'), so it is the one
 * retransmission figure and the events that cause or break it down are
 * information; InErrs includes InCsumErrors. Counted once each. */
static const struct class_entry tcp[] = {
	ER("RetransSegs"),
	/* the "socket" group: TCP_INFO's tcpi_total_retrans of the test's
	 * own connections (then RetransSegs, the host's, is information) */
	ER("total_retrans"),
	E("InErrs"),
	E("TCPRetransFail"),
	I("InCsumErrors"),
	I("TCPTimeouts"),
	I("TCPLostRetransmit"),
	I("TCPSpuriousRTOs"),
	I("TCPSackFailures"),
	I("TCPSynRetrans"),
	I("TCPFastRetrans"),
	I("TCPSlowStartRetrans"),
	I("TCPLossProbes"),
	I("TCPLossProbeRecovery"),
	I("TCPRetransQueueShrunk"),
	I("OutRsts"),
	I("InSegs"),
	I("OutSegs"),
};

#define TABLE(t)                                                               \
	{                                                                      \
#t, t, sizeof(t) / sizeof(t[0])                                \
	}

static const struct provider {
	const char *name;
	const struct class_entry *e;
	size_t n;
} providers[] = {
	TABLE(rxe),
	TABLE(mlx5),
	TABLE(irdma),
	TABLE(bnxt_re),
	TABLE(efa),
	TABLE(tcp),
	/* siw exports no hw_counters: it runs on the kernel's TCP, whose
	 * counters xport/link.c reads for it */
	{ "siw", tcp, sizeof(tcp) / sizeof(tcp[0]) },
};

#define N_PROVIDERS (sizeof(providers) / sizeof(providers[0]))

static const struct class_entry *find_in(const struct class_entry *t, size_t n,
					 const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

static const struct class_entry *lookup(const char *provider, const char *name)
{
	const struct class_entry *e = NULL;
	size_t i;

	for (i = 0; provider && !e && i < N_PROVIDERS; i++)
		if (!strcmp(providers[i].name, provider))
			e = find_in(providers[i].e, providers[i].n, name);
	return e ? e
		 : find_in(shared, sizeof(shared) / sizeof(shared[0]), name);
}

enum rp_counter_class rp_counter_class(const char *provider, const char *name)
{
	const struct class_entry *e = name ? lookup(provider, name) : NULL;

	return e ? e->cls : RP_COUNTER_INFO;
}

bool rp_counter_is_retrans(const char *provider, const char *name)
{
	const struct class_entry *e = name ? lookup(provider, name) : NULL;

	return e && (e->flags & R);
}

const char *rp_counter_class_name(enum rp_counter_class c)
{
	switch (c) {
	case RP_COUNTER_ERROR:
		return "error";
	case RP_COUNTER_CONGESTION:
		return "congestion";
	default:
		return "info";
	}
}

bool rp_counter_tables_check(char *dup, size_t len)
{
	size_t p, i, k;

	for (p = 0; p <= N_PROVIDERS; p++) {
		const struct class_entry *t =
			p < N_PROVIDERS ? providers[p].e : shared;
		size_t n = p < N_PROVIDERS ? providers[p].n
					   : sizeof(shared) / sizeof(shared[0]);

		for (i = 0; i < n; i++)
			for (k = i + 1; k < n; k++)
				if (!strcmp(t[i].name, t[k].name)) {
					snprintf(dup, len, "%s: %s",
						 p < N_PROVIDERS
							 ? providers[p].name
							 : "shared",
						 t[i].name);
					return false;
				}
	}
	return true;
}
