/* Implements box (prettytable-style), markdown and CSV rendering of a cell grid. */
#include "report/box.h"
#include "core/csv_field.h"
#include "core/utf8.h"
#include "core/escape.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void kvb_box_init(struct kvb_box *b, size_t ncols)
{
	memset(b, 0, sizeof(*b));
	b->ncols = ncols;
	b->align = kvb_xcalloc(ncols, sizeof(*b->align));
	for (size_t i = 0; i < ncols; i++)
		kvb_strv_push(&b->head, "");
}

void kvb_box_header(struct kvb_box *b, size_t col, const char *title, enum kvb_align a)
{
	free(b->head.v[col]);
	b->head.v[col] = kvb_utf8_clean(title, strlen(title));
	b->align[col] = a;
}

void kvb_box_cell_raw(struct kvb_box *b, const char *display, const char *raw, enum kvb_cell_kind kind)
{
	/* every table, markdown, CSV and JSON cell passes here: printed text is valid UTF-8 (core/utf8.h) */
	char *d = kvb_utf8_clean(display ? display : "", display ? strlen(display) : 0);
	char *r = kvb_utf8_clean(raw ? raw : "", raw ? strlen(raw) : 0);
	kvb_strv_push(&b->cells, d);
	kvb_strv_push(&b->raw, r);
	free(d);
	free(r);
	if (b->raw.n > b->kind_alloc) {
		b->kind_alloc = b->kind_alloc ? 2 * b->kind_alloc : 64;
		b->kind = kvb_xrealloc(b->kind, b->kind_alloc);
	}
	b->kind[b->raw.n - 1] = (unsigned char)kind;
	b->nrows = (b->cells.n + b->ncols - 1) / b->ncols;
}

void kvb_box_cell(struct kvb_box *b, const char *text)
{
	kvb_box_cell_raw(b, text, text, KVB_CELL_TEXT);
}

void kvb_box_cellf(struct kvb_box *b, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	kvb_box_cell(b, tmp);
}

/*
 * A cell is one line of a box or markdown table: a control character (a line break in a
 * board's stderr quoted in an error, a tab, an escape sequence) would break the table or
 * the terminal, so it shows as its C escape (core/escape.h); csv and json keep the raw
 * text, escaped their own way.
 */

/* Display width in columns: UTF-8 continuation bytes do not count, an escaped control character its escape. */
static size_t width(const char *s)
{
	size_t w = 0, n;
	char buf[8];
	for (; *s; s += n) {
		const char *e = kvb_ctl_escape(s, buf, &n);
		if (e)
			w += strlen(e);
		else if (((unsigned char)*s & 0xC0) != 0x80)
			w++;
	}
	return w;
}

/* s on one line: control characters as their escapes (kvb_ctl_escape). */
static void put_text(FILE *f, const char *s)
{
	size_t n;
	char buf[8];
	for (; *s; s += n) {
		const char *e = kvb_ctl_escape(s, buf, &n);
		if (e)
			fputs(e, f);
		else
			fputc(*s, f);
	}
}

static const char *cell(const struct kvb_box *b, size_t r, size_t c)
{
	size_t i = r * b->ncols + c;
	return i < b->cells.n ? b->cells.v[i] : "";
}

const char *kvb_box_at(const struct kvb_box *b, size_t r, size_t c)
{
	return cell(b, r, c);
}

const char *kvb_box_raw_at(const struct kvb_box *b, size_t r, size_t c)
{
	size_t i = r * b->ncols + c;
	return i < b->raw.n ? b->raw.v[i] : "";
}

enum kvb_cell_kind kvb_box_kind_at(const struct kvb_box *b, size_t r, size_t c)
{
	size_t i = r * b->ncols + c;
	return i < b->raw.n ? (enum kvb_cell_kind)b->kind[i] : KVB_CELL_TEXT;
}

static void rule(const struct kvb_box *b, const size_t *w, FILE *f)
{
	for (size_t c = 0; c < b->ncols; c++) {
		fputc('+', f);
		for (size_t i = 0; i < w[c] + 2; i++)
			fputc('-', f);
	}
	fputs("+\n", f);
}

