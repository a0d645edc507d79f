/* Implements LAVA deploy/boot templates from the platform's lava: block (lava_def.h). */
#include "target/lava_def.h"
#include "config/keys.h"
#include "core/buf.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const var_names[KVB_LV_N] = {
	[KVB_LV_KERNEL] = "kernel",
	[KVB_LV_INITRD] = "initrd",
	[KVB_LV_INITRD_COMPRESSION] = "initrd_compression",
	[KVB_LV_DTB] = "dtb",
	[KVB_LV_MODULES] = "modules",
	[KVB_LV_MODULES_COMPRESSION] = "modules_compression",
	[KVB_LV_BOOT_IMAGE] = "boot_image",
	[KVB_LV_ROOTFS] = "rootfs",
	[KVB_LV_ROOTFS_COMPRESSION] = "rootfs_compression",
	[KVB_LV_CMDLINE] = "cmdline",
	[KVB_LV_PROMPT] = "prompt",
	[KVB_LV_DEVICE_TYPE] = "device_type",
};

const struct kvb_keydef kvb_lava_block_keys[] = {
	{ "device_types", KVB_T_MAP, NULL, NULL, KVB_KEY_REQUIRED,
	  "per LAVA device type: {deploy, boot, context}, the job's deploy and boot actions with ${NAME} variables "
	  "(src/target/lava_def.h)" },
	{ "priority", KVB_T_SCALAR, "medium", NULL, 0, "LAVA job priority: high, medium, low or 0..100" },
	{ "visibility", KVB_T_ANY, "public", NULL, 0, "LAVA job visibility: public, personal or {group: [NAMES]}" },
	{ "console_loglevel", KVB_T_INT, "1", NULL, KVB_KEY_NONNEG,
	  "console loglevel the test shell sets first (dmesg -n; 0 leaves it): kernel messages stay off the console "
	  "while kvbench reads it" },
	{ "deploy_timeout_min", KVB_T_INT, "10", NULL, KVB_KEY_POSITIVE, "timeout of a deploy action without its own, minutes" },
	{ "test_timeout_min", KVB_T_INT, NULL, NULL, KVB_KEY_POSITIVE,
	  "timeout of the test action (the unit's commands), minutes (default: the sum of those commands' own "
	  "timeouts, a workload's timeout_s, + 2); the job's timeout is larger (connection.job_timeout_min)" },
	{ "report_timeout_s", KVB_T_INT, "300", NULL, KVB_KEY_POSITIVE,
	  "how long the test shell waits for kvbench's results of the unit before it reports its commands' exit "
	  "statuses instead, s" },
	{ "metadata", KVB_T_MAP, NULL, NULL, 0, "LAVA job metadata (shown on the job's page)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static const struct kvb_keydef template_keys[] = {
	{ "deploy", KVB_T_ANY, NULL, NULL, KVB_KEY_REQUIRED, "the deploy action(s): a mapping or a list of them" },
	{ "boot", KVB_T_ANY, NULL, NULL, KVB_KEY_REQUIRED, "the boot action(s): a mapping or a list of them" },
	{ "context", KVB_T_MAP, NULL, NULL, 0, "job context (device-type template variables)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

const char *kvb_lava_var_name(enum kvb_lava_var v)
{
	return (unsigned)v < KVB_LV_N ? var_names[v] : "?";
}

const char *kvb_lava_compression(const char *name)
{
	static const char *const ext[][2] = { { ".gz", "gz" }, { ".xz", "xz" }, { ".bz2", "bz2" }, { ".zst", "zstd" } };
	size_t n = name ? strlen(name) : 0;
	for (size_t i = 0; i < KVB_ARRAY_SIZE(ext); i++) {
		size_t e = strlen(ext[i][0]);
		if (n > e && !strcmp(name + n - e, ext[i][0]))
			return ext[i][1];
	}
	return NULL;
}

static int var_find(const char *name, size_t len)
{
	for (int i = 0; i < KVB_LV_N; i++)
		if (strlen(var_names[i]) == len && !strncmp(var_names[i], name, len))
			return i;
	return -1;
}

/* Each ${NAME} / ${NAME?} in s: fn(name, len, optional) until fn returns nonzero. */
static int each_ref(const char *s, int (*fn)(void *arg, const char *name, size_t len, int opt), void *arg)
{
	for (const char *p = strstr(s, "${"); p; p = strstr(p + 2, "${")) {
		const char *e = strchr(p + 2, '}');
		size_t len;
		int opt, r;
		if (!e)
			break;
		len = (size_t)(e - (p + 2));
		opt = len && p[2 + len - 1] == '?';
		if ((r = fn(arg, p + 2, len - (size_t)opt, opt)))
			return r;
	}
	return 0;
}

struct check_ctx {
	struct kvb_diag *d;
	const char *path;
};

static int check_ref(void *arg, const char *name, size_t len, int opt)
{
	struct check_ctx *c = arg;
	(void)opt;
	if (var_find(name, len) < 0) {
		struct kvb_buf known = KVB_BUF_INIT;
		for (int i = 0; i < KVB_LV_N; i++)
			kvb_buf_addf(&known, "%s%s", i ? ", " : "", var_names[i]);
		kvb_diag_at(c->d, c->path, "unknown variable ${%.*s} (known: %s)", (int)len, name, known.data);
		kvb_buf_release(&known);
	}
	return 0;
}

static void check_strings(const cJSON *n, const char *path, struct kvb_diag *d)
{
	if (cJSON_IsString(n)) {
		struct check_ctx c = { d, path };
		each_ref(n->valuestring, check_ref, &c);
		return;
	}
	if (cJSON_IsArray(n)) {
		int i = 0;
		for (const cJSON *c = n->child; c; c = c->next, i++) {
			char *p = kvb_xasprintf("%s[%d]", path, i);
			check_strings(c, p, d);
			free(p);
		}
	} else if (cJSON_IsObject(n)) {
		for (const cJSON *c = n->child; c; c = c->next) {
			char *p = kvb_path_key(path, c->string);
			check_strings(c, p, d);
			free(p);
		}
	}
}

/* An action: a mapping, or a list of mappings. */
static void check_actions(const cJSON *a, const char *path, struct kvb_diag *d)
{
	if (cJSON_IsObject(a))
		return;
	if (cJSON_IsArray(a) && cJSON_GetArraySize(a) > 0) {
		for (const cJSON *c = a->child; c; c = c->next)
			if (!cJSON_IsObject(c)) {
				kvb_diag_at(d, path, "expected a mapping (one action) or a list of mappings");
				return;
			}
		return;
	}
	kvb_diag_at(d, path, "expected a mapping (one action) or a list of mappings");
}

void kvb_lava_block_check(const cJSON *lava, const char *where, const char *const *device_types, size_t n,
			  struct kvb_diag *d)
{
	const cJSON *dts, *prio;
	if (!lava) {
		for (size_t i = 0; i < n; i++)
			kvb_diag_at(d, "connection.device_type",
				    "no lava: block with a template for device type '%s' (lava: {device_types: {%s: {deploy, "
				    "boot}}}: the job definition is data, src/target/lava_def.h)",
				    device_types[i], device_types[i]);
		return;
	}
	if (kvb_keys_check(lava, where, kvb_lava_block_keys, d))
		return;
	prio = cJSON_GetObjectItemCaseSensitive(lava, "priority");
	if (prio) {
		char *p = kvb_node_str(prio), *path = kvb_path_key(where, "priority");
		int64_t v;
		if (!p || (strcmp(p, "high") && strcmp(p, "medium") && strcmp(p, "low") &&
			   (kvb_parse_i64(p, &v) || v < 0 || v > 100)))
			kvb_diag_at(d, path, "expected high, medium, low or a number 0..100, not '%s'", p ? p : "a container");
		free(p);
		free(path);
	}
	{
		const cJSON *vis = cJSON_GetObjectItemCaseSensitive(lava, "visibility");
		char *path = kvb_path_key(where, "visibility");
		if (vis && !(cJSON_IsString(vis) && (!strcmp(vis->valuestring, "public") ||
						     !strcmp(vis->valuestring, "personal"))) &&
		    !(cJSON_IsObject(vis) && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(vis, "group"))))
			kvb_diag_at(d, path, "expected public, personal or {group: [NAMES]}");
		free(path);
	}
	dts = cJSON_GetObjectItemCaseSensitive(lava, "device_types");
	for (const cJSON *t = dts ? dts->child : NULL; t; t = t->next) {
		char *p = kvb_path_key(where, "device_types"), *tp = kvb_path_key(p, t->string);
		if (!kvb_keys_check(t, tp, template_keys, d)) {
			char *dp = kvb_path_key(tp, "deploy"), *bp = kvb_path_key(tp, "boot");
			check_actions(cJSON_GetObjectItemCaseSensitive(t, "deploy"), dp, d);
			check_actions(cJSON_GetObjectItemCaseSensitive(t, "boot"), bp, d);
			check_strings(t, tp, d);
			free(dp);
			free(bp);
		}
		free(p);
		free(tp);
	}
	for (size_t i = 0; i < n; i++)
		if (!kvb_lava_template(lava, device_types[i])) {
			struct kvb_buf have = KVB_BUF_INIT;
			char *p = kvb_path_key(where, "device_types");
			for (const cJSON *t = dts ? dts->child : NULL; t; t = t->next)
				kvb_buf_addf(&have, "%s%s", have.len ? ", " : "", t->string);
			kvb_diag_at(d, p, "no template for device type '%s' (the connection asks for it; templates: %s)",
				    device_types[i], have.len ? have.data : "none");
			kvb_buf_release(&have);
			free(p);
		}
}

const cJSON *kvb_lava_template(const cJSON *lava, const char *device_type)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(lava, "device_types"),
							   device_type ? device_type : "");
	return cJSON_IsObject(t) ? t : NULL;
}

