/*
 * Implements the report's per-commit plots (docs/design.md#kernels-from-git, docs/design.md#outputs-and-the-report; issue 30 item
 * 3): for a run made with `run --series` (variant_build rows), each metric
 * group along the commits -- every run's value as a dot at its commit -- with
 * the commits where E-Divisive finds a shift (report/series.h, the same
 * change points as `diff --series`) marked; for each `kvbench bisect` in the
 * DB, every step's measured mean along the steps, the first bad commit marked.
 */
#include "report/page_views.h"
#include "store/rows.h"
#include "report/series.h"
#include "report/shortlabel.h"

#include <stdlib.h>
#include <string.h>

/* Short commit label (7 hex digits) and "sha subject" per variant; 0 when the runs are not a series. */
static size_t commits(struct kvb_store *s, const struct kvb_page *p, const struct kvb_report *r, char **label,
		      char **full, struct kvb_error *err, int *rc)
{
	struct kvb_rows *st;
	size_t found = 0;
	*rc = kvb_page_query(s, p,
			     "SELECT v.name, b.commit_sha, coalesce(b.subject, '') FROM variant v JOIN variant_build b"
			     " ON b.variant_id = v.id WHERE v.run_id IN (SELECT value FROM json_each(?1))",
			     &st, err);
	if (*rc)
		return 0;
	while (kvb_rows_next(st, NULL) == 1) {
		const char *name = (const char *)kvb_rows_text(st, 0), *sha = (const char *)kvb_rows_text(st, 1);
		for (size_t v = 0; v < r->variants.n; v++)
			if (!strcmp(r->variants.v[v], name) && !label[v]) {
				label[v] = kvb_xasprintf("%.7s", sha);
				full[v] = kvb_xasprintf("%s %s", sha, (const char *)kvb_rows_text(st, 2));
				found++;
			}
	}
	kvb_rows_close(st);
	/* short hashes that collide (or a variant without a build row) say nothing: the variant names then */
	for (size_t v = 0; v < r->variants.n; v++)
		for (size_t w = v + 1; w < r->variants.n; w++)
			if (!label[v] || !label[w] || !strcmp(label[v], label[w]))
				for (size_t k = 0; k < r->variants.n; k++) {
					free(label[k]);
					label[k] = kvb_xstrdup(r->variants.v[k]);
				}
	return found;
}

static void series_plots(struct kvb_page *p, const struct kvb_report *r, char **label, char **full, double alpha)
{
	kvb_page_add(p, "Along the commits", "commits")->text =
		"A --series run: every run's value at its commit (dots) and, dashed, the commits where the metric shifts "
		"(E-Divisive change points over one mean per boot, as `kvbench diff --series`).";
	for (size_t gi = 0; gi < r->ngroups; gi++) {
		const struct kvb_group *g = &r->groups[gi];
		size_t cp[8], n;
		double pv[8];
		char *shortl = kvb_short_label(g->label), *title;
		cJSON *pl, *ser, *s, *x, *y, *ch, *xf;
		title = kvb_xasprintf("%s %s%s%s along the commits", g->workload, g->metric, *shortl ? " " : "", shortl);
		pl = kvb_plot_new("along", title, "commit", *g->units ? g->units : g->metric);
		cJSON_AddStringToObject(pl, "workload", g->workload);
		ser = cJSON_AddArrayToObject(pl, "series");
		s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, "name", g->metric);
		x = cJSON_AddArrayToObject(s, "x");
		y = cJSON_AddArrayToObject(s, "y");
		xf = cJSON_AddObjectToObject(pl, "xfull");
		for (size_t v = 0; v < r->variants.n; v++) {
			const char *lab = label[v] ? label[v] : r->variants.v[v];
			if (!cJSON_GetObjectItemCaseSensitive(xf, lab))
				cJSON_AddStringToObject(xf, lab, full[v] ? full[v] : r->variants.v[v]);
			for (size_t i = 0; i < g->cells[v].n; i++) {
				cJSON_AddItemToArray(x, cJSON_CreateString(lab));
				cJSON_AddItemToArray(y, kvb_plot_num(g->cells[v].v[i]));
			}
		}
		cJSON_AddItemToArray(ser, s);
		ch = cJSON_AddArrayToObject(pl, "changes");
		n = kvb_series_changepoints(r, g, alpha, cp, pv, KVB_ARRAY_SIZE(cp));
		for (size_t k = 0; k < n; k++)
			cJSON_AddItemToArray(ch, cJSON_CreateString(label[cp[k]] ? label[cp[k]] : r->variants.v[cp[k]]));
		kvb_page_plot(p, pl, g->lower_is_better ? "lower is better" : "higher is better");
		free(title);
		free(shortl);
	}
}

