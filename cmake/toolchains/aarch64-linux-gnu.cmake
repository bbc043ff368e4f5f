# SPDX-License-Identifier: MIT
# Cross build for aarch64 Linux: Debian's cross compiler (aarch64-linux-gnu-gcc)
# and multiarch libraries (/usr/lib/aarch64-linux-gnu). scripts/cross-build.sh
# installs both and passes this file; by hand:
#   cmake -S . -B /tmp/b \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
#         -DRP_TESTS=OFF
#   cmake --build /tmp/b --target rdmaperf
# The binary runs under qemu-user: qemu-aarch64 ./rdmaperf
# It builds with the rdma transports (libibverbs-dev:arm64,
# librdmacm-dev:arm64): arm64 servers carry RDMA NICs.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# Libraries and headers from the multiarch tree, programs from the host.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# pkg-config must see the target's .pc files only, never the host's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
