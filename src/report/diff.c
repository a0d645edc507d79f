/* Implements `kvbench diff`: statistics per group/variant and the long, wide and --by tables. */
#include "report/diff.h"
#include "core/log.h"
#include "report/box.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int kvb_stat_parse(const char *s, enum kvb_stat *out)
{
	static const char *const names[] = { "mean", "median", "max", "min", "p95" };
	for (int i = 0; i < 5; i++)
		if (!strcmp(s, names[i])) {
			*out = (enum kvb_stat)i;
			return 0;
		}
	return -1;
}

const char *kvb_stat_name(enum kvb_stat s)
{
	static const char *const names[] = { "mean", "median", "max", "min", "p95" };
	return names[s];
}

/* CSV output is for scripts: full precision instead of display rounding. */
static int g_full_precision;

const char *kvb_fmt_num(double x, char *buf, size_t n)
{
	double a = fabs(x);
	if (isnan(x))
		snprintf(buf, n, g_full_precision ? "" : "-");
	else if (g_full_precision)
		snprintf(buf, n, "%.17g", x);
	else if (a >= 10000)
		snprintf(buf, n, "%.0f", x);
	else
		snprintf(buf, n, "%.4g", x); /* 4 significant digits: 0.02801, 1.523, 26.44, 189.9 */
	return buf;
}

static double pick(const struct kvb_summary *s, enum kvb_stat st)
{
	switch (st) {
	case KVB_STAT_MEDIAN: return s->median;
	case KVB_STAT_MAX: return s->max;
	case KVB_STAT_MIN: return s->min;
	case KVB_STAT_P95: return s->p95;
	default: return s->mean;
	}
}

/* Maps int64 boot ids to small ints for the bootstrap; returns the number of distinct boots. */
static size_t boot_ids(const struct kvb_cell *c, int *ids)
{
	size_t nb = 0;
	int64_t *seen = kvb_xcalloc(c->n + 1, sizeof(*seen));
	for (size_t i = 0; i < c->n; i++) {
		size_t k;
		for (k = 0; k < nb; k++)
			if (seen[k] == c->boot[i])
				break;
		if (k == nb)
			seen[nb++] = c->boot[i];
		ids[i] = (int)k;
	}
	free(seen);
	return nb;
}

void kvb_cell_compute(const struct kvb_report *r, const struct kvb_group *g, size_t v, enum kvb_stat stat,
		      double alpha, struct kvb_cell_stats *out)
{
	const struct kvb_cell *c = &g->cells[v], *b = &g->cells[0];
	struct kvb_cell_stats base;
	int *ib, *iv;
	(void)r;
	memset(out, 0, sizeof(*out));
	out->verdict = "";
	if (!c->n || kvb_stats_summary(c->v, c->n, &out->s, NULL))
		return;
	out->ok = 1;
	out->value = pick(&out->s, stat);
	iv = kvb_xcalloc(c->n + 1, sizeof(*iv));
	out->boots = boot_ids(c, iv);
	if (v == 0 || !b->n) {
		free(iv);
		return;
	}
	memset(&base, 0, sizeof(base));
	kvb_stats_summary(b->v, b->n, &base.s, NULL);
	ib = kvb_xcalloc(b->n + 1, sizeof(*ib));
	size_t bboots = boot_ids(b, ib);
	double bv = pick(&base.s, stat);
	out->has_cmp = 1;
	out->diff_pct = bv != 0 ? (out->value - bv) / bv * 100.0 : NAN;
	out->naive_ok = !kvb_stats_compare(b->v, b->n, c->v, c->n, alpha, &out->c, NULL);
	if (bboots >= 2 && out->boots >= 2)
		out->boot_ok = !kvb_stats_hier_bootstrap_boards(b->v, ib, b->board, b->n, c->v, iv, c->board, c->n,
								KVB_STATS_RESAMPLES, KVB_STATS_SEED, alpha, &out->b,
								NULL); /* boards above boots (§13) */
	if (out->boot_ok) {
		out->significant = out->b.significant && out->b.boot_welch_p < alpha;
	} else if (out->naive_ok) {
		out->significant = out->c.significant;
		/* Both sides in one and the same boot (knob-only variants): no boot confound to warn about. */
		out->one_boot = !(bboots == 1 && out->boots == 1 && b->boot[0] == c->boot[0]);
	}
	if (!out->naive_ok && !out->boot_ok)
		out->verdict = "n<2";
	else if (out->significant)
		out->verdict = ((out->diff_pct < 0) == (g->lower_is_better != 0)) ? "better" : "worse";
	else
		out->verdict = "~";
	free(ib);
	free(iv);
}

