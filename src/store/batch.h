/*
 * Batched multi-row INSERTs for bulk loads inside one transaction (csv
 * import): rows are kept (text copied) and written `VALUES (...),(...)...`
 * up to KVB_BATCH_VARS bound values per statement, so SQLite runs one
 * statement per batch instead of one per row.
 *
 * The statements are `INSERT OR FAIL`: a plain multi-row INSERT may abort
 * half-way, so SQLite keeps a statement journal and copies every page the
 * statement touches into it (measured: it ate the gain). OR FAIL needs none;
 * on a failure the rows of the statement before it stay, so the caller must
 * roll back its transaction on any error (the import does).
 *
 * Lifetime: kvb_batch_init -> (kvb_batch_int/_double/_text/_null per column,
 * kvb_batch_row_end per row)... -> kvb_batch_flush -> kvb_batch_release.
 * Not thread-safe; the store must outlive the batch.
 */
#ifndef KVB_STORE_BATCH_H
#define KVB_STORE_BATCH_H

#include "core/buf.h"
#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

#define KVB_BATCH_VARS 999 /* SQLite's historic SQLITE_MAX_VARIABLE_NUMBER: safe with any build */

struct kvb_batch_val {
	int type; /* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT or SQLITE_NULL */
	int64_t i;
	double d;
	size_t off; /* text: offset into the batch's text buffer */
};

struct kvb_batch {
	struct kvb_store *s;
	char *head;            /* "INSERT OR FAIL INTO t(a, b) VALUES" (owned) */
	size_t ncols, rows_max, nrows, nvals;
	struct kvb_batch_val *vals; /* rows_max * ncols */
	struct kvb_buf text;
	sqlite3_stmt *full;     /* rows_max rows, prepared at the first full batch */
};

/* head: "INSERT OR FAIL INTO table(col, ...) VALUES" with ncols columns (1..KVB_BATCH_VARS). */
void kvb_batch_init(struct kvb_batch *b, struct kvb_store *s, const char *head, size_t ncols);
/* The next column of the current row. text is copied (NULL stores NULL). */
void kvb_batch_int(struct kvb_batch *b, int64_t x);
void kvb_batch_double(struct kvb_batch *b, double x);
void kvb_batch_text(struct kvb_batch *b, const char *x);
/* Ends a row of exactly ncols values; writes the batch when full. Errors: KVB_ESTORE with SQLite's message. */
int kvb_batch_row_end(struct kvb_batch *b, struct kvb_error *err);
/* Writes the rows kept so far (none: nothing). Errors: KVB_ESTORE. */
int kvb_batch_flush(struct kvb_batch *b, struct kvb_error *err);
/* Frees the batch; rows not flushed are dropped. NULL-safe contents (a zeroed batch is fine). */
void kvb_batch_release(struct kvb_batch *b);

#endif
