/* Implements the naive two-sample comparison: Welch's t-test, Fieller's ratio CI (positive means), the change's CI. */
#include "stats/stats.h"
#include "core/error.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>

static int check_alpha(double alpha, struct kvb_error *err)
{
	if (!(alpha > 0 && alpha < 1))
		return kvb_error_set(err, KVB_EINPUT, "significance level '%g' is not between 0 and 1", alpha);
	return KVB_OK;
}

int kvb_stats_welch(const double *b, size_t nb, const double *v, size_t nv, double alpha, struct kvb_welch *w,
		    struct kvb_error *err)
{
	int rc = 0;
	if ((rc = kvb_stats_check_sample("baseline", b, nb, 2, err)) ||
	    (rc = kvb_stats_check_sample("variant", v, nv, 2, err)) || (rc = check_alpha(alpha, err)))
		return rc;

	double mb = kvb_stats_mean(b, nb), mv = kvb_stats_mean(v, nv);
	/* Squared standard errors of each mean. */
	double vb = gsl_stats_variance_m(b, 1, nb, mb) / (double)nb;
	double vv = gsl_stats_variance_m(v, 1, nv, mv) / (double)nv;
	double se2 = vb + vv, se = sqrt(se2);

	w->diff = mv - mb;
	if (se == 0) {
		/* Two constant samples: no spread to test against; the verdict is exact. */
		w->df = (double)(nb + nv - 2);
		w->t = w->diff == 0 ? 0 : copysign(INFINITY, w->diff);
		w->p = w->diff == 0 ? 1 : 0;
		w->ci_lo = w->ci_hi = w->diff;
		return rc;
	}
	w->t = w->diff / se;
	w->df = se2 * se2 / (vb * vb / (double)(nb - 1) + vv * vv / (double)(nv - 1));
	w->p = 2 * gsl_cdf_tdist_Q(fabs(w->t), w->df);
	if (w->p > 1)
		w->p = 1;
	double q = gsl_cdf_tdist_Pinv(1 - alpha / 2, w->df);
	w->ci_lo = w->diff - q * se;
	w->ci_hi = w->diff + q * se;
	return rc;
}

/*
 * Fieller's interval for mv/mb: roots of
 *   r^2 (mb^2 - q^2 vb) - 2 r mv mb + (mv^2 - q^2 vv) = 0
 * with vb, vv the squared standard errors and q the t quantile. Bounded only
 * when the leading coefficient is positive.
 */
static void fieller(double mb, double mv, double vb, double vv, double q, double *lo, double *hi)
{
	double a = mb * mb - q * q * vb;
	if (!(a > 0)) {
		*lo = *hi = NAN;
		return;
	}
	double disc = q * q * (vv * mb * mb + vb * mv * mv - q * q * vb * vv);
	double root = sqrt(disc > 0 ? disc : 0);
	*lo = (mv * mb - root) / a;
	*hi = (mv * mb + root) / a;
}

int kvb_stats_compare(const double *b, size_t nb, const double *v, size_t nv, double alpha, struct kvb_compare *c,
		      struct kvb_error *err)
{
	struct kvb_welch w;
	struct kvb_mannwhitney m;
	int rc = 0;

	if ((rc = kvb_stats_welch(b, nb, v, nv, alpha, &w, err)) || (rc = kvb_stats_mannwhitney(b, nb, v, nv, &m, err)))
		return rc;

	c->nb = nb;
	c->nv = nv;
	c->mean_b = kvb_stats_mean(b, nb);
	c->mean_v = kvb_stats_mean(v, nv);
	c->diff = w.diff;
	/* the relative change keeps the difference's sign: over |baseline|, never over a negative one */
	c->diff_pct = c->mean_b != 0 ? (c->mean_v - c->mean_b) / fabs(c->mean_b) * 100.0 : NAN;
	c->ratio_ok = c->mean_b > 0 && c->mean_v > 0;
	c->ratio = c->ratio_ok ? c->mean_v / c->mean_b : NAN;
	c->ratio_ci_lo = c->ratio_ci_hi = NAN;
	if (c->ratio_ok) {
		double vb = gsl_stats_variance_m(b, 1, nb, c->mean_b) / (double)nb;
		double vv = gsl_stats_variance_m(v, 1, nv, c->mean_v) / (double)nv;
		fieller(c->mean_b, c->mean_v, vb, vv, gsl_cdf_tdist_Pinv(1 - alpha / 2, w.df), &c->ratio_ci_lo,
			&c->ratio_ci_hi);
		c->rel_ci_lo = c->ratio_ci_lo - 1;
		c->rel_ci_hi = c->ratio_ci_hi - 1;
	} else if (c->mean_b != 0) {
		c->rel_ci_lo = w.ci_lo / fabs(c->mean_b);
		c->rel_ci_hi = w.ci_hi / fabs(c->mean_b);
	} else {
		c->rel_ci_lo = c->rel_ci_hi = NAN;
	}
	c->welch_t = w.t;
	c->welch_df = w.df;
	c->welch_p = w.p;
	c->ci_lo = w.ci_lo;
	c->ci_hi = w.ci_hi;
	c->mw_u = m.u;
	c->mw_p = m.p;
	c->mw_exact = m.exact;
	c->significant = w.p < alpha && m.p < alpha;
	return rc;
}
