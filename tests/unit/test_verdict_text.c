/* The text of an undecided cell (issue 27): the smallest change the data could have shown, and "no difference
 * this data can resolve" past 1000 boots: the wide layout said that where the mail layout said
 * "undecided" for the same verdict; now every layout says "undecided (CI +-9 %, >1000 boots)". */
#include "report/verdict_cell.h"
#include "test.h"

#include <math.h>

static void test_verdict_text__undecided_says_the_ci_half_width(void)
{
	char b[128];
	/* ratio CI 0.97 .. 1.03: half its width is 3 % of the baseline */
	kvb_verdict_undecided_text(b, sizeof(b), 0.97, 1.03, 12, "boots");
	CHECK_STR(b, "undecided (CI +-3 %, ~12 boots)");
	/* 0.9952 .. 1.0048: +-0.48 % */
	kvb_verdict_undecided_text(b, sizeof(b), 0.9952, 1.0048, 40, "boots");
	CHECK_STR(b, "undecided (CI +-0.48 %, ~40 boots)");
	/* one boot: no boots estimate, the CI alone */
	kvb_verdict_undecided_text(b, sizeof(b), 0.976, 1.024, NAN, "boots");
	CHECK_STR(b, "undecided (CI +-2.4 %)");
	/* an unbounded CI (Fieller's with a baseline mean near 0): the old text */
	kvb_verdict_undecided_text(b, sizeof(b), NAN, NAN, 7, "boots");
	CHECK_STR(b, "undecided (~7 boots)");
	/* 0.4 .. 2.6: +-110 % */
	kvb_verdict_undecided_text(b, sizeof(b), 0.4, 2.6, 3, "boots");
	CHECK_STR(b, "undecided (CI +-110 %, ~3 boots)");
	/* a duet's estimate counts pairs (rounds both variants finished) */
	kvb_verdict_undecided_text(b, sizeof(b), 0.97, 1.03, 14, "pairs");
	CHECK_STR(b, "undecided (CI +-3 %, ~14 pairs)");
}

static void test_verdict_text__past_1000_boots_no_difference_this_data_can_resolve(void)
{
	char b[128];
	/* issue 27's "(~25743 boots)" for a 0.8 % difference */
	kvb_verdict_undecided_text(b, sizeof(b), 0.91, 1.09, 25743, "boots");
	CHECK_STR(b, "undecided (CI +-9 %, >1000 boots)");
	kvb_verdict_undecided_text(b, sizeof(b), 0.91, 1.09, 1000, "boots");
	CHECK_STR(b, "undecided (CI +-9 %, ~1000 boots)");
	kvb_verdict_undecided_text(b, sizeof(b), 0.91, 1.09, 1001, "boots");
	CHECK_STR(b, "undecided (CI +-9 %, >1000 boots)");
	CHECK(fabs(kvb_verdict_ci_halfwidth_pct(0.98, 1.02) - 2) < 1e-9);
	CHECK(isnan(kvb_verdict_ci_halfwidth_pct(1.02, 0.98)));
}

#define TESTS                                                                                                          \
	T(test_verdict_text__undecided_says_the_ci_half_width)                                                        \
	T(test_verdict_text__past_1000_boots_no_difference_this_data_can_resolve)
#include "test_main.h"
