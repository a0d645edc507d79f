/*
 * The three-way verdict of docs/design.md#verdicts-and-deciding and what it rests on: effect size
 * (Cliff's delta), sample shape (mode count), repeated looks (alpha spending)
 * and planning (variance components, Kalibera & Jones runs per boot, boots for
 * a given power).
 *
 * Conventions as stats.h: variant over baseline, plain arrays never kept, no
 * allocation the caller owns, distributions from GSL. Margins and changes are
 * fractions here (0.01 = 1 %); the CLI takes percent.
 */
#ifndef KVB_VERDICT_H
#define KVB_VERDICT_H

#include "core/error.h"

#include <stddef.h>

struct kvb_error;

/* Default margin of "same": the relative change's CI inside +-1 %. */
#define KVB_VERDICT_MARGIN 0.01

/*
 * Cliff's delta (Cliff 1993), variant against baseline: P(v > b) - P(v < b)
 * over all (b, v) pairs, in [-1, 1], positive when the variant tends to be
 * larger. From the variant's Mann-Whitney U (ties counting 1/2, as
 * struct kvb_mannwhitney): delta = 2 u / (n_b n_v) - 1.
 */
double kvb_stats_cliffs_delta(double u, size_t nb, size_t nv);

/*
 * Magnitude of |delta|: "negligible" < 0.15 <= "small" < 0.33 <= "medium"
 * < 0.47 <= "large" (Romano et al. 2006 thresholds as Mozilla treeherder's
 * perf/stats.py rounds them). "-" for NAN. Static string.
 */
const char *kvb_stats_cliffs_label(double delta);

/*
 * Number of modes of x[0..n-1], counted the way Mozilla treeherder's
 * perf/stats.py count_modes does (facts read there, code ours): a Gaussian
 * kernel density estimate with Silverman's bandwidth 0.9 min(sd, IQR/1.34)
 * n^-1/5, evaluated on a 1024-point grid by linear binning and a truncated
 * kernel; smoothed again with a Gaussian of sigma 2 grid points; peaks kept
 * when their prominence (scipy.signal's definition) reaches the 90th
 * percentile of |dy/dx| clipped to [2 %, 20 %] of the highest density, and
 * when at least 5 % of the grid's range from a higher kept peak. The data
 * are standardised first so the count does not depend on the metric's units.
 * Fewer than 10 values, or all equal: 1 (nothing to tell).
 * Errors: KVB_EINPUT for NULL or non-finite values.
 */
int kvb_stats_count_modes(const double *x, size_t n, size_t *modes, struct kvb_error *err);

enum kvb_verdict_kind {
	KVB_VERDICT_NONE,      /* no comparison (the baseline, or too few values) */
	KVB_VERDICT_BETTER,    /* a real change, in the good direction for the metric */
	KVB_VERDICT_WORSE,     /* a real change, in the bad direction */
	KVB_VERDICT_SAME,      /* the CI of the relative change lies inside +-margin */
	KVB_VERDICT_UNDECIDED, /* neither: more boots needed */
	KVB_VERDICT_CHANGED,   /* a real change of a metric with no direction (KVB_NO_DIRECTION: utilisation,
				  frequency): it moved, which is neither better nor worse */
};

