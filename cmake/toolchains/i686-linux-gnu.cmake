# SPDX-License-Identifier: MIT
# Cross build for i686 Linux: Debian's cross compiler (i686-linux-gnu-gcc)
# and multiarch libraries (/usr/lib/i386-linux-gnu). scripts/cross-build.sh
# installs both and passes this file; by hand:
#   cmake -S . -B /tmp/b \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/i686-linux-gnu.cmake \
#         -DRP_TESTS=OFF
#   cmake --build /tmp/b --target rdmaperf
# The binary runs under qemu-user: qemu-i386 ./rdmaperf
# (or natively, where the x86-64 kernel runs 32-bit programs:
# CONFIG_IA32_EMULATION, as Debian's does). It builds with the rdma
# transports: Debian ships libibverbs-dev:i386 and librdmacm-dev:i386.
set(CMAKE_SYSTEM_PROCESSOR i686)
set(RP_CROSS_TRIPLET i686-linux-gnu)
set(RP_CROSS_MULTIARCH i386-linux-gnu)
set(RP_CROSS_QEMU qemu-i386)
# x87 arithmetic: round a double to double on assignment and return, as C
# says (GNU mode keeps 80 bits in registers otherwise), so one figure
# computed twice compares equal, as on every other target.
set(CMAKE_C_FLAGS_INIT "-fexcess-precision=standard")
include(${CMAKE_CURRENT_LIST_DIR}/linux-cross.cmake)
