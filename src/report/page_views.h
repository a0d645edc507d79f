/*
 * The report page's summary and the anchors' views (issue 30, docs/design.md#outputs-and-the-report),
 * each built from the loaded comparison (results/groups.h) or the DB:
 *   plot_forest.c   the summary forest plot: diff's JSON per compared cell
 *   page_quantiles.c  mmtests compare-kernels table: quantile rows, variants as columns
 *   plot_sweep.c    a metric against a swept numeric classifier, per variant
 *   plot_scatter.c  energy against each performance metric, per variant, with CIs
 *   plot_series.c   a metric along the commits of a --series run or a bisect, change points marked
 *   page_fold.c     per-job and per-metric plots folded per workload with a summary line,
 *                   the 16.7 ms line on frame CDFs and log axes on latency CDFs
 * Statistics are computed here in C (GSL through stats/), never by the page's script.
 */
#ifndef KVB_PAGE_VIEWS_H
#define KVB_PAGE_VIEWS_H

#include "report/page_build.h"

/* Anchor of group index gi's detail plot ("detail-<gi>"), kept by the page. */
const char *kvb_forest_detail_id(struct kvb_page *p, size_t gi);
/*
 * The "Summary" section and its forest plot from diff_json (kvb_diff_json of
 * r); rows link to the section own_section(g) names (energy, cpu), else to
 * the group's samples plot, detail-<group>. Returns
 * the number of rows (0: no section added).
 */
int kvb_page_forest(struct kvb_page *p, const struct kvb_report *r, const cJSON *diff_json,
		    const char *(*own_section)(const struct kvb_group *));
/* mmtests-style quantile table (Min, 1st-3rd quartile, Max, Hmean, Amean per variant column), folded. */
void kvb_page_quantiles(struct kvb_page *p, const struct kvb_report *r);
/* Metric vs swept classifier plots (a numeric classifier with >= 3 values), per variant: mean and 95 % CI. */
void kvb_page_sweeps(struct kvb_page *p, const struct kvb_report *r);
/* Energy (J) against every other metric of a workload with energy, one point per variant with 95 % CIs. */
void kvb_page_energy_perf(struct kvb_page *p, const struct kvb_report *r);
/* Series (variant_build rows) and bisect DBs: each metric along the commits with change points. */
int kvb_page_series(struct kvb_store *s, struct kvb_page *p, const struct kvb_report *r, double alpha,
		    struct kvb_error *err);
/*
 * Folds sections [from, to) of the page: consecutive plots of the same
 * workload (spec member "workload", or the workload of spec member "job")
 * into one collapsed <details> whose summary is the workload, the number of
 * plots and what says per variant. Errors: KVB_ESTORE.
 */
int kvb_page_fold_workloads(struct kvb_store *s, struct kvb_page *p, size_t from, size_t to, const char *what,
			    struct kvb_error *err);
/*
 * Folds the CDF plots of sections [from, to), each run of one kind (the title
 * after its last ": ", "slack CDF") into one <details> whose summary gives
 * the number of plots and each variant's median of all their values (unit).
 */
void kvb_page_fold_cdfs(struct kvb_page *p, size_t from, size_t to, const char *unit);
/* Marks plots of sections [from, to): a vertical line at x with label (Jankbench: 16.7 ms), or log x (latency). */
void kvb_page_mark_plots(struct kvb_page *p, size_t from, size_t to, const char *title_has, double vline_x,
			 const char *vline_label, int xlog);

#endif
