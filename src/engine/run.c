/* Implements the run loop: rounds x variants x jobs, retries, interruption, resume. */
#include "engine/engine.h"
#include "engine/decide.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/sha256.h"
#include "core/util.h"
#include "engine/hostwatch.h"
#include "engine/identity.h"
#include "engine/knobs.h"
#include "engine/plan.h"
#include "engine/duet.h"
#include "engine/pool.h"
#include "engine/thermal.h"
#include "flash/fetch.h"
#include "flash/flash.h"
#include "flash/bootimg.h"
#include "flash/kimage.h"
#include "instrument/session.h"
#include "store/disturbance.h"
#include "store/lava_jobs.h"
#include "store/spread.h"
#include "store/status.h"
#include "workload/workload.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t g_signals, g_last_signal;
static volatile int g_cancel;
/* workloads running now (pool workers are threads): a signal while one runs kills it at once */
static atomic_int g_in_workload;

/*
 * Ctrl-C or SIGTERM: the running workload is killed at once (its job goes back to pending, an
 * 'interrupted' attempt, for --resume), then the knobs are put back and the run stops (exit 7).
 * A second signal also cancels that clean-up.
 */
static void on_signal(int sig)
{
	g_last_signal = sig;
	g_signals++;
	if (g_signals >= 2 || atomic_load(&g_in_workload) > 0)
		g_cancel = 1;
}

/* The most iterations any spec of the agenda has (0: no spec). */
static int max_iterations(const struct kvb_agenda *a)
{
	int m = 0;
	for (size_t i = 0; i < a->nspecs; i++)
		if (a->specs[i].iterations > m)
			m = a->specs[i].iterations;
	return m;
}

int kvb_engine_default_rounds(const struct kvb_platform *plat, const struct kvb_agenda *a)
{
	const struct kvb_flasher_ops *fl = kvb_flasher_find(plat->flash_method);
	int kernels = 0;
	if (a->rounds > 0)
		return a->rounds;
	for (size_t i = 0; i < a->nvariants; i++)
		kernels |= a->variants[i].kernel || a->variants[i].boot_image;
	int rounds = fl && fl->default_rounds ? fl->default_rounds : kernels ? 1 : 2;
	/* rounds split each spec's iterations: past the most iterations a spec has, a round is empty
	 * (`iterations: 1` ran in "round 2" of 2, round 1 had no job) */
	int maxit = max_iterations(a);
	return maxit > 0 && rounds > maxit ? maxit : rounds;
}

char *kvb_engine_agenda_json(const struct kvb_agenda *a)
{
	cJSON *root = a->raw ? cJSON_Duplicate(a->raw, 1) : cJSON_CreateObject();
	cJSON *vs = cJSON_CreateArray();
	char *s;
	for (size_t i = 0; i < a->nvariants; i++)
		cJSON_AddItemToArray(vs, a->variants[i].raw ? cJSON_Duplicate(a->variants[i].raw, 1) : cJSON_CreateObject());
	cJSON_DeleteItemFromObjectCaseSensitive(root, "variants");
	cJSON_AddItemToObject(root, "variants", vs);
	s = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return s;
}

struct engine {
	struct kvb_instr_set instr;  /* instruments around every job */
	int host_busy;               /* a disturbed job waited KVB_HOST_QUIET_WAIT_MS for a quiet second in vain:
				      * until a job comes out clean, disturbed jobs are left out at once */
	char *instr_err;             /* failures of the last attempt's instruments, or NULL */
	const struct kvb_run_opts *o;
	struct kvb_agenda *a;
	struct kvb_platform *plat;
	struct kvb_store *st;
	int64_t run_id;
	char *artdir;
	struct kvb_plan plan;
	struct kvb_job_row *rows;
	int64_t *variant_ids;
	int *variant_failed;
	char **variant_why;   /* per variant: why its files could not be had, or NULL */
	int knob_failed;      /* the last attempt failed applying knobs, or a thermal limit refused it
			       * (deterministic: not retried) */
	struct kvb_target target;
	int target_open;
	int failures;
	int target_failures;  /* of failures: variants failed because the target could not be reached or was
				 lost (KVB_ETARGET, KVB_EBOARD): a run with only these and no job ok exits 4 */
	size_t todo, done;
	uint64_t t0_ns;
	int tty;
	char tag[32];
	char store_err[KVB_ERRMSG_MAX / 2]; /* why the last job could not be stored */
	int64_t cur_job_id;   /* the job running now (events name it), 0 between jobs */
	char *job_cgroup;     /* cgroup_depth: the leaf the last attempt's workload ran in */
	cJSON *knob_recorded; /* `readback: record` knobs of the last attempt: classifier -> value found (owned) */
	const char *board;    /* board of a pool (pool.c), or NULL on one board */
	struct engine *parent;/* the run's engine when this is a pool worker */
	char *lost_why;       /* pool worker: why the board was lost in the last job (owned) */
	int64_t boot_id;      /* the boot row of the boot this engine's jobs run in now (job.boot_id), or 0 */
	int64_t lava_job_id;  /* batch target (LAVA): the job of the current boot, or 0 */
	char lava_url[512];
	char device[128];     /* batch target: the device the boot ran on (its board), or "" */
	struct batch_unit *bu;/* batch target: the unit in flight (batch_bring_up .. batch_unit_end), or NULL */
	struct kvb_pool_board_ctl *pool_ctl; /* pool worker: its board's handle in the pool, or NULL */
	struct kvb_workload_states wstates;  /* this board's workload state (rt-app's pLoad); a worker has its own */
	struct kvb_run_memory resumed;       /* --resume: what resume hooks read, through this engine's store */
};

/* A batch target's unit in flight: what its run() was given, kept until finish(). */
struct batch_unit {
	struct kvb_batch_unit u;
	struct engine *w;
	size_t v;
	char name[256];
	char *dir;
	char *reattach_state;
};

/* The engine working on this thread: a pool runs one per board (pool.c), each with its own store
 * connection and current job; set where a thread starts engine work (bring_up, run_job, pool events). */
static _Thread_local struct engine *g_thread_engine;

/* Every error and warning printed during a run is an event row (DESIGN.md §5), written through
 * the store connection of the engine of the thread that printed it. */
static void log_to_events(void *arg, enum kvb_log_level lvl, const char *msg)
{
	struct engine *e = g_thread_engine ? g_thread_engine : arg;
	if (e->st && e->run_id > 0)
		kvb_store_event_job(e->st, e->run_id, e->cur_job_id, lvl == KVB_LOG_ERROR ? "error" : "warning", msg);
}

static void progress(struct engine *e, const struct kvb_plan_job *j, const char *what)
{
	const char *vname = e->a->variants[j->variant].name;
	char eta[32] = "";
	if (e->done > 0) {
		uint64_t per = (kvb_mono_ns() - e->t0_ns) / e->done;
		uint64_t left_s = per * (e->todo - e->done) / 1000000000ull;
		snprintf(eta, sizeof(eta), " ETA %llum%02llus", (unsigned long long)(left_s / 60),
			 (unsigned long long)(left_s % 60));
	}
	/* A terminal gets one live line; logs get one line per finished job (run_job). A pool draws its own. */
	if (e->tty && !e->board)
		fprintf(stderr, "\r\033[K[job %zu/%zu] %s %s #%d (round %d)%s %s", e->done + 1, e->todo, vname,
			j->spec->id, j->iteration, j->round, eta, what);
}

/* Job classifiers: variant, section, iteration, workload parameters marked as classifiers, spec classifiers. */
static void job_runtime(struct engine *e, const struct kvb_plan_job *j, struct kvb_runtime *rt);

static cJSON *job_classifiers(struct engine *e, const struct kvb_plan_job *j)
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
	job_runtime(e, j, &rt);
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
static void job_runtime(struct engine *e, const struct kvb_plan_job *j, struct kvb_runtime *rt)
{
	kvb_runtime_copy(rt, &e->plat->setup);
	kvb_runtime_merge(rt, &j->spec->rt);
	kvb_runtime_merge(rt, &e->a->variants[j->variant].rt);
}

static int target_alive(struct engine *e)
{
	static const char *const argv[] = { "true", NULL };
	struct kvb_exec_result r;
	struct kvb_error err;
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_target_exec(&e->target, argv, 20000, &r, &err);
	kvb_exec_result_release(&r);
	return rc == KVB_OK && r.exit_code == 0;
}

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

/* Puts back knob values a crashed earlier run on this platform left changed (0004_knobs.sql). */
static void restore_leftover_knobs(struct engine *e)
{
	struct kvb_strv paths = KVB_STRV_INIT, vals = KVB_STRV_INIT;
	struct kvb_error err;
	if (kvb_store_knob_leftovers(e->st, e->plat->name, &paths, &vals, &err)) {
		kvb_warn("%s", err.msg);
	} else if (paths.n) {
		for (size_t i = 0; i < paths.n; i++)
			kvb_warn("restoring %s to '%s' (left changed by an interrupted run)", paths.v[i], vals.v[i]);
		if (kvb_knobs_write_back(&e->target, &paths, &vals, &err))
			kvb_warn("cannot restore every knob: %s", err.msg);
		else if (kvb_store_knob_clear(e->st, e->plat->name, &err))
			kvb_warn("%s", err.msg);
		kvb_store_event(e->st, e->run_id, "warning", "restored %zu knob(s) left changed by an interrupted run", paths.n);
	}
	kvb_strv_release(&paths);
	kvb_strv_release(&vals);
}

/*
 * What keeps two kvbench processes apart in a board's work directory: this host's pid.
 * A batch target's board is its job's alone, and a LAVA job left in flight is recognised
 * on --resume by its commands being the ones recorded again: 0 there.
 */
static long board_session(const struct engine *e)
{
	return e->target.ops && e->target.ops->batch ? 0 : (long)getpid();
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
	*rdir = kvb_xasprintf("%s/run-%lld-%ld-job-%04d", e->plat->workdir, (long long)e->run_id, board_session(e),
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
	atomic_fetch_add(&g_in_workload, 1);
	if (g_signals)
		g_cancel = 1;
	size_t n0 = m->n;
	rc = j->spec->ops->run(ctx, err);
	/* a number the workload does not declare, or in other units, is refused (§14) */
	if (!rc)
		rc = kvb_workload_check_metrics(j->spec->ops, m, n0, err);
	/* the workload was what a first signal stops; the clean-up below runs (knobs put back) */
	if (atomic_fetch_sub(&g_in_workload, 1) == 1 && g_signals < 2)
		g_cancel = 0;
	return rc;
}

/* The host witness of a board on this host's CPUs: its sample after the workload against h0, the one before (§14). */
static void host_witness_after(struct engine *e, const struct kvb_target_host *th, const struct kvb_host_sample *h0,
			       struct kvb_metrics *m)
{
	struct kvb_host_limits lim = { e->o->host_limit_pct > 0 ? e->o->host_limit_pct : KVB_HOST_LIMIT_PCT };
	struct kvb_host_sample h1;
	kvb_host_sample_read(kvb_host_proc_root(), th->pid, &h1);
	struct kvb_host_board hb = { th->process, th->virtual_clock, th->workload_on_host };
	kvb_host_witness(h0, &h1, &lim, &hb, &m->witnesses);
}

/*
 * The workload's run with what watches it: the instruments, the host and thermal witnesses, and the
 * knobs' recheck after it. A thermal: limit that refuses the job fails it (e->knob_failed: not retried).
 */
static int measure_job(struct engine *e, const struct kvb_plan_job *j, struct kvb_job_ctx *ctx,
		       struct kvb_knob_state *ks, struct kvb_metrics *m, struct kvb_error *err)
{
	struct kvb_instr_job ij;
	struct kvb_target_host th;
	struct kvb_host_sample h0;
	/* a board on this host's CPUs: what else the host did while the workload ran (§14) */
	int on_host = e->target.ops->host && e->target.ops->host(&e->target, &th);
	struct kvb_thermal therm;
	int have_th = thermal_before(e, &therm);
	int rc;
	kvb_instr_job_start(&ij, &e->instr, &e->target, e->plat, ctx->artifact_dir, ctx->remote_dir, m);
	if (on_host)
		kvb_host_sample_read(kvb_host_proc_root(), th.pid, &h0);
	rc = run_workload(j, ctx, m, err);
	if (on_host)
		host_witness_after(e, &th, &h0, m);
	kvb_instr_job_stop(&ij);
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
			e->knob_failed = 1;
		}
	}
	return rc;
}

