/* Tests for src/stats: reference values, calibration of the verdicts, and the hierarchical bootstrap. */
#include "stats/stats.h"
#include "core/error.h"

#include "test.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Reference data sets: baseline first, variant second. */
static const double d1_b[] = { 4.453, 4.512, 4.391, 4.470, 4.433, 4.498, 4.405, 4.461 };
static const double d1_v[] = { 4.383, 4.401, 4.352, 4.399, 4.371, 4.420, 4.366, 4.390 };
static const double d2_b[] = { 59652, 59801, 59533, 59710, 59688, 59590 };
static const double d2_v[] = { 59876, 59702, 59911, 59640, 59850 };
static const double d3_b[] = { 10, 12, 12, 13, 15, 15, 15, 18 };
static const double d3_v[] = { 11, 12, 14, 15, 15, 16, 19, 19, 20 };

static void test_summary__even_n_median_p95_hmean(void)
{
	/* Unsorted on purpose: order statistics must not depend on input order. */
	const double x[] = { 7, 3, 10, 1, 9, 2, 8, 4, 6, 5 };
	struct kvb_summary s;
	CHECK(kvb_stats_summary(x, N(x), &s, NULL) == KVB_OK);
	CHECK(s.n == 10);
	CHECK_NEAR(s.mean, 5.5, 1e-12);
	CHECK_NEAR(s.stdev, sqrt(55.0 / 6.0), 1e-12);  /* n-1 divisor: 82.5/9 */
	CHECK_NEAR(s.cov_pct, sqrt(55.0 / 6.0) / 5.5 * 100, 1e-10);
	CHECK_NEAR(s.min, 1, 0);
	CHECK_NEAR(s.max, 10, 0);
	CHECK_NEAR(s.median, 5.5, 1e-12);
	/* GSL quantile: index (n-1)*0.95 = 8.55 -> 9 + 0.55 * (10 - 9). */
	CHECK_NEAR(s.p95, 9.55, 1e-12);
	/* 10 / H_10, H_10 = 7381/2520. */
	CHECK_NEAR(s.hmean, 10.0 / (7381.0 / 2520.0), 1e-12);
}

static void test_summary__odd_n_median_and_p95(void)
{
	const double x[] = { 3, 1, 2 };
	struct kvb_summary s;
	CHECK(kvb_stats_summary(x, N(x), &s, NULL) == KVB_OK);
	CHECK_NEAR(s.median, 2, 0);
	CHECK_NEAR(s.p95, 2.9, 1e-12); /* index 1.9 -> 2 + 0.9 */
	CHECK_NEAR(s.stdev, 1, 1e-12);
	CHECK_NEAR(s.hmean, 3 / (1 + 0.5 + 1.0 / 3), 1e-12);
}

static void test_summary__d1_reference_means_and_stdev(void)
{
	struct kvb_summary b, v;
	CHECK(kvb_stats_summary(d1_b, N(d1_b), &b, NULL) == KVB_OK);
	CHECK(kvb_stats_summary(d1_v, N(d1_v), &v, NULL) == KVB_OK);
	CHECK_NEAR(b.mean, 4.452875, 1e-9);
	CHECK_NEAR(v.mean, 4.385250, 1e-9);
	CHECK_NEAR(b.stdev, 0.042100, 5e-7);
	CHECK_NEAR(v.stdev, 0.021881, 5e-7);
	CHECK_NEAR(b.median, (4.453 + 4.461) / 2, 1e-12);
}

static void test_summary__hmean_nan_when_value_not_positive(void)
{
	const double zero[] = { 1, 0, 2 }, neg[] = { 1, -1, 2 };
	struct kvb_summary s;
	CHECK(kvb_stats_summary(zero, N(zero), &s, NULL) == KVB_OK);
	CHECK(isnan(s.hmean));
	CHECK_NEAR(s.mean, 1, 1e-12);
	CHECK(kvb_stats_summary(neg, N(neg), &s, NULL) == KVB_OK);
	CHECK(isnan(s.hmean));
}

static void test_summary__single_value_has_nan_stdev(void)
{
	const double x[] = { 42.5 };
	struct kvb_summary s;
	CHECK(kvb_stats_summary(x, 1, &s, NULL) == KVB_OK);
	CHECK(s.n == 1);
	CHECK_NEAR(s.mean, 42.5, 0);
	CHECK(isnan(s.stdev));
	CHECK(isnan(s.cov_pct));
	CHECK_NEAR(s.median, 42.5, 0);
	CHECK_NEAR(s.p95, 42.5, 0);
	CHECK_NEAR(s.min, 42.5, 0);
	CHECK_NEAR(s.max, 42.5, 0);
	CHECK_NEAR(s.hmean, 42.5, 1e-12);
}

static void test_summary__rejects_empty_and_non_finite_input(void)
{
	struct kvb_error e = { 0 };
	struct kvb_summary s;
	const double x[] = { 1, NAN, 3 }, y[] = { 1, INFINITY };
	CHECK(kvb_stats_summary(NULL, 0, &s, &e) == KVB_EINPUT);
	CHECK(e.code == KVB_EINPUT);
	CHECK_CONTAINS(e.msg, "0 values");
	CHECK(kvb_stats_summary(x, 0, &s, &e) == KVB_EINPUT);
	CHECK(kvb_stats_summary(x, N(x), &s, &e) == KVB_EINPUT);
	CHECK_CONTAINS(e.msg, "index 1");
	CHECK(kvb_stats_summary(y, N(y), &s, &e) == KVB_EINPUT);
	CHECK_CONTAINS(e.msg, "index 1");
}

static void test_compare__d1_reference_values_significant(void)
{
	struct kvb_compare c;
	CHECK(kvb_stats_compare(d1_b, N(d1_b), d1_v, N(d1_v), 0.05, &c, NULL) == KVB_OK);
	CHECK(c.nb == 8 && c.nv == 8);
	CHECK_NEAR(c.mean_b, 4.452875, 1e-9);
	CHECK_NEAR(c.mean_v, 4.385250, 1e-9);
	CHECK_NEAR(c.diff_pct, -1.5187, 5e-5);
	CHECK_NEAR(c.welch_t, -4.0313, 5e-5);
	CHECK_NEAR(c.welch_df, 10.525, 5e-4);
	CHECK_NEAR(c.welch_p, 0.0021602, 5e-8);
	CHECK_NEAR(c.ci_lo, -0.104751, 5e-7);
	CHECK_NEAR(c.ci_hi, -0.030499, 5e-7);
	/* U of the variant: pairs where the variant is larger (baseline's U is 60). */
	CHECK_NEAR(c.mw_u, 4, 0);
	CHECK(c.mw_exact == 1);
	/* 12 of C(16,8) = 12870 orderings have U <= 4; two-sided: 24/12870. */
	CHECK_NEAR(c.mw_p, 24.0 / 12870.0, 1e-12);
	CHECK_NEAR(c.mw_p, 0.0018648, 5e-8);
	CHECK(c.significant == 1);
}

static void test_compare__d2_reference_values_not_significant(void)
{
	struct kvb_compare c;
	CHECK(kvb_stats_compare(d2_b, N(d2_b), d2_v, N(d2_v), 0.05, &c, NULL) == KVB_OK);
	CHECK_NEAR(c.diff_pct, 0.2237, 5e-5);
	CHECK_NEAR(c.welch_p, 0.076747, 5e-7);
	CHECK(c.mw_exact == 1);
	CHECK_NEAR(c.mw_p, 0.125541, 5e-7);
	CHECK(c.significant == 0);
}

static void test_compare__d3_ties_use_normal_approximation(void)
{
	struct kvb_compare c;
	CHECK(kvb_stats_compare(d3_b, N(d3_b), d3_v, N(d3_v), 0.05, &c, NULL) == KVB_OK);
	CHECK_NEAR(c.diff_pct, 13.9394, 5e-5);
	CHECK_NEAR(c.welch_p, 0.18359, 5e-6);
	CHECK_NEAR(c.mw_u, 49, 0);
	CHECK(c.mw_exact == 0);
	CHECK_NEAR(c.mw_p, 0.221831, 5e-7);
	CHECK(c.significant == 0);
}