/* Every bisect of the DB: the steps' means in step order, coloured by outcome, the first bad commit marked. */
static int bisect_plots(struct kvb_store *s, struct kvb_page *p, struct kvb_error *err)
{
	struct kvb_rows *st;
	cJSON *pl = NULL, *ser = NULL, *ch = NULL, *xf = NULL, *xo = NULL;
	int64_t cur = -1;
	int any = 0;
	if (kvb_rows_open(s, "SELECT b.id, b.metric, b.first_bad_sha, s.step, s.commit_sha, s.outcome, s.value"
			       " FROM bisect b JOIN bisect_step s ON s.bisect_id = b.id"
			       " WHERE s.value IS NOT NULL ORDER BY b.id, s.step", &st, NULL, NULL) != KVB_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, kvb_store_errmsg(s));
	while (kvb_rows_next(st, NULL) == 1) {
		int64_t id = kvb_rows_int(st, 0);
		const char *sha = (const char *)kvb_rows_text(st, 4), *outcome = (const char *)kvb_rows_text(st, 5);
		const char *bad = (const char *)kvb_rows_text(st, 2);
		char lab[64];
		cJSON *sr = NULL;
		if (id != cur) {
			char *title = kvb_xasprintf("bisect %lld: %s along its steps", (long long)id,
						    (const char *)kvb_rows_text(st, 1));
			if (!any++)
				kvb_page_add(p, "Bisect steps", "bisect")->text =
					"Each bisect step's measured mean at its commit, in step order, coloured by its outcome; "
					"dashed: the first bad commit.";
			pl = kvb_plot_new("along", title, "step: commit", (const char *)kvb_rows_text(st, 1));
			ser = cJSON_AddArrayToObject(pl, "series");
			ch = cJSON_AddArrayToObject(pl, "changes");
			xf = cJSON_AddObjectToObject(pl, "xfull");
			xo = cJSON_AddArrayToObject(pl, "xorder"); /* step order, whatever the outcome */
			kvb_page_plot(p, pl, NULL);
			free(title);
			cur = id;
		}
		snprintf(lab, sizeof(lab), "%lld: %.7s", (long long)kvb_rows_int(st, 3), sha);
		cJSON_AddStringToObject(xf, lab, sha);
		cJSON_AddItemToArray(xo, cJSON_CreateString(lab));
		for (cJSON *x = ser->child; x && !sr; x = x->next)
			if (!strcmp(cJSON_GetObjectItemCaseSensitive(x, "name")->valuestring, outcome))
				sr = x;
		if (!sr) {
			sr = cJSON_CreateObject();
			cJSON_AddStringToObject(sr, "name", outcome);
			cJSON_AddArrayToObject(sr, "x");
			cJSON_AddArrayToObject(sr, "y");
			cJSON_AddItemToArray(ser, sr);
		}
		cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(sr, "x"), cJSON_CreateString(lab));
		cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(sr, "y"), kvb_plot_num(kvb_rows_double(st, 6)));
		if (bad && !strcmp(bad, sha))
			cJSON_AddItemToArray(ch, cJSON_CreateString(lab));
	}
	kvb_rows_close(st);
	return KVB_OK;
}

int kvb_page_series(struct kvb_store *s, struct kvb_page *p, const struct kvb_report *r, double alpha,
		    struct kvb_error *err)
{
	char **label = kvb_xcalloc(r->variants.n + 1, sizeof(*label)), **full = kvb_xcalloc(r->variants.n + 1, sizeof(*full));
	int rc = KVB_OK;
	if (r->ngroups && commits(s, p, r, label, full, err, &rc) >= 2)
		series_plots(p, r, label, full, alpha);
	for (size_t v = 0; v < r->variants.n; v++) {
		free(label[v]);
		free(full[v]);
	}
	free(label);
	free(full);
	return rc ? rc : bisect_plots(s, p, err);
}
