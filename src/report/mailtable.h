/*
 * The mailing-list table (`diff --layout wide --by KEY`), the shape of the
 * posts kvbench was born from (shared/seeds 000, 001):
 *
 *   sched_pipe ops_per_sec (ops/s), higher is better
 *   | cgroup_depth | base mean(±cov)  | patch mean(±cov) | patch diff | patch verdict |
 *   | root         | 59652(±0.18%)    | 59876(±0.24%)    |     +0.38% | same          |
 *   | level1       | 55608(±0.27%)    | 55923(±0.24%)    |    +0.57%* | better        |
 *
 * One table per (workload, metric, other classifiers), in the order of the
 * --metric patterns; rows are the KEY values (cgroup_depth 0.. as root,
 * level1..); per variant the statistic (--stat) with its CoV, then per
 * non-baseline variant the % difference with `*` when significant and the
 * three-way verdict (results/table.h; report/verdict_cell.h, whose legend the
 * caller prints under the tables). csv: one table, full precision, with
 * workload/metric/classifier columns instead of titles.
 */
#ifndef KVB_REPORT_MAILTABLE_H
#define KVB_REPORT_MAILTABLE_H

#include "report/diff.h"
#include "report/format.h"

/* Renders t (its report loaded with o->sel.by set) to out. fmt: a format with a table writer
 * (fmt->table); one long table when it holds one (KVB_FMT_ONE_TABLE). */
void kvb_mailtable_print(const struct kvb_table *t, const struct kvb_diff_opts *o, const struct kvb_format *fmt,
			 FILE *out);

#endif
