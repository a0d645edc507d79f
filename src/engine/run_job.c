/* Implements one job: its attempts, retries and re-runs of a disturbed one, and its commit. */
#include "engine/run_internal.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/* Every witness that did not agree is a warning, so an event of the job (docs/design.md#witnesses); job_id as `show jobs` names it. */
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

/* Host witnesses of an attempt that say disturbed (the host took the board's CPUs, docs/design.md#witnesses). */
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
static size_t count_job_done(struct engine *e, int warmup)
{
	e->done++;
	e->warmups_done += warmup != 0;
	if (e->parent && warmup)
		__atomic_add_fetch(&e->parent->warmups_done, 1, __ATOMIC_SEQ_CST);
	if (e->parent)
		return __atomic_add_fetch(&e->parent->done, 1, __ATOMIC_SEQ_CST);
	return e->done;
}

static void job_run_release(struct job_run *jr)
{
	kvb_metrics_release(&jr->m);
	cJSON_Delete(jr->cls);
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
	return kvb_run_signals != 0;
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
	if (kvb_run_signals)
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
 * An attempt the host disturbed (docs/design.md#noise, issue 38): while re-runs are left (dlimit) it is kept as
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
	if (jr->reruns < dlimit && !kvb_run_signals && !e->host_busy && !wait_quiet_host(e, j)) {
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
enum kvb_err kvb_run_job(struct engine *e, size_t idx)
{
	kvb_run_thread_engine = e;
	const struct kvb_plan_job *j = &e->plan.jobs[idx];
	struct kvb_job_row *row = &e->rows[idx];
	/* max_retries + 1 attempts in this invocation: a job --resume planned again gets them afresh, and in a
	 * pool the attempts made on a board that was lost do not count against the job */
	int max_attempts = row->attempts + e->a->max_retries + 1;
	enum kvb_err abandon = KVB_OK;
	struct job_run jr = { .j = j, .row = row, .start = kvb_wall_ns(), .attempt = row->attempts, .rc = KVB_ETARGET };
	int interrupted = 0, dlimit = retry_disturbed_limit(e);

	jr.cls = kvb_run_job_classifiers(e, j);
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
		kvb_run_progress(e, j, jr.attempt > 1 ? "retry" : "");
		jr.rc = kvb_run_attempt_job(e, j, jr.attempt, &jr.m, &jr.err);
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
		if (kvb_run_signals) {
			interrupted = 1; /* not the job's failure, nor the board's: left for --resume */
			break;
		}
		kvb_warn("[job %zu/%zu] %s %s #%d attempt %d failed: %s", e->done + 1, e->todo,
			 e->a->variants[j->variant].name, j->spec->id, j->iteration, jr.attempt, jr.err.msg);
		int64_t a1 = kvb_wall_ns();
		if (jr.rc == KVB_ETARGET && !kvb_run_target_alive(e) && !kvb_run_board_came_back(e)) {
			abandon = KVB_EBOARD;
			break;
		}
		if (kvb_run_signals || e->no_retry)
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
	size_t nth = count_job_done(e, j->warmup);
	if (!e->tty && !jr.rc)
		job_done_line(e, &jr, nth); /* one line with the headline metric */
	job_run_release(&jr);
	e->cur_job_id = 0;
	if (abandon == KVB_EBOARD) {
		char why[KVB_ERRMSG_MAX + 64];
		snprintf(why, sizeof(why), "target stopped answering: %s", jr.err.msg);
		kvb_run_fail_variant(e, j->variant, why, KVB_EBOARD);
	}
	return abandon;
}
