/*
 * `kvbench diff --series`: a run made with `run --series` (one variant per
 * commit, table variant_build) read as a series. Per metric group, one row
 * per commit: its mean, the change against the first commit and against its
 * parent (the previous commit of the series that has results), each with the
 * boot-aware verdict of `kvbench diff` (report/diff.h), and the commits where
 * the metric shifts by E-Divisive change-point detection (stats/changepoint.h)
 * over one observation per (commit, boot): the mean of that boot's runs.
 */
#ifndef KVB_REPORT_SERIES_H
#define KVB_REPORT_SERIES_H

#include "report/diff.h"

/* Prints the series tables of o->sel (one run). format: table | json. KVB_EINPUT when the run has no series. */
int kvb_series_print(struct kvb_store *s, const struct kvb_diff_opts *o, FILE *out, struct kvb_error *err);

/*
 * One metric group's change points as commit (variant) indices into r->variants, each with
 * its permutation p (< p0, the significance level: `diff --alpha`); returns their count.
 */
size_t kvb_series_changepoints(const struct kvb_report *r, const struct kvb_group *g, double p0, size_t *first_commit,
			       double *p, size_t max);

#endif
