/*
 * Change points in a series of commits: E-Divisive (Matteson & James 2014,
 * "A Nonparametric Approach for Multiple Change Point Analysis of
 * Multivariate Data", JASA 109(505):334-345), the divergence-based
 * hierarchical method behind R's ecp::e.divisive and MongoDB's signal
 * processing of performance CI.
 *
 * Observations z_1..z_T are ordered by commit; grp[i] (non-decreasing) is the
 * commit of z_i. For a segment and a split tau (X = the part before, Y = the
 * part after, sizes n and m):
 *   e(X, Y) = 2/(nm) sum_ij |X_i - Y_j|^a - 1/C(n,2) sum_{i<k} |X_i - X_k|^a
 *             - 1/C(m,2) sum_{j<k} |Y_j - Y_k|^a
 *   Q(tau)  = nm / (n + m) * e(X, Y)            (the paper's eq. 6, 0 < a < 2)
 * The estimate is the tau maximising Q; the next change point is the best
 * split over all current segments (hierarchical bisection, section 3.1); each
 * is tested with the paper's permutation test (section 3.2): the observations
 * of every segment are permuted within the segment R times, p = (1 + #{perm
 * max Q >= observed}) / (R + 1); splitting stops at the first p > p0.
 *
 * Our adaptations, stated: splits are only allowed between commits (a commit's
 * samples stay together), the paper's second end point kappa is the segment's
 * end (as ecp's default), every part needs >= min_size observations, and the
 * permutations come from gsl_rng_mt19937 seeded with `seed` (reproducible).
 * Callers pass one observation per (commit, boot) so that boots are the unit
 * (docs/design.md#statistics): runs inside one boot are not independent.
 */
#ifndef KVB_CHANGEPOINT_H
#define KVB_CHANGEPOINT_H

#include "core/error.h"

#include <stddef.h>

struct kvb_cp_opts {
	double exponent;      /* a in (0, 2); default 1 */
	unsigned permutations;/* R; default 199 */
	double p0;            /* significance level; default 0.05 */
	size_t min_size;      /* observations on each side of a split; default 2 */
	unsigned long seed;   /* default 1 */
	size_t max_points;    /* stop after this many change points; default 8 */
};

struct kvb_cp {
	size_t group;         /* first commit (grp value) of the new segment */
	size_t index;         /* first observation of the new segment */
	double q;             /* Q of the split */
	double p;             /* permutation p-value */
};

/*
 * Finds the significant change points of x[0..n) (grp as above). out gets
 * them in order of discovery (most prominent first), *nout their count
 * (array owned by the caller, sized >= max_points). Errors (KVB_EINPUT): n
 * < 2 * min_size, grp decreasing, a non-finite value, exponent outside (0, 2).
 */
int kvb_changepoints(const double *x, const size_t *grp, size_t n, const struct kvb_cp_opts *opts,
		     struct kvb_cp *out, size_t *nout, struct kvb_error *err);

#endif
