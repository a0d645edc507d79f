/* Implements table-driven key/type checks for configuration mappings. */
#include "config/keys.h"
#include "core/suggest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct kvb_keydef *kvb_keydef_find(const struct kvb_keydef *defs, const char *key)
{
	for (; defs && defs->key; defs++)
		if (!strcmp(defs->key, key))
			return defs;
	return NULL;
}

static const char *type_name(enum kvb_type t)
{
	switch (t) {
	case KVB_T_INT: return "integer";
	case KVB_T_NUM: return "number";
	case KVB_T_STR: return "string";
	case KVB_T_BOOL: return "boolean";
	case KVB_T_LIST: return "list";
	case KVB_T_MAP: return "mapping";
	case KVB_T_SCALAR: return "scalar";
	case KVB_T_STRLIST: return "string or list";
	default: return "value";
	}
}

static int choice_ok(const char *choices, const char *v)
{
	size_t n = strlen(v);
	const char *p = choices;
	while (p && *p) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (len == n && !strncmp(p, v, n))
			return 1;
		p = bar ? bar + 1 : NULL;
	}
	return 0;
}

int kvb_value_check(const cJSON *v, const char *path, const struct kvb_keydef *def, struct kvb_diag *d)
{
	char got[96];
	int ok = 1;
	switch (def->type) {
	case KVB_T_ANY: break;
	case KVB_T_INT: ok = cJSON_IsNumber(v) && floor(v->valuedouble) == v->valuedouble && fabs(v->valuedouble) < 9e15; break;
	case KVB_T_NUM: ok = cJSON_IsNumber(v); break;
	case KVB_T_STR: ok = cJSON_IsString(v) || cJSON_IsNumber(v); break;
	case KVB_T_BOOL: ok = cJSON_IsBool(v); break;
	case KVB_T_LIST: ok = cJSON_IsArray(v); break;
	case KVB_T_MAP: ok = cJSON_IsObject(v); break;
	case KVB_T_SCALAR: ok = cJSON_IsString(v) || cJSON_IsNumber(v) || cJSON_IsBool(v); break;
	case KVB_T_STRLIST: ok = cJSON_IsString(v) || cJSON_IsNumber(v) || cJSON_IsArray(v); break;
	}
	if (!ok && cJSON_IsBool(v) && def->type == KVB_T_STR) {
		/* YAML 1.1 reads an unquoted yes/no/on/off as a boolean (`host_key: yes`) */
		kvb_diag_at(d, path, "expected %s%s, got %s (YAML reads an unquoted yes/no/on/off as a boolean: quote it)",
			    def->choices ? "one of " : "a string", def->choices ? def->choices : "",
			    kvb_node_describe(v, got, sizeof(got)));
		return 1;
	}
	if (!ok) {
		kvb_diag_at(d, path, "expected %s, got %s", type_name(def->type), kvb_node_describe(v, got, sizeof(got)));
		return 1;
	}
	if (cJSON_IsNumber(v) && (def->flags & KVB_KEY_POSITIVE) && !(v->valuedouble > 0)) {
		kvb_diag_at(d, path, "expected a number > 0, got %s", kvb_node_describe(v, got, sizeof(got)));
		return 1;
	}
	if (cJSON_IsNumber(v) && (def->flags & KVB_KEY_NONNEG) && v->valuedouble < 0) {
		kvb_diag_at(d, path, "expected a number >= 0, got %s", kvb_node_describe(v, got, sizeof(got)));
		return 1;
	}
	if (def->choices && (cJSON_IsString(v) || cJSON_IsNumber(v) || cJSON_IsBool(v))) {
		char *s = kvb_node_str(v);
		int good = choice_ok(def->choices, s);
		if (!good) {
			char *near = kvb_suggest_choices(s, def->choices);
			kvb_diag_at(d, path, "expected one of %s, got \"%s\"%s%s%s", def->choices, s,
				    near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
			free(near);
		}
		free(s);
		return !good;
	}
	return 0;
}

int kvb_keys_check(const cJSON *obj, const char *path, const struct kvb_keydef *defs, struct kvb_diag *d)
{
	int errors = 0;
	char got[96];
	if (!cJSON_IsObject(obj)) {
		kvb_diag_at(d, path, "expected mapping, got %s", kvb_node_describe(obj, got, sizeof(got)));
		return 1;
	}
	for (const cJSON *kv = obj->child; kv; kv = kv->next) {
		const struct kvb_keydef *def = kvb_keydef_find(defs, kv->string);
		char *p = kvb_path_key(path, kv->string);
		if (!def) {
			struct kvb_strv keys = KVB_STRV_INIT;
			char dym[160];
			for (const struct kvb_keydef *k = defs; k && k->key; k++)
				kvb_strv_push(&keys, k->key);
			kvb_diag_at(d, p, "unknown key '%s'%s", kv->string,
				    kvb_did_you_mean(dym, sizeof(dym), kv->string, (const char *const *)keys.v, keys.n));
			kvb_strv_release(&keys);
			errors++;
		} else {
			errors += kvb_value_check(kv, p, def, d);
		}
		free(p);
	}
	for (const struct kvb_keydef *def = defs; def && def->key; def++) {
		if ((def->flags & KVB_KEY_REQUIRED) && !cJSON_GetObjectItemCaseSensitive(obj, def->key)) {
			kvb_diag_at(d, path, "missing required key '%s'", def->key);
			errors++;
		}
	}
	return errors;
}

char *kvb_node_str(const cJSON *n)
{
	if (cJSON_IsString(n))
		return kvb_xstrdup(n->valuestring);
	if (cJSON_IsNumber(n)) {
		double v = n->valuedouble;
		if (floor(v) == v && fabs(v) < 9e15)
			return kvb_xasprintf("%lld", (long long)v);
		return kvb_xasprintf("%.17g", v);
	}
	if (cJSON_IsBool(n))
		return kvb_xstrdup(cJSON_IsTrue(n) ? "true" : "false");
	if (cJSON_IsNull(n))
		return kvb_xstrdup("");
	return NULL;
}

void kvb_keys_print(FILE *f, const struct kvb_keydef *defs, const char *indent)
{
	for (; defs && defs->key; defs++) {
		fprintf(f, "%s%-18s %-8s", indent, defs->key, type_name(defs->type));
		if (defs->def)
			fprintf(f, " [%s]", defs->def);
		if (defs->choices)
			fprintf(f, " (%s)", defs->choices);
		fprintf(f, "  %s\n", defs->help ? defs->help : "");
	}
}

long long kvb_get_int(const cJSON *obj, const char *key, long long def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!cJSON_IsNumber(v) || isnan(v->valuedouble))
		return def;
	/* saturate: converting a double beyond long long's range is undefined behaviour, and KVB_T_INT
	 * validation (which reports such values) does not stop the loader from reading them */
	if (v->valuedouble >= 9e15)
		return 9000000000000000LL;
	if (v->valuedouble <= -9e15)
		return -9000000000000000LL;
	return (long long)v->valuedouble;
}

double kvb_get_num(const cJSON *obj, const char *key, double def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsNumber(v) ? v->valuedouble : def;
}

const char *kvb_get_str(const cJSON *obj, const char *key, const char *def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsString(v) ? v->valuestring : def;
}

int kvb_get_bool(const cJSON *obj, const char *key, int def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsBool(v) ? cJSON_IsTrue(v) : def;
}
