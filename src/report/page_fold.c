/*
 * Implements the report's folding and plot marks (issue 30 item 2): per-job
 * and per-metric plots collapsed per workload behind a one-line summary of
 * what each variant did, CDF sections collapsed behind each variant's median,
 * the 16.7 ms frame budget on Jankbench CDFs and log axes on latency CDFs.
 */
#include "report/page_views.h"
#include "store/rows.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <stdlib.h>
#include <string.h>

/* The workload a plot belongs to (spec "workload", else the job's of spec "job"), owned; NULL when neither. */
static char *plot_workload(struct kvb_store *s, const cJSON *pl)
{
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(pl, "workload"), *job = cJSON_GetObjectItemCaseSensitive(pl, "job");
	struct kvb_rows *st;
	char *out = NULL;
	if (cJSON_IsString(w))
		return kvb_xstrdup(w->valuestring);
	if (!cJSON_IsNumber(job) ||
	    kvb_rows_open(s, "SELECT workload FROM job WHERE id = ?", &st, NULL, NULL) != KVB_OK)
		return NULL;
	kvb_rows_bind_int(st, 1, (int64_t)job->valuedouble);
	if (kvb_rows_next(st, NULL) == 1)
		out = kvb_xstrdup((const char *)kvb_rows_text(st, 0));
	kvb_rows_close(st);
	return out;
}

/* Per variant the mean power over the workload's jobs (the total_power channel, else the first) and the instrument
 * that measured it: "mean power (total_power, instrument acme-sim): a 1.5 W; b 1.8 W". */
static int power_summary(struct kvb_store *s, const struct kvb_page *p, const char *workload, struct kvb_buf *b,
			 struct kvb_error *err)
{
	struct kvb_rows *st;
	int rc = kvb_page_query(s, p,
				"SELECT v.name, c.name, c.instrument, avg(c.energy_j * 1e9 / (c.t_last_ns - c.t_first_ns))"
				" FROM energy_channel c JOIN job j ON j.id = c.job_id JOIN variant v ON v.id = j.variant_id"
				" WHERE j.run_id IN (SELECT value FROM json_each(?1)) AND j.workload = ?2"
				" AND c.energy_j IS NOT NULL AND c.t_last_ns > c.t_first_ns"
				" AND c.name = (SELECT CASE WHEN sum(c2.name = 'total_power') > 0 THEN 'total_power'"
				"   ELSE min(c2.name) END FROM energy_channel c2 JOIN job j2 ON j2.id = c2.job_id"
				"   WHERE j2.run_id IN (SELECT value FROM json_each(?1)) AND j2.workload = ?2)"
				" GROUP BY v.id ORDER BY v.run_id, v.position",
				&st, err);
	if (rc)
		return rc;
	kvb_rows_bind_text(st, 2, workload);
	while (kvb_rows_next(st, NULL) == 1) {
		if (!b->len)
			kvb_buf_addf(b, "mean power (%s, instrument %s):", (const char *)kvb_rows_text(st, 1),
				     (const char *)kvb_rows_text(st, 2));
		kvb_buf_addf(b, " %s %.3g W;", (const char *)kvb_rows_text(st, 0), kvb_rows_double(st, 3));
	}
	kvb_rows_close(st);
	if (b->len)
		b->data[--b->len] = '\0';
	return KVB_OK;
}

/* Per variant, the verdicts of the workload's cells, from the comparison table of section "comparison". */
static void verdict_summary(const struct kvb_page *p, const char *workload, struct kvb_buf *b)
{
	const struct kvb_box *t = NULL;
	size_t cw = 0, cv = 0, cverdict = 0;
	for (size_t i = 0; i < p->n && !t; i++)
		if (p->sec[i].id && !strcmp(p->sec[i].id, "comparison"))
			t = p->sec[i].table;
	if (!t)
		return;
	for (size_t c = 0; c < t->ncols; c++) {
		cw = !strcmp(t->head.v[c], "workload") ? c : cw;
		cv = !strcmp(t->head.v[c], "variant") ? c : cv;
		cverdict = !strcmp(t->head.v[c], "verdict") ? c : cverdict;
	}
	if (!cverdict || !cv)
		return;
	{
		struct kvb_strv seen = KVB_STRV_INIT;
		for (size_t r = 0; r < t->nrows; r++) {
			const char *v = kvb_box_at(t, r, cv);
			size_t k;
			if (strcmp(kvb_box_at(t, r, cw), workload) || !strncmp(kvb_box_at(t, r, cverdict), "baseline", 8))
				continue;
			for (k = 0; k < seen.n && strcmp(seen.v[k], v); k++)
				;
			if (k < seen.n)
				continue;
			kvb_strv_push(&seen, v);
			{
				static const char *const kinds[] = { "better", "worse", "changed", "same", "undecided",
								     "untested" };
				size_t cnt[6] = { 0 };
				kvb_buf_addf(b, "%s%s:", b->len ? "; " : "", v);
				for (size_t q = 0; q < t->nrows; q++)
					if (!strcmp(kvb_box_at(t, q, cw), workload) && !strcmp(kvb_box_at(t, q, cv), v))
						for (size_t kk = 0; kk < 6; kk++)
							cnt[kk] += !strncmp(kvb_box_at(t, q, cverdict), kinds[kk], strlen(kinds[kk]));
				for (size_t kk = 0; kk < 6; kk++)
					if (cnt[kk])
						kvb_buf_addf(b, " %zu %s", cnt[kk], kinds[kk]);
			}
		}
		kvb_strv_release(&seen);
	}
}

