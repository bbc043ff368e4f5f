#!/usr/bin/env bash
# Install, build with -Werror, run the whole suite; then build with
# ASan + UBSan and run it again; then build the fuzz targets with clang and
# libFuzzer and fuzz each decoder. Exits non-zero if any test failed.
# Under CI=true a skipped test (exit 77: qemu or the kernel missing) fails
# the run: RP_REQUIRE_VM=1 makes the verbs tests treat it as an error, and
# RP_REQUIRE_CROSS=1 the cross builds and interop tests (tests/interop).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${CI:-}" = true ]; then
	export RP_REQUIRE_VM=1 RP_REQUIRE_CROSS=1
fi
bash scripts/install-deps.sh
# Cross compilers, qemu-user, multiarch libraries for tests/interop; 77:
# not root and missing, so the interop tests will say they skip.
bash scripts/cross-build.sh --deps all || [ $? -eq 77 ]
jobs=$(nproc)
status=0

ctest_args=()

run_suite() {
	local dir=$1
	shift
	echo "== build $dir: $*"
	cmake -S . -B "$dir" -DRP_WERROR=ON "$@" >/dev/null
	make -C "$dir" -j"$jobs" >/dev/null
	echo "== test $dir"
	# -j: the unit tests and the Windows build side by side; the
	# end-to-end, guest and cross tests are RUN_SERIAL, each alone.
	(cd "$dir" && ctest --output-on-failure --timeout 900 -j"$jobs" \
		${ctest_args[@]+"${ctest_args[@]}"}) || status=1
}

run_suite build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo
# Sanitizers: the verbs tests boot a guest per group; under ASan they run
# the instrumented binary the same way.
# tests/sanitizer/*.supp: what is librdmacm's own (each file says why).
# tests/vm/rxe-run passes these variables on to the guest.
supp=$PWD/tests/sanitizer
# Not the interop tests (label interop): the foreign side is a cross build
# without sanitizers and the native side's protocol code is the same the
# sanitized e2e tests run; the first suite proves interop, this one would
# only spend CI minutes (30 in all) on three cross builds again. Nor
# vm.selftest: it tests tests/vm/rxe-run, which no sanitizer instruments.
# vm.rxe leaves out two guest groups in this build, and vm.siw and
# vm.fabric are not in it (tests/vm/tests.cmake says which, and why).
# Nor pkg.deb: the package is built from the tree with its own flags,
# the same in both suites (3 minutes more for nothing new).
ctest_args=(-LE interop -E '^(vm[.]selftest|pkg[.]deb)$')
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:suppressions=$supp/asan.supp \
LSAN_OPTIONS=suppressions=$supp/lsan.supp \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	run_suite build-asan -DCMAKE_BUILD_TYPE=Debug -DRP_SANITIZE=ON

# Fuzzing: every decoder's libFuzzer binary (clang, coverage, ASan and
# UBSan), RP_FUZZ_RUNS inputs each from a copy of its seed corpus
# (tests/fuzz/README.md). Only the fuzz targets are built here; the suites
# above compiled everything else. --no-tests=error: no libFuzzer, no pass.
echo "== build build-fuzz: CC=clang -DRP_FUZZ=ON"
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DRP_FUZZ=ON >/dev/null
cmake --build build-fuzz --target fuzz_all -j"$jobs" >/dev/null
echo "== fuzz build-fuzz"
(cd build-fuzz && ctest -L fuzz --no-tests=error --output-on-failure \
	-j"$jobs") || status=1
exit $status