static void test_compare__swapping_samples_mirrors_the_result(void)
{
	struct kvb_compare a, b;
	CHECK(kvb_stats_compare(d3_b, N(d3_b), d3_v, N(d3_v), 0.05, &a, NULL) == KVB_OK);
	CHECK(kvb_stats_compare(d3_v, N(d3_v), d3_b, N(d3_b), 0.05, &b, NULL) == KVB_OK);
	CHECK_NEAR(b.welch_t, -a.welch_t, 1e-12);
	CHECK_NEAR(b.welch_p, a.welch_p, 1e-12);
	CHECK_NEAR(b.ci_lo, -a.ci_hi, 1e-12);
	CHECK_NEAR(b.mw_u, 8 * 9 - a.mw_u, 0);
	CHECK_NEAR(b.mw_p, a.mw_p, 1e-12);
}

/* Fieller's endpoints r solve (mv - r mb)^2 = q^2 (s_v^2/n_v + r^2 s_b^2/n_b). */
static void test_compare__fieller_ratio_ci_solves_its_equation(void)
{
	struct kvb_compare c;
	struct kvb_summary sb, sv;
	CHECK(kvb_stats_compare(d1_b, N(d1_b), d1_v, N(d1_v), 0.05, &c, NULL) == KVB_OK);
	kvb_stats_summary(d1_b, N(d1_b), &sb, NULL);
	kvb_stats_summary(d1_v, N(d1_v), &sv, NULL);
	double vb = sb.stdev * sb.stdev / 8, vv = sv.stdev * sv.stdev / 8;
	/* q = t(0.975, 10.525), from the Welch CI half-width; the reference CI gives 2.2132. */
	double q = (c.ci_hi - c.ci_lo) / 2 / sqrt(vb + vv);
	CHECK_NEAR(q, 0.037126 / (0.067625 / 4.0313), 1e-3);
	double ends[2] = { c.ratio_ci_lo, c.ratio_ci_hi };
	for (int i = 0; i < 2; i++) {
		double r = ends[i], lhs = pow(c.mean_v - r * c.mean_b, 2), rhs = q * q * (vv + r * r * vb);
		CHECK_NEAR(lhs, rhs, 1e-12);
	}
	CHECK_NEAR(c.ratio, 4.385250 / 4.452875, 1e-12);
	CHECK(c.ratio_ci_lo < c.ratio && c.ratio < c.ratio_ci_hi);
	CHECK(c.ratio_ci_hi < 1); /* agrees with the difference CI excluding 0 */
	/* Close to the naive interval 1 + CI(diff)/mean_b, since baseline noise is small. */
	CHECK_NEAR(c.ratio_ci_lo, 1 + c.ci_lo / c.mean_b, 2e-4);
	CHECK_NEAR(c.ratio_ci_hi, 1 + c.ci_hi / c.mean_b, 2e-4);
}

static void test_compare__rejects_too_small_samples_and_bad_alpha(void)
{
	struct kvb_error e = { 0 };
	struct kvb_compare c;
	CHECK(kvb_stats_compare(d1_b, 1, d1_v, N(d1_v), 0.05, &c, &e) == KVB_EINPUT);
	CHECK_CONTAINS(e.msg, "baseline sample has 1 value");
	CHECK(kvb_stats_compare(d1_b, N(d1_b), d1_v, 0, 0.05, &c, &e) == KVB_EINPUT);
	CHECK_CONTAINS(e.msg, "variant");
	CHECK(kvb_stats_compare(d1_b, N(d1_b), d1_v, N(d1_v), 0, &c, &e) == KVB_EINPUT);
	CHECK_CONTAINS(e.msg, "'0'");
	CHECK(kvb_stats_compare(d1_b, N(d1_b), d1_v, N(d1_v), 1.5, &c, &e) == KVB_EINPUT);
}

static void test_compare__constant_samples_do_not_divide_by_zero(void)
{
	const double a[] = { 5, 5, 5 }, b[] = { 6, 6, 6 };
	struct kvb_compare c;
	CHECK(kvb_stats_compare(a, 3, a, 3, 0.05, &c, NULL) == KVB_OK);
	CHECK_NEAR(c.welch_p, 1, 0);
	CHECK_NEAR(c.mw_p, 1, 0);
	CHECK(c.significant == 0);
	CHECK(kvb_stats_compare(a, 3, b, 3, 0.05, &c, NULL) == KVB_OK);
	CHECK_NEAR(c.welch_p, 0, 0);
	CHECK(isinf(c.welch_t) && c.welch_t > 0);
	CHECK_NEAR(c.ci_lo, 1, 0);
	CHECK_NEAR(c.ratio_ci_lo, 1.2, 1e-12);
	CHECK_NEAR(c.mw_u, 9, 0);
	/*
	 * All values tied within each sample: normal approximation (the exact
	 * table assumes no ties). Variance 9/12 * (7 - 48/30) = 4.05, z = 4/sqrt(4.05).
	 */
	CHECK(c.mw_exact == 0);
	CHECK_NEAR(c.mw_p, 0.0468541776, 1e-9);
	CHECK(c.significant == 1);
}

/*
 * Exact data stays exact (issue 38): 0.1, 0.2, -0.1, -0.2 sum to exactly 0 as
 * doubles, yet gsl_stats_mean's running mean gives 1.39e-17 and a plain sum
 * 2.78e-17 (a baseline of "0" printed -2e22 %); three 0.1 summed are
 * 0.30000000000000004, which over 3 is not 0.1.
 */
static void test_mean__exact_zero_sum_and_equal_values_stay_exact(void)
{
	const double z[] = { 0.1, 0.2, -0.1, -0.2 }, c[] = { 0.1, 0.1, 0.1 }, k[] = { 1, 2, 3, 4 };
	const double big[] = { 1e16, 1, -1e16, 3 }; /* a plain sum loses the 1: 0.75, not 1 */
	struct kvb_summary s;
	CHECK(kvb_stats_mean(z, 4) == 0);
	CHECK(kvb_stats_mean(c, 3) == 0.1);
	CHECK(kvb_stats_mean(k, 4) == 2.5);
	CHECK(kvb_stats_mean(big, 4) == 1);
	CHECK(isnan(kvb_stats_mean(z, 0)));
	CHECK(kvb_stats_summary(z, 4, &s, NULL) == KVB_OK);
	CHECK(s.mean == 0);
	CHECK(isnan(s.cov_pct)); /* no CoV of a mean of 0, not 1e18 % */
	CHECK(kvb_stats_summary(c, 3, &s, NULL) == KVB_OK);
	CHECK(s.mean == 0.1 && s.stdev == 0);
}

/* Both sides one and the same value, 0 included: Welch's CI of the difference is exactly [0, 0]. */
static void test_compare__zero_against_zero_has_an_exact_zero_difference(void)
{
	const double z[] = { 0, 0, 0 }, zs[] = { 0.1, 0.2, -0.1, -0.2 }, one[] = { 1.1, 1.2, 0.9, 0.8 };
	struct kvb_compare c;
	CHECK(kvb_stats_compare(z, 3, z, 3, 0.05, &c, NULL) == KVB_OK);
	CHECK(c.ci_lo == 0 && c.ci_hi == 0 && c.significant == 0);
	CHECK(isnan(c.diff_pct) && isnan(c.rel_ci_lo)); /* no relative change over 0 */
	CHECK(kvb_stats_compare(zs, 4, one, 4, 0.05, &c, NULL) == KVB_OK);
	CHECK(c.mean_b == 0 && isnan(c.diff_pct)); /* not -2e22 % */
}