static void fmt_diff(char *buf, size_t n, const struct kvb_cell_stats *cs)
{
	if (!cs->has_cmp)
		snprintf(buf, n, g_full_precision ? "0" : "0.00%%");
	else if (isnan(cs->diff_pct))
		snprintf(buf, n, "-");
	else if (g_full_precision)
		snprintf(buf, n, "%.17g", cs->diff_pct);
	else
		snprintf(buf, n, "%+.2f%%%s", cs->diff_pct, cs->significant ? "*" : "");
}

static void fmt_p(char *buf, size_t n, const struct kvb_cell_stats *cs)
{
	if (cs->boot_ok)
		snprintf(buf, n, "%.3g", cs->b.boot_welch_p);
	else if (cs->naive_ok)
		snprintf(buf, n, "%.3g", cs->c.welch_p > cs->c.mw_p ? cs->c.welch_p : cs->c.mw_p);
	else
		snprintf(buf, n, "-");
}

static void fmt_verdict(char *buf, size_t n, const struct kvb_cell_stats *cs)
{
	if (!cs->has_cmp)
		snprintf(buf, n, "baseline");
	else
		snprintf(buf, n, "%s%s", cs->verdict, cs->one_boot ? " (1 boot)" : "");
}

static int any_labels(const struct kvb_report *r)
{
	for (size_t g = 0; g < r->ngroups; g++)
		if (r->groups[g].label && *r->groups[g].label)
			return 1;
	return 0;
}

/* "power_mean (mW)"; values from an energy model, not a meter, say so in every table. */
static void metric_title(char *buf, size_t n, const struct kvb_group *g)
{
	int est = strstr(g->cls_json, "\"estimated\":\"true\"") != NULL;
	snprintf(buf, n, "%s%s%s%s%s", g->metric, *g->units ? " (" : "", g->units, *g->units ? ")" : "",
		 est ? " estimated" : "");
}

static void emit(const struct kvb_box *b, const char *format, FILE *out)
{
	if (!strcmp(format, "markdown"))
		kvb_box_print_markdown(b, out);
	else if (!strcmp(format, "csv"))
		kvb_box_print_csv(b, out);
	else
		kvb_box_print(b, out);
}

