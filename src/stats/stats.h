/*
 * Statistics behind `kvbench diff` (docs/design.md#statistics): per-sample summaries, the
 * naive two-sample comparison (Welch t-test + Mann-Whitney U) and the
 * hierarchical bootstrap in which boots, not runs, are the unit.
 *
 * Invariants shared by every function here:
 *  - Samples are plain arrays of doubles in the metric's own units; they are
 *    never modified (functions sort private copies) and never kept.
 *  - Every value must be finite: NaN or +-inf anywhere is KVB_EINPUT, because a
 *    silently propagated NaN would print a plausible-looking table.
 *  - Errors return KVB_EINPUT and fill *err (err may be NULL); results are
 *    left unspecified on error. Nothing here allocates memory the caller owns.
 *  - Distributions (t, normal) and order statistics come from GSL; the only
 *    algorithms written here are counting ones (Mann-Whitney null distribution,
 *    ranks, resampling).
 *  - Inputs are validated before any GSL call, so GSL's error handler (which
 *    aborts by default) is not reached on bad data; main() may still call
 *    gsl_set_error_handler_off() to be sure.
 *  - Sign convention: every difference is variant minus baseline, every ratio
 *    is variant over baseline (the raw change; lower_is_better is the
 *    reader's business). A relative change is (variant - baseline) /
 *    |baseline|, so its sign is the sign of the difference whatever the sign
 *    of the baseline (rt-app's slack_min is negative: -23822 -> -62614 is
 *    -162.8 %, down). A ratio (and its CI) is only given where both means are
 *    positive (and, in a bootstrap, every resampled mean stays positive): for
 *    a negative or zero mean, v / b says nothing about better or worse, so
 *    those comparisons use the CI of the difference, in units of |baseline|.
 */
#ifndef KVB_STATS_H
#define KVB_STATS_H

#include <stddef.h>
#include <stdint.h>

struct kvb_error;

/* Default level for significance and confidence intervals (95 %). */
#define KVB_STATS_ALPHA 0.05
/* Bootstrap resamples used when the caller passes 0. */
#define KVB_STATS_RESAMPLES 10000u
/* Bootstrap seed the CLI uses so that two `kvbench diff` calls print the same table. */
#define KVB_STATS_SEED 20130601ul
/*
 * Runs per boot above which the hierarchical bootstrap draws a boot's resampled
 * mean from its normal approximation instead of drawing every run (see
 * kvb_stats_hier_bootstrap). 32: the smallest size at which the CLT is the
 * usual working assumption and above every run count in the calibrations.
 */
#define KVB_STATS_BOOT_RUNS_EXACT 32
/*
 * Boots per side above which a resample's side mean is drawn at once from its
 * normal approximation (see kvb_stats_hier_bootstrap), so a resample costs
 * O(1) however many boots and runs a side has.
 */
#define KVB_STATS_BOOTS_EXACT 64
/* Largest per-sample size for which the exact Mann-Whitney distribution is used. */
#define KVB_STATS_MW_EXACT_MAX 20

/*
 * Summary of one sample (one metric group, one variant).
 *  n      number of values
 *  mean   arithmetic mean (kvb_stats_mean: exact data stays exact)
 *  stdev  sample standard deviation with the n-1 divisor (gsl_stats_sd); NAN when n < 2
 *  cov_pct coefficient of variation, stdev / |mean| * 100 (never negative); NAN when
 *         n < 2 or mean == 0
 *  min, median, max
 *  p95    95th percentile by GSL's gsl_stats_quantile_from_sorted_data: linear
 *         interpolation between the order statistics around index (n-1)*0.95
 *         (0-based), i.e. Hyndman & Fan (1996) type 7, the default of R and numpy
 *  hmean  harmonic mean n / sum(1/x), the right mean for rates (ops/s);
 *         NAN when any x <= 0
 */
struct kvb_summary {
	size_t n;
	double mean, stdev, cov_pct, min, median, max, p95, hmean;
};

