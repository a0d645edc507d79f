/*
 * `kvbench diff`: per (metric, classifier group) and variant, the statistics
 * and the comparison against the baseline variant, rendered as mailing-list
 * tables (docs/design.md#statistics).
 *
 * The statistics and the verdict of each cell: results/cell_stats.h.
 */
#ifndef KVB_DIFF_H
#define KVB_DIFF_H

#include "core/numfmt.h"
#include "report/box.h"
#include "results/cell_stats.h"

#include <cjson/cJSON.h>
#include <stdio.h>

struct kvb_diff_opts {
	struct kvb_report_opts sel;
	const char *format;  /* a name in the format registry (report/format.h); NULL = table */
	const char *layout;  /* long (default) | wide */
	enum kvb_stat stat;
	double alpha;
	double margin;       /* --margin as a fraction, for every group; 0 = the agenda's or KVB_VERDICT_MARGIN */
};

/* Loads, computes and prints. Returns KVB_OK, KVB_EINPUT (nothing matches / bad option) or KVB_ESTORE. */
int kvb_diff_print(struct kvb_store *s, const struct kvb_diff_opts *o, FILE *out, struct kvb_error *err);


/* The diff table of a loaded report (long, wide or --by layout) into *table (caller releases). */
void kvb_diff_table(const struct kvb_report *r, const struct kvb_diff_opts *o, struct kvb_box *table, int *one_boot);
/* The legend printed under the table (caller frees). */
char *kvb_diff_legend(const struct kvb_report *r, const struct kvb_diff_opts *o);
/* Every statistic, p-value, CI and raw value of a loaded report (caller cJSON_Delete()s). */
cJSON *kvb_diff_json(const struct kvb_report *r, const struct kvb_diff_opts *o);

#endif
