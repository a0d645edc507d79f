/* Implements runtime knobs on a target: value writes with restore, cgroup nesting, affinity wrap. */
#include "engine/knobs.h"
#include "core/log.h"
#include "core/buf.h"
#include "core/util.h"
#include "engine/affinity.h"
#include "engine/cpufreq_plan.h"

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
	kvb_cgroup_hier_release(&k->cg);
	free(k->cg_expect);
	free(k->cg_report);
	k->cg_expect = k->cg_report = NULL;
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

/* Enables +cpu in a cgroup2 directory's subtree_control unless it is on already; failing fails the job. */
static int enable_cpu(struct kvb_target *t, const char *dir, struct kvb_error *err)
{
	char *ctl = kvb_xasprintf("%s/cgroup.subtree_control", dir), *cur = NULL;
	int rc = KVB_OK, on = 0;
	if (!kvb_target_read(t, ctl, &cur, err) && cur)
		for (char *s = cur, *save = NULL, *w; !on && (w = strtok_r(s, " \t\r\n", &save)); s = NULL)
			on = !strcmp(w, "cpu");
	if (!on && kvb_target_write(t, ctl, "+cpu", err))
		rc = kvb_error_prefix(err, "cgroup_depth: cannot enable the cpu controller in %s", dir);
	free(cur);
	free(ctl);
	return rc;
}

/*
 * Creates kvbench-<tag>/l2/.../lN under the hierarchy that has the cpu
 * controller (engine/cgroup.h) and records in k what the workload's
 * /proc/PID/cgroup must say.
 */
static int setup_cgroup(struct kvb_target *t, int depth, const char *tag, struct kvb_knob_state *k, char **procs,
			struct kvb_error *err)
{
	struct kvb_buf rel = KVB_BUF_INIT;
	char *cur;
	int rc;
	if ((rc = kvb_cgroup_find(t, &k->cg, err)))
		return rc;
	cur = kvb_xstrdup(k->cg.mount);
	for (int level = 1; level <= depth && !rc; level++) {
		char *next;
		const char *mk[] = { "mkdir", "-p", NULL, NULL };
		struct kvb_exec_result r;
		if (level == 1)
			kvb_buf_addf(&rel, "/kvbench-%s", tag);
		else
			kvb_buf_addf(&rel, "/l%d", level);
		next = kvb_xasprintf("%s%s", k->cg.mount, rel.data);
		/* without +cpu the nesting exists but cpu time is not divided by it: a depth not tested */
		if (k->cg.v2 && (rc = enable_cpu(t, cur, err))) {
			free(next);
			break;
		}
		mk[2] = next;
		kvb_exec_result_init(&r);
		rc = kvb_target_run_ok(t, mk, 30000, &r, err);
		kvb_exec_result_release(&r);
		if (!rc)
			kvb_strv_push(&k->cgdirs, next);
		free(cur);
		cur = next;
	}
	if (!rc) {
		*procs = kvb_xasprintf("%s/cgroup.procs", cur);
		free(k->cg_expect);
		k->cg_expect = kvb_xstrdup(rel.len ? rel.data : "/");
	}
	free(cur);
	kvb_buf_release(&rel);
	return rc;
}

int kvb_knobs_check_cgroup(struct kvb_target *t, const struct kvb_knob_state *k, char **where, struct kvb_error *err)
{
	char *txt = NULL, *got;
	int rc;
	*where = NULL;
	if (!k->cg_expect || !k->cg_report)
		return KVB_OK;
	if (kvb_target_read(t, k->cg_report, &txt, err) || !txt || !*txt) {
		free(txt);
		return kvb_error_set(err, KVB_ETARGET,
				     "cgroup_depth: the workload left no /proc/PID/cgroup record (%s): it did not run through "
				     "the cgroup wrapper",
				     k->cg_report);
	}
	got = kvb_cgroup_proc_path(txt, &k->cg);
	if (!got)
		rc = kvb_error_set(err, KVB_ETARGET, "cgroup_depth: the workload's /proc/PID/cgroup has no line for %s (%s)",
				   k->cg.mount, k->cg.v2 ? "cgroup2" : k->cg.controllers);
	else if (strcmp(got, k->cg_expect))
		rc = kvb_error_set(err, KVB_ETARGET, "cgroup_depth: the workload ran in %s of %s, not in %s", got,
				   k->cg.mount, k->cg_expect);
	else {
		rc = KVB_OK;
		*where = strcmp(got, "/") ? kvb_xasprintf("%s%s", k->cg.mount, got) : kvb_xstrdup(k->cg.mount);
	}
	free(got);
	free(txt);
	return rc;
}

int kvb_knobs_apply(struct kvb_target *t, const struct kvb_runtime *rt, const char *tag, struct kvb_knob_state *k,
		    struct kvb_error *err)
{
	int rc = kvb_runtime_check_applicable(rt, err);
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
	if (!rc && (rt->sysfs || rt->governor || rt->cpufreq)) {
		/* governors first, then frequencies, then the other sysfs values (engine/cpufreq_plan.h) */
		struct kvb_exec_result r;
		struct kvb_write_plan wp;
		kvb_exec_result_init(&r);
		if (rt->governor || rt->cpufreq)
			rc = kvb_target_run_ok(t, kvb_cpufreq_list_argv, 30000, &r, err);
		if (!rc)
			rc = kvb_cpufreq_plan(rt, r.out.data, k->clusters, k->nclusters, &wp, err);
		if (!rc) {
			for (size_t i = 0; i < wp.warnings.n; i++)
				kvb_warn("%s", wp.warnings.v[i]);
			for (size_t i = 0; i < wp.paths.n && !rc; i++)
				rc = write_knob(t, k, wp.paths.v[i], wp.values.v[i], err);
			kvb_write_plan_release(&wp);
		}
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
		if (k->cg_report) {
			/* the workload's own /proc/PID/cgroup (exec keeps the pid) goes to cg_report for the check */
			kvb_strv_push(&k->wrap, "echo $$ > \"$1\" || exit 125; cat /proc/$$/cgroup > \"$2\" || exit 125; "
						"shift 2; exec \"$@\"");
			kvb_strv_push(&k->wrap, "kvb-cgroup");
			kvb_strv_push(&k->wrap, procs);
			kvb_strv_push(&k->wrap, k->cg_report);
		} else {
			kvb_strv_push(&k->wrap, "echo $$ > \"$1\" || exit 125; shift; exec \"$@\"");
			kvb_strv_push(&k->wrap, "kvb-cgroup");
			kvb_strv_push(&k->wrap, procs);
		}
		free(procs);
	}
	if (rt->cpus && (rc = kvb_affinity_wrap(t, rt->cpus, &k->wrap, err))) {
		struct kvb_error ignore;
		kvb_knobs_restore(t, k, &ignore);
		return rc;
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
