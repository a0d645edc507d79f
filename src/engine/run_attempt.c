/* Implements one attempt of a job: knobs, instruments and witnesses around the workload. */
#include "engine/run_internal.h"
#include "core/profile.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

static void knob_saved_cb(void *arg, const char *path, const char *original)
{
	struct engine *e = arg;
	struct kvb_error err;
	if (!e->st) /* --dry-run recording a batch: nothing is stored */
		return;
	if (kvb_store_knob_save(e->st, e->run_id, e->plat->name, path, original, &err))
		kvb_warn("%s", err.msg);
}

static void knob_restored_cb(void *arg, const char *path)
{
	struct engine *e = arg;
	struct kvb_error err;
	if (!e->st)
		return;
	if (kvb_store_knob_done(e->st, e->run_id, path, &err))
		kvb_warn("%s", err.msg);
}

/*
 * What keeps two kvbench processes apart in a board's work directory: this host's pid.
 * A batch target's board is its job's alone, and a LAVA job left in flight is recognised
 * on --resume by its commands being the ones recorded again: 0 there.
 */
long kvb_run_board_session(const struct engine *e)
{
	return e->target.ops && e->target.ops->batch ? 0 : (long)getpid();
}

void kvb_run_progress(struct engine *e, const struct kvb_plan_job *j, const char *what)
{
	const char *vname = e->a->variants[j->variant].name;
	char eta[32] = "";
	if (e->done > 0) {
		uint64_t per = (kvb_mono_ns() - e->t0_ns) / e->done;
		uint64_t left_s = per * (e->todo - e->done) / 1000000000ull;
		snprintf(eta, sizeof(eta), " ETA %llum%02llus", (unsigned long long)(left_s / 60),
			 (unsigned long long)(left_s % 60));
	}
	/* A terminal gets one live line; logs get one line per finished job (kvb_run_job). A pool draws its own. */
	if (e->tty && !e->board)
		fprintf(stderr, "\r\033[K[job %zu/%zu] %s %s #%d (round %d)%s %s", e->done + 1, e->todo, vname,
			j->spec->id, j->iteration, j->round, eta, what);
}

/* Job classifiers: variant, section, iteration, workload parameters marked as classifiers, spec classifiers. */
cJSON *kvb_run_job_classifiers(struct engine *e, const struct kvb_plan_job *j)
{
	cJSON *c = cJSON_CreateObject();
	const struct kvb_spec *s = j->spec;
	struct kvb_runtime rt;
	char it[16];
	for (const struct kvb_keydef *d = s->ops->params; d && d->key; d++) {
		if (d->flags & KVB_KEY_CLASSIFIER) {
			char *v = kvb_param_str(s->ops, s->params, d->key);
			if (v)
				cJSON_AddStringToObject(c, d->key, v);
			free(v);
		}
	}
	for (const cJSON *kv = s->classifiers ? s->classifiers->child : NULL; kv; kv = kv->next) {
		char *v = kvb_node_str(kv);
		cJSON_DeleteItemFromObjectCaseSensitive(c, kv->string);
		cJSON_AddStringToObject(c, kv->string, v ? v : "");
		free(v);
	}
	kvb_run_job_runtime(e, j, &rt);
	kvb_runtime_add_classifiers(&s->rt, &rt, c); /* knobs the job ran with: two settings never share a cell */
	kvb_runtime_release(&rt);
	cJSON_DeleteItemFromObjectCaseSensitive(c, "variant");
	cJSON_AddStringToObject(c, "variant", e->a->variants[j->variant].name);
	if (s->section) {
		cJSON_DeleteItemFromObjectCaseSensitive(c, "section");
		cJSON_AddStringToObject(c, "section", s->section);
	}
	snprintf(it, sizeof(it), "%d", j->iteration);
	cJSON_DeleteItemFromObjectCaseSensitive(c, "iteration");
	cJSON_AddStringToObject(c, "iteration", it);
	if (e->board) {
		cJSON_DeleteItemFromObjectCaseSensitive(c, "board");
		cJSON_AddStringToObject(c, "board", e->device[0] ? e->device : e->board);
	}
	return c;
}

