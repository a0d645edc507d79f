/*
 * `kvbench bisect` as library code (docs/design.md#kernels-from-git): git's own bisect (start --no-checkout,
 * good, bad, skip, log, reset: all argv spawns) driven by measured runs.
 *
 * The good and bad endpoints are measured first (one run each, of --rounds boots, else the
 * agenda's rounds:, else 2: the fewest that can decide) and must differ: bad significantly
 * worse than good by at least the threshold. While they are not decided against each other the
 * one with fewer boots (each when even) gets one more boot (a run stored in
 * bisect_endpoint_run) up to max_rounds boots; a "good" significantly worse than "bad" is
 * refused (KVB_EINPUT). Each step builds
 * BISECT_HEAD, runs the agenda on it (a stored run), and compares the step with both endpoints
 * using the boot-aware verdict of `kvbench diff`:
 *   bad   worse than good by >= threshold and not different from bad
 *   good  not worse than good by >= threshold and significantly better than bad
 * otherwise it gets another run (more boots) up to max_rounds boots, then the nearer endpoint
 * mean decides (the reason says so). Only the results view is judged: a job the host disturbed
 * in every attempt (engine/hostwatch.h, retry_disturbed) is left out, and a boot left without a
 * result does not count. A measurement with a job left out is a spare (KVB_BISECT_SPARE_BOOTS
 * of them per step, and for the endpoints together); still undecided past them, the bisect
 * stops with KVB_EUNDECIDED "the host was too busy to decide step N: K of M jobs disturbed"
 * (status failed, the step stored as abort: --resume measures it again). A step whose build,
 * flash, boot or identity check fails is `skip`ped; two such failures in a row where the board
 * never came up, or an engine error, `abort` (everything is kept; resuming continues). The
 * repository's bisect state exists only while kvbench runs: `git bisect reset` after success,
 * failure and Ctrl-C; resuming starts git's bisect again and replays the stored steps
 * (store/bisect.h).
 *
 * The command (cli/cmd_bisect.c) reads the options, loads the platform and calls, in order:
 * kvb_bisect_new or kvb_bisect_load, kvb_bisect_check_repo, kvb_bisect_begin, kvb_bisect_run.
 */
#ifndef KVB_BISECT_H
#define KVB_BISECT_H

#include "config/platform.h"
#include "store/bisect.h"

#include <stdio.h>

/* Run ids (v owned, never truncated). */
struct kvb_bisect_runs {
	int64_t *v;
	size_t n, alloc;
};

/*
 * One bisect session. The caller sets st (borrowed, opened with the run lock) and plat (loaded;
 * released by kvb_bisect_release); row is filled by kvb_bisect_new or kvb_bisect_load.
 */
struct kvb_bisect {
	struct kvb_bisect_row row;      /* the stored session (row.id once begun) */
	char *workload, *metric_name;   /* row.metric split at its '/' */
	struct kvb_store *st;
	struct kvb_platform plat;
	struct kvb_bisect_runs ends;    /* the endpoints' extra runs (one boot each, either endpoint) */
	int step;                       /* the step being measured, 1-based */
	int started;                    /* git's bisect is started in row.repo */
	volatile int cancel;            /* set by Ctrl-C (SIGINT/SIGTERM) while kvb_bisect_run runs */
};

/* What a new bisect was asked for: revisions as the user wrote them. */
struct kvb_bisect_request {
	const char *repo, *good, *bad;  /* a directory inside the repository, two revisions */
	const char *metric;             /* WORKLOAD/METRIC */
	const char *agenda_path, *platform, *command_line;
	double threshold_pct;           /* >= 0 */
	int rounds, max_rounds;         /* rounds 0 = the platform's default; max_rounds >= 1 */
	int allow_dirty;                /* a repository with uncommitted changes is accepted */
};

/*
 * Fills b->row for a new bisect: the agenda's absolute path, the repository's top directory,
 * both revisions as commits (distinct, good an ancestor of bad), the metric split. KVB_EUSAGE
 * for a metric not WORKLOAD/METRIC, KVB_EINPUT for a bad range, git's errors.
 */
int kvb_bisect_new(struct kvb_bisect *b, const struct kvb_bisect_request *req, struct kvb_error *err);
/* Fills b->row from stored session id (0: the latest); KVB_ENOTFOUND, KVB_EINPUT when it is done. */
int kvb_bisect_load(struct kvb_bisect *b, int64_t id, const char *command_line, struct kvb_error *err);
/* Refuses (KVB_EINPUT) a repository someone else is bisecting: we would end their session. */
int kvb_bisect_check_repo(struct kvb_bisect *b, struct kvb_error *err);
/* Stores a new session (b->row.id) or marks a loaded one running again. KVB_ESTORE. */
int kvb_bisect_begin(struct kvb_bisect *b, struct kvb_error *err);
/*
 * Runs the bisect to its end with Ctrl-C caught; prints the first bad commit and the steps'
 * table to out. A failure is stored as the session's status (interrupted, aborted or failed)
 * with its message. Returns KVB_OK; KVB_EINTR (interrupted), KVB_ETARGET (aborted: the board),
 * KVB_EUNDECIDED (only skipped commits left, or the host too busy to decide a step or the
 * endpoints), KVB_EINPUT (endpoints that do not differ, a
 * metric not in the results), KVB_ESTORE, or the engine's and git's errors.
 */
int kvb_bisect_run(struct kvb_bisect *b, FILE *out, struct kvb_error *err);
/* `git bisect reset` if kvbench started git's bisect (for a caller's failure path); idempotent. */
void kvb_bisect_reset(struct kvb_bisect *b);
/* Frees what b owns (not st); b can be zeroed again. */
void kvb_bisect_release(struct kvb_bisect *b);

#endif