/* One attempt of a job. Metrics go to m; returns KVB_OK or the failure. */
static int attempt_job(struct engine *e, const struct kvb_plan_job *j, int attempt, struct kvb_metrics *m,
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
	job_runtime(e, j, &rt);
	job_knob_state(e, j, rdir, m, &ks);
	free(e->job_cgroup);
	e->job_cgroup = NULL;
	cJSON_Delete(e->knob_recorded);
	e->knob_recorded = NULL;
	rc = kvb_knobs_apply(&e->target, &rt, e->tag, &ks, err);
	/* a knob the board does not have fails the same way every time: no retry */
	e->knob_failed = rc != KVB_OK;
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
		/* a number stored under cgroup_depth=N must have run N deep: checked, not assumed */
		if (!rc && (rc = kvb_knobs_check_cgroup(&e->target, &ks, &e->job_cgroup, err)))
			e->knob_failed = 1;
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

/* Marks every not-final job of variant v in round (or all rounds if round 0) as skipped. */
static void skip_jobs(struct engine *e, size_t v, int round, const char *why)
{
	for (size_t i = 0; i < e->plan.n; i++) {
		const struct kvb_plan_job *j = &e->plan.jobs[i];
		struct kvb_error err;
		if (j->variant != v || (round && j->round != round))
			continue;
		if (strcmp(e->rows[i].status, "pending") && strcmp(e->rows[i].status, "running"))
			continue;
		struct kvb_job_outcome o = { .status = "skipped", .error = why, .attempts = e->rows[i].attempts };
		cJSON *c = job_classifiers(e, j);
		if (kvb_store_job_commit(e->st, e->run_id, e->rows[i].id, &o, NULL, c, &err))
			kvb_err("%s", err.msg);
		snprintf(e->rows[i].status, sizeof(e->rows[i].status), "skipped");
		cJSON_Delete(c);
	}
}

/* --until-decided: the look after round r; when it says stop, the rest of the plan is skipped. */
static int until_decided_stop(struct engine *e, int r)
{
	struct kvb_error err;
	int stop = 0;
	char why[96];
	if (kvb_decide_look(e->st, e->run_id, e->o->decide, r, e->a->order == KVB_ORDER_DUET,
			    (double)(kvb_mono_ns() - e->t0_ns) / 1e9, &stop, &err))
		kvb_err("%s", err.msg);
	if (!stop)
		return 0;
	snprintf(why, sizeof(why), "not needed: decided after round %d (--until-decided)", r);
	for (size_t v = 0; v < e->a->nvariants; v++)
		skip_jobs(e, v, 0, why);
	return 1;
}

/* Variant v failed for why; code is the error that failed it (KVB_ETARGET, KVB_EBOARD: the target's). */
static void fail_variant(struct engine *e, size_t v, const char *why, int code)
{
	struct kvb_error err;
	e->variant_failed[v] = 1;
	e->failures++;
	e->target_failures += code == KVB_ETARGET || code == KVB_EBOARD;
	kvb_err("variant %s failed: %s", e->a->variants[v].name, why); /* an event via log_to_events */
	if (kvb_store_variant_status(e->st, e->variant_ids[v], "failed", why, &err))
		kvb_err("%s", err.msg);
	skip_jobs(e, v, 0, why);
}

/*
 * "<artdir>/boot-<variant>-r<round>". A variant name is agenda text: it only
 * enters the path as one sanitised component (no '/', no leading '.'), with
 * the variant's index when sanitising changed it, so two names cannot share
 * a directory and none can leave the run's directory.
 */
static char *boot_dir(struct engine *e, size_t v, int round)
{
	const char *name = e->a->variants[v].name;
	char *safe = kvb_path_component(name), *d;
	if (strcmp(safe, name))
		d = kvb_xasprintf("%s/boot-%s-%zu-r%d", e->artdir, safe, v, round);
	else
		d = kvb_xasprintf("%s/boot-%s-r%d", e->artdir, safe, round);
	free(safe);
	return d;
}

/* Flash + boot + identity for (variant, round). */
static int bring_up(struct engine *e, size_t v, int round, struct kvb_error *err)
{
	g_thread_engine = e;
	const struct kvb_flasher_ops *fl = kvb_flasher_find(e->plat->flash_method);
	struct kvb_flash_ctx fc;
	struct kvb_boot_row b;
	struct kvb_identity id;
	int rc;
	char *bdir = boot_dir(e, v, round);

	memset(&b, 0, sizeof(b));
	memset(&id, 0, sizeof(id));
	e->boot_id = 0;
	b.round = round;
	b.started_ns = kvb_wall_ns();
	if (kvb_mkdir_nofollow(bdir, 0755)) {
		rc = kvb_error_set(err, KVB_ESTORE, "cannot create artifact directory %s: %s", bdir, strerror(errno));
		goto out;
	}
	if (!fl) {
		rc = kvb_error_set(err, KVB_EINPUT, "%s: flash.method '%s' is not available", e->plat->file,
				   e->plat->flash_method);
		goto out;
	}
	if (!e->target_open) {
		rc = kvb_target_open(&e->target, e->plat, err);
		if (rc)
			goto out;
		e->target.cancel = &g_cancel;
		e->target_open = 1;
	}
	memset(&fc, 0, sizeof(fc));
	fc.target = &e->target;
	fc.plat = e->plat;
	fc.variant = &e->a->variants[v];
	fc.artifact_dir = bdir;
	fc.round = round;
	fc.timeout_ms = (uint64_t)e->plat->boot_timeout_s * 1000;
	rc = fl->flash(&fc, err);
	if (fc.console_log) {
		/* the boot's console is kept whatever happened (a kernel that does not boot explains itself there) */
		struct kvb_error e2;
		if (!access(fc.console_log, R_OK) && kvb_store_run_artifact(e->st, e->run_id, "console", fc.console_log, &e2))
			kvb_warn("%s", e2.msg);
		free(fc.console_log);
	}
	if (rc)
		goto out;
	rc = kvb_identity_check(&e->target, &e->a->variants[v], &id, err);
	if (!rc)
		restore_leftover_knobs(e);
out:
	b.ready_ns = kvb_wall_ns();
	b.status = rc ? "failed" : "ok";
	b.error = rc ? err->msg : NULL;
	b.running_release = id.release;
	b.running_version = id.version;
	b.running_cmdline = id.cmdline;
	b.board = e->device[0] ? e->device : e->board;
	b.lava_job_id = e->lava_job_id;
	b.lava_url = e->lava_url[0] ? e->lava_url : NULL;
	{
		struct kvb_error e2;
		/* a new row for every boot, so a resumed round's boot never replaces the killed one (issue 38) */
		if (kvb_store_boot_record(e->st, e->variant_ids[v], &b, &e->boot_id, &e2))
			kvb_err("%s", e2.msg);
	}
	if (!rc)
		kvb_store_event(e->st, e->run_id, "info", "variant %s round %d: running %s (%s)", e->a->variants[v].name,
				round, id.release ? id.release : "?", id.cmdline ? id.cmdline : "");
	kvb_identity_release(&id);
	free(bdir);
	return rc;
}

/* Every witness that did not agree is a warning, so an event of the job (DESIGN.md §14); job_id as `show jobs` names it. */
/* A host witness that says the job was disturbed. */
static int is_host_disturbed(const struct kvb_witness *w)
{
	return w->verdict == KVB_WIT_DISTURBED && w->kind && !strcmp(w->kind, "host");
}

/*
 * A witness that disagrees is a warning, an event of the job (a footnote in diff), except the
 * host's disturbed ones: the job they mark is run again or left out, and diff sums them up in
 * one line (kvb_store_run_disturbance), so they are logged as information.
 */
static void warn_witnesses(int64_t job_id, const struct kvb_witnesses *w)
{
	for (size_t i = 0; i < w->n; i++) {
		char *d;
		if (w->v[i].verdict == KVB_WIT_OK)
			continue;
		d = kvb_witness_describe(&w->v[i]);
		if (is_host_disturbed(&w->v[i]))
			kvb_info("job %lld: %s %s", (long long)job_id, kvb_witness_verdict_name(w->v[i].verdict), d);
		else
			kvb_warn("job %lld: %s %s", (long long)job_id, kvb_witness_verdict_name(w->v[i].verdict), d);
		free(d);
	}
}

/* Host witnesses of an attempt that say disturbed (the host took the board's CPUs, §14). */
static size_t host_disturbed(const struct kvb_witnesses *w)
{
	size_t n = 0;
	for (size_t i = 0; i < w->n; i++)
		n += is_host_disturbed(&w->v[i]);
	return n;
}

/*
 * How many times a job the host disturbed runs again in its boot: the agenda's retry_disturbed,
 * else KVB_RETRY_DISTURBED_DEFAULT; 0 in a duet, whose two boards saw the same host at once (a
 * disturbed pair still counts there, engine/duet.h).
 */
static int retry_disturbed_limit(const struct engine *e)
{
	if (e->a->order == KVB_ORDER_DUET)
		return 0;
	return e->a->retry_disturbed >= 0 ? e->a->retry_disturbed : KVB_RETRY_DISTURBED_DEFAULT;
}

/* "cpu pressure 34.1 % (<= 10 %), board process 22.0 % (<= 10 %)": what disturbed an attempt (owned). */
static char *disturbed_text(const struct kvb_witnesses *w)
{
	struct kvb_buf b = KVB_BUF_INIT;
	for (size_t i = 0; i < w->n; i++)
		if (is_host_disturbed(&w->v[i]))
			kvb_buf_addf(&b, "%s%s %s (%s)", b.len ? ", " : "", w->v[i].subject,
				     w->v[i].observed ? w->v[i].observed : "?", w->v[i].expected ? w->v[i].expected : "");
	return kvb_buf_detach(&b);
}

/*
 * Counts a finished job and returns its number among the run's finished jobs, for
 * the "[job N/M]" lines: a pool's workers count on the run's engine, atomically, so
 * no number is printed twice and none is skipped.
 */
static size_t count_job_done(struct engine *e)
{
	e->done++;
	if (e->parent)
		return __atomic_add_fetch(&e->parent->done, 1, __ATOMIC_SEQ_CST);
	return e->done;
}

/* A job being run (run_job): what its attempts leave for the steps that store it. */
struct job_run {
	const struct kvb_plan_job *j;
	struct kvb_job_row *row;
	int64_t start;        /* wall ns: when this invocation started the job */
	int64_t a0;           /* wall ns: when the last attempt started */
	int attempt;          /* attempts made, earlier invocations' and lost boards' included */
	int rc;               /* the last attempt's result */
	int left_out;         /* the last attempt was disturbed by the host and no re-run is left: status disturbed */
	char left_out_why[KVB_ERRMSG_MAX]; /* the job's error then: what disturbed it */
	int reruns;           /* attempts run again because the host disturbed them */
	struct kvb_error err; /* why the last attempt failed */
	struct kvb_metrics m; /* the last attempt's metrics (owned) */
	cJSON *cls;           /* the job's classifiers (owned) */
};

static void job_run_release(struct job_run *jr)
{
	kvb_metrics_release(&jr->m);
	cJSON_Delete(jr->cls);
}

/* After a failed attempt the board does not answer: its boot timeout to come back. 1 when it did, 0: lost. */
static int board_came_back(struct engine *e)
{
	/* The board stopped answering: give it its boot timeout to come back. */
	struct kvb_error e3;
	kvb_warn("target not answering; waiting up to %d s", e->plat->boot_timeout_s);
	if (e->pool_ctl) /* meanwhile no unit of the pool waits for this board */
		kvb_pool_board_trouble(e->pool_ctl, 1);
	if (kvb_target_wait_ready(&e->target, (uint64_t)e->plat->boot_timeout_s * 1000, &e3) || !target_alive(e))
		return 0;
	if (e->pool_ctl)
		kvb_pool_board_trouble(e->pool_ctl, 0);
	return 1;
}

/* A signal stopped the job: not the job's failure, nor the board's; its attempt is stored and it is pending again. */
static void job_interrupted(struct engine *e, struct job_run *jr)
{
	const struct kvb_plan_job *j = jr->j;
	struct kvb_error e2;
	kvb_info("[job %zu/%zu] %s %s #%d interrupted (%s): back to pending for --resume", e->done + 1, e->todo,
		 e->a->variants[j->variant].name, j->spec->id, j->iteration, jr->err.msg);
	if (kvb_store_attempt_add(e->st, jr->row->id, jr->attempt, "interrupted", jr->err.msg, jr->a0, kvb_wall_ns(), &e2) ||
	    kvb_store_job_pending(e->st, jr->row->id, &e2))
		kvb_err("%s", e2.msg);
	snprintf(jr->row->status, sizeof(jr->row->status), "pending");
	jr->row->attempts = jr->attempt;
}

/* A pool's board was lost, not the job: it stays pending and moves to another board (pool.c). */
static void job_board_lost(struct engine *e, struct job_run *jr)
{
	struct kvb_error e2;
	if (kvb_store_attempt_add(e->st, jr->row->id, jr->attempt, "failed", jr->err.msg, jr->start, kvb_wall_ns(), &e2))
		kvb_err("%s", e2.msg);
	free(e->lost_why);
	e->lost_why = kvb_xstrdup(jr->err.msg);
	jr->row->attempts = jr->attempt;
}

/*
 * Stores the final job: its status, metrics and classifiers (the workload's and the knobs found added to
 * jr->cls), then its notes and witnesses as events of it. KVB_ESTORE when it could not be stored
 * (e->store_err says why), else KVB_OK.
 */
static enum kvb_err commit_job(struct engine *e, struct job_run *jr)
{
	const struct kvb_plan_job *j = jr->j;
	struct kvb_job_row *row = jr->row;
	int rc = jr->rc;
	enum kvb_err stored = KVB_OK;
	/* An instrument that failed leaves the workload's metrics intact: kept, job marked. */
	struct kvb_job_outcome o = {
		/* a warm-up is stored, never compared (its status keeps it out of the results view) */
		.status = rc ? "failed" : j->warmup ? "warmup" : jr->left_out ? "disturbed" : e->instr_err ? "instrument-failed" : "ok",
		.error = rc ? jr->err.msg : jr->left_out ? jr->left_out_why : e->instr_err,
		.attempts = jr->attempt,
		.start_ns = jr->start,
		.end_ns = kvb_wall_ns(),
		.cgroup = rc ? NULL : e->job_cgroup,
		.witnesses = &jr->m.witnesses,
		.boot_id = e->boot_id, /* the boot is the unit of diff: each job names its own (issue 38) */
	};
	struct kvb_error e2;
	for (const cJSON *kv = !rc && jr->m.job_classifiers ? jr->m.job_classifiers->child : NULL; kv; kv = kv->next)
		if (!cJSON_GetObjectItemCaseSensitive(jr->cls, kv->string))
			cJSON_AddItemToObject(jr->cls, kv->string, cJSON_Duplicate(kv, 1));
	/* a `readback: record` knob the kernel did not take: the job ran with the value found */
	for (const cJSON *kv = !rc && e->knob_recorded ? e->knob_recorded->child : NULL; kv; kv = kv->next) {
		cJSON_DeleteItemFromObjectCaseSensitive(jr->cls, kv->string);
		cJSON_AddItemToObject(jr->cls, kv->string, cJSON_Duplicate(kv, 1));
	}
	if (kvb_store_job_commit(e->st, e->run_id, row->id, &o, rc ? NULL : &jr->m, jr->cls, &e2)) {
		kvb_err("cannot store job %d: %s", j->seq, e2.msg);
		snprintf(e->store_err, sizeof(e->store_err), "%.1000s", e2.msg);
		stored = KVB_ESTORE;
	}
	snprintf(row->status, sizeof(row->status), "%s", o.status);
	row->attempts = jr->attempt;
	/* each is an event of this job (log_to_events), so diff footnotes its cells */
	for (size_t k = 0; !rc && k < jr->m.nnotes; k++)
		kvb_warn("job %lld: %s", (long long)row->id, jr->m.notes[k]);
	warn_witnesses(row->id, &jr->m.witnesses);
	return stored;
}

/* The finished ok job's line in a log (not a terminal): its number nth, how it ended, the headline metric. */
static void job_done_line(struct engine *e, const struct job_run *jr, size_t nth)
{
	const struct kvb_plan_job *j = jr->j;
	fprintf(stderr, "kvbench: [job %zu/%zu] %s %s #%d (round %d%s%s) %s", nth, e->todo,
		e->a->variants[j->variant].name, j->spec->id, j->iteration, j->round, e->board ? ", board " : "",
		e->board ? e->board : "",
		j->warmup ? "warm-up" : jr->left_out ? "disturbed, left out" : e->instr_err ? "instrument-failed" : "ok");
	if (jr->m.n)
		fprintf(stderr, ": %s %.6g %s", jr->m.v[0].name, jr->m.v[0].value, jr->m.v[0].units);
	fputc('\n', stderr);
}

static int signalled(void)
{
	return g_signals != 0;
}

/*
 * Before a disturbed job runs again: a second of quiet host (kvb_host_wait_quiet), at most
 * KVB_HOST_QUIET_WAIT_MS. Returns 0 when it came; else the host is busy (e->host_busy: the
 * jobs after this one do not wait either, until one comes out clean) and returns -1.
 */
static int wait_quiet_host(struct engine *e, const struct kvb_plan_job *j)
{
	struct kvb_host_limits lim = { e->o->host_limit_pct > 0 ? e->o->host_limit_pct : KVB_HOST_LIMIT_PCT };
	struct kvb_target_host th = { 0 };
	unsigned waited = 0;
	double others = NAN;
	if (!e->target.ops->host || !e->target.ops->host(&e->target, &th))
		memset(&th, 0, sizeof(th));
	if (kvb_host_wait_quiet(kvb_host_proc_root(), &lim, th.pid, th.cpus, KVB_HOST_QUIET_WAIT_MS, signalled, &waited,
				&others)) {
		if (waited >= 1500)
			kvb_info("%s %s #%d: the host was quiet again after %.0f s", e->a->variants[j->variant].name,
				 j->spec->id, j->iteration, waited / 1000.0);
		return 0;
	}
	if (g_signals)
		return -1;
	e->host_busy = 1;
	if (th.pid > 0 && th.cpus > 0 && !isnan(others))
		kvb_info("the host stayed busy for %.0f s (other work kept %.1f of its %ld CPUs busy; the %d-CPU %s needs %d): "
			 "jobs it disturbs are left out until one runs clean",
			 waited / 1000.0, others, sysconf(_SC_NPROCESSORS_ONLN), th.cpus, th.process ? th.process : "board",
			 th.cpus);
	else
		kvb_info("the host stayed busy for %.0f s (CPU pressure above %.3g %% every second): jobs it disturbs are left "
			 "out until one runs clean",
			 waited / 1000.0, lim.pct);
	return -1;
}

/*
 * Before a compared job on a guest whose clock is the host's (a QEMU board; not a duet, whose
 * two sides meet the same host, nor while the host is known busy): a quiet second first, so a
 * job does not start into a neighbour's burst only to be run again (issue 38: 30 s a hackbench
 * job under a one-CPU neighbour, 3 s without). Costs a second a job on a quiet host.
 */
static void quiet_before_job(struct engine *e, const struct kvb_plan_job *j, int dlimit)
{
	struct kvb_target_host th;
	if (j->warmup || !dlimit || e->host_busy || !e->target.ops->host || !e->target.ops->host(&e->target, &th) ||
	    th.pid <= 0 || th.virtual_clock)
		return;
	wait_quiet_host(e, j);
}

/*
 * An attempt the host disturbed (§14, issue 38): while re-runs are left (dlimit) it is kept as
 * evidence (job_attempt 'disturbed' with its metrics and witnesses) and the job runs again in
 * the same boot: returns 0 and one more attempt is allowed. Else (no re-run left, or a signal
 * came) the attempt is the job's last: in a duet it is kept as ok with its witnesses, elsewhere
 * the job is stored 'disturbed', never compared; returns 1.
 */
static int disturbed_attempt(struct engine *e, struct job_run *jr, int dlimit)
{
	const struct kvb_plan_job *j = jr->j;
	char *what = disturbed_text(&jr->m.witnesses);
	struct kvb_error e2;
	if (jr->reruns < dlimit && !g_signals && !e->host_busy && !wait_quiet_host(e, j)) {
		char *why = kvb_xasprintf("disturbed by the host: %s; run again", what);
		if (e->tty)
			fputc('\n', stderr);
		kvb_info("[job %zu/%zu] %s %s #%d attempt %d disturbed by the host (%s): run again (%d of %d)", e->done + 1,
			 e->todo, e->a->variants[j->variant].name, j->spec->id, j->iteration, jr->attempt, what,
			 jr->reruns + 1, dlimit);
		if (kvb_store_attempt_evidence(e->st, e->run_id, jr->row->id, jr->attempt, "disturbed", why, jr->a0,
					       kvb_wall_ns(), &jr->m, &jr->m.witnesses, &e2))
			kvb_err("%s", e2.msg);
		jr->reruns++;
		free(why);
		free(what);
		return 0;
	}
	if (e->a->order != KVB_ORDER_DUET) {
		jr->left_out = 1;
		snprintf(jr->left_out_why, sizeof(jr->left_out_why), "disturbed by the host in %d attempt(s): %s; left out%s",
			 jr->reruns + 1, what, e->host_busy && jr->reruns < dlimit ? " (the host stayed busy)" : "");
	}
	free(what);
	return 1;
}

/*
 * Runs one job with retries and commits it. Returns KVB_OK (the job is final: ok
 * or failed), KVB_EBOARD when the board stopped answering (the variant is
 * abandoned on one board; in a pool the job stays pending for another board),
 * KVB_ESTORE when results cannot be stored (the run stops; a job whose own
 * artifacts could not be written is not committed, so --resume redoes it).
 */
static enum kvb_err run_job(struct engine *e, size_t idx)
{
	g_thread_engine = e;
	const struct kvb_plan_job *j = &e->plan.jobs[idx];
	struct kvb_job_row *row = &e->rows[idx];
	/* max_retries + 1 attempts in this invocation: a job --resume planned again gets them afresh, and in a
	 * pool the attempts made on a board that was lost do not count against the job */
	int max_attempts = row->attempts + e->a->max_retries + 1;
	enum kvb_err abandon = KVB_OK;
	struct job_run jr = { .j = j, .row = row, .start = kvb_wall_ns(), .attempt = row->attempts, .rc = KVB_ETARGET };
	int interrupted = 0, dlimit = retry_disturbed_limit(e);

	jr.cls = job_classifiers(e, j);
	jr.a0 = jr.start;
	kvb_error_clear(&jr.err);
	e->cur_job_id = row->id;
	if (kvb_store_job_start(e->st, row->id, jr.start, &jr.err))
		kvb_err("%s", jr.err.msg);
	kvb_metrics_init(&jr.m);
	quiet_before_job(e, j, dlimit);
	while (jr.attempt < max_attempts + jr.reruns) {
		jr.a0 = kvb_wall_ns();
		jr.attempt++;
		kvb_metrics_release(&jr.m);
		kvb_metrics_init(&jr.m);
		free(e->instr_err);
		e->instr_err = NULL;
		progress(e, j, jr.attempt > 1 ? "retry" : "");
		jr.rc = attempt_job(e, j, jr.attempt, &jr.m, &jr.err);
		if (!jr.rc) {
			int disturbed = host_disturbed(&jr.m.witnesses) > 0;
			if (!disturbed)
				e->host_busy = 0; /* the host let a job run clean: disturbed ones may wait again */
			if (!j->warmup && disturbed && !disturbed_attempt(e, &jr, dlimit))
				continue; /* kept as evidence; the job runs again in this boot */
			break;
		}
		if (jr.rc == KVB_ESTORE) {
			/* our side failed (disk full): the job is not at fault and is left for --resume */
			if (e->tty)
				fputc('\n', stderr);
			kvb_err("job %d: %s", j->seq, jr.err.msg);
			snprintf(e->store_err, sizeof(e->store_err), "%.1000s", jr.err.msg);
			job_run_release(&jr);
			e->cur_job_id = 0;
			return KVB_ESTORE;
		}
		if (e->tty)
			fputc('\n', stderr);
		if (g_signals) {
			interrupted = 1; /* not the job's failure, nor the board's: left for --resume */
			break;
		}
		kvb_warn("[job %zu/%zu] %s %s #%d attempt %d failed: %s", e->done + 1, e->todo,
			 e->a->variants[j->variant].name, j->spec->id, j->iteration, jr.attempt, jr.err.msg);
		int64_t a1 = kvb_wall_ns();
		if (jr.rc == KVB_ETARGET && !target_alive(e) && !board_came_back(e)) {
			abandon = KVB_EBOARD;
			break;
		}
		if (g_signals || e->knob_failed)
			break;
		/* a retry follows: this attempt gets its own row (the last one is written with the job) */
		if (jr.attempt < max_attempts + jr.reruns) {
			struct kvb_error e2;
			if (kvb_store_attempt_add(e->st, row->id, jr.attempt, "failed", jr.err.msg, jr.a0, a1, &e2))
				kvb_err("%s", e2.msg);
		}
	}
	if (interrupted) {
		job_interrupted(e, &jr);
		job_run_release(&jr);
		e->cur_job_id = 0;
		return KVB_OK;
	}
	if (abandon == KVB_EBOARD && e->parent) {
		job_board_lost(e, &jr);
		job_run_release(&jr);
		e->cur_job_id = 0; /* what follows (the board's events) is not this job's */
		return KVB_EBOARD;
	}
	if (commit_job(e, &jr))
		abandon = KVB_ESTORE;
	if (jr.rc || e->instr_err)
		e->failures++;
	size_t nth = count_job_done(e);
	if (!e->tty && !jr.rc)
		job_done_line(e, &jr, nth); /* one line with the headline metric */
	job_run_release(&jr);
	e->cur_job_id = 0;
	if (abandon == KVB_EBOARD) {
		char why[KVB_ERRMSG_MAX + 64];
		snprintf(why, sizeof(why), "target stopped answering: %s", jr.err.msg);
		fail_variant(e, j->variant, why, KVB_EBOARD);
	}
	return abandon;
}

/*
 * Fetches and verifies every file a variant names, and reads the kernel's
 * version string so the identity check knows what must be running. A
 * variant whose files cannot be had gets the reason in *why (owned).
 */
static void resolve_variant(struct engine *e, struct kvb_variant *v, char **why)
{
	const char *src[KVB_VF_N] = { v->kernel, v->dtb, v->initrd, v->boot_image, v->modules };
	static const char *const names[KVB_VF_N] = { "kernel", "dtb", "initrd", "boot_image", "modules" };
	struct kvb_error err;
	*why = v->unusable ? kvb_xstrdup(v->unusable) : NULL;
	for (int i = 0; i < KVB_VF_N && !*why; i++) {
		struct kvb_fetched f;
		char what[256];
		if (!src[i] || v->local[i])
			continue;
		snprintf(what, sizeof(what), "variant '%s' %s", v->name, names[i]);
		if (kvb_fetch(src[i], i == KVB_VF_KERNEL ? v->sha256 : NULL, e->o->allow_unverified, what, &f, &err)) {
			*why = kvb_xstrdup(err.msg);
			break;
		}
		v->local[i] = f.path;
		f.path = NULL;
		memcpy(v->local_sha256[i], f.sha256, sizeof(f.sha256));
		kvb_fetched_release(&f);
	}
	if (!*why && (v->local[KVB_VF_KERNEL] || v->local[KVB_VF_BOOT_IMAGE]) && !v->expected_release) {
		struct kvb_kimage_id id;
		/* a boot image given whole is what fastboot flashes: its kernel is the one to expect */
		int from_bootimg = v->local[KVB_VF_BOOT_IMAGE] &&
				   (!v->local[KVB_VF_KERNEL] ||
				    (kvb_flasher_find(e->plat->flash_method)->caps & KVB_FLASH_WHOLE_BOOT_IMAGE));
		memset(&id, 0, sizeof(id));
		if (from_bootimg ? kvb_bootimg_identify(v->local[KVB_VF_BOOT_IMAGE], &id, NULL, &err)
						: kvb_kimage_identify(v->local[KVB_VF_KERNEL], &id, &err)) {
			kvb_warn("variant '%s': %s; the identity check will only compare the cmdline", v->name, err.msg);
		} else {
			v->expected_release = id.release ? kvb_xstrdup(id.release) : NULL;
			v->expected_version = id.version ? kvb_xstrdup(id.version) : NULL;
		}
		kvb_kimage_id_release(&id);
	}
}

/* What resume hooks read of the run's earlier jobs (struct kvb_run_memory), through e's store connection. */
static int run_classifier(void *arg, const char *key, char *buf, size_t size)
{
	struct engine *e = arg;
	return kvb_store_run_classifier(e->st, e->run_id, key, buf, size) == 1;
}

/* A resumed run: each workload's state on e's board is filled by its resume hook when first made. */
static void resume_workloads(struct engine *e)
{
	e->resumed = (struct kvb_run_memory){ .classifier = run_classifier, .arg = e };
	e->wstates.resumed = &e->resumed;
}

/* Warm-up jobs of a spec that sets none: 1 where every round is a fresh boot (its first runs
 * pay for the boot: page cache, first-run work), else 0 (DESIGN.md §15). */
static int default_warmup(struct engine *e)
{
	return kvb_flasher_boots_each_round(kvb_flasher_find(e->plat->flash_method)) ? 1 : 0;
}

/* The plan's options: the run's rounds (--rounds, else the default), the spare ones of --until-decided
 * apart, and the warm-up of a spec that sets none. */
static struct kvb_plan_opts plan_opts(struct engine *e)
{
	const struct kvb_run_opts *o = e->o;
	int rounds = o->rounds > 0 ? o->rounds : kvb_engine_default_rounds(e->plat, e->a);
	struct kvb_plan_opts po = { .rounds = rounds, .default_warmup = default_warmup(e) };
	if (o->rounds > max_iterations(e->a) && !o->decide && !o->resume_run && max_iterations(e->a) > 0)
		kvb_warn("--rounds %d: the agenda's specs have at most %d iteration%s, split over the rounds: "
			 "%d of the %d rounds have no jobs (raise iterations:)",
			 o->rounds, max_iterations(e->a), max_iterations(e->a) == 1 ? "" : "s",
			 o->rounds - max_iterations(e->a), o->rounds);
	if (o->decide && o->decide->spare_rounds > 0 && rounds > o->decide->spare_rounds) {
		/* --until-decided on a board on this host: the rounds beyond the looks stand in for disturbed ones */
		po.spare_rounds = o->decide->spare_rounds;
		po.rounds = rounds - po.spare_rounds;
	}
	return po;
}

/* --resume: each variant's files are had again, and its row is found in the run. */
static int find_variants(struct engine *e, struct kvb_error *err)
{
	int rc;
	for (size_t v = 0; v < e->a->nvariants; v++) {
		resolve_variant(e, &e->a->variants[v], &e->variant_why[v]);
		if ((rc = kvb_store_variant_find(e->st, e->run_id, e->a->variants[v].name, &e->variant_ids[v], err)))
			return rc;
		if (!e->variant_ids[v])
			return kvb_error_set(err, KVB_ESTORE, "run %lld has no variant '%s'", (long long)e->run_id,
					     e->a->variants[v].name);
	}
	return KVB_OK;
}

/* A new run's row (e->run_id), with its default warm-up (po) and --until-decided's settings. */
static int store_run(struct engine *e, const struct kvb_plan_opts *po, struct kvb_error *err)
{
	const struct kvb_run_opts *o = e->o;
	int rc;
	/* the platform is stored for the record, never its secrets (ssh passphrase ...) */
	cJSON *redacted = kvb_redact_secrets(e->plat->doc.root);
	char *aj = kvb_engine_agenda_json(e->a), *pj = cJSON_PrintUnformatted(redacted);
	char *ppath = e->plat->file ? realpath(e->plat->file, NULL) : NULL;
	cJSON_Delete(redacted);
	struct kvb_run_info ri = {
		.agenda_path = e->a->file,
		.agenda_json = aj,
		.platform = e->plat->name,
		.platform_json = pj,
		.rounds = po->rounds + po->spare_rounds, /* every round, the spare ones too */
		.exec_order = kvb_exec_order_name(e->a->order),
		.max_retries = e->a->max_retries,
		.command_line = o->command_line,
		.boots_each_round = kvb_flasher_boots_each_round(kvb_flasher_find(e->plat->flash_method)),
		.platform_path = ppath,
	};
	rc = kvb_store_run_begin(e->st, &ri, &e->run_id, err);
	if (!rc)
		rc = kvb_store_run_set_warmup(e->st, e->run_id, po->default_warmup, err);
	free(aj);
	free(pj);
	free(ppath);
	if (!rc && o->decide)
		rc = kvb_decide_save(e->st, e->run_id, o->decide, err);
	return rc;
}

/* A new run's variants: each one's files are had, and its row stored (e->variant_ids) with what they were. */
static int store_variants(struct engine *e, struct kvb_error *err)
{
	int rc = KVB_OK;
	for (size_t v = 0; v < e->a->nvariants && !rc; v++) {
		struct kvb_variant *var = &e->a->variants[v];
		cJSON *rtj = kvb_runtime_to_json(&var->rt);
		char *rts = cJSON_PrintUnformatted(rtj), *why = NULL;
#define SHA(i) (var->local[i] ? var->local_sha256[i] : NULL)
		resolve_variant(e, var, &why);
		struct kvb_variant_row vr = {
			.name = var->name, .position = (int)v, .kernel = var->kernel,
			.kernel_sha256 = SHA(KVB_VF_KERNEL), .dtb = var->dtb, .dtb_sha256 = SHA(KVB_VF_DTB),
			.initrd = var->initrd, .initrd_sha256 = SHA(KVB_VF_INITRD), .boot_image = var->boot_image,
			.boot_image_sha256 = SHA(KVB_VF_BOOT_IMAGE), .modules = var->modules,
			.modules_sha256 = SHA(KVB_VF_MODULES), .cmdline = var->cmdline,
			.expected_release = var->expected_release, .expected_version = var->expected_version,
			.runtime_json = rts,
		};
#undef SHA
		rc = kvb_store_variant_add(e->st, e->run_id, &vr, &e->variant_ids[v], err);
		e->variant_why[v] = why;
		free(rts);
		cJSON_Delete(rtj);
	}
	return rc;
}

/* The job rows of the plan: what each job is, with its parameters and knobs as JSON (owned by the rows). */
static void fill_rows(struct engine *e)
{
	for (size_t i = 0; i < e->plan.n; i++) {
		const struct kvb_plan_job *j = &e->plan.jobs[i];
		cJSON *rtj;
		struct kvb_runtime rt;
		e->rows[i].variant_id = e->variant_ids[j->variant];
		e->rows[i].seq = j->seq;
		e->rows[i].round = j->round;
		e->rows[i].iteration = j->iteration;
		e->rows[i].spec_id = j->spec->id;
		e->rows[i].workload = j->spec->workload;
		e->rows[i].label = j->spec->label;
		e->rows[i].section = j->spec->section;
		e->rows[i].params_json = cJSON_PrintUnformatted(j->spec->params);
		job_runtime(e, j, &rt);
		rtj = kvb_runtime_to_json(&rt);
		e->rows[i].runtime_json = cJSON_PrintUnformatted(rtj);
		cJSON_Delete(rtj);
		kvb_runtime_release(&rt);
	}
}

/* --resume: what failed or was skipped is planned again, the rows' states are loaded, the run is running again. */
static int resume_plan(struct engine *e, struct kvb_error *err)
{
	int64_t replanned = 0;
	int rc, killed = 0;
	/* a boot a killed run left with jobs to run (SIGKILL, a crash: nobody marked it) is interrupted;
	 * before the replan, which makes failed and skipped jobs pending again in boots that ended */
	rc = kvb_store_boots_interrupted(e->st, e->run_id, &killed, err);
	if (!rc && killed)
		kvb_store_event(e->st, e->run_id, "info", "resume: %d boot%s left with jobs to run marked interrupted", killed,
				killed == 1 ? "" : "s");
	/* what failed or was skipped runs again: a resume never leaves a failure as it found it and calls it done */
	if (!rc)
		rc = kvb_store_replan(e->st, e->run_id, &replanned, err);
	if (!rc && replanned) {
		kvb_info("run %lld: %lld failed or skipped job%s planned again", (long long)e->run_id,
			 (long long)replanned, replanned == 1 ? "" : "s");
		kvb_store_event(e->st, e->run_id, "info", "resume: %lld failed or skipped job%s planned again",
				(long long)replanned, replanned == 1 ? "" : "s");
	}
	if (!rc)
		rc = kvb_store_plan_load(e->st, e->run_id, e->rows, e->plan.n, err);
	if (!rc)
		rc = kvb_store_run_status(e->st, e->run_id, "running", 0, err);
	if (!rc)
		kvb_store_event(e->st, e->run_id, "info", "resumed");
	return rc;
}

/* The run's plan and rows, stored for a new run or reloaded from the store for --resume (e->run_id). */
static int setup_run(struct engine *e, struct kvb_error *err)
{
	const struct kvb_run_opts *o = e->o;
	struct kvb_plan_opts po = plan_opts(e);
	int rc;
	if (o->resume_run > 0 && (rc = kvb_store_run_get_warmup(e->st, o->resume_run, &po.default_warmup, err)))
		return rc;
	kvb_plan_build_opts(&e->plan, e->a, &po);
	e->rows = kvb_xcalloc(e->plan.n + 1, sizeof(*e->rows));
	e->variant_ids = kvb_xcalloc(e->a->nvariants + 1, sizeof(*e->variant_ids));
	e->variant_failed = kvb_xcalloc(e->a->nvariants + 1, sizeof(*e->variant_failed));
	e->variant_why = kvb_xcalloc(e->a->nvariants + 1, sizeof(*e->variant_why));
	if (o->resume_run > 0) {
		e->run_id = o->resume_run;
		if ((rc = find_variants(e, err)))
			return rc;
	} else {
		if ((rc = store_run(e, &po, err)) || (rc = store_variants(e, err)))
			return rc;
		if (o->on_variants && (rc = o->on_variants(o->on_variants_arg, e->st, e->run_id, err)))
			return rc;
	}
	fill_rows(e);
	if (o->resume_run > 0) {
		rc = resume_plan(e, err);
		if (!rc)
			resume_workloads(e); /* jobs still to run work as the earlier ones did (rt-app: their pLoad) */
	} else {
		rc = kvb_store_plan_add(e->st, e->run_id, e->rows, e->plan.n, err);
	}
	return rc;
}

static void release_engine(struct engine *e)
{
	kvb_workload_states_release(&e->wstates);
	for (size_t i = 0; e->rows && i < e->plan.n; i++) {
		free(e->rows[i].params_json);
		free(e->rows[i].runtime_json);
	}
	free(e->rows);
	free(e->job_cgroup);
	cJSON_Delete(e->knob_recorded);
	free(e->variant_ids);
	free(e->variant_failed);
	for (size_t v = 0; e->variant_why && v < e->a->nvariants; v++)
		free(e->variant_why[v]);
	free(e->variant_why);
	free(e->artdir);
	free(e->instr_err);
	kvb_instr_set_release(&e->instr);
	kvb_plan_release(&e->plan);
	if (e->target_open)
		kvb_target_close(&e->target);
}

static int is_final(const char *status)
{
	return strcmp(status, "pending") && strcmp(status, "running");
}

/*
 * The pool's seam (pool.h): a worker is a copy of the engine bound to one
 * board, with its own target, instruments and SQLite connection; the plan,
 * rows and variant arrays are shared (a unit's rows are touched by one worker
 * at a time, under the pool's hand-over).
 */
static void *pool_worker_new(void *eng, const struct kvb_pool_board *b, struct kvb_pool_board_ctl *ctl,
			     struct kvb_error *err)
{
	struct engine *e = eng, *w = kvb_xmalloc(sizeof(*w));
	*w = *e;
	w->parent = e;
	w->pool_ctl = ctl;
	w->bu = NULL;
	w->board = b->name;
	w->plat = (struct kvb_platform *)&b->plat;
	w->target_open = 0;
	w->failures = 0;
	w->target_failures = 0;
	w->done = 0;
	w->instr_err = NULL;
	w->lost_why = NULL;
	w->knob_recorded = NULL;
	memset(&w->instr, 0, sizeof(w->instr));
	w->wstates = (struct kvb_workload_states)KVB_WORKLOAD_STATES_INIT; /* a board's own: nothing shared */
	if (e->wstates.resumed)
		resume_workloads(w);
	if (kvb_instr_set_build(&w->instr, w->plat, w->a->instruments, err) ||
	    kvb_store_open(&w->st, e->st->path, KVB_STORE_RW, err)) {
		kvb_instr_set_release(&w->instr);
		free(w);
		return NULL;
	}
	return w;
}

static int pool_connect(void *wp, struct kvb_error *err)
{
	struct engine *w = wp;
	if (kvb_target_open(&w->target, w->plat, err))
		return err->code;
	w->target.cancel = &g_cancel;
	w->target_open = 1;
	if (w->target.ops->batch && w->instr.n)
		return kvb_error_set(err, KVB_EINPUT, "%s: instruments cannot run inside a %s job (yet): run without them",
				     w->plat->file, w->target.ops->name);
	return KVB_OK;
}

/*
 * The batch target's name for plan job idx's commands: "job IDX SEQ-SPEC" (the
 * target makes its test case name of the part after the index).
 */
static void batch_key(const struct engine *e, size_t idx, char *buf, size_t n)
{
	snprintf(buf, n, "job %zu %04d-%s", idx, e->plan.jobs[idx].seq, e->plan.jobs[idx].spec->id);
}

/* Records (variant v, round) on a batch target: the identity check, then each job not final (all, with rows NULL). */
static void batch_record(struct engine *w, size_t v, int round, const struct kvb_job_row *rows)
{
	const struct kvb_target_batch_ops *b = w->target.ops->batch;
	struct kvb_identity id;
	struct kvb_error ignore;
	char key[192];
	memset(&id, 0, sizeof(id));
	b->record(&w->target);
	w->target.recording = 1;
	b->mark(&w->target, "identity");
	kvb_identity_check(&w->target, &w->a->variants[v], &id, &ignore);
	kvb_identity_release(&id);
	for (size_t i = 0; i < w->plan.n; i++) {
		struct kvb_metrics m;
		if (w->plan.jobs[i].variant != v || w->plan.jobs[i].round != round || (rows && is_final(rows[i].status)))
			continue;
		batch_key(w, i, key, sizeof(key));
		b->mark(&w->target, key);
		kvb_metrics_init(&m);
		attempt_job(w, &w->plan.jobs[i], rows ? rows[i].attempts + 1 : 1, &m, &ignore);
		kvb_metrics_release(&m);
	}
	w->target.recording = 0;
}

/* The batch was submitted: stored at once, so a kvbench killed from now on leaves no orphan (--resume finds it). */
static void batch_submitted(void *arg, int64_t id, const char *url, const char *state)
{
	struct batch_unit *bu = arg;
	struct engine *w = bu->w;
	struct kvb_error err;
	if (kvb_store_lava_job_add(w->st, w->run_id, w->variant_ids[bu->v], bu->u.round, id, url, state, &err))
		kvb_err("%s", err.msg);
}

static void batch_ended(void *arg, int64_t id, const char *how)
{
	struct batch_unit *bu = arg;
	struct kvb_error err;
	if (kvb_store_lava_job_ended(bu->w->st, bu->w->run_id, id, how, &err))
		kvb_err("%s", err.msg);
}

static void batch_keep_log(struct engine *w, const struct kvb_batch_result *res)
{
	struct kvb_error e2;
	if (res->log_path[0] && kvb_store_run_artifact(w->st, w->run_id, "lava-log", res->log_path, &e2))
		kvb_warn("%s", e2.msg);
}

/* The unit's batch ends (finish: results published, the batch waited for, its log kept). */
static void batch_unit_end(struct engine *w)
{
	struct batch_unit *bu = w->bu;
	struct kvb_batch_result res;
	struct kvb_error err;
	if (!bu)
		return;
	kvb_error_clear(&err);
	if (w->target.ops->batch->finish(&w->target, &bu->u, &res, &err))
		kvb_warn("variant %s round %d: %s", w->a->variants[bu->v].name, bu->u.round, err.msg);
	batch_keep_log(w, &res);
	free(bu->dir);
	free(bu->reattach_state);
	free(bu);
	w->bu = NULL;
}

/*
 * A batch target (LAVA, target.h): the unit is run once with the target
 * recording, sent as one job, then brought up and its jobs run as on a live
 * board, the target answering from the job's output. KVB_EJOBS: the job's own
 * failure, final (another board would not do better). On --resume, the unit's
 * job left in flight by an earlier kvbench is handed to the target (reattach).
 */
static int batch_bring_up(struct engine *w, size_t v, int round, struct kvb_error *err)
{
	const struct kvb_target_batch_ops *b = w->target.ops->batch;
	struct kvb_batch_result res;
	struct kvb_error ignore;
	struct batch_unit *bu;
	int64_t rid = 0;
	int rc;

	g_thread_engine = w;
	batch_unit_end(w); /* a unit given up without its end (cannot happen; cheap) */
	batch_record(w, v, round, w->rows);
	bu = kvb_xcalloc(1, sizeof(*bu));
	bu->w = w;
	bu->v = v;
	bu->dir = boot_dir(w, v, round);
	{
		/* the run's identity in the job name (the DB's path and run id, hashed): a job LAVA holds under
		 * this name is this unit's, whatever other kvbench shares the lab */
		char *abs = realpath(w->st->path, NULL), hex[65];
		char *ident = kvb_xasprintf("%s:%lld", abs ? abs : w->st->path, (long long)w->run_id);
		kvb_sha256_mem(ident, strlen(ident), hex);
		snprintf(bu->name, sizeof(bu->name), "kvbench run %lld variant %s round %d [%.8s]", (long long)w->run_id,
			 w->a->variants[v].name, round, hex);
		free(ident);
		free(abs);
	}
	if (kvb_mkdir_nofollow(bu->dir, 0755)) {
		rc = kvb_error_set(err, KVB_ESTORE, "cannot create artifact directory %s: %s", bu->dir, strerror(errno));
		free(bu->dir);
		free(bu);
		return rc;
	}
	if (kvb_store_lava_job_in_flight(w->st, w->run_id, w->variant_ids[v], round, &rid, &bu->reattach_state, &ignore))
		kvb_warn("%s", ignore.msg);
	bu->u = (struct kvb_batch_unit){ .variant = &w->a->variants[v], .round = round, .name = bu->name,
					 .artifact_dir = bu->dir, .stop = &g_signals, .reattach_id = rid,
					 .reattach_state = bu->reattach_state, .submitted = batch_submitted,
					 .ended = batch_ended, .arg = bu };
	w->bu = bu;
	rc = b->run(&w->target, &bu->u, &res, err);
	w->lava_job_id = res.job_id;
	snprintf(w->lava_url, sizeof(w->lava_url), "%s", res.url);
	snprintf(w->device, sizeof(w->device), "%s", res.device); /* LAVA chose the board */
	batch_keep_log(w, &res);
	if (rc) {
		struct kvb_boot_row br = { .round = round, .started_ns = kvb_wall_ns(), .ready_ns = kvb_wall_ns(),
					   .status = "failed", .error = err->msg, .board = w->device[0] ? w->device : w->board,
					   .lava_job_id = res.job_id, .lava_url = res.url[0] ? res.url : NULL };
		batch_unit_end(w);
		if (kvb_store_boot_record(w->st, w->variant_ids[v], &br, NULL, &ignore))
			kvb_err("%s", ignore.msg);
		if (res.final)
			err->code = KVB_EJOBS;
		return res.final ? KVB_EJOBS : rc;
	}
	b->mark(&w->target, "identity");
	if ((rc = bring_up(w, v, round, err)))
		batch_unit_end(w); /* the wrong kernel: the job is told and ended */
	return rc;
}

static int pool_bring_up(void *wp, size_t v, int round, struct kvb_error *err)
{
	struct engine *w = wp;
	if (w->target.ops->batch)
		return batch_bring_up(w, v, round, err);
	return bring_up(wp, v, round, err);
}

/* Job idx was stored: its status and metrics go back into the batch, and its times are the board's. */
static void batch_job_done(struct engine *w, size_t idx, const char *key)
{
	const struct kvb_target_batch_ops *b = w->target.ops->batch;
	int64_t t0 = 0, t1 = 0;
	struct kvb_error err;
	cJSON *m = kvb_store_job_metrics_json(w->st, w->rows[idx].id);
	b->report(&w->target, key, w->rows[idx].status, m);
	cJSON_Delete(m);
	b->span(&w->target, key, &t0, &t1);
	/* the job ran on the board when its log says, not when kvbench read it back (show jobs' duration_s) */
	if (t0 && t1 >= t0 && kvb_store_job_times(w->st, w->rows[idx].id, t0, t1, &err))
		kvb_warn("%s", err.msg);
}

static int pool_job(void *wp, size_t idx, struct kvb_error *err)
{
	struct engine *w = wp;
	enum kvb_err ab;
	char key[192];
	if (w->target.ops->batch) { /* the job's commands in the batch's output */
		batch_key(w, idx, key, sizeof(key));
		w->target.ops->batch->mark(&w->target, key);
	}
	ab = run_job(w, idx);
	if (ab == KVB_OK && w->target.ops->batch)
		batch_job_done(w, idx, key);
	if (ab == KVB_EBOARD)
		kvb_error_set(err, KVB_EBOARD, "%s", w->lost_why ? w->lost_why : "target stopped answering");
	else if (ab == KVB_ESTORE)
		kvb_error_set(err, KVB_ESTORE, "%s", w->store_err);
	return ab;
}

static void pool_unit_done(void *wp, size_t v, int round)
{
	struct engine *w = wp;
	(void)v;
	(void)round;
	if (w->target.ops->batch)
		batch_unit_end(w);
}

static int pool_pending(void *eng, size_t idx)
{
	return !is_final(((struct engine *)eng)->rows[idx].status);
}

static void pool_unit_failed(void *wp, size_t v, int round, const char *why)
{
	struct engine *w = wp;
	struct kvb_error err;
	skip_jobs(w, v, round, why);
	if (w->variant_failed[v])
		return;
	w->variant_failed[v] = 1;
	w->failures++;
	kvb_err("variant %s failed: %s", w->a->variants[v].name, why); /* its event row: log_to_events */
	if (kvb_store_variant_status(w->st, w->variant_ids[v], "failed", why, &err))
		kvb_err("%s", err.msg);
}

static void pool_event(void *wp, const char *level, const char *msg)
{
	struct engine *w = wp, *prev = g_thread_engine;
	/* errors and warnings become event rows through the run's log hook (log_to_events), under
	 * the board's engine while this message is logged (any thread may say it, pool.c) */
	g_thread_engine = w;
	if (!strcmp(level, "error")) {
		kvb_err("%s", msg);
	} else if (!strcmp(level, "warning")) {
		kvb_warn("%s", msg);
	} else {
		kvb_info("%s", msg);
		kvb_store_event(w->st, w->run_id, level, "%s", msg);
	}
	g_thread_engine = prev;
}

/* Duet: --until-decided's look after round r, made by one side while the other waits (duet.c). */
static int pool_round_done(void *wp, int round)
{
	struct engine *w = wp;
	g_thread_engine = w;
	return w->o->decide ? until_decided_stop(w, round) : 0;
}

static int pool_interrupted(void *eng)
{
	struct engine *e = eng;
	size_t done = 0;
	for (size_t i = 0; e->o->max_jobs && i < e->plan.n; i++)
		done += is_final(e->rows[i].status) && e->rows[i].attempts > 0;
	return g_signals || (e->o->max_jobs && (int)done >= e->o->max_jobs);
}

static void pool_worker_free(void *eng, void *wp)
{
	struct engine *e = eng, *w = wp;
	if (g_thread_engine == w)
		g_thread_engine = NULL; /* this thread logs for the run's engine again */
	e->failures += w->failures;
	e->target_failures += w->target_failures;
	if (w->store_err[0])
		memcpy(e->store_err, w->store_err, sizeof(e->store_err));
	batch_unit_end(w);
	if (w->target_open)
		kvb_target_close(&w->target);
	kvb_instr_set_release(&w->instr);
	free(w->instr_err);
	free(w->lost_why);
	cJSON_Delete(w->knob_recorded);
	kvb_workload_states_release(&w->wstates);
	kvb_store_close(w->st);
	free(w);
}

/* A variant whose boots all ran on one board of several is confounded with it: a warning (an event). */
static void warn_unspread(struct engine *e)
{
	struct kvb_strv msgs = KVB_STRV_INIT;
	struct kvb_error err;
	if (kvb_store_unspread_variants(e->st, e->run_id, &msgs, &err))
		kvb_warn("%s", err.msg);
	for (size_t i = 0; i < msgs.n; i++)
		kvb_warn("%s", msgs.v[i]);
	kvb_strv_release(&msgs);
}

static int pool_run(struct engine *e, const struct kvb_pool_list *l, int *interrupted, int *store_failed,
		    struct kvb_error *err)
{
	static const struct kvb_pool_hooks hooks = {
		.worker_new = pool_worker_new, .connect = pool_connect, .bring_up = pool_bring_up, .job = pool_job,
		.pending = pool_pending, .unit_failed = pool_unit_failed, .event = pool_event, .unit_done = pool_unit_done,
		.interrupted = pool_interrupted, .worker_free = pool_worker_free, .round_done = pool_round_done,
	};
	const char **names = kvb_xcalloc(e->a->nvariants + 1, sizeof(*names));
	int rc;
	for (size_t v = 0; v < e->a->nvariants; v++)
		names[v] = e->a->variants[v].name;
	if (e->a->order == KVB_ORDER_DUET) /* duet.c: the same hooks, two boards in lockstep */
		rc = kvb_duet_run(&hooks, e, l, &e->plan, names, interrupted, store_failed, err);
	else
		rc = kvb_pool_run(&hooks, e, l, &e->plan, e->a->nvariants, names, e->tty, interrupted, store_failed, err);
	free(names);
	if (!rc && e->a->order != KVB_ORDER_DUET)
		warn_unspread(e);
	return rc;
}

/* How the loop over rounds ended. */
struct run_outcome {
	int interrupted;   /* Ctrl-C/SIGTERM or --max-jobs, with jobs left */
	int store_failed;  /* results could not be stored: the run stopped (e->store_err says why) */
};

/* Writes def to path with a header line saying what it is. 0, or -1 (errno). */
static int write_definition(const char *path, const char *def)
{
	FILE *f = kvb_fopen_nofollow(path);
	int bad;
	if (!f)
		return -1;
	bad = fprintf(f, "# written by kvbench run --dry-run: the LAVA job this unit would be (files on this host\n"
			 "# appear as file:// URLs; a run serves them over HTTP). JSON, which LAVA reads as YAML.\n%s\n",
		      def) < 0;
	bad |= fclose(f) != 0;
	return bad ? -1 : 0;
}

/*
 * --dry-run on a batch target (LAVA): each (variant, round) is recorded with the
 * target offline (nothing is reached, nothing runs) and the definition it would
 * submit is written to o->dry_run_dir/VARIANT-rROUND.yaml, for the user to read
 * (and for LAVA's own `lava-run --validate`).
 */
static int dry_run_batch(struct engine *e, struct kvb_error *err)
{
	const struct kvb_target_ops *ops = kvb_target_find(e->plat->conn_type);
	char tmp[] = "/tmp/kvbench-dry-run-XXXXXX";
	int rc = KVB_OK;
	if (!ops || !ops->batch || !e->o->dry_run_dir)
		return KVB_OK;
	if (kvb_mkdir_p(e->o->dry_run_dir, 0755))
		return kvb_error_set(err, KVB_ESTORE, "cannot create %s: %s", e->o->dry_run_dir, strerror(errno));
	if (!mkdtemp(tmp))
		return kvb_error_set(err, KVB_ESTORE, "cannot create a directory under /tmp: %s", strerror(errno));
	e->artdir = kvb_xstrdup(tmp); /* the recording's scratch (attempt_job's artifact directories) */
	e->target.offline = 1;
	if ((rc = kvb_target_open(&e->target, e->plat, err)))
		goto out;
	e->target_open = 1;
	for (int r = 1; r <= e->plan.rounds && !rc; r++)
		for (size_t v = 0; v < e->a->nvariants && !rc; v++) {
			char *safe = kvb_path_component(e->a->variants[v].name);
			char *dir = kvb_xasprintf("%s/%s-r%d", e->o->dry_run_dir, safe, r);
			char *path = kvb_xasprintf("%s.yaml", dir), name[256], *def;
			struct kvb_batch_unit u = { .variant = &e->a->variants[v], .round = r, .name = name, .artifact_dir = dir };
			snprintf(name, sizeof(name), "kvbench run (dry run) variant %s round %d", e->a->variants[v].name, r);
			batch_record(e, v, r, NULL);
			if (!(def = ops->batch->describe(&e->target, &u, err)))
				rc = err->code ? err->code : KVB_EINPUT;
			else if (write_definition(path, def))
				rc = kvb_error_set(err, KVB_ESTORE, "cannot write %s: %s", path, strerror(errno));
			else
				printf("unit  round %d  %-16s definition: %s\n", r, e->a->variants[v].name, path);
			free(def);
			free(path);
			free(dir);
			free(safe);
		}
out:
	if (e->target_open)
		kvb_target_close(&e->target);
	e->target_open = 0;
	{
		const char *rm[] = { "rm", "-rf", tmp, NULL };
		struct kvb_spawn_opts so = { .argv = rm, .timeout_ms = 60000 };
		struct kvb_exec_result r;
		struct kvb_error e2;
		kvb_exec_result_init(&r);
		kvb_spawn_run(&so, &r, &e2);
		kvb_exec_result_release(&r);
	}
	free(e->artdir);
	e->artdir = NULL;
	return rc;
}

/* --dry-run: the plan, one line a job; on a batch target, each unit's definition written out. */
static int print_plan(struct engine *e, struct kvb_error *err)
{
	int rc;
	struct kvb_plan_opts po = plan_opts(e);
	kvb_plan_build_opts(&e->plan, e->a, &po);
	for (size_t i = 0; i < e->plan.n; i++) {
		const struct kvb_plan_job *j = &e->plan.jobs[i];
		if (j->warmup)
			printf("%4d  round %d  %-16s %-24s warm-up\n", j->seq, j->round, e->a->variants[j->variant].name,
			       j->spec->id);
		else
			printf("%4d  round %d  %-16s %-24s #%d\n", j->seq, j->round, e->a->variants[j->variant].name,
			       j->spec->id, j->iteration);
	}
	rc = dry_run_batch(e, err);
	kvb_plan_release(&e->plan);
	return rc;
}

/* A variant that gives a kernel needs a flasher that installs one. */
static int check_kernels_installable(struct engine *e, struct kvb_error *err)
{
	if (kvb_flasher_find(e->plat->flash_method)->caps & KVB_FLASH_INSTALLS_KERNEL)
		return KVB_OK;
	for (size_t v = 0; v < e->a->nvariants; v++)
		if (e->a->variants[v].kernel || e->a->variants[v].boot_image)
			return kvb_error_set(err, KVB_EINPUT,
					     "variant '%s' gives a kernel, but platform %s cannot install kernels "
					     "(flash method none): use a platform that flashes, or variants that "
					     "differ only in runtime knobs",
					     e->a->variants[v].name, e->plat->name);
	return KVB_OK;
}

/* The run's artifact directory; without it the run is stored as interrupted. */
static int make_artifact_dir(struct engine *e, struct kvb_error *err)
{
	struct kvb_error e2;
	int rc;
	e->artdir = kvb_store_artifact_dir(e->st, e->run_id);
	if (e->artdir)
		return KVB_OK;
	rc = kvb_error_set(err, KVB_ESTORE, "cannot create artifact directory %s.d/run-%lld: %s", e->st->path,
			   (long long)e->run_id, strerror(errno));
	kvb_store_run_status(e->st, e->run_id, "interrupted", 1, &e2);
	return rc;
}

/* Whether plan job k is an ok job of variant v, round r, run by workload ops. */
static int ok_job_of(const struct engine *e, size_t k, size_t v, int r, const struct kvb_workload_ops *ops)
{
	const struct kvb_plan_job *j = &e->plan.jobs[k];
	return j->variant == v && j->round == r && j->spec->ops == ops && !strcmp(e->rows[k].status, "ok");
}

/*
 * One workload's recheck at the end of (variant v, round r), with the params of its job i: each
 * witness is stored with the variant and round; one that is not ok is a warning and an event of
 * each of the round's ok jobs of that workload, so diff footnotes their cells (DESIGN.md §14).
 */
static void recheck_workload(struct engine *e, size_t v, int r, size_t i)
{
	const struct kvb_plan_job *j = &e->plan.jobs[i];
	const struct kvb_workload_ops *ops = j->spec->ops;
	char *safe = kvb_path_component(e->a->variants[v].name);
	char *adir = kvb_xasprintf("%s/recheck-%s-%zu-r%d-%s", e->artdir, safe, v, r, ops->name);
	char *rdir = kvb_xasprintf("%s/run-%lld-%ld-recheck", e->plat->workdir, (long long)e->run_id, board_session(e));
	const char *mk[] = { "mkdir", "-p", rdir, NULL }, *rm[] = { "rm", "-rf", rdir, NULL };
	struct kvb_witnesses w;
	struct kvb_metrics m;
	struct kvb_exec_result r0;
	struct kvb_error err;
	struct kvb_job_ctx ctx;
	kvb_witnesses_init(&w);
	kvb_metrics_init(&m);
	kvb_exec_result_init(&r0);
	memset(&ctx, 0, sizeof(ctx));
	ctx.target = &e->target;
	ctx.ops = j->spec->ops;
	ctx.params = j->spec->params;
	ctx.artifact_dir = adir;
	ctx.remote_dir = rdir;
	ctx.timeout_ms = (uint64_t)j->spec->timeout_s * 1000;
	ctx.out = &m;
	ctx.state = kvb_workload_state(&e->wstates, ops);
	kvb_error_clear(&err);
	if (kvb_mkdir_nofollow(adir, 0755))
		kvb_error_set(&err, KVB_ESTORE, "cannot create artifact directory %s: %s", adir, strerror(errno));
	if (err.msg[0] || kvb_target_run_ok(&e->target, mk, 30000, &r0, &err) || ops->recheck(&ctx, &w, &err))
		kvb_warn("variant %s round %d: %s could not check what it measured for the run: %s",
			 e->a->variants[v].name, r, ops->name, err.msg);
	for (size_t k = 0; k < m.nnotes; k++)
		kvb_warn("variant %s round %d: %s", e->a->variants[v].name, r, m.notes[k]);
	for (size_t n = 0; n < w.n; n++) {
		char *d, *msg;
		if (kvb_store_witness_add(e->st, e->run_id, e->variant_ids[v], r, &w.v[n], &err))
			kvb_err("%s", err.msg);
		if (w.v[n].verdict == KVB_WIT_OK)
			continue;
		d = kvb_witness_describe(&w.v[n]);
		msg = kvb_xasprintf("variant %s round %d: %s %s", e->a->variants[v].name, r,
				    kvb_witness_verdict_name(w.v[n].verdict), d);
		kvb_warn("%s", msg);
		for (size_t k = 0; k < e->plan.n; k++)
			if (ok_job_of(e, k, v, r, ops))
				kvb_store_event_job(e->st, e->run_id, e->rows[k].id, "warning", msg);
		free(msg);
		free(d);
	}
	{
		struct kvb_error ignore;
		kvb_target_exec(&e->target, rm, 30000, &r0, &ignore);
	}
	kvb_exec_result_release(&r0);
	kvb_metrics_release(&m);
	kvb_witnesses_release(&w);
	free(safe);
	free(adir);
	free(rdir);
}

/* The end of (variant v, round r): each workload with a recheck that ran ok in it rechecks once. */
static void recheck_round(struct engine *e, size_t v, int r)
{
	for (size_t i = 0; i < e->plan.n; i++) {
		int first = 1;
		if (!e->plan.jobs[i].spec->ops->recheck || !ok_job_of(e, i, v, r, e->plan.jobs[i].spec->ops))
			continue;
		for (size_t k = 0; k < i && first; k++)
			first = !ok_job_of(e, k, v, r, e->plan.jobs[i].spec->ops);
		if (first)
			recheck_workload(e, v, r, i);
	}
}

/* Variant v's jobs of round r on the one board: bring it up, then each job not done yet. */
static void run_variant_round(struct engine *e, size_t v, int r, struct run_outcome *out, struct kvb_error *err)
{
	size_t pending = 0;
	int rc;
	for (size_t i = 0; i < e->plan.n; i++)
		if (e->plan.jobs[i].variant == v && e->plan.jobs[i].round == r && !is_final(e->rows[i].status))
			pending++;
	if (!pending || e->variant_failed[v])
		return;
	if ((rc = bring_up(e, v, r, err)) == KVB_ESTORE) {
		/* our disk, not the variant: stop, resume redoes the boot */
		kvb_err("%s", err->msg);
		snprintf(e->store_err, sizeof(e->store_err), "%.1000s", err->msg);
		out->store_failed = 1;
		return;
	}
	if (rc) {
		char why[KVB_ERRMSG_MAX];
		snprintf(why, sizeof(why), "%s", err->msg);
		fail_variant(e, v, why, rc);
		return;
	}
	for (size_t i = 0; i < e->plan.n && !out->store_failed; i++) {
		const struct kvb_plan_job *j = &e->plan.jobs[i];
		if (j->variant != v || j->round != r || is_final(e->rows[i].status))
			continue;
		if (g_signals || (e->o->max_jobs && (int)e->done >= e->o->max_jobs)) {
			out->interrupted = 1;
			break;
		}
		enum kvb_err ab = run_job(e, i);
		if (ab == KVB_ESTORE)
			out->store_failed = 1;
		if (ab == KVB_EBOARD)
			break;
	}
	if (g_signals)
		out->interrupted = 1;
	else if (!out->store_failed && !e->variant_failed[v])
		recheck_round(e, v, r);
}

/* One board: round by round, variant by variant, until done, interrupted, failed to store or decided. */
static void run_rounds(struct engine *e, struct run_outcome *out, struct kvb_error *err)
{
	for (int r = 1; r <= e->plan.rounds && !out->interrupted && !out->store_failed; r++) {
		for (size_t v = 0; v < e->a->nvariants && !out->interrupted && !out->store_failed; v++)
			run_variant_round(e, v, r, out, err);
		if (e->o->decide && !out->interrupted && !out->store_failed && until_decided_stop(e, r))
			break;
	}
}

/*
 * A signal the engine took while the caller had a handler of its own (bisect's)
 * goes to that handler too: a Ctrl-C in a run with no job left to stop (a commit
 * that did not build) must still stop the bisect. With SIG_DFL/SIG_IGN nothing is
 * raised (the run's status already says interrupted).
 */
static void pass_signal_on(const struct sigaction *old_int, const struct sigaction *old_term)
{
	const struct sigaction *old = g_last_signal == SIGTERM ? old_term : old_int;
	if (!g_signals)
		return;
	if ((old->sa_flags & SA_SIGINFO) || (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN))
		raise(g_last_signal);
}

/*
 * The run's last line: its status, and what the host did to its jobs (a board on this host):
 * how many it disturbed, how far, how many ran again clean and how many were left out.
 */
static void summary_line(struct engine *e, const char *status)
{
	struct kvb_disturbance d;
	struct kvb_error e2;
	double lim = e->o->host_limit_pct > 0 ? e->o->host_limit_pct : KVB_HOST_LIMIT_PCT;
	char *line;
	if (kvb_store_disturbance(e->st, &e->run_id, 1, &d, &e2)) {
		kvb_debug("%s", e2.msg); /* the summary line leaves the count out */
		memset(&d, 0, sizeof(d));
	}
	if (!d.on_host) {
		kvb_info("run %lld finished: %s, %zu job(s) run now", (long long)e->run_id, status, e->done);
		return;
	}
	line = kvb_disturbance_line(&d);
	if (!line) {
		kvb_info("run %lld finished: %s, %zu job(s) run now; 0 of %lld job(s) disturbed by the host (CPU pressure, "
			 "steal or the board process's wait above %.3g %%)",
			 (long long)e->run_id, status, e->done, (long long)d.on_host, lim);
		return;
	}
	kvb_info("run %lld finished: %s, %zu job(s) run now; %s (limit %.3g %%: `kvbench show witnesses` lists them)",
		 (long long)e->run_id, status, e->done, line, lim);
	kvb_store_event(e->st, e->run_id, "warning", "%s (limit %.3g %%)", line, lim);
	free(line);
}

/*
 * The run's and the variants' final status in the store, from the job rows
 * (store/status.h: ok only when every planned job is ok), and the resume hint.
 */
static void store_outcome(struct engine *e, struct run_outcome *out, struct kvb_run_tally *t)
{
	size_t left = 0;
	struct kvb_error e2;
	for (size_t i = 0; i < e->plan.n; i++)
		left += !is_final(e->rows[i].status);
	if (!left)
		out->interrupted = 0; /* a signal after the last job interrupted nothing */
	/* the boot the run stopped in keeps its record, marked; --resume boots that round again as a
	 * boot of its own, and diff counts the two apart (issue 38) */
	if (out->interrupted && kvb_store_boots_interrupted(e->st, e->run_id, NULL, &e2))
		kvb_err("%s", e2.msg);
	if (kvb_store_settle_run(e->st, e->run_id, out->interrupted || out->store_failed, e->o->resume_run > 0 && !e->done,
				 t, &e2)) {
		kvb_err("%s", e2.msg);
		t->status = "incomplete"; /* unknown is not ok */
	}
	kvb_store_event(e->st, e->run_id, "info", "run finished: %s (%lld of %lld planned jobs ok)", t->status,
			(long long)t->planned_ok, (long long)t->planned);
	summary_line(e, t->status);
	if (out->interrupted)
		kvb_warn("run %lld interrupted after %zu of %zu jobs; continue with `kvbench run --resume %lld -d %s`",
			 (long long)e->run_id, e->done, e->todo, (long long)e->run_id, e->st->path);
	else if (strcmp(t->status, "ok") && !out->store_failed)
		kvb_warn("run %lld is incomplete: %lld of %lld planned jobs ok, %d of %d variants ok; `kvbench run --resume "
			 "%lld -d %s` runs what failed again (-V NAME=KERNEL gives a failed variant new files)",
			 (long long)e->run_id, (long long)t->planned_ok, (long long)t->planned, t->variants_ok, t->variants,
			 (long long)e->run_id, e->st->path);
}

/* The run's return: KVB_ESTORE when results could not be stored, KVB_EINTR when interrupted with
 * jobs left, KVB_EJOBS when not ok. */
static enum kvb_err outcome_code(const struct engine *e, const struct run_outcome *out, const struct kvb_run_tally *t,
			struct kvb_error *err)
{
	if (out->store_failed)
		return kvb_error_set(err, KVB_ESTORE,
				     "results could not be stored (%s); the run stopped. Free space or fix the "
				     "database, then `kvbench run --resume %lld -d %s`",
				     e->store_err, (long long)e->run_id, e->st->path);
	/* nothing ran because no board answered: a target error (exit 4), as `--help` documents, not a run
	   with failed jobs (exit 1) */
	if (!out->interrupted && !t->planned_ok && e->failures && e->target_failures == e->failures)
		return kvb_error_set(err, KVB_ETARGET,
				     "run %lld: no job ran: the target could not be reached for any variant (%d "
				     "failure(s), see above); `kvbench run --resume %lld -d %s` when it answers",
				     (long long)e->run_id, e->failures, (long long)e->run_id, e->st->path);
	if (out->interrupted || e->failures || strcmp(t->status, "ok"))
		return kvb_error_set(err, out->interrupted ? KVB_EINTR : KVB_EJOBS,
				     "run %lld is incomplete: %lld of %lld planned jobs ok, %d failure(s)%s",
				     (long long)e->run_id, (long long)t->planned_ok, (long long)t->planned, e->failures,
				     out->interrupted ? ", interrupted" : "");
	return KVB_OK;
}

/* execution_order duet runs two variants side by side on two boards of this host (duet.h). */
static int check_duet(const struct engine *e, const struct kvb_pool_list *l, struct kvb_error *err)
{
	if (e->a->order != KVB_ORDER_DUET)
		return KVB_OK;
	if (e->a->nvariants != 2)
		return kvb_error_set(err, KVB_EINPUT,
				     "%s: execution_order duet runs two variants side by side; this run has %zu",
				     e->a->file ? e->a->file : "agenda", e->a->nvariants);
	if (l->n < 2 || l->batch)
		return kvb_error_set(err, KVB_EINPUT,
				     "%s: execution_order duet needs two boards this host drives at once (give the platform "
				     "twice: %s-p %s -p %s)%s",
				     e->a->file ? e->a->file : "agenda", e->o->resume_run > 0 ? "--resume " : "",
				     e->plat->name, e->plat->name,
				     l->batch ? "; a lab's batch jobs cannot be run in lockstep" : "");
	return KVB_OK;
}

/*
 * Checks the instruments and kernels, stores (or reloads) the run, then runs it: on
 * a pool of boards (pool.c) or round by round on the one board; Ctrl-C and SIGTERM
 * stop it between jobs. The outcome is stored before returning.
 */
enum kvb_err kvb_engine_run(const struct kvb_run_opts *o, int64_t *run_id, struct kvb_error *err)
{
	struct engine e;
	struct sigaction sa, old_int, old_term;
	struct run_outcome out = { 0, 0 };
	int rc;
	struct kvb_pool_list pool;

	memset(&e, 0, sizeof(e));
	memset(&pool, 0, sizeof(pool));
	e.o = o;
	e.a = o->agenda;
	e.plat = o->plat;
	e.st = o->store;
	e.tty = isatty(2);
	kvb_agenda_default_variant(e.a);
	/* Instrument settings are checked before anything runs. */
	if ((rc = kvb_instr_set_build(&e.instr, e.plat, e.a->instruments, err))) {
		kvb_instr_set_release(&e.instr);
		return rc;
	}
	if (o->dry_run) {
		rc = print_plan(&e, err);
		kvb_workload_states_release(&e.wstates); /* a batch's dry run records its jobs (rt-app's state) */
		kvb_instr_set_release(&e.instr);
		return rc;
	}
	if ((rc = check_kernels_installable(&e, err))) {
		kvb_instr_set_release(&e.instr);
		return rc;
	}
	if ((rc = kvb_pool_list_build(&pool, e.plat, o->more_plats, o->nmore_plats, err)) ||
	    (rc = check_duet(&e, &pool, err))) {
		kvb_instr_set_release(&e.instr);
		kvb_pool_list_release(&pool);
		return rc;
	}
	rc = setup_run(&e, err);
	*run_id = e.run_id;
	if (!rc)
		kvb_log_set_hook(log_to_events, &e);
	if (rc) {
		release_engine(&e);
		kvb_pool_list_release(&pool);
		return rc;
	}
	snprintf(e.tag, sizeof(e.tag), "run%lld", (long long)e.run_id);
	for (size_t v = 0; v < e.a->nvariants; v++)
		if (e.variant_why[v]) {
			/* running it again will not help: say what will */
			char *why = kvb_xasprintf("%s (new files: `kvbench run --resume %lld -d %s -V %s=KERNEL`)", e.variant_why[v],
						  (long long)e.run_id, e.st->path, e.a->variants[v].name);
			fail_variant(&e, v, why, KVB_EINPUT);
			free(why);
		}
	if ((rc = make_artifact_dir(&e, err))) {
		kvb_log_set_hook(NULL, NULL);
		g_thread_engine = NULL;
		release_engine(&e);
		kvb_pool_list_release(&pool);
		return rc;
	}
	for (size_t i = 0; i < e.plan.n; i++)
		if (!is_final(e.rows[i].status))
			e.todo++;
	kvb_info("run %lld: %zu jobs to run (%zu planned), %zu variants, %d rounds, db %s", (long long)e.run_id, e.todo,
		 e.plan.n, e.a->nvariants, e.plan.rounds, e.st->path);

	g_signals = 0;
	g_last_signal = 0;
	g_cancel = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	e.t0_ns = kvb_mono_ns();

	if (pool.n > 1 || pool.batch) {
		if ((rc = pool_run(&e, &pool, &out.interrupted, &out.store_failed, err))) /* pool.c */
			out.store_failed = 1, snprintf(e.store_err, sizeof(e.store_err), "%.1000s", err->msg);
	} else {
		run_rounds(&e, &out, err);
	}
	if (e.tty)
		fputc('\n', stderr);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	struct kvb_run_tally tally;
	store_outcome(&e, &out, &tally);
	pass_signal_on(&old_int, &old_term);
	rc = outcome_code(&e, &out, &tally, err);
	kvb_log_set_hook(NULL, NULL);
	g_thread_engine = NULL;
	release_engine(&e);
	kvb_pool_list_release(&pool);
	return rc;
}
