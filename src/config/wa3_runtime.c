/* Implements WA3's runtime_params read as kvbench knobs: per-CPU and per-cluster cpufreq and cpuidle sysfs paths, CPU masks, and the parameters kvbench cannot apply. */
#include "config/wa3_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- runtime parameters ---- */

/* cpuN_governor and friends -> sysfs paths of cpuN's cpufreq (devlib's cpufreq module writes these). */
static char *cpu_sysfs(const char *key)
{
	static const struct {
		const char *suffix, *file;
	} m[] = {
		{ "_governor", "scaling_governor" },
		{ "_frequency", "scaling_setspeed" },
		{ "_min_frequency", "scaling_min_freq" },
		{ "_max_frequency", "scaling_max_freq" },
	};
	const char *p = key + 3;
	int cpu = 0, digits = 0;
	if (strncmp(key, "cpu", 3))
		return NULL;
	while (isdigit((unsigned char)*p)) {
		cpu = cpu * 10 + (*p++ - '0');
		if (++digits > 4)
			return NULL;
	}
	if (!digits)
		return NULL;
	for (size_t i = 0; i < KVB_ARRAY_SIZE(m); i++)
		if (!strcmp(p, m[i].suffix))
			return kvb_xasprintf("/sys/devices/system/cpu/cpu%d/cpufreq/%s", cpu, m[i].file);
	return NULL;
}

