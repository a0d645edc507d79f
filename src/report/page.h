/*
 * `kvbench report`: everything about one or more runs on one page
 * (docs/design.md#outputs-and-the-report): run metadata (platform, agenda, each variant's kernel
 * with sha256, the identity seen after each boot, cmdline, knobs), failures
 * and events, the diff table with verdicts, and plots: per metric every
 * sample as dots over a box coloured by boot; Jankbench frame-duration CDFs
 * (keep_frames artifacts); power over time per channel per job, decimated,
 * and energy per job per variant; rt-app slack and wake-up latency CDFs per
 * task (rt-app-log artifacts); where the util and cpufreq instruments ran,
 * util_mean per CPU and the frequency residency stacked per variant.
 * The page opens with a summary (forest) plot of every compared cell, then
 * the diff table, the mmtests quantile table, metric-vs-sweep, energy-vs-
 * performance and per-commit views (report/page_views.h); the per-metric and
 * per-job plots come last, folded per workload. --metric/--workload/--variant
 * narrow all of it (report/page_filters.h).
 * The document is rendered by any format of the registry (report/format.h);
 * html draws the plots.
 */
#ifndef KVB_PAGE_H
#define KVB_PAGE_H

#include "core/error.h"
#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

struct kvb_page_opts {
	const int64_t *runs;   /* run ids; none = the latest run */
	size_t nruns;
	const char *baseline;  /* variant; NULL = the first */
	const char *format;    /* registry name; NULL = html */
	const char *out_path;  /* written through a temporary file renamed into place; never half-written */
	size_t max_points;     /* points per power trace (decimation); 0 = 1000 */
	/* --metric, --workload, --variant: fnmatch globs, each repeatable (report/page_filters.h) */
	const char *const *metrics, *const *workloads, *const *variants;
	size_t nmetrics, nworkloads, nvariants;
};

/*
 * Writes the report. Errors (nothing is left at out_path then):
 * KVB_EUSAGE unknown format or baseline; KVB_EINPUT a DB without runs, an
 * unknown run, an unreadable d3, an output path that cannot be written;
 * KVB_ESTORE a DB of an older schema opened read-only, or a read error.
 * KVB_ENORESULTS (exit 1) when a run has no result at all (every job failed): the page
 * is written all the same (it shows the failures), and err says so.
 */
int kvb_page_write(struct kvb_store *s, const struct kvb_page_opts *o, struct kvb_error *err);

#endif
