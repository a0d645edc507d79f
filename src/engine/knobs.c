/* Implements runtime knobs on a target: value writes with restore, cgroup nesting, affinity wrap. */
#include "engine/knobs.h"
#include "core/log.h"
#include "core/buf.h"
#include "core/util.h"
#include "engine/affinity.h"
#include "engine/cpufreq_plan.h"
#include "engine/readback.h"

#include <inttypes.h>
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
	kvb_strv_release(&k->knobs);
	kvb_strv_release(&k->asked);
	kvb_strv_release(&k->found);
	kvb_strv_release(&k->settled);
	kvb_cgroup_hier_release(&k->cg);
	cJSON_Delete(k->recorded);
	k->recorded = NULL;
	free(k->cg_expect);
	free(k->cg_report);
	k->cg_expect = k->cg_report = NULL;
}

static void witness(struct kvb_knob_state *k, const char *path, const char *asked, const char *found,
		    enum kvb_witness_verdict v, const char *detail)
{
	if (k->wit)
		kvb_witness_add(k->wit, "knob", path, asked, found, v, "%s", detail);
}

/*
 * What a knob read back says: agrees (an ok witness), or not: a `recorded` witness and the
 * value found as the knob's classifier when the knob is lenient, else a `failed` witness and
 * KVB_ETARGET naming asked and found. when: "" right after the write, or why it was read later.
 */
static int judge(struct kvb_knob_state *k, const char *knob, const char *path, const char *asked, const char *found,
		 const char *when, struct kvb_error *err)
{
	char *val = kvb_knob_value(found), *msg;
	int rc = KVB_OK;
	if (kvb_knob_agrees(asked, found)) {
		witness(k, path, asked, val, KVB_WIT_OK, knob);
		free(val);
		return KVB_OK;
	}
	msg = kvb_xasprintf("%s: asked %s, kernel has %s%s (%s)", knob, asked, val, when, path);
	if (strcmp(knob, "cgroup") && kvb_readback_lenient(k->readback, knob)) {
		char *d = kvb_xasprintf("%s; readback: record: the job's classifier %s is %s", msg, knob, val);
		witness(k, path, asked, val, KVB_WIT_RECORDED, d);
		if (!k->recorded)
			k->recorded = cJSON_CreateObject();
		cJSON_DeleteItemFromObjectCaseSensitive(k->recorded, knob);
		cJSON_AddStringToObject(k->recorded, knob, val);
		free(d);
	} else {
		witness(k, path, asked, val, KVB_WIT_FAILED, msg);
		rc = kvb_error_set(err, KVB_ETARGET, "%s", msg);
	}
	free(msg);
	free(val);
	return rc;
}

/*
 * Reads path back after writing asked, again up to 10 times 10 ms apart while it disagrees
 * (devlib's write_value waits so for a write the kernel applies late, e.g. hotplug).
 * *found gets the last text read (owned).
 */
static int read_back(struct kvb_target *t, const char *path, const char *asked, char **found, struct kvb_error *err)
{
	int rc = kvb_target_read(t, path, found, err);
	for (int tries = 0; !rc && !t->recording && !kvb_knob_agrees(asked, *found) && tries < 10; tries++) {
		free(*found);
		*found = NULL;
		kvb_sleep_ms(10);
		rc = kvb_target_read(t, path, found, err);
	}
	if (rc)
		kvb_error_prefix(err, "reading %s back", path);
	return rc;
}

static int read_many(struct kvb_target *t, char *const *paths, size_t n, char **outs, struct kvb_error *err);

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

/*
 * Switching a policy's governor frees the old governor's tunables, and switching back makes
 * new ones with the defaults (kernel/sched/cpufreq_schedutil.c sugov_exit/sugov_init:
 * rate_limit_us = the policy's transition delay): a board tuned before the run would lose
 * its tuning with the first job that sets a governor (LISA PR #411). Before a governor
 * changes, the old governor's tunables (POLICY/GOV/, or cpufreq/GOV/ when global) are kept
 * to be written back right after the governor is restored (restoring runs last-first, and
 * these are kept before the governor's own entry). Knob "saved": not read back during the job.
 */
