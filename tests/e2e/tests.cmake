# End-to-end tests: the rdmaperf binary against real server processes on
# 127.0.0.1 (TCP only, so they run without RDMA hardware). Python 3, standard
# library only; each file also runs alone:
#   python3 tests/e2e/<name>.py path/to/rdmaperf
# Included from tests/CMakeLists.txt, so paths are relative to tests/.

find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
	message(WARNING "python3 not found: end-to-end tests are not run")
	return()
endif()

# name and timeout (seconds); the runtimes measured on a loaded 2-core
# machine are a fraction of these.
set(RP_E2E_TESTS
	tcp_ops 300
	bad_input 120
	server_robust 300
	once 120
	back_to_back 180
	sweeps_streams 600
	plots 300
	plots_repeat 300
	csv_json 300
	live 300
	faults 900
	access 120
	ipv6 120
	load 300
	matrix 300
	file 120
	zerocopy 180
	report_bounds 300
	outputs_lost 120
	auth_gate 180
	data_ports 300
	verdict 300
	repeat 600
	slo 600
	diff 300
	many_tests 180
	patterns 300
	monitor 180
	ofi 300
	tos 120
	mem 120
	qp 60
	rails 180
)

list(LENGTH RP_E2E_TESTS _rp_e2e_len)
math(EXPR _rp_e2e_last "${_rp_e2e_len} - 1")
foreach(_i RANGE 0 ${_rp_e2e_last} 2)
	math(EXPR _j "${_i} + 1")
	list(GET RP_E2E_TESTS ${_i} _name)
	list(GET RP_E2E_TESTS ${_j} _timeout)
	add_test(NAME e2e.${_name}
		COMMAND ${Python3_EXECUTABLE} -B
			${CMAKE_CURRENT_SOURCE_DIR}/e2e/${_name}.py
			$<TARGET_FILE:rdmaperf>)
	# Each starts its own servers on free ports, so they may run in
	# parallel; RUN_SERIAL keeps their timing figures meaningful on a
	# small machine.
	set_tests_properties(e2e.${_name} PROPERTIES
		TIMEOUT ${_timeout}
		SKIP_RETURN_CODE 77
		LABELS e2e
		RUN_SERIAL TRUE)
endforeach()
