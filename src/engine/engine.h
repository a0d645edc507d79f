/*
 * The engine: runs a plan on a platform and stores every step (docs/design.md#the-job-lifecycle).
 *
 * For each round, for each variant: flash (platform's flasher), wait for the
 * target, verify and record the running kernel's identity, then run the
 * variant's jobs of that round. Each job: apply knobs -> workload -> restore
 * -> commit (one transaction) -> retry on failure up to max_retries, keeping
 * every failed attempt. A variant that fails to flash/boot/verify, or whose
 * board stops answering, is marked failed and the run goes on.
 *
 * Ctrl-C (SIGINT/SIGTERM) once: stop after the current job, everything
 * stored, run marked 'interrupted'; twice: the current job is killed too.
 * `--resume` rebuilds the same plan from the DB and runs what is not final.
 */
#ifndef KVB_ENGINE_H
#define KVB_ENGINE_H

#include "config/agenda.h"
#include "config/platform.h"
#include "store/store.h"

struct kvb_decide_opts;

struct kvb_run_opts {
	struct kvb_agenda *agenda;        /* loaded (variants included) */
	struct kvb_platform *plat;        /* loaded */
	struct kvb_store *store;          /* open read-write */
	int rounds;                       /* 0 = agenda config or platform default */
	int64_t resume_run;               /* > 0: continue this run instead of starting one */
	int dry_run;                      /* print the plan, store nothing */
	const char *command_line;         /* stored with the run */
	int max_jobs;                     /* testing aid: stop (as if interrupted) after N jobs; 0 = no limit */
	int allow_unverified;             /* accept artifact URLs without a sha256 */
	const struct kvb_decide_opts *decide; /* --until-decided rule (engine/decide.h), or NULL */
	/* Called once a new run's variants are stored (not on --resume), e.g. to record what git
	 * variants were built from (src/kbuild/prepare.h); an error stops the run. */
	int (*on_variants)(void *arg, struct kvb_store *st, int64_t run_id, struct kvb_error *err);
	void *on_variants_arg;
	/* host witness (engine/hostwatch.h): a job on a board on this host is disturbed when the host's
	 * CPU pressure, steal or the board process's wait exceeds this percent of its time; 0 = KVB_HOST_LIMIT_PCT */
	double host_limit_pct;
	struct kvb_platform *const *more_plats; /* -p given more than once: more boards of plat's kind (pool.c) */
	size_t nmore_plats;
	/* --dry-run on a batch target (LAVA): each unit's definition is written here (created), or NULL */
	const char *dry_run_dir;
};

/*
 * Runs (or resumes) a run; *run_id receives its id. Returns KVB_OK when every
 * job succeeded, KVB_EINTR when it was interrupted (Ctrl-C, SIGTERM, --max-jobs)
 * with jobs left, KVB_EJOBS when some job/variant failed, or another code for
 * errors that stop the run (store, usage).
 * Ctrl-C and SIGTERM are the engine's while it runs; one that arrived is raised
 * again afterwards when the caller had its own handler installed (bisect learns
 * of a Ctrl-C even in a run that had no job left to stop).
 */
enum kvb_err kvb_engine_run(const struct kvb_run_opts *o, int64_t *run_id, struct kvb_error *err);

/* Default number of rounds for a platform and agenda (docs/design.md#the-job-lifecycle): the agenda's rounds:, else the
 * flasher's, else 1 for kernel variants and 2 for knob variants, never more than the most iterations a
 * spec has (the rounds split them: a further round would be empty). */
int kvb_engine_default_rounds(const struct kvb_platform *plat, const struct kvb_agenda *a);

/* The agenda as JSON with its effective variants (stored with the run, reloaded by --resume). Owned. */
char *kvb_engine_agenda_json(const struct kvb_agenda *a);

#endif
