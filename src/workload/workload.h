/*
 * Workloads: a benchmark, its parameters and the parser of its output
 * (docs/design.md#backends-and-capabilities, metric names in docs/design.md#metrics). One backend per file, listed in
 * kvb_workloads[] (workload.c), perf-bench style.
 *
 * Flow per job: the agenda loader validates params against ops->params (and
 * ops->validate); the engine builds a struct kvb_job_ctx, calls ops->prepare
 * (before the instruments start), then ops->run,
 * which runs the tool on the target with kvb_job_exec() (so CPU affinity and
 * the cgroup apply), keeps raw output as artifacts and adds metrics to ctx->out.
 * A tool failure or output that does not parse returns an error: the job
 * fails with that message and no made-up value is stored.
 */
#ifndef KVB_WORKLOAD_H
#define KVB_WORKLOAD_H

#include "config/keys.h"
#include "config/runtime.h"
#include "config/wa3.h"
#include "core/metric.h"
#include "target/target.h"

struct kvb_workload_ops;

/* What a resumed run's earlier jobs stored, read for a workload's resume hook (the engine reads its store). */
struct kvb_run_memory {
	/* Job classifier `key` of the run's first job (by seq) that has it, into buf (size bytes, NUL-ended):
	 * 1 when found, 0 when no job has it (or it cannot be read). */
	int (*classifier)(void *arg, const char *key, char *buf, size_t size);
	void *arg;
};

struct kvb_job_ctx {
	const struct kvb_workload_ops *ops; /* the job's workload (its params table for kvb_param_*) */
	struct kvb_target *target;
	const cJSON *params;            /* the spec's workload parameters (defaults not filled in) */
	const struct kvb_runtime *rt;   /* merged knobs of this job */
	const char *artifact_dir;       /* local directory for this job's files (exists) */
	const char *remote_dir;         /* directory on the target for this job's files (exists) */
	const char *const *wrap;        /* argv prefix that applies cpus/cgroup, or NULL */
	uint64_t timeout_ms;            /* budget for the benchmark command */
	struct kvb_metrics *out;        /* metrics and artifacts go here */
	/*
	 * This workload's state on this board, kept between its jobs (rt-app: the run's pLoad): a slot
	 * of the board's struct kvb_workload_states. The workload makes *state on first use and its
	 * state_free hook frees it. NULL: nothing is kept between jobs (each job starts afresh).
	 */
	void **state;
	/*
	 * Set by the workload when it refuses the job for what the board is, not for what happened
	 * (a tool without a feature the job asks: rt-app without util_min): an attempt right away
	 * finds the same board, so the engine fails the job without its retries. 0 on entry.
	 */
	int no_retry;
};

/* What a workload needs of its target besides the tools in needs[]: asked by `platform
 * check` and by the workload itself, never by a target's name (docs/design.md#backends-and-capabilities). */
enum kvb_workload_caps {
	/* real-time priorities and mlockall: root (or CAP_SYS_NICE and CAP_IPC_LOCK) on the target */
	KVB_WORKLOAD_NEEDS_ROOT = 1u << 0,
	/* may run SCHED_FIFO/RR tasks: its cgroup needs an RT budget where RT group scheduling is on
	 * (engine/knobs.h; a sweep that cannot give one is refused before the run) */
	KVB_WORKLOAD_REALTIME = 1u << 1,
};

/*
 * How the report draws a workload's plots (report/page.c applies it): the plots of the workload whose
 * title has `title` (its CDFs, drawn from its artifacts) get a vertical line at marker_x labelled
 * marker_label, and/or a log x axis. A table ends with a NULL title.
 */
struct kvb_plot_decl {
	const char *title;        /* words of the plots' titles: "frame duration" */
	double marker_x;          /* where the line is, in the plot's x units (ms, us); used when marker_label is set */
	const char *marker_label; /* "16.7 ms (60 Hz frame budget)", or NULL: no line */
	int xlog;                 /* 1: a log x axis (latencies spanning decades) */
};

/*
 * A plot a workload draws from its own artifacts: `kvbench report` (report/plot_dist.c) walks every
 * workload's table and names no workload or artifact kind itself. For each stored artifact of `kind`
 * of the page's compared jobs, read() hands the values it holds to add(): set is the index of the
 * series set (0 .. nsets-1; one plot per key of a set, one series per variant), key groups plots
 * (an rt-app task, a Jankbench test, a stress-ng stressor), x is one value in the set's units.
 * read returns 0, or -1 with why filled (the report lists unreadable artifacts, never stops on one).
 * A table ends with a NULL kind.
 */
