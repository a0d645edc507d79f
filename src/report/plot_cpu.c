/* Implements the report's per-CPU utilisation and frequency residency plots. */
#include "report/page_build.h"

#include <stdlib.h>
#include <string.h>

/*
 * Where the util and cpufreq instruments ran. Both are drawn from the diff's groups (groups.c),
 * so a plot never pools what diff keeps apart: one plot per workload and spec classifiers (two
 * specs of one workload, Jankbench list_view and image_list_view, or hackbench with 2 and 10
 * groups, are two plots), the boots as diff counts them. util_mean: per (CPU, variant) every
 * job's value as a dot over a box; freq_residency: per cluster, the mean residency per
 * frequency per variant, stacked to 100 %.
 */
static void section(struct kvb_page *p, int *any)
{
	if ((*any)++)
		return;
	kvb_page_add(p, "Per-CPU utilisation and frequency residency", "cpu")->text =
		"Where the util and cpufreq instruments ran: each job's mean utilisation per CPU and variant (dots, "
		"colour: boot), and the mean time at each frequency per cluster; one plot per workload and spec "
		"classifiers, as diff groups them.";
}

/* One plot under construction: its key and its array of dot groups or bars. */
struct cpu_plot {
	char *key;
	cJSON *items;
};

static cJSON *plot_items(struct cpu_plot **v, size_t *n, const char *key)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].key, key))
			return (*v)[i].items;
	return NULL;
}

static void plots_release(struct cpu_plot *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].key);
	free(v);
}

static const char *cls_value(const struct kvb_group *g, const char *key, char *buf, size_t n)
{
	cJSON *c = cJSON_Parse(g->cls_json ? g->cls_json : "{}");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, key);
	snprintf(buf, n, "%s", cJSON_IsString(v) ? v->valuestring : "?");
	cJSON_Delete(c);
	return buf;
}

static void util_plots(struct kvb_page *p, const struct kvb_report *r, int *any)
{
	static const char *const spread[] = { "cpu" };
	struct cpu_plot *plots = NULL;
	size_t n = 0;
	for (size_t gi = 0; gi < r->ngroups; gi++) {
		const struct kvb_group *g = &r->groups[gi];
		char cpu[64], *cls, *key, *prefix;
		cJSON *items;
		if (strcmp(g->metric, "util_mean"))
			continue;
		section(p, any);
		cls = kvb_group_cls_without(g, spread, 1);
		key = kvb_xasprintf("%s\x1f%s", g->workload, cls);
		if (!(items = plot_items(&plots, &n, key))) {
			char *label = kvb_group_label_without(g, spread, 1);
			char *title = kvb_xasprintf("%s: util_mean per CPU%s%s", g->workload, *label ? ", " : "", label);
			cJSON *pl = kvb_plot_new("dotbox", title, "CPU and variant", "%");
			items = cJSON_AddArrayToObject(pl, "groups");
			kvb_page_plot(p, pl, "busy time of each CPU during the job");
			plots = kvb_xrealloc(plots, (n + 1) * sizeof(*plots));
			plots[n].key = kvb_xstrdup(key);
			plots[n++].items = items;
			free(title);
			free(label);
		}
		prefix = kvb_xasprintf("cpu%s", cls_value(g, "cpu", cpu, sizeof(cpu)));
		kvb_plot_group_dots(r, g, prefix, p->nruns, items);
		free(prefix);
		free(key);
		free(cls);
	}
	plots_release(plots, n);
}

/* One bar part: a frequency's mean residency for one variant. */
struct part {
	char *plot, *variant;
	size_t vidx;
	long long freq;
	char freq_s[32];
	double mean;
};

static int part_cmp(const void *a, const void *b)
{
	const struct part *x = a, *y = b;
	int c = strcmp(x->plot, y->plot);
	if (c)
		return c;
	if (x->vidx != y->vidx)
		return x->vidx < y->vidx ? -1 : 1;
	return x->freq < y->freq ? -1 : x->freq > y->freq;
}

static void freq_plots(struct kvb_page *p, const struct kvb_report *r, int *any)
{
	static const char *const spread[] = { "freq_mhz" };
	struct part *parts = NULL;
	size_t np = 0;
	struct kvb_strv titles = KVB_STRV_INIT, keys = KVB_STRV_INIT;
	for (size_t gi = 0; gi < r->ngroups; gi++) {
		const struct kvb_group *g = &r->groups[gi];
		char f[32], *cls;
		if (strcmp(g->metric, "freq_residency"))
			continue;
		cls = kvb_group_cls_without(g, spread, 1);
		for (size_t v = 0; v < r->variants.n; v++) {
			const struct kvb_cell *c = &g->cells[v];
			double sum = 0;
			if (!c->n)
				continue;
			for (size_t i = 0; i < c->n; i++)
				sum += c->v[i];
			parts = kvb_xrealloc(parts, (np + 1) * sizeof(*parts));
			parts[np].plot = kvb_xasprintf("%s\x1f%s", g->workload, cls);
			parts[np].variant = r->variants.v[v];
			parts[np].vidx = v;
			cls_value(g, "freq_mhz", f, sizeof(f));
			snprintf(parts[np].freq_s, sizeof(parts[np].freq_s), "%s", f);
			parts[np].freq = atoll(f);
			parts[np].mean = sum / (double)c->n;
			np++;
			{
				size_t k;
				for (k = 0; k < keys.n && strcmp(keys.v[k], parts[np - 1].plot); k++)
					;
				if (k == keys.n) {
					char cl[64], *label = kvb_group_label_without(g, spread, 1);
					kvb_strv_push(&keys, parts[np - 1].plot);
					kvb_strv_pushf(&titles, "%s cluster %s: frequency residency%s%s", g->workload,
						       cls_value(g, "cluster", cl, sizeof(cl)), *label ? ", " : "", label);
					free(label);
				}
			}
		}
		free(cls);
	}
	if (np)
		qsort(parts, np, sizeof(*parts), part_cmp);
	for (size_t i = 0; i < np;) {
		size_t k;
		cJSON *bars, *g = NULL;
		for (k = 0; strcmp(keys.v[k], parts[i].plot); k++)
			;
		section(p, any);
		{
			cJSON *pl = kvb_plot_new("stack", titles.v[k], "variant", "% of the job");
			bars = cJSON_AddArrayToObject(pl, "bars");
			kvb_page_plot(p, pl, "mean over the variant's jobs of the time at each frequency (MHz)");
		}
		for (; i < np && !strcmp(parts[i].plot, keys.v[k]); i++) {
			cJSON *bar;
			if (!g || strcmp(cJSON_GetObjectItem(g, "name")->valuestring, parts[i].variant)) {
				g = cJSON_CreateObject();
				cJSON_AddStringToObject(g, "name", parts[i].variant);
				cJSON_AddArrayToObject(g, "parts");
				cJSON_AddItemToArray(bars, g);
			}
			bar = cJSON_CreateObject();
			cJSON_AddStringToObject(bar, "name", parts[i].freq_s);
			cJSON_AddItemToObject(bar, "value", kvb_plot_num(parts[i].mean));
			cJSON_AddItemToArray(cJSON_GetObjectItem(g, "parts"), bar);
		}
	}
	for (size_t i = 0; i < np; i++)
		free(parts[i].plot);
	free(parts);
	kvb_strv_release(&titles);
	kvb_strv_release(&keys);
}

void kvb_page_cpu_plots(struct kvb_page *p, const struct kvb_report *r)
{
	int any = 0;
	if (!r)
		return;
	util_plots(p, r, &any);
	freq_plots(p, r, &any);
}