static void put_cell(FILE *f, const char *s, size_t w, enum kvb_align a)
{
	size_t n = width(s), pad = w > n ? w - n : 0, left = a == KVB_ALIGN_RIGHT ? pad : a == KVB_ALIGN_CENTER ? pad / 2 : 0;
	fprintf(f, "| %*s", (int)left, "");
	put_text(f, s);
	fprintf(f, "%*s ", (int)(pad - left), "");
}

void kvb_box_print(const struct kvb_box *b, FILE *f)
{
	size_t *w = kvb_xcalloc(b->ncols, sizeof(*w));
	for (size_t c = 0; c < b->ncols; c++) {
		w[c] = width(b->head.v[c]);
		for (size_t r = 0; r < b->nrows; r++)
			if (width(cell(b, r, c)) > w[c])
				w[c] = width(cell(b, r, c));
	}
	rule(b, w, f);
	for (size_t c = 0; c < b->ncols; c++)
		put_cell(f, b->head.v[c], w[c], KVB_ALIGN_CENTER);
	fputs("|\n", f);
	rule(b, w, f);
	for (size_t r = 0; r < b->nrows; r++) {
		for (size_t c = 0; c < b->ncols; c++)
			put_cell(f, cell(b, r, c), w[c], b->align[c]);
		fputs("|\n", f);
	}
	rule(b, w, f);
	free(w);
}

static void md_cell(FILE *f, const char *s)
{
	size_t n;
	char buf[8];
	fputc(' ', f);
	for (; *s; s += n) {
		const char *e = kvb_ctl_escape(s, buf, &n);
		if (*s == '|')
			fputs("\\|", f);
		else if (e)
			fputs(e, f);
		else
			fputc(*s, f);
	}
	fputs(" |", f);
}

void kvb_box_print_markdown(const struct kvb_box *b, FILE *f)
{
	fputc('|', f);
	for (size_t c = 0; c < b->ncols; c++)
		md_cell(f, b->head.v[c]);
	fputs("\n|", f);
	for (size_t c = 0; c < b->ncols; c++)
		fputs(b->align[c] == KVB_ALIGN_RIGHT ? " ---: |" : b->align[c] == KVB_ALIGN_CENTER ? " :---: |" : " --- |", f);
	fputc('\n', f);
	for (size_t r = 0; r < b->nrows; r++) {
		fputc('|', f);
		for (size_t c = 0; c < b->ncols; c++)
			md_cell(f, cell(b, r, c));
		fputc('\n', f);
	}
}

static void tsv_field(FILE *f, const char *raw)
{
	char *clean = kvb_utf8_clean(raw ? raw : "", raw ? strlen(raw) : 0);
	for (const char *s = clean; *s; s++)
		switch (*s) {
		case '\t': fputs("\\t", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\\': fputs("\\\\", f); break;
		default: fputc(*s, f);
		}
	free(clean);
}

/* The header and the raw cells, sep between fields, each written by field (csv and tsv). */
static void print_delimited(const struct kvb_box *b, FILE *f, int sep, void (*field)(FILE *, const char *))
{
	for (size_t c = 0; c < b->ncols; c++) {
		if (c)
			fputc(sep, f);
		field(f, b->head.v[c]);
	}
	fputc('\n', f);
	for (size_t r = 0; r < b->nrows; r++) {
		for (size_t c = 0; c < b->ncols; c++) {
			if (c)
				fputc(sep, f);
			field(f, kvb_box_raw_at(b, r, c));
		}
		fputc('\n', f);
	}
}

void kvb_box_print_csv(const struct kvb_box *b, FILE *f)
{
	print_delimited(b, f, ',', kvb_csv_field);
}

void kvb_box_print_tsv(const struct kvb_box *b, FILE *f)
{
	print_delimited(b, f, '\t', tsv_field);
}

void kvb_box_release(struct kvb_box *b)
{
	kvb_strv_release(&b->head);
	kvb_strv_release(&b->cells);
	kvb_strv_release(&b->raw);
	free(b->kind);
	free(b->align);
	memset(b, 0, sizeof(*b));
}
