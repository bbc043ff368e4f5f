// SPDX-License-Identifier: MIT
/* Windows side of platform/host.h. */
#include <stdio.h>
#include <string.h>

#include <windows.h>

#include "platform/host.h"

typedef LONG(WINAPI *rtl_get_version_fn)(OSVERSIONINFOW *);

/* The real version (GetVersionEx answers what the manifest allows). */
static void kernel_version(char *buf, size_t len)
{
	OSVERSIONINFOW v = { .dwOSVersionInfoSize = sizeof(v) };
	HMODULE ntdll = GetModuleHandleA("ntdll.dll");
	rtl_get_version_fn get = NULL;
	FARPROC p = ntdll ? GetProcAddress(ntdll, "RtlGetVersion") : NULL;

	memcpy(&get, &p, sizeof(get));
	if (get && get(&v) == 0)
		snprintf(buf, len, "%lu.%lu.%lu", v.dwMajorVersion,
			 v.dwMinorVersion, v.dwBuildNumber);
}

static const char *machine_name(void)
{
	SYSTEM_INFO si;

	GetNativeSystemInfo(&si);
	switch (si.wProcessorArchitecture) {
	case PROCESSOR_ARCHITECTURE_AMD64:
		return "x86_64";
	case PROCESSOR_ARCHITECTURE_ARM64:
		return "aarch64";
	case PROCESSOR_ARCHITECTURE_INTEL:
		return "i686";
	default:
		return "";
	}
}

void rp_host_read(struct rp_host *h)
{
	DWORD n = sizeof(h->hostname) - 1;

	memset(h, 0, sizeof(*h));
	if (!GetComputerNameExA(ComputerNameDnsHostname, h->hostname, &n))
		h->hostname[0] = '\0';
	snprintf(h->os, sizeof(h->os), "Windows");
	kernel_version(h->kernel, sizeof(h->kernel));
	snprintf(h->machine, sizeof(h->machine), "%s", machine_name());
	h->cpus = (long)GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
}