/*
 * What the verdict is judged from. The change is relative, (variant -
 * baseline) / |baseline| as a fraction, so "better" and "worse" come from the
 * sign of the difference and lower_is_better, never from a ratio (a ratio of
 * two negative means is above 1 when the variant went down).
 *  significant   the change test's answer (the caller's rule: bootstrap CI and
 *                Welch on boot means, or the naive pair with one boot)
 *  diff          variant - baseline of the compared statistic: its sign is the
 *                direction (0 or NAN with `significant` set: no direction, undecided)
 *  change        the relative change (fraction; NAN when the baseline is 0)
 *  ci_lo, ci_hi  the (1 - alpha) CI of the relative change "same" must fit in
 *                (NAN: unbounded or none)
 *  boots         boots per variant behind it (the smaller side); 1 means runs
 *                were the unit and no boots estimate can be made
 *  margin        fraction, > 0
 *  lower_is_better  of the metric: 1, 0, or < 0 (no direction: a real change is "changed")
 *  diff_ci_zero  1 when the CI of the difference (metric units) is exactly
 *                [0, 0]: both sides hold one and the same value (0 vs 0 of
 *                dmesg_warnings). That is "same" whatever the margin, the
 *                relative CI (NAN when the baseline is 0) notwithstanding;
 *                0 (the default of an initializer) judges on ci_lo..ci_hi only
 *  no_ci         why ci_lo/ci_hi are NAN when they are (a static string, e.g.
 *                KVB_WHY_ZERO_BASE), copied to kvb_verdict.why; NULL: "no CI"
 */
struct kvb_verdict_in {
	int significant;
	double diff, change, ci_lo, ci_hi;
	size_t boots;
	double margin;
	int lower_is_better;
	int diff_ci_zero;
	const char *no_ci;
};

/* Reasons an undecided verdict has no CI of the relative change (kvb_verdict_in.no_ci). */
#define KVB_WHY_ZERO_BASE "baseline is 0: no % CI"
/* (Fieller's ratio CI is unbounded when the baseline's mean is within its CI of 0) */
#define KVB_WHY_UNBOUNDED "the baseline varies so much between boots that its CI reaches 0: the % change could be any size; more boots narrow it"
/* the same with one boot a side, where the runs are the unit (a board that never reboots: `local`) */
#define KVB_WHY_UNBOUNDED_RUNS "the baseline varies so much between runs that its CI reaches 0: the % change could be any size; more runs (iterations) narrow it"
#define KVB_WHY_NO_CI "no CI"

/*
 * kind, its name ("better", "worse", "changed", "same", "undecided", ""), and for
 * undecided the estimated boots per variant at which it would be decided:
 * the CI half-width h shrinks as 1/sqrt(boots), so with d = |change| a
 * change shows at boots (h/d)^2 and "same" at boots (h/(margin - d))^2; the
 * smaller of the two that exist, rounded up, at least boots + 1. NAN when no
 * estimate can be made (one boot, unbounded CI). why: for an undecided
 * verdict without a finite CI, the reason there is none (in->no_ci, else
 * KVB_WHY_NO_CI; static); NULL otherwise. "same" also when in->diff_ci_zero
 * and not significant (an exact zero difference is inside any margin).
 */
struct kvb_verdict {
	enum kvb_verdict_kind kind;
	const char *name;
	double boots_needed;
	const char *why;
};

void kvb_verdict_judge(const struct kvb_verdict_in *in, struct kvb_verdict *out);

/*
 * Alpha spending for repeated looks (Lan & DeMets 1983), O'Brien-Fleming
 * type spending function: alpha(t) = 2 - 2 Phi(z_{1-alpha/2} / sqrt(t)) for
 * information fraction t in (0, 1] (alpha(1) = alpha). Returns the cumulative
 * alpha spent by t.
 */
double kvb_alpha_spent_obf(double alpha, double t);

/*
 * The nominal level of look k of at most K (1-based): the increment
 * alpha(k/K) - alpha((k-1)/K). Testing each look at its increment keeps the
 * family-wise false-positive rate <= alpha by Bonferroni's inequality
 * whatever the correlation between looks; it is conservative against the
 * exact Lan-DeMets boundaries (which need the looks' joint distribution,
 * Armitage, McPherson & Rowe 1969). Needs 1 <= k <= K.
 */
double kvb_alpha_look(double alpha, unsigned k, unsigned K);

