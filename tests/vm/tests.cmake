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
# op, size and depth, plus a wrong token, a wrong device, an abort.
add_executable(verbs_smoke vm/verbs_smoke.c)
target_link_libraries(verbs_smoke PRIVATE rdmaperf_core)
add_test(NAME vm.verbs_smoke
	COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/vm/verbs_smoke.sh
		$<TARGET_FILE:verbs_smoke>)
set_tests_properties(vm.verbs_smoke PROPERTIES
	SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS vm RUN_SERIAL TRUE)

foreach(group verbs_ops verbs_sizes transports streams robust siw nfs)
	add_test(NAME vm.${group}
		COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/vm/run_group.sh
			${group} $<TARGET_FILE:rdmaperf> 840)
	set_tests_properties(vm.${group} PROPERTIES
		SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS vm RUN_SERIAL TRUE)
endforeach()
