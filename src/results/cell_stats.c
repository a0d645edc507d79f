/* Implements a cell's statistics and its comparison with the baseline cell (cell_stats.h). */
#include "results/cell_stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const kvb_stat_names[] = { "mean", "median", "max", "min", "p95", NULL };

enum kvb_err kvb_stat_parse(const char *s, enum kvb_stat *out)
{
	for (int i = 0; kvb_stat_names[i]; i++)
		if (!strcmp(s, kvb_stat_names[i])) {
			*out = (enum kvb_stat)i;
			return KVB_OK;
		}
	return KVB_EINPUT;
}

const char *kvb_stat_name(enum kvb_stat s)
{
	return kvb_stat_names[s];
}

static double pick(const struct kvb_summary *s, enum kvb_stat st)
{
	switch (st) {
	case KVB_STAT_MEDIAN: return s->median;
	case KVB_STAT_MAX: return s->max;
	case KVB_STAT_MIN: return s->min;
	case KVB_STAT_P95: return s->p95;
	default: return s->mean;
	}
}

/* Maps int64 boot ids to small ints for the bootstrap; returns the number of distinct boots. */
static size_t boot_ids(const struct kvb_cell *c, int *ids)
{
	return kvb_stats_dense_ids(c->boot, c->n, ids);
}

/*
 * An undecided cell of a metric the tool prints in steps of g->resolution (perf bench's "Total
 * time: 0.230 [sec]") that its steps, not its boots, leave undecided: the change is within
 * KVB_COARSE_STEPS steps and one step is a quarter of the "same" margin or more (the values
 * dither between a few steps of the margin: perf's 0.297 s at 0.34 % a step), or one step is half
 * the margin or more and the change is within KVB_COARSE_STEPS steps of the margin (the steps
 * cannot show a CI within it). A change of many steps still asks for boots, and so does one under
 * a step when the step is a small share of the margin (hackbench's 1 ms of a 1 s run, 0.1 %:
 * "same" needs boots there, not finer steps, 2026-12-07):
 * out->coarse says so, with the step as a share of the baseline and the finer sibling (issue 39:
 * total_time read "undecided" beside its decided usecs_per_op).
 */
#define KVB_COARSE_STEPS 2
static void kvb_cell_coarse(const struct kvb_group *g, struct kvb_cell_stats *out)
{
	double base = out->value - out->diff, step, margin = g->margin > 0 ? g->margin : KVB_VERDICT_MARGIN;
	out->coarse[0] = '\0';
	if (!(g->resolution > 0) || out->v3.kind != KVB_VERDICT_UNDECIDED || !isfinite(base) || base == 0)
		return;
	step = g->resolution / fabs(base);
	int within_steps = fabs(out->diff) < KVB_COARSE_STEPS * g->resolution && step >= margin / 4;
	int near_margin = step >= margin / 2 && fabs(out->diff_pct) / 100 <= margin + KVB_COARSE_STEPS * step;
	if (!within_steps && !near_margin)
		return;
	snprintf(out->coarse, sizeof(out->coarse), "printed in %g %s steps (%.2g %%): too coarse%s%s", g->resolution,
		 g->units ? g->units : "", step * 100, g->finer ? "; see " : "", g->finer ? g->finer : "");
}

/*
 * The three-way verdict of a compared cell (docs/design.md#verdicts-and-deciding), from the relative
 * change (variant - baseline) / |baseline| and its sign. "same" is judged on
 * the wider of the bootstrap CI and the CI on the boot values (the bootstrap's
 * alone is too narrow with few boots, stats.h), or with one boot on the CI of
 * the runs; Cliff's delta is taken over the runs. A difference whose CI is
 * exactly [0, 0] (identical values on both sides, 0 vs 0 included) is "same";
 * an undecided cell without a CI carries why (v3.why). With boots (the mean's
 * robust test) the direction is that of the boot levels the test compared.
 */
