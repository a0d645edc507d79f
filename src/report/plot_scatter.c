/*
 * Implements the report's energy-against-performance plots (issue 30 item 3,
 * LISA's energy/performance figure): for each workload with an `energy`
 * metric, its energy (the channel total_power when the platform sums one,
 * else the first channel) against each other metric of the workload, one
 * point per variant at the means, with the 95 % CI of each mean (Student t,
 * stats.h kvb_stats_mean_ci) as whiskers both ways.
 */
#include "report/page_views.h"
#include "report/shortlabel.h"
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PER_WORKLOAD 8

/* Metrics that are energy, power or where-it-ran rather than performance. */
static int not_performance(const char *m)
{
	return !strcmp(m, "energy") || !strncmp(m, "power_", 6) || !strcmp(m, "util_mean") ||
	       !strcmp(m, "freq_residency");
}

static int is_chan(const struct kvb_group *g, const char *chan)
{
	char *pat = kvb_xasprintf("\"chan_name\":\"%s\"", chan);
	int yes = strstr(g->cls_json, pat) != NULL;
	free(pat);
	return yes;
}

void kvb_page_energy_perf(struct kvb_page *p, const struct kvb_report *r)
{
	int any = 0;
	for (size_t ei = 0; ei < r->ngroups; ei++) {
		const struct kvb_group *e = &r->groups[ei];
		size_t shown = 0, first = ei;
		if (strcmp(e->metric, "energy"))
			continue;
		/* one energy group per workload: total_power, else the first */
		for (size_t j = 0; j < r->ngroups; j++)
			if (!strcmp(r->groups[j].metric, "energy") && !strcmp(r->groups[j].workload, e->workload)) {
				if (is_chan(&r->groups[j], "total_power")) {
					first = j;
					break;
				}
				if (j < first)
					first = j;
			}
		if (first != ei)
			continue;
		for (size_t mi = 0; mi < r->ngroups && shown < MAX_PER_WORKLOAD; mi++) {
			const struct kvb_group *m = &r->groups[mi];
			char *shortl, *title;
			cJSON *pl, *pts;
			if (strcmp(m->workload, e->workload) || not_performance(m->metric) || !strcmp(m->units, "count"))
				continue; /* a count (frames, activations) is not a performance */
			if (!any++)
				kvb_page_add(p, "Energy against performance", "energy-perf")->text =
					"Per workload with an energy meter: each variant's mean energy per job (x) against the "
					"mean of a performance metric (y), whiskers the 95 % CI of each mean (Student t).";
			shortl = kvb_short_label(m->label);
			title = kvb_xasprintf("%s: energy vs %s%s%s", m->workload, m->metric, *shortl ? " " : "", shortl);
			pl = kvb_plot_new("scatter", title, *e->units ? e->units : "J",
					  *m->units ? m->units : m->metric);
			{
				char *xl = kvb_xasprintf("energy per job (%s)%s", *e->units ? e->units : "J",
							 is_chan(e, "total_power") ? ", total_power" : "");
				cJSON_ReplaceItemInObject(pl, "x", cJSON_CreateString(xl));
				free(xl);
			}
			{
				char *yl = kvb_xasprintf("%s%s%s%s", m->metric, *m->units ? " (" : "", m->units,
							 *m->units ? ")" : "");
				cJSON_ReplaceItemInObject(pl, "y", cJSON_CreateString(yl));
				free(yl);
			}
			cJSON_AddStringToObject(pl, "workload", m->workload);
			pts = cJSON_AddArrayToObject(pl, "points");
			for (size_t v = 0; v < r->variants.n; v++) {
				double x, xl, xh, y, yl, yh;
				cJSON *pt;
				if (!kvb_stats_mean_ci(e->cells[v].v, e->cells[v].n, 0.95, &x, &xl, &xh) ||
				    !kvb_stats_mean_ci(m->cells[v].v, m->cells[v].n, 0.95, &y, &yl, &yh))
					continue;
				pt = cJSON_CreateObject();
				cJSON_AddStringToObject(pt, "name", r->variants.v[v]);
				cJSON_AddItemToObject(pt, "x", kvb_plot_num(x));
				cJSON_AddItemToObject(pt, "xlo", kvb_plot_num(xl));
				cJSON_AddItemToObject(pt, "xhi", kvb_plot_num(xh));
				cJSON_AddItemToObject(pt, "y", kvb_plot_num(y));
				cJSON_AddItemToObject(pt, "ylo", kvb_plot_num(yl));
				cJSON_AddItemToObject(pt, "yhi", kvb_plot_num(yh));
				cJSON_AddItemToArray(pts, pt);
			}
			kvb_page_plot(p, pl, m->lower_is_better < 0 ? "left is better (y: no better or worse)" : m->lower_is_better ? "lower-left is better" : "upper-left is better");
			free(title);
			free(shortl);
			shown++;
		}
	}
}
