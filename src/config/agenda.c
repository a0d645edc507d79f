/* Implements agenda loading: WA3 keys, precedence, sections x workloads x sweeps expansion. */
#include "config/agenda_internal.h"

#include <stdio.h>
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

void kvb_agenda_keys_print(FILE *f)
{
	fprintf(f, "keys (top level):\n");
	kvb_keys_print(f, top_keys, "  ");
	fprintf(f, "\nconfig: (alias global:)\n");
	kvb_keys_print(f, config_keys, "  ");
	fprintf(f, "\nsections[]:\n");
	kvb_keys_print(f, kvb_agenda_section_keys, "  ");
	fprintf(f, "\nworkloads[]:\n");
	kvb_keys_print(f, kvb_agenda_workload_keys, "  ");
	fprintf(f, "\nruntime_params: (in config, a section, a workload entry or a variant)\n");
	kvb_keys_print(f, kvb_runtime_keys, "  ");
}

const struct kvb_keydef kvb_agenda_section_keys[] = {
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

const struct kvb_keydef kvb_agenda_workload_keys[] = {
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

const cJSON *kvb_agenda_get2(const cJSON *o, const char *a, const char *b)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);
	return v ? v : (b ? cJSON_GetObjectItemCaseSensitive(o, b) : NULL);
}

/* Merges src's members over *dst (object), creating it; scalar values stringified when str is set. */
void kvb_agenda_merge_obj(cJSON **dst, const cJSON *src, int str)
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
int kvb_agenda_read_iterations(const cJSON *obj, const char *path, struct kvb_diag *d)
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

void kvb_agenda_check_classifiers(const cJSON *c, const char *path, struct kvb_diag *d)
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

void kvb_agenda_add_spec(struct kvb_agenda *a, struct kvb_spec *s)
{
	a->specs = kvb_xrealloc(a->specs, (a->nspecs + 1) * sizeof(*a->specs));
	a->specs[a->nspecs++] = *s;
}

void kvb_agenda_spec_release(struct kvb_spec *s)
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
void kvb_agenda_check_params(const struct kvb_catalog_workload *ops, const cJSON *params, const char *path, struct kvb_diag *d)
{
	if (!params)
		return;
	if (!kvb_keys_check(params, path, ops->params, d) && ops->validate)
		ops->validate(params, path, d);
	else if (ops->validate && cJSON_IsObject(params))
		ops->validate(params, path, d);
}

/*
 * One run-wide block, config: or global:, read onto what the blocks before it set: retries,
 * rounds, order, iterations and the agenda-wide knobs, classifiers, workload parameters and
 * instruments every entry starts from. Only the keys the block has change anything.
 */
/*
 * The blocks of cfg named for an instrument type (`ftrace: {buffer_kb: 8192}`, as WA3 configures a
 * plugin under config:) checked against that type's keys and merged into a->instrument_settings;
 * every other key is checked against config_keys. Settings apply to every instance of the type the
 * run enables (instrument/session.c).
 */
static void read_instrument_settings(struct kvb_agenda *a, const cJSON *cfg, const char *cfgname, struct kvb_diag *d)
{
	cJSON *rest = cJSON_Duplicate(cfg, 1);
	struct kvb_catalog_backend be;
	for (const cJSON *kv = cfg->child; kv; kv = kv->next) {
		char *path;
		cJSON *dst;
		if (kvb_keydef_find(config_keys, kv->string) || kvb_catalog_find_instrument(a->catalog, kv->string, &be))
			continue;
		cJSON_DeleteItemFromObjectCaseSensitive(rest, kv->string);
		path = kvb_path_key(cfgname, kv->string);
		if (kvb_keys_check(kv, path, be.keys, d)) {
			free(path);
			continue;
		}
		free(path);
		if (!a->instrument_settings)
			a->instrument_settings = cJSON_CreateObject();
		if (!(dst = cJSON_GetObjectItemCaseSensitive(a->instrument_settings, kv->string)))
			dst = cJSON_AddObjectToObject(a->instrument_settings, kv->string);
		for (const cJSON *s = kv->child; s; s = s->next) {
			cJSON_DeleteItemFromObjectCaseSensitive(dst, s->string);
			cJSON_AddItemToObject(dst, s->string, cJSON_Duplicate(s, 1));
		}
	}
	kvb_keys_check(rest, cfgname, config_keys, d);
	cJSON_Delete(rest);
}

