# What a system install adds to the program and its man pages
# (doc/packaging.md): the JSON schemas, shell completion made from this
# build's --help, the systemd units with this install's paths, the user
# they run as and their options files. The Debian package (debian/) is
# this install; nothing is copied by hand there.

install(FILES
	schema/rdmaperf-1.schema.json
	schema/rdmaperf-diff-1.schema.json
	schema/rdmaperf-matrix-1.schema.json
	schema/rdmaperf-stream-1.schema.json
	DESTINATION ${CMAKE_INSTALL_DATADIR}/rdmaperf/schema)

# Shell completion: scripts/gen-completion.py reads the built binary's
# --help (and its subcommands'), so it is remade whenever rdmaperf is. A
# cross build cannot run the binary, and Windows has no bash-completion.
set(RP_BASH_COMPLETION_DIR ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
	CACHE STRING "Where bash-completion finds rdmaperf's completion")
set(RP_ZSH_COMPLETION_DIR ${CMAKE_INSTALL_DATADIR}/zsh/site-functions
	CACHE STRING "Where zsh finds _rdmaperf (Debian: share/zsh/vendor-completions)")
find_package(Python3 COMPONENTS Interpreter)
if(NOT WIN32 AND NOT CMAKE_CROSSCOMPILING AND Python3_Interpreter_FOUND)
	set(RP_COMPLETION_DIR ${CMAKE_BINARY_DIR}/completion)
	add_custom_command(
		OUTPUT ${RP_COMPLETION_DIR}/rdmaperf ${RP_COMPLETION_DIR}/_rdmaperf
		COMMAND ${CMAKE_COMMAND} -E make_directory ${RP_COMPLETION_DIR}
		COMMAND Python3::Interpreter -B
			${CMAKE_SOURCE_DIR}/scripts/gen-completion.py
			$<TARGET_FILE:rdmaperf>
			--bash ${RP_COMPLETION_DIR}/rdmaperf
			--zsh ${RP_COMPLETION_DIR}/_rdmaperf
		DEPENDS rdmaperf ${CMAKE_SOURCE_DIR}/scripts/gen-completion.py
		COMMENT "Shell completion from rdmaperf --help"
		VERBATIM)
	add_custom_target(completion ALL DEPENDS ${RP_COMPLETION_DIR}/rdmaperf
		${RP_COMPLETION_DIR}/_rdmaperf)
	install(FILES ${RP_COMPLETION_DIR}/rdmaperf
		DESTINATION ${RP_BASH_COMPLETION_DIR})
	install(FILES ${RP_COMPLETION_DIR}/_rdmaperf
		DESTINATION ${RP_ZSH_COMPLETION_DIR})
elseif(NOT WIN32)
	message(STATUS "no shell completion: cross build or no python3")
endif()

if(WIN32)
	return()
endif()

# systemd: the units (dist/systemd/*.service.in, made with this install's
# paths), their user (sysusers.d), their options files (/etc/default) and
# the example monitor config. Relative destinations follow the prefix
# (`cmake --install --prefix`); with the prefix /usr, /etc and systemd's
# own unit directory (its pkg-config file's: /lib/systemd/system on
# Debian 12).
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
	pkg_get_variable(RP_SYSTEMD_PC_UNITDIR systemd systemdsystemunitdir)
	if(NOT RP_SYSTEMD_PC_UNITDIR)
		set(RP_SYSTEMD_PC_UNITDIR /lib/systemd/system)
	endif()
else()
	set(RP_SYSTEMD_PC_UNITDIR lib/systemd/system)
endif()
set(RP_SYSTEMD_UNITDIR ${RP_SYSTEMD_PC_UNITDIR}
	CACHE STRING "Where the systemd units are installed")
set(RP_BINDIR ${CMAKE_INSTALL_FULL_BINDIR})
set(RP_SYSCONFDIR ${CMAKE_INSTALL_FULL_SYSCONFDIR})
if(RP_SYSCONFDIR STREQUAL "${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_SYSCONFDIR}")
	set(RP_ETC_DEST ${CMAKE_INSTALL_SYSCONFDIR})
else()
	set(RP_ETC_DEST ${RP_SYSCONFDIR}) # /usr's is /etc
endif()
foreach(unit rdmaperf-server.service rdmaperf-monitor.service)
	configure_file(dist/systemd/${unit}.in ${CMAKE_BINARY_DIR}/dist/${unit}
		@ONLY)
	install(FILES ${CMAKE_BINARY_DIR}/dist/${unit}
		DESTINATION ${RP_SYSTEMD_UNITDIR})
endforeach()
install(FILES dist/sysusers.d/rdmaperf.conf
	DESTINATION lib/sysusers.d)
install(FILES dist/default/rdmaperf-server dist/default/rdmaperf-monitor
	DESTINATION ${RP_ETC_DEST}/default)
# The monitor's example config (every key with its default), to copy to
# /etc/rdmaperf/monitor.conf: not installed there, where the unit would
# start probing the example's peers.
install(FILES dist/monitor.conf DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
