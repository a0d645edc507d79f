/* Implements `kvbench diff`: the long, wide and --by tables of each cell's statistics (results/cell_stats.h). */
#include "report/clocknote.h"
#include "report/diff.h"
#include "workload/workload.h"
#include "report/event_notes.h"
#include "store/disturbance.h"
#include "core/log.h"
#include "core/utf8.h"
#include "report/box.h"
#include "report/diff_mail.h"
#include "report/mailtable.h"
#include "results/runstate.h"
#include "report/format.h"
#include "report/front.h"
#include "report/verdict_cell.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const kvb_layout_names[] = { "long", "wide", "mail", NULL };

enum kvb_err kvb_layout_parse(const char *name, enum kvb_layout *out)
{
	for (size_t i = 0; kvb_layout_names[i]; i++)
		if (!strcmp(name, kvb_layout_names[i])) {
			*out = (enum kvb_layout)i;
			return KVB_OK;
		}
	return KVB_EINPUT;
}

const struct kvb_format *kvb_diff_format(const struct kvb_diff_opts *o)
{
	return o->fmt ? o->fmt : &kvb_format_table;
}

/* The i-th group to show: what changed first for people, the load order for scripts' one-table formats. */
static size_t nth_group(const struct kvb_table *t, const struct kvb_diff_opts *o, size_t i)
{
	return kvb_diff_format(o)->caps & (KVB_FMT_ONE_TABLE | KVB_FMT_DOCUMENT) ? i : t->order[i];
}

/* A number cell: rounded for people, full precision for csv and json. */
static void num_cell(struct kvb_box *b, double x)
{
	char d[64], raw[64];
	kvb_box_cell_raw(b, kvb_fmt_num(x, d, sizeof(d)), kvb_fmt_raw(x, raw, sizeof(raw)),
			 isnan(x) ? KVB_CELL_NULL : KVB_CELL_NUM);
}

/* perc_diff for people ("+1.23%*") and, when raw is set, for scripts ("1.2345678901234567"). */
static void fmt_diff(char *buf, size_t n, const struct kvb_cell_stats *cs, int raw)
{
	if (!cs->has_cmp)
		snprintf(buf, n, raw ? "0" : "0.00%%");
	else if (isnan(cs->diff_pct))
		snprintf(buf, n, "-");
	else if (raw)
		snprintf(buf, n, "%.17g", cs->diff_pct);
	else
		snprintf(buf, n, "%+.2f%%%s", cs->diff_pct, cs->significant ? "*" : "");
}

static void diff_cell(struct kvb_box *b, const struct kvb_cell_stats *cs)
{
	char d[64], raw[64];
	fmt_diff(d, sizeof(d), cs, 0);
	fmt_diff(raw, sizeof(raw), cs, 1);
	kvb_box_cell_raw(b, d, raw, cs->has_cmp && isnan(cs->diff_pct) ? KVB_CELL_TEXT : KVB_CELL_NUM);
}

/* The p-value the cell's verdict used: boot-aware Welch's (on the boots' robust levels for the mean, or on
 * their quantile), else the larger of Welch's and Mann-Whitney's (mean, one boot) or the bootstrap's
 * (quantile, one boot);
 * NAN when neither could be computed or the statistic is not tested. */
static double cell_p(const struct kvb_cell_stats *cs)
{
	if (cs->test == KVB_TEST_NONE)
		return NAN;
	if (cs->paired_ok)
		return cs->pr.p;
	if (cs->test == KVB_TEST_QUANTILE)
		return !cs->boot_ok ? NAN : isnan(cs->b.boot_welch_p) ? cs->p_boot : cs->b.boot_welch_p;
	if (cs->boot_ok)
		return cs->b.boot_welch_p;
	if (cs->naive_ok)
		return cs->c.welch_p > cs->c.mw_p ? cs->c.welch_p : cs->c.mw_p;
	return NAN;
}

/* A number shown rounded (fmt) whose csv/json value keeps full precision; "-" when x is NAN. */
static void rounded_cell(struct kvb_box *b, const char *fmt, double x)
{
	char d[64], raw[64];
	if (isnan(x)) {
		kvb_box_cell_raw(b, "-", "-", KVB_CELL_TEXT);
		return;
	}
	snprintf(d, sizeof(d), fmt, x);
	kvb_box_cell_raw(b, d, kvb_fmt_raw(x, raw, sizeof(raw)), KVB_CELL_NUM);
}

