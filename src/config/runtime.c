/* Implements runtime knobs: validation, merging (later wins) and JSON form. */
#include "config/runtime.h"
#include "core/error.h"
#include "core/util.h"
#include "core/cpulist.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

const struct kvb_keydef kvb_runtime_keys[] = {
	{ "cpus", KVB_T_STR, NULL, NULL, 0, "CPU list for the workload's affinity, e.g. \"0-3\"" },
	{ "cgroup_depth", KVB_T_INT, NULL, NULL, KVB_KEY_NONNEG, "run the workload in a cgroup nested N levels deep (0 = root)" },
	{ "sysctl", KVB_T_MAP, NULL, NULL, 0, "{name: value} written before the job and restored after" },
	{ "sysfs", KVB_T_MAP, NULL, NULL, 0, "{path: value} written before the job and restored after" },
	{ "sysfile_values", KVB_T_MAP, NULL, NULL, 0, "WA3 alias of sysfs" },
	{ "governor", KVB_T_STR, NULL, NULL, 0, "cpufreq governor for every policy" },
	{ "cpufreq", KVB_T_MAP, NULL, NULL, 0,
	  "per cluster (topology.clusters): {little: {governor: schedutil, min_freq: KHZ, max_freq: KHZ, frequency: KHZ, "
	  "tunables: {rate_limit_us: 500}}}" },
	{ "readback", KVB_T_ANY, "fail", NULL, 0,
	  "a knob the kernel did not take as written: fail the job, or record the value found as its classifier: "
	  "fail|record, or {KIND[.NAME]: fail|record} (KIND all, sysctl, sysfs, governor, cpufreq)" },
	{ "wa3_unapplied", KVB_T_MAP, NULL, NULL, 0,
	  "WA3 runtime parameters kvbench cannot apply (CPU hotplug, governor tunables): a job carrying one fails" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

void kvb_runtime_init(struct kvb_runtime *rt)
{
	memset(rt, 0, sizeof(*rt));
	rt->cgroup_depth = -1;
}

void kvb_runtime_release(struct kvb_runtime *rt)
{
	free(rt->cpus);
	free(rt->governor);
	cJSON_Delete(rt->sysctl);
	cJSON_Delete(rt->sysfs);
	cJSON_Delete(rt->cpufreq);
	cJSON_Delete(rt->unapplied);
	cJSON_Delete(rt->readback);
	kvb_runtime_init(rt);
}

int kvb_runtime_is_knob(const char *key)
{
	return kvb_keydef_find(kvb_runtime_keys, key) != NULL;
}

static void merge_map(cJSON **dst, const cJSON *src)
{
	if (!src)
		return;
	if (!*dst)
		*dst = cJSON_CreateObject();
	for (const cJSON *kv = src->child; kv; kv = kv->next) {
		cJSON *copy = cJSON_Duplicate(kv, 1);
		if (cJSON_GetObjectItemCaseSensitive(*dst, kv->string))
			cJSON_ReplaceItemInObjectCaseSensitive(*dst, kv->string, copy);
		else
			cJSON_AddItemToObject(*dst, kv->string, copy);
	}
}

/* cpufreq: per cluster, per key (a section's governor and a job's frequency both hold, as in WA3). */
static void merge_map2(cJSON **dst, const cJSON *src)
{
	if (!src)
		return;
	if (!*dst)
		*dst = cJSON_CreateObject();
	for (const cJSON *kv = src->child; kv; kv = kv->next) {
		cJSON *have = cJSON_GetObjectItemCaseSensitive(*dst, kv->string);
		if (cJSON_IsObject(have) && cJSON_IsObject(kv))
			merge_map(&have, kv);
		else if (have)
			cJSON_ReplaceItemInObjectCaseSensitive(*dst, kv->string, cJSON_Duplicate(kv, 1));
		else
			cJSON_AddItemToObject(*dst, kv->string, cJSON_Duplicate(kv, 1));
	}
}

/* readback: entries are KIND or KIND.NAME (KIND from this table), values fail|record. */
static const struct kvb_keydef readback_kinds[] = {
	{ "all", KVB_T_STR, "fail", "fail|record", 0, "every knob a job writes" },
	{ "sysctl", KVB_T_STR, "fail", "fail|record", 0, "sysctl knobs, or sysctl.NAME one" },
	{ "sysfs", KVB_T_STR, "fail", "fail|record", 0, "sysfs knobs, or sysfs.PATH one" },
	{ "governor", KVB_T_STR, "fail", "fail|record", 0, "the all-policy governor knob" },
	{ "cpufreq", KVB_T_STR, "fail", "fail|record", 0, "per-cluster cpufreq knobs, or cpufreq.CLUSTER[.KEY]" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

/* Validates readback (a word, or a map of KIND[.NAME] to a word) and merges it over rt->readback. */
static int readback_merge(struct kvb_runtime *rt, const cJSON *kv, const char *path, struct kvb_diag *d)
{
	int errors = 0;
	cJSON *add = cJSON_CreateObject();
	if (cJSON_IsString(kv)) {
		if (!kvb_value_check(kv, path, &readback_kinds[0], d))
			cJSON_AddStringToObject(add, "all", kv->valuestring);
		else
			errors++;
	} else if (cJSON_IsObject(kv)) {
		for (const cJSON *e = kv->child; e; e = e->next) {
			char *ep = kvb_path_key(path, e->string), *kind = kvb_xstrdup(e->string), *dot = strchr(kind, '.');
			const struct kvb_keydef *def;
			if (dot)
				*dot = '\0';
			def = kvb_keydef_find(readback_kinds, kind);
			if (!def || (dot && (!dot[1] || !strcmp(kind, "all") || !strcmp(kind, "governor")))) {
				kvb_diag_at(d, ep, "'%s' is not a knob kind or knob (KIND or KIND.NAME; KIND one of all, sysctl, "
					    "sysfs, governor, cpufreq)", e->string);
				errors++;
			} else if (kvb_value_check(e, ep, def, d)) {
				errors++;
			} else {
				cJSON_AddStringToObject(add, e->string, e->valuestring);
			}
			free(kind);
			free(ep);
		}
	} else {
		char got[96];
		kvb_diag_at(d, path, "expected fail, record or a mapping {KIND[.NAME]: fail|record}, got %s",
			    kvb_node_describe(kv, got, sizeof(got)));
		errors++;
	}
	merge_map(&rt->readback, add);
	cJSON_Delete(add);
	return errors;
}

static void set_str(char **dst, const char *src)
{
	if (!src)
		return;
	free(*dst);
	*dst = kvb_xstrdup(src);
}

int kvb_runtime_merge_json(struct kvb_runtime *rt, const cJSON *obj, const char *path, struct kvb_diag *d)
{
	int errors;
	if (!obj)
		return 0;
	errors = kvb_keys_check(obj, path, kvb_runtime_keys, d);
	if (!cJSON_IsObject(obj))
		return errors;
	for (const cJSON *kv = obj->child; kv; kv = kv->next) {
		char *p = kvb_path_key(path, kv->string);
		if (!strcmp(kv->string, "cpus") && (cJSON_IsString(kv) || cJSON_IsNumber(kv))) {
			char *s = kvb_node_str(kv), *mask = NULL;
			struct kvb_error e;
			if (!*s || strspn(s, "0123456789,-") != strlen(s)) {
				kvb_diag_at(d, p, "expected a CPU list like \"0-3,6\", got \"%s\"", s);
				errors++;
			} else if (kvb_cpulist_to_mask(s, &mask, &e)) { /* "3-1", "0-": the parser the job uses */
				kvb_diag_at(d, p, "%s", e.msg);
				errors++;
			} else {
				set_str(&rt->cpus, s);
			}
			free(mask);
			free(s);
		} else if (!strcmp(kv->string, "cgroup_depth") && cJSON_IsNumber(kv)) {
			if (kv->valuedouble > 16) {
				kvb_diag_at(d, p, "cgroup_depth %g is deeper than 16 levels", kv->valuedouble);
				errors++;
			} else if (kv->valuedouble >= 0) {
				rt->cgroup_depth = (int)kv->valuedouble;
			}
		} else if ((!strcmp(kv->string, "sysctl") || !strcmp(kv->string, "sysfs") ||
			    !strcmp(kv->string, "sysfile_values")) && cJSON_IsObject(kv)) {
			for (const cJSON *e = kv->child; e; e = e->next) {
				if (!cJSON_IsString(e) && !cJSON_IsNumber(e) && !cJSON_IsBool(e)) {
					char *ep = kvb_path_key(p, e->string), got[96];
					kvb_diag_at(d, ep, "expected a scalar value, got %s", kvb_node_describe(e, got, sizeof(got)));
					free(ep);
					errors++;
				} else if (strcmp(kv->string, "sysctl") && e->string[0] != '/') {
					char *ep = kvb_path_key(p, e->string);
					kvb_diag_at(d, ep, "sysfs path must be absolute");
					free(ep);
					errors++;
				}
			}
			merge_map(!strcmp(kv->string, "sysctl") ? &rt->sysctl : &rt->sysfs, kv);
		} else if (!strcmp(kv->string, "governor") && cJSON_IsString(kv)) {
			set_str(&rt->governor, kv->valuestring);
		} else if (!strcmp(kv->string, "cpufreq") && cJSON_IsObject(kv)) {
			static const char *const ok[] = { "governor", "min_freq", "max_freq", "frequency", "tunables", NULL };
			for (const cJSON *c = kv->child; c; c = c->next) {
				char *cp = kvb_path_key(p, c->string);
				if (!cJSON_IsObject(c)) {
					kvb_diag_at(d, cp, "expected a mapping {governor, min_freq, max_freq, frequency}");
					errors++;
				}
				for (const cJSON *e = cJSON_IsObject(c) ? c->child : NULL; e; e = e->next) {
					int known = 0;
					for (int i = 0; ok[i]; i++)
						known |= !strcmp(ok[i], e->string);
					int tunables = known && !strcmp(e->string, "tunables");
					if (tunables && cJSON_IsObject(e)) {
						for (const cJSON *t = e->child; t; t = t->next)
							if ((!cJSON_IsString(t) && !cJSON_IsNumber(t)) || strchr(t->string, '/') ||
							    !strcmp(t->string, "..")) {
								char *tp = kvb_path_key(cp, "tunables"), *ep = kvb_path_key(tp, t->string);
								kvb_diag_at(d, ep, "expected a tunable file name and a scalar value");
								free(ep);
								free(tp);
								errors++;
							}
					} else if (!known || tunables || (!cJSON_IsString(e) && !cJSON_IsNumber(e))) {
						char *ep = kvb_path_key(cp, e->string);
						kvb_diag_at(d, ep, tunables ? "expected a mapping {TUNABLE: value}"
							    : known ? "expected a scalar value"
								    : "unknown cpufreq key (known: governor, min_freq, max_freq, frequency, tunables)");
						free(ep);
						errors++;
					}
				}
				free(cp);
			}
			merge_map2(&rt->cpufreq, kv);
		} else if (!strcmp(kv->string, "wa3_unapplied") && cJSON_IsObject(kv)) {
			merge_map(&rt->unapplied, kv);
		} else if (!strcmp(kv->string, "readback")) {
			errors += readback_merge(rt, kv, p, d);
		}
		free(p);
	}
	return errors;
}

void kvb_runtime_merge(struct kvb_runtime *dst, const struct kvb_runtime *src)
{
	set_str(&dst->cpus, src->cpus);
	set_str(&dst->governor, src->governor);
	if (src->cgroup_depth >= 0)
		dst->cgroup_depth = src->cgroup_depth;
	merge_map(&dst->sysctl, src->sysctl);
	merge_map(&dst->sysfs, src->sysfs);
	merge_map2(&dst->cpufreq, src->cpufreq);
	merge_map(&dst->unapplied, src->unapplied);
	merge_map(&dst->readback, src->readback);
}

void kvb_runtime_copy(struct kvb_runtime *dst, const struct kvb_runtime *src)
{
	kvb_runtime_init(dst);
	kvb_runtime_merge(dst, src);
}

cJSON *kvb_runtime_to_json(const struct kvb_runtime *rt)
{
	cJSON *o = cJSON_CreateObject();
	if (rt->cpus)
		cJSON_AddStringToObject(o, "cpus", rt->cpus);
	if (rt->cgroup_depth >= 0)
		cJSON_AddNumberToObject(o, "cgroup_depth", rt->cgroup_depth);
	if (rt->sysctl)
		cJSON_AddItemToObject(o, "sysctl", cJSON_Duplicate(rt->sysctl, 1));
	if (rt->sysfs)
		cJSON_AddItemToObject(o, "sysfs", cJSON_Duplicate(rt->sysfs, 1));
	if (rt->governor)
		cJSON_AddStringToObject(o, "governor", rt->governor);
	if (rt->cpufreq)
		cJSON_AddItemToObject(o, "cpufreq", cJSON_Duplicate(rt->cpufreq, 1));
	if (rt->unapplied)
		cJSON_AddItemToObject(o, "wa3_unapplied", cJSON_Duplicate(rt->unapplied, 1));
	if (rt->readback)
		cJSON_AddItemToObject(o, "readback", cJSON_Duplicate(rt->readback, 1));
	return o;
}

static void put_str(cJSON *cls, const char *key, const char *v)
{
	cJSON_DeleteItemFromObjectCaseSensitive(cls, key);
	cJSON_AddStringToObject(cls, key, v);
}

static void put_classifier(cJSON *cls, const char *key, const cJSON *v)
{
	char *s = v ? kvb_node_str(v) : NULL;
	put_str(cls, key, s ? s : "");
	free(s);
}

/* Every leaf under set's map `node` as "prefix.key[.key...]", valued from the same path in `applied`. */
static void put_map_classifiers(cJSON *cls, const char *prefix, const cJSON *node, const cJSON *applied)
{
	for (const cJSON *kv = node ? node->child : NULL; kv; kv = kv->next) {
		char *key = kvb_xasprintf("%s.%s", prefix, kv->string);
		const cJSON *av = applied ? cJSON_GetObjectItemCaseSensitive(applied, kv->string) : NULL;
		if (cJSON_IsObject(kv))
			put_map_classifiers(cls, key, kv, av);
		else
			put_classifier(cls, key, av ? av : kv);
		free(key);
	}
}

void kvb_runtime_add_classifiers(const struct kvb_runtime *set, const struct kvb_runtime *applied, cJSON *cls)
{
	if (set->cpus)
		put_str(cls, "cpus", applied->cpus ? applied->cpus : set->cpus);
	if (set->cgroup_depth >= 0) {
		char n[24];
		snprintf(n, sizeof(n), "%d", applied->cgroup_depth >= 0 ? applied->cgroup_depth : set->cgroup_depth);
		put_str(cls, "cgroup_depth", n);
	}
	if (set->governor)
		put_str(cls, "governor", applied->governor ? applied->governor : set->governor);
	put_map_classifiers(cls, "sysctl", set->sysctl, applied->sysctl);
	put_map_classifiers(cls, "sysfs", set->sysfs, applied->sysfs);
	put_map_classifiers(cls, "cpufreq", set->cpufreq, applied->cpufreq);
	put_map_classifiers(cls, "wa3_unapplied", set->unapplied, applied->unapplied);
}

/* "prefix.key" for each leaf under node (prefix NULL at the top). */
static void push_leaf_keys(const cJSON *node, const char *prefix, struct kvb_strv *keys)
{
	for (const cJSON *kv = node ? node->child : NULL; kv; kv = kv->next) {
		char *key = prefix ? kvb_xasprintf("%s.%s", prefix, kv->string) : kvb_xstrdup(kv->string);
		if (cJSON_IsObject(kv)) {
			push_leaf_keys(kv, key, keys);
		} else {
			size_t k;
			for (k = 0; k < keys->n && strcmp(keys->v[k], key); k++)
				;
			if (k == keys->n)
				kvb_strv_push(keys, key);
		}
		free(key);
	}
}

void kvb_runtime_json_classifier_keys(const cJSON *rt_json, struct kvb_strv *keys)
{
	if (!cJSON_IsObject(rt_json))
		return;
	for (const cJSON *kv = rt_json->child; kv; kv = kv->next) {
		cJSON *one;
		if (!strcmp(kv->string, "readback")) /* how knobs are checked: no classifier */
			continue;
		one = cJSON_CreateObject();
		cJSON_AddItemToObject(one, kv->string, cJSON_Duplicate(kv, 1));
		push_leaf_keys(one, NULL, keys);
		cJSON_Delete(one);
	}
}

/* Reasons follow WA3's RuntimeConfig classes (wa/framework/target/runtime_config.py, commit 251c263c). */
const char *kvb_runtime_unapplied_reason(const char *key)
{
	size_t n = strlen(key);
	if ((n > 6 && !strcmp(key + n - 6, "_cores")) || (n > 7 && !strcmp(key + n - 7, "_online")))
		return "CPU hotplug (WA3 rt-hotplug): kvbench has no hotplug knob; boot the variant with the CPUs "
		       "wanted (e.g. maxcpus= in variants[].cmdline) or write /sys/devices/system/cpu/cpuN/online with sysfs";
	if (strstr(key, "tunables"))
		return "governor tunables for every CPU or one CPU (WA3 rt-cpufreq): kvbench sets them per cluster "
		       "(cpufreq: {CLUSTER: {governor, tunables}}, WA3 CLUSTER_gov_tunables with CLUSTER_governor) or "
		       "with sysfs: {/sys/devices/system/cpu/cpufreq/policyN/GOVERNOR/TUNABLE: VALUE}";
	if (strstr(key, "frequency"))
		return "a frequency for every CPU (WA3 rt-cpufreq): kvbench sets frequencies per cluster "
		       "(cpufreq: {CLUSTER: {frequency|min_freq|max_freq}}, WA3 CLUSTER_frequency) or per CPU (cpuN_frequency)";
	return "kvbench has no knob for it";
}

int kvb_runtime_check_applicable(const struct kvb_runtime *rt, struct kvb_error *err)
{
	const cJSON *kv = rt->unapplied ? rt->unapplied->child : NULL;
	if (!kv)
		return KVB_OK;
	return kvb_error_set(err, KVB_EINPUT, "runtime parameter '%s' cannot be applied: %s", kv->string,
			     kvb_runtime_unapplied_reason(kv->string));
}
