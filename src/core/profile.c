/*
 * The profile of a job and the parser of `perf report --stdio --no-children -n` (profile.h).
 * Format facts (tools/perf/ui/stdio/hist.c, builtin-report.c): header lines start with '#';
 * the column titles line is followed by a rule of dots per column, two spaces apart, the data
 * rows padded to those columns (right-aligned numbers, left-aligned text); with `-t SEP` the
 * columns are split by SEP instead (perf still pads them). A symbol is "[k] name" (kernel),
 * "[.] name" (user), or an address "[k] 0xffffffff81234567" when perf found no symbol for it.
 */
#include "core/profile.h"
#include "core/util.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kvb_profile_free(struct kvb_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].dso);
		free(p->v[i].symbol);
	}
	free(p->v);
	free(p->event);
	free(p->op_name);
	free(p);
}

int64_t kvb_perf_lost_chunks(const char *err_text)
{
	const char *s = err_text ? strstr(err_text, " events and lost ") : NULL;
	long long m;
	if (!s || sscanf(s, " events and lost %lld chunks", &m) != 1 || m < 0)
		return 0;
	return m;
}

double kvb_perf_lost_pct(const char *err_text)
{
	const char *s = err_text ? strstr(err_text, " samples and lost ") : NULL;
	char num[32];
	size_t k = 0;
	if (!s)
		return 0;
	s += strlen(" samples and lost ");
	/* perf prints it with the locale's decimal mark: "lost 15,96%!" */
	while (k + 1 < sizeof(num) && (isdigit((unsigned char)*s) || *s == '.' || *s == ',')) {
		num[k++] = *s == ',' ? '.' : *s;
		s++;
	}
	num[k] = '\0';
	return k && *s == '%' ? strtod(num, NULL) : 0;
}

/* The columns of one report: where each starts and how wide its rule is (padded form). */
enum { COL_MAX = 16 };
struct cols {
	int n;
	size_t start[COL_MAX], width[COL_MAX];
	char title[COL_MAX][32];
	int samples, dso, sym; /* column index, -1: absent */
	char sep;              /* -t separator, 0: padded */
};

static void trim(char **b, char **e)
{
	while (*b < *e && isspace((unsigned char)**b))
		(*b)++;
	while (*e > *b && isspace((unsigned char)(*e)[-1]))
		(*e)--;
}

/* "# Overhead  Samples  Shared Object  Symbol" (or split by sep): the titles. */
static void read_titles(const char *line, size_t len, struct cols *c)
{
	const char *p = line + 1, *end = line + len;
	c->n = 0;
	while (p < end && c->n < COL_MAX) {
		const char *q;
		char *b, *e;
		if (c->sep) {
			q = memchr(p, c->sep, (size_t)(end - p));
			if (!q)
				q = end;
		} else {
			while (p < end && *p == ' ')
				p++;
			for (q = p; q < end && !(q[0] == ' ' && q + 1 < end && q[1] == ' '); q++)
				;
		}
		b = (char *)p;
		e = (char *)q;
		trim(&b, &e);
		if (e > b || c->sep) {
			snprintf(c->title[c->n], sizeof(c->title[0]), "%.*s", (int)(e - b), b);
			c->n++;
		}
		p = q < end ? q + 1 : end;
	}
	c->samples = c->dso = c->sym = -1;
	for (int i = 0; i < c->n; i++) {
		if (!strcmp(c->title[i], "Samples"))
			c->samples = i;
		else if (!strcmp(c->title[i], "Shared Object"))
			c->dso = i;
		else if (!strcmp(c->title[i], "Symbol"))
			c->sym = i;
	}
}

/* "# ........  ............  ......": where each column starts and its width. */
static int read_rule(const char *line, size_t len, struct cols *c)
{
	int k = 0;
	for (size_t i = 1; i < len && k < COL_MAX;) {
		size_t j;
		if (line[i] != '.') {
			i++;
			continue;
		}
		for (j = i; j < len && line[j] == '.'; j++)
			;
		c->start[k] = i;
		c->width[k] = j - i;
		k++;
		i = j;
	}
	return k;
}

