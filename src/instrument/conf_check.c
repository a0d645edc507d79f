/* Implements the load-time checks of a platform's instruments: mapping: type, keys, values, sums (issue 41). */
#include "instrument/instrument.h"
#include "core/suggest.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

static const struct kvb_keydef type_key = { "type", KVB_T_STR, NULL, NULL, KVB_KEY_REQUIRED, "instrument backend" };

int kvb_instr_conf_check(const char *path, const cJSON *conf, const struct kvb_instrument_ops *ops, struct kvb_diag *d)
{
	size_t n = 0;
	struct kvb_keydef *defs;
	int bad;
	while (ops->conf_keys && ops->conf_keys[n].key)
		n++;
	defs = kvb_xcalloc(n + 2, sizeof(*defs));
	defs[0] = type_key;
	for (size_t i = 0; i < n; i++)
		defs[i + 1] = ops->conf_keys[i];
	bad = kvb_keys_check(conf, path, defs, d);
	free(defs);
	return bad;
}

/* The names a sum may add: the keys of `channels:` when given, the clusters for the model (whose sums add
 * clusters); NULL (do not check) when the channels come from the board (every hwmon label, every zone). */
static void sum_names(const struct kvb_platform *p, const cJSON *conf, const struct kvb_instrument_ops *ops,
		      struct kvb_strv *names, int *known)
{
	const cJSON *ch = cJSON_GetObjectItemCaseSensitive(conf, "channels");
	*known = 0;
	if (cJSON_IsObject(ch)) {
		for (const cJSON *kv = ch->child; kv; kv = kv->next)
			kvb_strv_push(names, kv->string);
		*known = 1;
	} else if (kvb_keydef_find(ops->conf_keys, "energy_model")) {
		for (size_t i = 0; i < p->nclusters; i++)
			kvb_strv_push(names, p->clusters[i].name);
		*known = p->nclusters > 0;
	}
}

/* sums: {NAME: [channel, ...]}: non-empty lists of names of channels the instrument records. */
static void check_sums(const struct kvb_platform *p, const char *path, const cJSON *conf,
		       const struct kvb_instrument_ops *ops, struct kvb_diag *d)
{
	const cJSON *sums = cJSON_GetObjectItemCaseSensitive(conf, "sums");
	struct kvb_strv names = KVB_STRV_INIT;
	int known;
	char *spath;
	if (!cJSON_IsObject(sums))
		return;
	sum_names(p, conf, ops, &names, &known);
	spath = kvb_path_key(path, "sums");
	for (const cJSON *kv = sums->child; kv; kv = kv->next) {
		char *kpath = kvb_path_key(spath, kv->string);
		int i = 0;
		if (!cJSON_IsArray(kv) || !kv->child)
			kvb_diag_at(d, kpath, "expected a non-empty list of channels, like [big, little]");
		for (const cJSON *c = cJSON_IsArray(kv) ? kv->child : NULL; c; c = c->next, i++) {
			char *cpath = kvb_path_idx(kpath, i), dym[160];
			size_t k = 0;
			if (!cJSON_IsString(c)) {
				kvb_diag_at(d, cpath, "expected a channel name");
			} else if (known) {
				while (k < names.n && strcmp(names.v[k], c->valuestring))
					k++;
				if (k == names.n) {
					struct kvb_buf all = KVB_BUF_INIT;
					for (size_t m = 0; m < names.n; m++)
						kvb_buf_addf(&all, "%s%s", m ? ", " : "", names.v[m]);
					kvb_diag_at(d, cpath, "'%s' is not one of its %s (%s)%s", c->valuestring,
						    cJSON_GetObjectItemCaseSensitive(conf, "channels") ? "channels" : "clusters",
						    names.n ? all.data : "none",
						    kvb_did_you_mean(dym, sizeof(dym), c->valuestring,
								     (const char *const *)names.v, names.n));
					kvb_buf_release(&all);
				}
			}
			free(cpath);
		}
		free(kpath);
	}
	free(spath);
	kvb_strv_release(&names);
}

void kvb_instr_check_platform(const struct kvb_platform *p, struct kvb_diag *d)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(p->doc.root, "instruments");
	struct kvb_buf types = KVB_BUF_INIT;
	if (!cJSON_IsObject(list))
		return; /* absent, or the platform's key table said "expected mapping" */
	for (size_t i = 0; kvb_instruments[i]; i++)
		kvb_buf_addf(&types, "%s%s", i ? "|" : "", kvb_instruments[i]->name);
	for (const cJSON *kv = list->child; kv; kv = kv->next) {
		char *path = kvb_path_key("instruments", kv->string), *tpath = kvb_path_key(path, "type");
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(kv, "type");
		const struct kvb_instrument_ops *ops;
		char got[96];
		if (!cJSON_IsObject(kv)) {
			kvb_diag_at(d, path, "expected a mapping {type: TYPE, ...}, got %s; types: %s",
				    kvb_node_describe(kv, got, sizeof(got)), types.data);
		} else if (!type) {
			kvb_diag_at(d, path, "missing required key 'type' (one of %s)", types.data);
		} else if (!cJSON_IsString(type)) {
			kvb_diag_at(d, tpath, "expected one of %s, got %s", types.data, kvb_node_describe(type, got, sizeof(got)));
		} else if (!(ops = kvb_instrument_find(type->valuestring))) {
			char *near = kvb_suggest_choices(type->valuestring, types.data);
			kvb_diag_at(d, tpath, "unknown instrument type \"%s\"%s%s%s (known: %s; `kvbench help TYPE` lists a "
					      "type's keys)",
				    type->valuestring, near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "",
				    types.data);
			free(near);
		} else {
			kvb_instr_conf_check(path, kv, ops, d);
			check_sums(p, path, kv, ops, d);
		}
		free(tpath);
		free(path);
	}
	kvb_buf_release(&types);
}
