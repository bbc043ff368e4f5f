// SPDX-License-Identifier: MIT
/* What a result says about each host. */
#include "core/safe.h"
#include "platform/build.h"
#include "platform/clock.h"
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

/* What rp_clock_ns() reads (platform/clock.h): the timestamps of every
 * figure of this side. */
static cJSON *clock_info(void)
{
	cJSON *j = cJSON_CreateObject();

	if (!j)
		return NULL;
	cJSON_AddStringToObject(j, "source", rp_clock_source_name());
	cJSON_AddNumberToObject(j, "hz", rp_clock_hz());
	cJSON_AddNumberToObject(
		j, "read_ns",
		(double)(uint64_t)(rp_clock_read_ns() * 10 + 0.5) / 10);
	if (rp_clock_forced())
		cJSON_AddBoolToObject(j, "unchecked", 1);
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
	cJSON_AddItemToObject(j, "clock", clock_info());
	rp_safe_json(j); /* a hostname may hold anything: peers print it */
	return j;
}

void rp_host_clock_end(cJSON *host)
{
	cJSON *c = cJSON_GetObjectItemCaseSensitive(host, "clock");

	if (cJSON_IsObject(c) &&
	    !cJSON_GetObjectItemCaseSensitive(c, "drift_ppm"))
		cJSON_AddNumberToObject(c, "drift_ppm", rp_clock_drift_ppm());
}