/* Long layout: one row per (group, variant), like the psql tables in mailing-list posts. */
static void print_long(const struct kvb_report *r, const struct kvb_diff_opts *o, FILE *out, int *one_boot)
{
	int labels = any_labels(r);
	size_t nc = labels ? 12 : 11, col = 0;
	struct kvb_box b;
	char t[256];
	kvb_box_init(&b, nc);
	kvb_box_header(&b, col++, "workload", KVB_ALIGN_LEFT);
	kvb_box_header(&b, col++, "metric", KVB_ALIGN_LEFT);
	if (labels)
		kvb_box_header(&b, col++, "classifiers", KVB_ALIGN_LEFT);
	kvb_box_header(&b, col++, "variant", KVB_ALIGN_LEFT);
	kvb_box_header(&b, col++, "n", KVB_ALIGN_RIGHT);
	kvb_box_header(&b, col++, "boots", KVB_ALIGN_RIGHT);
	kvb_box_header(&b, col++, kvb_stat_name(o->stat), KVB_ALIGN_RIGHT);
	kvb_box_header(&b, col++, "stdev", KVB_ALIGN_RIGHT);
	kvb_box_header(&b, col++, "cov", KVB_ALIGN_RIGHT);
	kvb_box_header(&b, col++, "perc_diff", KVB_ALIGN_RIGHT);
	kvb_box_header(&b, col++, "p", KVB_ALIGN_RIGHT);
	kvb_box_header(&b, col++, "verdict", KVB_ALIGN_LEFT);
	for (size_t gi = 0; gi < r->ngroups; gi++) {
		const struct kvb_group *g = &r->groups[gi];
		for (size_t v = 0; v < r->variants.n; v++) {
			struct kvb_cell_stats cs;
			char n1[64], n2[64];
			kvb_cell_compute(r, g, v, o->stat, o->alpha, &cs);
			if (!cs.ok)
				continue;
			*one_boot |= cs.one_boot;
			kvb_box_cell(&b, g->workload);
			metric_title(t, sizeof(t), g);
			kvb_box_cell(&b, t);
			if (labels)
				kvb_box_cell(&b, g->label);
			kvb_box_cell(&b, r->variants.v[v]);
			kvb_box_cellf(&b, "%zu", cs.s.n);
			kvb_box_cellf(&b, "%zu", cs.boots);
			kvb_box_cell(&b, kvb_fmt_num(cs.value, n1, sizeof(n1)));
			kvb_box_cell(&b, kvb_fmt_num(cs.s.stdev, n2, sizeof(n2)));
			if (isnan(cs.s.cov_pct))
				kvb_box_cell(&b, g_full_precision ? "" : "-");
			else if (g_full_precision)
				kvb_box_cellf(&b, "%.17g", cs.s.cov_pct);
			else
				kvb_box_cellf(&b, "%.2f%%", cs.s.cov_pct);
			fmt_diff(t, sizeof(t), &cs);
			kvb_box_cell(&b, t);
			if (cs.has_cmp)
				fmt_p(t, sizeof(t), &cs);
			else
				snprintf(t, sizeof(t), "%s", g_full_precision ? "" : " ");
			kvb_box_cell(&b, t);
			fmt_verdict(t, sizeof(t), &cs);
			kvb_box_cell(&b, t);
		}
	}
	emit(&b, o->format, out);
	kvb_box_release(&b);
}

/* Wide layout: one row per group; per variant `mean ± cov%` and, after the baseline, `diff%` (lkp/mmtests). */
static void print_wide(const struct kvb_report *r, const struct kvb_diff_opts *o, FILE *out, int *one_boot)
{
	int labels = any_labels(r);
	size_t nv = r->variants.n, nc = 2 + (labels ? 1 : 0) + 1 + 2 * (nv - 1), col = 0;
	struct kvb_box b;
	char t[256];
	kvb_box_init(&b, nc);
	kvb_box_header(&b, col++, "workload", KVB_ALIGN_LEFT);
	kvb_box_header(&b, col++, "metric", KVB_ALIGN_LEFT);
	if (labels)
		kvb_box_header(&b, col++, "classifiers", KVB_ALIGN_LEFT);
	for (size_t v = 0; v < nv; v++) {
		snprintf(t, sizeof(t), "%s %s ± cov", r->variants.v[v], kvb_stat_name(o->stat));
		kvb_box_header(&b, col++, t, KVB_ALIGN_RIGHT);
		if (v) {
			snprintf(t, sizeof(t), "%s %%change", r->variants.v[v]);
			kvb_box_header(&b, col++, t, KVB_ALIGN_RIGHT);
		}
	}
	for (size_t gi = 0; gi < r->ngroups; gi++) {
		const struct kvb_group *g = &r->groups[gi];
		kvb_box_cell(&b, g->workload);
		metric_title(t, sizeof(t), g);
		kvb_box_cell(&b, t);
		if (labels)
			kvb_box_cell(&b, g->label);
		for (size_t v = 0; v < nv; v++) {
			struct kvb_cell_stats cs;
			char n1[64];
			kvb_cell_compute(r, g, v, o->stat, o->alpha, &cs);
			*one_boot |= cs.one_boot;
			if (!cs.ok)
				kvb_box_cell(&b, "-");
			else if (isnan(cs.s.cov_pct))
				kvb_box_cellf(&b, "%s", kvb_fmt_num(cs.value, n1, sizeof(n1)));
			else
				kvb_box_cellf(&b, "%s ± %.1f%%", kvb_fmt_num(cs.value, n1, sizeof(n1)), cs.s.cov_pct);
			if (v) {
				if (cs.has_cmp)
					fmt_diff(t, sizeof(t), &cs);
				else
					snprintf(t, sizeof(t), "-");
				kvb_box_cell(&b, t);
			}
		}
	}
	emit(&b, o->format, out);
	kvb_box_release(&b);
}