/*
 * Arithmetic mean of x[0..n-1] in x's units, computed so exact data stays
 * exact: n equal values give that value, values whose sum is exactly 0 give
 * exactly 0 (issue 38: gsl_stats_mean's running mean m += (x - m) / (i + 1)
 * left 1.4e-17 for 0.1, 0.2, -0.1, -0.2, and a baseline of "0" printed a
 * change of -2e22 %; a plain left-to-right sum leaves 2.8e-17 there, and a
 * compensated (Kahan/Neumaier) sum is exact only while its one correction
 * term holds the rounding errors exactly). The sum is exact: Shewchuk's
 * non-overlapping partials (Shewchuk 1997, "Adaptive precision
 * floating-point arithmetic", Grow-Expansion with Fast-Two-Sum; the
 * algorithm of Python's math.fsum) added smallest first, then divided by n:
 * within about an ulp of the true mean, exact in the two cases above.
 * Needs x finite (callers check with kvb_stats_check_sample); NAN for n == 0.
 * Allocates n + 1 doubles, freed before it returns; no error.
 */
double kvb_stats_mean(const double *x, size_t n);

/*
 * Fills *s from x[0..n-1]. Needs n >= 1 (n == 1 gives stdev and cov_pct NAN).
 * Errors: KVB_EINPUT for n == 0, x NULL, or a non-finite value.
 */
int kvb_stats_summary(const double *x, size_t n, struct kvb_summary *s, struct kvb_error *err);

/*
 * Checks that x[0..n-1] is usable: x non-NULL when n > 0, n >= min_n, every
 * value finite. `what` names the sample in the message ("baseline").
 * Errors: KVB_EINPUT.
 */
int kvb_stats_check_sample(const char *what, const double *x, size_t n, size_t min_n, struct kvb_error *err);

/*
 * Welch's unequal-variance t-test, variant minus baseline (Welch 1947).
 *  t  = (mean_v - mean_b) / se,  se = sqrt(s_b^2/n_b + s_v^2/n_v)
 *  df = se^4 / ((s_b^2/n_b)^2/(n_b-1) + (s_v^2/n_v)^2/(n_v-1))  (Welch-Satterthwaite)
 *  p  = 2 * gsl_cdf_tdist_Q(|t|, df)                              (two-sided)
 *  ci = (mean_v - mean_b) -+ gsl_cdf_tdist_Pinv(1 - alpha/2, df) * se
 * When both samples have zero variance (se == 0): df = n_b + n_v - 2, the CI
 * is the single point diff, and t = 0, p = 1 if the means are equal, else
 * t = +-INFINITY, p = 0.
 */
struct kvb_welch {
	double t, df, p;
	double diff;         /* mean_v - mean_b, in the metric's units */
	double ci_lo, ci_hi; /* (1 - alpha) confidence interval of diff */
};

/* Needs n_b, n_v >= 2 and 0 < alpha < 1. Errors: KVB_EINPUT. */
int kvb_stats_welch(const double *b, size_t nb, const double *v, size_t nv, double alpha, struct kvb_welch *w,
		    struct kvb_error *err);

/*
 * Mann-Whitney U test (Mann & Whitney 1947), two-sided.
 *  u      the U statistic OF THE VARIANT: the number of (baseline, variant)
 *         pairs in which the variant value is larger, ties counting 1/2.
 *         u = R_v - n_v(n_v+1)/2 with R_v the variant's rank sum (midranks for
 *         ties). U of the baseline is n_b*n_v - u. u > n_b*n_v/2 means the
 *         variant tends to be larger. (Same U as scipy's mannwhitneyu(variant,
 *         baseline).)
 *  exact  1 when both n <= KVB_STATS_MW_EXACT_MAX and there are no ties: p is
 *         2 * min(P(U <= u), P(U >= u)) under the exact null distribution,
 *         counted with the recurrence N(i,j,u) = N(i-1,j,u-j) + N(i,j-1,u)
 *         (the largest of i+j values is either a variant value, beating all j
 *         baseline values, or a baseline value). Capped at 1.
 *         0 otherwise: normal approximation with mean n_b*n_v/2, tie-corrected
 *         variance n_b*n_v/12 * ((N+1) - sum(t^3 - t) / (N(N-1))) over tie
 *         groups of size t, N = n_b + n_v, continuity correction 0.5:
 *         z = (|u - mean| - 0.5) / sd, p = min(1, 2 * gsl_cdf_ugaussian_Q(z)).
 *         If every value is tied (sd == 0), p = 1.
 */