static void kvb_cell_verdict(const struct kvb_group *g, size_t bboots, struct kvb_cell_stats *out)
{
	struct kvb_verdict_in in = { .significant = out->significant, .margin = g->margin > 0 ? g->margin : KVB_VERDICT_MARGIN,
				     .lower_is_better = g->lower_is_better, .diff = out->diff,
				     .change = out->diff_pct / 100, .ci_lo = NAN, .ci_hi = NAN };
	if (out->naive_ok)
		out->cliffs = kvb_stats_cliffs_delta(out->c.mw_u, out->c.nb, out->c.nv);
	if (out->test == KVB_TEST_NONE) {
		out->same_lo = out->same_hi = NAN;
		out->v3 = (struct kvb_verdict){ .kind = KVB_VERDICT_NONE, .name = "untested", .boots_needed = NAN };
		out->verdict = "untested";
		return;
	}
	if (out->paired_ok) {
		/* duet: the CI of the mean per-round difference over |baseline|, the pairs as the unit */
		in.ci_lo = out->pr.rel_ci_lo;
		in.ci_hi = out->pr.rel_ci_hi;
		in.diff = out->pr.diff;
		in.change = out->pr.rel;
		in.boots = out->pr.n;
		in.diff_ci_zero = out->pr.ci_lo == 0 && out->pr.ci_hi == 0;
	} else if (out->boot_ok) {
		int runs_only = out->b.boots_b < 2 || out->b.boots_v < 2;
		in.ci_lo = fmin(out->b.rel_ci_lo, out->b.boot_rel_ci_lo); /* NAN (unbounded) stays NAN */
		in.ci_hi = fmax(out->b.rel_ci_hi, out->b.boot_rel_ci_hi);
		if (isnan(out->b.boot_rel_ci_lo)) {
			/* one boot a side (a quantile's run-level bootstrap): its own CI, else unbounded */
			in.ci_lo = runs_only ? out->b.rel_ci_lo : NAN;
			in.ci_hi = runs_only ? out->b.rel_ci_hi : NAN;
		}
		/* exact on both levels: the resampled differences and Welch's on the boot values; and on
		 * the runs themselves, since the robust boot levels (trimmed) may not see a value that
		 * differs (one warning in twelve runs is not identical data) */
		in.diff_ci_zero = out->b.diff_ci_lo == 0 && out->b.diff_ci_hi == 0 &&
				  (runs_only || (out->b.boot_diff_ci_lo == 0 && out->b.boot_diff_ci_hi == 0)) &&
				  (!out->naive_ok || (out->c.ci_lo == 0 && out->c.ci_hi == 0));
		in.boots = bboots < out->boots ? bboots : out->boots;
		if (out->b.robust) {
			/* the direction and size the test judged: of the boot levels, not of the shown run mean */
			in.diff = out->b.diff;
			in.change = out->b.level_b != 0 ? out->b.diff / fabs(out->b.level_b) : NAN;
		}
	} else if (out->naive_ok) {
		in.ci_lo = out->c.rel_ci_lo;
		in.ci_hi = out->c.rel_ci_hi;
		in.diff_ci_zero = out->c.ci_lo == 0 && out->c.ci_hi == 0;
		/* one boot: the runs are the unit, and their count is what more of would narrow the CI */
		in.boots = out->c.nb < out->c.nv ? out->c.nb : out->c.nv;
		out->runs_unit = 1;
	}
	if (!out->paired_ok && out->boot_ok && in.boots <= 1)
		out->runs_unit = 1;
	/* the CI of the change is relative to the baseline: none over a baseline of exactly 0 */
	in.no_ci = (out->paired_ok ? out->pr.mean_b == 0 : isnan(out->diff_pct)) ? KVB_WHY_ZERO_BASE
		   : out->runs_unit					       ? KVB_WHY_UNBOUNDED_RUNS
									       : KVB_WHY_UNBOUNDED;
	out->same_lo = in.ci_lo;
	out->same_hi = in.ci_hi;
	kvb_verdict_judge(&in, &out->v3);
	out->verdict = out->naive_ok || out->boot_ok || out->paired_ok ? out->v3.name : "n<2";
	kvb_cell_coarse(g, out);
}

/* The test --stat gets (cell_stats.h): min and max never, p95 only from KVB_P95_TEST_MIN runs a side. */
static enum kvb_stat_test stat_test(enum kvb_stat stat, size_t nb, size_t nv)
{
	switch (stat) {
	case KVB_STAT_MEAN: return KVB_TEST_MEAN;
	case KVB_STAT_MEDIAN: return KVB_TEST_QUANTILE;
	case KVB_STAT_P95: return nb >= KVB_P95_TEST_MIN && nv >= KVB_P95_TEST_MIN ? KVB_TEST_QUANTILE : KVB_TEST_NONE;
	default: return KVB_TEST_NONE;
	}
}

