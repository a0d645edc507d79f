/*
 * What happened to each planned variant of the runs a diff reads: status,
 * error, job counts (issue 18: "diff tells the truth"). A table that leaves
 * out a failed variant, or compares against a stand-in baseline, must say
 * so above it; an empty result must say what does exist.
 */
#ifndef KVB_RESULTS_RUNSTATE_H
#define KVB_RESULTS_RUNSTATE_H

#include "core/error.h"
#include "results/groups.h"
#include "store/store.h"

#include <stdio.h>

struct kvb_variant_state {
	int64_t run_id;
	char *run_status;   /* running | ok | incomplete | interrupted | imported */
	char *name;
	char *status;       /* pending | ok | failed | incomplete (store/status.h) */
	char *error;        /* the variant's error, or the first failed job's, or NULL */
	int jobs, jobs_ok;  /* planned jobs (not those --until-decided found not needed) and how many finished ok */
	int jobs_instr_failed; /* of jobs, those whose workload ran but an instrument failed: compared, without it */
};

struct kvb_run_state {
	struct kvb_variant_state *v;
	size_t n;
};

/* Loads the variants of runs (in run, then agenda order). KVB_ESTORE on a database error. */
int kvb_run_state_load(struct kvb_store *s, const int64_t *runs, size_t nruns, struct kvb_run_state *rs,
		       struct kvb_error *err);
void kvb_run_state_release(struct kvb_run_state *rs);

/*
 * Checks a loaded report against the run state. The baseline (r->variants.v[0])
 * without a single result is an error (KVB_EINPUT) naming why it has none and
 * the variants that could be the baseline (--baseline); never a silent stand-in.
 * Otherwise writes one "note:" line per variant that failed, has failed jobs or
 * has no results to notes (owned strings pushed), and returns KVB_OK. Variants of a
 * run that is still going get a note only when with_running is set (a table read by a
 * person says how far the run is; a CSV polled by a script need not say it each time).
 */
int kvb_run_state_check(const struct kvb_run_state *rs, const struct kvb_report *r, int with_running,
			struct kvb_strv *notes, struct kvb_error *err);

/* The message for a report with no group: what exists (workloads, metrics) and each run's status. */
int kvb_run_state_explain_empty(struct kvb_store *s, const struct kvb_report_opts *o, const struct kvb_report *r,
				struct kvb_error *err);

#endif