struct kvb_artifact_plot {
	const char *kind;            /* the artifact kind it reads: "jankbench-frames" */
	const char *section;         /* the report section: "Jankbench frame durations" */
	const char *anchor;          /* its anchor in the page: "jankbench" */
	const char *text;            /* the section's one-line text */
	const char *fold_units;      /* the plots' x units, for the page's fold of CDFs: "ms", "us" */
	const char *metrics[2];      /* `report --metric M` keeps the section when M is one of these (NULL: unused) */
	size_t nsets;                /* 1 or 2 */
	const char *what[2];         /* per set: the plots' title after "KEY: ": "frame duration CDF" */
	const char *xlabel[2];       /* per set: "total frame duration (ms)" */
	int (*read)(const char *path, void (*add)(void *arg, size_t set, const char *key, double x), void *arg,
		    char *why, size_t why_len);
};

struct kvb_workload_ops {
	const char *name;                   /* agenda `name:` */
	const char *summary;                /* one line for --help */
	const struct kvb_keydef *params;    /* parameters; KVB_KEY_CLASSIFIER ones become job classifiers */
	const struct kvb_metric_decl *metrics; /* what run() stores, ended by a NULL name */
	const struct kvb_plot_decl *plots;     /* how the report marks its plots, ended by a NULL title; may be NULL */
	const struct kvb_artifact_plot *artifact_plots; /* the CDFs it draws from its artifacts, ended by a
							   NULL kind; may be NULL */
	/* Extra checks beyond the key table, errors to d; may be NULL. Returns error count. */
	int (*validate)(const cJSON *params, const char *path, struct kvb_diag *d);
	/* Tools the target needs (checked by `platform check`), NULL-terminated; may be NULL. */
	const char *const *needs;
	unsigned caps;                      /* enum kvb_workload_caps */
	unsigned target_caps;               /* enum kvb_target_caps the target must have (0: any) */
	unsigned default_timeout_s;
	int (*run)(struct kvb_job_ctx *ctx, struct kvb_error *err);
	/*
	 * Work the job needs before it is measured, called by the engine after the knobs and
	 * before the instruments start, so no instrument window holds it (rt-app: the run's
	 * calibration, done by its first rt-app job). A failure fails the job. May be NULL.
	 */
	int (*prepare)(struct kvb_job_ctx *ctx, struct kvb_error *err);
	/*
	 * At the end of each (variant, round) in which this workload ran: measures again what
	 * prepare measured for the whole run and appends the witness of the comparison to out
	 * (rt-app: pLoad, a `changed` witness when it moved more than pload_drift_pct), or
	 * nothing when there was nothing to check. ctx->params are those of one of its specs that
	 * ran; ctx->out takes notes. The engine stores the witnesses with the variant and round,
	 * and one that is not ok is an event of each of the round's jobs of this workload. May be NULL.
	 */
	int (*recheck)(struct kvb_job_ctx *ctx, struct kvb_witnesses *out, struct kvb_error *err);
	/* Frees what the workload made in its per-board slot (*ctx->state); NULL when it keeps nothing. */
	void (*state_free)(void *state);
	/*
	 * A resumed run: fills *state (empty when called) from what the run's earlier jobs stored, so its
	 * jobs still to run work as the earlier ones did (rt-app: their pLoad, job classifier pload_ns).
	 * Called once per board, when the board's slot for this workload is made. May be NULL.
	 */
	void (*resume)(void **state, const struct kvb_run_memory *run);
	/*
	 * WA3's version of this workload (its plugin name is this workload's name, matched as WA3 matches
	 * names: case, '-' and '_' ignored): how `import`/`run` of a WA3 agenda translate its parameters,
	 * applied in table order (wa3_keys.c). NULL: parameters pass as they are.
	 */
	const struct kvb_wa3_param *wa3_params;
	/*
	 * The operations one job performs, from its parameters (params: the spec's, defaults not filled
	 * in): what the workload's own per-operation metric divides by (sched_pipe: loops, as perf bench
	 * prints usecs/op), so a job's profile reads per operation (docs/profile.md). *what names one
	 * operation ("loop", "message"; static). Returns 0 when it cannot tell. May be NULL.
	 */
	double (*op_count)(const struct kvb_workload_ops *w, const cJSON *params, const char **what);
};

extern const struct kvb_workload_ops *const kvb_workloads[];
const struct kvb_workload_ops *kvb_workload_find(const char *name);

/* The declaration of metric `name` in w->metrics, or NULL. */
const struct kvb_metric_decl *kvb_workload_metric(const struct kvb_workload_ops *w, const char *name);
/* The declaration of metric of the registered workload named workload, or NULL (either unknown). */
const struct kvb_metric_decl *kvb_workload_metric_decl(const char *workload, const char *metric);
/*
 * The metrics m->v[from..m->n) a job of w stored agree with w->metrics (name declared, same units
 * and lower_is_better): KVB_OK, or KVB_EINTERNAL naming the first that does not (a workload that
 * stores what it does not declare is a kvbench bug: its number is refused, not kept).
 */
int kvb_workload_check_metrics(const struct kvb_workload_ops *w, const struct kvb_metrics *m, size_t from,
			       struct kvb_error *err);

