# SPDX-License-Identifier: MIT
# Cross build for s390x Linux: Debian's cross compiler (s390x-linux-gnu-gcc)
# and multiarch libraries (/usr/lib/s390x-linux-gnu). scripts/cross-build.sh
# installs both and passes this file; by hand:
#   cmake -S . -B /tmp/b \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/s390x-linux-gnu.cmake \
#         -DRP_TESTS=OFF -DRP_RDMA=OFF
#   cmake --build /tmp/b --target rdmaperf
# The binary runs under qemu-user: qemu-s390x ./rdmaperf
# s390x is the big-endian build: it proves the control protocol and the
# JSON are independent of byte order. It builds without the rdma
# transports (-DRP_RDMA=OFF): a mainframe has no verbs device to test
# them on, and leaving rdma-core out keeps the cross install small; the
# i686 and aarch64 builds compile the rdma code for other targets.
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(RP_CROSS_TRIPLET s390x-linux-gnu)
set(RP_CROSS_MULTIARCH s390x-linux-gnu)
set(RP_CROSS_QEMU qemu-s390x)
include(${CMAKE_CURRENT_LIST_DIR}/linux-cross.cmake)
