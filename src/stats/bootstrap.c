/* Implements the two-level (boots, then runs) bootstrap of a ratio of means, Kalibera & Jones 2013. */
#include "stats/stats.h"
#include "stats/board.h"
#include "core/error.h"
#include "core/util.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>

/* One side (baseline or variant) with its runs regrouped so each boot is contiguous. */
struct side {
	double *val;  /* n run values, grouped by boot */
	size_t *start; /* nboots offsets into val */
	size_t *len;   /* nboots run counts */
	size_t n, nboots;
	double *mean;  /* nboots boot means */
	double *se;    /* nboots: sd of a resampled boot mean, sqrt(plug-in variance / len) */
	double grand, grand_sd; /* run-weighted mean; sd of the side's resampled mean (many boots) */
	size_t *slo, *slen; /* per boot: its board's boots [slo, slo + slen) (stats/board.h) */
};

struct id_at {
	int64_t board, id;
	size_t i;
};

static int cmp_id_at(const void *pa, const void *pb)
{
	const struct id_at *a = pa, *b = pb;
	if (a->board != b->board)
		return a->board < b->board ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static void side_init(struct side *s, const double *x, const int *boot, const int *board, size_t n)
{
	struct id_at *t = kvb_xmalloc((n ? n : 1) * sizeof(*t));
	int *board_of_boot = kvb_xmalloc((n + 1) * sizeof(int));
	for (size_t i = 0; i < n; i++)
		t[i] = (struct id_at){ board ? board[i] : 0, boot[i], i };
	qsort(t, n, sizeof(*t), cmp_id_at);

	s->n = n;
	s->val = kvb_xmalloc(n * sizeof(double));
	s->start = kvb_xmalloc(n * sizeof(size_t));
	s->len = kvb_xmalloc(n * sizeof(size_t));
	s->nboots = 0;
	for (size_t i = 0; i < n; i++) {
		s->val[i] = x[t[i].i];
		if (i == 0 || t[i].id != t[i - 1].id || t[i].board != t[i - 1].board) {
			board_of_boot[s->nboots] = (int)t[i].board;
			s->start[s->nboots] = i;
			s->len[s->nboots++] = 0;
		}
		s->len[s->nboots - 1]++;
	}
	s->slo = kvb_xmalloc((s->nboots + 1) * sizeof(size_t));
	s->slen = kvb_xmalloc((s->nboots + 1) * sizeof(size_t));
	kvb_stats_board_strata(board_of_boot, s->nboots, s->slo, s->slen);
	free(board_of_boot);
	free(t);
	s->mean = kvb_xmalloc((s->nboots ? s->nboots : 1) * sizeof(double));
	s->se = kvb_xmalloc((s->nboots ? s->nboots : 1) * sizeof(double));
	for (size_t k = 0; k < s->nboots; k++) {
		const double *x = s->val + s->start[k];
		s->mean[k] = gsl_stats_mean(x, 1, s->len[k]);
		/* plug-in (divide by n) variance: the variance of the empirical distribution resampled from */
		double var = s->len[k] >= 2 ? gsl_stats_variance_m(x, 1, s->len[k], s->mean[k]) *
						      (double)(s->len[k] - 1) / (double)s->len[k]
					    : 0;
		s->se[k] = sqrt(var / (double)s->len[k]);
	}
	s->grand = n ? gsl_stats_mean(s->val, 1, n) : 0;
	double acc = 0;
	for (size_t k = 0; k < s->nboots; k++) {
		double L = (double)s->len[k], d = s->mean[k] - s->grand;
		acc += L * L * (d * d + s->se[k] * s->se[k]); /* se_k^2 = pvar_k / L_k */
	}
	s->grand_sd = n ? sqrt(acc) / (double)n : 0;
}

static void side_release(struct side *s)
{
	free(s->mean);
	free(s->se);
	free(s->val);
	free(s->start);
	free(s->len);
	free(s->slo);
	free(s->slen);
}

/* Mean of each boot's runs, into means[0..nboots-1]. */
static void side_boot_means(const struct side *s, double *means)
{
	for (size_t k = 0; k < s->nboots; k++)
		means[k] = gsl_stats_mean(s->val + s->start[k], 1, s->len[k]);
}

/* Pooled within-boot sd and sd of the boot means (NAN where undefined). */
static void side_spread(const struct side *s, const double *means, double *within, double *between)
{
	double ss = 0, dof = 0;
	for (size_t k = 0; k < s->nboots; k++) {
		const double *x = s->val + s->start[k];
		if (s->len[k] >= 2) {
			ss += (double)(s->len[k] - 1) * gsl_stats_variance_m(x, 1, s->len[k], means[k]);
			dof += (double)(s->len[k] - 1);
		}
	}
	*within = dof > 0 ? sqrt(ss / dof) : NAN;
	*between = s->nboots >= 2 ? gsl_stats_sd(means, 1, s->nboots) : NAN;
}

/*
 * Mean of one two-level resample: nboots boots with replacement, then each
 * boot's runs with replacement. A boot with more than KVB_STATS_BOOT_RUNS_EXACT
 * runs does not draw them one by one: the mean of len draws with replacement
 * from its runs has mean m_k and variance (plug-in variance)/len, and by the
 * central limit theorem is close to normal at that size, so it is drawn as
 * m_k + se_k * Z (Z from gsl_ran_gaussian_ziggurat). That makes a resample cost
 * O(boots), not O(runs) (issue 14: 97 % of `diff` time on 25,000 runs a side).
 */
static double side_resample_mean(const struct side *s, gsl_rng *rng)
{
	double sum = 0;
	size_t cnt = 0;
	if (s->nboots > KVB_STATS_BOOTS_EXACT)
		return s->grand + s->grand_sd * gsl_ran_gaussian_ziggurat(rng, 1.0);
	for (size_t k = 0; k < s->nboots; k++) {
		size_t g = kvb_stats_board_draw(rng, s->slo[k], s->slen[k]);
		const double *x = s->val + s->start[g];
		if (s->len[g] > KVB_STATS_BOOT_RUNS_EXACT) {
			sum += (double)s->len[g] * (s->mean[g] + s->se[g] * gsl_ran_gaussian_ziggurat(rng, 1.0));
		} else {
			for (size_t r = 0; r < s->len[g]; r++)
				sum += x[gsl_rng_uniform_int(rng, s->len[g])];
		}
		cnt += s->len[g];
	}
	return sum / (double)cnt;
}

static int check_boots(const char *what, const int *boot, size_t n, struct kvb_error *err)
{
	if (n > 0 && !boot)
		return kvb_error_set(err, KVB_EINPUT, "%s sample has no boot ids", what);
	return KVB_OK;
}

int kvb_stats_hier_bootstrap(const double *b, const int *b_boot, size_t nb, const double *v, const int *v_boot,
			     size_t nv, unsigned resamples, unsigned long seed, double alpha, struct kvb_boot_cmp *r,
			     struct kvb_error *err)
{
	return kvb_stats_hier_bootstrap_boards(b, b_boot, NULL, nb, v, v_boot, NULL, nv, resamples, seed, alpha, r, err);
}

int kvb_stats_hier_bootstrap_boards(const double *b, const int *b_boot, const int *b_board, size_t nb, const double *v,
				    const int *v_boot, const int *v_board, size_t nv, unsigned resamples,
				    unsigned long seed, double alpha, struct kvb_boot_cmp *r, struct kvb_error *err)
{
	int rc = 0;
	struct side sb = { 0 }, sv = { 0 };
	gsl_rng *rng = NULL;
	double *ratios = NULL, *means_b = NULL, *means_v = NULL;

	if ((rc = kvb_stats_check_sample("baseline", b, nb, 1, err)) || (rc = check_boots("baseline", b_boot, nb, err)) ||
	    (rc = kvb_stats_check_sample("variant", v, nv, 1, err)) || (rc = check_boots("variant", v_boot, nv, err)))
		return rc;
	if (!(alpha > 0 && alpha < 1))
		return kvb_error_set(err, KVB_EINPUT, "significance level '%g' is not between 0 and 1", alpha);
	double mb = gsl_stats_mean(b, 1, nb), mv = gsl_stats_mean(v, 1, nv);
	if (mb == 0)
		return kvb_error_set(err, KVB_EINPUT, "baseline mean is 0: ratio undefined");
	if (!resamples)
		resamples = KVB_STATS_RESAMPLES;

	side_init(&sb, b, b_boot, b_board, nb);
	side_init(&sv, v, v_boot, v_board, nv);
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng) {
		rc = kvb_error_set(err, KVB_EINPUT, "cannot allocate random number generator");
		goto out;
	}
	gsl_rng_set(rng, seed);
	ratios = kvb_xmalloc(resamples * sizeof(double));
	for (unsigned i = 0; i < resamples; i++) {
		double rb = side_resample_mean(&sb, rng), rv = side_resample_mean(&sv, rng);
		if (rb == 0) {
			rc = kvb_error_set(err, KVB_EINPUT, "a bootstrap resample has baseline mean 0: ratio undefined");
			goto out;
		}
		ratios[i] = rv / rb;
	}
	gsl_sort(ratios, 1, resamples);

	r->ratio = mv / mb;
	r->ci_lo = gsl_stats_quantile_from_sorted_data(ratios, 1, resamples, alpha / 2);
	r->ci_hi = gsl_stats_quantile_from_sorted_data(ratios, 1, resamples, 1 - alpha / 2);
	r->significant = r->ci_lo > 1 || r->ci_hi < 1;
	r->boots_b = sb.nboots;
	r->boots_v = sv.nboots;
	r->resamples = resamples;
	means_b = kvb_xmalloc(sb.nboots * sizeof(double));
	means_v = kvb_xmalloc(sv.nboots * sizeof(double));
	side_boot_means(&sb, means_b);
	side_boot_means(&sv, means_v);
	side_spread(&sb, means_b, &r->within_sd_b, &r->between_sd_b);
	side_spread(&sv, means_v, &r->within_sd_v, &r->between_sd_v);
	r->boot_welch_t = r->boot_welch_df = r->boot_welch_p = NAN;
	r->boot_ratio_ci_lo = r->boot_ratio_ci_hi = NAN;
	if (sb.nboots >= 2 && sv.nboots >= 2) {
		struct kvb_compare c;
		if ((rc = kvb_stats_compare(means_b, sb.nboots, means_v, sv.nboots, alpha, &c, err)))
			goto out;
		r->boot_welch_t = c.welch_t;
		r->boot_welch_df = c.welch_df;
		r->boot_welch_p = c.welch_p;
		r->boot_ratio_ci_lo = c.ratio_ci_lo;
		r->boot_ratio_ci_hi = c.ratio_ci_hi;
	}

out:
	free(ratios);
	free(means_b);
	free(means_v);
	if (rng)
		gsl_rng_free(rng);
	side_release(&sb);
	side_release(&sv);
	return rc;
}

