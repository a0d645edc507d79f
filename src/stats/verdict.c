/* Implements the three-way verdict, Cliff's delta and O'Brien-Fleming alpha spending (see verdict.h). */
#include "stats/verdict.h"
#include "stats/stats.h"
#include "core/error.h"

#include <gsl/gsl_cdf.h>
#include <math.h>

double kvb_stats_cliffs_delta(double u, size_t nb, size_t nv)
{
	if (!nb || !nv || isnan(u))
		return NAN;
	return 2.0 * u / ((double)nb * (double)nv) - 1.0;
}

const char *kvb_stats_cliffs_label(double delta)
{
	double a = fabs(delta);
	if (isnan(delta))
		return "-";
	return a < 0.15 ? "negligible" : a < 0.33 ? "small" : a < 0.47 ? "medium" : "large";
}

static double boots_at(double k, double h, double target)
{
	return target > 0 ? k * (h / target) * (h / target) : INFINITY;
}

void kvb_verdict_judge(const struct kvb_verdict_in *in, struct kvb_verdict *out)
{
	int ci = isfinite(in->ci_lo) && isfinite(in->ci_hi);
	out->boots_needed = NAN;
	out->why = NULL;
	if (in->significant && (in->diff > 0 || in->diff < 0)) {
		/* the direction is the difference's sign: up is worse when lower is better */
		int up = in->diff > 0;
		if (in->lower_is_better < 0)
			out->kind = KVB_VERDICT_CHANGED;
		else
			out->kind = up == (in->lower_is_better != 0) ? KVB_VERDICT_WORSE : KVB_VERDICT_BETTER;
	} else if (!in->significant &&
		   (in->diff_ci_zero || (ci && in->ci_lo >= -in->margin && in->ci_hi <= in->margin))) {
		/* an exact [0, 0] difference is inside any margin, a baseline of 0 included */
		out->kind = KVB_VERDICT_SAME;
	} else {
		out->kind = KVB_VERDICT_UNDECIDED;
		if (!ci)
			out->why = in->no_ci ? in->no_ci : KVB_WHY_NO_CI;
		if (in->boots >= 2 && isfinite(in->ci_lo) && isfinite(in->ci_hi) && isfinite(in->change)) {
			double h = (in->ci_hi - in->ci_lo) / 2, d = fabs(in->change), k = (double)in->boots;
			double need = fmin(boots_at(k, h, d), boots_at(k, h, in->margin - d));
			if (isfinite(need) && need < 1e6)
				out->boots_needed = fmax(ceil(need), k + 1);
		}
	}
	switch (out->kind) {
	case KVB_VERDICT_BETTER: out->name = "better"; break;
	case KVB_VERDICT_WORSE: out->name = "worse"; break;
	case KVB_VERDICT_CHANGED: out->name = "changed"; break;
	case KVB_VERDICT_SAME: out->name = "same"; break;
	case KVB_VERDICT_UNDECIDED: out->name = "undecided"; break;
	default: out->name = ""; break;
	}
}

double kvb_alpha_spent_obf(double alpha, double t)
{
	if (!(t > 0))
		return 0;
	if (t >= 1)
		return alpha;
	double z = gsl_cdf_ugaussian_Qinv(alpha / 2);
	return 2 * gsl_cdf_ugaussian_Q(z / sqrt(t));
}

double kvb_alpha_look(double alpha, unsigned k, unsigned K)
{
	if (!K || !k || k > K)
		return 0;
	return kvb_alpha_spent_obf(alpha, (double)k / K) - kvb_alpha_spent_obf(alpha, (double)(k - 1) / K);
}

int kvb_seq_judge(const double *mb, size_t kb, const double *mv, size_t kv, double nominal, double margin,
		  int lower_is_better, struct kvb_verdict *out, struct kvb_error *err)
{
	struct kvb_compare c;
	int rc = kvb_stats_compare(mb, kb, mv, kv, nominal, &c, err);
	if (rc)
		return rc;
	struct kvb_verdict_in in = { .significant = c.welch_p < nominal, .diff = c.diff, .change = c.diff_pct / 100,
				     .ci_lo = c.rel_ci_lo, .ci_hi = c.rel_ci_hi, .boots = kb < kv ? kb : kv,
				     .margin = margin, .lower_is_better = lower_is_better,
				     .diff_ci_zero = c.ci_lo == 0 && c.ci_hi == 0,
				     .no_ci = c.mean_b == 0 ? KVB_WHY_ZERO_BASE : KVB_WHY_UNBOUNDED };
	kvb_verdict_judge(&in, out);
	return KVB_OK;
}
