/*
 * The statistics of one cell of a comparison (a variant's values in one metric group,
 * results/groups.h) and of its comparison with the baseline cell, as `kvbench diff`,
 * `diff --series` and bisect judge them (docs/design.md#statistics, docs/design.md#verdicts-and-deciding).
 *
 * Verdict: with >= 2 boots on both sides, boots are the unit, each reduced to
 * its robust level (20 % trimmed mean of its runs, median of 3-4 runs:
 * kvb_stats_boot_level): significant when the 95 % CI of the ratio of the
 * mean levels from a bootstrap of the boots alone (kvb_stats_boot_robust)
 * excludes 1 AND Welch on the boot levels gives p < alpha (with 2-3 boots
 * the bootstrap CI alone is too narrow, see src/stats/stats.h). One wild run
 * in a boot (a cold first job) moves neither; the shown value stays the mean
 * of the runs (issue 38: the two-level bootstrap of run means fell to 0-2 %
 * power on such data). With one boot on either side, the naive verdict (Welch
 * and Mann-Whitney both p < alpha) is shown, labelled "1 boot".
 */
#ifndef KVB_RESULTS_CELL_STATS_H
#define KVB_RESULTS_CELL_STATS_H

#include "core/error.h"
#include "results/groups.h"
#include "stats/stats.h"
#include "stats/verdict.h"

#include <stddef.h>

enum kvb_stat { KVB_STAT_MEAN, KVB_STAT_MEDIAN, KVB_STAT_MAX, KVB_STAT_MIN, KVB_STAT_P95 };

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
	int runs_unit;             /* one boot a side: the runs were the unit, and v3.boots_needed counts runs
				    * (the naive test: about that many runs a variant would decide it) */
	struct kvb_verdict v3;     /* three-way verdict with the boots estimate (has_cmp) */
	double same_lo, same_hi;   /* the CI of the relative change (fraction) "same" was judged on (NAN: none) */
	double cliffs;             /* Cliff's delta of the runs, variant vs baseline (NAN: none) */
	size_t modes;              /* modes of this cell's runs (kvb_stats_count_modes) */
	int paired_ok;             /* duet runs (kvb_report.paired), test mean: the verdict is the paired one */
	struct kvb_paired pr;      /* per-(run, round) means paired with the baseline's (paired_ok) */
	size_t left_out;           /* this cell's values the host disturbed in every attempt (kvb_cell.left_out) */
	size_t base_left_out;      /* the baseline cell's (a compared cell's; 0 for the baseline itself) */
	/* an undecided cell the steps the tool prints the metric in (kvb_group.resolution) leave
	 * undecided, not its boots: why more boots cannot decide it, "" otherwise (kvb_cell_coarse) */
	char coarse[128];
};

/* --stat's names in enum kvb_stat's order, NULL-terminated: parse, name, usage and completion read them. */
extern const char *const kvb_stat_names[];
/* name -> *out; KVB_EINPUT when it is none of kvb_stat_names. */
enum kvb_err kvb_stat_parse(const char *s, enum kvb_stat *out);
const char *kvb_stat_name(enum kvb_stat s);

/* Computes stats for group g, variant index v (0 = baseline); "same" uses g->margin. */
void kvb_cell_compute(const struct kvb_report *r, const struct kvb_group *g, size_t v, enum kvb_stat stat,
		      double alpha, struct kvb_cell_stats *out);

/* Variant v of group g against variant b (as the baseline) with the diff's boot-aware verdict. */
void kvb_cell_compare(const struct kvb_report *r, const struct kvb_group *g, size_t b, size_t v, enum kvb_stat stat,
		      double alpha, struct kvb_cell_stats *cs);

#endif
