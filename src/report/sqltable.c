/* Implements SQL result rows as a table rendered by any format of the registry. */
#include "report/sqltable.h"
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
	sqlite3_stmt *st;
	struct kvb_box b;
	int ncol, rc, *places;
	const char *tail = NULL;
	*rows = 0;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, &tail) != SQLITE_OK)
		return kvb_error_set(err, KVB_EINPUT, "query: %s", sqlite3_errmsg(s->db));
	if (!st)
		return kvb_error_set(err, KVB_EINPUT, "query: empty statement");
	while (tail && (*tail == ' ' || *tail == '\n' || *tail == ';' || *tail == '\t'))
		tail++;
	if (tail && *tail) {
		sqlite3_finalize(st);
		return kvb_error_set(err, KVB_EINPUT, "query: only one statement is allowed (extra text: '%.40s')", tail);
	}
	if (!sqlite3_stmt_readonly(st)) {
		sqlite3_finalize(st);
		return kvb_error_set(err, KVB_EINPUT, "query: statement would write; the results database is opened read-only");
	}
	if (bind_run >= 0)
		sqlite3_bind_int64(st, 1, bind_run);
	if (bind_text)
		sqlite3_bind_text(st, 2, bind_text, -1, SQLITE_TRANSIENT);
	ncol = sqlite3_column_count(st);
	kvb_box_init(&b, (size_t)(ncol > 0 ? ncol : 1));
	places = kvb_xcalloc((size_t)(ncol > 0 ? ncol : 1), sizeof(*places));
	for (int c = 0; c < ncol; c++) {
		kvb_box_header(&b, (size_t)c, sqlite3_column_name(st, c), KVB_ALIGN_LEFT);
		places[c] = decimals_of(dec, sqlite3_column_name(st, c));
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int c = 0; c < ncol; c++) {
			int t = sqlite3_column_type(st, c);
			char d[64], raw[64];
			if (t == SQLITE_NULL) {
				kvb_box_cell_raw(&b, "", "", KVB_CELL_NULL);
			} else if (t == SQLITE_FLOAT) {
				/* 10 digits on screen (or the column's decimals); csv and json get the double at full precision */
				if (places[c] >= 0)
					snprintf(d, sizeof(d), "%.*f", places[c], sqlite3_column_double(st, c));
				else
					snprintf(d, sizeof(d), "%.10g", sqlite3_column_double(st, c));
				/* the shortest text that reads back as the same double */
				snprintf(raw, sizeof(raw), "%.15g", sqlite3_column_double(st, c));
				if (strtod(raw, NULL) != sqlite3_column_double(st, c))
					snprintf(raw, sizeof(raw), "%.17g", sqlite3_column_double(st, c));
				kvb_box_cell_raw(&b, d, raw, KVB_CELL_NUM);
			} else if (t == SQLITE_INTEGER) {
				snprintf(raw, sizeof(raw), "%lld", (long long)sqlite3_column_int64(st, c));
				if (places[c] >= 0)
					snprintf(d, sizeof(d), "%.*f", places[c], sqlite3_column_double(st, c));
				else
					snprintf(d, sizeof(d), "%s", raw);
				kvb_box_cell_raw(&b, d, raw, KVB_CELL_NUM);
			} else {
				kvb_box_cell(&b, (const char *)sqlite3_column_text(st, c));
			}
			if (t == SQLITE_INTEGER || t == SQLITE_FLOAT)
				b.align[c] = KVB_ALIGN_RIGHT;
		}
		(*rows)++;
	}
	free(places);
	if (rc != SQLITE_DONE) {
		kvb_error_set(err, KVB_EINPUT, "query: %s", sqlite3_errmsg(s->db));
		sqlite3_finalize(st);
		kvb_box_release(&b);
		return KVB_EINPUT;
	}
	sqlite3_finalize(st);
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
