/* Implements agenda loading: WA3 keys, precedence, sections x workloads x sweeps expansion. */
#include "config/agenda.h"
#include "config/wa3.h"
#include "config/specid.h"
#include "config/margins.h"
#include "core/datadir.h"
#include "core/error.h"
#include "core/util.h"
#include "workload/workload.h"

#include <stdlib.h>
#include <string.h>

static const struct kvb_keydef top_keys[] = {
	{ "config", KVB_T_MAP, NULL, NULL, 0, "run-wide settings (WA3 `config`)" },
	{ "global", KVB_T_MAP, NULL, NULL, 0, "alias of config" },
	{ "sections", KVB_T_LIST, NULL, NULL, 0, "list of sections; every workload runs in every section" },
	{ "workloads", KVB_T_LIST, NULL, NULL, 0, "list of workload entries" },
	{ "variants", KVB_T_LIST, NULL, NULL, 0, "kernels / knob sets to compare" },
	{ "build", KVB_T_MAP, NULL, NULL, 0, "how git variants are built (src/kbuild/kbuild.h: config, make_args, outputs)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static const struct kvb_keydef config_keys[] = {
	{ "iterations", KVB_T_INT, "1", NULL, KVB_KEY_POSITIVE, "iterations of every spec" },
	{ "execution_order", KVB_T_STR, "by_iteration", "by_iteration|by_section|by_workload|by_spec|random|duet", 0,
	  "order of jobs within a variant; duet: by_iteration, the two variants at once on two boards, job by job" },
	{ "max_retries", KVB_T_INT, "2", NULL, KVB_KEY_NONNEG, "retries of a failed job (not counting the first attempt)" },
	{ "retry_disturbed", KVB_T_INT, "2", NULL, KVB_KEY_NONNEG,
	  "runs again, in the same boot, a job the host disturbed (its attempt kept as evidence, never compared); "
	  "one still disturbed after these is left out (0 in a duet: both boards saw the same host)" },
	{ "runtime_params", KVB_T_MAP, NULL, NULL, 0, "runtime knobs for every job" },
	{ "runtime_parameters", KVB_T_MAP, NULL, NULL, 0, "alias of runtime_params" },
	{ "workload_parameters", KVB_T_MAP, NULL, NULL, 0, "parameters given to every workload that accepts them" },
	{ "workload_params", KVB_T_MAP, NULL, NULL, 0, "alias of workload_parameters" },
	{ "classifiers", KVB_T_MAP, NULL, NULL, 0, "labels added to every job" },
	{ "instruments", KVB_T_STRLIST, NULL, NULL, 0, "instruments to enable; ~name disables" },
	{ "augmentations", KVB_T_STRLIST, NULL, NULL, 0, "WA3 alias of instruments" },
	{ "rounds", KVB_T_INT, NULL, NULL, KVB_KEY_POSITIVE, "split iterations into N rounds run A B A B" },
	{ "warmup", KVB_T_INT, NULL, NULL, KVB_KEY_NONNEG,
	  "warm-up jobs of every spec after each boot, stored but not compared (default 1 where every round boots, else 0)" },
	{ "margins", KVB_T_MAP, NULL, NULL, 0, "\"same\" verdict margin, %: {default: 1, METRIC or WORKLOAD/METRIC: PCT}" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

const struct kvb_keydef *kvb_agenda_config_keydefs(void)
{
	return config_keys;
}

static const struct kvb_keydef section_keys[] = {
	{ "id", KVB_T_STR, NULL, NULL, 0, "section id (default s1, s2, ...)" },
	{ "classifiers", KVB_T_MAP, NULL, NULL, 0, "labels added to the section's jobs" },
	{ "runtime_params", KVB_T_MAP, NULL, NULL, 0, "runtime knobs of the section" },
	{ "runtime_parameters", KVB_T_MAP, NULL, NULL, 0, "alias of runtime_params" },
	{ "params", KVB_T_MAP, NULL, NULL, 0, "WA3 alias of runtime_params inside a section" },
	{ "workload_parameters", KVB_T_MAP, NULL, NULL, 0, "workload parameters for the section's jobs" },
	{ "workloads", KVB_T_LIST, NULL, NULL, 0, "workloads run only in this section (besides the global ones)" },
	{ "iterations", KVB_T_INT, NULL, NULL, KVB_KEY_POSITIVE, "iterations of the section's specs" },
	{ "group", KVB_T_STR, NULL, NULL, 0, "sections of different groups are combined as a cross-product" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static const struct kvb_keydef workload_keys[] = {
	{ "name", KVB_T_STR, NULL, NULL, KVB_KEY_REQUIRED, "workload (kvbench --help lists them)" },
	{ "id", KVB_T_STR, NULL, NULL, 0, "spec id (default: the workload name; hackbench1, hackbench2 when it repeats)" },
	{ "label", KVB_T_STR, NULL, NULL, 0, "display label" },
	{ "iterations", KVB_T_INT, NULL, NULL, KVB_KEY_POSITIVE, "iterations of this spec" },
	{ "warmup", KVB_T_INT, NULL, NULL, KVB_KEY_NONNEG,
	  "warm-up jobs of this spec after each boot, stored but not compared (default: config's, else the platform's)" },
	{ "params", KVB_T_MAP, NULL, NULL, 0, "workload parameters" },
	{ "workload_parameters", KVB_T_MAP, NULL, NULL, 0, "alias of params" },
	{ "workload_params", KVB_T_MAP, NULL, NULL, 0, "alias of params" },
	{ "runtime_params", KVB_T_MAP, NULL, NULL, 0, "runtime knobs of this spec" },
	{ "runtime_parameters", KVB_T_MAP, NULL, NULL, 0, "alias of runtime_params" },
	{ "classifiers", KVB_T_MAP, NULL, NULL, 0, "labels added to this spec's jobs" },
	{ "sweep", KVB_T_MAP, NULL, NULL, 0, "{key: [values]}: one spec per combination; each value is a classifier" },
	{ "timeout_s", KVB_T_INT, NULL, NULL, KVB_KEY_POSITIVE, "job timeout, s (default per workload)" },
	{ "boot_parameters", KVB_T_MAP, NULL, NULL, 0, "accepted for WA3 compatibility; use variants for kernels" },
	{ "instruments", KVB_T_STRLIST, NULL, NULL, 0, "instruments for this spec; ~name disables" },
	{ "augmentations", KVB_T_STRLIST, NULL, NULL, 0, "WA3 alias of instruments" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

const struct kvb_keydef kvb_variant_keys[] = {
	{ "name", KVB_T_STR, NULL, NULL, KVB_KEY_REQUIRED, "variant name (table row label)" },
	{ "kernel", KVB_T_STR, NULL, NULL, 0, "kernel image: path or URL" },
	{ "sha256", KVB_T_STR, NULL, NULL, 0, "expected sha256 of the kernel image" },
	{ "dtb", KVB_T_STR, NULL, NULL, 0, "device tree blob: path or URL" },
	{ "initrd", KVB_T_STR, NULL, NULL, 0, "initial ramdisk: path or URL" },
	{ "cmdline", KVB_T_STR, NULL, NULL, 0, "extra kernel command line" },
	{ "boot_image", KVB_T_STR, NULL, NULL, 0, "ready-made Android boot.img" },
	{ "modules", KVB_T_STR, NULL, NULL, 0, "modules tarball" },
	{ "git", KVB_T_MAP, NULL, NULL, 0,
	  "{repo, rev, patches}: build the kernel from this revision, with these patch files applied by git am "
	  "(needs a build: block)" },
	{ "build", KVB_T_MAP, NULL, NULL, 0,
	  "{config, make_args}: this variant's own build settings, after the agenda's build: (git variants)" },
	{ "runtime_params", KVB_T_MAP, NULL, NULL, 0, "runtime knobs of this variant" },
	{ "runtime", KVB_T_MAP, NULL, NULL, 0, "alias of runtime_params" },
	{ "cpus", KVB_T_STR, NULL, NULL, 0, "knob: CPU list for every workload" },
	{ "cgroup_depth", KVB_T_INT, NULL, NULL, KVB_KEY_NONNEG, "knob: cgroup nesting for every workload" },
	{ "sysctl", KVB_T_MAP, NULL, NULL, 0, "knob: sysctl values" },
	{ "sysfs", KVB_T_MAP, NULL, NULL, 0, "knob: sysfs values" },
	{ "governor", KVB_T_STR, NULL, NULL, 0, "knob: cpufreq governor" },
	{ "cpufreq", KVB_T_MAP, NULL, NULL, 0, "knob: per-cluster cpufreq {CLUSTER: {governor, min_freq, max_freq, frequency}}" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

const char *kvb_exec_order_name(enum kvb_exec_order o)
{
	switch (o) {
	case KVB_ORDER_BY_SECTION: return "by_section";
	case KVB_ORDER_BY_WORKLOAD: return "by_workload";
	case KVB_ORDER_RANDOM: return "random";
	case KVB_ORDER_DUET: return "duet";
	default: return "by_iteration";
	}
}

/* A section after group cross-product: merged knobs/classifiers/params, own workloads. */
struct xsection {
	char *id;
	int iterations;  /* 0 = unset */
	struct kvb_runtime rt;
	cJSON *classifiers;
	cJSON *wparams;
	struct { const cJSON *node; char *path; } *wl;  /* section-only workload entries */
	size_t nwl;
};

static const cJSON *get2(const cJSON *o, const char *a, const char *b)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);
	return v ? v : (b ? cJSON_GetObjectItemCaseSensitive(o, b) : NULL);
}

/* Merges src's members over *dst (object), creating it; scalar values stringified when str is set. */
static void merge_obj(cJSON **dst, const cJSON *src, int str)
{
	if (!cJSON_IsObject(src))
		return;
	if (!*dst)
		*dst = cJSON_CreateObject();
	for (const cJSON *kv = src->child; kv; kv = kv->next) {
		cJSON *copy;
		if (str) {
			char *s = kvb_node_str(kv);
			if (!s)
				continue;
			copy = cJSON_CreateString(s);
			free(s);
		} else {
			copy = cJSON_Duplicate(kv, 1);
		}
		if (cJSON_GetObjectItemCaseSensitive(*dst, kv->string))
			cJSON_ReplaceItemInObjectCaseSensitive(*dst, kv->string, copy);
		else
			cJSON_AddItemToObject(*dst, kv->string, copy);
	}
}

/*
 * Classifier names kvbench itself writes on every job or reads as a sample's (run.c job_classifiers,
 * results/groups.c). Not `section`: WA3 agendas label sections with it (its tests-data/includes).
 */
static int reserved_classifier(const char *key)
{
	static const char *const own[] = { "variant", "iteration", "board", "boot", "rep", "pload_ns" };
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strcmp(key, own[i]))
			return 1;
	return 0;
}

/*
 * The `iterations` key of obj (0 when absent); a count above KVB_MAX_JOBS is
 * an error at path.iterations (expanding it would hang `agenda check`) and
 * reads as 0.
 */
static int read_iterations(const cJSON *obj, const char *path, struct kvb_diag *d)
{
	long long n = cJSON_IsObject(obj) ? kvb_get_int(obj, "iterations", 0) : 0;
	if (n > KVB_MAX_JOBS) {
		char *p = kvb_path_key(path, "iterations");
		kvb_diag_at(d, p, "%lld iterations: more than %d jobs (kvbench's limit per agenda)", n, KVB_MAX_JOBS);
		free(p);
		return 0;
	}
	return n > 0 ? (int)n : 0;
}

static void check_classifiers(const cJSON *c, const char *path, struct kvb_diag *d)
{
	if (!cJSON_IsObject(c))
		return;
	for (const cJSON *kv = c->child; kv; kv = kv->next) {
		if (reserved_classifier(kv->string)) {
			char *p = kvb_path_key(path, kv->string);
			kvb_diag_at(d, p, "classifier '%s' is kvbench's own (every job carries it): choose another name",
				    kv->string);
			free(p);
			continue;
		}
		if (!cJSON_IsString(kv) && !cJSON_IsNumber(kv) && !cJSON_IsBool(kv)) {
			char *p = kvb_path_key(path, kv->string), got[96];
			kvb_diag_at(d, p, "classifier values must be scalars, got %s", kvb_node_describe(kv, got, sizeof(got)));
			free(p);
		}
	}
}

static void add_spec(struct kvb_agenda *a, struct kvb_spec *s)
{
	a->specs = kvb_xrealloc(a->specs, (a->nspecs + 1) * sizeof(*a->specs));
	a->specs[a->nspecs++] = *s;
}

static void spec_release(struct kvb_spec *s)
{
	free(s->id);
	free(s->workload);
	free(s->label);
	free(s->section);
	cJSON_Delete(s->params);
	cJSON_Delete(s->classifiers);
	kvb_runtime_release(&s->rt);
}

/* Validates workload params against the workload's table; errors to d. */
static void check_params(const struct kvb_workload_ops *ops, const cJSON *params, const char *path, struct kvb_diag *d)
{
	if (!params)
		return;
	if (!kvb_keys_check(params, path, ops->params, d) && ops->validate)
		ops->validate(params, path, d);
	else if (ops->validate && cJSON_IsObject(params))
		ops->validate(params, path, d);
}

/* The agenda-wide values every workload entry starts from (config: or global:). */
struct agenda_globals {
	struct kvb_runtime rt;
	cJSON *classifiers;       /* owned */
	cJSON *wparams;           /* owned: workload_parameters (only keys a workload knows are applied) */
	int iterations;
};

/* An entry's usable sweep keys (as many as it has) and the number of specs they make. */
struct sweep {
	const cJSON **keys;
	size_t *idx;              /* per key, the value of the combination being built */
	size_t nkeys, combos;
};

/* The workload an entry names (a string, or an object's name:); NULL, with a message for an unknown one. */
static const struct kvb_workload_ops *entry_workload(const cJSON *e, const char *path, struct kvb_diag *d)
{
	const struct kvb_workload_ops *ops;
	const cJSON *name;
	if (cJSON_IsString(e)) {
		name = e;
	} else {
		if (kvb_keys_check(e, path, workload_keys, d) && !cJSON_IsObject(e))
			return NULL;
		if (!cJSON_IsObject(e))
			return NULL;
		name = cJSON_GetObjectItemCaseSensitive(e, "name");
	}
	if (!cJSON_IsString(name))
		return NULL;
	ops = kvb_workload_find(name->valuestring);
	if (!ops) {
		struct kvb_buf known = KVB_BUF_INIT;
		char *np = cJSON_IsString(e) ? kvb_xstrdup(path) : kvb_path_key(path, "name");
		for (size_t i = 0; kvb_workloads[i]; i++)
			kvb_buf_addf(&known, "%s%s", i ? ", " : "", kvb_workloads[i]->name);
		char *near = kvb_suggest_workload(name->valuestring);
		kvb_diag_at(d, np, "unknown workload \"%s\" (known: %s)%s", name->valuestring, known.data,
			    near ? near : "");
		free(near);
		kvb_buf_release(&known);
		free(np);
	}
	return ops;
}

/* The spec's id, label, section, iterations and timeout: agenda < section < entry. */
static void entry_identity(struct kvb_spec *base, const struct kvb_agenda *a, const cJSON *e,
			   const struct xsection *sec, const struct kvb_workload_ops *ops, int giter)
{
	base->workload = kvb_xstrdup(ops->name);
	base->ops = ops;
	{
		const char *id = cJSON_IsObject(e) ? kvb_get_str(e, "id", NULL) : NULL;
		char *own = id ? kvb_xstrdup(id)
			       : kvb_spec_default_id(e, cJSON_GetObjectItemCaseSensitive(a->raw, "workloads"),
						     sec && sec->nwl ? sec->wl[0].node : NULL);
		base->id = sec ? kvb_xasprintf("%s-%s", sec->id, own) : kvb_xstrdup(own);
		free(own);
	}
	base->label = kvb_xstrdup(cJSON_IsObject(e) ? kvb_get_str(e, "label", ops->name) : ops->name);
	base->section = sec ? kvb_xstrdup(sec->id) : NULL;
	base->iterations = giter;
	if (sec && sec->iterations)
		base->iterations = sec->iterations;
	if (cJSON_IsObject(e) && kvb_get_int(e, "iterations", 0) > 0 && kvb_get_int(e, "iterations", 0) <= KVB_MAX_JOBS)
		base->iterations = (int)kvb_get_int(e, "iterations", 1);
	base->warmup = a->warmup;
	if (cJSON_IsObject(e) && kvb_get_int(e, "warmup", -1) >= 0 && kvb_get_int(e, "warmup", -1) <= 1000)
		base->warmup = (int)kvb_get_int(e, "warmup", 0);
	base->timeout_s = ops->default_timeout_s;
	if (cJSON_IsObject(e) && kvb_get_int(e, "timeout_s", 0) > 0)
		base->timeout_s = (unsigned)kvb_get_int(e, "timeout_s", 0);
}

/* params: global (known keys only) < section < entry (checked against the workload's table). */
static void entry_params(struct kvb_spec *base, const cJSON *e, const char *path, const struct xsection *sec,
			 const cJSON *gparams, struct kvb_diag *d)
{
	const struct kvb_workload_ops *ops = base->ops;
	const cJSON *params;
	base->params = cJSON_CreateObject();
	if (cJSON_IsObject(gparams))
		for (const cJSON *kv = gparams->child; kv; kv = kv->next)
			if (kvb_keydef_find(ops->params, kv->string))
				cJSON_AddItemToObject(base->params, kv->string, cJSON_Duplicate(kv, 1));
	if (sec && sec->wparams)
		for (const cJSON *kv = sec->wparams->child; kv; kv = kv->next)
			if (kvb_keydef_find(ops->params, kv->string)) {
				cJSON_DeleteItemFromObjectCaseSensitive(base->params, kv->string);
				cJSON_AddItemToObject(base->params, kv->string, cJSON_Duplicate(kv, 1));
			}
	params = cJSON_IsObject(e) ? get2(e, "params", "workload_parameters") : NULL;
	if (!params && cJSON_IsObject(e))
		params = cJSON_GetObjectItemCaseSensitive(e, "workload_params");
	if (params) {
		char *ppath = kvb_path_key(path, cJSON_GetObjectItemCaseSensitive(e, "params") ? "params"
					    : cJSON_GetObjectItemCaseSensitive(e, "workload_parameters") ? "workload_parameters"
													   : "workload_params");
		check_params(ops, params, ppath, d);
		free(ppath);
		merge_obj(&base->params, params, 0);
	}
}

/* knobs and classifiers: global < section < entry. */
static void entry_runtime_and_classifiers(struct kvb_spec *base, const cJSON *e, const char *path,
					  const struct xsection *sec, const struct agenda_globals *g,
					  struct kvb_diag *d)
{
	kvb_runtime_init(&base->rt);
	kvb_runtime_merge(&base->rt, &g->rt);
	if (sec)
		kvb_runtime_merge(&base->rt, &sec->rt);
	if (cJSON_IsObject(e)) {
		const cJSON *rp = get2(e, "runtime_params", "runtime_parameters");
		if (rp) {
			char *rpath = kvb_path_key(path, "runtime_params");
			kvb_runtime_merge_json(&base->rt, rp, rpath, d);
			free(rpath);
		}
	}
	merge_obj(&base->classifiers, g->classifiers, 1);
	if (sec)
		merge_obj(&base->classifiers, sec->classifiers, 1);
	if (cJSON_IsObject(e)) {
		const cJSON *cl = cJSON_GetObjectItemCaseSensitive(e, "classifiers");
		if (cl) {
			char *cp = kvb_path_key(path, "classifiers");
			check_classifiers(cl, cp, d);
			free(cp);
		}
		merge_obj(&base->classifiers, cl, 1);
	}
	if (!base->classifiers)
		base->classifiers = cJSON_CreateObject();
}

/* Checks each value of a sweep key: as a knob value, or against the parameter's keydef. */
static void check_sweep_values(const cJSON *kv, const char *kp, const struct kvb_workload_ops *ops,
			       struct kvb_diag *d)
{
	int i = 0;
	for (const cJSON *v = kv->child; v; v = v->next, i++) {
		char *vp = kvb_path_idx(kp, i);
		if (kvb_runtime_is_knob(kv->string)) {
			cJSON *tmp = cJSON_CreateObject();
			struct kvb_runtime rt;
			kvb_runtime_init(&rt);
			cJSON_AddItemToObject(tmp, kv->string, cJSON_Duplicate(v, 1));
			struct kvb_diag td;
			kvb_diag_init(&td, d->doc);
			if (kvb_runtime_merge_json(&rt, tmp, kp, &td))
				for (size_t m = 0; m < td.msgs.n; m++)
					kvb_strv_push(&d->msgs, td.msgs.v[m]);
			kvb_diag_release(&td);
			kvb_runtime_release(&rt);
			cJSON_Delete(tmp);
		} else {
			kvb_value_check(v, vp, kvb_keydef_find(ops->params, kv->string), d);
		}
		free(vp);
	}
}

/* sweep: the keys whose lists are crossed (a bad key is reported and left out); combos = 0 past 10000. */
static void read_sweep(struct sweep *sw, const cJSON *e, const char *path, const struct kvb_workload_ops *ops,
		       struct kvb_diag *d)
{
	const cJSON *sweep = cJSON_IsObject(e) ? cJSON_GetObjectItemCaseSensitive(e, "sweep") : NULL;
	memset(sw, 0, sizeof(*sw));
	sw->combos = 1;
	if (cJSON_IsObject(sweep)) {
		char *spath = kvb_path_key(path, "sweep");
		int nsweep = cJSON_GetArraySize(sweep);
		sw->keys = kvb_xcalloc((size_t)nsweep + 1, sizeof(*sw->keys));
		sw->idx = kvb_xcalloc((size_t)nsweep + 1, sizeof(*sw->idx));
		for (const cJSON *kv = sweep->child; kv; kv = kv->next) {
			char *kp = kvb_path_key(spath, kv->string);
			int bad = 0;
			if (!cJSON_IsArray(kv) || cJSON_GetArraySize(kv) == 0) {
				char got[96];
				kvb_diag_at(d, kp, "expected a non-empty list of values, got %s",
					    kvb_node_describe(kv, got, sizeof(got)));
				bad = 1;
			} else if (!kvb_runtime_is_knob(kv->string) && !kvb_keydef_find(ops->params, kv->string)) {
				kvb_diag_at(d, kp, "'%s' is neither a runtime knob nor a parameter of %s", kv->string,
					    ops->name);
				bad = 1;
			} else {
				check_sweep_values(kv, kp, ops, d);
			}
			if (!bad) {
				sw->keys[sw->nkeys++] = kv;
				/* stop multiplying past the limit below, so many keys cannot wrap it around */
				sw->combos = sw->combos > 10000 ? sw->combos : sw->combos * (size_t)cJSON_GetArraySize(kv);
			}
			free(kp);
		}
		free(spath);
	}
	if (sw->combos > 10000) {
		kvb_diag_at(d, path, "sweep expands to %zu specs (more than 10000)", sw->combos);
		sw->combos = 0;
	}
}

/* Combination c of the sweep: base with each key's value as a classifier and as its knob or param. */
static void add_combination(struct kvb_agenda *a, const struct kvb_spec *base, struct sweep *sw, size_t c,
			    struct kvb_diag *d)
{
	struct kvb_spec s;
	struct kvb_buf id = KVB_BUF_INIT;
	size_t rem = c;
	memset(&s, 0, sizeof(s));
	s.workload = kvb_xstrdup(base->workload);
	s.ops = base->ops;
	s.label = kvb_xstrdup(base->label);
	s.section = base->section ? kvb_xstrdup(base->section) : NULL;
	s.iterations = base->iterations;
	s.warmup = base->warmup;
	s.timeout_s = base->timeout_s;
	s.params = cJSON_Duplicate(base->params, 1);
	s.classifiers = cJSON_Duplicate(base->classifiers, 1);
	kvb_runtime_copy(&s.rt, &base->rt);
	kvb_buf_adds(&id, base->id);
	/* last key varies fastest */
	for (size_t k = sw->nkeys; k-- > 0;) {
		size_t n = (size_t)cJSON_GetArraySize(sw->keys[k]);
		sw->idx[k] = rem % n;
		rem /= n;
	}
	for (size_t k = 0; k < sw->nkeys; k++) {
		const cJSON *v = cJSON_GetArrayItem(sw->keys[k], (int)sw->idx[k]);
		char *vs = kvb_node_str(v);
		const char *key = sw->keys[k]->string;
		if (!vs)
			vs = kvb_xstrdup("?");
		kvb_buf_addf(&id, ";%s=%s", key, vs);
		cJSON_DeleteItemFromObjectCaseSensitive(s.classifiers, key);
		cJSON_AddStringToObject(s.classifiers, key, vs);
		if (kvb_runtime_is_knob(key)) {
			cJSON *tmp = cJSON_CreateObject();
			struct kvb_diag td;
			kvb_diag_init(&td, d->doc);
			cJSON_AddItemToObject(tmp, key, cJSON_Duplicate(v, 1));
			kvb_runtime_merge_json(&s.rt, tmp, "sweep", &td);
			kvb_diag_release(&td);
			cJSON_Delete(tmp);
		} else {
			cJSON_DeleteItemFromObjectCaseSensitive(s.params, key);
			cJSON_AddItemToObject(s.params, key, cJSON_Duplicate(v, 1));
		}
		free(vs);
	}
	s.id = kvb_buf_detach(&id);
	add_spec(a, &s);
}

/*
 * Expands one workload entry within one section (NULL: none) into specs, one per
 * sweep combination: resolve the workload, merge its params, knobs and classifiers
 * over the agenda's and the section's, read the sweep, add the combinations.
 * Problems go to d; a caller expanding an entry it has already checked (the same
 * entry in a further section) passes a diag it discards.
 */
static void expand_entry(struct kvb_agenda *a, const cJSON *e, const char *path, const struct xsection *sec,
			 const struct agenda_globals *g, struct kvb_diag *d)
{
	const struct kvb_workload_ops *ops = entry_workload(e, path, d);
	struct kvb_spec base;
	struct sweep sw;
	if (!ops)
		return;
	memset(&base, 0, sizeof(base));
	entry_identity(&base, a, e, sec, ops, g->iterations);
	entry_params(&base, e, path, sec, g->wparams, d);
	entry_runtime_and_classifiers(&base, e, path, sec, g, d);
	read_iterations(e, path, d);
	read_sweep(&sw, e, path, ops, d);
	for (size_t c = 0; c < sw.combos; c++)
		add_combination(a, &base, &sw, c, d);
	free(sw.keys);
	free(sw.idx);
	spec_release(&base);
}

static void xsection_release(struct xsection *x)
{
	free(x->id);
	kvb_runtime_release(&x->rt);
	cJSON_Delete(x->classifiers);
	cJSON_Delete(x->wparams);
	for (size_t i = 0; i < x->nwl; i++)
		free(x->wl[i].path);
	free(x->wl);
}

/* The knobs node rp (NULL: none) of obj at path into rt; obj's classifiers, checked, merged into *cls. */
static void read_knobs_and_classifiers(const cJSON *obj, const cJSON *rp, const char *path, struct kvb_runtime *rt,
				       cJSON **cls, struct kvb_diag *d)
{
	const cJSON *v;
	if (rp) {
		char *p = kvb_path_key(path, rp->string);
		kvb_runtime_merge_json(rt, rp, p, d);
		free(p);
	}
	v = cJSON_GetObjectItemCaseSensitive(obj, "classifiers");
	if (v) {
		char *p = kvb_path_key(path, "classifiers");
		check_classifiers(v, p, d);
		free(p);
	}
	merge_obj(cls, v, 1);
}

/* Reads one raw section entry into x (validating when asked). */
static void read_section(struct xsection *x, const cJSON *s, const char *path, int idx, struct kvb_diag *d)
{
	const cJSON *v;
	memset(x, 0, sizeof(*x));
	kvb_runtime_init(&x->rt);
	kvb_keys_check(s, path, section_keys, d);
	if (!cJSON_IsObject(s)) {
		x->id = kvb_xasprintf("s%d", idx + 1);
		return;
	}
	v = cJSON_GetObjectItemCaseSensitive(s, "id");
	x->id = cJSON_IsString(v) || cJSON_IsNumber(v) ? kvb_node_str(v) : kvb_xasprintf("s%d", idx + 1);
	x->iterations = read_iterations(s, path, d);
	v = get2(s, "runtime_params", "runtime_parameters");
	if (!v)
		v = cJSON_GetObjectItemCaseSensitive(s, "params");
	read_knobs_and_classifiers(s, v, path, &x->rt, &x->classifiers, d);
	merge_obj(&x->wparams, cJSON_GetObjectItemCaseSensitive(s, "workload_parameters"), 0);
	v = cJSON_GetObjectItemCaseSensitive(s, "workloads");
	if (cJSON_IsArray(v)) {
		int i = 0;
		char *wp = kvb_path_key(path, "workloads");
		for (const cJSON *w = v->child; w; w = w->next, i++) {
			x->wl = kvb_xrealloc(x->wl, (x->nwl + 1) * sizeof(*x->wl));
			x->wl[x->nwl].node = w;
			x->wl[x->nwl].path = kvb_path_idx(wp, i);
			x->nwl++;
		}
		free(wp);
	}
}

/* Combines a and b (different groups) into one section "a-b". */
static void xsection_combine(struct xsection *out, const struct xsection *a, const struct xsection *b)
{
	memset(out, 0, sizeof(*out));
	out->id = kvb_xasprintf("%s-%s", a->id, b->id);
	out->iterations = b->iterations ? b->iterations : a->iterations;
	kvb_runtime_copy(&out->rt, &a->rt);
	kvb_runtime_merge(&out->rt, &b->rt);
	merge_obj(&out->classifiers, a->classifiers, 1);
	merge_obj(&out->classifiers, b->classifiers, 1);
	merge_obj(&out->wparams, a->wparams, 0);
	merge_obj(&out->wparams, b->wparams, 0);
	for (int k = 0; k < 2; k++) {
		const struct xsection *src = k ? b : a;
		for (size_t i = 0; i < src->nwl; i++) {
			out->wl = kvb_xrealloc(out->wl, (out->nwl + 1) * sizeof(*out->wl));
			out->wl[out->nwl].node = src->wl[i].node;
			out->wl[out->nwl].path = kvb_xstrdup(src->wl[i].path);
			out->nwl++;
		}
	}
}

static void load_variants(struct kvb_agenda *a, const cJSON *vs, struct kvb_diag *d)
{
	int i = 0;
	for (const cJSON *v = vs->child; v; v = v->next, i++) {
		char *path = kvb_path_idx("variants", i);
		struct kvb_variant var;
		const cJSON *rp;
		memset(&var, 0, sizeof(var));
		kvb_runtime_init(&var.rt);
		if (kvb_keys_check(v, path, kvb_variant_keys, d) && !cJSON_IsObject(v)) {
			free(path);
			continue;
		}
		var.name = kvb_node_str(cJSON_GetObjectItemCaseSensitive(v, "name"));
		if (!var.name) {
			free(path);
			kvb_runtime_release(&var.rt);
			continue;
		}
		for (size_t j = 0; j < a->nvariants; j++)
			if (!strcmp(a->variants[j].name, var.name)) {
				char *np = kvb_path_key(path, "name");
				kvb_diag_at(d, np, "duplicate variant name \"%s\"", var.name);
				free(np);
			}
#define VSTR(f) var.f = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(v, #f)) ? kvb_xstrdup(kvb_get_str(v, #f, "")) : NULL
		VSTR(kernel);
		VSTR(sha256);
		VSTR(dtb);
		VSTR(initrd);
		VSTR(cmdline);
		VSTR(boot_image);
		VSTR(modules);
#undef VSTR
		rp = get2(v, "runtime_params", "runtime");
		if (rp) {
			char *p = kvb_path_key(path, rp->string);
			kvb_runtime_merge_json(&var.rt, rp, p, d);
			free(p);
		}
		{
			/* direct knobs on the variant entry */
			cJSON *knobs = cJSON_CreateObject();
			for (const cJSON *kv = v->child; kv; kv = kv->next)
				if (kvb_runtime_is_knob(kv->string))
					cJSON_AddItemToObject(knobs, kv->string, cJSON_Duplicate(kv, 1));
			kvb_runtime_merge_json(&var.rt, knobs, path, d);
			cJSON_Delete(knobs);
		}
		var.raw = cJSON_Duplicate(v, 1);
		a->variants = kvb_xrealloc(a->variants, (a->nvariants + 1) * sizeof(*a->variants));
		a->variants[a->nvariants++] = var;
		free(path);
	}
}

/*
 * One run-wide block, config: or global:, read onto what the blocks before it set: retries,
 * rounds, order, iterations and the agenda-wide knobs, classifiers, workload parameters and
 * instruments every entry starts from. Only the keys the block has change anything.
 */
static void read_config_block(struct kvb_agenda *a, const cJSON *cfg, const char *cfgname, struct agenda_globals *g,
			      struct kvb_diag *d)
{
	const cJSON *v;
	int it;
	if (!cJSON_IsObject(cfg))
		return;
	kvb_keys_check(cfg, cfgname, config_keys, d);
	{
		char *mp = kvb_path_key(cfgname, "margins");
		kvb_margins_check(cJSON_GetObjectItemCaseSensitive(cfg, "margins"), mp, d);
		free(mp);
	}
	if ((it = read_iterations(cfg, cfgname, d)) >= 1)
		g->iterations = it;
	if (cJSON_GetObjectItemCaseSensitive(cfg, "max_retries")) {
		a->max_retries = (int)kvb_get_int(cfg, "max_retries", 2);
		if (a->max_retries < 0)
			a->max_retries = 2;
	}
	if (cJSON_GetObjectItemCaseSensitive(cfg, "retry_disturbed")) {
		long long n = kvb_get_int(cfg, "retry_disturbed", -1);
		if (n > 100) {
			char *p = kvb_path_key(cfgname, "retry_disturbed");
			kvb_diag_at(d, p, "%lld re-runs of a disturbed job: at most 100 (each one waits for the host)", n);
			free(p);
		} else if (n >= 0) {
			a->retry_disturbed = (int)n;
		}
	}
	if (cJSON_GetObjectItemCaseSensitive(cfg, "rounds"))
		a->rounds = (int)kvb_get_int(cfg, "rounds", 0);
	if (cJSON_GetObjectItemCaseSensitive(cfg, "warmup") && kvb_get_int(cfg, "warmup", -1) >= 0 &&
	    kvb_get_int(cfg, "warmup", -1) <= 1000)
		a->warmup = (int)kvb_get_int(cfg, "warmup", 0);
	v = cJSON_GetObjectItemCaseSensitive(cfg, "execution_order");
	if (cJSON_IsString(v)) {
		if (!strcmp(v->valuestring, "by_section"))
			a->order = KVB_ORDER_BY_SECTION;
		else if (!strcmp(v->valuestring, "by_workload") || !strcmp(v->valuestring, "by_spec"))
			a->order = KVB_ORDER_BY_WORKLOAD;
		else if (!strcmp(v->valuestring, "random"))
			a->order = KVB_ORDER_RANDOM;
		else if (!strcmp(v->valuestring, "duet"))
			a->order = KVB_ORDER_DUET;
		else if (!strcmp(v->valuestring, "by_iteration"))
			a->order = KVB_ORDER_BY_ITERATION;
	}
	read_knobs_and_classifiers(cfg, get2(cfg, "runtime_params", "runtime_parameters"), cfgname, &g->rt,
				   &g->classifiers, d);
	merge_obj(&g->wparams, get2(cfg, "workload_parameters", "workload_params"), 0);
	v = get2(cfg, "instruments", "augmentations");
	if (v) {
		/* WA3's augmentations are a toggle_set merged by concatenation: a later "~name" turns off an
		   earlier name (instrument.c reads the list in order) */
		if (!a->instruments)
			a->instruments = cJSON_CreateArray();
		if (cJSON_IsArray(v))
			for (const cJSON *e = v->child; e; e = e->next)
				cJSON_AddItemToArray(a->instruments, cJSON_Duplicate(e, 1));
		else
			cJSON_AddItemToArray(a->instruments, cJSON_CreateString(cJSON_IsString(v) ? v->valuestring : ""));
	}
}

/*
 * config: and its alias global:, both when both are given: WA3's AgendaParser
 * (_populate_and_validate_config, parsers.py) loads `config` and then `global` into the same
 * state, so a key in global overrides the same key of config, and the mergeable ones
 * (runtime_parameters, workload_parameters, classifiers: maps merged key by key; augmentations:
 * lists concatenated) are merged (merge_config_values, wa/utils/misc.py).
 */
static void read_config(struct kvb_agenda *a, const cJSON *root, struct agenda_globals *g, struct kvb_diag *d)
{
	read_config_block(a, cJSON_GetObjectItemCaseSensitive(root, "config"), "config", g, d);
	read_config_block(a, cJSON_GetObjectItemCaseSensitive(root, "global"), "global", g, d);
}

/* The sections of one group: (group: value, its sections in agenda order). */
struct section_group {
	char *group;
	struct xsection *s;
	size_t n;
};

/* Reads every section into its group; returns the number of groups (at most max, said when more). */
static size_t group_sections(struct section_group *groups, size_t max, const cJSON *sections, struct kvb_diag *d)
{
	size_t ng = 0;
	int i = 0, ids_bad = 0;
	for (const cJSON *s = sections->child; s; s = s->next, i++) {
		char *path = kvb_path_idx("sections", i);
		struct xsection x;
		const char *g = cJSON_IsObject(s) ? kvb_get_str(s, "group", "") : "";
		size_t gi;
		read_section(&x, s, path, i, d);
		for (gi = 0; gi < ng; gi++)
			if (!strcmp(groups[gi].group, g))
				break;
		if (gi == ng) {
			if (ng == max) {
				kvb_diag_at(d, path, "more than %zu section groups", max);
				xsection_release(&x);
				free(path);
				continue;
			}
			groups[ng++].group = kvb_xstrdup(g);
		}
		for (size_t k = 0; k < groups[gi].n; k++)
			if (!strcmp(groups[gi].s[k].id, x.id) && !ids_bad) {
				char *ip = kvb_path_key(path, "id");
				kvb_diag_at(d, ip, "duplicate section id \"%s\"", x.id);
				free(ip);
			}
		groups[gi].s = kvb_xrealloc(groups[gi].s, (groups[gi].n + 1) * sizeof(*groups[gi].s));
		groups[gi].s[groups[gi].n++] = x;
		free(path);
	}
	return ng;
}

/* sections, with group cross-product (first group varies slowest) into *xs (owned). */
static void read_sections(const cJSON *root, struct xsection **xs, size_t *nxs, struct kvb_diag *d)
{
	const cJSON *sections = cJSON_GetObjectItemCaseSensitive(root, "sections");
	struct section_group groups[16];
	size_t ng;
	if (!cJSON_IsArray(sections) || cJSON_GetArraySize(sections) <= 0)
		return;
	memset(groups, 0, sizeof(groups));
	ng = group_sections(groups, KVB_ARRAY_SIZE(groups), sections, d);
	if (ng) {
		*xs = groups[0].s;
		*nxs = groups[0].n;
		groups[0].s = NULL;
		for (size_t gi = 1; gi < ng; gi++) {
			struct xsection *nx = kvb_xcalloc(*nxs * groups[gi].n + 1, sizeof(*nx));
			size_t k = 0;
			for (size_t p = 0; p < *nxs; p++)
				for (size_t q = 0; q < groups[gi].n; q++)
					xsection_combine(&nx[k++], &(*xs)[p], &groups[gi].s[q]);
			for (size_t p = 0; p < *nxs; p++)
				xsection_release(&(*xs)[p]);
			free(*xs);
			*xs = nx;
			*nxs = k;
		}
	}
	for (size_t gi = 0; gi < ng; gi++) {
		for (size_t k = 0; groups[gi].s && k < groups[gi].n; k++)
			xsection_release(&groups[gi].s[k]);
		free(groups[gi].s);
		free(groups[gi].group);
	}
}

/* 1 when section s's k-th own workload entry is also one of an earlier section's (the same node). */
static int seen_in_earlier_section(const struct xsection *xs, size_t s, size_t k)
{
	for (size_t p = 0; p < s; p++)
		for (size_t q = 0; q < xs[p].nwl; q++)
			if (xs[p].wl[q].node == xs[s].wl[k].node)
				return 1;
	return 0;
}

/*
 * workloads: specs workload-major, section-minor (WA3 by_iteration: X.A1 Y.A1 X.B1 Y.B1),
 * then each section's own entries. An entry is checked once: its later expansions report
 * into quiet, which is dropped. Returns 1 when there was any entry.
 */
static int expand_workloads(struct kvb_agenda *a, const cJSON *root, const struct xsection *xs, size_t nxs,
			    const struct agenda_globals *g, struct kvb_diag *d)
{
	const cJSON *workloads = cJSON_GetObjectItemCaseSensitive(root, "workloads");
	struct kvb_diag quiet;
	int i = 0, any = 0;
	kvb_diag_init(&quiet, d->doc);
	if (cJSON_IsArray(workloads)) {
		for (const cJSON *w = workloads->child; w; w = w->next, i++) {
			char *path = kvb_path_idx("workloads", i);
			if (nxs == 0) {
				expand_entry(a, w, path, NULL, g, d);
			} else {
				for (size_t s = 0; s < nxs; s++)
					expand_entry(a, w, path, &xs[s], g, s == 0 ? d : &quiet);
			}
			any = 1;
			free(path);
		}
	}
	for (size_t s = 0; s < nxs; s++) {
		for (size_t k = 0; k < xs[s].nwl; k++) {
			/* section-only entries are validated once, in their first section */
			expand_entry(a, xs[s].wl[k].node, xs[s].wl[k].path, &xs[s], g,
				     seen_in_earlier_section(xs, s, k) ? &quiet : d);
			any = 1;
		}
	}
	kvb_diag_release(&quiet);
	return any;
}

/* spec ids must be unique (explicit ids may collide) */
static void check_spec_ids(const struct kvb_agenda *a, struct kvb_diag *d)
{
	for (size_t i = 0; i < a->nspecs; i++)
		for (size_t j = i + 1; j < a->nspecs; j++)
			if (!strcmp(a->specs[i].id, a->specs[j].id)) {
				kvb_diag_at(d, "workloads", "duplicate spec id \"%s\"", a->specs[i].id);
				break;
			}
}

int kvb_agenda_check_variant_knobs(const struct kvb_agenda *a, struct kvb_error *err)
{
	cJSON **spec_keys = kvb_xcalloc(a->nspecs + 1, sizeof(*spec_keys));
	int rc = KVB_OK;
	for (size_t i = 0; i < a->nspecs; i++) {
		spec_keys[i] = cJSON_CreateObject();
		kvb_runtime_add_classifiers(&a->specs[i].rt, &a->specs[i].rt, spec_keys[i]);
	}
	for (size_t v = 0; v < a->nvariants && !rc; v++) {
		cJSON *vk = cJSON_CreateObject();
		kvb_runtime_add_classifiers(&a->variants[v].rt, &a->variants[v].rt, vk);
		for (const cJSON *kv = vk->child; kv && !rc; kv = kv->next) {
			for (size_t i = 1; i < a->nspecs && !rc; i++) {
				const char *first = kvb_get_str(spec_keys[0], kv->string, "(not set)");
				const char *val = kvb_get_str(spec_keys[i], kv->string, "(not set)");
				if (strcmp(first, val))
					rc = kvb_error_set(err, KVB_EINPUT,
							   "%s: variant '%s' sets %s, which the jobs set differently ('%s': "
							   "%s, '%s': %s): the variant's value would replace them all; set it "
							   "per variant or per job, not both",
							   a->file ? a->file : "agenda", a->variants[v].name, kv->string,
							   a->specs[0].id, first, a->specs[i].id, val);
			}
		}
		cJSON_Delete(vk);
	}
	for (size_t i = 0; i < a->nspecs; i++)
		cJSON_Delete(spec_keys[i]);
	free(spec_keys);
	return rc;
}

/* Every iteration of every spec on every variant is a job: more than KVB_MAX_JOBS is an error at `workloads`. */
static void check_job_count(const struct kvb_agenda *a, const cJSON *root, struct kvb_diag *d)
{
	double jobs = 0;
	for (size_t i = 0; i < a->nspecs; i++)
		jobs += a->specs[i].iterations;
	jobs *= a->nvariants ? (double)a->nvariants : 1;
	if (jobs > KVB_MAX_JOBS)
		kvb_diag_at(d, cJSON_GetObjectItemCaseSensitive(root, "workloads") ? "workloads" : "",
			    "%.0f jobs (iterations x specs x variants): more than %d (kvbench's limit per agenda)", jobs,
			    KVB_MAX_JOBS);
}

int kvb_agenda_from_doc(struct kvb_agenda *a, const struct kvb_doc *doc, struct kvb_diag *d)
{
	cJSON *wa3;
	const cJSON *root, *v;
	struct agenda_globals g = { .iterations = 1 };
	struct xsection *xs = NULL;
	size_t nxs = 0, before = d->msgs.n;

	memset(a, 0, sizeof(*a));
	a->warmup = -1;
	root = wa3 = kvb_wa3_normalize(doc->root, doc->file, d);  /* WA3 spellings -> kvbench's (wa3_keys.c) */
	a->file = kvb_xstrdup(doc->file);
	a->max_retries = 2;
	a->retry_disturbed = -1;
	a->raw = cJSON_Duplicate(root, 1);
	kvb_runtime_init(&g.rt);
	kvb_keys_check(root, "", top_keys, d);
	read_config(a, root, &g, d);
	read_sections(root, &xs, &nxs, d);
	if (!expand_workloads(a, root, xs, nxs, &g, d) && d->msgs.n == before)
		kvb_diag_at(d, "", "no workloads: add a 'workloads:' list (or workloads inside sections)");
	check_spec_ids(a, d);

	v = cJSON_GetObjectItemCaseSensitive(root, "variants");
	if (cJSON_IsArray(v))
		load_variants(a, v, d);
	check_job_count(a, root, d);

	for (size_t s = 0; s < nxs; s++)
		xsection_release(&xs[s]);
	free(xs);
	cJSON_Delete(g.classifiers);
	cJSON_Delete(g.wparams);
	cJSON_Delete(wa3);
	kvb_runtime_release(&g.rt);
	return d->msgs.n > before ? KVB_EINPUT : KVB_OK;
}

/*
 * A bare NAME that is not a file (`kvbench run quickstart-local`) is a shipped agenda:
 * ./agendas/NAME, then <data>/agendas/NAME (core/datadir.h), each as given and with .yaml,
 * .yml and .json. The first file that exists, owned; NULL when file has a '/', exists, or
 * nothing matches (the caller then reports file as given).
 */
static char *agenda_find(const char *file)
{
	static const char *const ext[] = { "", ".yaml", ".yml", ".json" };
	char *dirs[2];
	char *found = NULL;
	if (!*file || strchr(file, '/') || kvb_is_file(file) || file[0] == '.')
		return NULL;
	dirs[0] = kvb_xstrdup("agendas");
	dirs[1] = kvb_xasprintf("%s/agendas", kvb_data_dir());
	for (size_t i = 0; i < KVB_ARRAY_SIZE(dirs) && !found; i++)
		for (size_t e = 0; e < KVB_ARRAY_SIZE(ext) && !found; e++) {
			char *f = kvb_xasprintf("%s/%s%s", dirs[i], file, ext[e]);
			if (kvb_is_file(f))
				found = f;
			else
				free(f);
		}
	free(dirs[0]);
	free(dirs[1]);
	return found;
}

int kvb_agenda_load(struct kvb_agenda *a, const char *file, struct kvb_diag *d)
{
	struct kvb_doc doc;
	char *shipped = agenda_find(file);
	int rc = kvb_doc_load(&doc, shipped ? shipped : file, d);
	free(shipped);
	if (!rc)
		rc = kvb_agenda_from_doc(a, &doc, d);
	else
		memset(a, 0, sizeof(*a));
	d->doc = NULL; /* messages are already formatted */
	kvb_doc_release(&doc);
	return rc;
}

static void variant_release(struct kvb_variant *v)
{
	free(v->name);
	free(v->kernel);
	free(v->sha256);
	free(v->dtb);
	free(v->initrd);
	free(v->cmdline);
	free(v->boot_image);
	free(v->modules);
	free(v->expected_release);
	free(v->expected_version);
	free(v->unusable);
	for (int i = 0; i < KVB_VF_N; i++)
		free(v->local[i]);
	kvb_runtime_release(&v->rt);
	cJSON_Delete(v->raw);
}

void kvb_agenda_release(struct kvb_agenda *a)
{
	for (size_t i = 0; i < a->nspecs; i++)
		spec_release(&a->specs[i]);
	free(a->specs);
	for (size_t i = 0; i < a->nvariants; i++)
		variant_release(&a->variants[i]);
	free(a->variants);
	cJSON_Delete(a->instruments);
	cJSON_Delete(a->raw);
	free(a->file);
	memset(a, 0, sizeof(*a));
}

int kvb_agenda_add_variant_arg(struct kvb_agenda *a, const char *arg, struct kvb_error *err)
{
	const char *eq = strchr(arg, '=');
	struct kvb_variant var;
	char *rest, *save = NULL, *tok;
	int first = 1;

	if (!eq || eq == arg)
		return kvb_error_set(err, KVB_EUSAGE, "-V '%s': expected NAME=KERNEL[,key=value...]", arg);
	memset(&var, 0, sizeof(var));
	kvb_runtime_init(&var.rt);
	var.name = kvb_xstrndup(arg, (size_t)(eq - arg));
	rest = kvb_xstrdup(eq + 1);
	for (tok = strtok_r(rest, ",", &save); tok; tok = strtok_r(NULL, ",", &save), first = 0) {
		char *kq = strchr(tok, '=');
		if (first && !kq) {
			var.kernel = kvb_xstrdup(tok);
			continue;
		}
		if (!kq) {
			kvb_error_set(err, KVB_EUSAGE, "-V '%s': '%s' is not key=value", arg, tok);
			variant_release(&var);
			free(rest);
			return KVB_EUSAGE;
		}
		*kq++ = '\0';
#define VSET(f) else if (!strcmp(tok, #f)) { free(var.f); var.f = kvb_xstrdup(kq); }
		if (0) {}
		VSET(kernel) VSET(sha256) VSET(dtb) VSET(initrd) VSET(cmdline) VSET(boot_image) VSET(modules)
		else if (!strcmp(tok, "cpus")) { free(var.rt.cpus); var.rt.cpus = kvb_xstrdup(kq); }
		else {
			kvb_error_set(err, KVB_EUSAGE,
				      "-V '%s': unknown key '%s' (kernel, sha256, dtb, initrd, cmdline, boot_image, modules, cpus)",
				      arg, tok);
			variant_release(&var);
			free(rest);
			return KVB_EUSAGE;
		}
#undef VSET
	}
	free(rest);
	var.raw = cJSON_CreateObject();
	cJSON_AddStringToObject(var.raw, "name", var.name);
	if (var.kernel)
		cJSON_AddStringToObject(var.raw, "kernel", var.kernel);
#define VRAW(f) if (var.f) cJSON_AddStringToObject(var.raw, #f, var.f);
	VRAW(sha256) VRAW(dtb) VRAW(initrd) VRAW(cmdline) VRAW(boot_image) VRAW(modules)
#undef VRAW
	if (var.rt.cpus)
		cJSON_AddStringToObject(var.raw, "cpus", var.rt.cpus);
	for (size_t i = 0; i < a->nvariants; i++) {
		struct kvb_variant *old = &a->variants[i];
		if (strcmp(old->name, var.name))
			continue;
		/* -V for an agenda variant overrides the fields it gives and keeps the others */
#define VMERGE(f)                                                                                   \
	if (var.f) {                                                                                \
		free(old->f);                                                                       \
		old->f = var.f;                                                                     \
		var.f = NULL;                                                                       \
		cJSON_DeleteItemFromObjectCaseSensitive(old->raw, #f);                              \
		cJSON_AddStringToObject(old->raw, #f, old->f);                                      \
	}
		VMERGE(kernel) VMERGE(sha256) VMERGE(dtb) VMERGE(initrd) VMERGE(cmdline) VMERGE(boot_image)
		VMERGE(modules)
#undef VMERGE
		if (var.rt.cpus) {
			free(old->rt.cpus);
			old->rt.cpus = var.rt.cpus;
			var.rt.cpus = NULL;
			cJSON_DeleteItemFromObjectCaseSensitive(old->raw, "cpus");
			cJSON_AddStringToObject(old->raw, "cpus", old->rt.cpus);
		}
		variant_release(&var);
		return KVB_OK;
	}
	a->variants = kvb_xrealloc(a->variants, (a->nvariants + 1) * sizeof(*a->variants));
	a->variants[a->nvariants++] = var;
	return KVB_OK;
}

void kvb_agenda_default_variant(struct kvb_agenda *a)
{
	if (a->nvariants)
		return;
	a->variants = kvb_xcalloc(1, sizeof(*a->variants));
	a->variants[0].name = kvb_xstrdup("default");
	kvb_runtime_init(&a->variants[0].rt);
	a->variants[0].raw = cJSON_CreateObject();
	cJSON_AddStringToObject(a->variants[0].raw, "name", "default"); /* --resume reloads it */
	a->nvariants = 1;
}