int kvb_page_fold_workloads(struct kvb_store *s, struct kvb_page *p, size_t from, size_t to, const char *what,
			    struct kvb_error *err)
{
	size_t i = from;
	int rc = KVB_OK;
	while (i < to && !rc) {
		char *w = p->sec[i].plot ? plot_workload(s, p->sec[i].plot) : NULL;
		size_t j = i + 1;
		struct kvb_buf b = KVB_BUF_INIT;
		if (!w) {
			i++;
			continue;
		}
		while (j < to && p->sec[j].plot) {
			char *w2 = plot_workload(s, p->sec[j].plot);
			int same = w2 && !strcmp(w2, w);
			free(w2);
			if (!same)
				break;
			j++;
		}
		if (!strcmp(what, "power"))
			rc = power_summary(s, p, w, &b, err);
		else
			verdict_summary(p, w, &b);
		p->sec[i].fold = kvb_page_keep(p, kvb_xasprintf("%s: %zu %s plot%s%s%s", w, j - i, what, j - i > 1 ? "s" : "",
								b.len ? " \u2014 " : "", b.len ? b.data : ""));
		p->sec[j - 1].fold_end = 1;
		kvb_buf_release(&b);
		free(w);
		i = j;
	}
	return rc;
}

/* The kind of a CDF plot: its title after the last ": " ("slack CDF"). */
static const char *cdf_kind(const struct kvb_out_section *sec)
{
	const cJSON *t = sec->plot ? cJSON_GetObjectItemCaseSensitive(sec->plot, "title") : NULL;
	const char *c;
	if (!cJSON_IsString(t))
		return NULL;
	c = strrchr(t->valuestring, ':');
	return c ? c + 2 : t->valuestring;
}

/* Folds plots [first, last] (all of one kind) behind n, the kind and each series' median. */
static void fold_run(struct kvb_page *p, size_t first, size_t last, const char *kind, const char *unit)
{
	struct kvb_strv names = KVB_STRV_INIT;
	struct kvb_buf b = KVB_BUF_INIT;
	size_t nplots = last - first + 1;
	for (size_t i = first; i <= last; i++) {
		const cJSON *ser = cJSON_GetObjectItemCaseSensitive(p->sec[i].plot, "series"), *sr;
		cJSON_ArrayForEach(sr, ser) {
			const char *nm = cJSON_GetObjectItemCaseSensitive(sr, "name")->valuestring;
			size_t k;
			for (k = 0; k < names.n && strcmp(names.v[k], nm); k++)
				;
			if (k == names.n)
				kvb_strv_push(&names, nm);
		}
	}
	/* per variant (series name), the median of every value of every plot of the run */
	for (size_t k = 0; k < names.n; k++) {
		double *x = NULL;
		size_t n = 0, alloc = 0;
		for (size_t i = first; i <= last; i++) {
			const cJSON *ser = cJSON_GetObjectItemCaseSensitive(p->sec[i].plot, "series"), *sr, *v;
			cJSON_ArrayForEach(sr, ser) {
				if (strcmp(cJSON_GetObjectItemCaseSensitive(sr, "name")->valuestring, names.v[k]))
					continue;
				cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(sr, "values")) {
					if (!cJSON_IsNumber(v))
						continue;
					if (n == alloc) {
						alloc = alloc ? 2 * alloc : 1024;
						x = kvb_xrealloc(x, alloc * sizeof(*x));
					}
					x[n++] = v->valuedouble;
				}
			}
		}
		if (n) {
			gsl_sort(x, 1, n);
			kvb_buf_addf(&b, "%s%s %.4g %s", b.len ? ", " : "", names.v[k],
				     gsl_stats_median_from_sorted_data(x, 1, n), unit);
		}
		free(x);
	}
	p->sec[first].fold = kvb_page_keep(p, kvb_xasprintf("%zu %s plot%s%s%s", nplots, kind, nplots > 1 ? "s" : "",
							    b.len ? " \u2014 median per variant: " : "", b.len ? b.data : ""));
	p->sec[last].fold_end = 1;
	kvb_buf_release(&b);
	kvb_strv_release(&names);
}

void kvb_page_fold_cdfs(struct kvb_page *p, size_t from, size_t to, const char *unit)
{
	size_t i = from;
	while (i < to) {
		const char *kind = cdf_kind(&p->sec[i]);
		size_t j = i;
		if (!kind) {
			i++;
			continue;
		}
		while (j + 1 < to && cdf_kind(&p->sec[j + 1]) && !strcmp(cdf_kind(&p->sec[j + 1]), kind))
			j++;
		fold_run(p, i, j, kind, unit);
		i = j + 1;
	}
}

void kvb_page_mark_plots(struct kvb_page *p, size_t from, size_t to, const char *title_has, double vline_x,
			 const char *vline_label, int xlog)
{
	for (size_t i = from; i < to; i++) {
		cJSON *pl = (cJSON *)p->sec[i].plot, *t;
		if (!pl || !(t = cJSON_GetObjectItemCaseSensitive(pl, "title")) || !cJSON_IsString(t) ||
		    !strstr(t->valuestring, title_has))
			continue;
		if (vline_label) {
			cJSON *vl = cJSON_AddObjectToObject(pl, "vline");
			cJSON_AddNumberToObject(vl, "x", vline_x);
			cJSON_AddStringToObject(vl, "label", vline_label);
		}
		if (xlog)
			cJSON_AddBoolToObject(pl, "xlog", 1);
	}
}