struct uses_ctx {
	enum kvb_lava_var v;
};

static int uses_ref(void *arg, const char *name, size_t len, int opt)
{
	struct uses_ctx *c = arg;
	(void)opt;
	return var_find(name, len) == (int)c->v;
}

static int uses(const cJSON *n, enum kvb_lava_var v)
{
	struct uses_ctx c = { v };
	if (cJSON_IsString(n))
		return each_ref(n->valuestring, uses_ref, &c);
	for (const cJSON *ch = (cJSON_IsArray(n) || cJSON_IsObject(n)) ? n->child : NULL; ch; ch = ch->next)
		if (uses(ch, v))
			return 1;
	return 0;
}

int kvb_lava_template_uses(const cJSON *tmpl, enum kvb_lava_var v)
{
	return tmpl && (uses(cJSON_GetObjectItemCaseSensitive(tmpl, "deploy"), v) ||
			uses(cJSON_GetObjectItemCaseSensitive(tmpl, "boot"), v));
}

enum fill_rc {
	FILL_OK,
	FILL_DROP_ITEM, /* ${NAME?} unset: the key or item holding the string goes */
	FILL_MISSING,   /* ${NAME} unset in a string: the nearest mapping above goes */
	FILL_DROP_SELF, /* this mapping goes (it held such a string) */
};

