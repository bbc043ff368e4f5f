// SPDX-License-Identifier: MIT
/* What a result says about each host. */
#include "platform/build.h"
#include "platform/host.h"
#include "run/run.h"

/* What this binary was built for: optional on the wire (older peers do
 * not send it), passed through opaquely like the rest. */
static cJSON *build_info(void)
{
	cJSON *j = cJSON_CreateObject();
	struct rp_build b;

	if (!j)
		return NULL;
	rp_build_read(&b);
	cJSON_AddStringToObject(j, "arch", b.arch);
	cJSON_AddStringToObject(j, "os", b.os);
	cJSON_AddNumberToObject(j, "pointer_bits", b.pointer_bits);
	cJSON_AddStringToObject(j, "byte_order", b.byte_order);
	cJSON_AddStringToObject(j, "compiler", b.compiler);
	cJSON_AddStringToObject(j, "compiler_version", b.compiler_version);
	return j;
}

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
	cJSON_AddItemToObject(j, "build", build_info());
	return j;
}