/* kv (detached by the caller) into rp[outer][inner] = kv, creating rp[outer] as needed; replaces. */
static void put2(cJSON *rp, const char *outer, const char *inner, cJSON *kv)
{
	cJSON *o = kvb_wa3_get(rp, outer);
	if (!cJSON_IsObject(o)) {
		cJSON_DeleteItemFromObjectCaseSensitive(rp, outer);
		o = cJSON_AddObjectToObject(rp, outer);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(o, inner);
	cJSON_AddItemToObject(o, inner, kv);
}

static int ends_with(const char *s, const char *suffix, size_t *stem)
{
	size_t n = strlen(s), m = strlen(suffix);
	if (n <= m || strcmp(s + n - m, suffix))
		return 0;
	*stem = n - m;
	return 1;
}

/*
 * WA3's CpufreqRuntimeConfig names per core name / cluster (runtime_config.py, commit 251c263c):
 * NAME_governor, NAME_frequency, NAME_min_frequency, NAME_max_frequency, NAME_gov_tunables ->
 * cpufreq knob {NAME: {governor|frequency|min_freq|max_freq|tunables}} (kHz as in WA3). NAME is checked against the
 * platform's topology.clusters before the run (engine/preflight.c) and when the job applies it.
 * Returns the cluster name (owned) and sets *sub, or NULL.
 */
static char *cluster_knob(const char *key, const char **sub)
{
	static const char *const m[][2] = { { "_min_frequency", "min_freq" },
					    { "_max_frequency", "max_freq" },
					    { "_frequency", "frequency" },
					    { "_governor", "governor" },
					    { "_gov_tunables", "tunables" } };
	size_t stem;
	for (size_t i = 0; i < KVB_ARRAY_SIZE(m); i++)
		if (ends_with(key, m[i][0], &stem)) {
			*sub = m[i][1];
			return kvb_xstrndup(key, stem);
		}
	return NULL;
}

/*
 * WA3 runtime parameters with no kvbench knob that change how the job runs: CPU hotplug
 * (num_cores, num_NAME_cores, cpuN_online: HotplugRuntimeConfig), all-CPU or one-CPU
 * governor tunables and all-CPU frequencies (CpufreqRuntimeConfig). They go to
 * wa3_unapplied: the job fails.
 */
static int is_unapplied(const char *key)
{
	static const char *const whole[] = { "num_cores", "frequency", "min_frequency", "max_frequency",
					     "gov_tunables", "governor_tunables", NULL };
	size_t stem;
	for (int i = 0; whole[i]; i++)
		if (!strcmp(key, whole[i]))
			return 1;
	if (!strncmp(key, "num_", 4) && ends_with(key + 4, "_cores", &stem))
		return 1;
	if (!strncmp(key, "cpu", 3) && ends_with(key, "_online", &stem))
		return 1;
	/* cpuN_gov_tunables: one CPU's policy (its directory is unknown here) */
	return !strncmp(key, "cpu", 3) && isdigit((unsigned char)key[3]) && ends_with(key, "_gov_tunables", &stem);
}

void kvb_wa3_runtime(struct wa3 *w, cJSON *rp, const char *path)
{
	cJSON *kv, *next;
	if (!cJSON_IsObject(rp))
		return;
	for (kv = rp->child; kv; kv = next) {
		char *sys, *cl;
		const char *sub;
		next = kv->next;
		if (cJSON_IsNull(kv)) {
			/* WA3 takes an empty value as "not set" (pop_aliased_param returns None). */
			char *p = kvb_path_key(path, kv->string);
			kvb_wa3_warn_once(w, p, "runtime parameter", kv->string, "has no value: not set");
			free(p);
			cJSON_Delete(cJSON_DetachItemViaPointer(rp, kv));
			continue;
		}
		if (kvb_runtime_is_knob(kv->string) || kvb_keydef_find(kvb_runtime_keys, kv->string))
			continue;
		sys = cpu_sysfs(kv->string);
		if (sys) {
			cJSON *sysfs = kvb_wa3_get(rp, "sysfs"), *val = cJSON_DetachItemViaPointer(rp, kv);
			if (!sysfs)
				sysfs = kvb_wa3_get(rp, "sysfile_values");
			if (!cJSON_IsObject(sysfs))
				sysfs = cJSON_AddObjectToObject(rp, "sysfs");
			cJSON_DeleteItemFromObjectCaseSensitive(sysfs, sys);
			cJSON_AddItemToObject(sysfs, sys, val);
			free(sys);
			continue;
		}
		if (is_unapplied(kv->string)) {
			char *p = kvb_path_key(path, kv->string), *key = kvb_xstrdup(kv->string);
			kvb_diag_warn_at(w->d, p, "WA3 runtime parameter '%s' cannot be applied, its jobs will fail: %s", key,
					 kvb_runtime_unapplied_reason(key));
			put2(rp, "wa3_unapplied", key, cJSON_DetachItemViaPointer(rp, kv));
			free(key);
			free(p);
			continue;
		}
		cl = cluster_knob(kv->string, &sub);
		if (cl) {
			cJSON *cf = kvb_wa3_get(rp, "cpufreq");
			if (!cJSON_IsObject(kvb_wa3_get(cf, cl)))
				put2(rp, "cpufreq", cl, cJSON_CreateObject());
			put2(kvb_wa3_get(rp, "cpufreq"), cl, sub, cJSON_DetachItemViaPointer(rp, kv));
			free(cl);
			continue;
		}
		{
			char *p = kvb_path_key(path, kv->string);
			kvb_wa3_warn_once(w, p, "runtime parameter", kv->string,
				  "has no kvbench knob (knobs: cpus, cgroup_depth, sysctl, sysfs, governor, cpufreq, "
				  "cpuN_governor, cpuN_frequency, CLUSTER_governor, CLUSTER_frequency)");
			free(p);
			cJSON_Delete(cJSON_DetachItemViaPointer(rp, kv));
		}
	}
}

/* ---- job specs (config, sections, workload entries) ---- */

const char *const kvb_wa3_run_settings[] = {
	"run_name", "project", "project_stage", "reboot_policy", "device", "device_config", "retry_on_status",
	"bail_on_init_failure", "bail_on_job_failure", "allow_phone_home", "user_directory", "assets_repository",
	"logging", "verbosity", "default_output_directory", "extra_plugin_paths", "resource_getters", NULL,
};

/* WA3's cpu_mask value (wa/utils/types.py: an int bit mask, a "0x" hex mask, a CPU list string or a list of
 * CPUs) as a CPU list in l; a list item that is not a CPU number is passed on for the knob's check to refuse. */
static void wa3_cpu_mask_list(const cJSON *m, struct kvb_buf *l)
{
	unsigned long long mask = 0;
	if (cJSON_IsString(m) && strncmp(m->valuestring, "0x", 2)) {
		kvb_buf_adds(l, m->valuestring);
		return;
	}
	if (cJSON_IsArray(m)) {
		for (const cJSON *c = m->child; c; c = c->next) {
			char *v = kvb_node_str(c);
			kvb_buf_addf(l, "%s%s", l->len ? "," : "", v ? v : "?");
			free(v);
		}
		return;
	}
	mask = cJSON_IsString(m) ? strtoull(m->valuestring, NULL, 16) : (unsigned long long)m->valuedouble;
	for (int c = 0; c < 64; c++)
		if (mask >> c & 1)
			kvb_buf_addf(l, "%s%d", l->len ? "," : "", c);
}

/* The entry's runtime knob `knob` set to WA3's cpu_mask m as a CPU list (in runtime_params, or the entry's
 * runtime_parameters), checked where the knob is read. */
void kvb_wa3_cpu_mask_knob(cJSON *e, const cJSON *m, const char *knob)
{
	struct kvb_buf l = KVB_BUF_INIT;
	wa3_cpu_mask_list(m, &l);
	if (l.len) {
		cJSON *rp = kvb_wa3_get(e, "runtime_params");
		if (!rp)
			rp = kvb_wa3_get(e, "runtime_parameters");
		if (!cJSON_IsObject(rp))
			rp = cJSON_AddObjectToObject(e, "runtime_params");
		cJSON_DeleteItemFromObjectCaseSensitive(rp, knob);
		cJSON_AddStringToObject(rp, knob, l.data);
	}
	kvb_buf_release(&l);
}