struct fill_ctx {
	const char *const *vars;
	const char *missing; /* the first required variable found unset */
};

/* s with its variables filled; FILL_OK with *out owned, or why not. */
static enum fill_rc fill_str(struct fill_ctx *f, const char *s, char **out)
{
	struct kvb_buf b = KVB_BUF_INIT;
	const char *p = s, *q;
	enum fill_rc rc = FILL_OK;
	*out = NULL;
	while ((q = strstr(p, "${"))) {
		const char *e = strchr(q + 2, '}');
		size_t len;
		int opt, v;
		if (!e)
			break;
		len = (size_t)(e - (q + 2));
		opt = len && q[2 + len - 1] == '?';
		v = var_find(q + 2, len - (size_t)opt);
		kvb_buf_add(&b, p, (size_t)(q - p));
		if (v < 0 || !f->vars[v]) {
			if (opt) {
				rc = FILL_DROP_ITEM;
			} else {
				if (!f->missing)
					f->missing = v < 0 ? "?" : var_names[v];
				rc = FILL_MISSING;
				break;
			}
		} else {
			kvb_buf_adds(&b, f->vars[v]);
		}
		p = e + 1;
	}
	if (rc == FILL_OK) {
		kvb_buf_adds(&b, p);
		*out = kvb_buf_detach(&b);
	}
	kvb_buf_release(&b);
	return rc;
}

