// SPDX-License-Identifier: MIT
/* What a result says about each host. */
#include <sys/utsname.h>
#include <unistd.h>

#include "run/run.h"

cJSON *rp_host_info(void)
{
	cJSON *h = cJSON_CreateObject();
	struct utsname u;
	char name[256] = "";

	if (!h)
		return NULL;
	gethostname(name, sizeof(name) - 1);
	cJSON_AddStringToObject(h, "hostname", name);
	cJSON_AddStringToObject(h, "version", RP_VERSION);
	if (uname(&u) == 0) {
		cJSON_AddStringToObject(h, "os", u.sysname);
		cJSON_AddStringToObject(h, "kernel", u.release);
		cJSON_AddStringToObject(h, "machine", u.machine);
	}
	cJSON_AddNumberToObject(h, "cpus",
				(double)sysconf(_SC_NPROCESSORS_ONLN));
	return h;
}
