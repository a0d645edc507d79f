/* Implements printing SQL result rows through the box renderer. */
#include "report/sqltable.h"
#include "report/box.h"

#include <string.h>

int kvb_sql_print(struct kvb_store *s, const char *sql, int64_t bind_run, const char *format, FILE *out, size_t *rows,
		  struct kvb_error *err)
{
	return kvb_sql_print2(s, sql, bind_run, NULL, format, out, rows, err);
}

int kvb_sql_print2(struct kvb_store *s, const char *sql, int64_t bind_run, const char *bind_text, const char *format,
		   FILE *out, size_t *rows, struct kvb_error *err)
{
	sqlite3_stmt *st;
	struct kvb_box b;
	int ncol, rc;
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
	for (int c = 0; c < ncol; c++) {
		kvb_box_header(&b, (size_t)c, sqlite3_column_name(st, c), KVB_ALIGN_LEFT);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int c = 0; c < ncol; c++) {
			int t = sqlite3_column_type(st, c);
			if (t == SQLITE_NULL)
				kvb_box_cell(&b, "");
			else if (t == SQLITE_FLOAT)
				kvb_box_cellf(&b, "%.10g", sqlite3_column_double(st, c));
			else
				kvb_box_cell(&b, (const char *)sqlite3_column_text(st, c));
			if (t == SQLITE_INTEGER || t == SQLITE_FLOAT)
				b.align[c] = KVB_ALIGN_RIGHT;
		}
		(*rows)++;
	}
	if (rc != SQLITE_DONE) {
		kvb_error_set(err, KVB_EINPUT, "query: %s", sqlite3_errmsg(s->db));
		sqlite3_finalize(st);
		kvb_box_release(&b);
		return KVB_EINPUT;
	}
	sqlite3_finalize(st);
	if (!format || !strcmp(format, "table"))
		kvb_box_print(&b, out);
	else if (!strcmp(format, "markdown"))
		kvb_box_print_markdown(&b, out);
	else
		kvb_box_print_csv(&b, out);
	kvb_box_release(&b);
	return KVB_OK;
}
