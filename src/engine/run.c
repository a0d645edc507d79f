/* Implements the run loop: rounds x variants x jobs, retries, interruption, resume. The run's
 * rooms: run_setup.c (variants, store rows, plan), run_board.c (a board session), run_job.c and
 * run_attempt.c (one job), run_pool.c (pool and batch callbacks), run_dry.c (--dry-run). */
#include "engine/run_internal.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

volatile sig_atomic_t kvb_run_signals;
static volatile sig_atomic_t g_last_signal; /* the signal that stops the run, raised again at its end */
volatile int kvb_run_cancel;
/* workloads running now (pool workers are threads): a signal while one runs kills it at once */
atomic_int kvb_run_in_workload;

/*
 * Ctrl-C or SIGTERM: the running workload is killed at once (its job goes back to pending, an
 * 'interrupted' attempt, for --resume), then the knobs are put back and the run stops (exit 7).
 * A second signal also cancels that clean-up.
 */
static void on_signal(int sig)
{
	g_last_signal = sig;
	kvb_run_signals++;
	if (kvb_run_signals >= 2 || atomic_load(&kvb_run_in_workload) > 0)
		kvb_run_cancel = 1;
}

/* The engine working on this thread: a pool runs one per board (pool.c), each with its own store
 * connection and current job; set where a thread starts engine work (kvb_run_bring_up, kvb_run_job, pool events). */
_Thread_local struct engine *kvb_run_thread_engine;

/* Every error and warning printed during a run is an event row (docs/design.md#backends-and-capabilities), written through
 * the store connection of the engine of the thread that printed it. */
