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

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Copies member name of from into to (null when absent). */
static void copy(cJSON *to, const cJSON *from, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, name);
	cJSON_AddItemToObject(to, name, v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
}

const char *kvb_forest_detail_id(struct kvb_page *p, size_t group)
{
	return kvb_page_keep(p, kvb_xasprintf("detail-%zu", group));
}

int kvb_page_forest(struct kvb_page *p, const struct kvb_report *r, const cJSON *diff_json, const char *(*own_section)(const struct kvb_group *))
{
	const cJSON *groups = cJSON_GetObjectItemCaseSensitive(diff_json, "groups"), *jg;
	cJSON *pl, *rows;
	size_t gi = 0, n = 0;
	char *title;
	if (!r->ngroups || r->variants.n < 2)
		return 0;
	title = kvb_xasprintf("change against %s, with its 95 %% CI", r->variants.v[0]);
	pl = kvb_plot_new("forest", title, "change against the baseline (% of |baseline|)", "");
	free(title);
	cJSON_AddStringToObject(pl, "baseline", r->variants.v[0]);
	rows = cJSON_AddArrayToObject(pl, "rows");
	cJSON_ArrayForEach(jg, groups) {
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
		gi++;
	}
	if (!n) {
		cJSON_Delete(pl);
		return 0;
	}
	kvb_page_add(p, "Summary", "summary")->text = kvb_page_keep(p, kvb_xasprintf(
		"Every compared cell: the change of the variant against %s in %% of |baseline| (dot) and the 95 %% CI "
		"of that change (whisker; of the ratio where both sides are positive, else of the difference), the same "
		"numbers `kvbench diff --format json` gives. The grey band is the \"same\" margin; colour is the verdict "
		"(green better, red worse, blue same, orange undecided, grey untested). Hover a row for n, boots, p and "
		"Cliff's delta; click it for its samples.",
		r->variants.v[0]));
	kvb_page_plot(p, pl, NULL);
	return (int)n;
}
