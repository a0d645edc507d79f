/* Implements the report page's --metric/--workload/--variant filters as temp views (page_filters.h). */
#include "report/page_filters.h"
#include "workload/workload.h"
#include "store/rows.h"
#include "core/util.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

static int any_of(const char *const *pat, size_t n, const char *name)
{
	if (!n)
		return 1;
	for (size_t i = 0; i < n; i++)
		if (!fnmatch(pat[i], name, 0))
			return 1;
	return 0;
}

int kvb_page_filter_any(const struct kvb_page_filter *f)
{
	return f && (f->nmetric || f->nworkload || f->nvariant);
}

int kvb_page_filter_pass(const struct kvb_page_filter *f, const char *kind, const char *name)
{
	if (!f || !name)
		return 1;
	if (!strcmp(kind, "metric"))
		return any_of(f->metric, f->nmetric, name);
	if (!strcmp(kind, "workload"))
		return any_of(f->workload, f->nworkload, name);
	if (!strcmp(kind, "variant"))
		return (f->baseline && !strcmp(name, f->baseline)) || any_of(f->variant, f->nvariant, name);
	/* a per-job plot's kind: passes with one of the metrics it shows */
	if (!strcmp(kind, "artifact") || !strcmp(kind, "channel")) {
		if (!strcmp(name, "energy"))
			return any_of(f->metric, f->nmetric, "power_mean") || any_of(f->metric, f->nmetric, "energy");
		/* a workload's artifact plot: the metrics it declares with it (workload.h) */
		for (size_t i = 0; kvb_workloads[i]; i++)
			for (const struct kvb_artifact_plot *ap = kvb_workloads[i]->artifact_plots; ap && ap->kind; ap++)
				if (!strcmp(ap->kind, name))
					return (ap->metrics[0] && any_of(f->metric, f->nmetric, ap->metrics[0])) ||
					       (ap->metrics[1] && any_of(f->metric, f->nmetric, ap->metrics[1]));
		return 1;
	}
	return 1;
}

/* kvb_store_filter's predicate: the page filter's. */
static int keep(void *arg, const char *kind, const char *name)
{
	return kvb_page_filter_pass(arg, kind, name);
}

int kvb_page_filter_apply(struct kvb_store *s, struct kvb_page_filter *f, const char *runs_json, struct kvb_error *err)
{
	struct kvb_rows *st;
	int rc;
	if (!kvb_page_filter_any(f))
		return KVB_OK;
	if (!f->baseline) {
		if ((rc = kvb_rows_open(s,
					"SELECT name FROM main.variant WHERE run_id IN (SELECT value FROM json_each(?1))"
					" ORDER BY run_id, position LIMIT 1",
					&st, NULL, err)))
			return rc;
		kvb_rows_bind_text(st, 1, runs_json);
		if (kvb_rows_next(st, NULL) == 1)
			f->baseline = f->baseline_owned = kvb_xstrdup(kvb_rows_text(st, 0));
		kvb_rows_close(st);
	}
	return kvb_store_filter(s, keep, f, err);
}

void kvb_page_filter_drop(struct kvb_store *s, struct kvb_page_filter *f)
{
	if (!kvb_page_filter_any(f))
		return;
	kvb_store_filter_drop(s);
	if (f->baseline == f->baseline_owned)
		f->baseline = NULL;
	free(f->baseline_owned);
	f->baseline_owned = NULL;
}
