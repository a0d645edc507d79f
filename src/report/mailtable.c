/* Implements the mailing-list table: rows = a classifier's values, columns = mean(±cov%) and diff per variant. */
#include "report/mailtable.h"
#include "report/box.h"
#include "report/verdict_cell.h"

#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The table a group belongs to: everything but the --by value. Owned. */
static char *table_key(const struct kvb_group *g)
{
	return kvb_xasprintf("%s\x1f%s\x1f%s\x1f%s", g->workload, g->metric, g->units, g->cls_json);
}

/* Position of the first --metric pattern the metric matches (tables follow the command line). */
static size_t metric_rank(const struct kvb_report_opts *sel, const char *metric)
{
	for (size_t i = 0; i < sel->nmetric_globs; i++)
		if (!fnmatch(sel->metric_globs[i], metric, 0))
			return i;
	return 0;
}

static const struct kvb_group *find(const struct kvb_report *r, const char *table, const char *by)
{
	for (size_t gi = 0; gi < r->ngroups; gi++) {
		const struct kvb_group *g = &r->groups[gi];
		char *k = table_key(g);
		int hit = !strcmp(k, table) && !strcmp(g->by_value ? g->by_value : "-", by);
		free(k);
		if (hit)
			return g;
	}
	return NULL;
}

/* Adds s to v unless present; returns its index. */
static size_t intern(struct kvb_strv *v, const char *s)
{
	size_t k;
	for (k = 0; k < v->n && strcmp(v->v[k], s); k++)
		;
	if (k == v->n)
		kvb_strv_push(v, s);
	return k;
}

static void cells(struct kvb_box *b, const struct kvb_table *t, const struct kvb_group *g, int csv)
{
	size_t nv = t->r->variants.n;
	const struct kvb_cell_stats *cs = kvb_table_cell(t, (size_t)(g - t->r->groups), 0);
	char n1[64], vt[256];
	for (size_t v = 0; v < nv; v++) {
		if (!cs[v].ok)
			kvb_box_cell(b, csv ? "" : "-");
		else if (csv)
			kvb_box_cellf(b, "%s", kvb_fmt_num(cs[v].value, n1, sizeof(n1)));
		else if (isnan(cs[v].s.cov_pct))
			kvb_box_cell(b, kvb_fmt_num(cs[v].value, n1, sizeof(n1)));
		else
			kvb_box_cellf(b, "%s(±%.2f%%)", kvb_fmt_num(cs[v].value, n1, sizeof(n1)), cs[v].s.cov_pct);
		if (csv) {
			if (cs[v].ok && !isnan(cs[v].s.cov_pct))
				kvb_box_cellf(b, "%.17g", cs[v].s.cov_pct);
			else
				kvb_box_cell(b, "");
		}
	}
	for (size_t v = 1; v < nv; v++) {
		if (!cs[v].has_cmp || isnan(cs[v].diff_pct))
			kvb_box_cell(b, csv ? "" : "-");
		else if (csv)
			kvb_box_cellf(b, "%.17g", cs[v].diff_pct);
		else
			kvb_box_cellf(b, "%+.2f%%%s", cs[v].diff_pct, cs[v].significant ? "*" : "");
		if (csv)
			kvb_box_cell(b, cs[v].has_cmp ? (cs[v].significant ? "1" : "0") : "");
		if (cs[v].has_cmp)
			kvb_verdict_cell(vt, sizeof(vt), &cs[v]); /* better, worse, same, undecided (~N boots) */
		kvb_box_cell(b, cs[v].has_cmp ? vt : csv ? "" : "-");
	}
}

static void headers(struct kvb_box *b, size_t *col, const struct kvb_table *tb, int csv)
{
	const struct kvb_report *r = tb->r;
	char t[256];
	const char *st = kvb_stat_name(tb->stat);
	for (size_t v = 0; v < r->variants.n; v++) {
		snprintf(t, sizeof(t), csv ? "%s %s" : "%s %s(±cov)", r->variants.v[v], st);
		kvb_box_header(b, (*col)++, t, KVB_ALIGN_RIGHT);
		if (csv) {
			snprintf(t, sizeof(t), "%s cov_pct", r->variants.v[v]);
			kvb_box_header(b, (*col)++, t, KVB_ALIGN_RIGHT);
		}
	}
	for (size_t v = 1; v < r->variants.n; v++) {
		snprintf(t, sizeof(t), csv ? "%s diff_pct" : "%s diff", r->variants.v[v]);
		kvb_box_header(b, (*col)++, t, KVB_ALIGN_RIGHT);
		if (csv) {
			snprintf(t, sizeof(t), "%s significant", r->variants.v[v]);
			kvb_box_header(b, (*col)++, t, KVB_ALIGN_RIGHT);
		}
		snprintf(t, sizeof(t), "%s verdict", r->variants.v[v]);
		kvb_box_header(b, (*col)++, t, KVB_ALIGN_LEFT);
	}
}

