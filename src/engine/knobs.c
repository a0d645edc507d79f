/* Implements runtime knobs on a target: value writes with restore, cgroup nesting, affinity wrap. */
#include "engine/knobs.h"
#include "core/log.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

void kvb_knob_state_init(struct kvb_knob_state *k)
{
	memset(k, 0, sizeof(*k));
}

void kvb_knob_state_release(struct kvb_knob_state *k)
{
	kvb_strv_release(&k->paths);
	kvb_strv_release(&k->olds);
	kvb_strv_release(&k->wrap);
	kvb_strv_release(&k->cgdirs);
}

static int write_knob(struct kvb_target *t, struct kvb_knob_state *k, const char *path, const char *value,
		      struct kvb_error *err)
{
	char *old = NULL;
	int rc = kvb_target_read(t, path, &old, err);
	if (rc)
		return kvb_error_prefix(err, "runtime knob %s", path);
	if (k->on_save)
		k->on_save(k->cb_arg, path, old);
	rc = kvb_target_write(t, path, value, err);
	if (rc) {
		free(old);
		return rc;
	}
	kvb_strv_push(&k->paths, path);
	kvb_strv_push(&k->olds, old);
	free(old);
	return KVB_OK;
}

/* Finds the cgroup hierarchy: "v2 /sys/fs/cgroup" or "v1 /sys/fs/cgroup/cpu". */
static int cgroup_root(struct kvb_target *t, char **root, int *v2, struct kvb_error *err)
{
	static const char *const argv[] = {
		"sh", "-c",
		"if [ -f /sys/fs/cgroup/cgroup.controllers ]; then echo v2 /sys/fs/cgroup;"
		" elif [ -f /sys/fs/cgroup/cpu/cgroup.procs ]; then echo v1 /sys/fs/cgroup/cpu;"
		" elif [ -f /sys/fs/cgroup/cpu,cpuacct/cgroup.procs ]; then echo v1 /sys/fs/cgroup/cpu,cpuacct;"
		" else echo none; fi",
		NULL
	};
	struct kvb_exec_result r;
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_target_run_ok(t, argv, 30000, &r, err);
	if (!rc) {
		char *nl = strchr(r.out.data, '\n');
		if (nl)
			*nl = '\0';
		if (!strncmp(r.out.data, "v2 ", 3) || !strncmp(r.out.data, "v1 ", 3)) {
			*v2 = r.out.data[1] == '2';
			*root = kvb_xstrdup(r.out.data + 3);
		} else {
			rc = kvb_error_set(err, KVB_ETARGET, "cgroup_depth: no cgroup v2 or v1 cpu hierarchy on the target");
		}
	}
	kvb_exec_result_release(&r);
	return rc;
}

static int setup_cgroup(struct kvb_target *t, int depth, const char *tag, struct kvb_knob_state *k, char **procs,
			struct kvb_error *err)
{
	char *root = NULL, *cur;
	int v2 = 0, rc;
	if ((rc = cgroup_root(t, &root, &v2, err)))
		return rc;
	cur = kvb_xstrdup(root);
	for (int level = 1; level <= depth && !rc; level++) {
		char *next = level == 1 ? kvb_xasprintf("%s/kvbench-%s", cur, tag) : kvb_xasprintf("%s/l%d", cur, level);
		const char *mk[] = { "mkdir", "-p", next, NULL };
		struct kvb_exec_result r;
		if (v2) {
			char *ctl = kvb_xasprintf("%s/cgroup.subtree_control", cur);
			struct kvb_error ignore;
			/* Without +cpu the nesting still exists but cpu accounting is flat: warn, go on. */
			if (kvb_target_write(t, ctl, "+cpu", &ignore))
				kvb_warn("cgroup_depth: cannot enable the cpu controller in %s: %s", cur, ignore.msg);
			free(ctl);
		}
		kvb_exec_result_init(&r);
		rc = kvb_target_run_ok(t, mk, 30000, &r, err);
		kvb_exec_result_release(&r);
		if (!rc)
			kvb_strv_push(&k->cgdirs, next);
		free(cur);
		cur = next;
	}
	if (!rc)
		*procs = kvb_xasprintf("%s/cgroup.procs", cur);
	free(cur);
	free(root);
	return rc;
}

int kvb_knobs_apply(struct kvb_target *t, const struct kvb_runtime *rt, const char *tag, struct kvb_knob_state *k,
		    struct kvb_error *err)
{
	int rc = KVB_OK;
	char *procs = NULL;

