# The fuzz targets (tests/fuzz/README.md).
#
# Always: fuzz_<target>_replay, the target with replay.c's main(), and the
# test fuzz.<target>_replay over tests/fuzz/corpus/<target>.
#
# With clang (the C compiler is clang, or RP_FUZZ=ON, which requires it):
# fuzz_<target>, a libFuzzer binary over a copy of the library built with
# coverage, AddressSanitizer and UBSan, and the test fuzz.<target>_run
# (label "fuzz"): RP_FUZZ_RUNS inputs from a copy of the seed corpus.
# The target fuzz_all builds them all: CI configures with CC=clang
# -DRP_FUZZ=ON, builds fuzz_all and runs ctest -L fuzz.

set(RP_FUZZ_TARGETS proto bodies spec counters report)
set(RP_FUZZ_SRC ${CMAKE_CURRENT_LIST_DIR})

option(RP_FUZZ "Build libFuzzer binaries of the fuzz targets (needs clang)"
	OFF)
set(RP_FUZZ_RUNS 100000 CACHE STRING "Inputs each fuzz.<target>_run tries")

foreach(t ${RP_FUZZ_TARGETS})
	add_executable(fuzz_${t}_replay ${RP_FUZZ_SRC}/fuzz_${t}.c
		${RP_FUZZ_SRC}/common.c ${RP_FUZZ_SRC}/replay.c)
	target_link_libraries(fuzz_${t}_replay PRIVATE rdmaperf_core)
	add_test(NAME fuzz.${t}_replay COMMAND fuzz_${t}_replay
		${RP_FUZZ_SRC}/corpus/${t})
endforeach()

if(NOT RP_FUZZ AND NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
	return()
endif()
if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
	message(FATAL_ERROR "RP_FUZZ=ON needs clang as the C compiler: "
		"configure a new build directory with CC=clang")
endif()

set(RP_FUZZ_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined
	-fno-omit-frame-pointer -g)
include(CheckCSourceCompiles)
set(CMAKE_REQUIRED_FLAGS "-fsanitize=fuzzer,address,undefined")
set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=fuzzer,address,undefined)
check_c_source_compiles("
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{ (void)d; (void)n; return 0; }" RP_HAVE_LIBFUZZER)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(NOT RP_HAVE_LIBFUZZER)
	set(why "clang -fsanitize=fuzzer does not link: install libclang-rt-dev (scripts/install-deps.sh)")
	if(RP_FUZZ)
		message(FATAL_ERROR "${why}")
	endif()
	message(WARNING "${why}; the libFuzzer binaries are not built")
	return()
endif()

# The library again, with coverage for libFuzzer and the sanitizers.
get_target_property(rp_defs rdmaperf_core COMPILE_DEFINITIONS)
get_target_property(rp_libs rdmaperf_core LINK_LIBRARIES)
add_library(rp_fuzz_core STATIC ${RP_LIB_SOURCES})
target_include_directories(rp_fuzz_core PUBLIC ${CMAKE_SOURCE_DIR}/src)
target_compile_definitions(rp_fuzz_core PUBLIC ${rp_defs})
target_compile_options(rp_fuzz_core PUBLIC ${RP_FUZZ_FLAGS}
	-fsanitize=fuzzer-no-link)
target_link_libraries(rp_fuzz_core PUBLIC ${rp_libs})
target_link_options(rp_fuzz_core PUBLIC -fsanitize=address,undefined)

add_custom_target(fuzz_all)
foreach(t ${RP_FUZZ_TARGETS})
	add_executable(fuzz_${t} ${RP_FUZZ_SRC}/fuzz_${t}.c
		${RP_FUZZ_SRC}/common.c)
	target_compile_options(fuzz_${t} PRIVATE -fsanitize=fuzzer)
	target_link_options(fuzz_${t} PRIVATE -fsanitize=fuzzer)
	target_link_libraries(fuzz_${t} PRIVATE rp_fuzz_core)
	add_dependencies(fuzz_all fuzz_${t})
	add_test(NAME fuzz.${t}_run COMMAND bash ${RP_FUZZ_SRC}/run.sh
		$<TARGET_FILE:fuzz_${t}> ${RP_FUZZ_SRC}/corpus/${t}
		${CMAKE_CURRENT_BINARY_DIR}/fuzz-artifacts -runs=${RP_FUZZ_RUNS})
	set_tests_properties(fuzz.${t}_run PROPERTIES LABELS fuzz TIMEOUT 600)
endforeach()
