/*
 * Fuzzes the rt-app use case loader (kvb_rtapp_config_load: workgen's renaming of repeated
 * keys, then json-c, then cJSON) and the config kvbench builds from what it accepts.
 */
#include "fuzz.h"
#include "workload/rt_app.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = kvb_fuzz_file("use-case.json", data, size);
	struct kvb_error err;
	cJSON *cfg = NULL, *params = cJSON_CreateObject(), *out = NULL;
	long dur;
	if (!kvb_rtapp_config_load(path, &cfg, &err)) {
		cJSON_AddStringToObject(params, "config", path);
		cJSON_AddNumberToObject(params, "duration_s", 1);
		if (!kvb_rtapp_config_build(params, "/r", "rt-app", &out, &dur, &err)) {
			char *text = cJSON_PrintUnformatted(out);
			free(text);
		}
	}
	cJSON_Delete(out);
	cJSON_Delete(cfg);
	cJSON_Delete(params);
	return 0;
}