/* Knobs of a job: platform setup < spec < variant (the variant is what is being compared). */
void kvb_run_job_runtime(struct engine *e, const struct kvb_plan_job *j, struct kvb_runtime *rt)
{
	kvb_runtime_copy(rt, &e->plat->setup);
	kvb_runtime_merge(rt, &j->spec->rt);
	kvb_runtime_merge(rt, &e->a->variants[j->variant].rt);
}

/* The workload's preparation (rt-app's calibration) before any instrument starts: no job's window holds it. */
static int prepare_workload(const struct kvb_plan_job *j, struct kvb_job_ctx *ctx, struct kvb_error *err)
{
	if (!j->spec->ops->prepare)
		return KVB_OK;
	return j->spec->ops->prepare(ctx, err) ? kvb_error_prefix(err, "preparing %s", j->spec->workload) : KVB_OK;
}

/* The thermal witness's first reading (engine/thermal.h); one that cannot be taken is a warning. */
static int thermal_before(struct engine *e, struct kvb_thermal *th)
{
	struct kvb_thermal_limits l;
	struct kvb_error err;
	kvb_thermal_limits_from(e->plat->thermal, e->plat->sysfs_root, &l);
	if (!kvb_thermal_read(&e->target, l.root, th, &err))
		return 1;
	kvb_warn("%s", err.msg);
	return 0;
}

/* The second reading and the job's thermal witnesses into m; KVB_ETARGET when a thermal: limit refuses the job. */
static int thermal_after(struct engine *e, struct kvb_thermal *th0, struct kvb_metrics *m, struct kvb_error *err)
{
	struct kvb_thermal_limits l;
	struct kvb_thermal th1;
	struct kvb_error e2;
	int rc = KVB_OK;
	kvb_thermal_limits_from(e->plat->thermal, e->plat->sysfs_root, &l);
	if (kvb_thermal_read(&e->target, l.root, &th1, &e2))
		kvb_warn("%s", e2.msg);
	else
		rc = kvb_thermal_judge(th0, &th1, &l, &m->witnesses, err);
	kvb_thermal_release(&th1);
	kvb_thermal_release(th0);
	return rc;
}

/*
 * The directories of attempt `attempt` of job j, made: *adir "<artdir>/job-SEQ-aN" on this host and
 * *rdir in the board's workdir (both owned by the caller). On failure neither is kept (both NULL).
 */
static int make_job_dirs(struct engine *e, const struct kvb_plan_job *j, int attempt, char **adir, char **rdir,
			 struct kvb_error *err)
{
	struct kvb_exec_result r;
	int rc;

	*adir = kvb_xasprintf("%s/job-%04d-a%d", e->artdir, j->seq, attempt);
	/* the host's pid keeps two kvbench processes apart when they share a board's workdir
	 * (two DBs on one host both have a run 1), not on a batch target (board_session); one directory
	 * per job, not a run directory with the jobs in it: the `rm -rf` after the job removes all
	 * kvbench made, and no run directory is left behind (there were hundreds of empty run-N-PID in
	 * /tmp/kvbench) */
	*rdir = kvb_xasprintf("%s/run-%lld-%ld-job-%04d", e->plat->workdir, (long long)e->run_id, kvb_run_board_session(e),
			      j->seq);
	if (kvb_mkdir_nofollow(*adir, 0755)) {
		rc = kvb_error_set(err, KVB_ESTORE, "cannot create artifact directory %s: %s", *adir, strerror(errno));
	} else {
		const char *mk[] = { "mkdir", "-p", *rdir, NULL };
		kvb_exec_result_init(&r);
		rc = kvb_target_run_ok(&e->target, mk, 30000, &r, err);
		kvb_exec_result_release(&r);
	}
	if (rc) {
		free(*adir);
		free(*rdir);
		*adir = *rdir = NULL;
	}
	return rc;
}

/* The knob state of an attempt of job j (ks initialised here): what it saves and restores is stored
 * (knob_saved_cb), its cgroup leaf is reported under rdir, knobs read back are witnesses in m. */