static void fmt_verdict(char *buf, size_t n, const struct kvb_cell_stats *cs)
{
	kvb_verdict_cell(buf, n, cs);
}

/* The verdict of a compared cell ("-" when the variant has no result or nothing to compare). */
static void verdict_cell(struct kvb_box *b, const struct kvb_cell_stats *cs)
{
	char t[256];
	if (!cs->has_cmp && !kvb_verdict_left_out(t, sizeof(t), cs)) {
		kvb_box_cell_raw(b, "-", "", KVB_CELL_NULL);
		return;
	}
	fmt_verdict(t, sizeof(t), cs);
	kvb_box_cell(b, t);
}

/* "power_mean (mW)"; values from an energy model, not a meter, say so in every table. */
static void metric_title(char *buf, size_t n, const struct kvb_group *g)
{
	int est = strstr(g->cls_json, "\"estimated\":\"true\"") != NULL;
	snprintf(buf, n, "%s%s%s%s%s", g->metric, *g->units ? " (" : "", g->units, *g->units ? ")" : "",
		 est ? " estimated" : "");
}

/* Hands the finished table to the caller (b is left empty). */
static void emit(struct kvb_box *b, struct kvb_box *dst)
{
	*dst = *b;
	memset(b, 0, sizeof(*b));
}

/* Long layout: one row per (group, variant), like the psql tables in mailing-list posts. */
/* A variant whose every run of the group the host left out: its row says so, with no numbers. */
static void left_out_row(struct kvb_box *b, const struct kvb_group *g, const char *variant, int labels,
			 const struct kvb_cell_stats *cs)
{
	char t[256];
	kvb_box_cell(b, g->workload);
	metric_title(t, sizeof(t), g);
	kvb_box_cell(b, t);
	if (labels)
		kvb_box_cell(b, g->label);
	kvb_box_cell(b, variant);
	kvb_box_cell(b, "0");
	for (int i = 0; i < 7; i++) /* boots, statistic, stdev, cov, perc_diff, p, cliff */
		kvb_box_cell_raw(b, "-", "", KVB_CELL_NULL);
	kvb_verdict_left_out(t, sizeof(t), cs);
	kvb_box_cell(b, t);
}

static void print_long(const struct kvb_table *tb, const struct kvb_diff_opts *o, const struct kvb_event_notes *notes,
		       struct kvb_box *out)
{
	const struct kvb_report *r = tb->r;
	int labels = tb->any_labels;
	size_t nc = labels ? 13 : 12, col = 0;
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
	kvb_box_header(&b, col++, kvb_stat_name(tb->stat), KVB_ALIGN_RIGHT);
	kvb_box_header(&b, col++, "stdev", KVB_ALIGN_RIGHT);
	kvb_box_header(&b, col++, "cov", KVB_ALIGN_RIGHT);
	kvb_box_header(&b, col++, "perc_diff", KVB_ALIGN_RIGHT);
	kvb_box_header(&b, col++, "p", KVB_ALIGN_RIGHT);
	kvb_box_header(&b, col++, "cliff", KVB_ALIGN_RIGHT);
	kvb_box_header(&b, col++, "verdict", KVB_ALIGN_LEFT);
	for (size_t i = 0; i < r->ngroups; i++) {
		size_t gi = nth_group(tb, o, i);
		const struct kvb_group *g = &r->groups[gi];
		for (size_t v = 0; v < r->variants.n; v++) {
			struct kvb_cell_stats cs = *kvb_table_cell(tb, gi, v);
			if (!cs.ok && cs.left_out) {
				left_out_row(&b, g, r->variants.v[v], labels, &cs);
				continue;
			}
			if (!cs.ok)
				continue;
			kvb_box_cell(&b, g->workload);
			metric_title(t, sizeof(t), g);
			kvb_box_cell(&b, t);
			if (labels)
				kvb_box_cell(&b, g->label);
			{
				/* the footnote mark is for people: a CSV's variant field stays the variant's name */
				char mv[300];
				snprintf(mv, sizeof(mv), "%s%s", r->variants.v[v],
					 kvb_event_notes_mark(notes, g, r->variants.v[v], t, sizeof(t)));
				kvb_box_cell_raw(&b, mv, r->variants.v[v], KVB_CELL_TEXT);
			}
			kvb_box_cellf(&b, "%zu", cs.s.n);
			kvb_box_cellf(&b, "%zu", cs.boots);
			num_cell(&b, cs.value);
			num_cell(&b, cs.s.stdev);
			if (isnan(cs.s.cov_pct)) {
				kvb_box_cell_raw(&b, "-", "", KVB_CELL_NULL);
			} else {
				char d[64], raw[64];
				snprintf(d, sizeof(d), "%.2f%%", cs.s.cov_pct);
				kvb_box_cell_raw(&b, d, kvb_fmt_raw(cs.s.cov_pct, raw, sizeof(raw)), KVB_CELL_NUM);
			}
			diff_cell(&b, &cs);
			if (cs.has_cmp) {
				rounded_cell(&b, "%.3g", cell_p(&cs));
				rounded_cell(&b, "%+.2f", cs.cliffs);
			} else {
				kvb_box_cell_raw(&b, " ", "", KVB_CELL_NULL);
				kvb_box_cell(&b, "");
			}
			fmt_verdict(t, sizeof(t), &cs);
			kvb_box_cell(&b, t);
		}
	}
	emit(&b, out);
	kvb_box_release(&b);
}

