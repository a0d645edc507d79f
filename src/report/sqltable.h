/* Prints the rows of an SQL statement as a box table, markdown or CSV (used by `show` and `query`). */
#ifndef KVB_SQLTABLE_H
#define KVB_SQLTABLE_H

#include "core/error.h"
#include "store/store.h"

#include <stdio.h>

/*
 * Runs sql (with int64 bind_run bound to ?1 when bind_run >= 0) and
 * prints every row. format: table | markdown | csv. *rows receives the count.
 * Returns KVB_OK, or KVB_EINPUT for SQL errors (message quotes SQLite's).
 */
int kvb_sql_print(struct kvb_store *s, const char *sql, int64_t bind_run, const char *format, FILE *out, size_t *rows,
		  struct kvb_error *err);

/* Same with a text parameter bound to ?2. */
int kvb_sql_print2(struct kvb_store *s, const char *sql, int64_t bind_run, const char *bind_text, const char *format,
		   FILE *out, size_t *rows, struct kvb_error *err);

#endif
