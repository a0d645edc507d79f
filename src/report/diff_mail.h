/*
 * `kvbench diff --layout mail` (docs/tables.md): per (workload, metric) a plain-text table, rows
 * the --by values or the classifier labels, per variant `mean (±cov%)`, per compared variant the
 * % change (* significant) and the verdict word, n once in the title, the legend and the notes
 * once at the end; two variants fit 80 columns, a label longer than 20 columns goes whole on a
 * line of its own. markdown fences it as a code block.
 */
#ifndef KVB_REPORT_DIFF_MAIL_H
#define KVB_REPORT_DIFF_MAIL_H

#include "core/error.h"
#include "report/event_notes.h"
#include "report/format.h"
#include "results/table.h"

#include <stdio.h>

/* Renders t to out in fmt (table or markdown); notes may be NULL. Tables in t's order (what changed
 * first), rows in load order. Errors: KVB_EUSAGE for a format without prose (csv, tsv, json, html). */
int kvb_diff_mail(const struct kvb_table *t, const struct kvb_format *fmt, const struct kvb_event_notes *notes,
		  FILE *out, struct kvb_error *err);

#endif
