/*
 * The LAVA jobs of a run (results-schema/0023_lava_jobs.sql): stored when
 * submitted, marked when they end, found again by --resume (docs/design.md#pools-and-lava: no
 * orphans). Plus what the batch seam of the engine reads and writes for a job
 * that ran inside one: its metrics as JSON (for LAVA test cases) and its times
 * on the board.
 */
#ifndef KVB_STORE_LAVA_JOBS_H
#define KVB_STORE_LAVA_JOBS_H

#include "store/store.h"

#include <cjson/cJSON.h>

/* A LAVA job submitted for (variant, round): url and state may be NULL. KVB_ESTORE. */
int kvb_store_lava_job_add(struct kvb_store *s, int64_t run_id, int64_t variant_id, int round, int64_t lava_job_id,
			   const char *url, const char *state, struct kvb_error *err);
/* The job has ended (how: LAVA's health). Rows of that LAVA job id in the run. KVB_ESTORE. */
int kvb_store_lava_job_ended(struct kvb_store *s, int64_t run_id, int64_t lava_job_id, const char *how,
			     struct kvb_error *err);
/*
 * The unit's latest job still in flight: *lava_job_id (0 when none) and *state
 * (owned, may be NULL). KVB_ESTORE.
 */
int kvb_store_lava_job_in_flight(struct kvb_store *s, int64_t run_id, int64_t variant_id, int round,
				 int64_t *lava_job_id, char **state, struct kvb_error *err);
/* Every job of the run still in flight (for messages): count. */
int kvb_store_lava_jobs_in_flight(struct kvb_store *s, int64_t run_id, size_t *n, struct kvb_error *err);

/* The job's metrics as [{name, value, units, classifiers: {k: v}}] (metric-level classifiers). Owned; NULL on error. */
cJSON *kvb_store_job_metrics_json(struct kvb_store *s, int64_t job_id);
/* Sets a job's start and end (ns since the epoch) to when it ran on the board (a batch's log says). KVB_ESTORE. */
int kvb_store_job_times(struct kvb_store *s, int64_t job_id, int64_t start_ns, int64_t end_ns, struct kvb_error *err);

#endif
