/*
 * Metrics and artifacts a job produces (docs/design.md#metrics). Metric names are an
 * interface: reports and tests depend on them.
 */
#ifndef KVB_METRIC_H
#define KVB_METRIC_H

#include "core/witness.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A metric's direction, stored as its lower_is_better (the DB column and every output keep that name):
 * 1 lower is better (latency, time, energy), 0 higher is better (throughput), -1 neither: a measure
 * of what the system did, not of how well (CPU utilisation, CPU frequency, a measured period). A
 * real change of a metric with no direction is "changed", never "better" or "worse" (stats/verdict.h):
 * a busier CPU or a higher frequency is no improvement by itself (for a fixed amount of work
 * lower reads as cheaper, for a fixed time higher as more done: the metric cannot tell which).
 */
enum {
	KVB_NO_DIRECTION = -1,
	KVB_HIGHER_IS_BETTER = 0,
	KVB_LOWER_IS_BETTER = 1,
};

/* "lower", "higher" or "neither" for a lower_is_better value (any value < 0: "neither"). */
const char *kvb_direction_word(int lower_is_better);
/* lower_is_better as JSON writes it: true, false, or null (no direction). New, owned by the caller. */
cJSON *kvb_direction_json(int lower_is_better);

/* A metric a workload or an instrument stores (metric names are an interface). */
struct kvb_metric_decl {
	const char *name;        /* as stored: "usecs_per_op" */
	const char *units;       /* as stored: "s", "us", "ms", "ops/s", "%", "count" */
	int lower_is_better;     /* KVB_LOWER_IS_BETTER, KVB_HIGHER_IS_BETTER or KVB_NO_DIRECTION, as stored */
	const char *description; /* one line for `help NAME` and the man page */
	/*
	 * The smallest step the tool prints this metric in, in its units (perf bench's "Total
	 * time: 0.230 [sec]" and hackbench's "Time: 0.055": 0.001 s; cyclictest's latencies:
	 * 1 us); 0: finer than any difference kvbench judges. A difference within a few such
	 * steps cannot be resolved by more boots, and an undecided cell says so (results/cell_stats.h).
	 */
	double resolution;
	const char *finer;       /* a metric of the same job that resolves what this one cannot, or NULL */
};

struct kvb_metric {
	char *name;            /* "time", "ops_per_sec", "slack_mean" ... */
	double value;
	char *units;           /* "s", "us", "ops/s", "mW", "J", "%" ... */
	int lower_is_better;   /* KVB_LOWER_IS_BETTER (1), KVB_HIGHER_IS_BETTER (0) or KVB_NO_DIRECTION (-1) */
	cJSON *classifiers;    /* owned object key -> string, metric-level (e.g. task), or NULL */
};

struct kvb_artifact {
	char *kind;    /* "raw-output", "rt-app-log", "console" ... */
	char *path;    /* local path, under the run's artifact directory */
	char sha256[65];
	int64_t bytes;
};

struct kvb_samples;
struct kvb_profile;

struct kvb_metrics {
	struct kvb_metric *v;
	size_t n, alloc;
	struct kvb_artifact *art;
	size_t nart, art_alloc;
	struct kvb_samples *samples;  /* owned energy samples (core/samples.h) or NULL; stored with the job */
	char **notes;                 /* owned: things the job must not keep silent (a task that never ran);
					 the engine prints each and stores it as a run event (level warning) */
	size_t nnotes;
	cJSON *job_classifiers;       /* owned object key -> string, or NULL: classifiers of the whole job that
					 only the run can tell (rt-app's pload_ns); the engine adds them */
	struct kvb_witnesses witnesses; /* what was checked to believe the numbers (core/witness.h); stored
					   with the job whatever its status */
	struct kvb_profile *profile;  /* owned sampling profile of the job (core/profile.h) or NULL; stored
					 with the job (results-schema/0029_profile.sql) */
};

void kvb_metrics_init(struct kvb_metrics *m);
void kvb_metrics_release(struct kvb_metrics *m);
/* Appends a metric (lower_is_better: 1, 0, or < 0 for KVB_NO_DIRECTION). Returns it. */
struct kvb_metric *kvb_metrics_add(struct kvb_metrics *m, const char *name, double value, const char *units,
				   int lower_is_better);
/* Appends the metric d declares (its name, units and direction) with value. Returns it. */
struct kvb_metric *kvb_metrics_add_decl(struct kvb_metrics *m, const struct kvb_metric_decl *d, double value);
/* Adds a metric-level classifier (copied). */
void kvb_metric_classify(struct kvb_metric *mt, const char *key, const char *value);
/* Sets job classifier key = value (copied) in m->job_classifiers. */
void kvb_metrics_job_classify(struct kvb_metrics *m, const char *key, const char *value);
/* Adds a note (printf format) to m->notes. */
void kvb_metrics_note(struct kvb_metrics *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records an artifact file; sha256 and size are computed here. Returns 0 or -1 (file unreadable). */
int kvb_metrics_artifact(struct kvb_metrics *m, const char *kind, const char *path);

#endif
