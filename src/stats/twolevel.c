/* Implements the two-level experiment plan of Kalibera & Jones 2013: variance components, runs per boot, boots. */
#include "stats/verdict.h"
#include "stats/stats.h"
#include "core/error.h"
#include "core/util.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>

int kvb_twolevel_components(const double *x, const int *boot, size_t n, double boot_cost_s, double run_cost_s,
			struct kvb_twolevel *p, struct kvb_error *err)
{
	int rc;
	if ((rc = kvb_stats_check_sample("sample", x, n, 2, err)))
		return rc;
	if (!boot)
		return kvb_error_set(err, KVB_EINPUT, "sample has no boot ids");
	/* boot ids -> dense index */
	int64_t *ids = kvb_xmalloc(n * sizeof(*ids));
	int *dense = kvb_xmalloc(n * sizeof(int));
	for (size_t i = 0; i < n; i++)
		ids[i] = boot[i];
	size_t nb = kvb_stats_dense_ids(ids, n, dense);
	double *sum = kvb_xcalloc(n, sizeof(double)), *ss = kvb_xcalloc(n, sizeof(double));
	size_t *cnt = kvb_xcalloc(n, sizeof(size_t)), *which = kvb_xmalloc(n * sizeof(size_t));
	for (size_t i = 0; i < n; i++) {
		size_t k = (size_t)dense[i];
		which[i] = k;
		sum[k] += x[i];
		cnt[k]++;
	}
	double *means = kvb_xmalloc(nb * sizeof(double)), within = 0, dof = 0;
	for (size_t k = 0; k < nb; k++)
		means[k] = sum[k] / (double)cnt[k];
	for (size_t i = 0; i < n; i++) {
		double d = x[i] - means[which[i]];
		ss[which[i]] += d * d;
	}
	for (size_t k = 0; k < nb; k++)
		if (cnt[k] >= 2) {
			within += ss[k];
			dof += (double)(cnt[k] - 1);
		}
	if (nb < 2 || dof == 0) {
		rc = kvb_error_set(err, KVB_EINPUT,
				   "need >= 2 boots and a boot with >= 2 runs to split the variance (have %zu boot%s)", nb,
				   nb == 1 ? "" : "s");
		goto out;
	}
	p->n = n;
	p->boots = nb;
	p->mean = gsl_stats_mean(x, 1, n);
	p->runs_per_boot_now = (double)n / (double)nb;
	p->s_run2 = within / dof;
	p->s_boot2 = gsl_stats_variance(means, 1, nb);
	p->t_boot2 = fmax(0, p->s_boot2 - p->s_run2 / p->runs_per_boot_now);
	p->boot_cost_s = boot_cost_s;
	p->run_cost_s = run_cost_s;
	if (p->t_boot2 > 0 && run_cost_s > 0 && boot_cost_s >= 0)
		p->runs_per_boot = fmax(1, ceil(sqrt(boot_cost_s / run_cost_s * p->s_run2 / p->t_boot2)));
	else
		p->runs_per_boot = NAN;
out:
	free(ids);
	free(dense);
	free(sum);
	free(ss);
	free(cnt);
	free(which);
	free(means);
	return rc;
}

unsigned kvb_twolevel_boots(const struct kvb_twolevel *p, double runs, double detect, double alpha, double power)
{
	double var = p->t_boot2 + p->s_run2 / (runs >= 1 ? runs : 1), effect = detect * p->mean;
	if (!(var > 0))
		return 2;
	if (!(effect != 0))
		return 0;
	for (unsigned k = 2; k <= 10000; k++) {
		double df = 2.0 * k - 2, q = gsl_cdf_tdist_Pinv(1 - alpha / 2, df) + gsl_cdf_tdist_Pinv(power, df);
		if (q * q * 2 * var / k <= effect * effect)
			return k;
	}
	return 0;
}