static void job_knob_state(struct engine *e, const struct kvb_plan_job *j, const char *rdir, struct kvb_metrics *m,
			   struct kvb_knob_state *ks)
{
	kvb_knob_state_init(ks);
	ks->on_save = knob_saved_cb;
	ks->on_restored = knob_restored_cb;
	ks->cb_arg = e;
	ks->cg_report = kvb_xasprintf("%s/kvb-cgroup", rdir);
	ks->clusters = e->plat->clusters;
	ks->nclusters = e->plat->nclusters;
	ks->wit = &m->witnesses; /* knobs read back (engine/knobs.h) */
	ks->needs_rt = (j->spec->ops->caps & KVB_WORKLOAD_REALTIME) != 0;
	ks->rt_runtime_us = e->plat->cgroup_rt_runtime_us;
}

/* The workload's run itself, the one thing a first signal kills at once (on_signal); its numbers are checked. */
static int run_workload(const struct kvb_plan_job *j, struct kvb_job_ctx *ctx, struct kvb_metrics *m,
			struct kvb_error *err)
{
	int rc;
	atomic_fetch_add(&kvb_run_in_workload, 1);
	if (kvb_run_signals)
		kvb_run_cancel = 1;
	size_t n0 = m->n;
	rc = j->spec->ops->run(ctx, err);
	/* a number the workload does not declare, or in other units, is refused (docs/design.md#metrics) */
	if (!rc)
		rc = kvb_workload_check_metrics(j->spec->ops, m, n0, err);
	/* the workload was what a first signal stops; the clean-up below runs (knobs put back) */
	if (atomic_fetch_sub(&kvb_run_in_workload, 1) == 1 && kvb_run_signals < 2)
		kvb_run_cancel = 0;
	return rc;
}

/* The host witness of a board on this host's CPUs: its sample after the workload against h0, the one before (docs/design.md#witnesses). */
static void host_witness_after(struct engine *e, const struct kvb_target_host *th, const struct kvb_host_sample *h0,
			       struct kvb_metrics *m)
{
	struct kvb_host_limits lim = { e->o->host_limit_pct > 0 ? e->o->host_limit_pct : KVB_HOST_LIMIT_PCT };
	struct kvb_host_sample h1;
	kvb_host_sample_read(kvb_host_proc_root(), th->pid, &h1);
	struct kvb_host_board hb = { th->process, th->virtual_clock, th->workload_on_host };
	kvb_host_witness(h0, &h1, &lim, &hb, &m->witnesses);
}

/* The job's profile (an instrument's, core/profile.h) per operation: the workload says how many it ran. */
static void profile_ops(const struct kvb_plan_job *j, const struct kvb_job_ctx *ctx, struct kvb_metrics *m)
{
	const char *what = NULL;
	double ops;
	if (!m->profile || !j->spec->ops->op_count)
		return;
	ops = j->spec->ops->op_count(j->spec->ops, ctx->params, &what);
	if (ops > 0 && what) {
		m->profile->ops = ops;
		free(m->profile->op_name);
		m->profile->op_name = kvb_xstrdup(what);
	}
}

/*
 * The workload's run with what watches it: the instruments, the host and thermal witnesses, and the
 * knobs' recheck after it. A thermal: limit that refuses the job fails it (e->no_retry: not retried).
 */
