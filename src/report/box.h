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
 */
#ifndef KVB_BOX_H
#define KVB_BOX_H

#include "core/util.h"

#include <stdio.h>

enum kvb_align { KVB_ALIGN_LEFT, KVB_ALIGN_RIGHT, KVB_ALIGN_CENTER };

struct kvb_box {
	size_t ncols;
	struct kvb_strv head;
	enum kvb_align *align;
	struct kvb_strv cells;  /* row-major, ncols per row */
	size_t nrows;
};

void kvb_box_init(struct kvb_box *b, size_t ncols);
void kvb_box_header(struct kvb_box *b, size_t col, const char *title, enum kvb_align a);
/* Appends one cell to the current row (rows fill left to right). */
void kvb_box_cell(struct kvb_box *b, const char *text);
void kvb_box_cellf(struct kvb_box *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kvb_box_print(const struct kvb_box *b, FILE *f);
void kvb_box_print_markdown(const struct kvb_box *b, FILE *f);
/* RFC 4180 CSV: fields with , " or newlines are quoted, " doubled. */
void kvb_box_print_csv(const struct kvb_box *b, FILE *f);
void kvb_box_release(struct kvb_box *b);

/* Writes one RFC 4180 CSV field. */
void kvb_csv_field(FILE *f, const char *s);

#endif