struct kvb_mannwhitney {
	double u, p;
	int exact;
};

/* Needs n_b, n_v >= 1. Errors: KVB_EINPUT. */
int kvb_stats_mannwhitney(const double *b, size_t nb, const double *v, size_t nv, struct kvb_mannwhitney *m,
			  struct kvb_error *err);

/*
 * Naive comparison of two samples of independent runs (every run its own
 * unit; use the hierarchical bootstrap when runs come from several boots).
 *  diff      mean_v - mean_b (its sign says up or down)
 *  diff_pct  (mean_v - mean_b) / |mean_b| * 100 on the unrounded means; NAN if mean_b == 0
 *  ratio_ok  1 when both means are > 0: only then are the ratio and its CI given
 *  ratio     mean_v / mean_b; NAN unless ratio_ok
 *  ratio_ci_lo, ratio_ci_hi  (1 - alpha) CI of the ratio of means by Fieller's
 *            theorem (Fieller 1954) with the Welch variances and df: the set
 *            of r with (mean_v - r mean_b)^2 <= t^2 (s_v^2/n_v + r^2 s_b^2/n_b),
 *            t = gsl_cdf_tdist_Pinv(1 - alpha/2, welch_df). Both NAN when that
 *            set is unbounded (g = t^2 s_b^2/(n_b mean_b^2) >= 1, i.e. the
 *            baseline mean is not clearly away from zero), or unless ratio_ok.
 *  rel_ci_lo, rel_ci_hi  (1 - alpha) CI of the relative change (fraction,
 *            0.01 = +1 %): ratio_ci - 1 when ratio_ok (NAN when unbounded),
 *            else the Welch CI of the difference over |mean_b| (NAN if mean_b == 0)
 *  welch_*, ci_lo, ci_hi  as struct kvb_welch (CI of mean_v - mean_b)
 *  mw_u, mw_p, mw_exact   as struct kvb_mannwhitney (U of the variant)
 *  significant  1 when welch_p < alpha AND mw_p < alpha (both tests agree,
 *            docs/design.md#statistics), whatever the signs of the means. Note the exact
 *            Mann-Whitney p can never go below 2/C(n_b+n_v, n_b): with 3 runs
 *            each the minimum is 0.1, so tiny samples are never significant at 0.05.
 */
struct kvb_compare {
	size_t nb, nv;
	double mean_b, mean_v;
	double diff, diff_pct;
	int ratio_ok;
	double ratio, ratio_ci_lo, ratio_ci_hi;
	double rel_ci_lo, rel_ci_hi;
	double welch_t, welch_df, welch_p;
	double ci_lo, ci_hi;
	double mw_u, mw_p;
	int mw_exact;
	int significant;
};

/* Needs n_b, n_v >= 2 and 0 < alpha < 1. Errors: KVB_EINPUT. */
int kvb_stats_compare(const double *b, size_t nb, const double *v, size_t nv, double alpha, struct kvb_compare *c,
		      struct kvb_error *err);

