/* Implements the read-only cursor and the filtered views of the results DB (rows.h). */
#include "store/rows.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct kvb_rows {
	struct kvb_store *s;
	sqlite3_stmt *st;
};

int kvb_rows_open(struct kvb_store *s, const char *sql, struct kvb_rows **out, const char **tail,
		  struct kvb_error *err)
{
	sqlite3_stmt *st = NULL;
	*out = NULL;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, tail) != SQLITE_OK) {
		int rc = kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
		sqlite3_finalize(st);
		return rc;
	}
	if (!st)
		return kvb_error_set(err, KVB_EINPUT, "empty statement");
	if (!sqlite3_stmt_readonly(st)) {
		sqlite3_finalize(st);
		return kvb_error_set(err, KVB_EINPUT, "not a read-only statement: the results are only read here");
	}
	*out = kvb_xcalloc(1, sizeof(**out));
	(*out)->s = s;
	(*out)->st = st;
	return KVB_OK;
}

void kvb_rows_close(struct kvb_rows *r)
{
	if (!r)
		return;
	sqlite3_finalize(r->st);
	free(r);
}

void kvb_rows_bind_int(struct kvb_rows *r, int i, int64_t v)
{
	sqlite3_bind_int64(r->st, i, v);
}

void kvb_rows_bind_double(struct kvb_rows *r, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(r->st, i);
	else
		sqlite3_bind_double(r->st, i, v);
}

