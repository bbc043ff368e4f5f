# Packaging (label pkg, doc/packaging.md): the shell completion against
# this build's --help, driven for real; the Debian package built from the
# tree, lintian, and installed into a clean root (about 2.5 minutes, most
# of it the package's own compile and the root's download).
if(TARGET completion)
	add_test(NAME pkg.completion
		COMMAND python3 -B ${CMAKE_CURRENT_LIST_DIR}/completion.py
			$<TARGET_FILE:rdmaperf> ${CMAKE_BINARY_DIR}/completion
			${CMAKE_SOURCE_DIR}/tests/fixtures/sysfs/mlx5_roce)
	set_tests_properties(pkg.completion PROPERTIES LABELS pkg
		SKIP_RETURN_CODE 77)
endif()
add_test(NAME pkg.deb
	COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/package.sh ${CMAKE_SOURCE_DIR}
		${CMAKE_BINARY_DIR}/pkg $<TARGET_FILE:rdmaperf>)
# RUN_SERIAL: it compiles the whole tree again with every core
set_tests_properties(pkg.deb PROPERTIES LABELS pkg SKIP_RETURN_CODE 77
	TIMEOUT 900 RUN_SERIAL ON)
