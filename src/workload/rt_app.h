/*
 * rt-app: per-thread log parser, per-task statistics and config generation
 * (docs/design.md#metrics; log format in notes/formats.md). Public for tests, fuzzers
 * and anyone importing rt-app logs taken outside kvbench.
 *
 * Log format (one file per thread, `<logdir>/<log_basename>-<thread>-<index>.log`):
 *
 *   # Policy : SCHED_OTHER priority : 0
 *   #idx     perf      run   period  start  end  rel_st  slack c_duration c_period wu_lat
 *      0   133333     2133    10065  ...                 7866       2000    10000     67
 *
 * Lines starting with '#' are comments except the `#idx ...` header, which
 * names the columns; older rt-app builds say `c_run` for `c_duration`.
 * Columns are found by name, never by position. One row per completed phase;
 * run, period, slack, wu_lat, c_duration, c_period are in us, start/end are
 * absolute us, slack is signed (negative: the phase overran its period).
 */
#ifndef KVB_RT_APP_H
#define KVB_RT_APP_H

#include "config/doc.h"
#include "core/error.h"
#include "core/metric.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* Columns present in a log (struct kvb_rtapp_log.have). */
#define KVB_RTAPP_COL_IDX        (1u << 0)
#define KVB_RTAPP_COL_PERF       (1u << 1)
#define KVB_RTAPP_COL_RUN        (1u << 2)   /* required */
#define KVB_RTAPP_COL_PERIOD     (1u << 3)   /* required */
#define KVB_RTAPP_COL_START      (1u << 4)
#define KVB_RTAPP_COL_END        (1u << 5)
#define KVB_RTAPP_COL_REL_ST     (1u << 6)
#define KVB_RTAPP_COL_SLACK      (1u << 7)   /* required */
#define KVB_RTAPP_COL_C_DURATION (1u << 8)   /* also accepted as `c_run` */
#define KVB_RTAPP_COL_C_PERIOD   (1u << 9)
#define KVB_RTAPP_COL_WU_LAT     (1u << 10)  /* required */

/* One phase of one thread. Fields whose column is absent (see have) are 0. */
struct kvb_rtapp_row {
	int64_t idx;            /* thread index */
	int64_t perf;           /* busy-loop iterations run */
	int64_t run_us;         /* time spent in run events */
	int64_t period_us;      /* duration of the phase */
	int64_t start_us, end_us; /* absolute phase start/end */
	int64_t rel_st_us;      /* start relative to the use case start */
	int64_t slack_us;       /* signed */
	int64_t c_duration_us;  /* configured run time */
	int64_t c_period_us;    /* configured timer period */
	int64_t wu_lat_us;      /* wake-up latency after the timer */
};

/* A parsed log. Invariant after a successful parse: every row has every column of `have`. */
struct kvb_rtapp_log {
	char *file;                 /* name used in messages (owned) */
	unsigned have;              /* KVB_RTAPP_COL_* present in the header */
	struct kvb_rtapp_row *rows; /* owned, n rows in file order; negative-slack rows included */
	size_t n, alloc;
};

void kvb_rtapp_log_init(struct kvb_rtapp_log *log);
/* Frees rows and name and re-inits; NULL is a no-op. */
void kvb_rtapp_log_release(struct kvb_rtapp_log *log);

/*
 * Parses len bytes of log text (need not be NUL-terminated; may hold any
 * bytes). name is used in messages. On error returns KVB_EINPUT with
 * "NAME:LINE: reason" for: no `#idx` header before data (or none at all),
 * a header without run/period/slack/wu_lat or with a repeated column, a row
 * whose field count differs from the header's, a field that is not a decimal
 * integer, a negative run/period/wu_lat, NUL bytes, or a last line without
 * its newline (a truncated file: its last number may be cut short). A log
 * with a header and no rows is valid (n = 0). log must be initialised; on
 * error it is left empty.
 */
int kvb_rtapp_log_parse(struct kvb_rtapp_log *log, const char *name, const char *text, size_t len,
			struct kvb_error *err);