void kvb_rows_bind_text(struct kvb_rows *r, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(r->st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(r->st, i);
}

void kvb_rows_reset(struct kvb_rows *r)
{
	sqlite3_reset(r->st);
}

int kvb_rows_next(struct kvb_rows *r, struct kvb_error *err)
{
	int rc = sqlite3_step(r->st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	if (err)
		kvb_error_set(err, KVB_ESTORE, "%s: %s", r->s->path, sqlite3_errmsg(r->s->db));
	return KVB_ESTORE;
}

int kvb_rows_ncol(struct kvb_rows *r)
{
	return sqlite3_column_count(r->st);
}

const char *kvb_rows_name(struct kvb_rows *r, int col)
{
	return sqlite3_column_name(r->st, col);
}

enum kvb_rows_type kvb_rows_type(struct kvb_rows *r, int col)
{
	switch (sqlite3_column_type(r->st, col)) {
	case SQLITE_INTEGER: return KVB_ROWS_INT;
	case SQLITE_FLOAT: return KVB_ROWS_REAL;
	case SQLITE_TEXT: return KVB_ROWS_TEXT;
	case SQLITE_BLOB: return KVB_ROWS_BLOB;
	default: return KVB_ROWS_NULL;
	}
}

int64_t kvb_rows_int(struct kvb_rows *r, int col)
{
	return sqlite3_column_int64(r->st, col);
}

double kvb_rows_double(struct kvb_rows *r, int col)
{
	return sqlite3_column_double(r->st, col);
}

const char *kvb_rows_text(struct kvb_rows *r, int col)
{
	return (const char *)sqlite3_column_text(r->st, col);
}

const void *kvb_rows_blob(struct kvb_rows *r, int col, size_t *len)
{
	const void *b = sqlite3_column_blob(r->st, col);
	*len = (size_t)sqlite3_column_bytes(r->st, col);
	return b;
}

const char *kvb_store_errmsg(struct kvb_store *s)
{
	return sqlite3_errmsg(s->db);
}

/* The filter's predicate as SQL function kvb_keep(kind, name). */
struct keep_fn {
	int (*keep)(void *arg, const char *kind, const char *name);
	void *arg;
};

static void sql_keep(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	const struct keep_fn *k = sqlite3_user_data(cx);
	(void)argc;
	sqlite3_result_int(cx, k->keep(k->arg, (const char *)sqlite3_value_text(argv[0]),
				       (const char *)sqlite3_value_text(argv[1])));
}

/* Sets PRAGMA query_only (on > 0) and returns what it was. */
static int query_only(struct kvb_store *s, int on)
{
	sqlite3_stmt *st;
	int was = 0;
	char sql[40];
	if (sqlite3_prepare_v2(s->db, "PRAGMA query_only", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		was = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	snprintf(sql, sizeof(sql), "PRAGMA query_only = %d", on > 0);
	sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	return was;
}

/* The views, in creation order (each may read the ones before it). */
static const struct {
	const char *name, *sql;
} views[] = {
	{ "variant", "SELECT * FROM main.variant WHERE kvb_keep('variant', name)" },
	{ "job", "SELECT * FROM main.job WHERE kvb_keep('workload', workload) AND variant_id IN (SELECT id FROM variant)" },
	{ "boot", "SELECT * FROM main.boot WHERE variant_id IN (SELECT id FROM variant)" },
	{ "results", "SELECT * FROM main.results WHERE kvb_keep('workload', workload) AND kvb_keep('variant', variant)"
		     " AND kvb_keep('metric', metric)" },
	{ "jobs", "SELECT * FROM main.jobs WHERE job_id IN (SELECT id FROM job)" },
	{ "energy_channel", "SELECT * FROM main.energy_channel WHERE job_id IN (SELECT id FROM job)"
			    " AND kvb_keep('channel', 'energy')" },
	{ "energy", "SELECT * FROM main.energy WHERE channel_id IN (SELECT id FROM energy_channel)" },
	{ "artifact", "SELECT * FROM main.artifact WHERE (job_id IS NULL OR job_id IN (SELECT id FROM job))"
		      " AND kvb_keep('artifact', kind)" },
	{ "event", "SELECT * FROM main.event WHERE job_id IS NULL OR job_id IN (SELECT id FROM job)" },
};

int kvb_store_filter(struct kvb_store *s, int (*keep)(void *arg, const char *kind, const char *name), void *arg,
		     struct kvb_error *err)
{
	struct keep_fn *k = kvb_xcalloc(1, sizeof(*k));
	int qo;
	k->keep = keep;
	k->arg = arg;
	/* SQLite frees k (its destructor) when the function is replaced or the connection closes */
	if (sqlite3_create_function_v2(s->db, "kvb_keep", 2, SQLITE_UTF8, k, sql_keep, NULL, NULL, free) != SQLITE_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	/* a read-only open (report) has query_only set, which refuses temp objects too; the main
	 * file stays read-only through SQLITE_OPEN_READONLY */
	qo = query_only(s, -1);
	for (size_t i = 0; i < KVB_ARRAY_SIZE(views); i++) {
		char *sql = kvb_xasprintf("CREATE TEMP VIEW %s AS %s", views[i].name, views[i].sql);
		int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
		free(sql);
		if (rc != SQLITE_OK) {
			rc = kvb_error_set(err, KVB_ESTORE, "%s: filter view %s: %s", s->path, views[i].name,
					   sqlite3_errmsg(s->db));
			query_only(s, qo);
			kvb_store_filter_drop(s);
			return rc;
		}
	}
	query_only(s, qo);
	return KVB_OK;
}

void kvb_store_filter_drop(struct kvb_store *s)
{
	int qo = query_only(s, -1);
	for (size_t i = KVB_ARRAY_SIZE(views); i-- > 0;) {
		char *sql = kvb_xasprintf("DROP VIEW IF EXISTS temp.%s", views[i].name);
		sqlite3_exec(s->db, sql, NULL, NULL, NULL);
		free(sql);
	}
	query_only(s, qo);
	sqlite3_create_function_v2(s->db, "kvb_keep", 2, SQLITE_UTF8, NULL, NULL, NULL, NULL, NULL);
}

void kvb_store_read_hint_large(struct kvb_store *s)
{
	sqlite3_exec(s->db, "PRAGMA mmap_size = 4294967296", NULL, NULL, NULL);
}