/* Field i of a row into [*b, *e), trimmed; 0 when the row has no such field. */
static int field(const char *line, size_t len, const struct cols *c, int i, const char **b, const char **e)
{
	const char *end = line + len;
	char *fb, *fe;
	if (c->sep) {
		const char *p = line;
		for (int k = 0; k < i; k++) {
			p = memchr(p, c->sep, (size_t)(end - p));
			if (!p)
				return 0;
			p++;
		}
		fb = (char *)p;
		fe = memchr(p, c->sep, (size_t)(end - p));
		if (!fe || i == c->n - 1)
			fe = (char *)end;
	} else {
		size_t s = c->start[i], w = i == c->n - 1 ? len : c->width[i];
		/* a number column is right-aligned: it may begin before its rule when wider */
		if (i > 0 && s > c->start[i - 1] + c->width[i - 1])
			s = c->start[i - 1] + c->width[i - 1];
		if (s >= len)
			return 0;
		fb = (char *)line + s;
		fe = i == c->n - 1 || c->start[i] + w > len ? (char *)end : (char *)line + c->start[i] + w;
	}
	trim(&fb, &fe);
	*b = fb;
	*e = fe;
	return 1;
}

static void add_row(struct kvb_profile *p, const char *dso, size_t dlen, char mode, const char *sym, size_t slen,
		    uint64_t samples)
{
	struct kvb_profile_sym *r;
	const char *x = sym;
	if (p->n == p->alloc) {
		p->alloc = p->alloc ? 2 * p->alloc : 256;
		p->v = kvb_xrealloc(p->v, p->alloc * sizeof(*p->v));
	}
	r = &p->v[p->n++];
	r->dso = kvb_xstrndup(dso, dlen);
	r->symbol = kvb_xstrndup(sym, slen);
	r->mode = mode;
	r->samples = samples;
	/* perf prints an address it found no symbol for: "0xffffffff81234567" */
	r->resolved = 1;
	if (slen > 2 && x[0] == '0' && x[1] == 'x') {
		size_t k = 2;
		while (k < slen && isxdigit((unsigned char)x[k]))
			k++;
		r->resolved = k < slen;
	}
}

static int by_name(const void *a, const void *b)
{
	const struct kvb_profile_sym *x = a, *y = b;
	int c = strcmp(x->symbol, y->symbol);
	return c ? c : strcmp(x->dso, y->dso);
}

static int by_samples(const void *a, const void *b)
{
	const struct kvb_profile_sym *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return by_name(a, b);
}

/* Rows of the same dso and symbol (another command's) summed; sorted most samples first. */
static void merge_rows(struct kvb_profile *p)
{
	size_t k = 0;
	qsort(p->v, p->n, sizeof(*p->v), by_name);
	for (size_t i = 0; i < p->n; i++) {
		if (k && !by_name(&p->v[k - 1], &p->v[i])) {
			p->v[k - 1].samples += p->v[i].samples;
			free(p->v[i].dso);
			free(p->v[i].symbol);
			continue;
		}
		p->v[k++] = p->v[i];
	}
	p->n = k;
	qsort(p->v, p->n, sizeof(*p->v), by_samples);
	for (size_t i = 0; i < p->n; i++) {
		p->samples += p->v[i].samples;
		if (p->v[i].mode == 'k') {
			p->kernel_samples += p->v[i].samples;
			if (p->v[i].resolved)
				p->kernel_resolved += p->v[i].samples;
		}
	}
}

