/*
 * The store's one statement runner, for the files of src/store only (not a public API:
 * the rest of kvbench calls the typed functions of store.h and its neighbours).
 */
#ifndef KVB_STORE_STMT_H
#define KVB_STORE_STMT_H

#include "store/store.h"

#include <sqlite3.h>

/*
 * Runs sql (a string literal: its prepared statement is cached by its address and text) with
 * the arguments typed by `types`, one letter each: 'i' int64_t, 'd' double (NaN is stored as
 * NULL), 't' const char * (NULL is stored as NULL). *rowid (when rowid != NULL) gets the last
 * inserted rowid. Returns KVB_OK, or KVB_ESTORE with SQLite's message and the DB path.
 */
int kvb_store_write(struct kvb_store *s, struct kvb_error *err, int64_t *rowid, const char *sql, const char *types,
		    ...);

/*
 * The error of a failed read through q: KVB_ESTORE, "<db>: reading <what>: <SQLite's message>";
 * q is finalized (NULL is fine). For the store's readers that step their own statements.
 */
int kvb_store_read_failed(struct kvb_store *s, sqlite3_stmt *q, const char *what, struct kvb_error *err);

/* A failed SQLite call on s: KVB_ESTORE, "<db>: <what>: <SQLite's message>" into err. */
int kvb_store_db_err(struct kvb_store *s, struct kvb_error *err, const char *what);

#endif