/* Wide layout: one row per group; per variant `mean ± cov%` and, after the baseline, `diff%` (lkp/mmtests). */
static void print_wide(const struct kvb_table *tb, const struct kvb_diff_opts *o, const struct kvb_event_notes *notes,
		       struct kvb_box *out)
{
	const struct kvb_report *r = tb->r;
	int labels = tb->any_labels;
	size_t nv = r->variants.n, nc = 2 + (labels ? 1 : 0) + 1 + 3 * (nv - 1), col = 0;
	struct kvb_box b;
	char t[256];
	kvb_box_init(&b, nc);
	kvb_box_header(&b, col++, "workload", KVB_ALIGN_LEFT);
	kvb_box_header(&b, col++, "metric", KVB_ALIGN_LEFT);
	if (labels)
		kvb_box_header(&b, col++, "classifiers", KVB_ALIGN_LEFT);
	for (size_t v = 0; v < nv; v++) {
		snprintf(t, sizeof(t), "%s %s ± cov", r->variants.v[v], kvb_stat_name(tb->stat));
		kvb_box_header(&b, col++, t, KVB_ALIGN_RIGHT);
		if (v) {
			snprintf(t, sizeof(t), "%s %%change", r->variants.v[v]);
			kvb_box_header(&b, col++, t, KVB_ALIGN_RIGHT);
			snprintf(t, sizeof(t), "%s verdict", r->variants.v[v]);
			kvb_box_header(&b, col++, t, KVB_ALIGN_LEFT);
		}
	}
	for (size_t i = 0; i < r->ngroups; i++) {
		size_t gi = nth_group(tb, o, i);
		const struct kvb_group *g = &r->groups[gi];
		kvb_box_cell(&b, g->workload);
		metric_title(t, sizeof(t), g);
		kvb_box_cell(&b, t);
		if (labels)
			kvb_box_cell(&b, g->label);
		for (size_t v = 0; v < nv; v++) {
			const struct kvb_cell_stats cs = *kvb_table_cell(tb, gi, v);
			char n1[64], r1[64], d[400], raw[96];
			kvb_event_notes_mark(notes, g, r->variants.v[v], t, sizeof(t)); /* footnote marks, "" without */
			if (!cs.ok) {
				kvb_box_cell(&b, "-");
			} else if (isnan(cs.s.cov_pct)) {
				snprintf(d, sizeof(d), "%s%s", kvb_fmt_num(cs.value, n1, sizeof(n1)), t);
				kvb_box_cell_raw(&b, d, kvb_fmt_raw(cs.value, r1, sizeof(r1)), KVB_CELL_NUM);
			} else {
				snprintf(d, sizeof(d), "%s ± %.1f%%%s", kvb_fmt_num(cs.value, n1, sizeof(n1)), cs.s.cov_pct, t);
				snprintf(raw, sizeof(raw), "%s ± %.1f%%", kvb_fmt_raw(cs.value, r1, sizeof(r1)), cs.s.cov_pct);
				kvb_box_cell_raw(&b, d, raw, KVB_CELL_TEXT);
			}
			if (v) {
				if (cs.has_cmp)
					diff_cell(&b, &cs);
				else
					kvb_box_cell(&b, "-");
				verdict_cell(&b, &cs);
			}
		}
	}
	emit(&b, out);
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

/* --by KEY: one row per (metric, other classifiers, variant), one column per KEY value: `value (diff%) verdict`. */
static void print_by(const struct kvb_table *tb, const struct kvb_event_notes *notes, struct kvb_box *out)
{
	const struct kvb_report *r = tb->r;
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
		kvb_box_header(&b, 4 + k, kvb_by_label(tb->by, vals.v[k], t, sizeof(t)), KVB_ALIGN_RIGHT);
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
				char n1[64], d[64], r1[64], rd[64], verdict[128], disp[320], raw[320];
				if (!g) {
					kvb_box_cell(&b, "-");
					continue;
				}
				cs = *kvb_table_cell(tb, (size_t)(g - r->groups), v);
				if (!cs.ok) {
					kvb_box_cell(&b, "-");
					continue;
				}
				fmt_diff(d, sizeof(d), &cs, 0);
				fmt_diff(rd, sizeof(rd), &cs, 1);
				verdict[0] = ' ';
				if (cs.has_cmp)
					fmt_verdict(verdict + 1, sizeof(verdict) - 1, &cs); /* " better", " undecided (~9 boots)" */
				else
					verdict[0] = '\0';
				snprintf(disp, sizeof(disp), "%s (%s)%s%s", kvb_fmt_num(cs.value, n1, sizeof(n1)), d, verdict,
					 kvb_event_notes_mark(notes, g, r->variants.v[v], t, sizeof(t)));
				snprintf(raw, sizeof(raw), "%s (%s)%s", kvb_fmt_raw(cs.value, r1, sizeof(r1)), rd, verdict);
				kvb_box_cell_raw(&b, disp, raw, KVB_CELL_TEXT);
			}
		}
	}
	emit(&b, out);
	kvb_box_release(&b);
	kvb_strv_release(&vals);
	kvb_strv_release(&rows);
}

