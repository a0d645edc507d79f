/*
 * The comparison model behind `kvbench diff`: results of one or more runs
 * grouped per (workload, metric, units, classifiers except variant,
 * iteration and rep), with each variant's values and boots (docs/design.md#statistics).
 * iteration and rep (a repetition inside one job, e.g. Jankbench's) are
 * samples of the same cell.
 */
#ifndef KVB_RESULTS_GROUPS_H
#define KVB_RESULTS_GROUPS_H

#include "core/error.h"
#include "store/store.h"
#include "core/buf.h"
#include "core/util.h"
#include "stats/stats.h"

#include <stddef.h>
#include <stdint.h>

struct kvb_report_opts {
	const int64_t *runs;       /* run ids; none = the latest run */
	size_t nruns;
	const char *baseline;      /* variant name; NULL = first variant */
	const char *metric_glob;   /* fnmatch pattern on metric names, or NULL */
	const char *const *metric_globs; /* more patterns (--metric repeated): a metric matching any is kept */
	size_t nmetric_globs;
	const char *workload;      /* only this workload, or NULL */
	const char *by;            /* classifier spread into columns (excluded from the group key), or NULL */
	int max_round;             /* only jobs of rounds 1..max_round; 0 = every round (the
				    * --until-decided look after round r sees what round r had) */
	const int *skip_rounds;    /* rounds left out (--until-decided: those the host disturbed), or NULL */
	size_t nskip_rounds;
};

/* One variant's sample in one group. boot identifies the boot unit (run_id * 100000 + round). */
struct kvb_cell {
	size_t n;
	double *v;
	int64_t *boot;
	int *board;   /* per value: 1 + index into kvb_report.boards, 0 without a board (one-board runs) */
	int64_t *pair;/* per value: run_id * 100000 + round, what pairs it with the baseline's in a duet run */
	size_t left_out; /* values of this cell's jobs the host disturbed in every attempt (job status
			  * disturbed): counted, never compared (results_left_out view) */
};

struct kvb_group {
	char *workload, *metric, *units;
	int lower_is_better;
	char *key;        /* grouping key (internal) */
	char *label;      /* classifiers that vary between groups of this metric: "cgroup_depth=1" */
	char *by_value;   /* value of the --by classifier, or NULL */
	char *cls_json;   /* all group classifiers as a JSON object string */
	struct kvb_cell *cells;  /* one per variant, index as in kvb_report.variants */
	double margin;    /* "same" verdict margin, fraction (0: KVB_VERDICT_MARGIN); see report/verdict_cell.h */
	double resolution;/* the step the tool prints this metric in, in its units (0: finer; kvb_report_set_steps) */
	const char *finer;/* a metric of the same job that resolves what this one cannot (static), or NULL */
};

struct kvb_report {
	struct kvb_strv variants;  /* in order: baseline first */
	size_t nbase;              /* always 0 after load (baseline moved first) */
	struct kvb_group *groups;
	size_t ngroups;
	int64_t *runs;
	size_t nruns;
	struct kvb_strv boards;    /* names of a pool's boards seen in the results (docs/design.md#pools-and-lava) */
	/* classifier keys of the knobs a variant of these runs sets (variant.runtime_json): what
	 * is compared, so not grouped by, else each variant's jobs would fall in cells of their own */
	struct kvb_strv variant_knobs;
	/* every run loaded is a duet run (execution_order: duet): A and B ran at the same time, round by
	 * round, so a cell's values pair with the baseline's by (run, round) (kvb_cell.pair) */
	int paired;
};


/*
 * Duet runs (kvb_report.paired): the per-(run, round) means of baseline cell b and cell c in the
 * rounds both have values, paired, and their paired comparison at level alpha (stats.h
 * kvb_stats_paired). KVB_EINPUT when fewer than 2 rounds pair (or the cells carry no pairing).
 */
int kvb_cell_paired(const struct kvb_cell *b, const struct kvb_cell *c, double alpha, struct kvb_paired *out);

/* Loads and groups. KVB_EINPUT when the baseline is unknown or nothing matches. */
int kvb_report_load(struct kvb_store *s, const struct kvb_report_opts *o, struct kvb_report *r, struct kvb_error *err);
/* Frees what group g owns (its cells for nvariants variants, its strings), not g itself. */
void kvb_group_release(struct kvb_group *g, size_t nvariants);
void kvb_report_release(struct kvb_report *r);

/* 1 when metric passes the --metric patterns (metric_glob or any of metric_globs; none given: all). */
int kvb_report_metric_wanted(const struct kvb_report_opts *o, const char *metric);

/* Human label for a --by value: cgroup_depth 0..3 -> root, level1..level3; else the value. */
const char *kvb_by_label(const char *key, const char *value, char *buf, size_t n);

#endif
