/* Implements per-sample summaries (mean, sd, median, p95, harmonic mean) and sample validation on GSL. */
#include "stats/stats.h"
#include "core/error.h"
#include "core/util.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int kvb_stats_check_sample(const char *what, const double *x, size_t n, size_t min_n, struct kvb_error *err)
{
	if (n < min_n)
		return kvb_error_set(err, KVB_EINPUT, "%s sample has %zu value%s, need at least %zu", what, n,
				     n == 1 ? "" : "s", min_n);
	if (n > 0 && !x)
		return kvb_error_set(err, KVB_EINPUT, "%s sample is missing", what);
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return kvb_error_set(err, KVB_EINPUT, "%s sample has non-finite value '%g' at index %zu", what,
					     x[i], i);
	return KVB_OK;
}

double kvb_stats_mean(const double *x, size_t n)
{
	double *part, sum = 0;
	size_t np = 0, i;
	if (!n)
		return NAN;
	for (i = 1; i < n && x[i] == x[0]; i++)
		;
	if (i == n)
		return x[0]; /* n equal values: the rounded n * x / n can miss x by an ulp */
	/* Shewchuk's grow-expansion: part[0..np-1] are non-overlapping, increasing in
	 * magnitude, and sum exactly to the values seen so far (at most one per value) */
	part = kvb_xmalloc((n + 1) * sizeof(*part));
	for (i = 0; i < n; i++) {
		double v = x[i];
		size_t k = 0;
		for (size_t j = 0; j < np; j++) {
			double y = part[j], t;
			if (fabs(v) < fabs(y)) {
				t = v;
				v = y;
				y = t;
			}
			double hi = v + y, lo = y - (hi - v); /* Fast-Two-Sum: hi + lo == v + y exactly */
			if (lo != 0)
				part[k++] = lo;
			v = hi;
		}
		part[k++] = v;
		np = k;
	}
	/* smallest first: an exact sum of 0 leaves only zero partials, so 0 exactly */
	for (i = 0; i < np; i++)
		sum += part[i];
	free(part);
	return sum / (double)n;
}

int kvb_stats_summary(const double *x, size_t n, struct kvb_summary *s, struct kvb_error *err)
{
	int rc = kvb_stats_check_sample("input", x, n, 1, err);
	double *sorted = NULL, inv = 0;
	if (rc)
		return rc;

	sorted = kvb_xmalloc(n * sizeof(*sorted));
	memcpy(sorted, x, n * sizeof(*sorted));
	gsl_sort(sorted, 1, n);

	s->n = n;
	s->mean = kvb_stats_mean(x, n);
	s->stdev = n >= 2 ? gsl_stats_sd_m(x, 1, n, s->mean) : NAN;
	s->cov_pct = n >= 2 && s->mean != 0 ? s->stdev / fabs(s->mean) * 100.0 : NAN;
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->median = gsl_stats_median_from_sorted_data(sorted, 1, n);
	s->p95 = gsl_stats_quantile_from_sorted_data(sorted, 1, n, 0.95);
	/* Harmonic mean only makes sense for positive rates; 1/x of a zero would be inf. */
	if (sorted[0] > 0) {
		for (size_t i = 0; i < n; i++)
			inv += 1.0 / x[i];
		s->hmean = (double)n / inv;
	} else {
		s->hmean = NAN;
	}

	free(sorted);
	return rc;
}

int kvb_stats_mean_ci(const double *x, size_t n, double level, double *mean, double *lo, double *hi)
{
	struct kvb_summary s;
	if (!n || kvb_stats_summary(x, n, &s, NULL))
		return 0;
	*mean = *lo = *hi = s.mean;
	if (n >= 2 && isfinite(s.stdev)) {
		double h = gsl_cdf_tdist_Pinv((1 + level) / 2, (double)(n - 1)) * s.stdev / sqrt((double)n);
		*lo = s.mean - h;
		*hi = s.mean + h;
	}
	return 1;
}
