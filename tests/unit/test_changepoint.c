/* Tests E-Divisive change-point detection (src/stats/changepoint.c) on series worked out by hand. */
#include "stats/changepoint.h"
#include "test.h"

/* 0 0 0 0 | 10 10 10 10, one observation per commit. At tau = 4: cross sum 16 * 10 = 160,
 * e = 2 * 160 / 16 - 0 - 0 = 20, Q = 4 * 4 / 8 * 20 = 40. At tau = 3: X = {0,0,0}, Y = {0,10,10,10,10}:
 * cross 3 * 40 = 120, e = 240 / 15 - 0 - 40 / 10 = 12, Q = 15 / 8 * 12 = 22.5 < 40. A permutation
 * reaches Q = 40 only with the same two halves (2 of C(8,4) = 70 orders): p about 0.029. */
static void test_changepoint__step_found_with_hand_computed_q(void)
{
	double x[] = { 0, 0, 0, 0, 10, 10, 10, 10 };
	size_t g[] = { 0, 1, 2, 3, 4, 5, 6, 7 }, n = 0;
	struct kvb_cp cp[8];
	struct kvb_cp_opts o = { .permutations = 999, .seed = 7 };
	struct kvb_error err;
	CHECK(kvb_changepoints(x, g, 8, &o, cp, &n, &err) == 0);
	CHECK(n == 1);
	CHECK(cp[0].group == 4 && cp[0].index == 4);
	CHECK(fabs(cp[0].q - 40.0) < 1e-9);
	CHECK(cp[0].p > 0.015 && cp[0].p < 0.045);
}

/* Same step with 3 + 3 observations: only 2 of C(6,3) = 20 orders reach the observed Q, p about 0.1:
 * not significant at 0.05, so no change point is claimed from so little. */
static void test_changepoint__too_few_observations_not_significant(void)
{
	double x[] = { 0, 0, 0, 10, 10, 10 };
	size_t g[] = { 0, 1, 2, 3, 4, 5 }, n = 9;
	struct kvb_cp cp[8];
	struct kvb_cp_opts o = { .permutations = 999, .seed = 7 };
	struct kvb_error err;
	CHECK(kvb_changepoints(x, g, 6, &o, cp, &n, &err) == 0);
	CHECK(n == 0);
}

/* Seven commits, two boots each (us/op of a pipe benchmark): the shift is at commit 4; splits stay
 * between commits (commit 4's two boots are never separated) and flat parts give no extra point. */
static void test_changepoint__series_with_boots_splits_between_commits(void)
{
	double x[] = { 70, 72, 71, 69, 70, 71, 72, 70, 150, 148, 151, 149, 150, 152 };
	size_t g[] = { 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6 }, n = 0;
	struct kvb_cp cp[8];
	struct kvb_error err;
	CHECK(kvb_changepoints(x, g, 14, NULL, cp, &n, &err) == 0);
	CHECK(n == 1);
	CHECK(n >= 1 && cp[0].group == 4 && cp[0].index == 8);
	CHECK(n >= 1 && cp[0].p < 0.05);
}

/* Two steps: both found, the larger first. */
static void test_changepoint__two_steps(void)
{
	double x[30];
	size_t g[30], n = 0;
	struct kvb_cp cp[8];
	struct kvb_error err;
	for (int i = 0; i < 30; i++) {
		g[i] = (size_t)(i / 3);
		x[i] = (i < 12 ? 10 : i < 21 ? 40 : 25) + (i % 3) * 0.5;
	}
	CHECK(kvb_changepoints(x, g, 30, NULL, cp, &n, &err) == 0);
	CHECK(n == 2);
	CHECK(n == 2 && ((cp[0].group == 4 && cp[1].group == 7) || (cp[0].group == 7 && cp[1].group == 4)));
}

static void test_changepoint__rejects_bad_input(void)
{
	double x[] = { 1, 2, NAN, 4 }, y[] = { 1, 2, 3, 4 };
	size_t g[] = { 0, 1, 2, 3 }, gb[] = { 0, 2, 1, 3 }, n;
	struct kvb_cp cp[8];
	struct kvb_cp_opts bad = { .exponent = 2.0 };
	struct kvb_error err;
	CHECK(kvb_changepoints(x, g, 4, NULL, cp, &n, &err) == 3);
	CHECK_CONTAINS(err.msg, "not a finite number");
	CHECK(kvb_changepoints(y, gb, 4, NULL, cp, &n, &err) == 3);
	CHECK_CONTAINS(err.msg, "not ordered by commit");
	CHECK(kvb_changepoints(y, g, 3, NULL, cp, &n, &err) == 3);
	CHECK(kvb_changepoints(y, g, 4, &bad, cp, &n, &err) == 3);
	CHECK_CONTAINS(err.msg, "exponent");
}

#define TESTS                                                                                                   \
	T(test_changepoint__step_found_with_hand_computed_q)                                                   \
	T(test_changepoint__too_few_observations_not_significant)                                              \
	T(test_changepoint__series_with_boots_splits_between_commits)                                          \
	T(test_changepoint__two_steps)                                                                         \
	T(test_changepoint__rejects_bad_input)
#include "test_main.h"
