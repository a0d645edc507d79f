/* Implements run and variant status from the job rows (status.h): settling a run, re-planning on --resume. */
#include "store/status.h"
#include "core/util.h"
#include "store/stmt.h"

#include <string.h>

/* A variant's planned jobs not ok: 0 means every planned job is ok. */
#define NOT_OK_JOBS                                                                                             \
	"(SELECT count(*) FROM job j WHERE j.variant_id = variant.id AND j.status NOT IN ('ok', 'warmup', 'disturbed')"                     \
	" AND NOT " KVB_SQL_JOB_NOT_NEEDED("j") ")"
#define PLANNED_JOBS                                                                                            \
	"(SELECT count(*) FROM job j WHERE j.variant_id = variant.id AND NOT " KVB_SQL_JOB_NOT_NEEDED("j") ")"

/* Runs sql with ?1 = run_id and, when present, ?2 = x. */
static int exec_run(struct kvb_store *s, const char *sql, int64_t run_id, int64_t x, struct kvb_error *err)
{
	sqlite3_stmt *st;
	int rc = KVB_OK;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_bind_int64(st, 1, run_id);
	if (sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_int64(st, 2, x);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
	return rc;
}

static int count_run(struct kvb_store *s, const char *sql, int64_t run_id, int64_t *n, struct kvb_error *err)
{
	sqlite3_stmt *st;
	int rc = KVB_OK;
	*n = 0;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_bind_int64(st, 1, run_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	else
		rc = kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
	return rc;
}

int kvb_store_settle_run(struct kvb_store *s, int64_t run_id, int interrupted, int at_last_job,
			 struct kvb_run_tally *t, struct kvb_error *err)
{
	/* ok only on evidence; the error goes only with the failure it described */
	static const char set_ok[] = "UPDATE variant SET status = 'ok', error = NULL WHERE run_id = ?1"
				     " AND " PLANNED_JOBS " > 0 AND " NOT_OK_JOBS " = 0";
	/* otherwise: a failed variant stays failed; interrupted: jobs are left (pending); else incomplete */
	static const char set_not_ok[] = "UPDATE variant SET status = CASE WHEN status = 'failed' THEN 'failed'"
					 " WHEN ?2 THEN 'pending' ELSE 'incomplete' END WHERE run_id = ?1"
					 " AND NOT (" PLANNED_JOBS " > 0 AND " NOT_OK_JOBS " = 0)";
	static const char finished_now[] = "UPDATE run SET finished_ns = max(?2, started_ns) WHERE id = ?1";
	/* the end of its last job, never before the run began (a skipped job has no end) */
	static const char finished_last[] =
		"UPDATE run SET finished_ns = coalesce((SELECT max(end_ns) FROM job WHERE run_id = ?1"
		" AND end_ns >= run.started_ns), started_ns) WHERE id = ?1";
	int64_t n;
	int rc;
	memset(t, 0, sizeof(*t));
	if ((rc = kvb_store_begin(s, err)))
		return rc;
	if ((rc = exec_run(s, set_ok, run_id, 0, err)) || (rc = exec_run(s, set_not_ok, run_id, interrupted != 0, err)))
		goto fail;
	if ((rc = count_run(s, "SELECT count(*) FROM variant WHERE run_id = ?1", run_id, &n, err)))
		goto fail;
	t->variants = (int)n;
	if ((rc = count_run(s, "SELECT count(*) FROM variant WHERE run_id = ?1 AND status = 'ok'", run_id, &n, err)))
		goto fail;
	t->variants_ok = (int)n;
	if ((rc = count_run(s, "SELECT count(*) FROM job WHERE run_id = ?1 AND NOT " KVB_SQL_JOB_NOT_NEEDED("job"),
			    run_id, &t->planned, err)) ||
	    (rc = count_run(s, "SELECT count(*) FROM job WHERE run_id = ?1 AND status IN ('ok', 'warmup', 'disturbed')", run_id, &t->planned_ok,
			    err)) ||
	    (rc = count_run(s, "SELECT count(*) FROM job WHERE run_id = ?1 AND iteration > 0 AND NOT "
			    KVB_SQL_JOB_NOT_NEEDED("job"), run_id, &t->measured, err)) ||
	    (rc = count_run(s, "SELECT count(*) FROM job WHERE run_id = ?1 AND iteration > 0 AND status IN ('ok', "
			    "'disturbed')", run_id, &t->measured_ok, err)))
		goto fail;
	t->status = interrupted ? "interrupted" : t->variants && t->variants_ok == t->variants ? "ok" : "incomplete";
	{
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(s->db, "UPDATE run SET status = ?2 WHERE id = ?1", -1, &st, NULL) != SQLITE_OK) {
			rc = kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
			goto fail;
		}
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_text(st, 2, t->status, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
		sqlite3_finalize(st);
		if (rc)
			goto fail;
	}
	if ((rc = at_last_job ? exec_run(s, finished_last, run_id, 0, err)
			      : exec_run(s, finished_now, run_id, kvb_wall_ns(), err)))
		goto fail;
	return kvb_store_commit(s, err);
fail:
	kvb_store_rollback(s);
	return rc;
}

int kvb_store_replan(struct kvb_store *s, int64_t run_id, int64_t *n, struct kvb_error *err)
{
	static const char jobs[] = "UPDATE job SET status = 'pending' WHERE run_id = ?1"
				   " AND status IN ('failed', 'skipped', 'instrument-failed')"
				   " AND NOT " KVB_SQL_JOB_NOT_NEEDED("job");
	static const char variants[] = "UPDATE variant SET status = 'pending' WHERE run_id = ?1"
				       " AND status IN ('failed', 'incomplete', 'ok')"
				       " AND EXISTS (SELECT 1 FROM job j WHERE j.variant_id = variant.id AND j.status = 'pending')";
	int rc;
	*n = 0;
	if ((rc = kvb_store_begin(s, err)))
		return rc;
	if ((rc = exec_run(s, jobs, run_id, 0, err)))
		goto fail;
	*n = sqlite3_changes(s->db);
	if ((rc = exec_run(s, variants, run_id, 0, err)))
		goto fail;
	return kvb_store_commit(s, err);
fail:
	kvb_store_rollback(s);
	return rc;
}

int kvb_store_variant_jobs_done(struct kvb_store *s, int64_t variant_id, int64_t *n, struct kvb_error *err)
{
	return count_run(s, "SELECT count(*) FROM job WHERE variant_id = ?1 AND status NOT IN ('pending', 'running',"
			    " 'failed', 'skipped')", variant_id, n, err);
}

int kvb_store_variant_repair(struct kvb_store *s, int64_t run_id, int64_t variant_id, const char *name,
			     const char *const path[5], const char *const sha256[5], const char *cmdline,
			     const char *agenda_json, struct kvb_error *err)
{
	int rc;
	if ((rc = kvb_store_begin(s, err)))
		return rc;
	if ((rc = kvb_store_write(s, err, NULL,
				  "UPDATE variant SET kernel = ?1, kernel_sha256 = ?2, dtb = ?3, dtb_sha256 = ?4, initrd = ?5,"
				  " initrd_sha256 = ?6, boot_image = ?7, boot_image_sha256 = ?8, modules = ?9,"
				  " modules_sha256 = ?10, cmdline = ?11, expected_release = NULL, expected_version = NULL,"
				  " status = 'pending', error = NULL WHERE id = ?12",
				  "tttttttttt" "ti", path[0], sha256[0], path[1], sha256[1], path[2], sha256[2], path[3],
				  sha256[3], path[4], sha256[4], cmdline, variant_id)) ||
	    (rc = kvb_store_write(s, err, NULL,
				  "UPDATE job SET status = 'pending', error = NULL, attempts = 0, start_ns = NULL,"
				  " end_ns = NULL WHERE variant_id = ?1 AND status IN ('failed', 'skipped')",
				  "i", variant_id)) ||
	    (rc = kvb_store_write(s, err, NULL, "UPDATE run SET agenda_json = ?1 WHERE id = ?2", "ti", agenda_json,
				  run_id)) ||
	    (rc = kvb_store_commit(s, err))) {
		kvb_store_rollback(s);
		return kvb_error_set(err, rc, "repairing variant '%s': %s", name, err->msg);
	}
	return KVB_OK;
}