/* The --by row a group belongs to: workload, metric, units and its classifiers minus the by-key (owned). */
static char *row_key(const struct kvb_group *g)
{
	return kvb_xasprintf("%s\x1f%s\x1f%s\x1f%s", g->workload, g->metric, g->units, g->cls_json);
}

/* The first group of row (a row_key()) whose by-value ("-" when unset) is by, or of any by-value when by is NULL. */
static const struct kvb_group *row_group(const struct kvb_report *r, const char *row, const char *by)
{
	const struct kvb_group *found = NULL;
	for (size_t gi = 0; gi < r->ngroups && !found; gi++) {
		const struct kvb_group *g = &r->groups[gi];
		char *rk = row_key(g);
		if (!strcmp(rk, row) && (!by || !strcmp(g->by_value ? g->by_value : "-", by)))
			found = g;
		free(rk);
	}
	return found;
}

/* --by KEY: one row per (metric, other classifiers, variant), one column per KEY value: `value (diff%)`. */
static void print_by(const struct kvb_report *r, const struct kvb_diff_opts *o, FILE *out, int *one_boot)
{
	struct kvb_strv vals = KVB_STRV_INIT, rows = KVB_STRV_INIT;
	struct kvb_box b;
	char t[256];
	for (size_t gi = 0; gi < r->ngroups; gi++) {
		const char *bv = r->groups[gi].by_value ? r->groups[gi].by_value : "-";
		const struct kvb_group *g = &r->groups[gi];
		size_t k;
		for (k = 0; k < vals.n && strcmp(vals.v[k], bv); k++)
			;
		if (k == vals.n)
			kvb_strv_push(&vals, bv);
		char *rk = row_key(g);
		for (k = 0; k < rows.n && strcmp(rows.v[k], rk); k++)
			;
		if (k == rows.n)
			kvb_strv_push(&rows, rk);
		free(rk);
	}
	/* numeric sort of by-values when they are all integers (cgroup_depth 0..3) */
	for (size_t i = 1; i < vals.n; i++)
		for (size_t j = i; j > 0 && atof(vals.v[j - 1]) > atof(vals.v[j]); j--) {
			char *x = vals.v[j];
			vals.v[j] = vals.v[j - 1];
			vals.v[j - 1] = x;
		}
	kvb_box_init(&b, 4 + vals.n);
	kvb_box_header(&b, 0, "workload", KVB_ALIGN_LEFT);
	kvb_box_header(&b, 1, "metric", KVB_ALIGN_LEFT);
	kvb_box_header(&b, 2, "classifiers", KVB_ALIGN_LEFT);
	kvb_box_header(&b, 3, "variant", KVB_ALIGN_LEFT);
	for (size_t k = 0; k < vals.n; k++)
		kvb_box_header(&b, 4 + k, kvb_by_label(o->sel.by, vals.v[k], t, sizeof(t)), KVB_ALIGN_RIGHT);
	for (size_t ri = 0; ri < rows.n; ri++) {
		for (size_t v = 0; v < r->variants.n; v++) {
			const struct kvb_group *first = row_group(r, rows.v[ri], NULL);
			kvb_box_cell(&b, first->workload);
			metric_title(t, sizeof(t), first);
			kvb_box_cell(&b, t);
			kvb_box_cell(&b, first->label);
			kvb_box_cell(&b, r->variants.v[v]);
			for (size_t k = 0; k < vals.n; k++) {
				const struct kvb_group *g = row_group(r, rows.v[ri], vals.v[k]);
				struct kvb_cell_stats cs;
				char n1[64], d[64];
				if (!g) {
					kvb_box_cell(&b, "-");
					continue;
				}
				kvb_cell_compute(r, g, v, o->stat, o->alpha, &cs);
				*one_boot |= cs.one_boot;
				if (!cs.ok) {
					kvb_box_cell(&b, "-");
					continue;
				}
				fmt_diff(d, sizeof(d), &cs);
				kvb_box_cellf(&b, "%s (%s)", kvb_fmt_num(cs.value, n1, sizeof(n1)), d);
			}
		}
	}
	emit(&b, o->format, out);
	kvb_box_release(&b);
	kvb_strv_release(&vals);
	kvb_strv_release(&rows);
}

