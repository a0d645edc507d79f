/*
 * Sampling profiles in the results DB (results-schema/0029_profile.sql, docs/profile.md):
 * a job's profile written in its commit transaction, and one variant's profiles of one
 * workload spec summed for `kvbench profile`.
 */
#ifndef KVB_STORE_PROFILE_H
#define KVB_STORE_PROFILE_H

#include "core/profile.h"
#include "store/store.h"

/*
 * Replaces the job's profile with p (NULL: just deletes). Must run inside the caller's
 * transaction (kvb_store_job_write calls it), so a profile lands with its job or not at all.
 */
int kvb_store_profile_replace(struct kvb_store *s, int64_t job_id, const struct kvb_profile *p, struct kvb_error *err);

/* The workload specs of run_id whose compared jobs (status ok or instrument-failed) have a profile,
 * as "SPEC_ID\tWORKLOAD" in plan order, into specs. */
int kvb_store_profile_specs(struct kvb_store *s, int64_t run_id, struct kvb_strv *specs, struct kvb_error *err);

/* The variants of run_id with a profile in a compared job, in the agenda's order, into names. */
int kvb_store_profile_variants(struct kvb_store *s, int64_t run_id, struct kvb_strv *names, struct kvb_error *err);

/*
 * The profiles of variant's compared jobs of spec_id in run_id, summed: *out (new, owned) has
 * every function's samples over those jobs, samples, kernel_samples, kernel_resolved and ops
 * summed (ops 0 when a job's operations are unknown), period and unit; *jobs the profiles summed.
 * *out is NULL with *jobs 0 when the variant has none. Errors: KVB_EINPUT when the profiles
 * disagree on period or unit ("job 12: period 100003, job 14: 10007"), KVB_ESTORE.
 */
int kvb_store_profile_sum(struct kvb_store *s, int64_t run_id, const char *variant, const char *spec_id,
			  struct kvb_profile **out, size_t *jobs, struct kvb_error *err);

#endif