static void log_to_events(void *arg, enum kvb_log_level lvl, const char *msg)
{
	struct engine *e = kvb_run_thread_engine ? kvb_run_thread_engine : arg;
	if (e->st && e->run_id > 0)
		kvb_store_event_job(e->st, e->run_id, e->cur_job_id, lvl == KVB_LOG_ERROR ? "error" : "warning", msg);
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
 * each of the round's ok jobs of that workload, so diff footnotes their cells (docs/design.md#witnesses).
 */
static void recheck_workload(struct engine *e, size_t v, int r, size_t i)
{
	const struct kvb_plan_job *j = &e->plan.jobs[i];
	const struct kvb_workload_ops *ops = j->spec->ops;
	char *safe = kvb_path_component(e->a->variants[v].name);
	char *adir = kvb_xasprintf("%s/recheck-%s-%zu-r%d-%s", e->artdir, safe, v, r, ops->name);
	char *rdir = kvb_xasprintf("%s/run-%lld-%ld-recheck", e->plat->workdir, (long long)e->run_id, kvb_run_board_session(e));
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
		if (e->plan.jobs[i].variant == v && e->plan.jobs[i].round == r && !kvb_run_is_final(e->rows[i].status))
			pending++;
	if (!pending || e->variant_failed[v])
		return;
	if ((rc = kvb_run_bring_up(e, v, r, err)) == KVB_ESTORE) {
		/* our disk, not the variant: stop, resume redoes the boot */
		kvb_err("%s", err->msg);
		snprintf(e->store_err, sizeof(e->store_err), "%.1000s", err->msg);
		out->store_failed = 1;
		return;
	}
	if (rc) {
		char why[KVB_ERRMSG_MAX];
		snprintf(why, sizeof(why), "%s", err->msg);
		kvb_run_fail_variant(e, v, why, e->identity_failed ? KVB_EJOBS : rc);
		return;
	}
	for (size_t i = 0; i < e->plan.n && !out->store_failed; i++) {
		const struct kvb_plan_job *j = &e->plan.jobs[i];
		if (j->variant != v || j->round != r || kvb_run_is_final(e->rows[i].status))
			continue;
		if (kvb_run_signals || (e->o->max_jobs && (int)e->done >= e->o->max_jobs)) {
			out->interrupted = 1;
			break;
		}
		enum kvb_err ab = kvb_run_job(e, i);
		if (ab == KVB_ESTORE)
			out->store_failed = 1;
		if (ab == KVB_EBOARD)
			break;
	}
	if (kvb_run_signals)
		out->interrupted = 1;
	else if (!out->store_failed && !e->variant_failed[v])
		recheck_round(e, v, r);
}

/*
 * The run's first line: its jobs and rounds; with --until-decided the rounds it may look after
 * and, apart, the spare ones that run only in place of rounds the host disturbed (not counted in
 * the jobs to run: most runs never need them).
 */
static void say_plan(struct engine *e)
{
	const struct kvb_decide_opts *d = e->o->decide;
	char planned[96], spare[160] = "";
	int last = d && d->max_rounds < e->plan.rounds ? d->max_rounds : e->plan.rounds;
	size_t todo = 0, todo_spare = 0;
	for (size_t i = 0; i < e->plan.n; i++)
		if (!kvb_run_is_final(e->rows[i].status))
			*(e->plan.jobs[i].round > last ? &todo_spare : &todo) += 1;
	if (last < e->plan.rounds)
		snprintf(spare, sizeof(spare), " + %d spare round%s (%zu jobs, run only in place of a round the host "
			 "disturbs)", e->plan.rounds - last, e->plan.rounds - last == 1 ? "" : "s", todo_spare);
	e->todo = todo; /* the progress counts a spare round's jobs when it runs (run_rounds) */
	kvb_info("run %lld: %zu jobs to run (planned: %s), %zu variants, %s%d round%s%s%s, db %s", (long long)e->run_id,
		 todo, kvb_plan_describe_rounds(&e->plan, last, planned, sizeof(planned)), e->a->nvariants,
		 d ? "up to " : "", last, last == 1 ? "" : "s",
		 !d ? "" : d->add_rounds ? " of the agenda's iterations each, a look after each" : " with a look after each",
		 spare, e->st->path);
}

/* One board: round by round, variant by variant, until done, interrupted, failed to store or decided. */
static void run_rounds(struct engine *e, struct run_outcome *out, struct kvb_error *err)
{
	for (int r = 1; r <= e->plan.rounds && !out->interrupted && !out->store_failed; r++) {
		if (e->o->decide && r > e->o->decide->max_rounds) /* a spare round: its jobs join the count */
			for (size_t i = 0; i < e->plan.n; i++)
				e->todo += e->plan.jobs[i].round == r && !kvb_run_is_final(e->rows[i].status);
		for (size_t v = 0; v < e->a->nvariants && !out->interrupted && !out->store_failed; v++)
			run_variant_round(e, v, r, out, err);
		if (e->o->decide && !out->interrupted && !out->store_failed && kvb_run_until_decided_stop(e, r))
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
	if (!kvb_run_signals)
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
	char *line, ran[96];
	if (kvb_store_disturbance(e->st, &e->run_id, 1, &d, &e2)) {
		kvb_debug("%s", e2.msg); /* the summary line leaves the count out */
		memset(&d, 0, sizeof(d));
	}
	/* the measured jobs: warm-ups are said apart (they are never compared) */
	if (e->warmups_done)
		snprintf(ran, sizeof(ran), "%zu measured job(s) and %zu warm-up(s) run now", e->done - e->warmups_done,
			 e->warmups_done);
	else
		snprintf(ran, sizeof(ran), "%zu job(s) run now", e->done);
	if (!d.on_host) {
		kvb_info("run %lld finished: %s, %s", (long long)e->run_id, status, ran);
		return;
	}
	line = kvb_disturbance_line(&d);
	if (!line) {
		if (e->workload_on_host) /* CPU pressure counts the job's own tasks here: steal alone is judged */
			kvb_info("run %lld finished: %s, %s; 0 of %lld job(s) disturbed by the host (steal above %.3g %%; "
				 "its CPU pressure counts the jobs' own tasks on this board: recorded, not judged)",
				 (long long)e->run_id, status, ran, (long long)d.on_host, lim);
		else
			kvb_info("run %lld finished: %s, %s; 0 of %lld job(s) disturbed by the host (CPU pressure, "
				 "steal or the board process's wait above %.3g %%)",
				 (long long)e->run_id, status, ran, (long long)d.on_host, lim);
		return;
	}
	kvb_info("run %lld finished: %s, %s; %s (limit %.3g %%: `kvbench show witnesses` lists them)",
		 (long long)e->run_id, status, ran, line, lim);
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
		left += !kvb_run_is_final(e->rows[i].status);
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
	if (out->interrupted) /* intended (Ctrl-C, SIGTERM, --max-jobs): said as what it is, not as an error (shown
				 * with -q too) */
		kvb_warn("run %lld interrupted: %lld of %lld measured job(s) done (warm-ups not counted); go on with "
			 "`kvbench run --resume %lld -d %s`",
			 (long long)e->run_id, (long long)t->measured_ok, (long long)t->measured, (long long)e->run_id,
			 e->st->path);
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
	if (out->interrupted) /* the caller says nothing more: the lines above said it (cli/cmd_run.c) */
		return kvb_error_set(err, KVB_EINTR,
				     "run %lld interrupted: %lld of %lld measured job(s) done; `kvbench run --resume %lld -d %s` "
				     "goes on", (long long)e->run_id, (long long)t->measured_ok, (long long)t->measured,
				     (long long)e->run_id, e->st->path);
	if (e->failures || strcmp(t->status, "ok"))
		return kvb_error_set(err, KVB_EJOBS,
				     "run %lld is incomplete: %lld of %lld planned jobs ok, %d failure(s)",
				     (long long)e->run_id, (long long)t->planned_ok, (long long)t->planned, e->failures);
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
	if ((rc = kvb_instr_set_build(&e.instr, e.plat, e.a->instruments, e.a->instrument_settings, err))) {
		kvb_instr_set_release(&e.instr);
		return rc;
	}
	if (o->dry_run) {
		rc = kvb_run_print_plan(&e, err);
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
	rc = kvb_run_setup(&e, err);
	*run_id = e.run_id;
	if (!rc)
		kvb_log_set_hook(log_to_events, &e);
	if (rc) {
		kvb_run_release_engine(&e);
		kvb_pool_list_release(&pool);
		return rc;
	}
	snprintf(e.tag, sizeof(e.tag), "run%lld", (long long)e.run_id);
	for (size_t v = 0; v < e.a->nvariants; v++)
		if (e.variant_why[v]) {
			/* running it again will not help: say what will */
			char *why = kvb_xasprintf("%s (new files: `kvbench run --resume %lld -d %s -V %s=KERNEL`)", e.variant_why[v],
						  (long long)e.run_id, e.st->path, e.a->variants[v].name);
			kvb_run_fail_variant(&e, v, why, KVB_EINPUT);
			free(why);
		}
	if ((rc = make_artifact_dir(&e, err))) {
		kvb_log_set_hook(NULL, NULL);
		kvb_run_thread_engine = NULL;
		kvb_run_release_engine(&e);
		kvb_pool_list_release(&pool);
		return rc;
	}
	for (size_t i = 0; i < e.plan.n; i++)
		if (!kvb_run_is_final(e.rows[i].status))
			e.todo++;
	say_plan(&e);

	kvb_run_signals = 0;
	g_last_signal = 0;
	kvb_run_cancel = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	e.t0_ns = kvb_mono_ns();

	if (pool.n > 1 || pool.batch) {
		if ((rc = kvb_run_pool(&e, &pool, &out.interrupted, &out.store_failed, err))) /* pool.c */
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
	kvb_run_thread_engine = NULL;
	kvb_run_release_engine(&e);
	kvb_pool_list_release(&pool);
	return rc;
}