/* Reads and parses a file; a read failure is KVB_EINPUT naming the file. */
int kvb_rtapp_log_load(struct kvb_rtapp_log *log, const char *path, struct kvb_error *err);

/*
 * Splits a log file name (with or without directories) written by rt-app:
 * "<basename>-<thread>-<index>.log". On success *thread is an owned string
 * and *index the thread index. Returns KVB_OK, or KVB_EINPUT when the name does not have
 * that shape.
 */
enum kvb_err kvb_rtapp_log_name(const char *path, const char *basename, char **thread, long *index);

/*
 * Maps a thread name to the task (key of the config's `tasks`) it belongs
 * to: the task whose name equals thread, else the longest task name T such
 * that thread is "T-<digits>" (rt-app builds that suffix instance names).
 * tasks is NULL-terminated. Returns the matching element of tasks or NULL.
 */
const char *kvb_rtapp_task_of(const char *thread, const char *const *tasks);

/*
 * Statistics of one task. All instances of a task (its threads) are pooled:
 * every completed phase of every instance is one sample, so means are over
 * all phases, and activations is the total number of phases completed by
 * all instances together (instances x duration / period when nothing is
 * lost). Units: us, except negative_slack_pct (% of phases with slack < 0).
 * wu_lat_p99 is gsl_stats_quantile_from_sorted_data(sorted, 1, n, 0.99):
 * with h = (n - 1) * 0.99, i = floor(h), it is x[i] + (h - i) * (x[i+1] - x[i])
 * (linear interpolation between order statistics, numpy's default method).
 */
struct kvb_rtapp_stats {
	size_t activations;
	double slack_mean_us;
	double slack_min_us;
	double negative_slack_pct;
	double wu_lat_mean_us;
	double wu_lat_p99_us;
	double run_mean_us;
	double period_mean_us;
};

/* Pools nlogs logs into st. KVB_EINPUT when they hold no row at all (nothing to measure). */
int kvb_rtapp_stats(const struct kvb_rtapp_log *const *logs, size_t nlogs, struct kvb_rtapp_stats *st,
		    struct kvb_error *err);

/*
 * Adds the rt-app metrics of one task with metric classifier task=TASK:
 * slack_mean, slack_min (us, higher is better), negative_slack_pct (%, lower
 * is better), wu_lat_mean, wu_lat_p99, run_mean, period_mean (us, lower is
 * better), activations (count, higher is better: fewer means missed periods).
 */
void kvb_rtapp_metrics_add(struct kvb_metrics *m, const char *task, const struct kvb_rtapp_stats *st);

/*
 * Whole pipeline over local log files: names each file's thread with
 * kvb_rtapp_log_name(basename), groups threads into tasks with
 * kvb_rtapp_task_of(tasks) (a thread matching no task is its own task),
 * parses, and adds metrics per task in the order of tasks, then of first
 * appearance. A task whose logs hold no row (it never completed a phase)
 * gets only `activations` = 0 and a note in m->notes (the engine stores it
 * as an event); the other tasks keep their metrics. Fails (KVB_EINPUT) on a
 * file name that is not an rt-app log name, any parse error, a task in tasks
 * with no log, or when no task has a row. tasks may be NULL.
 */
int kvb_rtapp_parse_logs(const char *const *paths, size_t npaths, const char *basename,
			 const char *const *tasks, struct kvb_metrics *m, struct kvb_error *err);

/*
 * Builds the rt-app JSON for the workload parameters (see rt_app.c for the
 * keys): from `config: FILE` (loaded, global.logdir/log_basename and, when
 * duration_s is given, global.duration replaced) or from `tasks:`.
 * *out is an owned cJSON object; *duration_s is the run length in seconds
 * (-1 when the config runs until its tasks end). Errors: KVB_EINPUT.
 */
int kvb_rtapp_config_build(const cJSON *params, const char *logdir, const char *basename, cJSON **out,
			   long *duration_s, struct kvb_error *err);

