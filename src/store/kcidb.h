/*
 * A run as a KCIDB report (KernelCI's common database, schema v5.3 of
 * kernelci/kcidb-io: tests/fixtures/field/kcidb/PROVENANCE), so results reach
 * the KernelCI dashboard with KernelCI's own tools (`kcidb-submit`):
 *   checkouts  one per variant: the kernel under test (its git commit when kvbench built it)
 *   builds     one per variant: that kernel as booted (status from kvbench's build, when it built it)
 *   tests      per job, path "kvbench.WORKLOAD", status PASS (ok), ERROR (failed: kvbench could
 *              not measure), SKIP (skipped); per metric of an ok job, path
 *              "kvbench.WORKLOAD.METRIC[.CLASSIFIER-VALUES]", status DONE, number {value, unit}
 * Ids are ORIGIN:HOST/RUN-START-NS/... (unique across results databases); times are
 * RFC 3339 UTC; the board and boot go in each test's environment.
 */
#ifndef KVB_STORE_KCIDB_H
#define KVB_STORE_KCIDB_H

#include "store/store.h"

#include <stdio.h>

/*
 * Writes run run_id (0: every run of the DB) as one KCIDB JSON report to out.
 * origin: the submitting CI system's name ([a-z0-9_]+; KCIDB assigns them).
 * KVB_EINPUT for a bad origin or no such run, KVB_ESTORE for the DB.
 */
int kvb_kcidb_export(struct kvb_store *s, int64_t run_id, const char *origin, FILE *out, struct kvb_error *err);

#endif
