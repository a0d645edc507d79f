/*
 * `kvbench report --metric GLOB --workload GLOB --variant GLOB` (issue 30):
 * the page shows only what passes. Each option repeats (a name passing any
 * pattern passes); patterns are fnmatch(3) globs as diff's --metric; the
 * baseline variant always passes (every change is against it).
 *
 * How: the page's queries read the tables and views job, variant, boot,
 * results, jobs, energy, energy_channel, artifact and event by their bare
 * names; kvb_page_filter_apply creates TEMP views of those names over the
 * main schema's, filtered, and SQLite resolves a bare name to the temp schema
 * first, so every section (tables, comparison, plots) sees the same subset
 * with no query of its own changed. Per-job plots follow their metrics: power
 * traces pass with power_mean or energy, frame-duration CDFs with
 * frame_duration_mean, rt-app CDFs with slack_mean or wu_lat_mean.
 * Views in the main schema still read the main tables (SQLite binds them to
 * their own schema), which is why the views are shadowed as well.
 */
#ifndef KVB_PAGE_FILTERS_H
#define KVB_PAGE_FILTERS_H

#include "core/error.h"
#include "store/store.h"

#include <stddef.h>

struct kvb_page_filter {
	const char *const *metric, *const *workload, *const *variant;
	size_t nmetric, nworkload, nvariant;
	const char *baseline;  /* kept whatever --variant says (set by kvb_page_filter_apply when NULL) */
	char *baseline_owned;
};

/* 1 when a filter is given at all. */
int kvb_page_filter_any(const struct kvb_page_filter *f);
/* 1 when name passes the patterns of kind "metric", "workload" or "variant". */
int kvb_page_filter_pass(const struct kvb_page_filter *f, const char *kind, const char *name);
/*
 * Creates the temp views over the runs (a JSON array text, for the default
 * baseline: the first variant of the first run). f must outlive
 * kvb_page_filter_drop. KVB_ESTORE on a DB error.
 */
int kvb_page_filter_apply(struct kvb_store *s, struct kvb_page_filter *f, const char *runs_json, struct kvb_error *err);
/* Drops the views (when applied) and frees what apply kept. */
void kvb_page_filter_drop(struct kvb_store *s, struct kvb_page_filter *f);

#endif