/*
 * Loads an rt-app use case FILE as rt-app and its workgen do (repeated keys
 * renamed run, run1, ...; then json-c: comments, trailing commas;
 * rt_app_json.c) into *out (owned cJSON).
 * Errors: KVB_EINPUT "FILE:LINE:COL: not valid rt-app JSON (json-c: why)",
 * "cannot read rt-app config 'FILE': why", or a missing/empty "tasks".
 */
int kvb_rtapp_config_load(const char *file, cJSON **out, struct kvb_error *err);

/* WA3's rt_app `config` default (wa/workloads/rt_app/__init__.py): the use case run when none is named. */
#define KVB_RTAPP_DEFAULT_USE_CASE "taskset"

/*
 * The file an rt-app `config:` names, found as WA3's rt_app workload finds it
 * (rt_app_usecase.c): config NULL or "" is WA3's default use case "taskset";
 * a file at the path as given, or with ".json" added, is used; a bare name is
 * looked up in $KVB_RTAPP_USE_CASES (':'-separated directories), WA3's user
 * directory ($WA_USER_DIRECTORY or ~/.workload_automation, then
 * dependencies/rt-app/use_cases) and the installed WA3's
 * wa/workloads/rt_app/use_cases/, in that order. *path is owned by the
 * caller. Errors: KVB_EINPUT naming every place looked in.
 */
int kvb_rtapp_config_path(const char *config, char **path, struct kvb_error *err);
/* The installed WA3 package directory (python3's `wa` module, found once per process), "" when none;
 * $KVB_WA3_PACKAGE_DIR overrides it (tests). */
const char *kvb_rtapp_wa3_package_dir(void);

/* The last "pLoad = Nns" in rt-app's output (ns per busy loop), or -1 when there is none. */
long kvb_rtapp_parse_pload(const char *text);

/*
 * pLoad (ns) for calibration "CPUn" (rt_app_calib.c): measured once per run and board (kept in
 * *ctx->state, the board's slot; ctx->state NULL: measured each call) on the target under the
 * performance governor, then reused by every rt-app job of every variant on that board. Notes
 * what it did in ctx->out. Errors: KVB_ETARGET (rt-app failed, no pLoad line, governor not restored).
 */
struct kvb_job_ctx;
int kvb_rtapp_pload(struct kvb_job_ctx *ctx, const char *cpu, long *pload_ns, struct kvb_error *err);
/*
 * When cfg (an rt-app use case) sets util_min/util_max on any task or phase, checks that the
 * board's rt-app reads them (rt_app_uclamp.c: Debian's rt-app 1.0 ignores them and runs the tasks
 * unclamped). KVB_OK when no clamp is asked or the rt-app has it; KVB_ETARGET naming the binary.
 */
int kvb_rtapp_uclamp_check(struct kvb_job_ctx *ctx, const cJSON *cfg, struct kvb_error *err);

/*
 * The end of a (variant, round): rt-app's calibration run again on the CPU the board calibrated on,
 * compared with the board's pLoad. Appends one `pload` witness to out: ok, or `changed` when it moved
 * by more than drift_pct % ("pLoad 264 ns at start, 301 ns at end": thermal capping or a frequency
 * cap while the run calibrated, or now, makes rt-app's run times not those asked; LISA #1620, #1126).
 * Nothing when the board has not calibrated (a numeric calibration, or a resumed run whose CPU is
 * not known). Errors as kvb_rtapp_pload.
 */
struct kvb_witnesses;
int kvb_rtapp_pload_recheck(struct kvb_job_ctx *ctx, double drift_pct, struct kvb_witnesses *out,
			    struct kvb_error *err);
/* The resume hook: a resumed run keeps the pLoad its earlier jobs ran with (their job classifier pload_ns). */
struct kvb_run_memory;
void kvb_rtapp_pload_resume(void **state, const struct kvb_run_memory *run);
/* The state_free hook: frees a board's calibration state; NULL is a no-op. */
void kvb_rtapp_calib_free(void *state);

/* Extra parameter checks (the workload's validate hook), errors to d under path. Returns the error count. */
int kvb_rtapp_validate(const cJSON *params, const char *path, struct kvb_diag *d);

#endif
