/* The rounded numbers of the diff tables (report/diff.h kvb_fmt_num), at the sizes cells use. */
#include "report/diff.h"
#include "test.h"

#include <math.h>

static void test_fmt_num__huge_values_keep_their_magnitude(void)
{
	char b[64];
	CHECK_STR(kvb_fmt_num(26.4417, b, sizeof(b)), "26.44");
	CHECK_STR(kvb_fmt_num(109844.4, b, sizeof(b)), "109844");
	CHECK_STR(kvb_fmt_num(-123456789012345.0, b, sizeof(b)), "-123456789012345");
	/* 1.35e308 printed with %.0f has 309 digits: cut to the 63 a cell holds it read as 1.35e62 */
	CHECK_STR(kvb_fmt_num(1.35e308, b, sizeof(b)), "1.35e+308");
	CHECK_STR(kvb_fmt_num(1796121916156075688.0, b, sizeof(b)), "1.796e+18");
	CHECK_STR(kvb_fmt_num(NAN, b, sizeof(b)), "-");
	CHECK_STR(kvb_fmt_num(INFINITY, b, sizeof(b)), "inf");
}

#define TESTS T(test_fmt_num__huge_values_keep_their_magnitude)
#include "test_main.h"
