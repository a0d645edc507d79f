/* Unit tests for the three-way verdict, Cliff's delta, mode counting, alpha spending and the K&J plan. */
#include "stats/stats.h"
#include "stats/verdict.h"
#include "results/cell_stats.h"
#include "core/error.h"
#include "test.h"
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>

/* b = {1,2,3}, v = {2,3,4}: of 9 pairs v wins 6, ties 2, loses 1: delta = (6 - 1) / 9. */
static void test_cliffs__hand_counted_pairs(void)
{
	const double b[] = { 1, 2, 3 }, v[] = { 2, 3, 4 };
	struct kvb_mannwhitney m;
	CHECK(kvb_stats_mannwhitney(b, 3, v, 3, &m, NULL) == KVB_OK);
	double d = kvb_stats_cliffs_delta(m.u, 3, 3);
	CHECK(fabs(d - 5.0 / 9.0) < 1e-12);
	CHECK_STR(kvb_stats_cliffs_label(d), "large");
	CHECK(fabs(kvb_stats_cliffs_delta(9 - m.u, 3, 3) + 5.0 / 9.0) < 1e-12); /* swapped: sign flips */
	CHECK_STR(kvb_stats_cliffs_label(0.149), "negligible");
	CHECK_STR(kvb_stats_cliffs_label(-0.2), "small");
	CHECK_STR(kvb_stats_cliffs_label(0.4), "medium");
	CHECK_STR(kvb_stats_cliffs_label(NAN), "-");
}

static void test_modes__one_normal_two_separated_normals_any_units(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double x[400], y[400];
	size_t m;
	gsl_rng_set(rng, 3);
	for (int i = 0; i < 400; i++)
		x[i] = 70 + gsl_ran_gaussian(rng, 1.0);
	CHECK(kvb_stats_count_modes(x, 400, &m, NULL) == KVB_OK);
	CHECK(m == 1);
	/* boots landing in two modes: half the runs 6 sd above the other half */
	for (int i = 0; i < 400; i++)
		x[i] = (i % 2 ? 76 : 70) + gsl_ran_gaussian(rng, 1.0);
	CHECK(kvb_stats_count_modes(x, 400, &m, NULL) == KVB_OK);
	CHECK(m == 2);
	for (int i = 0; i < 400; i++)
		y[i] = x[i] * 1e-6; /* the same data in seconds instead of microseconds */
	CHECK(kvb_stats_count_modes(y, 400, &m, NULL) == KVB_OK);
	CHECK(m == 2);
	CHECK(kvb_stats_count_modes(x, 9, &m, NULL) == KVB_OK);
	CHECK(m == 1); /* too few to tell */
	x[5] = NAN;
	CHECK(kvb_stats_count_modes(x, 400, &m, NULL) == KVB_EINPUT);
	gsl_rng_free(rng);
}

static void test_verdict__better_worse_same_undecided_with_boots_estimate(void)
{
	struct kvb_verdict v;
	struct kvb_verdict_in in = { .significant = 1, .diff = 0.5, .change = 0.05, .ci_lo = 0.03, .ci_hi = 0.07, .boots = 3,
				     .margin = 0.01, .lower_is_better = 1 };
	kvb_verdict_judge(&in, &v);
	CHECK(v.kind == KVB_VERDICT_WORSE);
	in.lower_is_better = 0;
	kvb_verdict_judge(&in, &v);
	CHECK_STR(v.name, "better");
	in = (struct kvb_verdict_in){ .diff = 0.01, .change = 0.001, .ci_lo = -0.005, .ci_hi = 0.004, .boots = 3, .margin = 0.01 };
	kvb_verdict_judge(&in, &v);
	CHECK_STR(v.name, "same");
	CHECK(isnan(v.boots_needed));
	in.margin = 0.004; /* the same CI no longer fits a 0.4 % margin */
	kvb_verdict_judge(&in, &v);
	CHECK_STR(v.name, "undecided");
	/* h = 0.025, d = 0.002: same at 3 (0.025/0.008)^2 = 29.3 -> 30 boots; a change at 469 */
	in = (struct kvb_verdict_in){ .diff = 0.02, .change = 0.002, .ci_lo = -0.023, .ci_hi = 0.027, .boots = 3, .margin = 0.01 };
	kvb_verdict_judge(&in, &v);
	CHECK(v.kind == KVB_VERDICT_UNDECIDED);
	CHECK(v.boots_needed == 30);
	in.boots = 1; /* runs as units: no boots estimate */
	kvb_verdict_judge(&in, &v);
	CHECK(isnan(v.boots_needed));
	in = (struct kvb_verdict_in){ .diff = 0.02, .change = 0.002, .ci_lo = NAN, .ci_hi = NAN, .boots = 3, .margin = 0.01 };
	kvb_verdict_judge(&in, &v);
	CHECK(v.kind == KVB_VERDICT_UNDECIDED && isnan(v.boots_needed));
}