static void test_mannwhitney__exact_only_up_to_20_without_ties(void)
{
	double b[21], v[21];
	struct kvb_mannwhitney m;
	for (int i = 0; i < 21; i++) {
		b[i] = 2 * i;
		v[i] = 2 * i + 1;
	}
	CHECK(kvb_stats_mannwhitney(b, 20, v, 20, &m, NULL) == KVB_OK);
	CHECK(m.exact == 1);
	CHECK_NEAR(m.u, 210, 0); /* v[j] beats b[0..j]: sum of 1..20 */
	CHECK(kvb_stats_mannwhitney(b, 21, v, 20, &m, NULL) == KVB_OK);
	CHECK(m.exact == 0);
	/* 20 vs 20 exact and 21 vs 20 approximate p must be close: the approximation is sane. */
	struct kvb_mannwhitney ex, ap;
	kvb_stats_mannwhitney(b, 20, v, 20, &ex, NULL);
	kvb_stats_mannwhitney(b, 21, v, 21, &ap, NULL);
	CHECK_NEAR(ap.p, ex.p, 0.05);
	CHECK(ex.p > 0.5 && ap.p > 0.5);
}

static void test_mannwhitney__exact_extremes_sum_to_one(void)
{
	const double lo[] = { 1, 2, 3, 4 }, hi[] = { 5, 6, 7, 8, 9 };
	struct kvb_mannwhitney m;
	CHECK(kvb_stats_mannwhitney(lo, 4, hi, 5, &m, NULL) == KVB_OK);
	CHECK_NEAR(m.u, 20, 0);
	CHECK_NEAR(m.p, 2.0 / 126.0, 1e-14); /* C(9,4) = 126 orderings, one as extreme each side */
	CHECK(kvb_stats_mannwhitney(hi, 5, lo, 4, &m, NULL) == KVB_OK);
	CHECK_NEAR(m.u, 0, 0);
	CHECK_NEAR(m.p, 2.0 / 126.0, 1e-14);
	/* Perfectly interleaved: U at the centre, p capped at 1. */
	const double x[] = { 1, 3, 5, 7 }, y[] = { 2, 4, 6, 8 };
	CHECK(kvb_stats_mannwhitney(x, 4, y, 4, &m, NULL) == KVB_OK);
	CHECK_NEAR(m.u, 10, 0);
	CHECK(m.p <= 1 && m.p > 0.6);
}

/* Fills x with n normal draws of mean mu and sd sigma. */
static void draw(gsl_rng *rng, double *x, size_t n, double mu, double sigma)
{
	for (size_t i = 0; i < n; i++)
		x[i] = mu + gsl_ran_gaussian(rng, sigma);
}

static void test_compare__aa_false_positive_rate_near_alpha(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double a[10], b[10];
	int sig = 0;
	gsl_rng_set(rng, 1);
	for (int i = 0; i < 1000; i++) {
		struct kvb_compare c;
		draw(rng, a, 10, 100, 3);
		draw(rng, b, 10, 100, 3);
		CHECK(kvb_stats_compare(a, 10, b, 10, 0.05, &c, NULL) == KVB_OK);
		sig += c.significant;
	}
	gsl_rng_free(rng);
	fprintf(stderr, "  A/A: %d of 1000 significant\n", sig);
	CHECK(sig >= 20 && sig <= 70);
}

/*
 * n = 12: with n = 10 the power of "Welch and Mann-Whitney agree" for a 5 %
 * shift at 3 % CoV is only ~89 % (measured, 2000 trials; Welch alone 92 %),
 * so a 90 % floor would test luck. At n = 12 it is ~94.5 %.
 */
static void test_compare__ab_five_pct_shift_detected(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double a[12], b[12];
	int sig = 0;
	gsl_rng_set(rng, 2);
	for (int i = 0; i < 1000; i++) {
		struct kvb_compare c;
		draw(rng, a, 12, 100, 3);    /* CoV 3 % */
		draw(rng, b, 12, 105, 3.15); /* +5 %, CoV 3 % */
		CHECK(kvb_stats_compare(a, 12, b, 12, 0.05, &c, NULL) == KVB_OK);
		sig += c.significant && c.diff_pct > 0;
	}
	gsl_rng_free(rng);
	fprintf(stderr, "  A/B +5%%: %d of 1000 significant\n", sig);
	CHECK(sig >= 900);
}

/*
 * Runs for `nboots` boots at the given levels, `runs` per boot, within-boot
 * noise sd `within`; boot ids start at id0.
 */
static size_t boots(gsl_rng *rng, const double *level, int nboots, int runs, double within, int id0, double *x,
		    int *id)
{
	size_t n = 0;
	for (int k = 0; k < nboots; k++)
		for (int r = 0; r < runs; r++, n++) {
			x[n] = level[k] + gsl_ran_gaussian(rng, within);
			id[n] = id0 + k;
		}
	return n;
}

/*
 * Same kernel, three boots each; boot levels differ by a few % (the QEMU pipe
 * numbers of docs/design.md#statistics: 69.8 vs 67.5 us/op) and runs within a boot barely
 * move. Runs-as-units calls that significant; boots-as-units must not.
 */
static void test_bootstrap__boot_level_noise_is_not_a_difference(void)
{
	const double lb[] = { 69.8, 68.1, 70.2 }, lv[] = { 67.5, 69.6, 68.3 };
	double b[24], v[24];
	int ib[24], iv[24];
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 7);
	size_t nb = boots(rng, lb, 3, 8, 0.15, 1, b, ib);
	size_t nv = boots(rng, lv, 3, 8, 0.15, 11, v, iv);
	gsl_rng_free(rng);

	struct kvb_compare c;
	CHECK(kvb_stats_compare(b, nb, v, nv, 0.05, &c, NULL) == KVB_OK);
	fprintf(stderr, "  naive: welch p %.4g, mw p %.4g\n", c.welch_p, c.mw_p);
	CHECK(c.significant == 1);

	struct kvb_boot_cmp r;
	CHECK(kvb_stats_hier_bootstrap(b, ib, nb, v, iv, nv, 0, 42, 0.05, &r, NULL) == KVB_OK);
	CHECK(r.resamples == KVB_STATS_RESAMPLES);
	CHECK(r.boots_b == 3 && r.boots_v == 3);
	CHECK_NEAR(r.ratio, c.mean_v / c.mean_b, 1e-12);
	CHECK(r.ci_lo < 1 && r.ci_hi > 1);
	CHECK(r.significant == 0);
	CHECK(r.ci_lo < r.ratio && r.ratio < r.ci_hi);
	/* Spread split: within ~0.15, between ~ sd of the levels (1.10 and 1.06). */
	CHECK_NEAR(r.within_sd_b, 0.15, 0.07);
	CHECK_NEAR(r.within_sd_v, 0.15, 0.07);
	/* Boot-level Welch on 3 vs 3 boot means agrees: no difference. */
	CHECK(r.boot_welch_p > 0.3);
	CHECK_NEAR(r.between_sd_b, 1.10, 0.15);
	CHECK_NEAR(r.between_sd_v, 1.06, 0.15);
}

static void test_bootstrap__twofold_change_is_significant(void)
{
	const double lb[] = { 69.8, 68.1, 70.2 }, lv[] = { 139.6, 136.2, 140.4 };
	double b[24], v[24];
	int ib[24], iv[24];
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 8);
	size_t nb = boots(rng, lb, 3, 8, 0.3, 0, b, ib);
	size_t nv = boots(rng, lv, 3, 8, 0.6, 0, v, iv);
	gsl_rng_free(rng);

	struct kvb_boot_cmp r;
	CHECK(kvb_stats_hier_bootstrap(b, ib, nb, v, iv, nv, 0, 42, 0.05, &r, NULL) == KVB_OK);
	CHECK(r.significant == 1);
	CHECK(r.ci_lo > 1.9 && r.ci_hi < 2.1);
	CHECK(r.boot_welch_p < 0.001);
	CHECK_NEAR(r.ratio, 2, 0.02);
}