static cJSON *num(double x)
{
	return isfinite(x) ? cJSON_CreateNumber(x) : cJSON_CreateNull();
}

/* The comparison fields of a compared variant (docs/outputs.md, the schema's $defs/diff_variant). */
static void cmp_json(cJSON *jv, const struct kvb_cell_stats *cs, enum kvb_stat stat)
{
	cJSON_AddItemToObject(jv, "diff_pct", num(cs->diff_pct));
	cJSON_AddItemToObject(jv, "diff", num(cs->diff));
	cJSON_AddStringToObject(jv, "test", cs->test == KVB_TEST_MEAN	   ? "mean"
					    : cs->test == KVB_TEST_QUANTILE ? kvb_stat_name(stat)
									    : "none");
	if (cs->test == KVB_TEST_MEAN && cs->naive_ok) {
		cJSON_AddItemToObject(jv, "welch_t", num(cs->c.welch_t));
		cJSON_AddItemToObject(jv, "welch_df", num(cs->c.welch_df));
		cJSON_AddItemToObject(jv, "welch_p", num(cs->c.welch_p));
		cJSON_AddItemToObject(jv, "diff_ci95_lo", num(cs->c.ci_lo));
		cJSON_AddItemToObject(jv, "diff_ci95_hi", num(cs->c.ci_hi));
		cJSON_AddItemToObject(jv, "mw_u", num(cs->c.mw_u));
		cJSON_AddItemToObject(jv, "mw_p", num(cs->c.mw_p));
		cJSON_AddBoolToObject(jv, "mw_exact", cs->c.mw_exact);
		cJSON_AddItemToObject(jv, "ratio", num(cs->c.ratio));
		cJSON_AddItemToObject(jv, "ratio_ci95_lo", num(cs->c.ratio_ci_lo));
		cJSON_AddItemToObject(jv, "ratio_ci95_hi", num(cs->c.ratio_ci_hi));
		cJSON_AddBoolToObject(jv, "naive_significant", cs->c.significant);
	}
	if (cs->boot_ok) {
		/* the ratio where both sides stay positive, else null: the difference's CI decides */
		cJSON_AddItemToObject(jv, "boot_ratio", num(cs->b.ratio));
		cJSON_AddItemToObject(jv, "boot_ratio_ci95_lo", num(cs->b.ci_lo));
		cJSON_AddItemToObject(jv, "boot_ratio_ci95_hi", num(cs->b.ci_hi));
		cJSON_AddItemToObject(jv, "boot_diff_ci95_lo", num(cs->b.diff_ci_lo));
		cJSON_AddItemToObject(jv, "boot_diff_ci95_hi", num(cs->b.diff_ci_hi));
		cJSON_AddItemToObject(jv, "boot_welch_p", num(cs->b.boot_welch_p));
		if (cs->test == KVB_TEST_QUANTILE) {
			cJSON_AddItemToObject(jv, "bootstrap_p", num(cs->p_boot));
			cJSON_AddNumberToObject(jv, "resamples", cs->b.resamples);
		} else {
			cJSON_AddItemToObject(jv, "within_boot_sd", num(cs->b.within_sd_v));
			cJSON_AddItemToObject(jv, "between_boot_sd", num(cs->b.between_sd_v));
		}
		if (cs->b.robust) {
			/* boot_* fields above are of these per-boot levels (stats.h kvb_stats_boot_robust) */
			cJSON_AddStringToObject(jv, "boot_estimate", "trimmed_mean");
			cJSON_AddItemToObject(jv, "boot_level_baseline", num(cs->b.level_b));
			cJSON_AddItemToObject(jv, "boot_level", num(cs->b.level_v));
		}
	}
	cJSON_AddItemToObject(jv, "p", num(cell_p(cs)));
	cJSON_AddBoolToObject(jv, "significant", cs->significant);
	cJSON_AddStringToObject(jv, "verdict", cs->verdict);
	{
		char t[256];
		if (kvb_verdict_left_out(t, sizeof(t), cs))
			cJSON_AddStringToObject(jv, "verdict_text", t);
	}
	cJSON_AddStringToObject(jv, "unit", cs->test == KVB_TEST_NONE ? "none"
					    : cs->paired_ok		  ? "pair"
					    : cs->one_boot || !(cs->b.boots_b >= 2 && cs->b.boots_v >= 2) || !cs->boot_ok
						    ? "run (1 boot)"
						    : "boot");
	if (cs->paired_ok) {
		/* duet: the paired t test on the per-round differences (stats.h kvb_stats_paired) */
		cJSON_AddNumberToObject(jv, "pairs", (double)cs->pr.n);
		cJSON_AddItemToObject(jv, "paired_diff", num(cs->pr.diff));
		cJSON_AddItemToObject(jv, "paired_diff_ci95_lo", num(cs->pr.ci_lo));
		cJSON_AddItemToObject(jv, "paired_diff_ci95_hi", num(cs->pr.ci_hi));
		cJSON_AddItemToObject(jv, "paired_t", num(cs->pr.t));
	}
}