static int save_tunables(struct kvb_target *t, struct kvb_knob_state *k, const char *gov_path, const char *old_gov,
			 struct kvb_error *err)
{
	const char *argv[] = { "sh", "-c",
			       "p=${1%/scaling_governor}; for d in \"$p/$2\" \"${p%/*}/$2\"; do [ -d \"$d\" ] || continue; "
			       "for f in \"$d\"/*; do [ -f \"$f\" ] && [ -w \"$f\" ] && printf '%s\\n' \"$f\"; done; break; done; true",
			       "kvb-tunables", gov_path, NULL /* the old governor */, NULL };
	struct kvb_exec_result r;
	struct kvb_strv files = KVB_STRV_INIT;
	char *gov = kvb_knob_value(old_gov), **vals;
	int rc;
	if (!*gov || strchr(gov, '/') || !strcmp(gov, "..")) {
		free(gov);
		return KVB_OK;
	}
	argv[5] = gov;
	kvb_exec_result_init(&r);
	rc = kvb_target_run_ok(t, argv, 30000, &r, err);
	for (const char *p = rc ? "" : r.out.data; *p;) {
		size_t n = strcspn(p, "\r\n");
		if (n)
			kvb_strv_pushf(&files, "%.*s", (int)n, p);
		p += n + strspn(p + n, "\r\n");
	}
	vals = kvb_xcalloc(files.n + 1, sizeof(*vals));
	if (!rc && files.n)
		rc = read_many(t, files.v, files.n, vals, err);
	for (size_t i = 0; !rc && i < files.n; i++) {
		char *v;
		if (!vals[i])
			continue;
		v = kvb_knob_value(vals[i]);
		if (k->on_save)
			k->on_save(k->cb_arg, files.v[i], v);
		kvb_strv_push(&k->paths, files.v[i]);
		kvb_strv_push(&k->olds, v);
		kvb_strv_push(&k->knobs, "saved");
		kvb_strv_push(&k->asked, v);
		kvb_strv_push(&k->found, v);
		free(v);
	}
	for (size_t i = 0; i < files.n; i++)
		free(vals[i]);
	free(vals);
	kvb_strv_release(&files);
	kvb_exec_result_release(&r);
	free(gov);
	return rc ? kvb_error_prefix(err, "keeping the tunables of governor '%s' (%s)", old_gov, gov_path) : KVB_OK;
}

static int write_knob(struct kvb_target *t, struct kvb_knob_state *k, const char *knob, const char *path,
		      const char *value, struct kvb_error *err)
{
	char *old = NULL, *found = NULL;
	int rc = kvb_target_read(t, path, &old, err);
	if (rc)
		return kvb_error_prefix(err, "runtime knob %s", path);
	if (ends_with(path, "/scaling_governor") && !kvb_knob_agrees(value, old) && (rc = save_tunables(t, k, path, old, err))) {
		free(old);
		return rc;
	}
	if (k->on_save)
		k->on_save(k->cb_arg, path, old);
	rc = kvb_target_write(t, path, value, err);
	if (rc) {
		free(old);
		return rc;
	}
	kvb_strv_push(&k->paths, path);
	kvb_strv_push(&k->olds, old);
	kvb_strv_push(&k->knobs, knob);
	kvb_strv_push(&k->asked, value);
	free(old);
	if ((rc = read_back(t, path, value, &found, err)))
		witness(k, path, value, NULL, KVB_WIT_FAILED, err->msg);
	else if (!t->recording) /* recording a batch (LAVA): the read is written down, judged on its replay */
		rc = judge(k, knob, path, value, found, "", err);
	kvb_strv_push(&k->found, found ? found : "");
	free(found);
	return rc;
}

