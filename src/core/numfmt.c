/* Implements the number formats of tables and scripts (numfmt.h). */
#include "core/numfmt.h"

#include <math.h>
#include <stdio.h>

const char *kvb_fmt_num(double x, char *buf, size_t n)
{
	double a = fabs(x);
	if (isnan(x))
		snprintf(buf, n, "-");
	else if (a >= 10000 && a < 1e15) /* beyond, %.0f has more digits than a cell buffer holds */
		snprintf(buf, n, "%.0f", x);
	else
		snprintf(buf, n, "%.4g", x); /* 4 significant digits: 0.02801, 1.523, 26.44, 189.9 */
	return buf;
}

const char *kvb_fmt_raw(double x, char *buf, size_t n)
{
	if (isnan(x))
		snprintf(buf, n, "%s", "");
	else
		snprintf(buf, n, "%.17g", x);
	return buf;
}