/* A variant whose every run of the group the host left out: group.left_out[] (the schema's). */
static void left_out_json(cJSON *jg, const char *variant, const struct kvb_cell_stats *cs)
{
	cJSON *a = cJSON_GetObjectItemCaseSensitive(jg, "left_out"), *o = cJSON_CreateObject();
	char t[256];
	if (!a)
		a = cJSON_AddArrayToObject(jg, "left_out");
	kvb_verdict_left_out(t, sizeof(t), cs);
	cJSON_AddStringToObject(o, "variant", variant);
	cJSON_AddNumberToObject(o, "left_out", (double)cs->left_out);
	cJSON_AddStringToObject(o, "verdict", t);
	cJSON_AddItemToArray(a, o);
}

/* JSON carries every statistic and p-value (a notebook needs nothing else). */
cJSON *kvb_diff_json(const struct kvb_table *t)
{
	const struct kvb_report *r = t->r;
	cJSON *root = cJSON_CreateObject(), *groups = cJSON_CreateArray(), *runs = cJSON_CreateArray();
	for (size_t i = 0; i < r->nruns; i++)
		cJSON_AddItemToArray(runs, cJSON_CreateNumber((double)r->runs[i]));
	cJSON_AddItemToObject(root, "runs", runs);
	cJSON_AddStringToObject(root, "baseline", r->variants.v[0]);
	cJSON_AddStringToObject(root, "stat", kvb_stat_name(t->stat));
	cJSON_AddNumberToObject(root, "alpha", t->alpha);
	for (size_t gi = 0; gi < r->ngroups; gi++) {
		const struct kvb_group *g = &r->groups[gi];
		cJSON *jg = cJSON_CreateObject(), *vs = cJSON_CreateArray();
		cJSON_AddStringToObject(jg, "workload", g->workload);
		cJSON_AddStringToObject(jg, "metric", g->metric);
		cJSON_AddStringToObject(jg, "units", g->units);
		cJSON_AddItemToObject(jg, "lower_is_better", kvb_direction_json(g->lower_is_better));
		cJSON_AddBoolToObject(jg, "estimated", strstr(g->cls_json, "\"estimated\":\"true\"") != NULL);
		cJSON_AddItemToObject(jg, "classifiers", cJSON_Parse(g->cls_json));
		if (g->by_value)
			cJSON_AddStringToObject(jg, t->by, g->by_value);
		for (size_t v = 0; v < r->variants.n; v++) {
			const struct kvb_cell_stats cs = *kvb_table_cell(t, gi, v);
			cJSON *jv = cJSON_CreateObject(), *vals = cJSON_CreateArray(), *boots = cJSON_CreateArray();
			if (!cs.ok && cs.left_out)
				left_out_json(jg, r->variants.v[v], &cs);
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
			if (cs.left_out)
				cJSON_AddNumberToObject(jv, "left_out", (double)cs.left_out);
			if (cs.has_cmp)
				cmp_json(jv, &cs, t->stat);
			kvb_verdict_json(jv, g, &cs);
			cJSON_AddItemToArray(vs, jv);
		}
		cJSON_AddItemToObject(jg, "variants", vs);
		cJSON_AddItemToArray(groups, jg);
	}
	cJSON_AddItemToObject(root, "groups", groups);
	return root;
}

