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
#include "report/event_notes.h"
#include "report/format.h"
#include "results/cell_stats.h"
#include "results/table.h"

#include <cjson/cJSON.h>
#include <stdio.h>

/*
 * diff's layouts (--layout): long, one row per (group, variant); wide, one row per group, the
 * variants side by side; mail, a compact plain-text table per metric that fits a mail (diff_mail.c).
 * --by KEY with long is the by-key table, with wide the mailing-list table (mailtable.h).
 */
enum kvb_layout { KVB_LAYOUT_LONG, KVB_LAYOUT_WIDE, KVB_LAYOUT_MAIL };
/* --layout's names in enum kvb_layout's order, NULL-terminated (usage and completion read them). */
extern const char *const kvb_layout_names[];
/* name -> *out; KVB_EINPUT when it is none of kvb_layout_names. */
enum kvb_err kvb_layout_parse(const char *name, enum kvb_layout *out);

struct kvb_diff_opts {
	struct kvb_report_opts sel;
	const struct kvb_format *fmt; /* resolved by the command (kvb_format_find); NULL = table */
	enum kvb_layout layout;       /* resolved by the command */
	enum kvb_stat stat;
	double alpha;
	double margin;       /* --margin as a fraction, for every group; 0 = the agenda's or KVB_VERDICT_MARGIN */
	int all;             /* --all: every metric; else a table for people without --metric/--workload is the
			      * front page (report/front.h) and says how many more there are */
};

/* Loads, computes and prints. Returns KVB_OK, KVB_EINPUT (nothing matches / bad option) or KVB_ESTORE. */
int kvb_diff_print(struct kvb_store *s, const struct kvb_diff_opts *o, FILE *out, struct kvb_error *err);


/* The format of o: o->fmt, or the table format. Never NULL. */
const struct kvb_format *kvb_diff_format(const struct kvb_diff_opts *o);

/*
 * The diff table of a computed comparison (long, wide or --by layout) into *table (caller
 * releases). notes (may be NULL): the job events whose footnote marks [1,2] the cells carry.
 * Groups in t->order for people's formats, in load order for csv and tsv.
 */
void kvb_diff_table(const struct kvb_table *t, const struct kvb_diff_opts *o, const struct kvb_event_notes *notes,
		    struct kvb_box *table);
/* The legend printed under the table (caller frees). */
char *kvb_diff_legend(const struct kvb_table *t, const struct kvb_diff_opts *o);
/* Every statistic, p-value, CI and raw value of a computed comparison, in load order (caller cJSON_Delete()s). */
cJSON *kvb_diff_json(const struct kvb_table *t);

#endif