static struct kvb_profile *fail(struct kvb_profile *p, char *why, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static struct kvb_profile *fail(struct kvb_profile *p, char *why, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	kvb_profile_free(p);
	return NULL;
}

/* One data row: its samples, dso and "[k] symbol". */
static int read_row(struct kvb_profile *p, const struct cols *c, const char *line, size_t len)
{
	const char *b, *e, *sb, *se, *db = "", *de = db;
	char num[32], *end;
	unsigned long long samples;
	char mode = '?';
	if (!field(line, len, c, c->samples, &b, &e) || e == b || (size_t)(e - b) >= sizeof(num))
		return -1;
	memcpy(num, b, (size_t)(e - b));
	num[e - b] = '\0';
	samples = strtoull(num, &end, 10);
	if (*end || !isdigit((unsigned char)num[0]))
		return -1;
	if (!field(line, len, c, c->sym, &sb, &se) || se == sb)
		return -1;
	if (se - sb > 4 && sb[0] == '[' && sb[2] == ']' && sb[3] == ' ') {
		mode = sb[1];
		sb += 4;
		while (sb < se && *sb == ' ')
			sb++;
	}
	if (c->dso >= 0 && !field(line, len, c, c->dso, &db, &de))
		return -1;
	add_row(p, db, (size_t)(de - db), mode, sb, (size_t)(se - sb), samples);
	return 0;
}

struct kvb_profile *kvb_perf_report_parse(const char *text, char *why, size_t n)
{
	struct kvb_profile *p = kvb_xcalloc(1, sizeof(*p));
	struct cols c;
	int have_titles = 0, have_rule = 0, line_no = 0;
	memset(&c, 0, sizeof(c));
	p->lost = -1;
	p->unit = "ns";
	for (const char *l = text ? text : ""; *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		long long x;
		char ev[256];
		line_no++;
		if (len && l[len - 1] == '\r')
			len--;
		if (l[0] == '#') {
			char buf[512];
			snprintf(buf, sizeof(buf), "%.*s", (int)(len < sizeof(buf) - 1 ? len : sizeof(buf) - 1), l);
			if (sscanf(buf, "# Total Lost Samples: %lld", &x) == 1) {
				p->lost = x;
			} else if (sscanf(buf, "# Samples: %*s of event '%255[^']'", ev) == 1) {
				if (p->event)
					return fail(p, why, n, "line %d: a second event's report ('%s' after '%s'): one event expected",
						    line_no, ev, p->event);
				p->event = kvb_xstrdup(ev);
			} else if (sscanf(buf, "# Event count (approx.): %lld", &x) == 1) {
				p->event_count = (uint64_t)x;
			} else if (!have_titles && strstr(buf, "Overhead") && strstr(buf, "Symbol")) {
				const char *t = buf + 1;
				while (*t == ' ')
					t++;
				c.sep = 0;
				/* with -t SEP the titles are split by SEP: the first byte after "Overhead" */
				if (!strncmp(t, "Overhead", 8) && t[8] && t[8] != ' ')
					c.sep = t[8];
				read_titles(buf, strlen(buf), &c);
				if (c.samples < 0)
					return fail(p, why, n, "line %d: no Samples column (perf report -n)", line_no);
				if (c.sym < 0)
					return fail(p, why, n, "line %d: no Symbol column (--sort ...,sym)", line_no);
				have_titles = 1;
			} else if (have_titles && !have_rule && !c.sep && strstr(buf, "..")) {
				if (read_rule(buf, strlen(buf), &c) != c.n)
					return fail(p, why, n, "line %d: the rule under the column titles has %d columns, the titles %d",
						    line_no, read_rule(buf, strlen(buf), &c), c.n);
				have_rule = 1;
			}
		} else if (len && have_titles && (have_rule || c.sep)) {
			const char *t = l;
			while (t < l + len && *t == ' ')
				t++;
			/* a row starts with its overhead ("30.40%"); call-graph lines ("|", "---") do not */
			if (t < l + len && isdigit((unsigned char)*t) && read_row(p, &c, l, len))
				return fail(p, why, n, "line %d: a row that does not parse: '%.*s'", line_no,
					    (int)(len > 120 ? 120 : len), l);
		}
		l += len;
		while (*l == '\r' || *l == '\n') {
			l++;
			if (l[-1] == '\n')
				break;
		}
	}
	if (!have_titles)
		return fail(p, why, n, "no column titles ('# Overhead ... Samples ... Symbol'): not perf report --stdio -n output");
	if (!p->n)
		return fail(p, why, n, "no sample in the report");
	merge_rows(p);
	return p;
}