/*
 * Hierarchical bootstrap of the change of the mean, variant against baseline
 * (the ratio of means where both are positive, else the difference), with boots
 * as the top level (Kalibera & Jones 2013, "Rigorous benchmarking in
 * reasonable time", two-level resampling). One resample, for each side
 * independently: draw as many boots as the side has, with replacement; for
 * each drawn boot draw as many runs as that boot has, with replacement, from
 * its runs; the side's statistic is the mean of all drawn runs. (A boot with
 * more than KVB_STATS_BOOT_RUNS_EXACT runs has its drawn-runs mean taken from
 * the normal distribution with the same mean and variance, plug-in variance
 * over run count, so a resample costs O(boots) whatever the runs per boot. A
 * side with more than KVB_STATS_BOOTS_EXACT boots has its whole resampled mean
 * drawn from the normal distribution with the two-level bootstrap's mean and
 * variance, by the delta method for the run-weighted mean of B boots drawn
 * with replacement: mean m (the run-weighted mean), variance
 * sum_j L_j^2 ((m_j - m)^2 + pvar_j / L_j) / N^2 over boots j with L_j runs,
 * mean m_j and plug-in variance pvar_j, N runs in all.) The resample's
 * statistics are mean_v* - mean_b* and, when both are positive, mean_v* /
 * mean_b*. The CIs are percentile intervals: the alpha/2 and 1-alpha/2
 * quantiles (gsl_stats_quantile_from_sorted_data) of the sorted resamples.
 *
 * Input: b[i] is a run value and b_boot[i] the boot (round) it ran in; boot
 * ids are arbitrary ints, runs of one boot need not be adjacent. Same for v.
 * A side with a single boot degrades to a run-level bootstrap (boots_b/_v
 * tell the caller; docs/design.md#statistics labels such verdicts `1 boot`).
 *
 * Random numbers: gsl_rng_mt19937 seeded with `seed`, so the same input and
 * seed give bit-identical results. resamples == 0 means KVB_STATS_RESAMPLES.
 *
 * Output:
 *  diff          mean(v) - mean(b) over all runs (its sign: up or down)
 *  diff_ci_lo, diff_ci_hi  percentile (1 - alpha) CI of the difference
 *  ratio_ok      1 when both means and every resampled mean are > 0
 *  ratio         mean(v) / mean(b) over all runs (the point estimate); NAN unless ratio_ok
 *  ci_lo, ci_hi  percentile (1 - alpha) CI of the ratio; NAN unless ratio_ok
 *  rel_ci_lo, rel_ci_hi  CI of the relative change (fraction): ci - 1 when
 *                ratio_ok, else the difference's CI over |mean(b)| (NAN if mean(b) == 0)
 *  significant   1 when the CI excludes no change: the ratio's excludes 1
 *                when ratio_ok, else the difference's excludes 0
 *  within_sd_*   pooled within-boot sd, sqrt(sum (n_k-1) s_k^2 / sum (n_k-1));
 *                NAN when no boot has 2 runs
 *  between_sd_*  sd (n-1) of the boot means; NAN with fewer than 2 boots
 *  boots_*       number of distinct boots
 *  boot_welch_t, boot_welch_df, boot_welch_p  Welch's t-test (as
 *                kvb_stats_welch) on the per-boot means, each boot one value
 *                whatever its run count; NAN when either side has < 2 boots
 *  boot_ratio_ci_lo, boot_ratio_ci_hi  Fieller's (1 - alpha) CI of the ratio
 *                on the per-boot means with Welch's df (as kvb_stats_compare
 *                on the boot means): the calibrated CI with few boots; NAN
 *                when unbounded, not ratio_ok or either side has < 2 boots
 *  boot_rel_ci_lo, boot_rel_ci_hi  the relative change's CI on the per-boot
 *                means (kvb_stats_compare's rel_ci); NAN with < 2 boots a side
 *  boot_diff_ci_lo, boot_diff_ci_hi  Welch's (1 - alpha) CI of the difference
 *                of the per-boot means, metric units (exactly [0, 0] when every
 *                boot value of both sides is one and the same); NAN with < 2
 *                boots a side
 *
 * Calibration, measured (A/A, 8 runs per boot, between-boot sd 2 %, within
 * 0.3 %, 400 trials, alpha 0.05; share of trials `significant`):
 *     boots per side      2     3     4     5     6     8
 *     runs as units     56 %  53 %  48 %  48 %  47 %  48 %   (kvb_stats_compare)
 *     this CI excludes 1 31 % 20 %  16 %  14 %  13 %  10 %
 *     boot_welch_p<a    2.5 % 3.7 % 5.2 % 4.5 % 6.2 % 4.5 %
 * and with a real +5 % change, detection: CI 86/91/96/98/99/99 %, boot Welch
 * 17/54/80/91/97/99 %. The percentile CI is too narrow with few boots: it
 * cannot know it is estimating a spread from 3 values (a t quantile with 2 df
 * is 4.3, not 1.96) and the bootstrap variance is (B-1)/B of the plug-in one.
 * `significant` is the CI rule as specified; callers wanting a calibrated
 * verdict should also require boot_welch_p < alpha.
 *
 * Needs n_b, n_v >= 1 and 0 < alpha < 1; any signs (a zero or negative mean
 * is compared by the difference). Errors: KVB_EINPUT.
 */
