/*
 * Read-only queries of the results DB for the commands that read it (report, diff, show,
 * query, plan): a cursor over one statement that cannot write. The SQL text is the caller's
 * (the results view and tables are the documented interface, docs/design.md#the-store-boundary, results-schema/);
 * the connection, its errors and what a statement may do are the store's. A statement that
 * would write is refused when prepared, whatever the store's open mode.
 *
 * Shapes follow SQLite's (columns 0-based, parameters 1-based); text is UTF-8 and lives until
 * the next kvb_rows_next, kvb_rows_reset or kvb_rows_close of the cursor.
 */
#ifndef KVB_STORE_ROWS_H
#define KVB_STORE_ROWS_H

#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

struct kvb_rows;

/* What a column holds in the current row. */
enum kvb_rows_type { KVB_ROWS_NULL, KVB_ROWS_INT, KVB_ROWS_REAL, KVB_ROWS_TEXT, KVB_ROWS_BLOB };

/*
 * Prepares sql (one statement; *tail, when tail != NULL, gets what follows it) as a cursor
 * *out (owned: kvb_rows_close). KVB_ESTORE with SQLite's message for SQL that does not
 * prepare; KVB_EINPUT for an empty statement (only blanks or a comment) and for one that would
 * write ("not a read-only statement"). err may be NULL.
 */
int kvb_rows_open(struct kvb_store *s, const char *sql, struct kvb_rows **out, const char **tail,
		  struct kvb_error *err);
void kvb_rows_close(struct kvb_rows *r);

void kvb_rows_bind_int(struct kvb_rows *r, int i, int64_t v);
void kvb_rows_bind_double(struct kvb_rows *r, int i, double v);  /* NaN binds NULL */
void kvb_rows_bind_text(struct kvb_rows *r, int i, const char *v); /* copied; NULL binds NULL */
/* Back to before the first row, bindings kept (bind again to change them). */
void kvb_rows_reset(struct kvb_rows *r);

/* The next row: 1 (a row), 0 (no more), or KVB_ESTORE with SQLite's message in err (may be NULL). */
int kvb_rows_next(struct kvb_rows *r, struct kvb_error *err);

int kvb_rows_ncol(struct kvb_rows *r);
const char *kvb_rows_name(struct kvb_rows *r, int col);
enum kvb_rows_type kvb_rows_type(struct kvb_rows *r, int col);
int64_t kvb_rows_int(struct kvb_rows *r, int col);
double kvb_rows_double(struct kvb_rows *r, int col);
const char *kvb_rows_text(struct kvb_rows *r, int col);            /* NULL for NULL */
const void *kvb_rows_blob(struct kvb_rows *r, int col, size_t *len);

/* SQLite's message of the store's last error (for messages that add their own context). */
const char *kvb_store_errmsg(struct kvb_store *s);

/*
 * Shadows the run-data tables of the connection (variant, job, boot, results, jobs,
 * energy_channel, energy, artifact, event) with TEMP views that keep only what keep(arg, kind,
 * name) passes (kind: variant | workload | metric | channel | artifact), so every query after it
 * reads filtered data unchanged (`report --metric/--workload/--variant`). keep and arg must
 * live until kvb_store_filter_drop. The DB file is not written (temp schema only).
 */
int kvb_store_filter(struct kvb_store *s, int (*keep)(void *arg, const char *kind, const char *name), void *arg,
		     struct kvb_error *err);
void kvb_store_filter_drop(struct kvb_store *s);

/* Lets SQLite map up to 4 GiB of the DB file (a report reading every energy chunk). Best effort. */
void kvb_store_read_hint_large(struct kvb_store *s);

#endif
