/* SPDX-License-Identifier: MIT */
/*
 * What this binary was built for, from the compiler's predefined macros:
 * the kernel's machine name (platform/host.h) says x86_64 for a 32-bit
 * program on a 64-bit kernel, and nothing of byte order or compiler.
 */
#ifndef RP_PLATFORM_BUILD_H
#define RP_PLATFORM_BUILD_H

#define RP_BUILD_VERSION_LEN 32

struct rp_build {
	const char *arch; /* "x86_64", "i386", "aarch64", "s390x", ... */
	const char *os;	  /* "linux", "windows", "darwin", "freebsd" */
	unsigned int pointer_bits; /* 32 or 64 */
	const char *byte_order;	   /* "little" or "big" */
	const char *compiler;	   /* "gcc", "clang", "msvc" */
	char compiler_version[RP_BUILD_VERSION_LEN]; /* "12.2.0" */
};

/** rp_build_read - fill @b with this binary's build facts ("unknown" for
 * what the compiler does not say). */
void rp_build_read(struct rp_build *b);

#endif