void kvb_diff_table(const struct kvb_table *t, const struct kvb_diff_opts *o, const struct kvb_event_notes *notes,
		    struct kvb_box *table)
{
	if (t->by)
		print_by(t, notes, table);
	else if (o->layout == KVB_LAYOUT_WIDE)
		print_wide(t, o, notes, table);
	else
		print_long(t, o, notes, table);
}

char *kvb_diff_legend(const struct kvb_table *t, const struct kvb_diff_opts *o)
{
	/* the verdict legend and the multimodality footnotes (report/verdict_cell.h), as one footer text */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return kvb_xstrdup("");
	kvb_verdict_legend(f, t, kvb_diff_format(o));
	fclose(f);
	while (len && text[len - 1] == '\n')
		text[--len] = '\0';
	if (text[0] == '\n')
		memmove(text, text + 1, len);
	return text;
}

/* One line for what the host did to the compared runs' jobs (store/disturbance.h), not a footnote per job. */
static void disturbance_note(struct kvb_store *s, const struct kvb_report *r, struct kvb_strv *notes)
{
	struct kvb_disturbance d;
	struct kvb_error e2;
	char *line;
	if (kvb_store_disturbance(s, r->runs, r->nruns, &d, &e2) || !(line = kvb_disturbance_line(&d)))
		return;
	kvb_strv_pushf(notes, "note: %s%s", line, d.left_out ? " (left out: never compared; `kvbench show witnesses`)" : "");
	free(line);
}

/* Failed or partial variants above the table (stderr for csv/json); a baseline without results is an error. */
static int diff_run_notes(struct kvb_store *s, const struct kvb_report *r, const struct kvb_format *f, FILE *out,
			  struct kvb_error *err)
{
	struct kvb_run_state rs;
	struct kvb_strv notes = KVB_STRV_INIT;
	int prose = !!(f->caps & KVB_FMT_PROSE);
	int rc = kvb_run_state_load(s, r->runs, r->nruns, &rs, err);
	if (!rc)
		rc = kvb_run_state_check(&rs, r, prose, &notes, err);
	if (!rc)
		kvb_clock_notes(s, r->runs, r->nruns, &notes); /* what a time is on an instruction clock */
	if (!rc)
		kvb_board_notes(s, r->runs, r->nruns, &notes);
	if (!rc)
		disturbance_note(s, r, &notes);
	for (size_t i = 0; i < notes.n; i++) {
		if (prose)
			fprintf(out, "%s\n", notes.v[i]);
		else
			kvb_warn("%s", notes.v[i] + strlen("note: "));
	}
	if (notes.n && (f->caps & KVB_FMT_MARKUP))
		fputc('\n', out);
	kvb_strv_release(&notes);
	kvb_run_state_release(&rs);
	return rc;
}