static enum fill_rc fill(struct fill_ctx *f, const cJSON *n, cJSON **out)
{
	enum fill_rc rc;
	*out = NULL;
	if (cJSON_IsString(n)) {
		char *s;
		if ((rc = fill_str(f, n->valuestring, &s)) == FILL_OK) {
			*out = cJSON_CreateString(s);
			free(s);
		}
		return rc;
	}
	if (cJSON_IsArray(n)) {
		cJSON *a = cJSON_CreateArray();
		for (const cJSON *c = n->child; c; c = c->next) {
			cJSON *x;
			rc = fill(f, c, &x);
			if (rc == FILL_MISSING) {
				cJSON_Delete(a);
				return FILL_MISSING;
			}
			if (rc == FILL_OK)
				cJSON_AddItemToArray(a, x);
		}
		*out = a;
		return FILL_OK;
	}
	if (cJSON_IsObject(n)) {
		cJSON *o = cJSON_CreateObject();
		for (const cJSON *c = n->child; c; c = c->next) {
			cJSON *x;
			rc = fill(f, c, &x);
			if (rc == FILL_MISSING) {
				cJSON_Delete(o);
				return FILL_DROP_SELF;
			}
			if (rc == FILL_OK)
				cJSON_AddItemToObject(o, c->string, x);
		}
		*out = o;
		return FILL_OK;
	}
	*out = cJSON_Duplicate(n, 1);
	return FILL_OK;
}

static cJSON *minutes(long m)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "minutes", (double)m);
	return o;
}

/* One action ("deploy"/"boot") from its template mapping into actions. */
static int add_action(const char *kind, const cJSON *t, const char *device_type, const char *const vars[], long min,
		      cJSON *actions, struct kvb_error *err)
{
	struct fill_ctx f = { vars, NULL };
	cJSON *x, *a;
	enum fill_rc rc = fill(&f, t, &x);
	if (rc != FILL_OK)
		return kvb_error_set(err, KVB_EINPUT,
				     "LAVA device type %s: the %s template needs ${%s}, which this variant does not have",
				     device_type, kind, f.missing ? f.missing : "?");
	if (!cJSON_GetObjectItemCaseSensitive(x, "timeout"))
		cJSON_AddItemToObject(x, "timeout", minutes(min));
	a = cJSON_CreateObject();
	cJSON_AddItemToObject(a, kind, x);
	cJSON_AddItemToArray(actions, a);
	return KVB_OK;
}

int kvb_lava_template_actions(const cJSON *tmpl, const char *device_type, const char *const vars[KVB_LV_N],
			      long deploy_min, long boot_min, cJSON *actions, struct kvb_error *err)
{
	static const char *const kinds[] = { "deploy", "boot" };
	for (int k = 0; k < 2; k++) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(tmpl, kinds[k]);
		long min = k ? boot_min : deploy_min;
		int rc;
		if (cJSON_IsObject(t)) {
			if ((rc = add_action(kinds[k], t, device_type, vars, min, actions, err)))
				return rc;
		} else if (cJSON_IsArray(t)) {
			for (const cJSON *c = t->child; c; c = c->next)
				if ((rc = add_action(kinds[k], c, device_type, vars, min, actions, err)))
					return rc;
		} else {
			return kvb_error_set(err, KVB_EINPUT, "LAVA device type %s: the template has no %s action",
					     device_type, kinds[k]);
		}
	}
	return KVB_OK;
}