struct kvb_boot_cmp {
	double diff, diff_ci_lo, diff_ci_hi;
	int ratio_ok;
	double ratio, ci_lo, ci_hi;
	double rel_ci_lo, rel_ci_hi;
	int significant;
	double within_sd_b, between_sd_b, within_sd_v, between_sd_v;
	size_t boots_b, boots_v;
	double boot_welch_t, boot_welch_df, boot_welch_p;
	double boot_ratio_ci_lo, boot_ratio_ci_hi;
	double boot_rel_ci_lo, boot_rel_ci_hi;
	double boot_diff_ci_lo, boot_diff_ci_hi;
	unsigned resamples; /* resamples actually drawn */
	/*
	 * 1 when the change, its CIs and the boot_* fields are of each boot's
	 * robust level (kvb_stats_boot_robust), 0 when of the means of the runs
	 * (kvb_stats_hier_bootstrap*, whose other fields are as documented there)
	 */
	int robust;
	double level_b, level_v; /* robust: mean of the per-boot levels of each side (metric units); else NAN */
};

int kvb_stats_hier_bootstrap(const double *b, const int *b_boot, size_t nb, const double *v, const int *v_boot,
			     size_t nv, unsigned resamples, unsigned long seed, double alpha, struct kvb_boot_cmp *r,
			     struct kvb_error *err);

/*
 * A boot's robust level: the per-boot value the mean's test compares when
 * boots are the unit (kvb_stats_boot_robust). From the boot's n run values
 * sorted ascending (metric units; not modified): for n >= 5 the 20 %
 * trimmed mean (gsl_stats_trmean_from_sorted_data, trim 0.2: floor(0.2 n)
 * runs dropped at each end, one of 5), for n = 3 and 4 the median
 * (gsl_stats_median_from_sorted_data: also one run dropped at each end,
 * where 20 % of n trims nothing), for n = 1 and 2 the mean (nothing can be
 * dropped). Why 20 %: Wilcox (2012), "Introduction to Robust Estimation and
 * Hypothesis Testing", 3rd ed., ch. 3 and 4: breakdown point 0.2, and an
 * efficiency close to the mean's under normality (so little power lost on
 * clean data) while one wild run in five (a boot's cold first job, 2-6x
 * slower) moves it by nothing at all. Needs n >= 1, finite values.
 */
#define KVB_STATS_BOOT_TRIM 0.2
double kvb_stats_boot_level(const double *sorted, size_t n);

