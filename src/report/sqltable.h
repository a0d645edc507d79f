/* Prints the rows of an SQL statement as a box table, markdown or CSV (used by `show` and `query`). */
#ifndef KVB_SQLTABLE_H
#define KVB_SQLTABLE_H

#include "core/error.h"
#include "report/box.h"
#include "store/store.h"

#include <stdio.h>

/*
 * A numeric column whose display text (table, markdown, html) has a fixed number of
 * decimals, for listings people read ("9.8" s); csv and json keep the full value.
 * Lists end with a NULL column.
 */
struct kvb_sql_decimals {
	const char *column;
	int decimals;
};

/*
 * Runs sql (with int64 bind_run bound to ?1 when bind_run >= 0) and
 * prints every row in format (a name in report/format.h's registry; NULL =
 * table); json is the array of row objects alone (`query`: the shape is the
 * caller's SELECT). *rows receives the count. Returns KVB_OK, KVB_EUSAGE for an
 * unknown format (before running anything), or KVB_EINPUT for SQL errors
 * (message quotes SQLite's).
 */
int kvb_sql_print(struct kvb_store *s, const char *sql, int64_t bind_run, const char *format, FILE *out, size_t *rows,
		  struct kvb_error *err);

/* Same with a text parameter bound to ?2 (when not NULL) and the display decimals of dec (may be NULL);
 * json is {"schema_version": KVB_JSON_SCHEMA_VERSION, "rows": [...]} (`show`: a versioned listing). */
int kvb_sql_print2(struct kvb_store *s, const char *sql, int64_t bind_run, const char *bind_text,
		   const struct kvb_sql_decimals *dec, const char *format, FILE *out, size_t *rows, struct kvb_error *err);

/*
 * Runs sql as above and fills *box (initialised here, caller releases) with
 * the column names and rows: integers and reals are number cells (display
 * %.10g, raw the shortest text that reads back exactly), NULL a null cell. *rows receives the count.
 */
int kvb_sql_box(struct kvb_store *s, const char *sql, int64_t bind_run, const char *bind_text, struct kvb_box *box,
		size_t *rows, struct kvb_error *err);

#endif