/*
 * The direction is the difference's sign (issue 26): rt-app slack_min, higher
 * is better, -23822 -> -62614 us went down by 162.84 % and is worse, although
 * the ratio of the means (2.63) is above 1. A change of 0 or NAN with the test
 * significant has no direction: undecided, never better.
 */
static void test_verdict__direction_from_the_difference_not_a_ratio(void)
{
	struct kvb_verdict v;
	struct kvb_verdict_in in = { .significant = 1, .diff = -38792, .change = -1.6284, .ci_lo = -1.649, .ci_hi = -1.608,
				     .boots = 3, .margin = 0.01, .lower_is_better = 0 };
	kvb_verdict_judge(&in, &v);
	CHECK_STR(v.name, "worse");
	in.lower_is_better = 1; /* e.g. wake-up latency going down */
	kvb_verdict_judge(&in, &v);
	CHECK_STR(v.name, "better");
	/* crossing zero upwards: -0.3 -> 1.35, +550 % */
	in = (struct kvb_verdict_in){ .significant = 1, .diff = 1.65, .change = 5.5, .ci_lo = 3.63, .ci_hi = 7.37,
				      .boots = 1, .margin = 0.01, .lower_is_better = 0 };
	kvb_verdict_judge(&in, &v);
	CHECK_STR(v.name, "better");
	/* a zero baseline: no relative change, the difference still gives the direction */
	in = (struct kvb_verdict_in){ .significant = 1, .diff = -2, .change = NAN, .ci_lo = NAN, .ci_hi = NAN, .boots = 2,
				      .margin = 0.01, .lower_is_better = 1 };
	kvb_verdict_judge(&in, &v);
	CHECK_STR(v.name, "better");
	in.diff = NAN;
	kvb_verdict_judge(&in, &v);
	CHECK_STR(v.name, "undecided");
	/* "same" is symmetric around no change: +-margin */
	in = (struct kvb_verdict_in){ .diff = -1, .change = -0.002, .ci_lo = -0.009, .ci_hi = 0.006, .boots = 3,
				      .margin = 0.01 };
	kvb_verdict_judge(&in, &v);
	CHECK_STR(v.name, "same");
	in.ci_lo = -0.011;
	kvb_verdict_judge(&in, &v);
	CHECK_STR(v.name, "undecided");
}

/*
 * An exact [0, 0] difference is "same" whatever the margin, with no relative CI (baseline 0);
 * an undecided verdict without a CI says why.
 */
