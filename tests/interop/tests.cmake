# Interoperability with cross builds (tests/interop): for each ARCH the
# fixture cross.build.ARCH runs scripts/cross-build.sh (installs the cross
# compiler and qemu-user when missing and it may, builds only rdmaperf into
# cross-ARCH/ here), then interop.ARCH runs the native binary against it
# both ways. Both exit 77 (skipped, with the reason) when the tools are
# absent, unless RP_REQUIRE_CROSS=1 (CI). Label interop: the sanitizer
# suite leaves them out (scripts/test.sh).
# Included from tests/CMakeLists.txt, so paths are relative to tests/.
if(CMAKE_CROSSCOMPILING OR NOT CMAKE_HOST_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
	return()
endif()
find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
	return()
endif()

foreach(arch i686 s390x aarch64)
	add_test(NAME cross.build.${arch}
		COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/cross-build.sh ${arch}
			${CMAKE_BINARY_DIR}/cross-${arch})
	set_tests_properties(cross.build.${arch} PROPERTIES
		FIXTURES_SETUP cross.${arch}
		SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS interop RUN_SERIAL TRUE)
	add_test(NAME interop.${arch}
		COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/interop/run_arch.sh
			${arch} $<TARGET_FILE:rdmaperf>
			${CMAKE_BINARY_DIR}/cross-${arch})
	set_tests_properties(interop.${arch} PROPERTIES
		FIXTURES_REQUIRED cross.${arch}
		SKIP_RETURN_CODE 77 TIMEOUT 300 LABELS interop RUN_SERIAL TRUE)
endforeach()