static void test_bootstrap__same_seed_same_result_and_boot_order_irrelevant(void)
{
	const double lb[] = { 10, 10.4, 9.8, 10.1 }, lv[] = { 10.5, 10.2, 10.9 };
	double b[20], v[15], b2[20], v2[15];
	int ib[20], iv[15], ib2[20], iv2[15];
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 9);
	size_t nb = boots(rng, lb, 4, 5, 0.2, 100, b, ib);
	size_t nv = boots(rng, lv, 3, 5, 0.2, -3, v, iv);
	gsl_rng_free(rng);

	struct kvb_boot_cmp r1, r2, r3, r4;
	memset(&r1, 0, sizeof(r1));
	memset(&r2, 0, sizeof(r2));
	CHECK(kvb_stats_hier_bootstrap(b, ib, nb, v, iv, nv, 2000, 1234, 0.05, &r1, NULL) == KVB_OK);
	CHECK(kvb_stats_hier_bootstrap(b, ib, nb, v, iv, nv, 2000, 1234, 0.05, &r2, NULL) == KVB_OK);
	CHECK(memcmp(&r1, &r2, sizeof(r1)) == 0);
	CHECK(r1.boots_b == 4 && r1.boots_v == 3 && r1.resamples == 2000);
	CHECK(kvb_stats_hier_bootstrap(b, ib, nb, v, iv, nv, 2000, 1235, 0.05, &r3, NULL) == KVB_OK);
	CHECK(r3.ci_lo != r1.ci_lo || r3.ci_hi != r1.ci_hi);
	CHECK_NEAR(r3.ci_lo, r1.ci_lo, 0.01); /* a different seed moves the CI only a little */

	/*
	 * Interleave the boots (round-robin order, as `--rounds` stores them) but
	 * keep run order within each boot: bit-identical result.
	 */
	size_t n = 0;
	for (int r = 0; r < 5; r++)
		for (int k = 0; k < 4; k++, n++) {
			b2[n] = b[k * 5 + r];
			ib2[n] = ib[k * 5 + r];
		}
	n = 0;
	for (int r = 0; r < 5; r++)
		for (int k = 0; k < 3; k++, n++) {
			v2[n] = v[k * 5 + r];
			iv2[n] = iv[k * 5 + r];
		}
	memset(&r4, 0, sizeof(r4));
	CHECK(kvb_stats_hier_bootstrap(b2, ib2, nb, v2, iv2, nv, 2000, 1234, 0.05, &r4, NULL) == KVB_OK);
	CHECK(memcmp(&r1, &r4, sizeof(r1)) == 0);
}

static void test_bootstrap__single_boot_reports_one_boot(void)
{
	const double b[] = { 10, 10.1, 9.9, 10.05 }, v[] = { 11, 11.1, 10.9, 11.05 };
	const int ib[] = { 1, 1, 1, 1 }, iv[] = { 2, 2, 2, 2 };
	struct kvb_boot_cmp r;
	CHECK(kvb_stats_hier_bootstrap(b, ib, 4, v, iv, 4, 1000, 1, 0.05, &r, NULL) == KVB_OK);
	CHECK(r.boots_b == 1 && r.boots_v == 1);
	CHECK(isnan(r.between_sd_b) && isnan(r.between_sd_v));
	CHECK(isnan(r.boot_welch_p));
	CHECK(r.significant == 1); /* run-level bootstrap: 10 % with 1 % noise */
	CHECK_NEAR(r.ratio, 1.1, 1e-3);
}

static void test_bootstrap__rejects_bad_input(void)
{
	const double z[] = { 0, 0 }, x[] = { 1, 2 };
	const int id[] = { 1, 2 };
	struct kvb_error e = { 0 };
	struct kvb_boot_cmp r;
	/* a zero baseline mean is compared by the difference (no ratio, no relative CI), not refused */
	CHECK(kvb_stats_hier_bootstrap(z, id, 2, x, id, 2, 100, 1, 0.05, &r, &e) == KVB_OK);
	CHECK(r.ratio_ok == 0 && isnan(r.ratio) && isnan(r.rel_ci_lo));
	CHECK_NEAR(r.diff, 1.5, 1e-12);
	CHECK(kvb_stats_hier_bootstrap(x, NULL, 2, x, id, 2, 100, 1, 0.05, &r, &e) == KVB_EINPUT);
	CHECK_CONTAINS(e.msg, "boot ids");
	CHECK(kvb_stats_hier_bootstrap(x, id, 0, x, id, 2, 100, 1, 0.05, &r, &e) == KVB_EINPUT);
	CHECK(kvb_stats_hier_bootstrap(x, id, 2, x, id, 2, 100, 1, 0, &r, &e) == KVB_EINPUT);
}

/*
 * Calibration of the verdict when boots vary (A/A, 3 boots x 8 runs per
 * side, between-boot sd 2 %, within-boot sd 0.3 %). Runs-as-units is wrong
 * about half the time. The percentile CI of the hierarchical bootstrap is
 * far better but still anti-conservative with 3 boots (~20 %, see stats.h);
 * Welch on boot means holds alpha. The bounds guard those measured rates.
 */
static void test_bootstrap__aa_with_boot_noise_rarely_significant(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double b[24], v[24], lb[3], lv[3];
	int ib[24], iv[24], naive = 0, hier = 0, bw = 0, trials = 200;
	gsl_rng_set(rng, 11);
	for (int t = 0; t < trials; t++) {
		struct kvb_compare c;
		struct kvb_boot_cmp r;
		draw(rng, lb, 3, 68.5, 0.02 * 68.5);
		draw(rng, lv, 3, 68.5, 0.02 * 68.5);
		boots(rng, lb, 3, 8, 0.003 * 68.5, 0, b, ib);
		boots(rng, lv, 3, 8, 0.003 * 68.5, 0, v, iv);
		CHECK(kvb_stats_compare(b, 24, v, 24, 0.05, &c, NULL) == KVB_OK);
		CHECK(kvb_stats_hier_bootstrap(b, ib, 24, v, iv, 24, 2000, (unsigned long)t, 0.05, &r, NULL) == KVB_OK);
		naive += c.significant;
		hier += r.significant;
		bw += r.boot_welch_p < 0.05;
	}
	gsl_rng_free(rng);
	fprintf(stderr, "  A/A with boot noise: naive %d, hierarchical CI %d, boot Welch %d of %d significant\n", naive,
		hier, bw, trials);
	CHECK(naive > trials * 2 / 5);
	CHECK(hier < trials / 4);
	CHECK(bw >= trials / 100 && bw <= trials / 10);
}

/* The run-by-run two-level resample of stats.h, written out plainly: the reference for the fast path. */
static double ref_side_mean(gsl_rng *rng, const double *x, int nboots, int runs)
{
	double sum = 0;
	for (int k = 0; k < nboots; k++) {
		const double *bx = x + (size_t)gsl_rng_uniform_int(rng, (unsigned long)nboots) * (size_t)runs;
		for (int r = 0; r < runs; r++)
			sum += bx[gsl_rng_uniform_int(rng, (unsigned long)runs)];
	}
	return sum / ((double)nboots * runs);
}

/* Checks the CI of kvb_stats_hier_bootstrap on (b, v) against the run-by-run reference, within a tenth of its half-width. */
static void check_against_run_by_run(gsl_rng *rng, const double *b, const int *ib, const double *v, const int *iv, int nb,
				     int runs, unsigned long seed, const char *what)
{
	enum { R = 4000 };
	static double ratios[R];
	struct kvb_boot_cmp r;
	size_t n = (size_t)nb * (size_t)runs;
	CHECK(kvb_stats_hier_bootstrap(b, ib, n, v, iv, n, R, seed, 0.05, &r, NULL) == KVB_OK);
	for (int t = 0; t < R; t++) {
		double mb = ref_side_mean(rng, b, nb, runs);
		ratios[t] = ref_side_mean(rng, v, nb, runs) / mb;
	}
	gsl_sort(ratios, 1, R);
	double lo = gsl_stats_quantile_from_sorted_data(ratios, 1, R, 0.025);
	double hi = gsl_stats_quantile_from_sorted_data(ratios, 1, R, 0.975), half = (hi - lo) / 2;
	fprintf(stderr, "  %s: fast CI [%.5f, %.5f], run-by-run CI [%.5f, %.5f]\n", what, r.ci_lo, r.ci_hi, lo, hi);
	CHECK(fabs(r.ci_lo - lo) < 0.1 * half);
	CHECK(fabs(r.ci_hi - hi) < 0.1 * half);
}