static cJSON *num(double x)
{
	return isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull();
}

/* JSON carries every statistic and p-value (a notebook needs nothing else). */
static void print_json(const struct kvb_report *r, const struct kvb_diff_opts *o, FILE *out)
{
	cJSON *root = cJSON_CreateObject(), *groups = cJSON_CreateArray(), *runs = cJSON_CreateArray();
	for (size_t i = 0; i < r->nruns; i++)
		cJSON_AddItemToArray(runs, cJSON_CreateNumber((double)r->runs[i]));
	cJSON_AddItemToObject(root, "runs", runs);
	cJSON_AddStringToObject(root, "baseline", r->variants.v[0]);
	cJSON_AddStringToObject(root, "stat", kvb_stat_name(o->stat));
	cJSON_AddNumberToObject(root, "alpha", o->alpha);
	for (size_t gi = 0; gi < r->ngroups; gi++) {
		const struct kvb_group *g = &r->groups[gi];
		cJSON *jg = cJSON_CreateObject(), *vs = cJSON_CreateArray();
		cJSON_AddStringToObject(jg, "workload", g->workload);
		cJSON_AddStringToObject(jg, "metric", g->metric);
		cJSON_AddStringToObject(jg, "units", g->units);
		cJSON_AddBoolToObject(jg, "lower_is_better", g->lower_is_better);
		cJSON_AddBoolToObject(jg, "estimated", strstr(g->cls_json, "\"estimated\":\"true\"") != NULL);
		cJSON_AddItemToObject(jg, "classifiers", cJSON_Parse(g->cls_json));
		if (g->by_value)
			cJSON_AddStringToObject(jg, o->sel.by, g->by_value);
		for (size_t v = 0; v < r->variants.n; v++) {
			struct kvb_cell_stats cs;
			cJSON *jv = cJSON_CreateObject(), *vals = cJSON_CreateArray(), *boots = cJSON_CreateArray();
			kvb_cell_compute(r, g, v, o->stat, o->alpha, &cs);
			if (!cs.ok) {
				cJSON_Delete(jv);
				cJSON_Delete(vals);
				cJSON_Delete(boots);
				continue;
			}
			cJSON_AddStringToObject(jv, "variant", r->variants.v[v]);
			cJSON_AddNumberToObject(jv, "n", (double)cs.s.n);
			cJSON_AddNumberToObject(jv, "boots", (double)cs.boots);
			cJSON_AddItemToObject(jv, "mean", num(cs.s.mean));
			cJSON_AddItemToObject(jv, "stdev", num(cs.s.stdev));
			cJSON_AddItemToObject(jv, "cov_pct", num(cs.s.cov_pct));
			cJSON_AddItemToObject(jv, "min", num(cs.s.min));
			cJSON_AddItemToObject(jv, "median", num(cs.s.median));
			cJSON_AddItemToObject(jv, "max", num(cs.s.max));
			cJSON_AddItemToObject(jv, "p95", num(cs.s.p95));
			cJSON_AddItemToObject(jv, "hmean", num(cs.s.hmean));
			for (size_t i = 0; i < g->cells[v].n; i++) {
				cJSON_AddItemToArray(vals, cJSON_CreateNumber(g->cells[v].v[i]));
				cJSON_AddItemToArray(boots, cJSON_CreateNumber((double)g->cells[v].boot[i]));
			}
			cJSON_AddItemToObject(jv, "values", vals);
			cJSON_AddItemToObject(jv, "boot_ids", boots);
			if (cs.has_cmp) {
				cJSON_AddItemToObject(jv, "diff_pct", num(cs.diff_pct));
				if (cs.naive_ok) {
					cJSON_AddItemToObject(jv, "welch_t", num(cs.c.welch_t));
					cJSON_AddItemToObject(jv, "welch_df", num(cs.c.welch_df));
					cJSON_AddItemToObject(jv, "welch_p", num(cs.c.welch_p));
					cJSON_AddItemToObject(jv, "diff_ci95_lo", num(cs.c.ci_lo));
					cJSON_AddItemToObject(jv, "diff_ci95_hi", num(cs.c.ci_hi));
					cJSON_AddItemToObject(jv, "mw_u", num(cs.c.mw_u));
					cJSON_AddItemToObject(jv, "mw_p", num(cs.c.mw_p));
					cJSON_AddBoolToObject(jv, "mw_exact", cs.c.mw_exact);
					cJSON_AddItemToObject(jv, "ratio", num(cs.c.ratio));
					cJSON_AddItemToObject(jv, "ratio_ci95_lo", num(cs.c.ratio_ci_lo));
					cJSON_AddItemToObject(jv, "ratio_ci95_hi", num(cs.c.ratio_ci_hi));
					cJSON_AddBoolToObject(jv, "naive_significant", cs.c.significant);
				}
				if (cs.boot_ok) {
					cJSON_AddItemToObject(jv, "boot_ratio", num(cs.b.ratio));
					cJSON_AddItemToObject(jv, "boot_ratio_ci95_lo", num(cs.b.ci_lo));
					cJSON_AddItemToObject(jv, "boot_ratio_ci95_hi", num(cs.b.ci_hi));
					cJSON_AddItemToObject(jv, "boot_welch_p", num(cs.b.boot_welch_p));
					cJSON_AddItemToObject(jv, "within_boot_sd", num(cs.b.within_sd_v));
					cJSON_AddItemToObject(jv, "between_boot_sd", num(cs.b.between_sd_v));
				}
				cJSON_AddBoolToObject(jv, "significant", cs.significant);
				cJSON_AddStringToObject(jv, "verdict", cs.verdict);
				cJSON_AddStringToObject(jv, "unit", cs.boot_ok ? "boot" : "run (1 boot)");
			}
			cJSON_AddItemToArray(vs, jv);
		}
		cJSON_AddItemToObject(jg, "variants", vs);
		cJSON_AddItemToArray(groups, jg);
	}
	cJSON_AddItemToObject(root, "groups", groups);
	char *s = cJSON_Print(root);
	fputs(s, out);
	fputc('\n', out);
	free(s);
	cJSON_Delete(root);
}