static void test_verdict__exact_zero_difference_is_same_and_no_ci_says_why(void)
{
	struct kvb_verdict v;
	struct kvb_verdict_in in = { .diff = 0, .change = NAN, .ci_lo = NAN, .ci_hi = NAN, .boots = 3, .margin = 0.01,
				     .diff_ci_zero = 1, .no_ci = KVB_WHY_ZERO_BASE };
	kvb_verdict_judge(&in, &v);
	CHECK_STR(v.name, "same");
	CHECK(v.why == NULL);
	in.diff_ci_zero = 0;
	kvb_verdict_judge(&in, &v);
	CHECK_STR(v.name, "undecided");
	CHECK_STR(v.why, "baseline is 0: no % CI");
	in.no_ci = NULL;
	kvb_verdict_judge(&in, &v);
	CHECK_STR(v.why, "no CI");
	in = (struct kvb_verdict_in){ .diff = 0.02, .change = 0.002, .ci_lo = -0.023, .ci_hi = 0.027, .boots = 3,
				      .margin = 0.01, .no_ci = KVB_WHY_UNBOUNDED };
	kvb_verdict_judge(&in, &v);
	CHECK_STR(v.name, "undecided");
	CHECK(v.why == NULL); /* it has a CI to state */
	/* significance comes before the exact-zero flag: a change never reads "same" */
	in = (struct kvb_verdict_in){ .significant = 1, .diff = 1, .change = NAN, .ci_lo = NAN, .ci_hi = NAN, .boots = 3,
				      .margin = 0.01, .diff_ci_zero = 1 };
	kvb_verdict_judge(&in, &v);
	CHECK_STR(v.name, "better");
}

/* O'Brien-Fleming spending: alpha(0.5) = 2 - 2 Phi(1.95996 / sqrt(0.5)) = 0.0055746; increments add up to alpha. */
static void test_alpha__obrien_fleming_spending(void)
{
	CHECK(fabs(kvb_alpha_spent_obf(0.05, 0.5) - 0.0055746) < 1e-6);
	CHECK(fabs(kvb_alpha_spent_obf(0.05, 1) - 0.05) < 1e-15);
	CHECK(kvb_alpha_look(0.05, 1, 10) < 1e-9); /* 5.7e-10: nothing is decided at the first of 10 looks */
	double sum = 0;
	for (unsigned k = 1; k <= 10; k++) {
		double a = kvb_alpha_look(0.05, k, 10);
		CHECK(a > 0);
		sum += a;
	}
	CHECK(fabs(sum - 0.05) < 1e-12);
	CHECK(kvb_alpha_look(0.05, 11, 10) == 0);
}

/*
 * Boots {10,12} {20,22} {15,17}: S1^2 = 6/3 = 2, boot means 11 21 16 so
 * S2^2 = 25, T2^2 = 25 - 2/2 = 24. Boot 40 s, run 2 s: runs per boot
 * ceil(sqrt(20 * 2 / 24)) = 2. Detecting 50 % of the mean 16 (8) with 2 runs
 * per boot: variance 24 + 1 = 25; with t tables, k = 7 gives
 * (2.179 + 0.873)^2 * 50 / 7 = 66.5 > 64 and k = 8 gives 56.7 <= 64: 8 boots.
 */
static void test_twolevel__variance_components_runs_per_boot_and_boots(void)
{
	const double x[] = { 10, 12, 20, 22, 15, 17 };
	const int id[] = { 1, 1, 2, 2, 3, 3 };
	struct kvb_twolevel p;
	struct kvb_error e;
	CHECK(kvb_twolevel_components(x, id, 6, 40, 2, &p, NULL) == KVB_OK);
	CHECK(p.boots == 3 && p.n == 6);
	CHECK(fabs(p.s_run2 - 2) < 1e-12);
	CHECK(fabs(p.s_boot2 - 25) < 1e-12);
	CHECK(fabs(p.t_boot2 - 24) < 1e-12);
	CHECK(p.runs_per_boot == 2);
	CHECK(kvb_twolevel_boots(&p, 2, 0.5, 0.05, 0.8) == 8);
	CHECK(kvb_twolevel_boots(&p, 2, 0.0001, 0.05, 0.8) == 0); /* out of reach */
	const int one[] = { 1, 1, 1, 1, 1, 1 };
	CHECK(kvb_twolevel_components(x, one, 6, 40, 2, &p, &e) == KVB_EINPUT);
	CHECK(strstr(e.msg, "2 boots") != NULL);
}