/* One command reads every file of paths; outs[i] gets its text (owned) or NULL when unreadable. */
static int read_many(struct kvb_target *t, char *const *paths, size_t n, char **outs, struct kvb_error *err)
{
	static const char marker[] = "@@kvb-file@@", unreadable[] = "@@kvb-unreadable@@";
	struct kvb_strv argv = KVB_STRV_INIT;
	struct kvb_exec_result r;
	struct kvb_buf cur = KVB_BUF_INIT;
	long at = -1;
	int rc, bad = 0;
	memset(outs, 0, n * sizeof(*outs));
	if (!n)
		return KVB_OK;
	kvb_strv_push(&argv, "sh");
	kvb_strv_push(&argv, "-c");
	/* a marker line before each file; a file that cannot be read says so (fixed text, paths as arguments) */
	kvb_strv_push(&argv, "for f do printf '\\n@@kvb-file@@\\n'; cat \"$f\" 2>/dev/null || printf '@@kvb-unreadable@@'; "
			     "done; printf '\\n@@kvb-file@@\\n'");
	kvb_strv_push(&argv, "kvb-read");
	for (size_t i = 0; i < n; i++)
		kvb_strv_push(&argv, paths[i]);
	kvb_exec_result_init(&r);
	rc = kvb_target_run_ok(t, kvb_strv_argv(&argv), 30000, &r, err);
	for (const char *p = rc ? "" : r.out.data; *p;) {
		size_t len = strcspn(p, "\n"), l = len;
		while (l && p[l - 1] == '\r')
			l--;
		if (l == strlen(marker) && !memcmp(p, marker, l)) {
			if (at >= 0 && (size_t)at < n && !bad)
				outs[at] = kvb_buf_detach(&cur);
			kvb_buf_reset(&cur);
			at++;
			bad = 0;
		} else if (at >= 0) {
			if (l >= strlen(unreadable) && !memcmp(p + l - strlen(unreadable), unreadable, strlen(unreadable)))
				bad = 1;
			kvb_buf_addf(&cur, "%s%.*s", cur.len ? "\n" : "", (int)l, p);
		}
		p += len + (p[len] ? 1 : 0);
	}
	kvb_buf_release(&cur);
	kvb_exec_result_release(&r);
	kvb_strv_release(&argv);
	return rc;
}

/* Index of the last write of each path (a later write of the same file replaces an earlier). */
static int last_write(const struct kvb_knob_state *k, size_t i)
{
	for (size_t j = i + 1; j < k->paths.n; j++)
		if (!strcmp(k->paths.v[j], k->paths.v[i]))
			return 0;
	return 1;
}

/*
 * Once every knob is written: reads them all again (a later knob can undo an earlier one,
 * e.g. a governor change removes the old governor's tunables) and keeps what they read in
 * k->settled for kvb_knobs_recheck.
 */
static int settle(struct kvb_target *t, struct kvb_knob_state *k, struct kvb_error *err)
{
	char **outs = kvb_xcalloc(k->paths.n + 1, sizeof(*outs));
	int rc = read_many(t, k->paths.v, k->paths.n, outs, err);
	kvb_strv_release(&k->settled);
	for (size_t i = 0; i < k->paths.n; i++) {
		kvb_strv_push(&k->settled, outs[i] ? outs[i] : "");
		if (rc || !last_write(k, i) || !strcmp(k->knobs.v[i], "saved"))
			continue;
		if (!outs[i]) {
			char *msg = kvb_xasprintf("%s: %s cannot be read once every knob is written (a later knob removed it?)",
						  k->knobs.v[i], k->paths.v[i]);
			witness(k, k->paths.v[i], k->asked.v[i], NULL, KVB_WIT_FAILED, msg);
			rc = kvb_error_set(err, KVB_ETARGET, "%s", msg);
			free(msg);
		} else if (!kvb_knob_agrees(k->asked.v[i], outs[i]) && !kvb_knob_agrees(k->found.v[i], outs[i])) {
			/* it changed since its own write (one that disagreed then has its witness already) */
			rc = judge(k, k->knobs.v[i], k->paths.v[i], k->asked.v[i], outs[i], " once every knob is written", err);
		}
	}
	for (size_t i = 0; i < k->paths.n; i++)
		free(outs[i]);
	free(outs);
	return rc;
}

void kvb_knobs_recheck(struct kvb_target *t, struct kvb_knob_state *k)
{
	char **outs;
	struct kvb_error err;
	if (!k->wit || !k->paths.n || k->settled.n != k->paths.n)
		return;
	outs = kvb_xcalloc(k->paths.n + 1, sizeof(*outs));
	if (read_many(t, k->paths.v, k->paths.n, outs, &err)) {
		kvb_witness_add(k->wit, "knob", k->paths.v[0], NULL, NULL, KVB_WIT_CHANGED,
				"the %zu knob(s) written could not be read after the job: %s", k->paths.n, err.msg);
		free(outs);
		return;
	}
	for (size_t i = 0; i < k->paths.n; i++) {
		char *before, *now;
		if (!last_write(k, i) || !strcmp(k->knobs.v[i], "saved"))
			continue;
		before = kvb_knob_value(k->settled.v[i]);
		now = outs[i] ? kvb_knob_value(outs[i]) : NULL;
		if (!now)
			kvb_witness_add(k->wit, "knob", k->paths.v[i], before, NULL, KVB_WIT_CHANGED,
					"%s: %s could not be read after the job (it read %s before)", k->knobs.v[i],
					k->paths.v[i], before);
		else if (!kvb_knob_agrees(before, outs[i]))
			kvb_witness_add(k->wit, "knob", k->paths.v[i], before, now, KVB_WIT_CHANGED,
					"%s changed during the job: %s before, %s after (%s)", k->knobs.v[i], before, now,
					k->paths.v[i]);
		free(before);
		free(now);
		free(outs[i]);
	}
	for (size_t i = 0; i < k->paths.n; i++)
		if (!last_write(k, i) || !strcmp(k->knobs.v[i], "saved"))
			free(outs[i]);
	free(outs);
}

