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

struct kvb_metric {
	char *name;            /* "time", "ops_per_sec", "slack_mean" ... */
	double value;
	char *units;           /* "s", "us", "ops/s", "mW", "J", "%" ... */
	int lower_is_better;   /* 1 or 0 */
	cJSON *classifiers;    /* owned object key -> string, metric-level (e.g. task), or NULL */
};

struct kvb_artifact {
	char *kind;    /* "raw-output", "rt-app-log", "console" ... */
	char *path;    /* local path, under the run's artifact directory */
	char sha256[65];
	int64_t bytes;
};

struct kvb_samples;

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
};

void kvb_metrics_init(struct kvb_metrics *m);
void kvb_metrics_release(struct kvb_metrics *m);
/* Appends a metric; classifiers may be NULL ("k1", "v1", "k2", "v2", NULL varargs after). Returns it. */
struct kvb_metric *kvb_metrics_add(struct kvb_metrics *m, const char *name, double value, const char *units,
				   int lower_is_better);
/* Adds a metric-level classifier (copied). */
void kvb_metric_classify(struct kvb_metric *mt, const char *key, const char *value);
/* Sets job classifier key = value (copied) in m->job_classifiers. */
void kvb_metrics_job_classify(struct kvb_metrics *m, const char *key, const char *value);
/* Adds a note (printf format) to m->notes. */
void kvb_metrics_note(struct kvb_metrics *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records an artifact file; sha256 and size are computed here. Returns 0 or -1 (file unreadable). */
int kvb_metrics_artifact(struct kvb_metrics *m, const char *kind, const char *path);

#endif