static void one_boot_warning(const struct kvb_table *t)
{
	if (t->one_boot)
		kvb_warn("some comparisons have a single boot per variant: kernel and boot effects cannot be separated "
			 "(run with --rounds 2 or more)");
}

/* The layouts with text of their own (mail, the mailing-list table), their legend and notes. */
static int print_own_text(const struct kvb_table *t, const struct kvb_diff_opts *o, const struct kvb_event_notes *notes,
			  FILE *out, struct kvb_error *err)
{
	const struct kvb_format *fmt = kvb_diff_format(o);
	if (o->layout == KVB_LAYOUT_MAIL)
		return kvb_diff_mail(t, fmt, notes, out, err);
	/* the mailing-list table (report/mailtable.h): one table per metric, its own text forms */
	kvb_mailtable_print(t, o, fmt, out);
	if ((fmt->caps & KVB_FMT_PROSE) && !(fmt->caps & KVB_FMT_MARKUP))
		fputc('\n', out); /* markdown's legend opens with its own blank line */
	if (fmt->caps & KVB_FMT_PROSE) {
		kvb_verdict_legend(out, t, fmt);
		kvb_event_notes_print(notes, fmt, out);
	}
	return KVB_OK;
}

/* The long, wide and --by tables and the JSON document, through the format's renderer. */
static int render(const struct kvb_table *t, const struct kvb_diff_opts *o, const struct kvb_event_notes *notes,
		  FILE *out, struct kvb_error *err)
{
	const struct kvb_format *fmt = kvb_diff_format(o);
	struct kvb_box table;
	struct kvb_out_section sec;
	struct kvb_out doc;
	cJSON *json = NULL;
	char *legend;
	int rc;
	memset(&table, 0, sizeof(table));
	memset(&sec, 0, sizeof(sec));
	memset(&doc, 0, sizeof(doc));
	if (fmt->caps & KVB_FMT_DOCUMENT)
		json = kvb_diff_json(t);
	else
		kvb_diff_table(t, o, notes, &table);
	legend = kvb_diff_legend(t, o);
	sec.table = &table;
	sec.footer = legend;
	doc.title = "kvbench diff";
	doc.sec = &sec;
	doc.nsec = 1;
	doc.json = json;
	doc.plain = 1;
	rc = fmt->render(&doc, out, err);
	if (!rc && (fmt->caps & KVB_FMT_PROSE))
		kvb_event_notes_print(notes, fmt, out);
	cJSON_Delete(json);
	free(legend);
	kvb_box_release(&table);
	return rc;
}

int kvb_diff_print(struct kvb_store *s, const struct kvb_diff_opts *o, FILE *out, struct kvb_error *err)
{
	const struct kvb_format *fmt = kvb_diff_format(o);
	struct kvb_report r;
	struct kvb_event_notes notes;
	struct kvb_table t;
	size_t more = 0;
	char left[160];
	int rc;
	memset(&notes, 0, sizeof(notes));
	rc = kvb_report_load(s, &o->sel, &r, err);
	if (!rc && !o->all && (fmt->caps & KVB_FMT_PROSE) && !o->sel.nmetric_globs && !o->sel.metric_glob &&
	    !o->sel.workload)
		more = kvb_front_page(&r, left, sizeof(left));
	if (!rc)
		rc = diff_run_notes(s, &r, fmt, out, err);
	if (!rc)
		rc = kvb_report_set_margins(s, &r, o->margin, err);
	if (rc) {
		kvb_report_release(&r);
		return rc;
	}
	kvb_report_set_steps(&r, kvb_workload_metric_decl);
	kvb_event_notes_load(s, r.runs, r.nruns, &notes, err);
	notes.by = o->sel.by;
	/* every cell computed once; each layout and format renders these */
	kvb_table_compute(&r, o->stat, o->alpha, o->sel.by, &t);
	if (o->layout == KVB_LAYOUT_MAIL || (fmt->table && t.by && o->layout == KVB_LAYOUT_WIDE))
		rc = print_own_text(&t, o, &notes, out, err);
	else
		rc = render(&t, o, &notes, out, err);
	if (!rc)
		one_boot_warning(&t);
	if (!rc && more) /* the front page says what it left out and how to see it */
		fprintf(out, "\n%zu more metric group(s) of the instruments (%s): `kvbench diff --all` shows every one\n",
			more, left);
	kvb_table_release(&t);
	kvb_event_notes_release(&notes);
	kvb_report_release(&r);
	return rc;
}
