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
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(RP_CROSS_TRIPLET aarch64-linux-gnu)
set(RP_CROSS_MULTIARCH aarch64-linux-gnu)
set(RP_CROSS_QEMU qemu-aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/linux-cross.cmake)
