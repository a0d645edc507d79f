/*
 * `kvbench diff`: per (metric, classifier group) and variant, the statistics
 * and the comparison against the baseline variant, rendered as mailing-list
 * tables (DESIGN.md §8).
 *
 * Verdict: with >= 2 boots on both sides, boots are the unit: significant
 * when the hierarchical-bootstrap 95 % CI of the ratio of means excludes 1
 * AND Welch on the boot means gives p < alpha (with 2-3 boots the bootstrap
 * CI alone is too narrow: measured 20-31 % false positives on A/A, see
 * src/stats/stats.h). With one boot on either side, the naive verdict (Welch
 * and Mann-Whitney both p < alpha) is shown, labelled "1 boot".
 */
#ifndef KVB_DIFF_H
#define KVB_DIFF_H

#include "core/numfmt.h"
#include "report/box.h"
#include "results/groups.h"
#include "stats/stats.h"
#include "stats/verdict.h"

#include <cjson/cJSON.h>
#include <stdio.h>

enum kvb_stat { KVB_STAT_MEAN, KVB_STAT_MEDIAN, KVB_STAT_MAX, KVB_STAT_MIN, KVB_STAT_P95 };

struct kvb_diff_opts {
	struct kvb_report_opts sel;
	const char *format;  /* a name in the format registry (report/format.h); NULL = table */
	const char *layout;  /* long (default) | wide */
	enum kvb_stat stat;
	double alpha;
	double margin;       /* --margin as a fraction, for every group; 0 = the agenda's or KVB_VERDICT_MARGIN */
};

/*
 * The test behind a compared cell's p and verdict, by --stat: the mean's
 * (Welch + Mann-Whitney over runs, or with boots the hierarchical bootstrap
 * and Welch on boot means), a quantile's (median; p95 with >= KVB_P95_TEST_MIN
 * runs a side: the hierarchical bootstrap of that quantile and Welch on the
 * per-boot quantiles, stats.h), or none (min, max, p95 of fewer runs: a
 * bootstrap cannot test an extreme, Bickel & Freedman 1981; no p, no verdict).
 */
enum kvb_stat_test { KVB_TEST_MEAN, KVB_TEST_QUANTILE, KVB_TEST_NONE };
/* Runs a side below which p95 is an extreme (the two largest runs) and is not tested. */
#define KVB_P95_TEST_MIN 20

/* Statistics of one cell and its comparison with the baseline cell. */
struct kvb_cell_stats {
	int ok;                    /* summary available (n >= 1) */
	struct kvb_summary s;
	size_t boots;
	double value;              /* the chosen statistic */
	int has_cmp;               /* compared with the baseline */
	double diff_pct;           /* (value - base value) / |base value| * 100: the sign is the direction */
	double diff;               /* value - base value */
	enum kvb_stat_test test;   /* what p and verdict come from (has_cmp) */
	double p_boot;             /* quantile test: the bootstrap's two-sided p (NAN otherwise) */
	struct kvb_compare c;      /* naive, runs as units (valid when has_cmp && naive_ok) */
	int naive_ok;
	struct kvb_boot_cmp b;     /* boots as units, of the mean or (test quantile) of the statistic (boot_ok) */
	int boot_ok;
	int significant;
	const char *verdict;       /* "better", "worse", "same", "undecided", "untested", "n<2", "" (baseline) */
	int one_boot;              /* verdict came from the naive test with a single boot */
	struct kvb_verdict v3;     /* three-way verdict with the boots estimate (has_cmp) */
	double same_lo, same_hi;   /* the CI of the relative change (fraction) "same" was judged on (NAN: none) */
	double cliffs;             /* Cliff's delta of the runs, variant vs baseline (NAN: none) */
	size_t modes;              /* modes of this cell's runs (kvb_stats_count_modes) */
	int paired_ok;             /* duet runs (kvb_report.paired), test mean: the verdict is the paired one */
	struct kvb_paired pr;      /* per-(run, round) means paired with the baseline's (paired_ok) */
};

enum kvb_err kvb_stat_parse(const char *s, enum kvb_stat *out);
const char *kvb_stat_name(enum kvb_stat s);

/* Computes stats for group g, variant index v (0 = baseline); "same" uses g->margin. */
void kvb_cell_compute(const struct kvb_report *r, const struct kvb_group *g, size_t v, enum kvb_stat stat,
		      double alpha, struct kvb_cell_stats *out);

/* Loads, computes and prints. Returns KVB_OK, KVB_EINPUT (nothing matches / bad option) or KVB_ESTORE. */
int kvb_diff_print(struct kvb_store *s, const struct kvb_diff_opts *o, FILE *out, struct kvb_error *err);


/* The diff table of a loaded report (long, wide or --by layout) into *table (caller releases). */
void kvb_diff_table(const struct kvb_report *r, const struct kvb_diff_opts *o, struct kvb_box *table, int *one_boot);
/* The legend printed under the table (caller frees). */
char *kvb_diff_legend(const struct kvb_report *r, const struct kvb_diff_opts *o);
/* Every statistic, p-value, CI and raw value of a loaded report (caller cJSON_Delete()s). */
cJSON *kvb_diff_json(const struct kvb_report *r, const struct kvb_diff_opts *o);

#endif
