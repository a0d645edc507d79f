/* Implements the report's distribution plots: the CDFs workloads declare over their artifacts (workload.h kvb_artifact_plot). */
#include "report/page_build.h"
#include "store/rows.h"
#include "workload/workload.h"

#include <stdlib.h>
#include <string.h>

/* name -> series of values, in first-seen order (small n: linear search). */
struct series_set {
	struct kvb_strv key, name;  /* key groups plots (task, test), name is the series (variant) */
	double **v;
	size_t *n, *alloc;
};

static void series_add(struct series_set *ss, const char *key, const char *name, double x)
{
	size_t i;
	for (i = 0; i < ss->key.n && (strcmp(ss->key.v[i], key) || strcmp(ss->name.v[i], name)); i++)
		;
	if (i == ss->key.n) {
		kvb_strv_push(&ss->key, key);
		kvb_strv_push(&ss->name, name);
		ss->v = kvb_xrealloc(ss->v, (i + 1) * sizeof(*ss->v));
		ss->n = kvb_xrealloc(ss->n, (i + 1) * sizeof(*ss->n));
		ss->alloc = kvb_xrealloc(ss->alloc, (i + 1) * sizeof(*ss->alloc));
		ss->v[i] = NULL;
		ss->n[i] = ss->alloc[i] = 0;
	}
	if (ss->n[i] == ss->alloc[i]) {
		ss->alloc[i] = ss->alloc[i] ? 2 * ss->alloc[i] : 256;
		ss->v[i] = kvb_xrealloc(ss->v[i], ss->alloc[i] * sizeof(double));
	}
	ss->v[i][ss->n[i]++] = x;
}

/* One cdf plot per key, one series per name. */
static void series_cdfs(struct kvb_page *p, struct series_set *ss, const char *what, const char *xlabel)
{
	struct kvb_strv done = KVB_STRV_INIT;
	for (size_t i = 0; i < ss->key.n; i++) {
		size_t k;
		for (k = 0; k < done.n && strcmp(done.v[k], ss->key.v[i]); k++)
			;
		if (k < done.n)
			continue;
		kvb_strv_push(&done, ss->key.v[i]);
		char *title = kvb_xasprintf("%s: %s", ss->key.v[i], what);
		cJSON *pl = kvb_plot_new("cdf", title, xlabel, "fraction"), *arr = cJSON_CreateArray();
		for (size_t j = i; j < ss->key.n; j++) {
			if (strcmp(ss->key.v[j], ss->key.v[i]))
				continue;
			cJSON *s = cJSON_CreateObject(), *vals = cJSON_CreateArray();
			cJSON_AddStringToObject(s, "name", ss->name.v[j]);
			for (size_t x = 0; x < ss->n[j]; x++)
				cJSON_AddItemToArray(vals, kvb_plot_num(ss->v[j][x]));
			cJSON_AddItemToObject(s, "values", vals);
			cJSON_AddItemToArray(arr, s);
		}
		cJSON_AddItemToObject(pl, "series", arr);
		kvb_page_plot(p, pl, NULL);
		free(title);
	}
	kvb_strv_release(&done);
}

static void series_release(struct series_set *ss)
{
	for (size_t i = 0; i < ss->key.n; i++)
		free(ss->v[i]);
	free(ss->v);
	free(ss->n);
	free(ss->alloc);
	kvb_strv_release(&ss->key);
	kvb_strv_release(&ss->name);
}

/* Artifacts of a kind for the page's runs: rows (path, variant, job). */
static const char *artifact_sql =
	"SELECT a.path, v.name, j.id FROM artifact a JOIN job j ON j.id = a.job_id JOIN variant v ON v.id = j.variant_id"
	" WHERE a.kind = ?1 AND j.run_id IN (SELECT value FROM json_each(?2)) AND j.status IN ('ok', 'instrument-failed')"
	" ORDER BY j.run_id, j.seq, a.id";

static int artifacts(struct kvb_store *s, struct kvb_page *p, const char *kind, struct kvb_rows **st, struct kvb_error *err)
{
	int rc = kvb_rows_open(s, artifact_sql, st, NULL, err);
	if (rc)
		return rc;
	kvb_rows_bind_text(*st, 1, kind);
	kvb_rows_bind_text(*st, 2, p->runs_json);
	return KVB_OK;
}

/* What a workload's read() adds to: the sets, and the variant of the artifact being read. */
struct add_ctx {
	struct series_set *sets;
	size_t nsets;
	const char *variant;
};

static void add_value(void *arg, size_t set, const char *key, double x)
{
	struct add_ctx *c = arg;
	if (set < c->nsets)
		series_add(&c->sets[set], key, c->variant, x);
}

/* The plots of one workload's artifact plot ap (workload.h): a section, then per set one CDF per key. */
static int artifact_cdfs(struct kvb_store *s, struct kvb_page *p, const struct kvb_artifact_plot *ap,
			 struct kvb_error *err)
{
	struct series_set sets[2];
	struct kvb_buf bad = KVB_BUF_INIT;
	struct kvb_rows *st;
	size_t files = 0, nsets = ap->nsets > 2 ? 2 : ap->nsets;
	int rc;
	memset(sets, 0, sizeof(sets));
	if ((rc = artifacts(s, p, ap->kind, &st, err)))
		return rc;
	while (kvb_rows_next(st, NULL) == 1) {
		const char *path = (const char *)kvb_rows_text(st, 0);
		struct add_ctx c = { sets, nsets, (const char *)kvb_rows_text(st, 1) };
		char why[512] = "";
		files++;
		if (ap->read(path, add_value, &c, why, sizeof(why)))
			kvb_buf_addf(&bad, "%s%s", bad.len ? "; " : "", why[0] ? why : path);
	}
	kvb_rows_close(st);
	if (files) {
		kvb_page_add(p, ap->section, ap->anchor)->text =
			bad.len ? kvb_page_keep(p, kvb_xasprintf("%s Unreadable artifacts: %s", ap->text, bad.data)) : ap->text;
		for (size_t k = 0; k < nsets; k++)
			series_cdfs(p, &sets[k], ap->what[k], ap->xlabel[k]);
	}
	kvb_buf_release(&bad);
	for (size_t k = 0; k < 2; k++)
		series_release(&sets[k]);
	return KVB_OK;
}

int kvb_page_workload_cdfs(struct kvb_store *s, struct kvb_page *p, const struct kvb_artifact_plot *ap,
			   struct kvb_error *err)
{
	return artifact_cdfs(s, p, ap, err);
}
