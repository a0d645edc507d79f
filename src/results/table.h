/*
 * The computed comparison: every cell's statistics and verdict (results/cell_stats.h) computed
 * once, for every output that shows them: diff's long, wide, --by and mail layouts, its JSON,
 * the mailing-list table and the report page (docs/outputs.md). Renderers read cells from here
 * and compute nothing.
 *
 * The order of the groups for people (kvb_table.order): what changed first (a decided better or
 * worse in any variant), then what is not decided (undecided, untested, n<2, left out), then
 * "same", then groups with nothing compared; within a rank a count metric (units "count":
 * frames rendered, activations: bookkeeping rather than performance) comes after the others, and
 * otherwise the load order (results/groups.h) is kept. Scripts' formats (csv, json) keep the load
 * order.
 */
#ifndef KVB_RESULTS_TABLE_H
#define KVB_RESULTS_TABLE_H

#include "results/cell_stats.h"
#include "results/groups.h"
#include "core/metric.h"

#include <stddef.h>

/* How much a group tells (kvb_table_rank), lower first. */
enum kvb_table_rank { KVB_RANK_CHANGED, KVB_RANK_UNDECIDED, KVB_RANK_SAME, KVB_RANK_NONE };

struct kvb_table {
	const struct kvb_report *r;  /* borrowed: outlives the table; its margins set (verdict_cell.h) */
	enum kvb_stat stat;          /* the statistic shown and tested (--stat) */
	double alpha;
	const char *by;              /* the classifier spread into columns (--by), borrowed, or NULL */
	struct kvb_cell_stats *cs;   /* r->ngroups x r->variants.n, [g * nv + v] (owned) */
	size_t *order;               /* r->ngroups group indices, what changed first (owned) */
	int one_boot;                /* some comparison has a single boot per variant */
	int any_labels;              /* some group has a classifier label */
};

/*
 * Sets every group's margin: `override` (a fraction, from --margin) when > 0,
 * else the agenda's config.margins of the report's first run (results-schema
 * run.agenda_json), else KVB_VERDICT_MARGIN. Errors: KVB_ESTORE.
 */
int kvb_report_set_margins(struct kvb_store *s, struct kvb_report *r, double override, struct kvb_error *err);

/*
 * The metric declaration of (workload, metric), or NULL for one kvbench does not know (an
 * imported WA3 metric): the caller's registry (workload/ and instrument/), handed in.
 */
typedef const struct kvb_metric_decl *(*kvb_metric_decl_fn)(const char *workload, const char *metric);
/*
 * Sets every group's resolution and finer sibling from its metric's declaration (core/metric.h):
 * a cell the tool's printed step cannot resolve then says so instead of asking for boots.
 */
void kvb_report_set_steps(struct kvb_report *r, kvb_metric_decl_fn decl);

/* Computes every cell of r once (kvb_cell_compute with stat and alpha; by: the --by key r was loaded
 * with, or NULL). Call after kvb_report_set_margins. Never fails; release with kvb_table_release. */
void kvb_table_compute(const struct kvb_report *r, enum kvb_stat stat, double alpha, const char *by,
		       struct kvb_table *t);
void kvb_table_release(struct kvb_table *t);

/* The cell of group g, variant v (0 = the baseline). */
const struct kvb_cell_stats *kvb_table_cell(const struct kvb_table *t, size_t g, size_t v);

/* What group g tells, over its compared variants (the header comment). */
enum kvb_table_rank kvb_table_rank(const struct kvb_table *t, size_t g);

#endif
