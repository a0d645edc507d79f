/* Implements batched multi-row INSERT OR FAIL statements for bulk loads (store/batch.h). */
#include "store/batch.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

void kvb_batch_init(struct kvb_batch *b, struct kvb_store *s, const char *head, size_t ncols)
{
	memset(b, 0, sizeof(*b));
	b->s = s;
	b->head = kvb_xstrdup(head);
	b->ncols = ncols;
	b->rows_max = KVB_BATCH_VARS / ncols;
	b->vals = kvb_xcalloc(b->rows_max * ncols, sizeof(*b->vals));
	kvb_buf_init(&b->text);
}

static struct kvb_batch_val *next(struct kvb_batch *b, int type)
{
	struct kvb_batch_val *v = &b->vals[b->nvals++];
	v->type = type;
	return v;
}

void kvb_batch_int(struct kvb_batch *b, int64_t x)
{
	next(b, SQLITE_INTEGER)->i = x;
}

void kvb_batch_double(struct kvb_batch *b, double x)
{
	next(b, SQLITE_FLOAT)->d = x;
}

void kvb_batch_text(struct kvb_batch *b, const char *x)
{
	struct kvb_batch_val *v = next(b, x ? SQLITE_TEXT : SQLITE_NULL);
	if (x) {
		v->off = b->text.len;
		kvb_buf_add(&b->text, x, strlen(x) + 1); /* NUL kept: bound as a C string */
	}
}

/* "HEAD (?,?),(?,?)..." for nrows rows. */
static int prepare(struct kvb_batch *b, size_t nrows, sqlite3_stmt **st, struct kvb_error *err)
{
	struct kvb_buf sql = KVB_BUF_INIT;
	int ok;
	kvb_buf_adds(&sql, b->head);
	for (size_t r = 0; r < nrows; r++) {
		kvb_buf_adds(&sql, r ? ",(" : " (");
		for (size_t c = 0; c < b->ncols; c++)
			kvb_buf_adds(&sql, c ? ",?" : "?");
		kvb_buf_addc(&sql, ')');
	}
	ok = sqlite3_prepare_v3(b->s->db, sql.data, (int)sql.len, SQLITE_PREPARE_PERSISTENT, st, NULL) == SQLITE_OK;
	kvb_buf_release(&sql);
	return ok ? KVB_OK : kvb_error_set(err, KVB_ESTORE, "%s: %s", b->s->path, sqlite3_errmsg(b->s->db));
}

static int write_rows(struct kvb_batch *b, sqlite3_stmt *st, struct kvb_error *err)
{
	int rc;
	for (size_t i = 0; i < b->nvals; i++) {
		const struct kvb_batch_val *v = &b->vals[i];
		int k = (int)i + 1;
		if (v->type == SQLITE_INTEGER)
			sqlite3_bind_int64(st, k, v->i);
		else if (v->type == SQLITE_FLOAT)
			sqlite3_bind_double(st, k, v->d);
		else if (v->type == SQLITE_TEXT)
			sqlite3_bind_text(st, k, b->text.data + v->off, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, k);
	}
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st); /* the text buffer is reused: no pointer into it may outlive the batch */
	b->nrows = b->nvals = 0;
	kvb_buf_reset(&b->text);
	return rc == SQLITE_DONE ? KVB_OK : kvb_error_set(err, KVB_ESTORE, "%s: %s", b->s->path, sqlite3_errmsg(b->s->db));
}

int kvb_batch_row_end(struct kvb_batch *b, struct kvb_error *err)
{
	int rc;
	if (++b->nrows < b->rows_max)
		return KVB_OK;
	if (!b->full && (rc = prepare(b, b->rows_max, &b->full, err)))
		return rc;
	return write_rows(b, b->full, err);
}

int kvb_batch_flush(struct kvb_batch *b, struct kvb_error *err)
{
	sqlite3_stmt *tail = NULL;
	int rc;
	if (!b->nrows)
		return KVB_OK;
	if ((rc = prepare(b, b->nrows, &tail, err)))
		return rc;
	rc = write_rows(b, tail, err);
	sqlite3_finalize(tail);
	return rc;
}

void kvb_batch_release(struct kvb_batch *b)
{
	sqlite3_finalize(b->full);
	free(b->head);
	free(b->vals);
	kvb_buf_release(&b->text);
	memset(b, 0, sizeof(*b));
}
