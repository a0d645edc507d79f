/* Implements the verdict column, its JSON fields, legend and multimodality footnote of `kvbench diff`. */
#include "report/verdict_cell.h"
#include "report/format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int multimodal(const struct kvb_cell_stats *cs)
{
	return cs->ok && cs->modes > 1;
}

double kvb_verdict_ci_halfwidth_pct(double ci_lo, double ci_hi)
{
	if (!isfinite(ci_lo) || !isfinite(ci_hi) || ci_hi < ci_lo)
		return NAN;
	return (ci_hi - ci_lo) / 2 * 100;
}

void kvb_verdict_undecided_text(char *buf, size_t n, double ci_lo, double ci_hi, double boots_needed, const char *unit)
{
	double h = kvb_verdict_ci_halfwidth_pct(ci_lo, ci_hi);
	char ci[40] = "";
	if (!isnan(h))
		snprintf(ci, sizeof(ci), h >= 10 ? "CI +-%.0f %%" : "CI +-%.2g %%", h); /* 120, 3.2, 0.048 */
	if (!isnan(h) && (!isfinite(boots_needed) ? 0 : boots_needed > KVB_VERDICT_MAX_BOOTS))
		snprintf(buf, n, "undecided (%s, >%d %s)", ci, KVB_VERDICT_MAX_BOOTS, unit);
	else if (!isnan(h) && !isnan(boots_needed))
		snprintf(buf, n, "undecided (%s, ~%.0f %s)", ci, boots_needed, unit);
	else if (!isnan(h))
		snprintf(buf, n, "undecided (%s)", ci);
	else if (!isnan(boots_needed))
		snprintf(buf, n, "undecided (~%.0f %s)", boots_needed, unit);
	else
		snprintf(buf, n, "undecided");
}

int kvb_verdict_left_out(char *buf, size_t n, const struct kvb_cell_stats *cs)
{
	static const char why[] = "too busy to measure this board; a quieter host would";
	if (!cs->ok && cs->left_out) {
		snprintf(buf, n, "left out: the host disturbed all %zu run(s) (%s)", cs->left_out, why);
		return 1;
	}
	if (cs->ok && !cs->has_cmp && cs->base_left_out) {
		snprintf(buf, n, "baseline left out: the host disturbed all %zu of its run(s) (%s)", cs->base_left_out, why);
		return 1;
	}
	if (cs->has_cmp && !strcmp(cs->verdict, "n<2") && (cs->left_out || cs->base_left_out)) {
		snprintf(buf, n, "n<2: %zu run(s) left out, the host disturbed them (%s)", cs->left_out + cs->base_left_out,
			 why);
		return 1;
	}
	return 0;
}

void kvb_verdict_cell(char *buf, size_t n, const struct kvb_cell_stats *cs)
{
	char v[192];
	const char *mm = multimodal(cs) ? " \u2020" : "";
	if (kvb_verdict_left_out(buf, n, cs))
		return;
	if (!cs->has_cmp) {
		snprintf(buf, n, "baseline%s", mm);
		return;
	}
	/* "n<2" (too few values to compare) reads the same in the table as in json, not "undecided" */
	if (cs->v3.kind == KVB_VERDICT_UNDECIDED && cs->coarse[0])
		snprintf(v, sizeof(v), "undecided (%s)", cs->coarse); /* more boots would not decide it */
	else if (cs->v3.kind == KVB_VERDICT_UNDECIDED && (cs->naive_ok || cs->boot_ok || cs->paired_ok) && cs->v3.why &&
	    isnan(kvb_verdict_ci_halfwidth_pct(cs->same_lo, cs->same_hi)))
		snprintf(v, sizeof(v), "undecided (%s)", cs->v3.why); /* no CI to state: say why */
	else if (cs->v3.kind == KVB_VERDICT_UNDECIDED && (cs->naive_ok || cs->boot_ok || cs->paired_ok))
		kvb_verdict_undecided_text(v, sizeof(v), cs->same_lo, cs->same_hi, cs->v3.boots_needed,
					   cs->paired_ok ? "pairs" : cs->runs_unit ? "runs" : "boots");
	else
		snprintf(v, sizeof(v), "%s", cs->verdict);
	snprintf(buf, n, "%s%s%s", v, cs->paired_ok ? " (paired)" : cs->one_boot ? " (1 boot)" : "", mm);
}

static cJSON *num_or_null(double x)
{
	return isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull();
}