static int measure_job(struct engine *e, const struct kvb_plan_job *j, struct kvb_job_ctx *ctx,
		       struct kvb_knob_state *ks, struct kvb_metrics *m, struct kvb_error *err)
{
	struct kvb_instr_job ij;
	struct kvb_target_host th;
	struct kvb_host_sample h0;
	/* a board on this host's CPUs: what else the host did while the workload ran (docs/design.md#witnesses) */
	int on_host = e->target.ops->host && e->target.ops->host(&e->target, &th);
	struct kvb_thermal therm;
	int have_th = thermal_before(e, &therm);
	int rc;
	kvb_instr_job_start(&ij, &e->instr, &e->target, e->plat, ctx->artifact_dir, ctx->remote_dir, m);
	if (on_host)
		kvb_host_sample_read(kvb_host_proc_root(), th.pid, &h0);
	if (on_host && th.workload_on_host)
		e->workload_on_host = 1;
	rc = run_workload(j, ctx, m, err);
	if (on_host)
		host_witness_after(e, &th, &h0, m);
	kvb_instr_job_stop(&ij);
	profile_ops(j, ctx, m);
	free(e->instr_err);
	e->instr_err = kvb_instr_job_error(&ij) ? kvb_xstrdup(kvb_instr_job_error(&ij)) : NULL;
	kvb_instr_job_release(&ij);
	/* what changed while the numbers were taken: knobs, then thermal caps (a limit refuses the job) */
	kvb_knobs_recheck(&e->target, ks);
	if (have_th) {
		struct kvb_error terr;
		int trc = thermal_after(e, &therm, m, &terr);
		if (trc && !rc) {
			/* refused by the board's own state: an attempt right away finds the same board */
			rc = trc;
			*err = terr;
			e->no_retry = 1;
		}
	}
	return rc;
}

/* One attempt of a job. Metrics go to m; returns KVB_OK or the failure. */
int kvb_run_attempt_job(struct engine *e, const struct kvb_plan_job *j, int attempt, struct kvb_metrics *m,
		struct kvb_error *err)
{
	struct kvb_runtime rt;
	struct kvb_knob_state ks;
	struct kvb_job_ctx ctx;
	struct kvb_exec_result r;
	char *adir, *rdir;
	int rc;

	if ((rc = make_job_dirs(e, j, attempt, &adir, &rdir, err)))
		return rc;
	kvb_exec_result_init(&r);
	kvb_run_job_runtime(e, j, &rt);
	job_knob_state(e, j, rdir, m, &ks);
	free(e->job_cgroup);
	e->job_cgroup = NULL;
	cJSON_Delete(e->knob_recorded);
	e->knob_recorded = NULL;
	rc = kvb_knobs_apply(&e->target, &rt, e->tag, &ks, err);
	/* a knob the board does not have fails the same way every time: no retry */
	e->no_retry = rc != KVB_OK;
	if (rc)
		kvb_error_prefix(err, "runtime knobs");
	if (!rc) {
		memset(&ctx, 0, sizeof(ctx));
		ctx.target = &e->target;
		ctx.ops = j->spec->ops;
		ctx.params = j->spec->params;
		ctx.rt = &rt;
		ctx.artifact_dir = adir;
		ctx.remote_dir = rdir;
		ctx.wrap = ks.wrap.n ? kvb_strv_argv(&ks.wrap) : NULL;
		ctx.timeout_ms = (uint64_t)j->spec->timeout_s * 1000;
		ctx.out = m;
		ctx.state = kvb_workload_state(&e->wstates, j->spec->ops);
		rc = prepare_workload(j, &ctx, err);
		if (!rc)
			rc = measure_job(e, j, &ctx, &ks, m, err);
		if (rc && ctx.no_retry)
			e->no_retry = 1; /* the workload says the board refuses it whatever the attempt */
		/* a number stored under cgroup_depth=N must have run N deep: checked, not assumed */
		if (!rc && (rc = kvb_knobs_check_cgroup(&e->target, &ks, &e->job_cgroup, err)))
			e->no_retry = 1;
		struct kvb_error rerr;
		if (kvb_knobs_restore(&e->target, &ks, &rerr))
			kvb_warn("restoring knobs after job %d: %s", j->seq, rerr.msg);
	}
	{
		const char *rm[] = { "rm", "-rf", rdir, NULL };
		struct kvb_error ignore;
		kvb_target_exec(&e->target, rm, 30000, &r, &ignore);
	}
	e->knob_recorded = ks.recorded;
	ks.recorded = NULL;
	kvb_knob_state_release(&ks);
	kvb_runtime_release(&rt);
	kvb_exec_result_release(&r);
	free(adir);
	free(rdir);
	return rc;
}
