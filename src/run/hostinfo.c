// SPDX-License-Identifier: MIT
/* What a result says about each host. */
#include "platform/host.h"
#include "run/run.h"

cJSON *rp_host_info(void)
{
	cJSON *j = cJSON_CreateObject();
	struct rp_host h;

	if (!j)
		return NULL;
	rp_host_read(&h);
	cJSON_AddStringToObject(j, "hostname", h.hostname);
	cJSON_AddStringToObject(j, "version", RP_VERSION);
	if (h.os[0]) {
		cJSON_AddStringToObject(j, "os", h.os);
		cJSON_AddStringToObject(j, "kernel", h.kernel);
		cJSON_AddStringToObject(j, "machine", h.machine);
	}
	cJSON_AddNumberToObject(j, "cpus", (double)h.cpus);
	return j;
}
