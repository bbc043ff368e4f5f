# Tests inside the Soft-RoCE guest (tests/vm/rxe-run): real libibverbs,
# librdmacm and the kernel's rdma_rxe driver. One guest boot per group.
# They exit 77 (skipped, with the reason) when qemu or Debian's kernel is
# missing, unless RP_REQUIRE_VM=1 (CI), where that is a failure.
if(NOT RP_HAVE_RDMA)
	return()
endif()

add_test(NAME vm.selftest
	COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/vm/selftest.sh)
set_tests_properties(vm.selftest PROPERTIES
	SKIP_RETURN_CODE 77 TIMEOUT 400 LABELS vm RUN_SERIAL TRUE)

# The verbs transport alone through its ops table (tests/vm/verbs_smoke.c,
# linked with the library, so a sanitizer build is RP_SANITIZE's): every
# op, size and depth, plus a wrong token, a wrong device, an abort. It runs
# as the guest group "smoke" (tests/vm/verbs_smoke.sh runs it by hand).
add_executable(verbs_smoke vm/verbs_smoke.c)
target_link_libraries(verbs_smoke PRIVATE rdmaperf_core)
# Datagrams from a queue pair no test connected, beside verbs_smoke (the
# robust group's "ud strays" finds it there): plain libibverbs/librdmacm.
add_executable(ud_stray vm/ud_stray.c)
target_link_libraries(ud_stray PRIVATE PkgConfig::IBVERBS PkgConfig::RDMACM)

# The Soft-RoCE groups share one boot (vm.rxe): each boot and its first
# connection cost 15-20 s of emulated CPU, and a boot per group was 8 of
# them in each suite. Soft-iWARP needs its own (vm.siw). The sanitizer
# build runs three groups, which between them take every rdma code path
# through the instrumented binaries: smoke (the transport's ops table:
# each op at 1 B to 1 MiB, depths 1 and 16, --verify), streams (client
# and server: every op under --wait event, sweeps with --verify, rdma and
# rsocket) and robust (the server's resources and its faults). It leaves
# out verbs_ops and verbs_sizes (each op and size through the client and
# server again: streams runs those paths), transports (rsocket alone and
# in one run with tcp: streams runs rsocket, e2e tcp) and nfs (the file
# transport, which has no NFS code of its own: e2e.file runs it, and the
# NFS client and server are the kernel's). CI's 35 minutes are why.
# The first suite leaves out verbs_sizes too (16 runs, 1 B to 1 MiB, each
# op through the client and server): smoke runs every op at those sizes
# with --verify, and verbs_ops and the streams group's sweeps run sizes
# through the client and server; `run_group.sh verbs_sizes` still runs
# it by hand.
if(RP_SANITIZE)
	set(rxe_groups smoke,streams,robust)
else()
	set(rxe_groups smoke,verbs_ops,transports,streams,robust,nfs)
endif()
add_test(NAME vm.rxe
	COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/vm/run_group.sh ${rxe_groups}
		$<TARGET_FILE:rdmaperf> 1700 $<TARGET_FILE:verbs_smoke>)
set_tests_properties(vm.rxe PROPERTIES
	SKIP_RETURN_CODE 77 TIMEOUT 1800 LABELS vm RUN_SERIAL TRUE)
# The sanitizer build leaves out the guest groups that test a device or a
# wire, not rdmaperf's code: vm.siw (the same verbs transport on an iWARP
# device; vm.rxe runs it under ASan on Soft-RoCE) and vm.fabric (several
# kernels across a virtual wire: loss, shaping, faults). Each is 2-5
# minutes that the sanitizer suite would spend on the same code again.
if(RP_SANITIZE)
	return()
endif()
add_test(NAME vm.siw
	COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/vm/run_group.sh siw
		$<TARGET_FILE:rdmaperf> 840)
set_tests_properties(vm.siw PROPERTIES
	SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS vm RUN_SERIAL TRUE)

# The virtual fabric (tests/vm/fabric.py): three guests on one bridge, a
# client on one kernel and the server on another; then two on Soft-iWARP.
add_test(NAME vm.fabric
	COMMAND python3 -B ${CMAKE_CURRENT_SOURCE_DIR}/vm/fabric_tests.py
		$<TARGET_FILE:rdmaperf>)
set_tests_properties(vm.fabric PROPERTIES
	SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS vm RUN_SERIAL TRUE)
