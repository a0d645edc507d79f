/*
 * Repairing a run on --resume (issue 18): `kvbench run --resume -V NAME=KERNEL`
 * gives a variant that failed (missing or wrong kernel, bad boot) new files.
 *
 * Allowed only for a variant without a single finished job: a variant that
 * has results keeps the kernel they came from (two kernels under one name
 * would be one column of a comparison built from both). The new files are
 * fetched and hashed now (a bad one is refused, nothing changed); then, in one
 * transaction, the variant row gets the new files and their sha256 (identity
 * fields cleared: the engine reads them from the new image and checks the
 * running kernel against them as on any boot), its failed and skipped jobs
 * become pending again, the run's stored agenda gets the new variant (a later
 * --resume uses it too), and an event records old and new kernel.
 */
#ifndef KVB_REPAIR_H
#define KVB_REPAIR_H

#include "config/agenda.h"
#include "store/store.h"

/*
 * Applies one -V argument to stored run run_id and to its reloaded agenda a.
 * Errors: KVB_EUSAGE (no such variant, or it already has results: the
 * message says why and what to do), KVB_EINPUT (a new file is missing or does
 * not match its sha256), KVB_ESTORE.
 */
int kvb_repair_variant(struct kvb_store *st, int64_t run_id, struct kvb_agenda *a, const char *arg,
		       int allow_unverified, struct kvb_error *err);

#endif
