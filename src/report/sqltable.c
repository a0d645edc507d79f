/* Implements SQL result rows as a table rendered by any format of the registry. */
#include "report/sqltable.h"
#include "store/rows.h"
#include "report/format.h"

#include <stdlib.h>
#include <string.h>

static int sql_print(struct kvb_store *s, const char *sql, int64_t bind_run, const char *bind_text,
		     const struct kvb_sql_decimals *dec, int bare, const char *format, FILE *out, size_t *rows,
		     struct kvb_error *err);

int kvb_sql_print(struct kvb_store *s, const char *sql, int64_t bind_run, const char *format, FILE *out, size_t *rows,
		  struct kvb_error *err)
{
	return sql_print(s, sql, bind_run, NULL, NULL, 1, format, out, rows, err);
}

/* The display decimals dec gives column name, or -1. */
static int decimals_of(const struct kvb_sql_decimals *dec, const char *name)
{
	for (; dec && dec->column; dec++)
		if (name && !strcmp(dec->column, name))
			return dec->decimals;
	return -1;
}

static int sql_box(struct kvb_store *s, const char *sql, int64_t bind_run, const char *bind_text,
		   const struct kvb_sql_decimals *dec, struct kvb_box *box, size_t *rows, struct kvb_error *err)
{
	struct kvb_rows *st;
	struct kvb_box b;
	int ncol, rc, *places;
	const char *tail = NULL;
	*rows = 0;
	if ((rc = kvb_rows_open(s, sql, &st, &tail, err)) != KVB_OK) {
		err->code = KVB_EINPUT; /* the SQL the user gave */
		kvb_error_prefix(err, "query");
		return KVB_EINPUT;
	}
	while (tail && (*tail == ' ' || *tail == '\n' || *tail == ';' || *tail == '\t'))
		tail++;
	if (tail && *tail) {
		kvb_rows_close(st);
		return kvb_error_set(err, KVB_EINPUT, "query: only one statement is allowed (extra text: '%.40s')", tail);
	}
	if (bind_run >= 0)
		kvb_rows_bind_int(st, 1, bind_run);
	if (bind_text)
		kvb_rows_bind_text(st, 2, bind_text);
	ncol = kvb_rows_ncol(st);
	kvb_box_init(&b, (size_t)(ncol > 0 ? ncol : 1));
	places = kvb_xcalloc((size_t)(ncol > 0 ? ncol : 1), sizeof(*places));
	for (int c = 0; c < ncol; c++) {
		kvb_box_header(&b, (size_t)c, kvb_rows_name(st, c), KVB_ALIGN_LEFT);
		places[c] = decimals_of(dec, kvb_rows_name(st, c));
	}
	while ((rc = kvb_rows_next(st, NULL)) == 1) {
		for (int c = 0; c < ncol; c++) {
			int t = kvb_rows_type(st, c);
			char d[64], raw[64];
			if (t == KVB_ROWS_NULL) {
				kvb_box_cell_raw(&b, "", "", KVB_CELL_NULL);
			} else if (t == KVB_ROWS_REAL) {
				/* 10 digits on screen (or the column's decimals); csv and json get the double at full precision */
				if (places[c] >= 0)
					snprintf(d, sizeof(d), "%.*f", places[c], kvb_rows_double(st, c));
				else
					snprintf(d, sizeof(d), "%.10g", kvb_rows_double(st, c));
				/* the shortest text that reads back as the same double */
				snprintf(raw, sizeof(raw), "%.15g", kvb_rows_double(st, c));
				if (strtod(raw, NULL) != kvb_rows_double(st, c))
					snprintf(raw, sizeof(raw), "%.17g", kvb_rows_double(st, c));
				kvb_box_cell_raw(&b, d, raw, KVB_CELL_NUM);
			} else if (t == KVB_ROWS_INT) {
				snprintf(raw, sizeof(raw), "%lld", (long long)kvb_rows_int(st, c));
				if (places[c] >= 0)
					snprintf(d, sizeof(d), "%.*f", places[c], kvb_rows_double(st, c));
				else
					snprintf(d, sizeof(d), "%s", raw);
				kvb_box_cell_raw(&b, d, raw, KVB_CELL_NUM);
			} else {
				kvb_box_cell(&b, (const char *)kvb_rows_text(st, c));
			}
			if (t == KVB_ROWS_INT || t == KVB_ROWS_REAL)
				b.align[c] = KVB_ALIGN_RIGHT;
		}
		(*rows)++;
	}
	free(places);
	if (rc != 0) {
		kvb_error_set(err, KVB_EINPUT, "query: %s", kvb_store_errmsg(s));
		kvb_rows_close(st);
		kvb_box_release(&b);
		return KVB_EINPUT;
	}
	kvb_rows_close(st);
	*box = b;
	return KVB_OK;
}

int kvb_sql_box(struct kvb_store *s, const char *sql, int64_t bind_run, const char *bind_text, struct kvb_box *box,
		size_t *rows, struct kvb_error *err)
{
	return sql_box(s, sql, bind_run, bind_text, NULL, box, rows, err);
}

/* bare: json writes the rows alone (query), not {"schema_version", "rows"} (show). */
static int sql_print(struct kvb_store *s, const char *sql, int64_t bind_run, const char *bind_text,
		     const struct kvb_sql_decimals *dec, int bare, const char *format, FILE *out, size_t *rows,
		     struct kvb_error *err)
{
	const struct kvb_format *fmt = kvb_format_find(format ? format : "table", err);
	struct kvb_out_section sec;
	struct kvb_out doc;
	struct kvb_box b;
	int rc;
	*rows = 0;
	if (!fmt)
		return KVB_EUSAGE;
	if ((rc = sql_box(s, sql, bind_run, bind_text, dec, &b, rows, err)))
		return rc;
	memset(&sec, 0, sizeof(sec));
	memset(&doc, 0, sizeof(doc));
	sec.table = &b;
	doc.title = "kvbench";
	doc.sec = &sec;
	doc.nsec = 1;
	doc.plain = 1;
	doc.bare_rows = bare;
	rc = fmt->render(&doc, out, err);
	kvb_box_release(&b);
	return rc;
}

int kvb_sql_print2(struct kvb_store *s, const char *sql, int64_t bind_run, const char *bind_text,
		   const struct kvb_sql_decimals *dec, const char *format, FILE *out, size_t *rows, struct kvb_error *err)
{
	return sql_print(s, sql, bind_run, bind_text, dec, 0, format, out, rows, err);
}
