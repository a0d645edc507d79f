/* Implements the paired comparison of duet runs (stats.h kvb_stats_paired). */
#include "stats/stats.h"
#include "core/error.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <string.h>

int kvb_stats_paired(const double *b, const double *v, size_t n, double alpha, struct kvb_paired *out,
		     struct kvb_error *err)
{
	double sd = 0, ss = 0, se, q;
	memset(out, 0, sizeof(*out));
	if (n < 2)
		return kvb_error_set(err, KVB_EINPUT, "a paired comparison needs 2 pairs or more (%zu)", n);
	if (!(alpha > 0 && alpha < 1))
		return kvb_error_set(err, KVB_EINPUT, "alpha %g is not in (0, 1)", alpha);
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(b[i]) || !isfinite(v[i]))
			return kvb_error_set(err, KVB_EINPUT, "pair %zu is not finite", i + 1);
		sd += v[i] - b[i];
	}
	out->n = n;
	out->mean_b = kvb_stats_mean(b, n); /* exact data stays exact (a baseline of 0 is 0) */
	out->mean_v = kvb_stats_mean(v, n);
	out->diff = sd / (double)n;
	for (size_t i = 0; i < n; i++) {
		double e = (v[i] - b[i]) - out->diff;
		ss += e * e;
	}
	out->sd = sqrt(ss / (double)(n - 1));
	se = out->sd / sqrt((double)n);
	q = gsl_cdf_tdist_Pinv(1 - alpha / 2, (double)(n - 1));
	out->ci_lo = out->diff - q * se;
	out->ci_hi = out->diff + q * se;
	if (se > 0) {
		out->t = out->diff / se;
		out->p = 2 * gsl_cdf_tdist_Q(fabs(out->t), (double)(n - 1));
	} else {
		out->t = out->diff == 0 ? 0 : copysign(INFINITY, out->diff);
		out->p = out->diff == 0 ? 1 : 0;
	}
	out->significant = out->p < alpha;
	if (out->mean_b != 0) {
		double m = fabs(out->mean_b);
		out->rel = out->diff / m;
		out->rel_ci_lo = out->ci_lo / m;
		out->rel_ci_hi = out->ci_hi / m;
	} else {
		out->rel = out->rel_ci_lo = out->rel_ci_hi = NAN;
	}
	return KVB_OK;
}