/*
 * The workloads' state on one board: one slot per workload, made on first use. Owned by one
 * board's engine and used by its thread only; a board pool has one per board, so two boards share
 * nothing (each rt-app board calibrates its own pLoad). Init with KVB_WORKLOAD_STATES_INIT.
 */
struct kvb_workload_state_slot;
struct kvb_workload_states {
	struct kvb_workload_state_slot *head; /* owned list */
	const struct kvb_run_memory *resumed; /* a resumed run's memory, given to resume hooks (not owned); NULL: a new run */
};
#define KVB_WORKLOAD_STATES_INIT { NULL, NULL }
/*
 * Workload w's slot in s, for kvb_job_ctx.state: made empty on the first call (then, when
 * s->resumed, filled by w->resume), the same slot after. The slot stays where it is until
 * kvb_workload_states_release.
 */
void **kvb_workload_state(struct kvb_workload_states *s, const struct kvb_workload_ops *w);
/* Frees each slot's state with its workload's state_free and the slots; s is empty after (resumed kept). */
void kvb_workload_states_release(struct kvb_workload_states *s);

/* Runs argv on the target under ctx->wrap (affinity, cgroup) with ctx->timeout_ms. */
int kvb_job_exec(struct kvb_job_ctx *ctx, const char *const *argv, struct kvb_exec_result *r, struct kvb_error *err);

/* Parameter value as a string: the spec's value, else the table default, else NULL. Owned. */
char *kvb_param_str(const struct kvb_workload_ops *ops, const cJSON *params, const char *key);
long long kvb_param_int(const struct kvb_workload_ops *ops, const cJSON *params, const char *key);
/*
 * 1 when the spec gives parameter key, one of ops->params (its table default does not count), else 0;
 * a key ops does not declare is never given (a misspelt key reads as absent, not as another's value).
 */
int kvb_param_has(const struct kvb_workload_ops *ops, const cJSON *params, const char *key);
/*
 * Integer parameter key, telling "absent" from any value: 1 when the spec gives it as an integer (*out
 * its value, 0 included); 0 when it does not give it, or gives what is not an integer (the key table
 * refuses that before any job), with *out the table default (0 when the table has none).
 */
int kvb_param_int_opt(const struct kvb_workload_ops *ops, const cJSON *params, const char *key, long long *out);

/*
 * Shared run for workloads that are one command whose stdout holds the result:
 * runs argv, stores stdout+stderr as artifact "<name>.out", fails on non-zero
 * exit (quoting stderr), then calls parse(stdout). An artifact that cannot be
 * written (disk full) is KVB_ESTORE: the engine stops the run, and the job
 * is redone on --resume.
 */
int kvb_workload_run_cmd(struct kvb_job_ctx *ctx, const char *name, const char *const *argv,
			 int (*parse)(const char *out, struct kvb_metrics *m, struct kvb_error *err),
			 struct kvb_error *err);

/* Which stream of a command holds its result. */
enum kvb_out_stream { KVB_OUT_STDOUT = 0, KVB_OUT_STDERR = 1 };

/* How kvb_workload_run_cmd_ex runs and reads one command. */
struct kvb_cmd_spec {
	const char *name;              /* artifact "<name>.out" */
	const char *const *argv;
	enum kvb_out_stream stream;    /* what parse() reads (schbench reports on stderr) */
	int (*parse)(const char *out, struct kvb_metrics *m, struct kvb_error *err);
	/*
	 * A non-zero exit that still holds a whole result: returns 1 (and may add a note to m)
	 * when the output is to be parsed anyway; NULL: every non-zero exit fails the job.
	 */
	int (*exit_ok)(int exit_code, const char *out, const char *errout, struct kvb_metrics *m);
};
/* kvb_workload_run_cmd with the stream and the exit rule of spec. */
int kvb_workload_run_cmd_ex(struct kvb_job_ctx *ctx, const struct kvb_cmd_spec *spec, struct kvb_error *err);

/* Output parsers, public for tests and fuzzers. 0 or KVB_EINPUT with a reason. */
int kvb_parse_hackbench(const char *out, struct kvb_metrics *m, struct kvb_error *err);
int kvb_parse_sched_pipe(const char *out, struct kvb_metrics *m, struct kvb_error *err);
int kvb_parse_sched_messaging(const char *out, struct kvb_metrics *m, struct kvb_error *err);
int kvb_parse_cyclictest(const char *out, struct kvb_metrics *m, struct kvb_error *err);
int kvb_parse_schbench(const char *out, struct kvb_metrics *m, struct kvb_error *err);
/* stress-ng's --yaml report: bogo_ops_per_sec and bogo_ops_per_sec_cpu per stressor (stress_ng.c). */
int kvb_parse_stress_ng(const char *out, struct kvb_metrics *m, struct kvb_error *err);
/* schbench's exit 1 after a complete report (it failed to read a gone thread's schedstat): 1, with a note. */
int kvb_schbench_exit_ok(int exit_code, const char *out, const char *errout, struct kvb_metrics *m);

#endif