size_t kvb_stats_dense_ids(const int64_t *ids, size_t n, int *out)
{
	struct id_at *t = kvb_xmalloc((n ? n : 1) * sizeof(*t));
	size_t *first = kvb_xmalloc((n ? n : 1) * sizeof(*first)), ng = 0;
	int *rank;
	for (size_t i = 0; i < n; i++)
		t[i] = (struct id_at){ 0, ids[i], i };
	qsort(t, n, sizeof(*t), cmp_id_at);
	/* group g (in id order) first appears at index first[g]; rank groups by that */
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || t[i].id != t[i - 1].id)
			first[ng++] = t[i].i;
		out[t[i].i] = (int)(ng - 1);
	}
	struct id_at *order = kvb_xmalloc((ng ? ng : 1) * sizeof(*order));
	for (size_t g = 0; g < ng; g++)
		order[g] = (struct id_at){ 0, (int64_t)first[g], g };
	qsort(order, ng, sizeof(*order), cmp_id_at);
	rank = kvb_xmalloc((ng ? ng : 1) * sizeof(*rank));
	for (size_t r = 0; r < ng; r++)
		rank[order[r].i] = (int)r;
	for (size_t i = 0; i < n; i++)
		out[i] = rank[out[i]];
	free(t);
	free(first);
	free(order);
	free(rank);
	return ng;
}
