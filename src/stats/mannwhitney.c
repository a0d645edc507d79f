/* Implements the two-sided Mann-Whitney U test: midranks, exact null distribution by counting, normal approximation. */
#include "stats/stats.h"
#include "core/error.h"
#include "core/util.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Number of orderings of nv variant and nb baseline values (no ties) giving
 * each U of the variant: out[u] for u = 0 .. nv*nb. f(i,j,u) = f(i-1,j,u-j) +
 * f(i,j-1,u): the largest value is a variant one (it beats all j baseline
 * values) or a baseline one (it adds nothing). Counts stay below
 * C(2*KVB_STATS_MW_EXACT_MAX, KVB_STATS_MW_EXACT_MAX) ~ 1.4e11, exact in a double.
 */
static void exact_counts(size_t nv, size_t nb, double *out)
{
	size_t w = nv * nb + 1;
	double *prev = kvb_xcalloc((nb + 1) * w, sizeof(double));
	double *cur = kvb_xcalloc((nb + 1) * w, sizeof(double));

	for (size_t j = 0; j <= nb; j++)
		cur[j * w] = 1; /* i = 0: only u = 0 */
	for (size_t i = 1; i <= nv; i++) {
		double *t = prev;
		prev = cur;
		cur = t;
		memset(cur, 0, (nb + 1) * w * sizeof(double));
		cur[0] = 1; /* j = 0: only u = 0 */
		for (size_t j = 1; j <= nb; j++)
			for (size_t u = 0; u <= i * j; u++)
				cur[j * w + u] = (u >= j ? prev[j * w + u - j] : 0) + cur[(j - 1) * w + u];
	}
	memcpy(out, cur + nb * w, w * sizeof(double));
	free(prev);
	free(cur);
}

static double exact_p(size_t nv, size_t nb, double u)
{
	size_t w = nv * nb + 1, k = (size_t)u;
	double *f = kvb_xmalloc(w * sizeof(double));
	double total = 0, le = 0, ge = 0, p;

	exact_counts(nv, nb, f);
	for (size_t i = 0; i < w; i++) {
		total += f[i];
		if (i <= k)
			le += f[i];
		if (i >= k)
			ge += f[i];
	}
	free(f);
	p = 2 * (le < ge ? le : ge) / total;
	return p > 1 ? 1 : p;
}

int kvb_stats_mannwhitney(const double *b, size_t nb, const double *v, size_t nv, struct kvb_mannwhitney *m,
			  struct kvb_error *err)
{
	int rc = 0;
	if ((rc = kvb_stats_check_sample("baseline", b, nb, 1, err)) ||
	    (rc = kvb_stats_check_sample("variant", v, nv, 1, err)))
		return rc;

	size_t n = nb + nv;
	double *all = kvb_xmalloc(n * sizeof(double));
	size_t *idx = kvb_xmalloc(n * sizeof(size_t));
	double rank_v = 0, tie_sum = 0;

	memcpy(all, b, nb * sizeof(double));
	memcpy(all + nb, v, nv * sizeof(double));
	gsl_sort_index(idx, all, 1, n);
	/* Walk runs of equal values; positions i..j-1 share the midrank (i+1 + j)/2. */
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && all[idx[j]] == all[idx[i]]; j++)
			;
		double midrank = (double)(i + 1 + j) / 2, t = (double)(j - i);
		for (size_t k = i; k < j; k++)
			if (idx[k] >= nb)
				rank_v += midrank;
		tie_sum += t * t * t - t;
	}
	free(all);
	free(idx);

	double dnb = (double)nb, dnv = (double)nv, dn = (double)n;
	m->u = rank_v - dnv * (dnv + 1) / 2;
	m->exact = nb <= KVB_STATS_MW_EXACT_MAX && nv <= KVB_STATS_MW_EXACT_MAX && tie_sum == 0;
	if (m->exact) {
		m->p = exact_p(nv, nb, m->u);
		return rc;
	}
	double mu = dnb * dnv / 2;
	double var = dnb * dnv / 12 * ((dn + 1) - tie_sum / (dn * (dn - 1)));
	if (!(var > 0)) {
		m->p = 1; /* every value tied: no evidence either way */
		return rc;
	}
	double z = (fabs(m->u - mu) - 0.5) / sqrt(var);
	m->p = z > 0 ? 2 * gsl_cdf_ugaussian_Q(z) : 1;
	if (m->p > 1)
		m->p = 1;
	return rc;
}
