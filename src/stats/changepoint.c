/* Implements E-Divisive change-point detection (Matteson & James 2014) over commit-ordered observations. */
#include "stats/changepoint.h"
#include "core/util.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct seg {
	size_t lo, hi; /* [lo, hi) */
};

/* |x_i - x_j|^a for the segment's current order (x permuted in place by the test). */
static double dist(const double *x, size_t i, size_t j, double a)
{
	double d = fabs(x[i] - x[j]);
	return a == 1.0 ? d : pow(d, a);
}

/*
 * Best split of [lo, hi) at a commit boundary: returns Q (or -INFINITY when
 * none is allowed) and the split index in *tau. Boundaries are taken from grp
 * (fixed positions: a permutation moves values, not commit labels).
 */
static double best_split(const double *x, const size_t *grp, size_t lo, size_t hi, double a, size_t min_size,
			 size_t *tau)
{
	double best = -INFINITY;
	size_t len = hi - lo;
	/* within sums of prefixes and suffixes, and the cross sum, by O(len^2) incremental updates */
	double *wpre = kvb_xcalloc(len + 1, sizeof(double)), *wsuf = kvb_xcalloc(len + 1, sizeof(double));
	for (size_t k = 1; k <= len; k++) {
		double s = 0;
		for (size_t i = 0; i + 1 < k; i++)
			s += dist(x, lo + i, lo + k - 1, a);
		wpre[k] = wpre[k - 1] + s; /* sum over pairs inside the first k */
	}
	for (size_t k = 1; k <= len; k++) {
		double s = 0;
		size_t first = len - k; /* suffix [first, len) */
		for (size_t j = first + 1; j < len; j++)
			s += dist(x, lo + first, lo + j, a);
		wsuf[k] = wsuf[k - 1] + s; /* sum over pairs inside the last k */
	}
	for (size_t t = min_size; t + min_size <= len; t++) {
		size_t n = t, m = len - t;
		double cross, e, q;
		if (grp[lo + t] == grp[lo + t - 1])
			continue; /* inside one commit */
		/* all pairs = within X + within Y + cross */
		cross = wpre[len] - wpre[n] - wsuf[m];
		e = 2.0 * cross / ((double)n * (double)m) - wpre[n] / ((double)n * (double)(n - 1) / 2.0) -
		    wsuf[m] / ((double)m * (double)(m - 1) / 2.0);
		q = (double)n * (double)m / (double)(n + m) * e;
		if (q > best) {
			best = q;
			*tau = lo + t;
		}
	}
	free(wpre);
	free(wsuf);
	return best;
}

/* The best split over all segments; *which gets the segment. */
static double best_over(const double *x, const size_t *grp, const struct seg *segs, size_t nseg, double a,
			size_t min_size, size_t *which, size_t *tau)
{
	double best = -INFINITY;
	for (size_t s = 0; s < nseg; s++) {
		size_t t = 0;
		double q = best_split(x, grp, segs[s].lo, segs[s].hi, a, min_size, &t);
		if (q > best) {
			best = q;
			*which = s;
			*tau = t;
		}
	}
	return best;
}

int kvb_changepoints(const double *x, const size_t *grp, size_t n, const struct kvb_cp_opts *opts,
		     struct kvb_cp *out, size_t *nout, struct kvb_error *err)
{
	struct kvb_cp_opts o = { 1.0, 199, 0.05, 2, 1, 8 };
	struct seg *segs;
	double *perm;
	gsl_rng *rng;
	size_t nseg = 1;
	int rc = KVB_OK;

	if (opts) {
		o = *opts;
		if (o.exponent == 0)
			o.exponent = 1.0;
		if (!o.permutations)
			o.permutations = 199;
		if (o.p0 <= 0)
			o.p0 = 0.05;
		if (!o.min_size)
			o.min_size = 2;
		if (!o.max_points)
			o.max_points = 8;
	}
	*nout = 0;
	if (!(o.exponent > 0 && o.exponent < 2))
		return kvb_error_set(err, KVB_EINPUT, "e-divisive: exponent %g outside (0, 2)", o.exponent);
	if (o.min_size < 2)
		o.min_size = 2; /* the within-sample term needs two observations */
	if (n < 2 * o.min_size)
		return kvb_error_set(err, KVB_EINPUT, "e-divisive: %zu observations, need at least %zu", n, 2 * o.min_size);
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return kvb_error_set(err, KVB_EINPUT, "e-divisive: observation %zu is not a finite number", i);
		if (i && grp[i] < grp[i - 1])
			return kvb_error_set(err, KVB_EINPUT, "e-divisive: observations are not ordered by commit (%zu)", i);
	}
	segs = kvb_xcalloc(o.max_points + 2, sizeof(*segs));
	segs[0].lo = 0;
	segs[0].hi = n;
	perm = kvb_xmalloc(n * sizeof(double));
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, o.seed);
	while (*nout < o.max_points) {
		size_t which = 0, tau = 0, ge = 0;
		double q = best_over(x, grp, segs, nseg, o.exponent, o.min_size, &which, &tau);
		if (!isfinite(q))
			break;
		for (unsigned r = 0; r < o.permutations; r++) {
			size_t w2, t2;
			memcpy(perm, x, n * sizeof(double));
			for (size_t s = 0; s < nseg; s++)
				gsl_ran_shuffle(rng, perm + segs[s].lo, segs[s].hi - segs[s].lo, sizeof(double));
			if (best_over(perm, grp, segs, nseg, o.exponent, o.min_size, &w2, &t2) >= q)
				ge++;
		}
		double p = (double)(ge + 1) / (double)(o.permutations + 1);
		if (p > o.p0)
			break;
		out[*nout].group = grp[tau];
		out[*nout].index = tau;
		out[*nout].q = q;
		out[*nout].p = p;
		(*nout)++;
		/* split segment `which` at tau */
		memmove(&segs[which + 2], &segs[which + 1], (nseg - which - 1) * sizeof(*segs));
		segs[which + 1].lo = tau;
		segs[which + 1].hi = segs[which].hi;
		segs[which].hi = tau;
		nseg++;
	}
	gsl_rng_free(rng);
	free(perm);
	free(segs);
	return rc;
}
