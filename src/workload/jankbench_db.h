/*
 * Jankbench results reader: the SQLite database the Jankbench app
 * (com.android.benchmark) writes, turned into per-test, per-iteration frame
 * statistics (docs/design.md#metrics; format in notes/formats.md). No adb needed: it
 * reads a local copy of the file.
 *
 * Table `ui_results`, one row per rendered frame, columns `_id, name, run_id,
 * iteration, timestamp, unknown_delay_duration, input_handling_duration,
 * animation_duration, layout_measure_duration, draw_duration, sync_duration,
 * command_issue_duration, swap_buffers_duration, total_duration, jank_frame`
 * (durations in ms, jank_frame 0/1). Only _id, name, iteration,
 * total_duration and jank_frame are read; they must all exist.
 *
 * How the Jankbench workload (jankbench.c) calls it:
 *   1. before the run, remove the DB (and its -wal/-shm/-journal) so it
 *      holds this job's frames only: rows are grouped by (name, iteration)
 *      whatever their run_id;
 *   2. run the tests (`am start -W -S -n .../.app.RunLocalBenchmarksActivity
 *      --eia ...EXTRA_ENABLED_BENCHMARK_IDS ... --ei ...EXTRA_RUN_COUNT N`),
 *      wait for logcat "BenchmarkDone!";
 *   3. pull the app's databases/BenchmarkResults (and its -wal/-shm files
 *      when present, next to it) into ctx->artifact_dir, recorded as
 *      artifacts of kind "jankbench-db";
 *   4. kvb_jankbench_db_read(path, keep_frames, &res, err) and
 *      kvb_jankbench_metrics_add(ctx->out, &res); with keep_frames the
 *      per-frame durations res.v[i].frames_ms go to jankbench-frames.csv.
 */
#ifndef KVB_JANKBENCH_DB_H
#define KVB_JANKBENCH_DB_H

#include "core/error.h"
#include "core/metric.h"

#include <stddef.h>
#include <stdint.h>

/* One (test, iteration) group. */
struct kvb_jank_iter {
	char *test_name;        /* ui_results.name, e.g. "list_view" (owned) */
	int64_t iteration;      /* ui_results.iteration */
	size_t frames;          /* rows in the group, >= 1 */
	double mean_ms;         /* mean of total_duration */
	double max_ms;
	double p90_ms, p95_ms, p99_ms; /* gsl_stats_quantile_from_sorted_data: linear between order statistics */
	double jank_pct;        /* 100 * sum(jank_frame) / frames */
	double *frames_ms;      /* total_duration per frame in _id order when keep_frames, else NULL (owned) */
};

struct kvb_jank_results {
	struct kvb_jank_iter *v;  /* ordered by test name, then iteration (owned) */
	size_t n;
};

/*
 * Opens path read-only (never creates or changes it) and fills res.
 * KVB_EINPUT, naming the file, when: the file is missing or unreadable, is
 * not an SQLite database, has no ui_results table, lacks a needed column
 * (all missing ones are named), holds no rows, or a row has a NULL or
 * non-numeric name/iteration/total_duration, a negative total_duration, or a
 * jank_frame other than 0/1 (the row's _id is named). On error res is empty.
 */
int kvb_jankbench_db_read(const char *path, int keep_frames, struct kvb_jank_results *res, struct kvb_error *err);
/* Frees everything in res; NULL is a no-op. */
void kvb_jank_results_release(struct kvb_jank_results *res);

/*
 * Adds per group: frames (count, higher is better), frame_duration_mean,
 * frame_duration_max, frame_duration_p90, frame_duration_p95,
 * frame_duration_p99 (ms, lower is better), jank_pct (%, lower is better),
 * each with metric classifiers test_name and rep (= ui_results.iteration;
 * not "iteration", which is the job's classifier).
 */
void kvb_jankbench_metrics_add(struct kvb_metrics *m, const struct kvb_jank_results *res);

#endif