/*
 * The mean's test with boots as the unit, robust to a wild run in a boot:
 * each boot reduced to its robust level (kvb_stats_boot_level), then only
 * the boots resampled, never the runs inside them: the top level of the
 * hierarchy (Davison & Hinkley 1997, "Bootstrap Methods and their
 * Application", §3.8, two-stage sampling, their strategy 1: resampling the
 * top-level units with their data intact reproduces the variance of the
 * estimate, since a boot's value already carries its within-boot noise,
 * while also redrawing runs adds that noise a second time; Ren, Lai et al.
 * 2010, "Nonparametric bootstrapping for hierarchical data", J. Appl. Stat.
 * 37(9): resample the highest level only, with replacement). The two-level
 * scheme of kvb_stats_hier_bootstrap redraws a boot's one wild run 0 to n
 * times per resample, which is what kept power at 0-2 % on data with a cold
 * first run (issue 38).
 *
 * One resample, for each side independently: as many boots as it has,
 * drawn with replacement within their board (stats/board.h); the side's
 * statistic is the plain mean of the drawn boots' levels (each boot one
 * unit, whatever its run count). Sides with more than KVB_STATS_BOOTS_EXACT
 * boots draw that mean from its normal approximation (mean of the levels,
 * variance plug-in variance / boots). Percentile CIs as
 * kvb_stats_hier_bootstrap, gsl_rng_mt19937 seeded with `seed`,
 * resamples == 0: KVB_STATS_RESAMPLES.
 *
 * Output (struct kvb_boot_cmp; robust 1):
 *  level_b, level_v  mean of each side's boot levels (metric units)
 *  diff          level_v - level_b: its sign is the direction
 *  diff_ci_*, ratio_ok, ratio (level_v / level_b), ci_*, rel_ci_*,
 *  significant   as kvb_stats_hier_bootstrap, of the levels
 *  boot_welch_*, boot_ratio_ci_*, boot_rel_ci_*  Welch's test, Fieller's CI
 *                and the relative change's CI on the boot levels, one value
 *                per boot (Welch 1947; a trimmed mean is close to normal,
 *                Wilcox 2012 ch. 4); NAN with < 2 boots a side
 *  within_sd_*   pooled within-boot sd of the runs (as kvb_stats_hier_bootstrap)
 *  between_sd_*  sd (n-1) of the boot levels; NAN with < 2 boots
 * The caller's verdict (results/cell_stats.c): significant AND boot_welch_p
 * < alpha, as for kvb_stats_hier_bootstrap. Calibration (bench/verdict_sim
 * --robust, 3 boots a side, 5 runs a boot, boot sd 3 %): see README
 * "Statistics".
 *
 * Input as kvb_stats_hier_bootstrap_boards (b_board, v_board may be NULL).
 * Needs >= 2 boots a side, 0 < alpha < 1. Errors: KVB_EINPUT.
 */
int kvb_stats_boot_robust(const double *b, const int *b_boot, const int *b_board, size_t nb, const double *v,
			  const int *v_boot, const int *v_board, size_t nv, unsigned resamples, unsigned long seed,
			  double alpha, struct kvb_boot_cmp *r, struct kvb_error *err);

/*
 * Dense ids: out[i] = the rank (0-based, in order of first appearance) of
 * ids[i] among the distinct values of ids[0..n-1]; returns how many there are.
 * O(n log n) (sorting), whatever the number of distinct values.
 */
size_t kvb_stats_dense_ids(const int64_t *ids, size_t n, int *out);

/*
* The same with boards above boots (docs/design.md#pools-and-lava, stats/board.h): b_board[i]
 * is the board run i ran on (any ints; NULL: one board). Boots are resampled
 * within their board (stratified), runs within their boot. With one board
 * (NULL, or every value equal) the result is bit-identical to
 * kvb_stats_hier_bootstrap. A boot id seen on two boards counts as two boots.
 */
int kvb_stats_hier_bootstrap_boards(const double *b, const int *b_boot, const int *b_board, size_t nb, const double *v,
				    const int *v_boot, const int *v_board, size_t nv, unsigned resamples,
				    unsigned long seed, double alpha, struct kvb_boot_cmp *r, struct kvb_error *err);