/*
 * Boots with more than KVB_STATS_BOOT_RUNS_EXACT runs have their resampled
 * mean drawn from its normal approximation (issue 14: cost independent of
 * runs per boot). On skewed runs (exponential within a boot, 4 boots x 400
 * runs a side, boot levels 3 % apart) its CI must match the run-by-run
 * bootstrap's to within a tenth of the CI's half-width (Monte Carlo noise of
 * 4000 resamples is a few %); a fast path that forgot the within-boot
 * variance, or the between-boot draw, misses by far more.
 */
static void test_bootstrap__many_runs_per_boot_match_run_by_run_resampling(void)
{
	enum { NB = 4, RUNS = 400, N = NB * RUNS };
	static double b[N], v[N];
	static int ib[N], iv[N];
	const double lb[NB] = { 100, 103, 98, 101 }, lv[NB] = { 104, 99, 102, 105 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 5);
	for (int k = 0; k < NB; k++)
		for (int i = 0; i < RUNS; i++) {
			b[k * RUNS + i] = lb[k] * (0.9 + 0.1 * gsl_ran_exponential(rng, 1.0));
			v[k * RUNS + i] = lv[k] * (0.9 + 0.1 * gsl_ran_exponential(rng, 1.0));
			ib[k * RUNS + i] = iv[k * RUNS + i] = k;
		}
	CHECK(RUNS > KVB_STATS_BOOT_RUNS_EXACT);
	check_against_run_by_run(rng, b, ib, v, iv, NB, RUNS, 77, "400 runs/boot");
	gsl_rng_free(rng);
}

/*
 * A side with more than KVB_STATS_BOOTS_EXACT boots draws its whole resampled
 * mean from the normal approximation (cost O(1) per resample). 200 boots of 3
 * runs a side, skewed boot levels (exponential): the CI must match the
 * run-by-run bootstrap's within a tenth of its half-width.
 */
static void test_bootstrap__many_boots_match_run_by_run_resampling(void)
{
	enum { NB = 200, RUNS = 3, N = NB * RUNS };
	static double b[N], v[N];
	static int ib[N], iv[N];
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 9);
	for (int k = 0; k < NB; k++) {
		double lb = 100 * (0.95 + 0.05 * gsl_ran_exponential(rng, 1.0)), lv = 102 * (0.95 + 0.05 * gsl_ran_exponential(rng, 1.0));
		for (int i = 0; i < RUNS; i++) {
			b[k * RUNS + i] = lb + gsl_ran_gaussian(rng, 1.0);
			v[k * RUNS + i] = lv + gsl_ran_gaussian(rng, 1.0);
			ib[k * RUNS + i] = iv[k * RUNS + i] = k;
		}
	}
	CHECK(NB > KVB_STATS_BOOTS_EXACT);
	check_against_run_by_run(rng, b, ib, v, iv, NB, RUNS, 78, "200 boots");
	gsl_rng_free(rng);
}

/*
 * Signed quantities (issue 26). Reference values from scipy 1.10.1 / numpy 1.24.2
 * (Debian bookworm python3-scipy), computed once:
 *   stats.ttest_ind(v, b, equal_var=False)            -> welch t, p
 *   Welch-Satterthwaite df, stats.t.ppf(0.975, df)    -> the 95 % CI of mean(v) - mean(b)
 *   stats.mannwhitneyu(v, b, alternative='two-sided', method='exact') -> U (of v), p
 *   (mean(v) - mean(b)) / abs(mean(b)) * 100           -> diff_pct; CI / abs(mean(b)) -> rel CI
 */
/* rt-app slack_min (us, higher is better): the field case, baseline -23822, variant -62614. */
static const double neg_b[] = { -23510, -24105, -23890, -23320, -24410, -23655, -23980, -23706 };
static const double neg_v[] = { -61980, -63250, -62400, -62910, -61770, -63105, -62560, -62937 };
/* a metric that crosses zero: baseline mean -0.3, variant 1.35 */
static const double mix_b[] = { -1.2, 0.4, -0.8, 0.3, -0.5, -0.1, 0.2, -0.7 };
static const double mix_v[] = { 1.1, 2.0, 0.7, 1.6, 1.3, 0.9, 1.8, 1.4 };

static void test_compare__negative_means_reference_values_and_sign(void)
{
	struct kvb_compare c;
	CHECK(kvb_stats_compare(neg_b, N(neg_b), neg_v, N(neg_v), 0.05, &c, NULL) == KVB_OK);
	CHECK_NEAR(c.mean_b, -23822, 1e-9);
	CHECK_NEAR(c.mean_v, -62614, 1e-9);
	CHECK_NEAR(c.diff, -38792, 1e-9);
	/* down by 162.84 %: the sign of the difference, not +162.84 % from a ratio of 2.63 */
	CHECK_NEAR(c.diff_pct, -162.8410713, 5e-7);
	CHECK_NEAR(c.welch_t, -172.0560351, 5e-6);
	CHECK_NEAR(c.welch_df, 12.02275468, 5e-7);
	CHECK(c.welch_p < 1e-20 && c.welch_p > 1e-23); /* scipy: 9.232808812e-22 */
	CHECK_NEAR(c.welch_p / 9.232808812e-22, 1, 1e-5);
	CHECK_NEAR(c.ci_lo, -39283.13516, 5e-5);
	CHECK_NEAR(c.ci_hi, -38300.86484, 5e-5);
	CHECK_NEAR(c.mw_u, 0, 0);
	CHECK_NEAR(c.mw_p, 0.0001554001554, 1e-12);
	CHECK(c.significant == 1);
	/* no ratio of negative means; the change's CI is the difference's over |baseline| */
	CHECK(c.ratio_ok == 0 && isnan(c.ratio) && isnan(c.ratio_ci_lo) && isnan(c.ratio_ci_hi));
	CHECK_NEAR(c.rel_ci_lo, -1.649027586, 5e-9);
	CHECK_NEAR(c.rel_ci_hi, -1.607793839, 5e-9);
}

static void test_compare__mixed_sign_means_are_tested(void)
{
	struct kvb_compare c;
	CHECK(kvb_stats_compare(mix_b, N(mix_b), mix_v, N(mix_v), 0.05, &c, NULL) == KVB_OK);
	CHECK_NEAR(c.mean_b, -0.3, 1e-12);
	CHECK_NEAR(c.mean_v, 1.35, 1e-12);
	CHECK_NEAR(c.diff_pct, 550, 1e-9); /* up: 1.65 / |-0.3| */
	CHECK_NEAR(c.welch_t, 6.350852961, 5e-9);
	CHECK_NEAR(c.welch_df, 13.04978863, 5e-8);
	CHECK_NEAR(c.welch_p, 2.487857628e-05, 5e-14);
	CHECK_NEAR(c.ci_lo, 1.088937365, 5e-9);
	CHECK_NEAR(c.ci_hi, 2.211062635, 5e-9);
	CHECK_NEAR(c.mw_u, 64, 0);
	CHECK_NEAR(c.mw_p, 0.0001554001554, 1e-12);
	CHECK(c.significant == 1);
	CHECK(c.ratio_ok == 0 && isnan(c.ratio)); /* -4.5 would read as "went down" */
	CHECK_NEAR(c.rel_ci_lo, 3.629791217, 5e-9);
	CHECK_NEAR(c.rel_ci_hi, 7.370208783, 5e-9);
	/* positive means keep Fieller's ratio CI as the change's CI */
	CHECK(kvb_stats_compare(d1_b, N(d1_b), d1_v, N(d1_v), 0.05, &c, NULL) == KVB_OK);
	CHECK(c.ratio_ok == 1);
	CHECK_NEAR(c.rel_ci_lo, c.ratio_ci_lo - 1, 1e-15);
	CHECK_NEAR(c.rel_ci_hi, c.ratio_ci_hi - 1, 1e-15);
}

