/*
 * Implements the mmtests compare-kernels view of the report (issue 30 item 3):
 * one row per (group, statistic) -- Min, 1st-qrtle, 2nd-qrtle, 3rd-qrtle, Max,
 * Hmean, Amean, the rows of mmtests' compare-kernels.sh -- and one column per
 * variant (kernel), the baseline's value alone and every other's followed by
 * its change in % of |baseline| as mmtests prints it, "12.34 (  5.10%)".
 * Quartiles are gsl_stats_quantile_from_sorted_data (Hyndman-Fan type 7, as
 * the boxes the page draws); means from kvb_stats_summary.
 */
#include "report/page_views.h"
#include "report/diff.h"
#include "report/shortlabel.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { Q_MIN, Q_Q1, Q_MED, Q_Q3, Q_MAX, Q_HMEAN, Q_AMEAN, Q_N };
static const char *const q_names[Q_N] = { "Min", "1st-qrtle", "2nd-qrtle", "3rd-qrtle", "Max", "Hmean", "Amean" };

/* The Q_N statistics of a cell (NAN when it has no value; Hmean NAN unless every value is positive). */
static void cell_quantiles(const struct kvb_cell *c, double q[Q_N])
{
	struct kvb_summary s;
	double *x;
	for (int i = 0; i < Q_N; i++)
		q[i] = NAN;
	if (!c->n || kvb_stats_summary(c->v, c->n, &s, NULL))
		return;
	x = kvb_xcalloc(c->n, sizeof(*x));
	memcpy(x, c->v, c->n * sizeof(*x));
	gsl_sort(x, 1, c->n);
	q[Q_MIN] = x[0];
	q[Q_Q1] = gsl_stats_quantile_from_sorted_data(x, 1, c->n, 0.25);
	q[Q_MED] = gsl_stats_quantile_from_sorted_data(x, 1, c->n, 0.5);
	q[Q_Q3] = gsl_stats_quantile_from_sorted_data(x, 1, c->n, 0.75);
	q[Q_MAX] = x[c->n - 1];
	q[Q_HMEAN] = s.hmean;
	q[Q_AMEAN] = s.mean;
	free(x);
}

void kvb_page_quantiles(struct kvb_page *p, const struct kvb_report *r)
{
	struct kvb_box *b;
	struct kvb_out_section *sec;
	size_t nv = r->variants.n;
	if (!r->ngroups || !nv)
		return;
	b = kvb_xcalloc(1, sizeof(*b));
	kvb_box_init(b, 4 + nv);
	kvb_box_header(b, 0, "workload", KVB_ALIGN_LEFT);
	kvb_box_header(b, 1, "metric", KVB_ALIGN_LEFT);
	kvb_box_header(b, 2, "classifiers", KVB_ALIGN_LEFT);
	kvb_box_header(b, 3, "stat", KVB_ALIGN_LEFT);
	for (size_t v = 0; v < nv; v++)
		kvb_box_header(b, 4 + v, r->variants.v[v], KVB_ALIGN_RIGHT);
	for (size_t gi = 0; gi < r->ngroups; gi++) {
		const struct kvb_group *g = &r->groups[gi];
		double (*q)[Q_N] = kvb_xcalloc(nv, sizeof(*q));
		for (size_t v = 0; v < nv; v++)
			cell_quantiles(&g->cells[v], q[v]);
		for (int k = 0; k < Q_N; k++) {
			kvb_box_cell(b, g->workload);
			kvb_box_cellf(b, "%s%s%s%s", g->metric, *g->units ? " (" : "", g->units, *g->units ? ")" : "");
			kvb_box_cell(b, g->label ? g->label : "");
			kvb_box_cell(b, q_names[k]);
			for (size_t v = 0; v < nv; v++) {
				char n1[64], raw[64], d[128];
				double x = q[v][k], base = q[0][k];
				if (isnan(x)) {
					kvb_box_cell_raw(b, "-", "", KVB_CELL_NULL);
					continue;
				}
				kvb_fmt_num(x, n1, sizeof(n1));
				if (v && !isnan(base) && base != 0)
					snprintf(d, sizeof(d), "%s (%7.2f%%)", n1, (x - base) / fabs(base) * 100.0);
				else
					snprintf(d, sizeof(d), "%s", n1);
				kvb_box_cell_raw(b, d, kvb_fmt_raw(x, raw, sizeof(raw)), KVB_CELL_NUM);
			}
		}
		free(q);
	}
	p->boxes = kvb_xrealloc(p->boxes, (p->nboxes + 1) * sizeof(*p->boxes));
	p->boxes[p->nboxes++] = b;
	sec = kvb_page_add(p, "Quantiles per variant (mmtests compare-kernels)", "quantiles");
	sec->table = b;
	sec->text = "Per group, the rows of mmtests' compare-kernels: Min, quartiles, Max, harmonic and arithmetic mean, one "
		    "column per variant; after the baseline, each value's change in % of |baseline| (no test: see Summary).";
	sec->fold = kvb_page_keep(p, kvb_xasprintf("Quantiles per variant: %zu groups x %d rows (click to open)",
						   r->ngroups, Q_N));
	sec->fold_end = 1;
}
