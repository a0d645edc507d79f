/* Implements the report's per-CPU utilisation and frequency residency plots. */
#include "report/page_build.h"

#include <stdlib.h>
#include <string.h>

/*
 * Where the util and cpufreq instruments ran: per workload, util_mean of every
 * job per (CPU, variant) as dots over boxes; per (workload, cluster), the mean
 * residency per frequency per variant, stacked to 100 %.
 */
static void section(struct kvb_page *p)
{
	kvb_page_add(p, "Per-CPU utilisation and frequency residency", "cpu")->text =
		"Where the util and cpufreq instruments ran: each job's mean utilisation per CPU and variant (dots, "
		"colour: boot), and the mean time at each frequency per cluster.";
}

/* 1 when k starts a new plot (the rows are ordered by it): *key becomes a copy of k. */
static int key_changed(char **key, const char *k)
{
	if (*key && !strcmp(*key, k))
		return 0;
	free(*key);
	*key = kvb_xstrdup(k);
	return 1;
}

/* A new plot on the page titled title (freed here); returns its array member named items. */
static cJSON *start_plot(struct kvb_page *p, const char *kind, char *title, const char *x, const char *y,
			 const char *items, const char *note)
{
	cJSON *pl = kvb_plot_new(kind, title, x, y), *arr = cJSON_AddArrayToObject(pl, items);
	kvb_page_plot(p, pl, note);
	free(title);
	return arr;
}

int kvb_page_cpu_plots(struct kvb_store *s, struct kvb_page *p, struct kvb_error *err)
{
	sqlite3_stmt *st;
	cJSON *groups = NULL, *g = NULL;
	char *key = NULL;
	int rc = KVB_OK, any = 0;
	if ((rc = kvb_page_query(s, p,
				    "SELECT r.workload, json_extract(r.classifiers, '$.cpu') AS cpu, r.variant, r.value,"
				    " r.run_id * 100000 + r.boot FROM results r JOIN variant v ON v.run_id = r.run_id AND v.name = r.variant"
				    " WHERE r.metric = 'util_mean' AND r.run_id IN (SELECT value FROM json_each(?1))"
				    " ORDER BY r.workload, CAST(cpu AS INTEGER), cpu, v.position, r.metric_id",
				    &st, err)))
		return rc;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *w = (const char *)sqlite3_column_text(st, 0), *cpu = (const char *)sqlite3_column_text(st, 1);
		char *gn = kvb_xasprintf("cpu%s %s", cpu ? cpu : "?", (const char *)sqlite3_column_text(st, 2));
		if (!any++)
			section(p);
		if (key_changed(&key, w))
			groups = start_plot(p, "dotbox", kvb_xasprintf("%s: util_mean per CPU", w), "CPU and variant", "%",
					    "groups", "busy time of each CPU during the job");
		kvb_plot_dot(groups, gn, sqlite3_column_double(st, 3), sqlite3_column_int64(st, 4), p->nruns);
		free(gn);
	}
	sqlite3_finalize(st);
	free(key);
	key = NULL;
	if ((rc = kvb_page_query(s, p,
				    "SELECT r.workload || ' cluster ' || coalesce(json_extract(r.classifiers, '$.cluster'), '?'),"
				    " r.variant, json_extract(r.classifiers, '$.freq_mhz') AS f, avg(r.value)"
				    " FROM results r JOIN variant v ON v.run_id = r.run_id AND v.name = r.variant"
				    " WHERE r.metric = 'freq_residency' AND r.run_id IN (SELECT value FROM json_each(?1))"
				    " GROUP BY 1, 2, 3 ORDER BY 1, min(v.position), 2, CAST(f AS INTEGER)",
				    &st, err)))
		return rc;
	g = NULL;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0), *v = (const char *)sqlite3_column_text(st, 1);
		cJSON *bar;
		if (!any++)
			section(p);
		if (key_changed(&key, k)) {
			groups = start_plot(p, "stack", kvb_xasprintf("%s: frequency residency", k), "variant", "% of the job",
					    "bars", "mean over the variant's jobs of the time at each frequency (MHz)");
			g = NULL;
		}
		if (!g || strcmp(cJSON_GetObjectItem(g, "name")->valuestring, v)) {
			g = cJSON_CreateObject();
			cJSON_AddStringToObject(g, "name", v);
			cJSON_AddArrayToObject(g, "parts");
			cJSON_AddItemToArray(groups, g);
		}
		bar = cJSON_CreateObject();
		cJSON_AddStringToObject(bar, "name", (const char *)sqlite3_column_text(st, 2));
		cJSON_AddItemToObject(bar, "value", kvb_plot_num(sqlite3_column_double(st, 3)));
		cJSON_AddItemToArray(cJSON_GetObjectItem(g, "parts"), bar);
	}
	sqlite3_finalize(st);
	free(key);
	return rc;
}
