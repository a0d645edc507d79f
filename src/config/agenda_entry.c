/* Implements one workload entry of an agenda: its workload, id, params, knobs and classifiers, and a sweep expanded into one spec per combination. */
#include "config/agenda_internal.h"

#include <stdlib.h>
#include <string.h>

/* The workload an entry names (a string, or an object's name:) into *ops: 0; -1, with a message for an unknown one. */
static int entry_workload(const struct kvb_agenda *a, const cJSON *e, const char *path, struct kvb_catalog_workload *ops,
			  struct kvb_diag *d)
{
	const cJSON *name;
	if (cJSON_IsString(e)) {
		name = e;
	} else {
		if (kvb_keys_check(e, path, kvb_agenda_workload_keys, d) && !cJSON_IsObject(e))
			return -1;
		if (!cJSON_IsObject(e))
			return -1;
		name = cJSON_GetObjectItemCaseSensitive(e, "name");
	}
	if (!cJSON_IsString(name))
		return -1;
	if (kvb_catalog_find_workload(a->catalog, name->valuestring, ops)) {
		char *known = kvb_catalog_names(a->catalog, 'w', ", ");
		char *np = cJSON_IsString(e) ? kvb_xstrdup(path) : kvb_path_key(path, "name");
		char *near = kvb_suggest_workload(a->catalog, name->valuestring);
		kvb_diag_at(d, np, "unknown workload \"%s\" (known: %s)%s", name->valuestring, known, near ? near : "");
		free(near);
		free(known);
		free(np);
		return -1;
	}
	return 0;
}

/* The spec's id, label, section, iterations and timeout: agenda < section < entry. */
static void entry_identity(struct kvb_spec *base, const struct kvb_agenda *a, const cJSON *e,
			   const struct xsection *sec, const struct kvb_catalog_workload *ops, int giter)
{
	base->workload = kvb_xstrdup(ops->name);
	base->ops = ops->ops;
	{
		const char *id = cJSON_IsObject(e) ? kvb_get_str(e, "id", NULL) : NULL;
		char *own = id ? kvb_xstrdup(id)
			       : kvb_spec_default_id(a->catalog, e, cJSON_GetObjectItemCaseSensitive(a->raw, "workloads"),
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
static void entry_params(struct kvb_spec *base, const struct kvb_catalog_workload *ops, const cJSON *e, const char *path,
			 const struct xsection *sec, const cJSON *gparams, struct kvb_diag *d)
{
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
	params = cJSON_IsObject(e) ? kvb_agenda_get2(e, "params", "workload_parameters") : NULL;
	if (!params && cJSON_IsObject(e))
		params = cJSON_GetObjectItemCaseSensitive(e, "workload_params");
	if (params) {
		char *ppath = kvb_path_key(path, cJSON_GetObjectItemCaseSensitive(e, "params") ? "params"
					    : cJSON_GetObjectItemCaseSensitive(e, "workload_parameters") ? "workload_parameters"
													   : "workload_params");
		kvb_agenda_check_params(ops, params, ppath, d);
		free(ppath);
		kvb_agenda_merge_obj(&base->params, params, 0);
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
		const cJSON *rp = kvb_agenda_get2(e, "runtime_params", "runtime_parameters");
		if (rp) {
			char *rpath = kvb_path_key(path, "runtime_params");
			kvb_runtime_merge_json(&base->rt, rp, rpath, d);
			free(rpath);
		}
	}
	kvb_agenda_merge_obj(&base->classifiers, g->classifiers, 1);
	if (sec)
		kvb_agenda_merge_obj(&base->classifiers, sec->classifiers, 1);
	if (cJSON_IsObject(e)) {
		const cJSON *cl = cJSON_GetObjectItemCaseSensitive(e, "classifiers");
		if (cl) {
			char *cp = kvb_path_key(path, "classifiers");
			kvb_agenda_check_classifiers(cl, cp, d);
			free(cp);
		}
		kvb_agenda_merge_obj(&base->classifiers, cl, 1);
	}
	if (!base->classifiers)
		base->classifiers = cJSON_CreateObject();
}

/* Checks each value of a sweep key: as a knob value, or against the parameter's keydef. */
static void check_sweep_values(const cJSON *kv, const char *kp, const struct kvb_catalog_workload *ops,
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
static void read_sweep(struct sweep *sw, const cJSON *e, const char *path, const struct kvb_catalog_workload *ops,
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
	kvb_agenda_add_spec(a, &s);
}

/*
 * Expands one workload entry within one section (NULL: none) into specs, one per
 * sweep combination: resolve the workload, merge its params, knobs and classifiers
 * over the agenda's and the section's, read the sweep, add the combinations.
 * Problems go to d; a caller expanding an entry it has already checked (the same
 * entry in a further section) passes a diag it discards.
 */
void kvb_agenda_expand_entry(struct kvb_agenda *a, const cJSON *e, const char *path, const struct xsection *sec,
		  const struct agenda_globals *g, struct kvb_diag *d)
{
	struct kvb_catalog_workload wl, *ops = &wl;
	struct kvb_spec base;
	struct sweep sw;
	if (entry_workload(a, e, path, ops, d))
		return;
	memset(&base, 0, sizeof(base));
	entry_identity(&base, a, e, sec, ops, g->iterations);
	entry_params(&base, ops, e, path, sec, g->wparams, d);
	entry_runtime_and_classifiers(&base, e, path, sec, g, d);
	kvb_agenda_read_iterations(e, path, d);
	read_sweep(&sw, e, path, ops, d);
	for (size_t c = 0; c < sw.combos; c++)
		add_combination(a, &base, &sw, c, d);
	free(sw.keys);
	free(sw.idx);
	kvb_agenda_spec_release(&base);
}
