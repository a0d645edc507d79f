/* Implements an agenda's variants: read from its variants: list or given on the command line (--variant), the default one, their knobs checked. */
#include "config/agenda_internal.h"

#include <stdlib.h>
#include <string.h>

void kvb_agenda_load_variants(struct kvb_agenda *a, const cJSON *vs, struct kvb_diag *d)
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
		rp = kvb_agenda_get2(v, "runtime_params", "runtime");
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

void kvb_agenda_variant_release(struct kvb_variant *v)
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
	free(v->arg);
	for (int i = 0; i < KVB_VF_N; i++)
		free(v->local[i]);
	kvb_runtime_release(&v->rt);
	cJSON_Delete(v->raw);
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
			kvb_agenda_variant_release(&var);
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
			kvb_agenda_variant_release(&var);
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
		if (old->arg) {
			kvb_error_set(err, KVB_EUSAGE,
				      "-V '%s' and -V '%s' both name variant '%s': give each variant its own name "
				      "(-V %s=... -V %s2=...)",
				      old->arg, arg, var.name, var.name, var.name);
			kvb_agenda_variant_release(&var);
			return KVB_EUSAGE;
		}
		old->arg = kvb_xstrdup(arg);
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
		kvb_agenda_variant_release(&var);
		return KVB_OK;
	}
	var.arg = kvb_xstrdup(arg);
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
