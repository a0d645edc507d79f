/*
 * Run and variant status from the evidence in the store (docs/design.md#witnesses: status
 * is never upgraded without evidence).
 *
 * A variant is `ok` only when every planned job of it is `ok`; a run is `ok`
 * only when every variant is. Neither is ever set `ok` from what one `kvbench
 * run` invocation saw (a `--resume` that ran nothing saw no failure, and that
 * is no evidence of success): both are computed from the job rows.
 *
 * A planned job is every job of the run except those `--until-decided` skipped
 * as not needed: status `skipped` in a round after run_decide.decided_round
 * (the plan was cut short on purpose; KVB_SQL_JOB_NOT_NEEDED).
 *
 * Variant statuses (results-schema variant.status): pending (jobs left to
 * run), ok, failed (flash, boot, identity or files: variant.error says why),
 * incomplete (the run ended with some planned jobs not ok; the jobs' errors
 * say why). An error is only cleared when the variant becomes ok.
 */
#ifndef KVB_STORE_STATUS_H
#define KVB_STORE_STATUS_H

#include "store/store.h"

/* SQL condition true for a job row aliased J that --until-decided skipped as not needed. */
#define KVB_SQL_JOB_NOT_NEEDED(J)                                                                              \
	"(" J ".status = 'skipped' AND EXISTS (SELECT 1 FROM run_decide d WHERE d.run_id = " J ".run_id"     \
	" AND d.decided_round IS NOT NULL AND " J ".round > d.decided_round))"

/* What a run's settled status rests on. */
struct kvb_run_tally {
	int variants, variants_ok;
	int64_t planned, planned_ok; /* planned jobs (not-needed ones excepted) and those ok */
	int64_t measured, measured_ok; /* the same without the warm-ups (iteration 0): the jobs diff compares */
	const char *status;          /* the run status written: ok | incomplete | interrupted (static) */
};

/*
 * Sets every variant's status of run_id from its jobs, then the run's status
 * ("interrupted" when interrupted, else "ok" or "incomplete") and finished_ns
 * (now, or with at_last_job the end of its last job: a resume that ran
 * nothing does not lengthen the run; never before the run's start). One
 * transaction. Errors: KVB_ESTORE.
 */
int kvb_store_settle_run(struct kvb_store *s, int64_t run_id, int interrupted, int at_last_job,
			 struct kvb_run_tally *t, struct kvb_error *err);

/*
 * --resume: every planned job of run_id that is failed, skipped or
 * instrument-failed becomes pending again (its error and attempts kept until
 * it runs again; job_attempt keeps the history), and a failed or incomplete
 * variant with such jobs becomes pending (its error kept). *n gets the jobs
 * re-planned. One transaction. Errors: KVB_ESTORE.
 */
int kvb_store_replan(struct kvb_store *s, int64_t run_id, int64_t *n, struct kvb_error *err);

/* Jobs of variant_id that finished with results (neither pending, running, failed nor skipped). */
int kvb_store_variant_jobs_done(struct kvb_store *s, int64_t variant_id, int64_t *n, struct kvb_error *err);

/*
 * `run --resume -V`: variant_id gets new files, in one transaction: its kernel, dtb, initrd,
 * boot_image and modules (path[i] and sha256[i], both NULL for a file it has not; in the order
 * of enum kvb_vfile), its cmdline, no expected identity, status pending; its failed and skipped
 * jobs pending with no attempts; the run's stored agenda replaced by agenda_json. Errors:
 * KVB_ESTORE naming the variant.
 */
int kvb_store_variant_repair(struct kvb_store *s, int64_t run_id, int64_t variant_id, const char *name,
			     const char *const path[5], const char *const sha256[5], const char *cmdline,
			     const char *agenda_json, struct kvb_error *err);

#endif