int kvb_diff_print(struct kvb_store *s, const struct kvb_diff_opts *o, FILE *out, struct kvb_error *err)
{
	struct kvb_report r;
	int rc, one_boot = 0;
	const char *f = o->format ? o->format : "table";
	if (strcmp(f, "table") && strcmp(f, "markdown") && strcmp(f, "csv") && strcmp(f, "json"))
		return kvb_error_set(err, KVB_EUSAGE, "--format '%s': expected table, markdown, csv or json", f);
	if (o->layout && strcmp(o->layout, "long") && strcmp(o->layout, "wide"))
		return kvb_error_set(err, KVB_EUSAGE, "--layout '%s': expected long or wide", o->layout);
	rc = kvb_report_load(s, &o->sel, &r, err);
	if (rc) {
		kvb_report_release(&r);
		return rc;
	}
	g_full_precision = !strcmp(f, "csv");
	if (!strcmp(f, "json"))
		print_json(&r, o, out);
	else if (o->sel.by)
		print_by(&r, o, out, &one_boot);
	else if (o->layout && !strcmp(o->layout, "wide"))
		print_wide(&r, o, out, &one_boot);
	else
		print_long(&r, o, out, &one_boot);
	if (!strcmp(f, "table") || !strcmp(f, "markdown"))
		fprintf(out, "%s* significant at alpha %g; p: Welch on boot means (>= 2 boots; with the bootstrap CI of the "
			     "ratio) or max(Welch, Mann-Whitney) (1 boot); ~ no significant change\n",
			!strcmp(f, "markdown") ? "\n" : "", o->alpha);
	if (one_boot)
		kvb_warn("some comparisons have a single boot per variant: kernel and boot effects cannot be separated "
			 "(run with --rounds 2 or more)");
	kvb_report_release(&r);
	return KVB_OK;
}
