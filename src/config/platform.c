/* Implements platform.yaml loading and validation (docs/design.md#platforms). */
#include "config/platform.h"
#include "config/catalog.h"
#include "config/platform_check.h"
#include "core/datadir.h"
#include "core/suggest.h"
#include "core/error.h"
#include "core/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct kvb_keydef platform_keys[] = {
	{ "name", KVB_T_STR, NULL, NULL, KVB_KEY_REQUIRED, "platform name (matches its directory)" },
	{ "description", KVB_T_STR, NULL, NULL, 0, "one line shown by `platform list`" },
	{ "connection", KVB_T_MAP, NULL, NULL, 0, "how to reach the board: {type: TYPE, ...} (required unless boards: gives one per board); `kvbench help TYPE` lists a type's keys" },
	{ "boards", KVB_T_LIST, NULL, NULL, 0, "a pool of boards of this kind: [{name, connection}], each connection laid over `connection` (docs/design.md#pools-and-lava)" },
	{ "flash", KVB_T_MAP, NULL, NULL, 0, "how to install a variant: {method: METHOD, ...}; `kvbench help METHOD` lists a method's keys" },
	{ "boot", KVB_T_MAP, NULL, NULL, 0, "{timeout_s, ready, expect}" },
	{ "topology", KVB_T_MAP, NULL, NULL, 0, "{clusters: [{name, cpus}]}" },
	{ "setup", KVB_T_MAP, NULL, NULL, 0, "runtime knobs applied after every boot (governor, sysfs, sysctl)" },
	{ "build", KVB_T_MAP, NULL, NULL, 0, "how git variants are built when the agenda has no build: (src/kbuild/kbuild.h)" },
	{ "instruments", KVB_T_MAP, NULL, NULL, 0, "instruments available on this board" },
	{ "workdir", KVB_T_STR, "/tmp/kvbench", NULL, 0, "directory on the target for pushed files" },
	{ "arch", KVB_T_STR, NULL, "x86|arm64|arm|riscv", 0,
	  "the board's kernel architecture (make ARCH=): a variant's kernel of another one fails before it is flashed" },
	{ "sysfs_root", KVB_T_STR, "", NULL, 0,
	  "path prefix of /sys and /proc on the target for every reader of them and sysctl knobs (tests point it "
	  "at a fake tree)" },
	{ "energy_model", KVB_T_MAP, NULL, NULL, 0, "per cluster frequency (kHz) -> active power (mW)" },
	{ "lava", KVB_T_MAP, NULL, NULL, 0,
	  "LAVA job definitions (connection type lava): {device_types: {TYPE: {deploy, boot, context}}, priority, "
	  "visibility, ...}; `kvbench help lava` lists its keys" },
	{ "thermal", KVB_T_MAP, NULL, NULL, 0,
	  "thermal witness around every job: {max_temp_mc, refuse_capped} (engine/thermal.h)" },
	{ "cgroup", KVB_T_MAP, NULL, NULL, 0, "cgroups kvbench creates (cgroup_depth): {rt_runtime_us}" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static const struct kvb_keydef thermal_keys[] = {
	{ "max_temp_mc", KVB_T_INT, NULL, NULL, KVB_KEY_POSITIVE,
	  "a thermal zone above this many millidegrees C before or after a job fails the job" },
	{ "refuse_capped", KVB_T_BOOL, "false", NULL, 0,
	  "fail a job during which a cooling device was active or a policy's scaling_max_freq dropped" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static const struct kvb_keydef cgroup_keys[] = {
	{ "rt_runtime_us", KVB_T_INT, NULL, NULL, KVB_KEY_POSITIVE,
	  "RT budget (us per cpu.rt_period_us) of each cgroup kvbench creates under a v1 cpu hierarchy with "
	  "RT group scheduling; default: all the parent's budget its other groups leave free" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static const struct kvb_keydef conn_type_key = { "type", KVB_T_STR, NULL, NULL, KVB_KEY_REQUIRED, "target backend" };

static const struct kvb_keydef boot_keys[] = {
	{ "timeout_s", KVB_T_INT, "180", NULL, KVB_KEY_POSITIVE, "how long a boot may take, s" },
	{ "ready", KVB_T_STR, NULL, NULL, 0, "command that tells the board is ready" },
	{ "expect", KVB_T_STR, NULL, NULL, 0, "expected output of the ready command" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static const struct kvb_keydef cluster_keys[] = {
	{ "name", KVB_T_STR, NULL, NULL, KVB_KEY_REQUIRED, "cluster name" },
	{ "cpus", KVB_T_STR, NULL, NULL, KVB_KEY_REQUIRED, "CPU list" },
	{ "core", KVB_T_STR, NULL, NULL, 0, "core type, e.g. cortex-a53" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static const struct kvb_keydef topo_keys[] = {
	{ "clusters", KVB_T_LIST, NULL, NULL, 0, "list of {name, cpus}" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

char *kvb_platform_user_dir(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	if (xdg && *xdg == '/')
		return kvb_xasprintf("%s/kvbench/platforms", xdg);
	return kvb_xasprintf("%s/.config/kvbench/platforms", home && *home ? home : "");
}

/* The search path, in order: $KVB_PLATFORM_PATH entries, ./platforms, the user's platforms
 * (kvb_platform_user_dir: where `platform new` writes), the shipped ones (core/datadir.h:
 * <prefix>/share/kvbench/platforms when installed, the source tree's from a build tree). */
static void search_path(struct kvb_strv *out)
{
	const char *env = getenv("KVB_PLATFORM_PATH");
	char *user = kvb_platform_user_dir();
	if (env && *env) {
		char *copy = kvb_xstrdup(env), *save = NULL;
		for (char *tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save))
			kvb_strv_push(out, tok);
		free(copy);
	}
	kvb_strv_push(out, "platforms");
	kvb_strv_push(out, user);
	kvb_strv_pushf(out, "%s/platforms", kvb_data_dir());
	free(user);
}

int kvb_platform_dir_searched(const char *dir)
{
	struct kvb_strv sp = KVB_STRV_INIT;
	char *want = realpath(dir, NULL);
	int found = 0;
	search_path(&sp);
	for (size_t i = 0; want && i < sp.n && found != 1; i++) {
		char *have = realpath(sp.v[i], NULL);
		if (have && !strcmp(have, want))
			found = sp.v[i][0] == '/' ? 1 : 2; /* 2: through ./platforms, relative to this directory */
		free(have);
	}
	free(want);
	kvb_strv_release(&sp);
	return found;
}

static char *platform_file_in(const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/') /* "platforms/x/" names platforms/x/platform.yaml, not ...x//... */
		n--;
	char *f = kvb_xasprintf("%.*s/platform.yaml", (int)n, dir);
	if (kvb_is_file(f))
		return f;
	free(f);
	f = kvb_xasprintf("%.*s/platform.json", (int)n, dir);
	if (kvb_is_file(f))
		return f;
	free(f);
	return NULL;
}

char *kvb_platform_find_dir(const char *name)
{
	struct kvb_strv sp = KVB_STRV_INIT;
	char *found = NULL;
	if (strchr(name, '/') || !*name || name[0] == '.')
		return NULL;
	search_path(&sp);
	for (size_t i = 0; i < sp.n && !found; i++) {
		char *d = kvb_xasprintf("%s/%s", sp.v[i], name), *f = platform_file_in(d);
		if (f)
			found = d;
		else
			free(d);
		free(f);
	}
	kvb_strv_release(&sp);
	return found;
}

void kvb_platform_each(void (*fn)(const char *name, const char *dir, void *arg), void *arg)
{
	struct kvb_strv sp = KVB_STRV_INIT, seen = KVB_STRV_INIT;
	search_path(&sp);
	for (size_t i = 0; i < sp.n; i++) {
		struct dirent **ents = NULL;
		int n = scandir(sp.v[i], &ents, NULL, alphasort);
		for (int j = 0; j < n; j++) {
			const char *nm = ents[j]->d_name;
			int dup = nm[0] == '.';
			for (size_t k = 0; k < seen.n && !dup; k++)
				dup = !strcmp(seen.v[k], nm);
			if (!dup) {
				char *d = kvb_xasprintf("%s/%s", sp.v[i], nm), *f = platform_file_in(d);
				if (f) {
					kvb_strv_push(&seen, nm);
					fn(nm, d, arg);
				}
				free(f);
				free(d);
			}
			free(ents[j]);
		}
		free(ents);
	}
	kvb_strv_release(&sp);
	kvb_strv_release(&seen);
}

/* The keys of a backend's section (connection:, flash:) other than the one that picks the
 * backend, checked against that backend's own table (keys); what/name word the messages. */
static void check_backend_keys(const cJSON *map, const char *section, const char *selector,
			       const struct kvb_keydef *keys, const char *what, const char *name, struct kvb_diag *d)
{
	for (const cJSON *kv = map->child; kv; kv = kv->next) {
		char *path;
		const struct kvb_keydef *def;
		if (!strcmp(kv->string, selector))
			continue;
		path = kvb_path_key(section, kv->string);
		def = kvb_keydef_find(keys, kv->string);
		if (!def) {
			struct kvb_strv known = KVB_STRV_INIT;
			char dym[160];
			for (const struct kvb_keydef *k = keys; k && k->key; k++)
				kvb_strv_push(&known, k->key);
			kvb_diag_at(d, path, "unknown key '%s' for %s %s%s", kv->string, what, name,
				    kvb_did_you_mean(dym, sizeof(dym), kv->string, (const char *const *)known.v, known.n));
			kvb_strv_release(&known);
		} else {
			kvb_value_check(kv, path, def, d);
		}
		free(path);
	}
	for (const struct kvb_keydef *def = keys; def && def->key; def++)
		if ((def->flags & KVB_KEY_REQUIRED) && !cJSON_GetObjectItemCaseSensitive(map, def->key))
			kvb_diag_at(d, section, "missing required key '%s' for %s %s", def->key, what, name);
}

/* Checks one connection mapping found at `where` ("connection", "boards[1].connection"); *type_out gets its backend name. */
static void check_connection(const struct kvb_catalog *cat, const cJSON *conn, const char *where, const char **type_out,
			     struct kvb_diag *d)
{
	const cJSON *type;
	struct kvb_catalog_backend be;
	char *tname, *tpath;
	if (!cJSON_IsObject(conn))
		return;
	type = cJSON_GetObjectItemCaseSensitive(conn, "type");
	if (!type) {
		kvb_diag_at(d, where, "missing required key 'type'");
		return;
	}
	tpath = kvb_path_key(where, "type");
	if (kvb_value_check(type, tpath, &conn_type_key, d)) {
		free(tpath);
		return;
	}
	/* a string-typed key also accepts a YAML number (`type: 3`): compare its text */
	tname = kvb_node_str(type);
	if (kvb_catalog_find_target(cat, tname, &be)) {
		char *names = kvb_catalog_names(cat, 't', "|");
		char *near = kvb_suggest_choices(tname, names);
		kvb_diag_at(d, tpath, "unknown target type \"%s\" (known: %s)%s%s%s", tname, names,
			    near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
		free(near);
		free(names);
		free(tname);
		free(tpath);
		return;
	}
	free(tname);
	free(tpath);
	*type_out = be.name;
	check_backend_keys(conn, where, "type", be.keys, "connection type", be.name, d);
}

/* flash: {method, ...}: the method is one of the catalog's flash methods (the choices listed from
 * that registry), the other keys are that flasher's own, then its own checks. */
static void check_flash(struct kvb_platform *p, struct kvb_diag *d)
{
	struct kvb_keydef method = { "method", KVB_T_STR, "none", NULL, 0, "flasher backend" };
	struct kvb_catalog_backend fl, tg;
	const cJSON *m;
	char *mname, *names;
	if (!cJSON_IsObject(p->flash)) {
		kvb_keys_check(p->flash, "flash", NULL, d); /* says "expected mapping" */
		return;
	}
	names = kvb_catalog_names(p->catalog, 'f', "|");
	method.choices = names;
	m = cJSON_GetObjectItemCaseSensitive(p->flash, "method");
	if (m && kvb_value_check(m, "flash.method", &method, d)) {
		free(names);
		return;
	}
	free(names);
	mname = m ? kvb_node_str(m) : kvb_xstrdup("none");
	if (kvb_catalog_find_flasher(p->catalog, mname, &fl)) {
		free(mname);
		return;
	}
	free(mname);
	p->flash_method = fl.name;
	if (!kvb_catalog_find_target(p->catalog, p->conn_type, &tg) && (tg.caps & fl.caps) != fl.caps)
		kvb_diag_at(d, "flash.method", "method %s needs a connection that %s; connection type %s does not",
			    fl.name, p->catalog->target_caps_describe(fl.caps), p->conn_type);
	check_backend_keys(p->flash, "flash", "method", fl.keys, "flash method", fl.name, d);
	if (fl.check)
		fl.check(p, d);
}

static void load_topology(struct kvb_platform *p, const cJSON *topo, struct kvb_diag *d)
{
	const cJSON *cl;
	int i = 0;
	if (!topo || kvb_keys_check(topo, "topology", topo_keys, d))
		return;
	cl = cJSON_GetObjectItemCaseSensitive(topo, "clusters");
	if (!cl)
		return;
	p->clusters = kvb_xcalloc((size_t)cJSON_GetArraySize(cl) + 1, sizeof(*p->clusters));
	for (const cJSON *c = cl->child; c; c = c->next, i++) {
		char *path = kvb_path_idx("topology.clusters", i);
		if (!kvb_keys_check(c, path, cluster_keys, d)) {
			p->clusters[p->nclusters].name = kvb_node_str(cJSON_GetObjectItemCaseSensitive(c, "name"));
			p->clusters[p->nclusters].cpus = kvb_node_str(cJSON_GetObjectItemCaseSensitive(c, "cpus"));
			if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(c, "core")))
				p->clusters[p->nclusters].core = kvb_node_str(cJSON_GetObjectItemCaseSensitive(c, "core"));
			p->nclusters++;
		}
		free(path);
	}
}

int kvb_is_secret_key(const char *key)
{
	static const char *const words[] = { "passphrase", "password", "passwd", "secret", "token", "api_key", NULL };
	const char *last = strrchr(key, '_');
	for (size_t i = 0; words[i]; i++)
		if (!strcasecmp(key, words[i]) || (last && !strcasecmp(last + 1, words[i])))
			return 1;
	return 0;
}

static void redact(cJSON *n)
{
	cJSON *next;
	for (cJSON *c = n ? n->child : NULL; c; c = next) {
		next = c->next; /* c is freed when replaced */
		if (c->string && kvb_is_secret_key(c->string)) {
			char *key = kvb_xstrdup(c->string); /* c and its name are freed by the replacement */
			cJSON_ReplaceItemInObjectCaseSensitive(n, key, cJSON_CreateString("<redacted>"));
			free(key);
		} else {
			redact(c);
		}
	}
}

cJSON *kvb_redact_secrets(const cJSON *root)
{
	cJSON *copy = cJSON_Duplicate(root, 1);
	redact(copy);
	return copy;
}

/* Path ("connection.passphrase") of the first secret with a value under n, or NULL. Owned. */
static char *first_secret(const cJSON *n, const char *path)
{
	int i = 0;
	for (const cJSON *c = n ? n->child : NULL; c; c = c->next, i++) {
		char *cp = c->string ? kvb_path_key(path, c->string) : kvb_path_idx(path, i), *found;
		if (c->string && kvb_is_secret_key(c->string) && !cJSON_IsNull(c) &&
		    !(cJSON_IsString(c) && !*c->valuestring))
			return cp;
		found = first_secret(c, cp);
		free(cp);
		if (found)
			return found;
	}
	return NULL;
}

/* A secret in a file others can read is a secret no more: say so (a warning, the file still loads). */
static void warn_readable_secret(const struct kvb_platform *p, struct kvb_diag *d)
{
	struct stat st;
	char *path;
	if (stat(p->file, &st) || !(st.st_mode & 077) || !(path = first_secret(p->doc.root, "")))
		return;
	kvb_diag_warn_at(d, path, "holds a secret but %s is readable by group/others (mode %04o); run `chmod 600 %s`",
			 p->file, (unsigned)(st.st_mode & 07777), p->file);
	free(path);
}

static void collect_name(const char *name, const char *dir, void *arg)
{
	(void)dir;
	kvb_strv_push(arg, name);
}

/* For a path that is not a platform: the platform directories beside it ("DIR/NAME"), as candidates. */
static void sibling_platforms(const char *path, struct kvb_strv *out)
{
	char *copy = kvb_xstrdup(path), *slash;
	struct dirent *de;
	DIR *dir;
	while ((slash = strrchr(copy, '/')) && slash[1] == '\0' && slash != copy)
		*slash = '\0'; /* "plt/" -> "plt" */
	slash = strrchr(copy, '/');
	if (slash) {
		*slash = '\0';
		dir = opendir(slash == copy ? "/" : copy);
		while (dir && (de = readdir(dir))) {
			char *cand = kvb_xasprintf("%s/%s", copy, de->d_name), *f;
			if (de->d_name[0] != '.' && (f = platform_file_in(cand))) {
				kvb_strv_push(out, cand);
				free(f);
			}
			free(cand);
		}
		if (dir)
			closedir(dir);
	}
	free(copy);
}

static const struct kvb_keydef board_keys[] = {
	{ "name", KVB_T_STR, NULL, NULL, 0, "board name (stored per boot; default <platform>#<index>)" },
	{ "connection", KVB_T_MAP, NULL, NULL, KVB_KEY_REQUIRED, "keys laid over the platform's connection for this board" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

/*
 * boards: [{name, connection}] (docs/design.md#pools-and-lava): every board's connection is the
 * platform's `connection` with the board's keys laid over it, checked as a
 * whole. Boards are of one kind: one connection type for all.
 */
static void load_boards(struct kvb_platform *p, struct kvb_diag *d)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(p->doc.root, "boards");
	size_t n = (size_t)cJSON_GetArraySize(list);
	if (!cJSON_IsArray(list) || !n) {
		kvb_diag_at(d, "boards", "must be a non-empty list of {name, connection}");
		return;
	}
	p->boards = kvb_xcalloc(n, sizeof(*p->boards));
	for (const cJSON *b = list->child; b; b = b->next) {
		char *where = kvb_xasprintf("boards[%zu]", p->nboards), *cwhere;
		struct kvb_board *bd = &p->boards[p->nboards++];
		const cJSON *bc = cJSON_GetObjectItemCaseSensitive(b, "connection");
		const char *name = kvb_get_str(b, "name", NULL);
		if (!cJSON_IsObject(b) || kvb_keys_check(b, where, board_keys, d) || !cJSON_IsObject(bc)) {
			if (!cJSON_IsObject(b))
				kvb_diag_at(d, where, "must be a mapping {name, connection}");
			free(where);
			continue;
		}
		bd->name = name ? kvb_xstrdup(name) : kvb_xasprintf("%s#%zu", p->name, p->nboards);
		for (size_t k = 0; k + 1 < p->nboards; k++)
			if (p->boards[k].name && !strcmp(p->boards[k].name, bd->name))
				kvb_diag_at(d, where, "board name '%s' is used twice", bd->name);
		bd->conn = p->conn ? cJSON_Duplicate(p->conn, 1) : cJSON_CreateObject();
		for (const cJSON *kv = bc->child; kv; kv = kv->next) {
			cJSON_DeleteItemFromObjectCaseSensitive(bd->conn, kv->string);
			cJSON_AddItemToObject(bd->conn, kv->string, cJSON_Duplicate(kv, 1));
		}
		cwhere = kvb_path_key(where, "connection");
		bd->conn_type = "local";
		check_connection(p->catalog, bd->conn, cwhere, &bd->conn_type, d);
		if (p->nboards > 1 && strcmp(bd->conn_type, p->boards[0].conn_type))
			kvb_diag_at(d, cwhere, "type %s differs from boards[0]'s %s: a pool holds boards of one kind",
				    bd->conn_type, p->boards[0].conn_type);
		free(cwhere);
		free(where);
	}
	if (p->nboards && p->boards[0].conn) {
		p->conn = p->boards[0].conn;
		p->conn_type = p->boards[0].conn_type;
	}
}

void kvb_platform_board_view(const struct kvb_platform *p, size_t i, struct kvb_platform *out)
{
	*out = *p;
	out->boards = NULL;
	out->nboards = 0;
	if (i < p->nboards && p->boards[i].conn) {
		out->conn = p->boards[i].conn;
		out->conn_type = p->boards[i].conn_type;
	}
}

/* The line and column of a "FILE:LINE:COL: ..." message of file; a message without them sorts last. */
static long msg_pos(const char *msg, const char *file)
{
	size_t n = strlen(file);
	long line, col;
	char *end;
	if (strncmp(msg, file, n) || msg[n] != ':')
		return 1L << 40;
	line = strtol(msg + n + 1, &end, 10);
	if (*end != ':')
		return 1L << 40;
	col = strtol(end + 1, &end, 10);
	return line * 100000 + (col < 100000 ? col : 99999);
}

/* The messages from first on in the order of the file (stable: one place's messages keep theirs). */
static void sort_msgs(struct kvb_diag *d, size_t first, const char *file)
{
	for (size_t i = first + 1; i < d->msgs.n; i++) {
		char *m = d->msgs.v[i];
		long pos = msg_pos(m, file);
		size_t j = i;
		while (j > first && msg_pos(d->msgs.v[j - 1], file) > pos) {
			d->msgs.v[j] = d->msgs.v[j - 1];
			j--;
		}
		d->msgs.v[j] = m;
	}
}

int kvb_platform_load(struct kvb_platform *p, const char *name_or_path, const struct kvb_catalog *cat,
		      struct kvb_diag *d)
{
	char *dir = NULL, *file = NULL;
	const cJSON *root, *v;
	size_t before = d->msgs.n;
	int rc;

	memset(p, 0, sizeof(*p));
	p->catalog = cat;
	kvb_runtime_init(&p->setup);
	if (kvb_is_file(name_or_path)) {
		file = kvb_xstrdup(name_or_path);
		char *slash = strrchr(file, '/');
		dir = slash ? kvb_xstrndup(file, (size_t)(slash - file)) : kvb_xstrdup(".");
	} else if (kvb_is_dir(name_or_path) && (file = platform_file_in(name_or_path))) {
		dir = kvb_xstrdup(name_or_path);
	} else if ((dir = kvb_platform_find_dir(name_or_path))) {
		file = platform_file_in(dir);
	} else {
		struct kvb_strv names = KVB_STRV_INIT;
		char dym[300];
		kvb_platform_each(collect_name, &names);
		if (strchr(name_or_path, '/'))
			sibling_platforms(name_or_path, &names);
		char *user = kvb_platform_user_dir();
		kvb_strv_pushf(&d->msgs, "platform '%s' not found%s (searched $KVB_PLATFORM_PATH, ./platforms, %s, "
					 "%s/platforms; `kvbench platform list` shows the known ones; a path names a file "
					 "or directory anywhere)",
			       name_or_path,
			       kvb_did_you_mean(dym, sizeof(dym), name_or_path, (const char *const *)names.v, names.n),
			       user, kvb_data_dir());
		free(user);
		kvb_strv_release(&names);
		return KVB_EINPUT;
	}
	{
		/* absolute: hooks run with the platform directory as their cwd, so a relative one would not resolve */
		char *abs = realpath(dir, NULL);
		if (abs) {
			free(dir);
			dir = abs;
		}
	}
	p->dir = dir;
	p->file = file;
	rc = kvb_doc_load(&p->doc, file, d);
	if (rc)
		return rc;
	root = p->doc.root;
	kvb_keys_check(root, "", platform_keys, d);
	/* the topology first: the connection's and the instruments' checks compare with it */
	load_topology(p, cJSON_GetObjectItemCaseSensitive(root, "topology"), d);
	kvb_platform_check_topology(p, d);
	p->name = kvb_node_str(cJSON_GetObjectItemCaseSensitive(root, "name"));
	if (!p->name)
		p->name = kvb_xstrdup("?");
	p->conn = cJSON_GetObjectItemCaseSensitive(root, "connection");
	p->conn_type = "local";
	if (cJSON_GetObjectItemCaseSensitive(root, "boards"))
		load_boards(p, d);
	else if (!p->conn)
		kvb_diag_at(d, "", "missing required key 'connection'");
	else
		check_connection(p->catalog, p->conn, "connection", &p->conn_type, d);
	p->flash = cJSON_GetObjectItemCaseSensitive(root, "flash");
	p->flash_method = "none";
	if (p->flash)
		check_flash(p, d);
	{
		/* the connection backend's own checks (the blocks it reads beyond connection:) */
		struct kvb_catalog_backend tg;
		if (!kvb_catalog_find_target(p->catalog, p->conn_type, &tg) && tg.check)
			tg.check(p, d);
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "boot");
	p->boot_timeout_s = 180;
	if (v && !kvb_keys_check(v, "boot", boot_keys, d)) {
		p->boot_timeout_s = (int)kvb_get_int(v, "timeout_s", 180);
		p->boot_ready = kvb_get_str(v, "ready", NULL);
		p->boot_expect = kvb_get_str(v, "expect", NULL);
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "setup");
	if (v)
		kvb_runtime_merge_json(&p->setup, v, "setup", d);
	v = cJSON_GetObjectItemCaseSensitive(root, "thermal");
	if (v && !kvb_keys_check(v, "thermal", thermal_keys, d))
		p->thermal = v;
	v = cJSON_GetObjectItemCaseSensitive(root, "cgroup");
	if (v && !kvb_keys_check(v, "cgroup", cgroup_keys, d))
		p->cgroup_rt_runtime_us = kvb_get_int(v, "rt_runtime_us", 0);
	p->instruments = cJSON_GetObjectItemCaseSensitive(root, "instruments");
	p->catalog->check_instruments(p, d);
	p->workdir = kvb_get_str(root, "workdir", "/tmp/kvbench");
	p->sysfs_root = kvb_get_str(root, "sysfs_root", "");
	p->arch = kvb_get_str(root, "arch", NULL);
	if (p->workdir[0] != '/')
		kvb_diag_at(d, "workdir", "must be an absolute path");
	warn_readable_secret(p, d);
	sort_msgs(d, before, p->doc.file);
	return d->msgs.n > before ? KVB_EINPUT : KVB_OK;
}

void kvb_platform_keys_print(FILE *f)
{
	fprintf(f, "keys (top level):\n");
	kvb_keys_print(f, platform_keys, "  ");
	fprintf(f, "\nboot:\n");
	kvb_keys_print(f, boot_keys, "  ");
	fprintf(f, "\ntopology:\n");
	kvb_keys_print(f, topo_keys, "  ");
	fprintf(f, "\ntopology.clusters[]:\n");
	kvb_keys_print(f, cluster_keys, "  ");
	fprintf(f, "\nboards[]:\n");
	kvb_keys_print(f, board_keys, "  ");
	fprintf(f, "\nthermal:\n");
	kvb_keys_print(f, thermal_keys, "  ");
	fprintf(f, "\ncgroup:\n");
	kvb_keys_print(f, cgroup_keys, "  ");
}

void kvb_platform_release(struct kvb_platform *p)
{
	for (size_t i = 0; i < p->nboards; i++) {
		free(p->boards[i].name);
		cJSON_Delete(p->boards[i].conn);
	}
	free(p->boards);
	for (size_t i = 0; i < p->nclusters; i++) {
		free(p->clusters[i].name);
		free(p->clusters[i].cpus);
		free(p->clusters[i].core);
	}
	free(p->clusters);
	kvb_runtime_release(&p->setup);
	kvb_doc_release(&p->doc);
	free(p->name);
	free(p->dir);
	free(p->file);
	memset(p, 0, sizeof(*p));
}
