# SPDX-License-Identifier: MIT
# What every Linux cross build shares (included by the ARCH-linux-gnu.cmake
# files, which set RP_CROSS_TRIPLET, the compiler's prefix, RP_CROSS_MULTIARCH,
# Debian's multiarch directory name, and RP_CROSS_QEMU, the qemu-user
# program): Debian's cross compiler, libraries and headers from the
# multiarch tree, programs from the host, the target's pkg-config files
# only.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${RP_CROSS_TRIPLET}-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE ${RP_CROSS_MULTIARCH})

set(CMAKE_FIND_ROOT_PATH /usr/${RP_CROSS_TRIPLET} /usr/lib/${RP_CROSS_MULTIARCH})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# pkg-config must see the target's .pc files only, never the host's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${RP_CROSS_MULTIARCH}/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
# And, first, a library unpacked outside the multiarch tree
# (scripts/cross-build.sh's ssl_private: libssl-dev of another version).
# try_compile reads this file again in the same process, so it must see the
# variable too, or it would reset the environment for the whole configure.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES RP_CROSS_PKG_CONFIG)
if(RP_CROSS_PKG_CONFIG)
	set(ENV{PKG_CONFIG_LIBDIR} "${RP_CROSS_PKG_CONFIG}:$ENV{PKG_CONFIG_LIBDIR}")
endif()

set(CMAKE_CROSSCOMPILING_EMULATOR ${RP_CROSS_QEMU})