/* 1 when "cpu" is a word of a cgroup.subtree_control text. */
static int has_cpu(const char *txt)
{
	char *cur = kvb_xstrdup(txt ? txt : "");
	int on = 0;
	for (char *s = cur, *save = NULL, *w; !on && (w = strtok_r(s, " \t\r\n", &save)); s = NULL)
		on = !strcmp(w, "cpu");
	free(cur);
	return on;
}

/* Enables +cpu in a cgroup2 directory's subtree_control unless it is on already, and reads it back;
 * failing fails the job. */
static int enable_cpu(struct kvb_target *t, struct kvb_knob_state *k, const char *dir, struct kvb_error *err)
{
	char *ctl = kvb_xasprintf("%s/cgroup.subtree_control", dir), *cur = NULL;
	int rc = KVB_OK;
	if (!kvb_target_read(t, ctl, &cur, err) && has_cpu(cur)) {
		free(cur);
		free(ctl);
		return KVB_OK;
	}
	free(cur);
	cur = NULL;
	if (kvb_target_write(t, ctl, "+cpu", err))
		rc = kvb_error_prefix(err, "cgroup_depth: cannot enable the cpu controller in %s", dir);
	else if (kvb_target_read(t, ctl, &cur, err) || !has_cpu(cur)) {
		char *val = kvb_knob_value(cur);
		rc = kvb_error_set(err, KVB_ETARGET,
				   "cgroup_depth: the cpu controller is not on in %s after writing +cpu (it reads '%s')", ctl, val);
		witness(k, ctl, "+cpu", cur ? val : NULL, KVB_WIT_FAILED, err->msg);
		free(val);
	} else {
		witness(k, ctl, "+cpu", cur, KVB_WIT_OK, "cgroup");
	}
	free(cur);
	free(ctl);
	return rc;
}

/*
 * Gives child (a v1 cpu group just created under parent) an RT budget: the platform's
 * rt_runtime_us, else all the bandwidth parent's other groups leave free, so the sum of
 * parent's children stays within parent (kernel/sched/rt.c tg_rt_schedulable). A hierarchy
 * without cpu.rt_runtime_us (no CONFIG_RT_GROUP_SCHED) needs nothing. No budget left fails a
 * job that runs RT tasks (k->needs_rt), naming the budgets.
 */
static int give_rt_budget(struct kvb_target *t, struct kvb_knob_state *k, const char *parent, const char *child,
			  struct kvb_error *err)
{
	struct kvb_rt_budget b;
	long long budget;
	char *path, *found = NULL, *asked;
	int rc = kvb_cgroup_rt_budget(t, parent, child, &b, err);
	if (rc || !b.has)
		return rc;
	budget = kvb_rt_budget_free_us(&b);
	if (k->rt_runtime_us > 0) {
		if (k->rt_runtime_us > budget)
			return kvb_error_set(err, KVB_ETARGET,
					     "cgroup_depth: platform cgroup.rt_runtime_us %lld does not fit in %s: %s "
					     "(Documentation/scheduler/sched-rt-group.rst: the children's budgets must fit in "
					     "the parent's)",
					     k->rt_runtime_us, parent, b.why);
		budget = k->rt_runtime_us;
	}
	path = kvb_xasprintf("%s/cpu.rt_runtime_us", child);
	if (budget <= 0) {
		char *why = kvb_xasprintf("no RT budget left for %s: %s, so the group's cpu.rt_runtime_us stays 0 and "
					  "SCHED_FIFO/RR tasks cannot run in it (CONFIG_RT_GROUP_SCHED)",
					  child, b.why);
		if (k->needs_rt) {
			witness(k, path, "> 0", "0", KVB_WIT_FAILED, why);
			rc = kvb_error_set(err, KVB_ETARGET, "cgroup_depth: %s; free some of %s's RT budget", why, parent);
		} else {
			witness(k, path, NULL, "0", KVB_WIT_OK, why);
		}
		free(why);
		free(path);
		return rc;
	}
	asked = kvb_xasprintf("%lld", budget);
	if ((rc = kvb_target_write(t, path, asked, err)))
		kvb_error_prefix(err, "cgroup_depth: giving %s an RT budget", child);
	else if ((rc = read_back(t, path, asked, &found, err)))
		witness(k, path, asked, NULL, KVB_WIT_FAILED, err->msg);
	else if (!t->recording)
		rc = judge(k, "cgroup", path, asked, found, "", err);
	free(found);
	free(asked);
	free(path);
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
		if (k->cg.v2 && (rc = enable_cpu(t, k, cur, err))) {
			free(next);
			break;
		}
		mk[2] = next;
		kvb_exec_result_init(&r);
		rc = kvb_target_run_ok(t, mk, 30000, &r, err);
		kvb_exec_result_release(&r);
		if (!rc)
			kvb_strv_push(&k->cgdirs, next);
		/* a v1 cpu group under RT group scheduling starts with no RT budget */
		if (!rc && !k->cg.v2)
			rc = give_rt_budget(t, k, cur, next, err);
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

