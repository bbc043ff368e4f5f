// SPDX-License-Identifier: MIT
/* The ofi transport's pure parts: -x entries that name a variant
 * (ofi:PROVIDER) in the registry and the spec, its option set, and (with
 * libfabric) the provider an entry names, the operations a provider's
 * capabilities grant, the names a report shows, the hex form of endpoint
 * names. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/spec.h"
#include "xport/ofi/params.h"
#include "xport/xport.h"
#ifdef RP_HAVE_OFI
#include "xport/ofi/ofi.h"
#endif

static void test_entry_is(void **state)
{
	(void)state;
	assert_true(rp_xport_entry_is("ofi", "ofi"));
	assert_true(rp_xport_entry_is("ofi:tcp", "ofi"));
	assert_false(rp_xport_entry_is("ofi:", "ofi"));
	assert_false(rp_xport_entry_is("ofix", "ofi"));
	assert_false(rp_xport_entry_is("of", "ofi"));
	assert_false(rp_xport_entry_is("tcp", "ofi"));
}

static int valid_name(const char *name)
{
	struct rp_spec s;

	rp_spec_defaults(&s);
	snprintf(s.transport, sizeof(s.transport), "%s", name);
	return rp_spec_validate(&s, NULL, 0);
}

static void test_spec_names(void **state)
{
	(void)state;
	assert_int_equal(valid_name("ofi:tcp"), 0);
	assert_int_equal(valid_name("ofi:psm3"), 0);
	assert_int_equal(valid_name("tcp"), 0);
	assert_int_equal(valid_name(":tcp"), -EINVAL);
	assert_int_equal(valid_name("ofi:"), -EINVAL);
	assert_int_equal(valid_name("ofi:a:b"), -EINVAL);
	assert_int_equal(valid_name("ofi:tcp;ofi_rxm"), -EINVAL);
	assert_int_equal(valid_name("ofi:Tcp"), -EINVAL);
}

static void test_find(void **state)
{
	const struct rp_xport_ops *x = rp_xport_find("ofi:shm");

	(void)state;
#ifdef RP_HAVE_OFI
	assert_non_null(x);
	assert_string_equal(x->name, "ofi");
	assert_ptr_equal(rp_xport_find("ofi"), x);
#else
	assert_null(x);
#endif
	assert_null(rp_xport_find("tcp:x")); /* tcp has no variants */
	assert_null(rp_xport_find("ofi:"));
}

static void test_domain_option(void **state)
{
	const struct rp_xport_options *o = &rp_xport_ofi_options;
	struct ofi_opts own;
	char err[128], longname[OFI_DOMAIN_LEN + 1];

	(void)state;
	assert_string_equal(o->transport, "ofi");
	assert_int_equal(o->n_opts, 1);
	assert_int_equal(
		o->opts[0].parse(&own, "--ofi-domain", "lo", err, sizeof(err)),
		0);
	assert_string_equal(own.domain, "lo");
	memset(longname, 'a', OFI_DOMAIN_LEN);
	longname[OFI_DOMAIN_LEN] = '\0';
	assert_int_equal(o->opts[0].parse(&own, "--ofi-domain", longname, err,
					  sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "--ofi-domain"));
	assert_int_equal(
		o->opts[0].parse(&own, "--ofi-domain", "", err, sizeof(err)),
		-EINVAL);
}

#ifdef RP_HAVE_OFI
static void test_provider_of(void **state)
{
	(void)state;
	assert_string_equal(ofi_provider_of("ofi:tcp"), "tcp");
	assert_null(ofi_provider_of("ofi"));
	assert_null(ofi_provider_of("ofi:"));
}

#define ALL_RMA (FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE)

static void test_ops_granted(void **state)
{
	uint32_t all = RP_OP_MASK_ALL;

	(void)state;
	assert_int_equal(ofi_ops_granted(FI_MSG | FI_SEND | FI_RECV | ALL_RMA |
						 FI_ATOMIC,
					 8),
			 all);
	/* no atomics granted: no fetch_add, cmp_swap */
	assert_int_equal(
		ofi_ops_granted(FI_MSG | FI_SEND | FI_RECV | ALL_RMA, 8),
		all & ~RP_OP_BIT(RP_OP_FETCH_ADD) & ~RP_OP_BIT(RP_OP_CMP_SWAP));
	/* no remote CQ data: no write_imm */
	assert_false(ofi_ops_granted(ALL_RMA, 0) & RP_OP_BIT(RP_OP_WRITE_IMM));
	assert_true(ofi_ops_granted(ALL_RMA, 4) & RP_OP_BIT(RP_OP_WRITE_IMM));
	/* messages only */
	assert_int_equal(ofi_ops_granted(FI_MSG | FI_SEND | FI_RECV, 8),
			 RP_OP_BIT(RP_OP_SEND));
	/* a read needs the peer's remote read */
	assert_false(ofi_ops_granted(FI_RMA | FI_READ, 8) &
		     RP_OP_BIT(RP_OP_READ));
	assert_int_equal(ofi_ops_granted(0, 8), 0);
}

static void test_names(void **state)
{
	char buf[160];

	(void)state;
	assert_string_equal(ofi_ep_type_name(FI_EP_RDM), "FI_EP_RDM");
	assert_string_equal(ofi_ep_type_name(FI_EP_MSG), "FI_EP_MSG");
	assert_string_equal(ofi_mr_mode_text(0, buf, sizeof(buf)), "none");
	assert_string_equal(
		ofi_mr_mode_text(FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_PROV_KEY,
				 buf, sizeof(buf)),
		"FI_MR_LOCAL|FI_MR_VIRT_ADDR|FI_MR_PROV_KEY");
	/* truncated, never overrun */
	ofi_mr_mode_text(FI_MR_LOCAL | FI_MR_VIRT_ADDR, buf, 8);
	assert_true(strlen(buf) < 8);
}

static void test_hex(void **state)
{
	const uint8_t in[] = { 0x00, 0x7f, 0xa5, 0xff };
	uint8_t out[4];
	char hex[9];
	size_t n;

	(void)state;
	assert_int_equal(ofi_hex_encode(in, 4, hex, sizeof(hex)), 0);
	assert_string_equal(hex, "007fa5ff");
	assert_int_equal(ofi_hex_encode(in, 4, hex, 8), -ENOSPC);
	assert_int_equal(ofi_hex_decode("007fa5ff", out, sizeof(out), &n), 0);
	assert_int_equal(n, 4);
	assert_memory_equal(in, out, 4);
	assert_int_equal(ofi_hex_decode("007fa5ff00", out, 4, &n), -EINVAL);
	assert_int_equal(ofi_hex_decode("0", out, 4, &n), -EINVAL);
	assert_int_equal(ofi_hex_decode("", out, 4, &n), -EINVAL);
	assert_int_equal(ofi_hex_decode("zz", out, 4, &n), -EINVAL);
	assert_int_equal(ofi_hex_decode("AB", out, 4, &n), -EINVAL);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entry_is),
		cmocka_unit_test(test_spec_names),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_domain_option),
#ifdef RP_HAVE_OFI
		cmocka_unit_test(test_provider_of),
		cmocka_unit_test(test_ops_granted),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_hex),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
