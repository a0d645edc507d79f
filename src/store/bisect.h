/*
 * The stored state of `kvbench bisect` (results-schema/0007_build.sql, 0014_bisect_endpoints.sql;
 * docs/design.md#kernels-from-git): the session, its endpoints' runs and its steps, written as the bisect goes so
 * that --resume replays them through git's own bisect. Every function returns KVB_OK or
 * KVB_ESTORE with SQLite's message and the DB path, unless it says otherwise.
 */
#ifndef KVB_STORE_BISECT_H
#define KVB_STORE_BISECT_H

#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

/* A bisect session as stored. Strings are owned by the row (kvb_store_bisect_release). */
struct kvb_bisect_row {
	int64_t id;
	char *repo;                  /* absolute path of the repository */
	char good[41], bad[41];      /* 40-hex commits */
	char *metric;                /* WORKLOAD/METRIC */
	double threshold_pct;        /* smallest change that counts, % */
	int rounds;                  /* boots per measurement; 0 = the platform's default */
	int max_rounds;              /* boots a step may get before the nearer endpoint decides */
	char *agenda_path, *platform, *command_line;
	char *status;                /* running | done | failed | aborted | interrupted */
	int64_t good_run, bad_run;   /* the endpoints' first runs, 0 = not measured yet */
};

/* Stores a new session as 'running' (started now); *id gets its id. */
int kvb_store_bisect_add(struct kvb_store *s, const struct kvb_bisect_row *b, int64_t *id, struct kvb_error *err);
/*
 * Loads session id (0: the latest) into *b (owned strings). KVB_ENOTFOUND when there is none;
 * a session already done is loaded too (the caller decides what resuming it means).
 */
int kvb_store_bisect_load(struct kvb_store *s, int64_t id, struct kvb_bisect_row *b, struct kvb_error *err);
void kvb_store_bisect_release(struct kvb_bisect_row *b);

/* Marks a resumed session running again (its last error cleared). */
int kvb_store_bisect_resumed(struct kvb_store *s, int64_t id, struct kvb_error *err);
/* An endpoint's first run: which is "good" or "bad". */
int kvb_store_bisect_set_endpoint(struct kvb_store *s, int64_t id, const char *which, int64_t run_id,
				  struct kvb_error *err);
/* One more boot of an endpoint (bisect_endpoint_run): which is "good" or "bad". */
int kvb_store_bisect_add_endpoint_run(struct kvb_store *s, int64_t id, const char *which, int64_t run_id,
				      struct kvb_error *err);
/* The endpoints' extra runs in the order they were stored: *runs (owned, free()) of *n ids. */
int kvb_store_bisect_endpoint_runs(struct kvb_store *s, int64_t id, int64_t **runs, size_t *n, struct kvb_error *err);

/* A decided (or skipped, or aborted) step. value and the percentages may be NaN (stored NULL). */
struct kvb_bisect_step {
	int step;              /* 1-based */
	const char *sha;       /* 40 hex */
	int64_t run_id;        /* its last run, 0 = none */
	const char *outcome;   /* good | bad | skip | abort */
	double value;          /* the step's mean of the metric, the metric's units */
	double vs_good, vs_bad; /* change against each endpoint, % */
	int boots;
	const char *reason;
	const char *subject;   /* read only: the commit's subject (variant_build), "" when unknown */
};
int kvb_store_bisect_step_add(struct kvb_store *s, int64_t id, const struct kvb_bisect_step *st, struct kvb_error *err);
/*
 * Calls fn for every stored step of session id in step order (the step's strings live until fn
 * returns). fn returning non-zero stops the walk and is returned.
 */
int kvb_store_bisect_steps(struct kvb_store *s, int64_t id, int (*fn)(void *arg, const struct kvb_bisect_step *st),
			   void *arg, struct kvb_error *err);
/* The last measured change of commit sha against good (%), into *pct; left alone when none. */
int kvb_store_bisect_step_change(struct kvb_store *s, int64_t id, const char *sha, double *pct, struct kvb_error *err);

/* `git bisect log` after the latest step. */
int kvb_store_bisect_set_log(struct kvb_store *s, int64_t id, const char *log, struct kvb_error *err);
/* Done: first_bad (40 hex) with its change against good (%), or NULL with why nothing was found. */
int kvb_store_bisect_done(struct kvb_store *s, int64_t id, const char *first_bad, double change_pct,
			  const char *error, struct kvb_error *err);
/* Ended without an answer: status is interrupted | aborted | failed; a done session is left done. */
int kvb_store_bisect_ended(struct kvb_store *s, int64_t id, const char *status, const char *error,
			   struct kvb_error *err);

/* How a run of one variant ended, as a bisect measurement reads it (strings owned, free()). */
struct kvb_run_outcome {
	char *run_status;      /* running | ok | incomplete | interrupted ...; NULL when no such run */
	char *variant_status;  /* its (first) variant's status */
	char *variant_error;   /* NULL when none */
	int boots;             /* boots recorded for that variant */
};
int kvb_store_run_outcome(struct kvb_store *s, int64_t run_id, struct kvb_run_outcome *o, struct kvb_error *err);
void kvb_store_run_outcome_release(struct kvb_run_outcome *o);

#endif
