/* Implements the pool and batch callbacks (engine/pool.h): a worker engine per board, a batch target's units. */
#include "engine/run_internal.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

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
		kvb_run_resume_workloads(w);
	if (kvb_instr_set_build(&w->instr, w->plat, w->a->instruments, w->a->instrument_settings, err) ||
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
	w->target.wants = kvb_instr_set_wants(&w->instr);
	if (kvb_target_open(&w->target, w->plat, err))
		return err->code;
	w->target.cancel = &kvb_run_cancel;
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
void kvb_run_batch_record(struct engine *w, size_t v, int round, const struct kvb_job_row *rows)
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
		if (w->plan.jobs[i].variant != v || w->plan.jobs[i].round != round || (rows && kvb_run_is_final(rows[i].status)))
			continue;
		batch_key(w, i, key, sizeof(key));
		b->mark(&w->target, key);
		kvb_metrics_init(&m);
		kvb_run_attempt_job(w, &w->plan.jobs[i], rows ? rows[i].attempts + 1 : 1, &m, &ignore);
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

	kvb_run_thread_engine = w;
	batch_unit_end(w); /* a unit given up without its end (cannot happen; cheap) */
	kvb_run_batch_record(w, v, round, w->rows);
	bu = kvb_xcalloc(1, sizeof(*bu));
	bu->w = w;
	bu->v = v;
	bu->dir = kvb_run_boot_dir(w, v, round);
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
					 .artifact_dir = bu->dir, .stop = &kvb_run_signals, .reattach_id = rid,
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
	if ((rc = kvb_run_bring_up(w, v, round, err)))
		batch_unit_end(w); /* the wrong kernel: the job is told and ended */
	return rc;
}

static int pool_bring_up(void *wp, size_t v, int round, struct kvb_error *err)
{
	struct engine *w = wp;
	if (w->target.ops->batch)
		return batch_bring_up(w, v, round, err);
	return kvb_run_bring_up(wp, v, round, err);
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
	ab = kvb_run_job(w, idx);
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
	return !kvb_run_is_final(((struct engine *)eng)->rows[idx].status);
}

static void pool_unit_failed(void *wp, size_t v, int round, const char *why)
{
	struct engine *w = wp;
	struct kvb_error err;
	kvb_run_skip_jobs(w, v, round, why);
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
	struct engine *w = wp, *prev = kvb_run_thread_engine;
	/* errors and warnings become event rows through the run's log hook (log_to_events), under
	 * the board's engine while this message is logged (any thread may say it, pool.c) */
	kvb_run_thread_engine = w;
	if (!strcmp(level, "error")) {
		kvb_err("%s", msg);
	} else if (!strcmp(level, "warning")) {
		kvb_warn("%s", msg);
	} else {
		kvb_info("%s", msg);
		kvb_store_event(w->st, w->run_id, level, "%s", msg);
	}
	kvb_run_thread_engine = prev;
}

/* Duet: --until-decided's look after round r, made by one side while the other waits (duet.c). */
static int pool_round_done(void *wp, int round)
{
	struct engine *w = wp;
	kvb_run_thread_engine = w;
	return w->o->decide ? kvb_run_until_decided_stop(w, round) : 0;
}

static int pool_interrupted(void *eng)
{
	struct engine *e = eng;
	size_t done = 0;
	for (size_t i = 0; e->o->max_jobs && i < e->plan.n; i++)
		done += kvb_run_is_final(e->rows[i].status) && e->rows[i].attempts > 0;
	return kvb_run_signals || (e->o->max_jobs && (int)done >= e->o->max_jobs);
}

static void pool_worker_free(void *eng, void *wp)
{
	struct engine *e = eng, *w = wp;
	if (kvb_run_thread_engine == w)
		kvb_run_thread_engine = NULL; /* this thread logs for the run's engine again */
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

int kvb_run_pool(struct engine *e, const struct kvb_pool_list *l, int *interrupted, int *store_failed,
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
