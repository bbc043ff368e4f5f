/* SPDX-License-Identifier: MIT */
/* This binary's build facts (build.h), from predefined macros only. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "platform/build.h"

#if defined(__x86_64__) || defined(_M_X64)
#define ARCH "x86_64"
#elif defined(__i386__) || defined(_M_IX86)
#define ARCH "i386"
#elif defined(__aarch64__) || defined(_M_ARM64)
#define ARCH "aarch64"
#elif defined(__arm__) || defined(_M_ARM)
#define ARCH "arm"
#elif defined(__s390x__)
#define ARCH "s390x"
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
#define ARCH "ppc64le"
#elif defined(__powerpc64__)
#define ARCH "ppc64"
#elif defined(__riscv) && __riscv_xlen == 64
#define ARCH "riscv64"
#else
#define ARCH "unknown"
#endif

#if defined(_WIN32)
#define OS "windows"
#elif defined(__linux__)
#define OS "linux"
#elif defined(__APPLE__)
#define OS "darwin"
#elif defined(__FreeBSD__)
#define OS "freebsd"
#else
#define OS "unknown"
#endif

/* clang defines __GNUC__ too, so it is asked first. */
static const char *compiler(char *ver, size_t len)
{
#if defined(__clang__)
	snprintf(ver, len, "%d.%d.%d", __clang_major__, __clang_minor__,
		 __clang_patchlevel__);
	return "clang";
#elif defined(__GNUC__)
	snprintf(ver, len, "%d.%d.%d", __GNUC__, __GNUC_MINOR__,
		 __GNUC_PATCHLEVEL__);
	return "gcc";
#elif defined(_MSC_VER)
	snprintf(ver, len, "%d", _MSC_FULL_VER);
	return "msvc";
#else
	snprintf(ver, len, "unknown");
	return "unknown";
#endif
}

void rp_build_read(struct rp_build *b)
{
	const uint16_t one = 1;

	b->arch = ARCH;
	b->os = OS;
	b->pointer_bits = (unsigned int)(sizeof(void *) * CHAR_BIT);
	b->byte_order = *(const unsigned char *)&one ? "little" : "big";
	b->compiler =
		compiler(b->compiler_version, sizeof(b->compiler_version));
}
