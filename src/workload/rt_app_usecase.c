/*
 * Implements finding the rt-app use case a `config:` names, as WA3's rt_app
 * workload does (wa/workloads/rt_app/__init__.py _get_raw_json_config, commit
 * 251c263c): `config` defaults to "taskset"; ".json" is added to a name that
 * does not end in it; a file at that path is used; otherwise the name is a
 * use case looked up in WA3's resource getters' places, the user directory
 * first (wa/framework/getters.py UserDirectory: $WA_USER_DIRECTORY, default
 * ~/.workload_automation, + dependencies/rt-app/use_cases/) and then the
 * workload's package (Package: wa/workloads/rt_app/use_cases/ of the
 * installed WA3). kvbench looks in $KVB_RTAPP_USE_CASES (a ':' list of
 * directories) before both, so a use case can be given without WA3
 * installed. A name not found is an error listing every place looked in.
 */
#include "workload/rt_app.h"
#include "core/buf.h"
#include "core/spawn.h"
#include "core/util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The installed WA3 package directory (the `wa` module's), "" when python3 has none. */
static char g_wa3_dir[4096];
static pthread_once_t g_wa3_once = PTHREAD_ONCE_INIT;

static void find_wa3(void)
{
	/* find_spec locates the package without importing it (importing wa loads devlib and more) */
	const char *argv[] = { "python3", "-c",
			       "import importlib.util as u\n"
			       "s = u.find_spec('wa')\n"
			       "print(s.submodule_search_locations[0] if s and s.submodule_search_locations else '')",
			       NULL };
	struct kvb_spawn_opts o;
	struct kvb_exec_result r;
	struct kvb_error err;
	memset(&o, 0, sizeof(o));
	o.argv = argv;
	o.timeout_ms = 20000;
	kvb_exec_result_init(&r);
	if (!kvb_spawn_run(&o, &r, &err) && r.exit_code == 0 && r.out.len) {
		size_t n = strcspn(r.out.data, "\n");
		if (n < sizeof(g_wa3_dir))
			snprintf(g_wa3_dir, sizeof(g_wa3_dir), "%.*s", (int)n, r.out.data);
	}
	kvb_exec_result_release(&r);
}

const char *kvb_rtapp_wa3_package_dir(void)
{
	const char *forced = getenv("KVB_WA3_PACKAGE_DIR"); /* tests: where `wa` would be, or "" for none */
	if (forced)
		return forced;
	pthread_once(&g_wa3_once, find_wa3);
	return g_wa3_dir;
}

/* Appends DIR/name to *out when it is a file; records DIR in *looked either way. */
static int try_dir(const char *dir, const char *name, char **out, struct kvb_buf *looked)
{
	char *p = kvb_xasprintf("%s/%s", dir, name);
	kvb_buf_addf(looked, "%s%s", looked->len ? ", " : "", dir);
	if (kvb_is_file(p)) {
		*out = p;
		return 1;
	}
	free(p);
	return 0;
}

int kvb_rtapp_config_path(const char *config, char **path, struct kvb_error *err)
{
	const char *given = config && *config ? config : KVB_RTAPP_DEFAULT_USE_CASE;
	const char *env = getenv("KVB_RTAPP_USE_CASES"), *wa3;
	size_t len = strlen(given);
	char *name, *found = NULL;
	struct kvb_buf looked = KVB_BUF_INIT;
	int rc = KVB_OK;

	*path = NULL;
	/* kvbench's own spelling first: a file at the path as given */
	if (kvb_is_file(given)) {
		*path = kvb_xstrdup(given);
		return KVB_OK;
	}
	name = len >= 5 && !strcmp(given + len - 5, ".json") ? kvb_xstrdup(given) : kvb_xasprintf("%s.json", given);
	if (kvb_is_file(name)) {
		*path = name;
		return KVB_OK;
	}
	kvb_buf_addf(&looked, "the current directory");
	if (!strchr(given, '/')) {
		if (env && *env) {
			char *copy = kvb_xstrdup(env), *save = NULL;
			for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save))
				try_dir(d, name, &found, &looked);
			free(copy);
		}
		if (!found) {
			const char *ud = getenv("WA_USER_DIRECTORY"), *home = getenv("HOME");
			char *dir = ud && *ud ? kvb_xasprintf("%s/dependencies/rt-app/use_cases", ud)
					      : kvb_xasprintf("%s/.workload_automation/dependencies/rt-app/use_cases",
							      home && *home ? home : "");
			try_dir(dir, name, &found, &looked);
			free(dir);
		}
		if (!found && *(wa3 = kvb_rtapp_wa3_package_dir())) {
			char *dir = kvb_xasprintf("%s/workloads/rt_app/use_cases", wa3);
			try_dir(dir, name, &found, &looked);
			free(dir);
		}
	}
	if (found) {
		*path = found;
	} else {
		rc = kvb_error_set(err, KVB_EINPUT,
				   "rt-app config '%s'%s: no file %s in %s%s%s; set KVB_RTAPP_USE_CASES to a directory of "
				   "rt-app use cases (WA3 ships them in wa/workloads/rt_app/use_cases/) or give the "
				   "JSON file's path",
				   given, config && *config ? "" : " (WA3's default use case: no config given)", name,
				   looked.data, strchr(given, '/') ? "" : env && *env ? "" : " ($KVB_RTAPP_USE_CASES unset)",
				   strchr(given, '/') || *kvb_rtapp_wa3_package_dir() ? "" : " (WA3 is not installed: "
				   "python3 finds no module 'wa')");
	}
	free(name);
	kvb_buf_release(&looked);
	return rc;
}