/* A cell of 3 boots x 5 runs: boots at lv[k], runs x {cold[k], 0.99, 1.01, 1.005, 0.995} (the first cold). */
static void cold_cell(struct kvb_cell *c, double *x, int64_t *boot, const double *lv, const double *cold)
{
	static const double runs[] = { 1, 0.99, 1.01, 1.005, 0.995 };
	for (int k = 0; k < 3; k++)
		for (int r = 0; r < 5; r++) {
			x[k * 5 + r] = lv[k] * runs[r] * (r == 0 ? cold[k] : 1);
			boot[k * 5 + r] = 10 + k;
		}
	*c = (struct kvb_cell){ .n = 15, .v = x, .boot = boot };
}

/*
 * diff's verdict, 3 boots a side, 5 runs a boot, a +20 % change, the first
 * run of every boot 4x slower (issue 38): before, the two-level bootstrap
 * redrew the cold run and left it undecided; each boot's trimmed mean says
 * worse. The shown change stays the run means' (+20 %, both sides alike).
 */
static void test_cell_verdict__cold_first_runs_do_not_hide_a_twenty_pct_change(void)
{
	static const double lb[] = { 100, 103, 97 }, lv[] = { 120, 123.6, 116.4 }, c4[] = { 4, 4, 4 };
	double xb[15], xv[15];
	int64_t ib[15], iv[15];
	struct kvb_cell cells[2];
	struct kvb_report r = { 0 };
	struct kvb_group g = { .lower_is_better = 1, .cells = cells };
	struct kvb_cell_stats cs;
	cold_cell(&cells[0], xb, ib, lb, c4);
	cold_cell(&cells[1], xv, iv, lv, c4);
	kvb_cell_compute(&r, &g, 1, KVB_STAT_MEAN, 0.05, &cs);
	CHECK(cs.boot_ok && cs.b.robust);
	CHECK(fabs(cs.diff_pct - 20) < 1e-9);
	CHECK(fabs(cs.value - 1.6 * (120 + 123.6 + 116.4) / 3) < 1e-9); /* the shown mean keeps the cold runs */
	CHECK(cs.significant);
	CHECK_STR(cs.verdict, "worse");
}

/* A/A with cold first runs of different sizes (2-6x) on both sides: not called different. */
static void test_cell_verdict__aa_with_cold_first_runs_is_not_a_change(void)
{
	static const double lb[] = { 100, 103, 97 }, lv[] = { 101.5, 98, 102 };
	static const double cb[] = { 2, 6, 3.5 }, cv[] = { 5.5, 2.5, 4 };
	double xb[15], xv[15];
	int64_t ib[15], iv[15];
	struct kvb_cell cells[2];
	struct kvb_report r = { 0 };
	struct kvb_group g = { .lower_is_better = 1, .cells = cells };
	struct kvb_cell_stats cs;
	cold_cell(&cells[0], xb, ib, lb, cb);
	cold_cell(&cells[1], xv, iv, lv, cv);
	kvb_cell_compute(&r, &g, 1, KVB_STAT_MEAN, 0.05, &cs);
	CHECK(cs.boot_ok && cs.b.robust);
	CHECK(!cs.significant);
	CHECK_STR(cs.verdict, "undecided");
	/* the levels differ by (101.5 + 98 + 102 - 300) / 300 = +0.5 %, not the run means' */
	CHECK(fabs(cs.b.diff / cs.b.level_b - 0.005) < 1e-9);
}

/* Two cells of 2 boots x 2 runs (the thread agenda's shape) from 8 values, baseline first. */
static void two_boot_cells(struct kvb_cell *cells, double *x, int64_t *boot, const double *v8)
{
	for (int i = 0; i < 8; i++) {
		x[i] = v8[i];
		boot[i] = 10 + i / 2;
	}
	cells[0] = (struct kvb_cell){ .n = 4, .v = x, .boot = boot };
	cells[1] = (struct kvb_cell){ .n = 4, .v = x + 4, .boot = boot + 4 };
}