/*
 * The cases of facebookarchive/bootstrapped PR #29 (percent_change over a
 * signed control): two negative means, -100 -> -90 is +10 % (up), -100 -> -110
 * is -10 % (down); the signed divisor gave -10 and +10.
 */
static void test_compare__percent_change_of_negative_means_field_cases(void)
{
	const double b[] = { -100.5, -99.5 }, up[] = { -90.5, -89.5 }, down[] = { -110.5, -109.5 };
	struct kvb_compare c;
	CHECK(kvb_stats_compare(b, 2, up, 2, 0.05, &c, NULL) == KVB_OK);
	CHECK_NEAR(c.diff_pct, 10, 1e-12);
	CHECK(kvb_stats_compare(b, 2, down, 2, 0.05, &c, NULL) == KVB_OK);
	CHECK_NEAR(c.diff_pct, -10, 1e-12);
}

static void test_summary__cov_of_a_negative_mean_is_positive(void)
{
	struct kvb_summary s;
	CHECK(kvb_stats_summary(neg_b, N(neg_b), &s, NULL) == KVB_OK);
	CHECK(s.cov_pct > 0);
	CHECK_NEAR(s.cov_pct, s.stdev / 23822 * 100, 1e-12);
}

/*
 * The bootstrap of a negative metric: the resamples draw indices, so shifting
 * both sides by the same constant leaves every resampled difference as it was;
 * a shift that makes the data positive gives the reference difference CI.
 */
static void test_bootstrap__negative_means_use_the_difference(void)
{
	double b[24], v[24], bp[24], vp[24];
	int ib[24], iv[24];
	const double lb[] = { -23822, -23500, -24100 }, lv[] = { -62614, -61900, -63300 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 26);
	size_t nb = boots(rng, lb, 3, 8, 400, 0, b, ib);
	size_t nv = boots(rng, lv, 3, 8, 400, 0, v, iv);
	gsl_rng_free(rng);
	for (size_t i = 0; i < nb; i++)
		bp[i] = b[i] + 1e5;
	for (size_t i = 0; i < nv; i++)
		vp[i] = v[i] + 1e5;
	struct kvb_boot_cmp r, rp;
	CHECK(kvb_stats_hier_bootstrap(b, ib, nb, v, iv, nv, 4000, 42, 0.05, &r, NULL) == KVB_OK);
	CHECK(kvb_stats_hier_bootstrap(bp, ib, nb, vp, iv, nv, 4000, 42, 0.05, &rp, NULL) == KVB_OK);
	CHECK(r.ratio_ok == 0 && isnan(r.ratio) && isnan(r.ci_lo));
	CHECK(rp.ratio_ok == 1);
	CHECK_NEAR(r.diff_ci_lo, rp.diff_ci_lo, 1e-6);
	CHECK_NEAR(r.diff_ci_hi, rp.diff_ci_hi, 1e-6);
	CHECK(r.diff < 0 && r.diff_ci_hi < 0); /* down, and significantly */
	CHECK(r.significant == 1);
	double mb = gsl_stats_mean(b, 1, nb);
	CHECK_NEAR(r.rel_ci_lo, r.diff_ci_lo / fabs(mb), 1e-12);
	CHECK_NEAR(r.rel_ci_hi, r.diff_ci_hi / fabs(mb), 1e-12);
	/* the boot level is signed too: Welch on the boot means is unchanged by the shift */
	CHECK_NEAR(r.boot_welch_p, rp.boot_welch_p, 1e-9);
	CHECK(r.boot_rel_ci_hi < 0);
	/* positive data: the ratio CI decides, and its change CI is ratio - 1 */
	CHECK_NEAR(rp.rel_ci_lo, rp.ci_lo - 1, 1e-15);
}

/*
 * A resampled mean that crosses zero drops the ratio (mixed-sign data): the
 * baseline's boots straddle 0.
 */
static void test_bootstrap__resamples_crossing_zero_drop_the_ratio(void)
{
	const double b[] = { 0.5, 0.6, 0.4, -0.3, -0.4, -0.2, 0.05, 0.1, 0.0 };
	const double v[] = { 1.5, 1.6, 1.4, 1.2, 1.3, 1.1, 1.45, 1.5, 1.4 };
	const int ib[] = { 1, 1, 1, 2, 2, 2, 3, 3, 3 }, iv[] = { 4, 4, 4, 5, 5, 5, 6, 6, 6 };
	struct kvb_boot_cmp r;
	CHECK(kvb_stats_hier_bootstrap(b, ib, 9, v, iv, 9, 2000, 7, 0.05, &r, NULL) == KVB_OK);
	CHECK(gsl_stats_mean(b, 1, 9) > 0); /* both means positive, yet some resamples are not */
	CHECK(r.ratio_ok == 0 && isnan(r.ratio));
	CHECK(r.diff > 0 && r.diff_ci_lo > 0 && r.significant == 1);
}

/*
 * The test of a quantile (--stat median/p95): point estimates, per-boot
 * quantiles and Welch on them against numpy/scipy (numpy 1.24.2:
 * np.quantile(x, q) with the default 'linear' method, Hyndman & Fan type 7;
 * np.quantile(B, q, axis=1) per boot; scipy 1.10.1 stats.ttest_ind(pv, pb,
 * equal_var=False)). The baseline's outliers pull its mean down to the
 * variant's (-126.6 vs -127.0): the means do not differ, the medians do.
 */
static void test_bootstrap_quantile__median_and_p95_reference_values(void)
{
	const double b[] = { -105, -98, -101, -97, -250, -99, -103, -110, -104, -107, -102, -108, -300, -106,
			     -100, -96, -99, -95, -97, -101, -280 };
	const double v[] = { -131, -125, -128, -122, -126, -129, -124, -135, -130, -133, -127, -131, -134, -129,
			     -128, -121, -125, -119, -123, -126, -122 };
	int ib[21], iv[21];
	for (int i = 0; i < 21; i++)
		ib[i] = 1 + i / 7, iv[i] = 11 + i / 7;
	struct kvb_boot_cmp r;
	double p = NAN;
	CHECK(kvb_stats_hier_bootstrap_quantile(b, ib, NULL, 21, v, iv, NULL, 21, 0.5, 2000, 42, 0.05, &r, &p, NULL) ==
	      KVB_OK);
	CHECK_NEAR(r.diff, -25, 1e-12); /* np.quantile: -127 - -102 */
	CHECK(r.boots_b == 3 && r.boots_v == 3 && r.resamples == 2000);
	CHECK_NEAR(r.boot_welch_p, 0.001914273017, 5e-12); /* per-boot medians -101 -107 -99 vs -126 -131 -123 */
	CHECK_NEAR(r.boot_welch_t, -7.263771489, 5e-9);
	CHECK(r.ratio_ok == 0 && r.diff_ci_hi < 0 && r.significant == 1);
	CHECK(p < 0.01);
	/* Every resampled median difference is below 0 here: the p is the floor 2 / (R + 1), never 0. */
	CHECK_NEAR(p, 2.0 / 2001, 1e-15);
	CHECK(kvb_stats_hier_bootstrap_quantile(b, ib, NULL, 21, v, iv, NULL, 21, 0.95, 2000, 42, 0.05, &r, &p, NULL) ==
	      KVB_OK);
	CHECK_NEAR(r.diff, -25, 1e-12);                    /* -121 - -96 */
	CHECK_NEAR(r.boot_welch_p, 0.001492761855, 5e-12); /* per-boot p95 -97.3 -102.6 -95.3 vs -122.6 -127.6 -119.6 */
	CHECK_NEAR(r.boot_welch_t, -7.790724397, 5e-9);
	/* while the means' test finds nothing */
	struct kvb_compare c;
	CHECK(kvb_stats_compare(b, 21, v, 21, 0.05, &c, NULL) == KVB_OK);
	CHECK(c.welch_p > 0.5);
	/* bad input */
	struct kvb_error e = { 0 };
	CHECK(kvb_stats_hier_bootstrap_quantile(b, ib, NULL, 21, v, iv, NULL, 21, 1, 100, 1, 0.05, &r, &p, &e) ==
	      KVB_EINPUT);
	CHECK_CONTAINS(e.msg, "quantile");
}

