/*
 * Implements the report's metric-against-a-swept-classifier plots (issue 30
 * item 3; mmtests and the uclamp thread's "root, level 1..3" tables drawn):
 * for a (workload, metric) whose groups differ in one numeric classifier
 * (cgroup_depth, groups, frequency, ...) taking >= 3 values, everything else
 * equal, one line per variant through the mean at each value with the 95 %
 * CI of that mean (Student t, stats.h kvb_stats_mean_ci) as a band.
 */
#include "report/page_views.h"
#include "report/shortlabel.h"
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Classifiers that are never a sweep: samples, places and own-plot axes. */
static int not_swept(const char *k)
{
	static const char *const no[] = { "iteration", "rep", "cpu", "cluster", "freq_mhz", "boot", "board" };
	for (size_t i = 0; i < KVB_ARRAY_SIZE(no); i++)
		if (!strcmp(no[i], k))
			return 1;
	return 0;
}

/* The value of g's classifier key as a number (0 when it is not one). */
static int cls_num(const struct kvb_group *g, const char *key, double *x)
{
	cJSON *j = cJSON_Parse(g->cls_json), *v = cJSON_GetObjectItemCaseSensitive(j, key);
	int ok = cJSON_IsString(v) && !kvb_parse_double(v->valuestring, x);
	cJSON_Delete(j);
	return ok;
}

/* g's classifiers without key, as JSON text (owned): groups of one sweep share it. */
static char *cls_without(const struct kvb_group *g, const char *key)
{
	cJSON *j = cJSON_Parse(g->cls_json);
	char *s;
	cJSON_DeleteItemFromObjectCaseSensitive(j, key);
	s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	return s;
}

struct point {
	double x;
	size_t g;
};

static int by_x(const void *a, const void *b)
{
	double d = ((const struct point *)a)->x - ((const struct point *)b)->x;
	return d < 0 ? -1 : d > 0;
}

static void sweep_plot(struct kvb_page *p, const struct kvb_report *r, const char *key, struct point *pts, size_t n,
		       int *any)
{
	const struct kvb_group *g0 = &r->groups[pts[0].g];
	char *shortl, *title;
	cJSON *pl, *arr;
	qsort(pts, n, sizeof(*pts), by_x);
	if (!(*any)++)
		kvb_page_add(p, "Metrics against a swept classifier", "sweeps")->text =
			"Where groups differ only in one numeric classifier (cgroup_depth, groups, frequency, ...): per "
			"variant the mean at each value (line) and the 95 % CI of that mean (band, Student t).";
	{
		/* the other classifiers of the sweep, shortened */
		char *lab = kvb_xstrdup(g0->label ? g0->label : ""), *k;
		char *pat = kvb_xasprintf("%s=", key);
		if ((k = strstr(lab, pat))) { /* drop "key=value" from the label */
			char *e = strchr(k, ' ');
			memmove(k, e ? e + 1 : k + strlen(k), strlen(e ? e + 1 : k + strlen(k)) + 1);
		}
		shortl = kvb_short_label(lab);
		free(lab);
		free(pat);
	}
	title = kvb_xasprintf("%s %s vs %s%s%s", g0->workload, g0->metric, key, *shortl ? " " : "", shortl);
	pl = kvb_plot_new("lines", title, key, *g0->units ? g0->units : g0->metric);
	cJSON_AddStringToObject(pl, "workload", g0->workload);
	cJSON_AddBoolToObject(pl, "points", 1);
	arr = cJSON_AddArrayToObject(pl, "series");
	for (size_t v = 0; v < r->variants.n; v++) {
		cJSON *s = cJSON_CreateObject(), *t = cJSON_AddArrayToObject(s, "t"), *y, *lo, *hi;
		size_t k = 0;
		cJSON_AddStringToObject(s, "name", r->variants.v[v]);
		y = cJSON_AddArrayToObject(s, "y");
		lo = cJSON_AddArrayToObject(s, "lo");
		hi = cJSON_AddArrayToObject(s, "hi");
		for (size_t i = 0; i < n; i++) {
			double m, l, h;
			if (!kvb_stats_mean_ci(r->groups[pts[i].g].cells[v].v, r->groups[pts[i].g].cells[v].n, 0.95, &m, &l, &h))
				continue;
			cJSON_AddItemToArray(t, kvb_plot_num(pts[i].x));
			cJSON_AddItemToArray(y, kvb_plot_num(m));
			cJSON_AddItemToArray(lo, kvb_plot_num(l));
			cJSON_AddItemToArray(hi, kvb_plot_num(h));
			k++;
		}
		if (k)
			cJSON_AddItemToArray(arr, s);
		else
			cJSON_Delete(s);
	}
	kvb_page_plot(p, pl, g0->lower_is_better < 0 ? "no better or worse" : g0->lower_is_better ? "lower is better" : "higher is better");
	free(title);
	free(shortl);
}

void kvb_page_sweeps(struct kvb_page *p, const struct kvb_report *r)
{
	char *done = kvb_xcalloc(r->ngroups + 1, 1);
	struct point *pts = kvb_xcalloc(r->ngroups + 1, sizeof(*pts));
	int any = 0;
	for (size_t gi = 0; gi < r->ngroups; gi++) {
		const struct kvb_group *g = &r->groups[gi];
		cJSON *cls = cJSON_Parse(g->cls_json), *kv;
		if (!strcmp(g->metric, "util_mean") || !strcmp(g->metric, "freq_residency")) {
			cJSON_Delete(cls);
			continue;
		}
		cJSON_ArrayForEach(kv, cls) {
			double x;
			char *rest;
			size_t n = 0, distinct = 0;
			if (not_swept(kv->string) || done[gi] || !cls_num(g, kv->string, &x))
				continue;
			rest = cls_without(g, kv->string);
			for (size_t hi = gi; hi < r->ngroups; hi++) {
				const struct kvb_group *h = &r->groups[hi];
				char *hr;
				if (strcmp(h->workload, g->workload) || strcmp(h->metric, g->metric) ||
				    strcmp(h->units, g->units) || !cls_num(h, kv->string, &x))
					continue;
				hr = cls_without(h, kv->string);
				if (!strcmp(hr, rest)) {
					pts[n].x = x;
					pts[n++].g = hi;
				}
				free(hr);
			}
			free(rest);
			qsort(pts, n, sizeof(*pts), by_x);
			for (size_t i = 0; i < n; i++)
				distinct += !i || pts[i].x != pts[i - 1].x;
			if (distinct >= 3 && distinct == n) {
				for (size_t i = 0; i < n; i++)
					done[pts[i].g] = 1;
				sweep_plot(p, r, kv->string, pts, n, &any);
			}
		}
		cJSON_Delete(cls);
	}
	free(pts);
	free(done);
}
