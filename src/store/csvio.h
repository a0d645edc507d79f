/*
 * Long-format CSV import and export of results (one row per metric value):
 *
 *   variant,workload,metric,value,units,lower_is_better,iteration[,boot][,section][,KEY...]
 *
 * Any other column is a classifier. `boot` (or `round`) maps to the boot
 * unit of the statistics. A row with iteration 0, or with a `warmup` column
 * of 1/true (0/false/empty: a measured row), is a warm-up: its job is stored
 * with status 'warmup' (kept, shown by `show jobs`, never compared: the
 * results view leaves it out, 0022_warmup.sql). Export writes the same format, so export -> import
 * -> export is lossless (values printed with %.17g). CSV is RFC 4180, read
 * with libcsv.
 */
#ifndef KVB_CSVIO_H
#define KVB_CSVIO_H

#include "core/util.h"
#include "store/store.h"

#include <stdio.h>

/*
 * Imports FILE into a new run (status 'imported'). Every bad row is reported
 * in err (up to 20, each "FILE:LINE: ...") and nothing is imported from a
 * file with errors (KVB_EINPUT). *run_id receives the new run.
 * One pass, streamed, in one transaction (rolled back on any error): memory
 * is the longest line plus SQLite's page cache, whatever the file's size;
 * rows are written in batches (store/batch.h). Errors: KVB_EINPUT (file;
 * also a file whose every row is a warm-up), KVB_ESTORE (SQLite).
 */
int kvb_csv_import(struct kvb_store *s, const char *file, int64_t *run_id, struct kvb_error *err);

/* A CSV file as records of fields (libcsv, RFC 4180). */
struct kvb_csv_row {
	struct kvb_strv f;  /* fields (owned) */
	long line;          /* 1-based physical line the record starts on */
};
struct kvb_csv_rows {
	struct kvb_csv_row *rows;
	size_t n, alloc;
	struct kvb_strv cur;  /* reader state */
	long line, next_line;
};
/* Reads the whole file into r. KVB_EINPUT "FILE:LINE: why" on a malformed file (r is then empty). */
int kvb_csv_read(const char *file, struct kvb_csv_rows *r, struct kvb_error *err);
void kvb_csv_rows_release(struct kvb_csv_rows *r);

/*
 * Imports a WA3 results.csv (the csv output processor's layout:
 * `id,workload,iteration,metric,[classifier columns...],value,units`,
 * wa/output_processors/csvproc.py) into a new run as variant `variant`:
 * one job per (id, iteration) holding all its metrics; run-level rows
 * (empty id) are not jobs and are counted in *skipped. lower_is_better is
 * not in results.csv: stored as 0 (`import wa3 DIR` reads it). The
 * `workload` column is the job's label (csvproc.py writes JobOutput.label
 * there; workload_name is not in the file): workload and label both get it.
 */
int kvb_wa3_csv_import(struct kvb_store *s, const char *file, const char *variant, int64_t *run_id, size_t *skipped,
		       struct kvb_error *err);

/*
 * Imports a WA3 output directory (wa/framework/output.py; checked on a real
 * one, tests/fixtures/field/wa3-output): .run_state.json (jobs: id, label,
 * iteration, status, retries), __meta/jobs.json (one JobSpec per job
 * instance: workload_name, classifiers), each job's ID-LABEL-ITERATION/
 * result.json (metrics with units, lower_is_better and classifiers; the job
 * classifiers, which replace the spec's; the last event's message as a failed
 * job's error; every artifact listed as an artifact row with WA3's kind, path
 * realpath(DIR)/ID-LABEL-ITERATION/PATH (the file stays in DIR, not copied),
 * and sha256 and bytes when it is a regular file there, else NULL: not as a
 * classifier, whose paths would split every iteration into its own group
 * for diff), and each retried attempt's
 * __failed/ID-LABEL-ITERATION-attemptNN/result.json as job_attempt NN;
 * DIR/result.json's events become run events (warning; the last one is the
 * error of a non-OK job without its own) and __meta/run_info.json one (info).
 * One job per (id, iteration), workload = workload_name, label = label.
 */
int kvb_wa3_dir_import(struct kvb_store *s, const char *dir, const char *variant, int64_t *run_id,
		       struct kvb_error *err);

/* Writes run_id's results (0 = latest run) as long-format CSV to out. */
int kvb_csv_export(struct kvb_store *s, int64_t run_id, FILE *out, struct kvb_error *err);

#endif