static void read_config_block(struct kvb_agenda *a, const cJSON *cfg, const char *cfgname, struct agenda_globals *g,
			      struct kvb_diag *d)
{
	const cJSON *v;
	int it;
	if (!cJSON_IsObject(cfg))
		return;
	read_instrument_settings(a, cfg, cfgname, d);
	{
		char *mp = kvb_path_key(cfgname, "margins");
		kvb_margins_check(cJSON_GetObjectItemCaseSensitive(cfg, "margins"), mp, d);
		free(mp);
	}
	if ((it = kvb_agenda_read_iterations(cfg, cfgname, d)) >= 1)
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
	kvb_agenda_read_knobs_and_classifiers(cfg, kvb_agenda_get2(cfg, "runtime_params", "runtime_parameters"), cfgname, &g->rt,
				   &g->classifiers, d);
	kvb_agenda_merge_obj(&g->wparams, kvb_agenda_get2(cfg, "workload_parameters", "workload_params"), 0);
	v = kvb_agenda_get2(cfg, "instruments", "augmentations");
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

int kvb_agenda_from_doc(struct kvb_agenda *a, const struct kvb_doc *doc, const struct kvb_catalog *cat,
			struct kvb_diag *d)
{
	cJSON *wa3;
	const cJSON *root, *v;
	struct agenda_globals g = { .iterations = 1 };
	struct xsection *xs = NULL;
	size_t nxs = 0, before = d->msgs.n;

	memset(a, 0, sizeof(*a));
	a->warmup = -1;
	a->catalog = cat;
	root = wa3 = kvb_wa3_normalize(doc->root, doc->file, cat, d);  /* WA3 spellings -> kvbench's (wa3_keys.c) */
	a->file = kvb_xstrdup(doc->file);
	a->max_retries = 2;
	a->retry_disturbed = -1;
	a->raw = cJSON_Duplicate(root, 1);
	kvb_runtime_init(&g.rt);
	kvb_keys_check(root, "", top_keys, d);
	read_config(a, root, &g, d);
	kvb_agenda_read_sections(root, &xs, &nxs, d);
	if (!kvb_agenda_expand_workloads(a, root, xs, nxs, &g, d) && d->msgs.n == before)
		kvb_diag_at(d, "", "no workloads: add a 'workloads:' list (or workloads inside sections)");
	check_spec_ids(a, d);

	v = cJSON_GetObjectItemCaseSensitive(root, "variants");
	if (cJSON_IsArray(v))
		kvb_agenda_load_variants(a, v, d);
	check_job_count(a, root, d);

	for (size_t s = 0; s < nxs; s++)
		kvb_agenda_xsection_release(&xs[s]);
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

int kvb_agenda_load(struct kvb_agenda *a, const char *file, const struct kvb_catalog *cat, struct kvb_diag *d)
{
	struct kvb_doc doc;
	char *shipped = agenda_find(file);
	int rc = kvb_doc_load(&doc, shipped ? shipped : file, d);
	free(shipped);
	if (!rc)
		rc = kvb_agenda_from_doc(a, &doc, cat, d);
	else
		memset(a, 0, sizeof(*a));
	d->doc = NULL; /* messages are already formatted */
	kvb_doc_release(&doc);
	return rc;
}

void kvb_agenda_release(struct kvb_agenda *a)
{
	for (size_t i = 0; i < a->nspecs; i++)
		kvb_agenda_spec_release(&a->specs[i]);
	free(a->specs);
	for (size_t i = 0; i < a->nvariants; i++)
		kvb_agenda_variant_release(&a->variants[i]);
	free(a->variants);
	cJSON_Delete(a->instruments);
	cJSON_Delete(a->instrument_settings);
	cJSON_Delete(a->raw);
	free(a->file);
	memset(a, 0, sizeof(*a));
}
