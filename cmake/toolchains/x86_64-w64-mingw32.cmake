# Cross-compile rdmaperf for Windows x86-64 with Debian's mingw-w64
# (scripts/build-windows.sh). Libraries (cJSON) come from RP_WIN_PREFIX,
# found through its pkg-config files only: never the host's.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(RP_MINGW x86_64-w64-mingw32)
# the POSIX thread model: winpthreads, for pthread_* and clock_gettime
find_program(CMAKE_C_COMPILER NAMES ${RP_MINGW}-gcc-posix ${RP_MINGW}-gcc
	REQUIRED)
find_program(CMAKE_RC_COMPILER NAMES ${RP_MINGW}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${RP_MINGW})
if(DEFINED ENV{RP_WIN_PREFIX})
	list(APPEND CMAKE_FIND_ROOT_PATH $ENV{RP_WIN_PREFIX})
	set(ENV{PKG_CONFIG_LIBDIR} "$ENV{RP_WIN_PREFIX}/lib/pkgconfig")
	set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
