/*
 * A text table rendered as prettytable/psql-style boxes, the shape kernel
 * developers paste into mailing-list posts:
 *
 *   +-------------+---------+-------+-----------+
 *   |  chan_name  | kernel  | value | perc_diff |
 *   +-------------+---------+-------+-----------+
 *   | total_power | base    | 141.6 |   0.0%    |
 *
 * Also renders the same cells as GitHub markdown or CSV.
 *
 * Every cell has a display text (what people read: "26.44", "+1.23%*") and a
 * raw text with its kind (what scripts read: "26.437500000000004", a JSON
 * number). kvb_box_cell() makes both the same; kvb_box_cell_raw() sets them
 * apart. The box, markdown and html renderers use the display text, csv and
 * json the raw one (report/format.h). Box and markdown cells are one line: a
 * line break or other control character in a cell prints as its C escape
 * (\n, \r, \t, \xHH, C1 controls as \u0080..\u009f); csv quotes it and json escapes it.
 */
#ifndef KVB_BOX_H
#define KVB_BOX_H

#include "core/util.h"

#include <stdio.h>

enum kvb_align { KVB_ALIGN_LEFT, KVB_ALIGN_RIGHT, KVB_ALIGN_CENTER };

/* How json writes a cell's raw text: a string, a number (raw is a C double literal) or null. */
enum kvb_cell_kind { KVB_CELL_TEXT, KVB_CELL_NUM, KVB_CELL_NULL };

struct kvb_box {
	size_t ncols;
	struct kvb_strv head;
	enum kvb_align *align;
	struct kvb_strv cells;  /* row-major, ncols per row: display text */
	struct kvb_strv raw;    /* same shape: raw text */
	unsigned char *kind;    /* same shape: enum kvb_cell_kind */
	size_t kind_alloc;
	size_t nrows;
};

void kvb_box_init(struct kvb_box *b, size_t ncols);
void kvb_box_header(struct kvb_box *b, size_t col, const char *title, enum kvb_align a);
/* Appends one cell to the current row (rows fill left to right). */
void kvb_box_cell(struct kvb_box *b, const char *text);
void kvb_box_cellf(struct kvb_box *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends one cell whose raw text (csv, json) differs from its display text. */
void kvb_box_cell_raw(struct kvb_box *b, const char *display, const char *raw, enum kvb_cell_kind kind);
/* Display, raw text and kind of cell (r, c); "" / KVB_CELL_TEXT past the filled cells. */
const char *kvb_box_at(const struct kvb_box *b, size_t r, size_t c);
const char *kvb_box_raw_at(const struct kvb_box *b, size_t r, size_t c);
enum kvb_cell_kind kvb_box_kind_at(const struct kvb_box *b, size_t r, size_t c);
void kvb_box_print(const struct kvb_box *b, FILE *f);
void kvb_box_print_markdown(const struct kvb_box *b, FILE *f);
/* RFC 4180 CSV of the raw texts: fields with , " or newlines are quoted, " doubled. */
void kvb_box_print_csv(const struct kvb_box *b, FILE *f);
/*
 * The raw cells as TSV: the IANA text/tab-separated-values media type (a header line, then
 * one line per row, fields split by tabs), whose fields may not hold a tab or a line break:
 * those and the backslash are written as \t, \n, \r and \\ (the escapes of PostgreSQL's COPY
 * text format, "linear TSV"). libcsv quotes fields instead, which TSV readers do not undo.
 */
void kvb_box_print_tsv(const struct kvb_box *b, FILE *f);
void kvb_box_release(struct kvb_box *b);

#endif