/*
 * Calibration of the quantile test as diff uses it (A/A, 3 boots x 8 runs a
 * side, between-boot sd 2 %, within-boot 0.3 %): the bootstrap CI of the
 * median alone is anti-conservative with 3 boots (as the mean's is), the rule
 * with Welch on the per-boot medians holds alpha.
 */
static void test_bootstrap_quantile__aa_with_boot_noise_rarely_significant(void)
{
	enum { TRIALS = 300 };
	const double lvl[] = { 100, 100, 100 };
	int ci_only = 0, rule = 0;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 2601);
	for (int t = 0; t < TRIALS; t++) {
		double b[24], v[24], lb[3], lv[3], p;
		int ib[24], iv[24];
		for (int k = 0; k < 3; k++) {
			lb[k] = lvl[k] * (1 + gsl_ran_gaussian(rng, 0.02));
			lv[k] = lvl[k] * (1 + gsl_ran_gaussian(rng, 0.02));
		}
		size_t nb = boots(rng, lb, 3, 8, 0.3, 0, b, ib), nv = boots(rng, lv, 3, 8, 0.3, 10, v, iv);
		struct kvb_boot_cmp r;
		CHECK(kvb_stats_hier_bootstrap_quantile(b, ib, NULL, nb, v, iv, NULL, nv, 0.5, 1000, (unsigned long)t, 0.05, &r,
							&p, NULL) == KVB_OK);
		ci_only += r.significant;
		rule += r.significant && r.boot_welch_p < 0.05;
	}
	gsl_rng_free(rng);
	fprintf(stderr, "  median A/A: CI alone %.1f %%, CI and Welch on boot medians %.1f %%\n", 100.0 * ci_only / TRIALS,
		100.0 * rule / TRIALS);
	CHECK(ci_only > rule);
	CHECK(rule <= TRIALS * 0.09); /* alpha 5 %, binomial sd 1.3 % at 300 trials */
}

/* Dense ids keep the order of first appearance: {7, 3, 7, 9, 3} -> {0, 1, 0, 2, 1}. */
static void test_dense_ids__order_of_first_appearance(void)
{
	const int64_t ids[] = { 7, 3, 7, 9, 3 };
	int out[5];
	CHECK(kvb_stats_dense_ids(ids, 5, out) == 3);
	CHECK(out[0] == 0 && out[1] == 1 && out[2] == 0 && out[3] == 2 && out[4] == 1);
	CHECK(kvb_stats_dense_ids(ids, 0, out) == 0);
}

/* The per-boot level: 20 % trimmed from 5 runs on (floor(0.2 n) dropped each end), median of 3-4, mean of 1-2. */
static void test_boot_level__trims_one_run_a_side_from_three_runs_on(void)
{
	static const double five[] = { 1, 2, 3, 4, 100 }, ten[] = { -50, 1, 2, 3, 4, 5, 6, 7, 8, 1000 };
	static const double four[] = { 1, 2, 3, 400 }, three[] = { 1, 2, 300 }, two[] = { 1, 3 };
	CHECK(kvb_stats_boot_level(five, 5) == 3);        /* (2 + 3 + 4) / 3 */
	CHECK(fabs(kvb_stats_boot_level(ten, 10) - 4.5) < 1e-12); /* 2 dropped each end: (2 + ... + 7) / 6 */
	CHECK(kvb_stats_boot_level(four, 4) == 2.5);
	CHECK(kvb_stats_boot_level(three, 3) == 2);
	CHECK(kvb_stats_boot_level(two, 2) == 2);
}

/*
 * 3 boots a side, 5 runs a boot with the first run 4x slower (a cold first
 * job), variant 20 % slower: boots at 100/103/97, runs x {4, 0.99, 1.01,
 * 1.005, 0.995}. Each boot's level is 1.003333 x its level (0.995, 1.005 and
 * 1.01 kept); Welch on those: diff 20.0667, t = 7.3922, df 3.8740.
 */
static void fill_cold_boots(double *x, int *ids, double scale, const double *levels, const double *cold)
{
	static const double runs[] = { 1, 0.99, 1.01, 1.005, 0.995 };
	for (int k = 0; k < 3; k++)
		for (int r = 0; r < 5; r++) {
			x[k * 5 + r] = scale * levels[k] * runs[r] * (r == 0 ? cold[k] : 1);
			ids[k * 5 + r] = k;
		}
}

static void test_boot_robust__cold_first_run_does_not_hide_twenty_pct(void)
{
	static const double levels[] = { 100, 103, 97 }, cold4[] = { 4, 4, 4 };
	double b[15], v[15];
	int ib[15], iv[15];
	struct kvb_boot_cmp r, old;
	fill_cold_boots(b, ib, 1, levels, cold4);
	fill_cold_boots(v, iv, 1.2, levels, cold4);
	CHECK(kvb_stats_boot_robust(b, ib, NULL, 15, v, iv, NULL, 15, 0, 42, 0.05, &r, NULL) == KVB_OK);
	CHECK(r.robust && r.boots_b == 3 && r.boots_v == 3);
	CHECK(fabs(r.level_b - 100 * 3.01 / 3) < 1e-9);
	CHECK(fabs(r.level_v - 120 * 3.01 / 3) < 1e-9);
	CHECK(fabs(r.diff - 20 * 3.01 / 3) < 1e-9);
	CHECK(fabs(r.ratio - 1.2) < 1e-12);
	CHECK(fabs(r.boot_welch_t - 7.392) < 1e-3);
	CHECK(fabs(r.boot_welch_df - 3.8740) < 1e-4);
	CHECK(r.boot_welch_p < 0.01);
	/* top level only: the lowest resample is at least the variant's lowest boot over the baseline's highest */
	CHECK(r.ci_lo >= 1.2 * 97 / 103 - 1e-12 && r.ci_hi <= 1.2 * 103 / 97 + 1e-12);
	CHECK(r.significant);
	/* the sd of the levels, not of the boot means (1.003333 x 3, the boots' sd) */
	CHECK(fabs(r.between_sd_b - 3.01) < 1e-9);
	/* the two-level bootstrap of run means redraws the 4x run: its CI holds 1 (issue 38) */
	CHECK(kvb_stats_hier_bootstrap(b, ib, 15, v, iv, 15, 0, 42, 0.05, &old, NULL) == KVB_OK);
	CHECK(!old.significant && old.ci_lo < 1);
}

/*
 * How wild the wild run is moves nothing: a first run 4x, 2x, 0.5x or 40x,
 * 200x, 0.05x its boot gives bit-identical levels, CIs and Welch (the same
 * resample stream); only which neighbour is trimmed with it can matter.
 */
static void test_boot_robust__one_wild_run_per_boot_changes_nothing(void)
{
	static const double levels[] = { 100, 103, 97 }, one[] = { 1, 1, 1 };
	static const double wild[] = { 4, 2, 0.5 }, wilder[] = { 40, 200, 0.05 };
	double b[15], v[15], bw[15];
	int ib[15], iv[15];
	struct kvb_boot_cmp r1, r2;
	fill_cold_boots(b, ib, 1, levels, wild);
	fill_cold_boots(bw, ib, 1, levels, wilder);
	fill_cold_boots(v, iv, 1.02, levels, one);
	CHECK(kvb_stats_boot_robust(b, ib, NULL, 15, v, iv, NULL, 15, 2000, 7, 0.05, &r1, NULL) == KVB_OK);
	CHECK(kvb_stats_boot_robust(bw, ib, NULL, 15, v, iv, NULL, 15, 2000, 7, 0.05, &r2, NULL) == KVB_OK);
	CHECK(r1.level_b == r2.level_b && r1.ci_lo == r2.ci_lo && r1.ci_hi == r2.ci_hi);
	CHECK(r1.boot_welch_p == r2.boot_welch_p && r1.significant == r2.significant);
	/* a high wild run keeps 0.995, 1.005, 1.01 of its boot; boot 2's low one keeps 0.99, 0.995, 1.005 */
	CHECK(fabs(r1.level_b - (100 * 3.01 + 103 * 3.01 + 97 * 2.99) / 9) < 1e-9);
	/* the run-level spread still shows the wild runs: within_sd is of the runs */
	CHECK(r2.within_sd_b > 10 * r1.within_sd_b);
}

