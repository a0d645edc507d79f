/* Implements the store of a run's LAVA jobs and the batch seam's job reads and writes (lava_jobs.h). */
#include "store/lava_jobs.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

static int fail(struct kvb_store *s, sqlite3_stmt *st, struct kvb_error *err, const char *what)
{
	int rc = kvb_error_set(err, KVB_ESTORE, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
	return rc;
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

int kvb_store_lava_job_add(struct kvb_store *s, int64_t run_id, int64_t variant_id, int round, int64_t lava_job_id,
			   const char *url, const char *state, struct kvb_error *err)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(s->db,
			       "INSERT INTO lava_job(run_id, variant_id, round, lava_job_id, url, state, submitted_ns)"
			       " VALUES(?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return fail(s, st, err, "storing a LAVA job");
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, variant_id);
	sqlite3_bind_int(st, 3, round);
	sqlite3_bind_int64(st, 4, lava_job_id);
	bind_text(st, 5, url);
	bind_text(st, 6, state);
	sqlite3_bind_int64(st, 7, kvb_wall_ns());
	if (sqlite3_step(st) != SQLITE_DONE)
		return fail(s, st, err, "storing a LAVA job");
	sqlite3_finalize(st);
	return KVB_OK;
}

int kvb_store_lava_job_ended(struct kvb_store *s, int64_t run_id, int64_t lava_job_id, const char *how,
			     struct kvb_error *err)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(s->db,
			       "UPDATE lava_job SET ended_ns = ?, ended_how = ? WHERE run_id = ? AND lava_job_id = ?"
			       " AND ended_ns IS NULL",
			       -1, &st, NULL) != SQLITE_OK)
		return fail(s, st, err, "marking a LAVA job ended");
	sqlite3_bind_int64(st, 1, kvb_wall_ns());
	bind_text(st, 2, how);
	sqlite3_bind_int64(st, 3, run_id);
	sqlite3_bind_int64(st, 4, lava_job_id);
	if (sqlite3_step(st) != SQLITE_DONE)
		return fail(s, st, err, "marking a LAVA job ended");
	sqlite3_finalize(st);
	return KVB_OK;
}

int kvb_store_lava_job_in_flight(struct kvb_store *s, int64_t run_id, int64_t variant_id, int round,
				 int64_t *lava_job_id, char **state, struct kvb_error *err)
{
	sqlite3_stmt *st = NULL;
	*lava_job_id = 0;
	*state = NULL;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT lava_job_id, state FROM lava_job WHERE run_id = ? AND variant_id = ? AND round = ?"
			       " AND ended_ns IS NULL ORDER BY id DESC LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return fail(s, st, err, "reading LAVA jobs");
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, variant_id);
	sqlite3_bind_int(st, 3, round);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*lava_job_id = sqlite3_column_int64(st, 0);
		if (sqlite3_column_text(st, 1))
			*state = kvb_xstrdup((const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	return KVB_OK;
}

int kvb_store_lava_jobs_in_flight(struct kvb_store *s, int64_t run_id, size_t *n, struct kvb_error *err)
{
	sqlite3_stmt *st = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM lava_job WHERE run_id = ? AND ended_ns IS NULL", -1, &st,
			       NULL) != SQLITE_OK)
		return fail(s, st, err, "reading LAVA jobs");
	sqlite3_bind_int64(st, 1, run_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		*n = (size_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return KVB_OK;
}

cJSON *kvb_store_job_metrics_json(struct kvb_store *s, int64_t job_id)
{
	sqlite3_stmt *st = NULL, *cl = NULL;
	cJSON *a;
	if (sqlite3_prepare_v2(s->db, "SELECT id, name, value, units FROM metric WHERE job_id = ? ORDER BY id", -1, &st,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "SELECT key, value FROM classifier WHERE metric_id = ? ORDER BY key", -1, &cl,
			       NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		sqlite3_finalize(cl);
		return NULL;
	}
	a = cJSON_CreateArray();
	sqlite3_bind_int64(st, 1, job_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		cJSON *m = cJSON_CreateObject(), *c = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "name", (const char *)sqlite3_column_text(st, 1));
		cJSON_AddNumberToObject(m, "value", sqlite3_column_double(st, 2));
		cJSON_AddStringToObject(m, "units", sqlite3_column_text(st, 3) ? (const char *)sqlite3_column_text(st, 3) : "");
		sqlite3_reset(cl);
		sqlite3_bind_int64(cl, 1, sqlite3_column_int64(st, 0));
		while (sqlite3_step(cl) == SQLITE_ROW)
			cJSON_AddStringToObject(c, (const char *)sqlite3_column_text(cl, 0),
						sqlite3_column_text(cl, 1) ? (const char *)sqlite3_column_text(cl, 1) : "");
		cJSON_AddItemToObject(m, "classifiers", c);
		cJSON_AddItemToArray(a, m);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(cl);
	return a;
}

int kvb_store_job_times(struct kvb_store *s, int64_t job_id, int64_t start_ns, int64_t end_ns, struct kvb_error *err)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(s->db, "UPDATE job SET start_ns = ?, end_ns = ? WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		return fail(s, st, err, "storing a job's times");
	sqlite3_bind_int64(st, 1, start_ns);
	sqlite3_bind_int64(st, 2, end_ns);
	sqlite3_bind_int64(st, 3, job_id);
	if (sqlite3_step(st) != SQLITE_DONE)
		return fail(s, st, err, "storing a job's times");
	sqlite3_finalize(st);
	return KVB_OK;
}