void kvb_mailtable_print(const struct kvb_table *t, const struct kvb_diff_opts *o, const struct kvb_format *fmt,
			 FILE *out)
{
	const struct kvb_report *r = t->r;
	struct kvb_strv tables = KVB_STRV_INIT, vals = KVB_STRV_INIT;
	size_t *first = kvb_xcalloc(r->ngroups + 1, sizeof(*first)), *order;
	/* csv names the flat one-table form of any format that holds one table (csv, tsv) */
	int csv = !!(fmt->caps & KVB_FMT_ONE_TABLE), md = !!(fmt->caps & KVB_FMT_MARKUP);
	size_t nv = r->variants.n, percol = csv ? 2 : 1, perdiff = percol + 1; /* diff [significant] verdict */
	char lab[256];

	for (size_t gi = 0; gi < r->ngroups; gi++) {
		char *k = table_key(&r->groups[gi]);
		size_t before = tables.n, ti = intern(&tables, k);
		if (tables.n > before)
			first[ti] = gi;
		free(k);
		intern(&vals, r->groups[gi].by_value ? r->groups[gi].by_value : "-");
	}
	/* by-values in numeric order when they are numbers (cgroup_depth 0..3), tables in --metric order */
	for (size_t i = 1; i < vals.n; i++)
		for (size_t j = i; j > 0 && atof(vals.v[j - 1]) > atof(vals.v[j]); j--) {
			char *x = vals.v[j];
			vals.v[j] = vals.v[j - 1];
			vals.v[j - 1] = x;
		}
	order = kvb_xcalloc(tables.n + 1, sizeof(*order));
	for (size_t i = 0; i < tables.n; i++)
		order[i] = i;
	for (size_t i = 1; i < tables.n; i++)
		for (size_t j = i; j > 0 && metric_rank(&o->sel, r->groups[first[order[j - 1]]].metric) >
						    metric_rank(&o->sel, r->groups[first[order[j]]].metric); j--) {
			size_t x = order[j];
			order[j] = order[j - 1];
			order[j - 1] = x;
		}

	if (csv) {
		struct kvb_box b;
		size_t col = 0;
		kvb_box_init(&b, 4 + percol * nv + perdiff * (nv - 1));
		kvb_box_header(&b, col++, "workload", KVB_ALIGN_LEFT);
		kvb_box_header(&b, col++, "metric", KVB_ALIGN_LEFT);
		kvb_box_header(&b, col++, "classifiers", KVB_ALIGN_LEFT);
		kvb_box_header(&b, col++, t->by, KVB_ALIGN_LEFT);
		headers(&b, &col, t, 1);
		for (size_t i = 0; i < tables.n; i++) {
			const struct kvb_group *g0 = &r->groups[first[order[i]]];
			for (size_t k = 0; k < vals.n; k++) {
				const struct kvb_group *g = find(r, tables.v[order[i]], vals.v[k]);
				if (!g)
					continue;
				kvb_box_cell(&b, g0->workload);
				kvb_box_cell(&b, g0->metric);
				kvb_box_cell(&b, g0->label);
				kvb_box_cell(&b, vals.v[k]);
				cells(&b, t, g, 1);
			}
		}
		fmt->table(&b, out);
		kvb_box_release(&b);
	} else {
		for (size_t i = 0; i < tables.n; i++) {
			const struct kvb_group *g0 = &r->groups[first[order[i]]];
			struct kvb_box b;
			size_t col = 0;
			fprintf(out, "%s%s%s %s%s%s%s%s\n(%s is better%s%s)\n", i ? "\n" : "", md ? "**" : "", g0->workload,
				g0->metric, *g0->units ? " (" : "", g0->units, *g0->units ? ")" : "", md ? "**" : "",
				kvb_direction_word(g0->lower_is_better), *g0->label ? "; " : "", g0->label);
			if (md)
				fputc('\n', out);
			kvb_box_init(&b, 1 + nv + perdiff * (nv - 1));
			kvb_box_header(&b, col++, t->by, KVB_ALIGN_LEFT);
			headers(&b, &col, t, 0);
			for (size_t k = 0; k < vals.n; k++) {
				const struct kvb_group *g = find(r, tables.v[order[i]], vals.v[k]);
				if (!g)
					continue;
				kvb_box_cell(&b, kvb_by_label(t->by, vals.v[k], lab, sizeof(lab)));
				cells(&b, t, g, 0);
			}
			fmt->table(&b, out);
			kvb_box_release(&b);
		}
	}
	free(order);
	free(first);
	kvb_strv_release(&tables);
	kvb_strv_release(&vals);
}