static void test_boot_robust__needs_two_boots_a_side(void)
{
	static const double x[] = { 1, 2, 3, 4 };
	static const int two[] = { 0, 0, 1, 1 }, one[] = { 5, 5, 5, 5 };
	struct kvb_boot_cmp r;
	struct kvb_error e;
	CHECK(kvb_stats_boot_robust(x, two, NULL, 4, x, one, NULL, 4, 100, 1, 0.05, &r, &e) == KVB_EINPUT);
	CHECK(strstr(e.msg, "2 boots a side") != NULL);
	CHECK(kvb_stats_boot_robust(x, two, NULL, 4, x, two, NULL, 4, 100, 1, 0.05, &r, NULL) == KVB_OK);
	CHECK(r.diff == 0 && !r.significant);
}

#define TESTS                                                                                                          \
	T(test_mean__exact_zero_sum_and_equal_values_stay_exact)                                                       \
	T(test_compare__zero_against_zero_has_an_exact_zero_difference)                                                \
	T(test_summary__even_n_median_p95_hmean)                                                                       \
	T(test_boot_level__trims_one_run_a_side_from_three_runs_on)                                                    \
	T(test_boot_robust__cold_first_run_does_not_hide_twenty_pct)                                                   \
	T(test_boot_robust__one_wild_run_per_boot_changes_nothing)                                                     \
	T(test_boot_robust__needs_two_boots_a_side)                                                                    \
	T(test_summary__odd_n_median_and_p95)                                                                          \
	T(test_summary__d1_reference_means_and_stdev)                                                                  \
	T(test_summary__hmean_nan_when_value_not_positive)                                                             \
	T(test_summary__single_value_has_nan_stdev)                                                                    \
	T(test_summary__rejects_empty_and_non_finite_input)                                                            \
	T(test_compare__d1_reference_values_significant)                                                               \
	T(test_compare__d2_reference_values_not_significant)                                                           \
	T(test_compare__d3_ties_use_normal_approximation)                                                              \
	T(test_compare__swapping_samples_mirrors_the_result)                                                           \
	T(test_compare__fieller_ratio_ci_solves_its_equation)                                                          \
	T(test_compare__rejects_too_small_samples_and_bad_alpha)                                                       \
	T(test_compare__constant_samples_do_not_divide_by_zero)                                                        \
	T(test_mannwhitney__exact_only_up_to_20_without_ties)                                                          \
	T(test_mannwhitney__exact_extremes_sum_to_one)                                                                 \
	T(test_compare__aa_false_positive_rate_near_alpha)                                                             \
	T(test_compare__ab_five_pct_shift_detected)                                                                    \
	T(test_bootstrap__boot_level_noise_is_not_a_difference)                                                        \
	T(test_bootstrap__twofold_change_is_significant)                                                               \
	T(test_bootstrap__same_seed_same_result_and_boot_order_irrelevant)                                             \
	T(test_bootstrap__single_boot_reports_one_boot)                                                                \
	T(test_bootstrap__rejects_bad_input)                                                                           \
	T(test_bootstrap__aa_with_boot_noise_rarely_significant)                                                       \
	T(test_bootstrap__many_runs_per_boot_match_run_by_run_resampling)                                              \
	T(test_bootstrap__many_boots_match_run_by_run_resampling)                                                      \
	T(test_dense_ids__order_of_first_appearance)                                                                   \
	T(test_compare__negative_means_reference_values_and_sign)                                                      \
	T(test_compare__mixed_sign_means_are_tested)                                                                   \
	T(test_compare__percent_change_of_negative_means_field_cases)                                                  \
	T(test_summary__cov_of_a_negative_mean_is_positive)                                                            \
	T(test_bootstrap__negative_means_use_the_difference)                                                           \
	T(test_bootstrap__resamples_crossing_zero_drop_the_ratio)                                                      \
	T(test_bootstrap_quantile__median_and_p95_reference_values)                                                    \
	T(test_bootstrap_quantile__aa_with_boot_noise_rarely_significant)                                              \
	T(test_paired__duet_rounds_reference_values)                                                                   \
	T(test_paired__negative_baseline_keeps_the_sign)                                                               \
	T(test_paired__constant_difference_and_refusals)
/*
 * Duet rounds: the host's load moves both sides of a round alike (10..13 here), the variant is
 * 1.175 higher on average. By hand: d = {1, 1.5, 1, 1.2}, mean 1.175, sd 0.2362908, se 0.1181454,
 * t 9.945373, t(0.975, 3) = 3.182446, CI 1.175 +- 0.375991; two-sided p 0.002163 (t distribution,
 * 3 df). Unpaired, the round-to-round spread hides it: Welch is not significant on the same data.
 */
static void test_paired__duet_rounds_reference_values(void)
{
	static const double b[] = { 10, 12, 11, 13 }, v[] = { 11, 13.5, 12, 14.2 };
	struct kvb_paired p;
	struct kvb_compare c;
	CHECK(kvb_stats_paired(b, v, 4, 0.05, &p, NULL) == KVB_OK);
	CHECK(p.n == 4);
	CHECK(fabs(p.diff - 1.175) < 1e-12);
	CHECK(fabs(p.sd - 0.2362908) < 1e-6);
	CHECK(fabs(p.t - 9.945373) < 1e-5);
	CHECK(fabs(p.ci_lo - (1.175 - 0.375991)) < 1e-5);
	CHECK(fabs(p.ci_hi - (1.175 + 0.375991)) < 1e-5);
	CHECK(fabs(p.p - 0.002163) < 1e-5);
	CHECK(p.significant);
	CHECK(fabs(p.mean_b - 11.5) < 1e-12);
	CHECK(fabs(p.rel - 1.175 / 11.5) < 1e-12);
	CHECK(fabs(p.rel_ci_lo - (1.175 - 0.375991) / 11.5) < 1e-6);
	CHECK(kvb_stats_compare(b, 4, v, 4, 0.05, &c, NULL) == KVB_OK);
	CHECK(!c.significant);
}

/* A negative baseline (rt-app slack): the relative change keeps the difference's sign. */
static void test_paired__negative_baseline_keeps_the_sign(void)
{
	static const double b[] = { -100, -120, -110 }, v[] = { -150, -172, -161 };
	struct kvb_paired p;
	CHECK(kvb_stats_paired(b, v, 3, 0.05, &p, NULL) == KVB_OK);
	CHECK(p.diff < 0);
	CHECK(p.rel < 0);
	CHECK(fabs(p.rel - (-51.0 / 110)) < 1e-12);
	CHECK(p.rel_ci_hi < 0);
}

/* The same difference every round (a deterministic board): zero spread, zero-width CI, p 0. */
static void test_paired__constant_difference_and_refusals(void)
{
	static const double b[] = { 5, 6, 7 }, v[] = { 5.5, 6.5, 7.5 }, same[] = { 5, 6, 7 };
	static const double bad[] = { 5, NAN, 7 };
	struct kvb_paired p;
	struct kvb_error err;
	CHECK(kvb_stats_paired(b, v, 3, 0.05, &p, NULL) == KVB_OK);
	CHECK(p.sd == 0 && p.ci_lo == 0.5 && p.ci_hi == 0.5 && p.p == 0 && p.significant);
	CHECK(kvb_stats_paired(b, same, 3, 0.05, &p, NULL) == KVB_OK);
	CHECK(p.p == 1 && !p.significant);
	CHECK(kvb_stats_paired(b, v, 1, 0.05, &p, &err) == KVB_EINPUT);
	CHECK(strstr(err.msg, "2 pairs") != NULL);
	CHECK(kvb_stats_paired(b, bad, 3, 0.05, &p, &err) == KVB_EINPUT);
	CHECK(strstr(err.msg, "pair 2") != NULL);
}

#include "test_main.h"