	for (const cJSON *kv = rt->sysctl ? rt->sysctl->child : NULL; kv && !rc; kv = kv->next) {
		char *path = kvb_xasprintf("/proc/sys/%s", kv->string), *val = kvb_node_str(kv);
		for (char *p = path + 10; *p; p++)
			if (*p == '.')
				*p = '/';
		if (strstr(kv->string, ".."))
			rc = kvb_error_set(err, KVB_EINPUT, "sysctl name '%s' is not valid", kv->string);
		else
			rc = write_knob(t, k, path, val, err);
		free(path);
		free(val);
	}
	for (const cJSON *kv = rt->sysfs ? rt->sysfs->child : NULL; kv && !rc; kv = kv->next) {
		char *val = kvb_node_str(kv);
		rc = write_knob(t, k, kv->string, val, err);
		free(val);
	}
	if (!rc && rt->governor) {
		static const char *const argv[] = { "sh", "-c",
			"for f in /sys/devices/system/cpu/cpufreq/policy*/scaling_governor; do [ -e \"$f\" ] && echo \"$f\"; done; true",
			NULL };
		struct kvb_exec_result r;
		kvb_exec_result_init(&r);
		rc = kvb_target_run_ok(t, argv, 30000, &r, err);
		if (!rc && !r.out.len)
			rc = kvb_error_set(err, KVB_ETARGET, "governor: the target has no cpufreq policies");
		for (char *line = r.out.data, *save = NULL, *tok; !rc && (tok = strtok_r(line, "\n", &save)); line = NULL)
			rc = write_knob(t, k, tok, rt->governor, err);
		kvb_exec_result_release(&r);
	}
	if (!rc && rt->cgroup_depth >= 0)
		rc = setup_cgroup(t, rt->cgroup_depth, tag, k, &procs, err);
	if (rc) {
		struct kvb_error ignore;
		kvb_knobs_restore(t, k, &ignore);
		free(procs);
		return rc;
	}
	if (procs) {
		kvb_strv_push(&k->wrap, "sh");
		kvb_strv_push(&k->wrap, "-c");
		kvb_strv_push(&k->wrap, "echo $$ > \"$1\" || exit 125; shift; exec \"$@\"");
		kvb_strv_push(&k->wrap, "kvb-cgroup");
		kvb_strv_push(&k->wrap, procs);
		free(procs);
	}
	if (rt->cpus) {
		kvb_strv_push(&k->wrap, "taskset");
		kvb_strv_push(&k->wrap, "-c");
		kvb_strv_push(&k->wrap, rt->cpus);
	}
	return KVB_OK;
}

int kvb_knobs_write_back(struct kvb_target *t, const struct kvb_strv *paths, const struct kvb_strv *values,
			 struct kvb_error *err)
{
	int first = KVB_OK;
	struct kvb_error e;
	for (size_t i = paths->n; i-- > 0;) {
		int rc = kvb_target_write(t, paths->v[i], values->v[i], &e);
		if (rc && !first) {
			first = rc;
			*err = e;
		}
	}
	return first;
}

int kvb_knobs_restore(struct kvb_target *t, struct kvb_knob_state *k, struct kvb_error *err)
{
	int first = KVB_OK;
	struct kvb_error e;
	for (size_t i = k->paths.n; i-- > 0;) {
		int rc = kvb_target_write(t, k->paths.v[i], k->olds.v[i], &e);
		if (rc && !first) {
			first = rc;
			*err = e;
		}
		if (!rc && k->on_restored)
			k->on_restored(k->cb_arg, k->paths.v[i]);
	}
	if (k->cgdirs.n) {
		struct kvb_strv rm = KVB_STRV_INIT;
		struct kvb_exec_result r;
		kvb_strv_push(&rm, "rmdir");
		for (size_t i = k->cgdirs.n; i-- > 0;)
			kvb_strv_push(&rm, k->cgdirs.v[i]);
		kvb_exec_result_init(&r);
		int rc = kvb_target_run_ok(t, kvb_strv_argv(&rm), 30000, &r, &e);
		if (rc && !first) {
			first = rc;
			*err = e;
		}
		kvb_exec_result_release(&r);
		kvb_strv_release(&rm);
	}
	kvb_strv_release(&k->paths);
	kvb_strv_release(&k->olds);
	kvb_strv_release(&k->cgdirs);
	return first;
}