void kvb_cell_compute(const struct kvb_report *r, const struct kvb_group *g, size_t v, enum kvb_stat stat,
		      double alpha, struct kvb_cell_stats *out)
{
	const struct kvb_cell *c = &g->cells[v], *b = &g->cells[0];
	struct kvb_cell_stats base;
	int *ib, *iv;
	memset(out, 0, sizeof(*out));
	out->verdict = "";
	out->p_boot = NAN;
	out->left_out = c->left_out;
	out->base_left_out = v ? b->left_out : 0;
	if (!c->n || kvb_stats_summary(c->v, c->n, &out->s, NULL))
		return;
	out->ok = 1;
	out->value = pick(&out->s, stat);
	out->cliffs = out->same_lo = out->same_hi = NAN;
	if (kvb_stats_count_modes(c->v, c->n, &out->modes, NULL))
		out->modes = 1;
	iv = kvb_xcalloc(c->n + 1, sizeof(*iv));
	out->boots = boot_ids(c, iv);
	if (v == 0 || !b->n) {
		free(iv);
		return;
	}
	memset(&base, 0, sizeof(base));
	kvb_stats_summary(b->v, b->n, &base.s, NULL);
	ib = kvb_xcalloc(b->n + 1, sizeof(*ib));
	size_t bboots = boot_ids(b, ib);
	double bv = pick(&base.s, stat);
	out->has_cmp = 1;
	out->diff = out->value - bv;
	/* over |baseline|: the sign is the difference's, so a negative baseline cannot flip it */
	out->diff_pct = bv != 0 ? (out->value - bv) / fabs(bv) * 100.0 : NAN;
	out->test = stat_test(stat, b->n, c->n);
	out->naive_ok = !kvb_stats_compare(b->v, b->n, c->v, c->n, alpha, &out->c, NULL);
	/* both sides in one and the same boot (knob-only variants): no boot confound to warn about */
	int same_boot = bboots == 1 && out->boots == 1 && b->boot[0] == c->boot[0];
	if (out->test == KVB_TEST_MEAN) {
		/* boots as the unit, each boot its robust level, boots resampled within their board (docs/design.md#pools-and-lava;
		 * stats.h kvb_stats_boot_robust): one wild run in a boot cannot move the verdict */
		if (bboots >= 2 && out->boots >= 2)
			out->boot_ok = !kvb_stats_boot_robust(b->v, ib, b->board, b->n, c->v, iv, c->board, c->n,
							      KVB_STATS_RESAMPLES, KVB_STATS_SEED, alpha, &out->b, NULL);
		if (r->paired && (out->paired_ok = !kvb_cell_paired(b, c, alpha, &out->pr))) {
			out->significant = out->pr.significant;
		} else if (out->boot_ok) {
			out->significant = out->b.significant && out->b.boot_welch_p < alpha;
		} else if (out->naive_ok) {
			out->significant = out->c.significant;
			out->one_boot = !same_boot;
		}
	} else if (out->test == KVB_TEST_QUANTILE) {
		/* the statistic's own test: bootstrap of it over boots then runs (one boot: over runs) */
		double q = stat == KVB_STAT_MEDIAN ? 0.5 : 0.95;
		out->boot_ok = !kvb_stats_hier_bootstrap_quantile(b->v, ib, b->board, b->n, c->v, iv, c->board, c->n, q,
								  KVB_STATS_RESAMPLES, KVB_STATS_SEED, alpha, &out->b,
								  &out->p_boot, NULL);
		if (out->boot_ok && bboots >= 2 && out->boots >= 2) {
			out->significant = out->b.significant && out->b.boot_welch_p < alpha;
		} else if (out->boot_ok) {
			out->significant = out->b.significant;
			out->one_boot = !same_boot;
		}
	}
	kvb_cell_verdict(g, bboots, out);
	free(ib);
	free(iv);
}

void kvb_cell_compare(const struct kvb_report *r, const struct kvb_group *g, size_t b, size_t v, enum kvb_stat stat,
		      double alpha, struct kvb_cell_stats *cs)
{
	struct kvb_group pair = *g;
	struct kvb_cell cells[2] = { g->cells[b], g->cells[v] };
	pair.cells = cells;
	kvb_cell_compute(r, &pair, b == v ? 0 : 1, stat, alpha, cs);
}