/*
 * Issue 39: perf prints total_time to the millisecond (0.100 s: steps of 1 %); a +0.75 % change is under a step,
 * so the cell stays undecided whatever the boots, and says so (the step as a share of the
 * baseline, the finer metric) instead of asking for boots; the same data with no declared
 * resolution, and a noisy 10 % change of a finely printed metric, ask for boots as before.
 */
static void test_cell_verdict__coarse_metric_says_more_boots_cannot_decide(void)
{
	static const double quantised[] = { 0.100, 0.102, 0.099, 0.101, 0.101, 0.102, 0.100, 0.102 };
	static const double noisy[] = { 1.0, 1.3, 0.8, 1.1, 1.1, 1.4, 0.9, 1.0 };
	double x[8];
	int64_t b[8];
	struct kvb_cell cells[2];
	struct kvb_report r = { 0 };
	struct kvb_group g = { .lower_is_better = 1, .cells = cells, .units = "s", .resolution = 0.001,
			       .finer = "usecs_per_op" };
	struct kvb_cell_stats cs;
	two_boot_cells(cells, x, b, quantised);
	kvb_cell_compute(&r, &g, 1, KVB_STAT_MEAN, 0.05, &cs);
	CHECK_STR(cs.verdict, "undecided");
	CHECK_STR(cs.coarse, "printed in 0.001 s steps (1 %): too coarse; see usecs_per_op");
	g.resolution = 0;
	kvb_cell_compute(&r, &g, 1, KVB_STAT_MEAN, 0.05, &cs);
	CHECK_STR(cs.verdict, "undecided");
	CHECK_STR(cs.coarse, "");
	g.resolution = 0.001;
	two_boot_cells(cells, x, b, noisy);
	kvb_cell_compute(&r, &g, 1, KVB_STAT_MEAN, 0.05, &cs);
	CHECK_STR(cs.verdict, "undecided");
	CHECK_STR(cs.coarse, ""); /* 50 steps apart: more boots could decide it */
	/* steps of 1.1 % (hackbench's 0.09 s on the thread's board) but a -12 % change: boots can */
	static const double big[] = { 0.090, 0.070, 0.100, 0.085, 0.080, 0.060, 0.090, 0.070 };
	two_boot_cells(cells, x, b, big);
	kvb_cell_compute(&r, &g, 1, KVB_STAT_MEAN, 0.05, &cs);
	CHECK(cs.diff_pct < -10);
	CHECK_STR(cs.verdict, "undecided");
	CHECK_STR(cs.coarse, "");
	/* steps of 0.1 % (hackbench's 1 s at 1000 loops, 2026-12-07: uclamp-unused +0.12 %, one step)
	 * with boot levels 1 % apart: "same" needs boots, not finer steps, and the cell says so */
	static const double fine[] = { 1.000, 1.001, 1.010, 1.011, 1.002, 1.001, 1.011, 1.012 };
	two_boot_cells(cells, x, b, fine);
	kvb_cell_compute(&r, &g, 1, KVB_STAT_MEAN, 0.05, &cs);
	CHECK(fabs(cs.diff) < 0.002);
	CHECK_STR(cs.verdict, "undecided");
	CHECK_STR(cs.coarse, "");
	CHECK(cs.v3.boots_needed > 2);
}

#define TESTS                                                                                                          \
	T(test_cliffs__hand_counted_pairs)                                                                             \
	T(test_cell_verdict__cold_first_runs_do_not_hide_a_twenty_pct_change)                                          \
	T(test_cell_verdict__aa_with_cold_first_runs_is_not_a_change)                                                  \
	T(test_cell_verdict__coarse_metric_says_more_boots_cannot_decide)                                              \
	T(test_modes__one_normal_two_separated_normals_any_units)                                                      \
	T(test_verdict__better_worse_same_undecided_with_boots_estimate)                                               \
	T(test_verdict__exact_zero_difference_is_same_and_no_ci_says_why)                                              \
	T(test_verdict__direction_from_the_difference_not_a_ratio)                                                     \
	T(test_alpha__obrien_fleming_spending)                                                                         \
	T(test_twolevel__variance_components_runs_per_boot_and_boots)
#include "test_main.h"
