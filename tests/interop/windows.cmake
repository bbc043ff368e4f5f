# The Windows build (mingw-w64, run under wine) against this build, both
# ways, on loopback: tests/interop/windows.sh. Label "interop": the
# sanitizer suite leaves it out (-LE interop), it proves the same code.
# interop.windows.build builds rdmaperf.exe (scripts/build-windows.sh)
# into windows/ under the build directory, as interop.windows's fixture.
# Included from tests/CMakeLists.txt.

set(RP_WIN_DIR ${CMAKE_BINARY_DIR}/windows)
add_test(NAME interop.windows.build
	COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/interop/windows.sh build
		${RP_WIN_DIR})
set_tests_properties(interop.windows.build PROPERTIES
	FIXTURES_SETUP rp_windows_build
	TIMEOUT 900
	SKIP_RETURN_CODE 77
	LABELS interop
	RESOURCE_LOCK rp_windows_dir)

add_test(NAME interop.windows
	COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/interop/windows.sh run
		${RP_WIN_DIR} $<TARGET_FILE:rdmaperf>)
set_tests_properties(interop.windows PROPERTIES
	FIXTURES_REQUIRED rp_windows_build
	TIMEOUT 600
	SKIP_RETURN_CODE 77
	LABELS interop
	RUN_SERIAL TRUE)
