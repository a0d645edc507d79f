/*
 * Implements the report's summary (forest) plot, issue 30 item 1: one row per
 * compared cell (group x variant other than the baseline) with the numbers of
 * `kvbench diff --format json` copied as they are (diff_pct, same_ci95_lo/hi:
 * the 95 % CI of the change in % of |baseline|, change_ci_of, margin_pct,
 * verdict, n, boots, p, cliffs_delta): the page computes no statistic of its
 * own, so what it draws is what diff prints.
 */
#include "report/page_views.h"
#include "report/shortlabel.h"
#include "report/verdict_cell.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Copies member name of from into to (null when absent). */
static void copy(cJSON *to, const cJSON *from, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, name);
	cJSON_AddItemToObject(to, name, v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
}

/*
 * What the row says beside its verdict, so no undecided, unbounded or untested cell is left without a
 * word of why: the verdict cell's own text (verdict_cell.h: "undecided (CI +-12 %, ~9 boots)",
 * "undecided (the baseline varies so much between boots that its CI reaches 0: the % change could be any size; more boots narrow it)"), or for a cell without a test what it lacks.
 */
static void reason(char *buf, size_t n, const struct kvb_cell_stats *cs)
{
	if (!strcmp(cs->verdict, "untested"))
		snprintf(buf, n, "untested (this statistic has no test: compare the mean or median)");
	else if (!strcmp(cs->verdict, "n<2") && !kvb_verdict_left_out(buf, n, cs))
		snprintf(buf, n, "n<2 (fewer than 2 values a side: nothing to test)");
	else if (strcmp(cs->verdict, "n<2"))
		kvb_verdict_cell(buf, n, cs);
}

const char *kvb_forest_detail_id(struct kvb_page *p, size_t group)
{
	return kvb_page_keep(p, kvb_xasprintf("detail-%zu", group));
}

int kvb_page_forest(struct kvb_page *p, const struct kvb_table *t, const cJSON *diff_json,
		    const char *(*own_section)(const struct kvb_group *))
{
	const struct kvb_report *r = t->r;
	const cJSON *groups = cJSON_GetObjectItemCaseSensitive(diff_json, "groups");
	cJSON *pl, *rows;
	size_t n = 0;
	char *title;
	if (!r->ngroups || r->variants.n < 2)
		return 0;
	title = kvb_xasprintf("change against %s, with its 95 %% CI", r->variants.v[0]);
	pl = kvb_plot_new("forest", title, "change against the baseline (% of |baseline|)", "");
	free(title);
	cJSON_AddStringToObject(pl, "baseline", r->variants.v[0]);
	rows = cJSON_AddArrayToObject(pl, "rows");
	/* what changed first (results/table.h): the first screen answers */
	for (size_t i = 0; i < r->ngroups; i++) {
		size_t gi = t->order[i];
		const cJSON *jg = cJSON_GetArrayItem(groups, (int)gi);
		const struct kvb_group *g = &r->groups[gi];
		const cJSON *vs = cJSON_GetObjectItemCaseSensitive(jg, "variants"), *jv, *base = NULL;
		char *shortl = kvb_short_label(g->label);
		cJSON_ArrayForEach(jv, vs) {
			const cJSON *name = cJSON_GetObjectItemCaseSensitive(jv, "variant");
			cJSON *row;
			if (cJSON_IsString(name) && !strcmp(name->valuestring, r->variants.v[0]))
				base = jv;
			if (!cJSON_GetObjectItemCaseSensitive(jv, "diff_pct"))
				continue; /* the baseline, or nothing to compare */
			row = cJSON_CreateObject();
			cJSON_AddStringToObject(row, "workload", g->workload);
			cJSON_AddStringToObject(row, "metric", g->metric);
			cJSON_AddStringToObject(row, "units", g->units);
			cJSON_AddStringToObject(row, "cls", shortl);
			cJSON_AddStringToObject(row, "cls_full", g->label ? g->label : "");
			cJSON_AddItemToObject(row, "lower_is_better", kvb_direction_json(g->lower_is_better));
			copy(row, jv, "variant");
			copy(row, jv, "diff_pct");
			copy(row, jv, "same_ci95_lo");
			copy(row, jv, "same_ci95_hi");
			copy(row, jv, "change_ci_of");
			copy(row, jv, "margin_pct");
			copy(row, jv, "verdict");
			copy(row, jv, "n");
			copy(row, jv, "boots");
			copy(row, jv, "p");
			copy(row, jv, "cliffs_delta");
			copy(row, jv, "cliffs_magnitude");
			copy(row, jv, "unit");
			{
				char why[256] = "";
				size_t v = 0;
				while (v < r->variants.n && strcmp(r->variants.v[v], name->valuestring))
					v++;
				if (v < r->variants.n)
					reason(why, sizeof(why), kvb_table_cell(t, gi, v));
				cJSON_AddStringToObject(row, "verdict_text", why);
			}
			if (base) {
				cJSON_AddItemToObject(row, "base_n", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(base, "n"), 1));
				cJSON_AddItemToObject(row, "base_boots",
						      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(base, "boots"), 1));
			}
			cJSON_AddNumberToObject(row, "group", (double)gi);
			cJSON_AddStringToObject(row, "href", own_section(g) ? own_section(g) : kvb_forest_detail_id(p, gi));
			cJSON_AddItemToArray(rows, row);
			n++;
		}
		free(shortl);
	}
	if (!n) {
		cJSON_Delete(pl);
		return 0;
	}
	kvb_page_add(p, "Summary", "summary")->text = kvb_page_keep(p, kvb_xasprintf(
		"Every compared cell: the change of the variant against %s in %% of |baseline| (dot) and the 95 %% CI "
		"of that change (whisker; of the ratio where both sides are positive, else of the difference), the same "
		"numbers `kvbench diff --format json` gives. The grey band is the \"same\" margin; colour is the verdict "
		"(green better, red worse, blue same, orange undecided, grey untested), with why a cell is undecided or "
		"untested beside it. Rows: what changed first, then what is undecided, then what is the same.",
		r->variants.v[0]));
	kvb_page_plot(p, pl, NULL);
	return (int)n;
}