void kvb_verdict_json(cJSON *jv, const struct kvb_group *g, const struct kvb_cell_stats *cs)
{
	cJSON_AddNumberToObject(jv, "modes", (double)cs->modes);
	cJSON_AddBoolToObject(jv, "multimodal", multimodal(cs));
	if (!cs->has_cmp)
		return;
	/* boots: a one-boot cell's estimate counts runs, which the table says; the JSON key keeps its unit */
	cJSON_AddItemToObject(jv, "boots_needed", num_or_null(cs->runs_unit ? NAN : cs->v3.boots_needed));
	/* the smallest change this data could have shown: half the ratio CI's width, % */
	cJSON_AddItemToObject(jv, "ci_halfwidth_pct", num_or_null(kvb_verdict_ci_halfwidth_pct(cs->same_lo, cs->same_hi)));
	/* an undecided cell without that CI says why there is none */
	if (cs->v3.kind == KVB_VERDICT_UNDECIDED && cs->coarse[0])
		cJSON_AddStringToObject(jv, "undecided_reason", cs->coarse);
	else if (cs->v3.kind == KVB_VERDICT_UNDECIDED && cs->v3.why &&
	    isnan(kvb_verdict_ci_halfwidth_pct(cs->same_lo, cs->same_hi)))
		cJSON_AddStringToObject(jv, "undecided_reason", cs->v3.why);
	else
		cJSON_AddNullToObject(jv, "undecided_reason");
	/* rounded: 0.03 * 100 is 3.0000000000000004 in binary */
	cJSON_AddNumberToObject(jv, "margin_pct", round((g->margin > 0 ? g->margin : KVB_VERDICT_MARGIN) * 1e11) / 1e9);
	/* the CI of the change in % of |baseline|, as margin_pct: "same" when inside +-margin_pct */
	cJSON_AddItemToObject(jv, "same_ci95_lo", num_or_null(cs->same_lo * 100));
	cJSON_AddItemToObject(jv, "same_ci95_hi", num_or_null(cs->same_hi * 100));
	cJSON_AddStringToObject(jv, "change_ci_of", cs->test == KVB_TEST_NONE ? "none"
						    : (cs->boot_ok ? cs->b.ratio_ok : cs->c.ratio_ok) ? "ratio"
											       : "difference");
	cJSON_AddItemToObject(jv, "cliffs_delta", num_or_null(cs->cliffs));
	cJSON_AddStringToObject(jv, "cliffs_magnitude", kvb_stats_cliffs_label(cs->cliffs));
}

void kvb_verdict_legend(FILE *out, const struct kvb_table *t, const struct kvb_format *fmt)
{
	const struct kvb_report *r = t->r;
	int md = !!(fmt->caps & KVB_FMT_MARKUP), any = 0;
	double m = r->ngroups ? r->groups[0].margin : KVB_VERDICT_MARGIN; /* --margin set every group's */
	int same_margin = 1;
	for (size_t i = 1; i < r->ngroups; i++)
		same_margin &= r->groups[i].margin == r->groups[0].margin;
	char mtxt[64], undecided[512];
	static const char *const words[] = { "undecided", NULL };
	kvb_verdict_words_legend(undecided, sizeof(undecided), words); /* as the mail layout says it */
	if (same_margin)
		snprintf(mtxt, sizeof(mtxt), "+-%.3g %%", m * 100);
	else
		snprintf(mtxt, sizeof(mtxt), "+-the metric's margin");
	fprintf(out,
		"%sverdict: better/worse = a real change (* at alpha %g: with >= 2 boots the bootstrap CI excludes no "
		"change and Welch on boot %s agrees, its p shown; with 1 boot %s, the larger p shown); same = the 95 %% CI "
		"of the change lies within %s (or both sides hold one and the same value); %s (~N pairs: the rounds a "
		"duet needs), or why there is no CI, or that the tool prints the metric in steps too coarse for it\n"
		"perc_diff = (variant - baseline) / |baseline|: its sign is the direction, better or worse by "
		"lower_is_better; the CI of the change is of the ratio where both sides are positive, else of the "
		"difference, in %% of |baseline|\n",
		md ? "\n" : "", t->alpha,
		t->stat == KVB_STAT_MEAN ? "trimmed means (20 %, one wild run a boot moves nothing)" : kvb_stat_name(t->stat),
		t->stat == KVB_STAT_MEAN ? "Welch and Mann-Whitney agree" : "the bootstrap over runs decides", mtxt,
		undecided);
	if (r->paired && t->stat == KVB_STAT_MEAN)
		fprintf(out, "(paired): the runs are duets (execution_order: duet, both variants at once on two boards, "
			     "job by job): the verdict is the paired t test on the per-round differences of the means, "
			     "a round both variants finished being the unit\n");
	if (t->stat == KVB_STAT_MEDIAN || t->stat == KVB_STAT_P95)
		fprintf(out,
			"--stat %s: p and verdict test the %s itself: a bootstrap of it over boots, then runs within boots, "
			"and Welch on each boot's %s%s\n",
			kvb_stat_name(t->stat), kvb_stat_name(t->stat), kvb_stat_name(t->stat),
			t->stat == KVB_STAT_P95 ? "; with fewer than 20 runs a side p95 is an extreme: untested" : "");
	else if (t->stat != KVB_STAT_MEAN)
		fprintf(out,
			"--stat %s: untested (no p, no verdict): a bootstrap cannot test an extreme (Bickel & Freedman 1981) "
			"and the mean's test would not be about the %s; compare --stat mean, median or p95\n",
			kvb_stat_name(t->stat), kvb_stat_name(t->stat));
	fprintf(out,
		"cliff: Cliff's delta of the runs, P(variant > baseline) - P(variant < baseline); |d| < 0.15 negligible, "
		"< 0.33 small, < 0.47 medium, else large\n");
	for (size_t gi = 0; gi < r->ngroups; gi++)
		for (size_t v = 0; v < r->variants.n; v++) {
			const struct kvb_cell *c = &r->groups[gi].cells[v];
			size_t modes = kvb_table_cell(t, gi, v)->modes;
			if (!c->n || modes < 2)
				continue;
			if (!any++)
				fprintf(out, "%s\u2020 multimodal samples (a mean summarises several populations; plot the runs):\n",
					md ? "\n" : "");
			fprintf(out, "%s%s %s %s: %zu modes in %zu runs\n", md ? "- " : "  ", r->groups[gi].workload,
				r->groups[gi].metric, r->variants.v[v], modes, c->n);
		}
}