	k->readback = rt->readback;
	for (const cJSON *kv = rt->sysctl ? rt->sysctl->child : NULL; kv && !rc; kv = kv->next) {
		/* under the platform's sysfs_root, as every reader of the board's /proc (a fake tree in tests) */
		const char *root = kvb_target_sysfs_root(t);
		char *path = kvb_xasprintf("%s/proc/sys/%s", root, kv->string), *val = kvb_node_str(kv);
		for (char *p = path + strlen(root) + 10; *p; p++)
			if (*p == '.')
				*p = '/';
		if (strstr(kv->string, ".."))
			rc = kvb_error_set(err, KVB_EINPUT, "sysctl name '%s' is not valid", kv->string);
		else {
			char *knob = kvb_xasprintf("sysctl.%s", kv->string);
			rc = write_knob(t, k, knob, path, val, err);
			free(knob);
		}
		free(path);
		free(val);
	}
	if (!rc && (rt->sysfs || rt->governor || rt->cpufreq)) {
		/* governors first, then frequencies, then the other sysfs values (engine/cpufreq_plan.h) */
		/* the listing and every write under the platform's sysfs_root (a fake tree in tests) */
		const char *root = kvb_target_sysfs_root(t), *list[6];
		struct kvb_exec_result r;
		struct kvb_write_plan wp;
		kvb_exec_result_init(&r);
		kvb_cpufreq_list_argv(root, list);
		if (rt->governor || rt->cpufreq)
			rc = kvb_target_run_ok(t, list, 30000, &r, err);
		if (!rc)
			rc = kvb_cpufreq_plan(rt, r.out.data, k->clusters, k->nclusters, &wp, err);
		if (!rc) {
			for (size_t i = 0; i < wp.warnings.n; i++)
				kvb_warn("%s", wp.warnings.v[i]);
			for (size_t i = 0; i < wp.paths.n && !rc; i++) {
				char *path = kvb_xasprintf("%s%s", root, wp.paths.v[i]);
				rc = write_knob(t, k, wp.knobs.v[i], path, wp.values.v[i], err);
				free(path);
			}
			kvb_write_plan_release(&wp);
		}
		kvb_exec_result_release(&r);
	}
	if (!rc && k->paths.n)
		rc = settle(t, k, err);
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
		char *now = NULL;
		if (rc && !first) {
			first = rc;
			*err = e;
		}
		if (!rc && k->on_restored)
			k->on_restored(k->cb_arg, k->paths.v[i]);
		/* a restore is a write too: one the kernel did not take leaves the board changed for what follows */
		if (!rc && !read_back(t, k->paths.v[i], k->olds.v[i], &now, &e) && !kvb_knob_agrees(k->olds.v[i], now)) {
			char *val = kvb_knob_value(now);
			kvb_warn("restoring %s: asked %s, kernel has %s", k->paths.v[i], k->olds.v[i], val);
			free(val);
		}
		free(now);
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
	kvb_strv_release(&k->knobs);
	kvb_strv_release(&k->asked);
	kvb_strv_release(&k->found);
	kvb_strv_release(&k->settled);
	kvb_strv_release(&k->cgdirs);
	return first;
}