/*
 * Exact nominal two-sided levels of K equally spaced looks for the
 * O'Brien-Fleming-type spending function above: nominal[k-1] = 2 Q(c_k /
 * sqrt(k)) where |S_k| >= c_k stops at look k and the boundaries c_k make
 * P(first crossing at look k | no change) = alpha(k/K) - alpha((k-1)/K) for
 * the partial sums S_k of independent N(0, 1) steps, by recursive numerical
 * integration (Armitage, McPherson & Rowe 1969; 401-point trapezoid grid).
 * Unlike kvb_alpha_look's increments these use the looks' correlation: for
 * K = 10, alpha 0.05 the last look is tested at ~0.04, not ~0.011. Returns
 * KVB_OK, or KVB_EINPUT for K == 0, alpha outside (0, 1) or no memory.
 */
enum kvb_err kvb_seq_bounds(double alpha, unsigned K, double *nominal);

/*
 * One look of a sequential comparison (`run --until-decided`) on per-boot
 * means mb[0..kb-1] (baseline) and mv[0..kv-1] (variant), tested at the
 * look's nominal level (kvb_alpha_look): a change when Welch's p on the boot
 * means is below it (its direction from the sign of the difference); "same"
 * when the (1 - nominal) CI of the relative change (kvb_stats_compare's
 * rel_ci: Fieller's ratio CI - 1 for positive means, else Welch's CI of the
 * difference over |baseline|) lies within +-margin, or when Welch's CI of the
 * difference is exactly [0, 0] (every boot mean one and the same value, 0 on
 * both sides included); else undecided (out->boots_needed and out->why as
 * kvb_verdict_judge). Needs kb, kv >= 2. Errors: KVB_EINPUT.
 */
int kvb_seq_judge(const double *mb, size_t kb, const double *mv, size_t kv, double nominal, double margin,
		  int lower_is_better, struct kvb_verdict *out, struct kvb_error *err);

/*
 * Two-level plan for one metric and variant (Kalibera & Jones 2013, ISMM,
 * "Rigorous benchmarking in reasonable time", two levels: boots and runs).
 * Input: the runs grouped by boot (x[i] with boot id boot[i]), the cost of a
 * boot (s: flash + reboot + wait, per boot) and of a run (s: one job).
 *  s_run2    S1^2: pooled within-boot variance (n - 1 divisors)
 *  s_boot2   S2^2: variance of the boot means
 *  t_boot2   T2^2 = S2^2 - S1^2 / n_bar: the boot-to-boot variance component
 *            (clipped at 0; n_bar the mean runs per boot)
 *  runs_per_boot  K&J's optimum ceil(sqrt((boot_cost / run_cost) *
 *            S1^2 / T2^2)) (>= 1; NAN when T2^2 == 0: boots do not vary, so
 *            one boot with many runs is best)
 *  boots_for(detect)  see kvb_twolevel_boots
 */
struct kvb_twolevel {
	size_t n, boots;
	double mean, runs_per_boot_now;
	double s_run2, s_boot2, t_boot2;
	double boot_cost_s, run_cost_s;
	double runs_per_boot;
};

/* Needs >= 2 boots with >= 2 runs in at least one. Errors: KVB_EINPUT. */
int kvb_twolevel_components(const double *x, const int *boot, size_t n, double boot_cost_s, double run_cost_s,
			struct kvb_twolevel *p, struct kvb_error *err);

/*
 * Boots per variant needed to detect a relative change `detect` (0.05 = 5 %)
 * with power `power` at two-sided level alpha, each boot running `runs`
 * runs: the smallest k >= 2 with
 *   (t_{1-alpha/2, 2k-2} + t_{power, 2k-2})^2 * 2 (T2^2 + S1^2 / runs) / k <= (detect * mean)^2
 * (Welch on boot means, equal variances, t quantiles from GSL). Returns 0
 * when more than 10000 would be needed (or the plan has no spread: 2).
 */
unsigned kvb_twolevel_boots(const struct kvb_twolevel *p, double runs, double detect, double alpha, double power);

#endif
