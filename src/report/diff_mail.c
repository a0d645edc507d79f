/*
 * Implements `diff --layout mail` (report/diff.h): the table as the threads post it (shared/seeds
 * 000: "each test runs 16 times", then per benchmark `59652(+/- 0.18%) 59876(+/- 0.24%) +0.38%`),
 * plain text aligned with spaces, the legend once at the end, two variants within 80 columns:
 *
 *   sched_pipe ops_per_sec (ops/s), higher is better; mean (±cov), n=5
 *                       base            patch
 *   root        100 (±1.58%)     110 (±1.44%)  +10.00%*  better
 *   level1       92 (±1.72%)      92 (±1.54%)   +0.00%   undecided
 *
 * Every number is the computed table's (results/table.h): nothing is computed here.
 */
#include "report/diff_mail.h"
#include "core/numfmt.h"
#include "core/util.h"

#include "results/verdict_words.h"
#include "stats/verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAIL_WIDTH 80
#define MAIL_LABEL 20 /* a longer row label gets a line of its own above its numbers */

/* Columns text takes on a terminal: UTF-8 code points ("±" is one). */
static size_t cols(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* text right-aligned (left when left is set) in w columns. */
static void pad(FILE *out, const char *text, size_t w, int left)
{
	size_t c = cols(text);
	if (left)
		fputs(text, out);
	for (; c < w; c++)
		fputc(' ', out);
	if (!left)
		fputs(text, out);
}

/* The table a group belongs to: workload, metric and units. Owned. */
static char *table_key(const struct kvb_group *g)
{
	return kvb_xasprintf("%s\x1f%s\x1f%s", g->workload, g->metric, g->units);
}

/* A row's label: the group's classifier label and its --by value ("root", "level1"), or "-". Owned. */
static char *row_label(const struct kvb_table *t, const struct kvb_group *g)
{
	char b[128];
	const char *by = t->by && g->by_value ? kvb_by_label(t->by, g->by_value, b, sizeof(b)) : "";
	const char *l = g->label ? g->label : "";
	if (!*l && !*by)
		return kvb_xstrdup("-");
	return kvb_xasprintf("%s%s%s", l, *l && *by ? " " : "", by);
}

/* "100 (±1.58%)", "100" without a spread, "-" without a value. */
static void value_text(char *buf, size_t n, const struct kvb_cell_stats *cs)
{
	char v[64];
	if (!cs->ok)
		snprintf(buf, n, "-");
	else if (isnan(cs->s.cov_pct))
		snprintf(buf, n, "%s", kvb_fmt_num(cs->value, v, sizeof(v)));
	else
		snprintf(buf, n, "%s (\u00b1%.2f%%)", kvb_fmt_num(cs->value, v, sizeof(v)), cs->s.cov_pct);
}

/* "+10.00%*" (the * when significant), "-" without a comparison. */
static void diff_text(char *buf, size_t n, const struct kvb_cell_stats *cs)
{
	if (!cs->has_cmp || isnan(cs->diff_pct))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%+.2f%%%s", cs->diff_pct, cs->significant ? "*" : "");
}

/* The short verdict: the word alone (the long layout has the CI and boots), and the footnote marks. */
static void verdict_text(char *buf, size_t n, const struct kvb_table *t, size_t gi, size_t v,
			 const struct kvb_event_notes *notes)
{
	const struct kvb_cell_stats *cs = kvb_table_cell(t, gi, v);
	char marks[128];
	const char *word = !cs->ok ? (cs->left_out ? "left out" : "-") : !cs->has_cmp ? (cs->base_left_out ? "left out" : "-")
							  : cs->verdict;
	kvb_event_notes_mark(notes, &t->r->groups[gi], t->r->variants.v[v], marks, sizeof(marks));
	snprintf(buf, n, "%s%s", word, marks);
}

/* The groups of one table (same key as groups[first]), in load order. */
struct mail_table {
	size_t *g, n;
};

/* Words of text wrapped to MAIL_WIDTH - 2 columns, continuation lines indented by two spaces. */
static void wrapped(FILE *out, const char *text)
{
	size_t col = 0;
	const char *p = text;
	while (*p) {
		size_t len = strcspn(p, " "), w;
		char *word = kvb_xstrndup(p, len);
		w = cols(word);
		if (col && col + 1 + w > MAIL_WIDTH - 2) {
			fputs("\n  ", out);
			col = 2;
		} else if (col) {
			fputc(' ', out);
			col++;
		}
		fputs(word, out);
		col += w;
		free(word);
		p += len;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

static void legend(FILE *out, const struct kvb_table *t)
{
	const struct kvb_report *r = t->r;
	double m = r->ngroups ? r->groups[0].margin : KVB_VERDICT_MARGIN; /* --margin set every group's */
	int same_margin = 1;
	char *text, undecided[512];
	static const char *const words[] = { "undecided", NULL };
	for (size_t i = 1; i < r->ngroups; i++)
		same_margin &= r->groups[i].margin == r->groups[0].margin;
	text = kvb_xasprintf("n: values per variant (runs x iterations), and the boots they came from when more "
			     "than one; %s (\u00b1cov: the coefficient of variation of the values); diff = (variant - "
			     "%s) / |%s|, * when significant at alpha %g.",
			     kvb_stat_name(t->stat), r->variants.v[0], r->variants.v[0], t->alpha);
	wrapped(out, text);
	free(text);
	kvb_verdict_words_legend(undecided, sizeof(undecided), words); /* as the other layouts say it */
	if (same_margin)
		text = kvb_xasprintf("better/worse: a real change; same: the 95 %% CI of the change lies within "
				     "\u00b1%.3g %%; %s (`kvbench diff` without --layout mail shows the CI and boots).",
				     m * 100, undecided);
	else
		text = kvb_xasprintf("better/worse: a real change; same: the 95 %% CI of the change lies within the "
				     "metric's margin; %s (`kvbench diff` without --layout mail shows the CI and boots).",
				     undecided);
	wrapped(out, text);
	free(text);
}

/* "n=16", "n=4..6", with " in 4 boots" / " in 2..3 boots" when some cell has more than one boot. */
static void n_text(char *buf, size_t size, const struct kvb_table *t, const struct mail_table *mt)
{
	size_t nlo = (size_t)-1, nhi = 0, blo = (size_t)-1, bhi = 0;
	int len;
	for (size_t i = 0; i < mt->n; i++)
		for (size_t v = 0; v < t->r->variants.n; v++) {
			const struct kvb_cell_stats *cs = kvb_table_cell(t, mt->g[i], v);
			if (!cs->ok)
				continue;
			nlo = cs->s.n < nlo ? cs->s.n : nlo;
			nhi = cs->s.n > nhi ? cs->s.n : nhi;
			blo = cs->boots < blo ? cs->boots : blo;
			bhi = cs->boots > bhi ? cs->boots : bhi;
		}
	if (!nhi) {
		snprintf(buf, size, "n=0");
		return;
	}
	len = nlo == nhi ? snprintf(buf, size, "n=%zu", nhi) : snprintf(buf, size, "n=%zu..%zu", nlo, nhi);
	if (bhi > 1 && len > 0 && (size_t)len < size)
		snprintf(buf + len, size - (size_t)len, blo == bhi ? " in %zu boots" : " in %zu..%zu boots", blo, bhi);
}

static void print_table(FILE *out, const struct kvb_table *t, const struct mail_table *mt,
			const struct kvb_event_notes *notes)
{
	const struct kvb_report *r = t->r;
	const struct kvb_group *g0 = &r->groups[mt->g[0]];
	size_t nv = r->variants.n, lw = 0, *vw = kvb_xcalloc(nv, sizeof(*vw)), *dw = kvb_xcalloc(nv, sizeof(*dw));
	size_t *ww = kvb_xcalloc(nv, sizeof(*ww));
	char buf[256], ntxt[64];
	int labels = 0; /* a table whose rows have no label (one group, no classifiers) has no label column */
	/* the widths: labels up to MAIL_LABEL, each column its widest text or header */
	for (size_t v = 0; v < nv; v++)
		vw[v] = cols(r->variants.v[v]);
	for (size_t i = 0; i < mt->n; i++) {
		char *l = row_label(t, &r->groups[mt->g[i]]);
		size_t c = cols(l);
		if (c <= MAIL_LABEL && c > lw)
			lw = c;
		labels |= strcmp(l, "-") != 0;
		free(l);
		for (size_t v = 0; v < nv; v++) {
			const struct kvb_cell_stats *cs = kvb_table_cell(t, mt->g[i], v);
			value_text(buf, sizeof(buf), cs);
			vw[v] = cols(buf) > vw[v] ? cols(buf) : vw[v];
			if (!v)
				continue;
			diff_text(buf, sizeof(buf), cs);
			dw[v] = cols(buf) > dw[v] ? cols(buf) : dw[v];
			verdict_text(buf, sizeof(buf), t, mt->g[i], v, notes);
			ww[v] = cols(buf) > ww[v] ? cols(buf) : ww[v];
		}
	}
	n_text(ntxt, sizeof(ntxt), t, mt);
	/* utilisation and frequency have no better or worse (lower_is_better -1: docs/outputs.md, Directions) */
	fprintf(out, "%s %s%s%s%s, %s; %s (\u00b1cov), %s\n", g0->workload, g0->metric, *g0->units ? " (" : "",
		g0->units, *g0->units ? ")" : "",
		g0->lower_is_better < 0 ? "neither is better" : g0->lower_is_better ? "lower is better" : "higher is better",
		kvb_stat_name(t->stat), ntxt);
	if (!labels)
		lw = 0;
	pad(out, "", lw, 1);
	for (size_t v = 0; v < nv; v++) {
		fputs(v || labels ? "  " : "", out);
		pad(out, r->variants.v[v], vw[v], 0);
		if (v) {
			fputs("  ", out);
			pad(out, "diff", dw[v], 0);
			if (v + 1 < nv) {
				fputs("  ", out);
				pad(out, "", ww[v], 1);
			}
		}
	}
	fputc('\n', out);
	for (size_t i = 0; i < mt->n; i++) {
		size_t gi = mt->g[i];
		char *l = row_label(t, &r->groups[gi]);
		if (!labels) {
			/* no label column */
		} else if (cols(l) > lw) { /* a full label on its own line, never cut */
			fprintf(out, "%s\n", l);
			pad(out, "", lw, 1);
		} else {
			pad(out, l, lw, 1);
		}
		free(l);
		for (size_t v = 0; v < nv; v++) {
			const struct kvb_cell_stats *cs = kvb_table_cell(t, gi, v);
			fputs(v || labels ? "  " : "", out);
			value_text(buf, sizeof(buf), cs);
			pad(out, buf, vw[v], 0);
			if (!v)
				continue;
			fputs("  ", out);
			diff_text(buf, sizeof(buf), cs);
			pad(out, buf, dw[v], 0);
			fputs("  ", out);
			verdict_text(buf, sizeof(buf), t, gi, v, notes);
			if (v + 1 < nv)
				pad(out, buf, ww[v], 1);
			else
				fputs(buf, out); /* no trailing blanks */
		}
		fputc('\n', out);
	}
	free(vw);
	free(dw);
	free(ww);
}

int kvb_diff_mail(const struct kvb_table *t, const struct kvb_format *fmt, const struct kvb_event_notes *notes,
		  FILE *out, struct kvb_error *err)
{
	const struct kvb_report *r = t->r;
	int md = !!(fmt->caps & KVB_FMT_MARKUP);
	struct kvb_strv keys = KVB_STRV_INIT;
	struct mail_table *mt = kvb_xcalloc(r->ngroups + 1, sizeof(*mt));
	size_t shown = 0;
	if (!(fmt->caps & KVB_FMT_PROSE)) {
		free(mt);
		return kvb_error_set(err, KVB_EUSAGE, "--layout mail is text for people: --format table or markdown");
	}
	/* one table per (workload, metric, units), in the order their first group comes in t->order (what changed first) */
	for (size_t i = 0; i < r->ngroups; i++) {
		char *k = table_key(&r->groups[t->order[i]]);
		size_t j;
		for (j = 0; j < keys.n && strcmp(keys.v[j], k); j++)
			;
		if (j == keys.n)
			kvb_strv_push(&keys, k);
		free(k);
	}
	for (size_t j = 0; j < keys.n; j++) {
		mt[j].g = kvb_xcalloc(r->ngroups + 1, sizeof(*mt[j].g));
		for (size_t gi = 0; gi < r->ngroups; gi++) {
			char *k = table_key(&r->groups[gi]);
			if (!strcmp(k, keys.v[j]))
				mt[j].g[mt[j].n++] = gi;
			free(k);
		}
	}
	if (md)
		fputs("```\n", out);
	for (size_t j = 0; j < keys.n; j++) {
		fputs(shown++ ? "\n" : "", out);
		print_table(out, t, &mt[j], notes);
	}
	fputc('\n', out);
	legend(out, t);
	kvb_event_notes_print(notes, &kvb_format_table, out);
	if (md)
		fputs("```\n", out);
	for (size_t j = 0; j < keys.n; j++)
		free(mt[j].g);
	free(mt);
	kvb_strv_release(&keys);
	return KVB_OK;
}