/*
 * The test of a quantile statistic (--stat median, p95): the same two-level
 * bootstrap as kvb_stats_hier_bootstrap_boards (boots within their board, then
 * runs within each drawn boot, gsl_rng_mt19937 seeded with `seed`), but every
 * run is drawn (no normal shortcut: a quantile is not a sum) and the
 * resample's statistic is the q-quantile of all its drawn runs (Hyndman & Fan
 * type 7, as struct kvb_summary's p95; two gsl_stats_select calls). Its
 * change is judged as the mean's is: the difference stat_v* - stat_b*, and
 * the ratio where both statistics and every resampled one are positive.
 *
 * Resamples: `resamples` (0: KVB_STATS_RESAMPLES), lowered to keep
 * resamples x runs (both sides) within KVB_STATS_QUANTILE_DRAWS, never below
 * 1000 (the count drawn is in out->resamples).
 *
 * Output (struct kvb_boot_cmp, so the verdict code reads both alike):
 *  diff, diff_ci_*, ratio_ok, ratio, ci_*, rel_ci_*, significant  as
 *                kvb_stats_hier_bootstrap_boards, of the q-quantile
 *  boots_b, boots_v, resamples
 *  boot_welch_t/df/p  Welch's t-test on the per-boot q-quantiles (each boot
 *                one value); NAN when either side has < 2 boots
 *  boot_rel_ci_lo/hi  the relative change's CI from those per-boot values
 *                (kvb_stats_compare's rel_ci); NAN with < 2 boots a side
 *  boot_ratio_ci_*    Fieller's CI on them (NAN unless ratio_ok)
 *  within_sd_*, between_sd_*  NAN (not computed for a quantile)
 * *p_boot gets the bootstrap's two-sided p: 2 (min(#(d* <= 0), #(d* >= 0)) + 1) / (R + 1)
 * over the resampled differences d* (capped at 1; never below 2 / (R + 1): the observed
 * statistic counts as a resample, Davison & Hinkley 1997, eq. 4.11); the percentile CI of the
 * difference excludes 0 exactly when it is below alpha (Efron & Tibshirani
 * 1993, ch. 16, the achieved significance level of the percentile method).
 *
 * Needs n_b, n_v >= 1, 0 < q < 1, 0 < alpha < 1. Errors: KVB_EINPUT.
 */
#define KVB_STATS_QUANTILE_DRAWS 40000000u
int kvb_stats_hier_bootstrap_quantile(const double *b, const int *b_boot, const int *b_board, size_t nb,
				      const double *v, const int *v_boot, const int *v_board, size_t nv, double q,
				      unsigned resamples, unsigned long seed, double alpha, struct kvb_boot_cmp *r,
				      double *p_boot, struct kvb_error *err);

/*
 * Paired comparison of duet runs (execution_order: duet; Bulej et al., "Duet
 * Benchmarking: Improving Measurement Accuracy in the Cloud", ICPE 2020): A
 * and B ran at the same time, one per board, so what the host did to one it
 * did to the other and their per-round difference cancels it. Input: for each
 * of n pairs (a round both sides finished) the baseline's mean b[i] and the
 * variant's mean v[i] (metric units). Output: the mean difference d = mean(v -
 * b), its Student t CI (n - 1 degrees of freedom, GSL's t quantile) and the
 * paired t test's two-sided p; the relative change and its CI are d and the
 * CI over |mean(b)| (fractions), so the sign is the difference's whatever the
 * sign of the baseline. Needs n >= 2, finite values, 0 < alpha < 1, and a
 * baseline mean that is not 0 for the relative fields (NAN otherwise).
 * Errors: KVB_EINPUT. A zero spread (every pair differs by the same amount)
 * gives a zero-width CI and p 0 (or 1 when d is 0): deterministic boards do.
 */
struct kvb_paired {
	size_t n;               /* pairs */
	double mean_b, mean_v;  /* over the pairs, metric units */
	double diff, sd;        /* mean and sample sd of v[i] - b[i] */
	double ci_lo, ci_hi;    /* (1 - alpha) CI of diff */
	double rel, rel_ci_lo, rel_ci_hi; /* diff and its CI over |mean_b|: fractions */
	double t, p;            /* paired t statistic, two-sided p */
	int significant;        /* p < alpha */
};

int kvb_stats_paired(const double *b, const double *v, size_t n, double alpha, struct kvb_paired *out,
		     struct kvb_error *err);

#endif
