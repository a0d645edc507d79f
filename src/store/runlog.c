/* Implements the run's write path as the engine takes it: run, variants, boots, plan, jobs and their attempts, witnesses, knobs, events, and a stored run read back. */
#include "store/store.h"
#include "core/log.h"
#include "core/util.h"
#include "store/energy.h"
#include "store/profile.h"
#include "store/schema.h"
#include "store/stmt.h"
#include "store/build.h"
#include "core/sha256.h"

#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

int kvb_store_run_begin(struct kvb_store *s, const struct kvb_run_info *ri, int64_t *run_id, struct kvb_error *err)
{
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	return kvb_store_write(s, err, run_id,
			"INSERT INTO run(started_ns, status, agenda_path, agenda_json, platform, platform_json, rounds,"
			" exec_order, max_retries, kvbench_version, hostname, command_line, boots_each_round, platform_path)"
			" VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			"itttttitittti" "t", (int64_t)kvb_wall_ns(), ri->status ? ri->status : "running", ri->agenda_path,
			ri->agenda_json, ri->platform, ri->platform_json, (int64_t)ri->rounds, ri->exec_order,
			(int64_t)ri->max_retries, KVB_VERSION, host, ri->command_line, (int64_t)ri->boots_each_round,
			ri->platform_path);
}

int kvb_store_run_set_warmup(struct kvb_store *s, int64_t run_id, int warmup, struct kvb_error *err)
{
	return kvb_store_write(s, err, NULL, "UPDATE run SET warmup_default = ? WHERE id = ?", "ii", (int64_t)warmup, run_id);
}

int kvb_store_run_get_warmup(struct kvb_store *s, int64_t run_id, int *warmup, struct kvb_error *err)
{
	sqlite3_stmt *st;
	*warmup = 0;
	if (sqlite3_prepare_v2(s->db, "SELECT warmup_default FROM run WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		return kvb_store_db_err(s, err, "reading the run");
	sqlite3_bind_int64(st, 1, run_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		*warmup = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return KVB_OK;
}

int kvb_store_run_status(struct kvb_store *s, int64_t run_id, const char *status, int finished, struct kvb_error *err)
{
	if (finished == KVB_RUN_FINISHED_AT_LAST_JOB)
		return kvb_store_write(s, err, NULL,
				"UPDATE run SET status = ?1, finished_ns = coalesce((SELECT max(end_ns) FROM job"
				" WHERE run_id = ?2 AND end_ns >= run.started_ns), started_ns) WHERE id = ?2",
				"ti", status, run_id);
	if (finished)
		return kvb_store_write(s, err, NULL, "UPDATE run SET status = ?, finished_ns = ? WHERE id = ?", "tii", status,
				(int64_t)kvb_wall_ns(), run_id);
	return kvb_store_write(s, err, NULL, "UPDATE run SET status = ?, finished_ns = NULL WHERE id = ?", "ti", status, run_id);
}

int kvb_store_latest_run(struct kvb_store *s, int64_t *run_id, struct kvb_error *err)
{
	sqlite3_stmt *st;
	*run_id = 0;
	if (sqlite3_prepare_v2(s->db, "SELECT max(id) FROM run", -1, &st, NULL) != SQLITE_OK)
		return kvb_store_db_err(s, err, "reading runs");
	if (sqlite3_step(st) == SQLITE_ROW)
		*run_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return KVB_OK;
}

int kvb_store_variant_add(struct kvb_store *s, int64_t run_id, const struct kvb_variant_row *v, int64_t *id,
			  struct kvb_error *err)
{
	return kvb_store_write(s, err, id,
			"INSERT INTO variant(run_id, name, position, kernel, kernel_sha256, dtb, dtb_sha256, initrd,"
			" initrd_sha256, boot_image, boot_image_sha256, modules, modules_sha256, cmdline,"
			" expected_release, expected_version, runtime_json) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			"itittttttttttttt" "t", run_id, v->name, (int64_t)v->position, v->kernel, v->kernel_sha256, v->dtb,
			v->dtb_sha256, v->initrd, v->initrd_sha256, v->boot_image, v->boot_image_sha256, v->modules,
			v->modules_sha256, v->cmdline, v->expected_release, v->expected_version, v->runtime_json);
}

int kvb_store_variant_status(struct kvb_store *s, int64_t variant_id, const char *status, const char *error,
			     struct kvb_error *err)
{
	return kvb_store_write(s, err, NULL, "UPDATE variant SET status = ?, error = ? WHERE id = ?", "tti", status, error,
			variant_id);
}

int kvb_store_variant_find(struct kvb_store *s, int64_t run_id, const char *name, int64_t *id, struct kvb_error *err)
{
	sqlite3_stmt *st;
	*id = 0;
	if (sqlite3_prepare_v2(s->db, "SELECT id FROM variant WHERE run_id = ? AND name = ?", -1, &st, NULL) != SQLITE_OK)
		return kvb_store_db_err(s, err, "reading variants");
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return KVB_OK;
}

int kvb_store_boot_record(struct kvb_store *s, int64_t variant_id, const struct kvb_boot_row *b, int64_t *id,
			  struct kvb_error *err)
{
	int64_t rowid = 0;
	/* one statement: pool workers record boots of one variant at once, and SQLite serialises
	 * writers, so two boots cannot take the same seq */
	int rc = kvb_store_write(s, err, &rowid,
			"INSERT INTO boot(variant_id, round, started_ns, ready_ns, status, error,"
			" running_release, running_version, running_cmdline, board, lava_job_id, lava_url, seq)"
			" VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,NULLIF(?11,0),?12,"
			" 1 + coalesce((SELECT max(seq) FROM boot WHERE variant_id = ?1), 0))",
			"iiiittttttit", variant_id, (int64_t)b->round, b->started_ns, b->ready_ns, b->status, b->error,
			b->running_release, b->running_version, b->running_cmdline, b->board, b->lava_job_id, b->lava_url);
	if (id)
		*id = rc ? 0 : rowid;
	return rc;
}

int kvb_store_boots_interrupted(struct kvb_store *s, int64_t run_id, int *n, struct kvb_error *err)
{
	int rc = kvb_store_write(s, err, NULL,
			"UPDATE boot SET status = 'interrupted'"
			" WHERE status = 'ok' AND variant_id IN (SELECT id FROM variant WHERE run_id = ?1)"
			" AND EXISTS (SELECT 1 FROM job j WHERE j.run_id = ?1 AND j.variant_id = boot.variant_id"
			"             AND j.round = boot.round AND j.status IN ('pending', 'running'))",
			"i", run_id);
	if (n)
		*n = rc ? 0 : sqlite3_changes(s->db);
	return rc;
}

int kvb_store_plan_add(struct kvb_store *s, int64_t run_id, struct kvb_job_row *rows, size_t n, struct kvb_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc;
	if ((rc = kvb_store_begin(s, err)))
		return rc;
	if (sqlite3_prepare_v2(s->db,
			       "INSERT INTO job(run_id, variant_id, seq, round, spec_id, workload, label, section, iteration,"
			       " params_json, runtime_json) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK) {
		rc = kvb_store_db_err(s, err, "preparing plan");
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		struct kvb_job_row *r = &rows[i];
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, r->variant_id);
		sqlite3_bind_int(st, 3, r->seq);
		sqlite3_bind_int(st, 4, r->round);
		sqlite3_bind_text(st, 5, r->spec_id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 6, r->workload, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 7, r->label, -1, SQLITE_TRANSIENT);
		if (r->section)
			sqlite3_bind_text(st, 8, r->section, -1, SQLITE_TRANSIENT);
		else
			sqlite3_bind_null(st, 8);
		sqlite3_bind_int(st, 9, r->iteration);
		sqlite3_bind_text(st, 10, r->params_json, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 11, r->runtime_json, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) != SQLITE_DONE) {
			rc = kvb_store_db_err(s, err, "storing the plan");
			goto fail;
		}
		r->id = sqlite3_last_insert_rowid(s->db);
		snprintf(r->status, sizeof(r->status), "pending");
	}
	sqlite3_finalize(st);
	return kvb_store_commit(s, err);
fail:
	sqlite3_finalize(st);
	kvb_store_rollback(s);
	return rc;
}

int kvb_store_plan_load(struct kvb_store *s, int64_t run_id, struct kvb_job_row *rows, size_t n, struct kvb_error *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "SELECT id, status, attempts FROM job WHERE run_id = ? AND seq = ?", -1, &st,
			       NULL) != SQLITE_OK)
		return kvb_store_db_err(s, err, "reading the plan");
	for (size_t i = 0; i < n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int(st, 2, rows[i].seq);
		rows[i].id = 0;
		if (sqlite3_step(st) == SQLITE_ROW) {
			rows[i].id = sqlite3_column_int64(st, 0);
			snprintf(rows[i].status, sizeof(rows[i].status), "%s", (const char *)sqlite3_column_text(st, 1));
			rows[i].attempts = sqlite3_column_int(st, 2);
		}
	}
	sqlite3_finalize(st);
	return KVB_OK;
}

int kvb_store_job_start(struct kvb_store *s, int64_t job_id, int64_t start_ns, struct kvb_error *err)
{
	return kvb_store_write(s, err, NULL, "UPDATE job SET status = 'running', start_ns = ? WHERE id = ?", "ii", start_ns, job_id);
}

int kvb_store_mark_lower_is_better(struct kvb_store *s, int64_t run_id, const char *glob, int *n,
				   struct kvb_error *err)
{
	int rc = kvb_store_write(s, err, NULL,
			  "UPDATE metric SET lower_is_better = 1 WHERE lower_is_better = 0 AND name GLOB ?"
			  " AND job_id IN (SELECT id FROM job WHERE run_id = ?)",
			  "ti", glob, run_id);
	*n = rc ? 0 : sqlite3_changes(s->db);
	return rc;
}

int kvb_store_job_pending(struct kvb_store *s, int64_t job_id, struct kvb_error *err)
{
	return kvb_store_write(s, err, NULL, "UPDATE job SET status = 'pending', start_ns = NULL WHERE id = ?", "i", job_id);
}

int kvb_store_attempt_add(struct kvb_store *s, int64_t job_id, int attempt, const char *status, const char *error,
			  int64_t start_ns, int64_t end_ns, struct kvb_error *err)
{
	int rc = kvb_store_write(s, err, NULL,
			  "INSERT INTO job_attempt(job_id, attempt, status, error, start_ns, end_ns)"
			  " VALUES(?,?,?,?,NULLIF(?, 0),NULLIF(?, 0))",
			  "iittii", job_id, (int64_t)attempt, status, error, start_ns, end_ns);
	if (!rc)
		rc = kvb_store_write(s, err, NULL, "UPDATE job SET attempts = ? WHERE id = ?", "ii", (int64_t)attempt, job_id);
	return rc;
}

/* The attempt's metrics as [{"name", "value", "units"}] (owned), or NULL without any. */
static char *metrics_json(const struct kvb_metrics *m)
{
	cJSON *a;
	char *text;
	if (!m || !m->n)
		return NULL;
	a = cJSON_CreateArray();
	for (size_t i = 0; i < m->n; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", m->v[i].name);
		cJSON_AddNumberToObject(o, "value", m->v[i].value);
		cJSON_AddStringToObject(o, "units", m->v[i].units ? m->v[i].units : "");
		cJSON_AddItemToArray(a, o);
	}
	text = cJSON_PrintUnformatted(a);
	cJSON_Delete(a);
	return text;
}

static int add_witnesses(struct kvb_store *s, int64_t run_id, int64_t job_id, int attempt, const struct kvb_witnesses *ws,
			 struct kvb_error *err)
{
	int rc = KVB_OK;
	for (size_t i = 0; !rc && ws && i < ws->n; i++) {
		const struct kvb_witness *w = &ws->v[i];
		rc = kvb_store_write(s, err, NULL,
				     "INSERT INTO witness(run_id, job_id, attempt, t_ns, kind, subject, expected, observed, verdict,"
				     " detail) VALUES(?,?,NULLIF(?, 0),?,?,?,?,?,?,?)",
				     "iiiitttttt", run_id, job_id, (int64_t)attempt, w->t_ns, w->kind, w->subject, w->expected,
				     w->observed, kvb_witness_verdict_name(w->verdict), w->detail);
	}
	return rc;
}

int kvb_store_attempt_evidence(struct kvb_store *s, int64_t run_id, int64_t job_id, int attempt, const char *status,
			       const char *error, int64_t start_ns, int64_t end_ns, const struct kvb_metrics *m,
			       const struct kvb_witnesses *w, struct kvb_error *err)
{
	char *mj = metrics_json(m);
	int rc = kvb_store_begin(s, err);
	if (!rc)
		rc = kvb_store_write(s, err, NULL,
				     "INSERT INTO job_attempt(job_id, attempt, status, error, start_ns, end_ns, metrics_json)"
				     " VALUES(?,?,?,?,NULLIF(?, 0),NULLIF(?, 0),?)",
				     "iittiit", job_id, (int64_t)attempt, status, error, start_ns, end_ns, mj);
	if (!rc)
		rc = kvb_store_write(s, err, NULL, "UPDATE job SET attempts = ? WHERE id = ?", "ii", (int64_t)attempt, job_id);
	if (!rc)
		rc = add_witnesses(s, run_id, job_id, attempt, w, err);
	if (!rc)
		rc = kvb_store_commit(s, err);
	else
		kvb_store_rollback(s);
	free(mj);
	return rc;
}

static int add_classifiers(struct kvb_store *s, int64_t job_id, int64_t metric_id, const cJSON *c, struct kvb_error *err)
{
	for (const cJSON *kv = c ? c->child : NULL; kv; kv = kv->next) {
		const char *v = cJSON_IsString(kv) ? kv->valuestring : NULL;
		char num[64];
		int rc;
		if (!v && cJSON_IsNumber(kv)) {
			snprintf(num, sizeof(num), "%.17g", kv->valuedouble);
			v = num;
		}
		if (!v)
			continue;
		if (metric_id)
			rc = kvb_store_write(s, err, NULL, "INSERT INTO classifier(job_id, metric_id, key, value) VALUES(?,?,?,?)",
				      "iitt", job_id, metric_id, kv->string, v);
		else
			rc = kvb_store_write(s, err, NULL, "INSERT INTO classifier(job_id, key, value) VALUES(?,?,?)", "itt", job_id,
				      kv->string, v);
		if (rc)
			return rc;
	}
	return KVB_OK;
}

int kvb_store_job_commit(struct kvb_store *s, int64_t run_id, int64_t job_id, const struct kvb_job_outcome *o,
			 const struct kvb_metrics *m, const cJSON *classifiers, struct kvb_error *err)
{
	int rc;
	if ((rc = kvb_store_begin(s, err)))
		return rc;
	rc = kvb_store_job_write(s, run_id, job_id, o, m, classifiers, err);
	if (!rc)
		rc = kvb_store_commit(s, err);
	if (rc)
		kvb_store_rollback(s);
	return rc;
}

int kvb_store_job_write(struct kvb_store *s, int64_t run_id, int64_t job_id, const struct kvb_job_outcome *o,
			const struct kvb_metrics *m, const cJSON *classifiers, struct kvb_error *err)
{
	int rc;
	rc = kvb_store_write(s, err, NULL,
		      "UPDATE job SET status = ?, error = ?, attempts = ?, start_ns = NULLIF(?, 0), end_ns = NULLIF(?, 0),"
		      " boot_id = NULLIF(?, 0) WHERE id = ?", "ttiiiii",
		      o->status, o->error, (int64_t)o->attempts, o->start_ns, o->end_ns, o->boot_id, job_id);
	if (!rc)
		rc = kvb_store_write(s, err, NULL, "UPDATE job SET cgroup = ? WHERE id = ?", "ti", o->cgroup, job_id);
	if (!rc)
		rc = kvb_store_write(s, err, NULL,
			      "INSERT INTO job_attempt(job_id, attempt, status, error, start_ns, end_ns)"
			  " VALUES(?,?,?,?,NULLIF(?, 0),NULLIF(?, 0))",
			      "iittii", job_id, (int64_t)o->attempts, o->status, o->error, o->start_ns, o->end_ns);
	/* Classifiers from the plan are replaced so a redone job (resume) stores them once. */
	if (!rc)
		rc = kvb_store_write(s, err, NULL, "DELETE FROM classifier WHERE job_id = ?", "i", job_id);
	if (!rc)
		rc = kvb_store_write(s, err, NULL, "DELETE FROM metric WHERE job_id = ?", "i", job_id);
	if (!rc)
		rc = kvb_store_write(s, err, NULL, "DELETE FROM artifact WHERE job_id = ?", "i", job_id);
	if (!rc)
		rc = add_classifiers(s, job_id, 0, classifiers, err);
	for (size_t i = 0; !rc && m && i < m->n; i++) {
		int64_t mid;
		rc = kvb_store_write(s, err, &mid, "INSERT INTO metric(job_id, name, value, units, lower_is_better) VALUES(?,?,?,?,?)",
			      "itdti", job_id, m->v[i].name, m->v[i].value, m->v[i].units, (int64_t)m->v[i].lower_is_better);
		if (!rc)
			rc = add_classifiers(s, job_id, mid, m->v[i].classifiers, err);
	}
	for (size_t i = 0; !rc && m && i < m->nart; i++)
		rc = kvb_store_write(s, err, NULL, "INSERT INTO artifact(job_id, run_id, kind, path, sha256, bytes) VALUES(?,?,?,?,?,?)",
			      "iittti", job_id, run_id, m->art[i].kind, m->art[i].path,
			      m->art[i].sha256, m->art[i].bytes);
	if (!rc)
		rc = kvb_store_samples_replace(s, job_id, m ? m->samples : NULL, err);
	if (!rc)
		rc = kvb_store_profile_replace(s, job_id, m ? m->profile : NULL, err);
	if (!rc)
		/* the final attempt's witnesses are replaced; earlier attempts' evidence stays */
		rc = kvb_store_write(s, err, NULL, "DELETE FROM witness WHERE job_id = ? AND attempt IS NULL", "i", job_id);
	if (!rc)
		rc = add_witnesses(s, run_id, job_id, 0, o->witnesses, err);
	return rc;
}

int kvb_store_witness_add(struct kvb_store *s, int64_t run_id, int64_t variant_id, int round,
			  const struct kvb_witness *w, struct kvb_error *err)
{
	return kvb_store_write(s, err, NULL,
			"INSERT INTO witness(run_id, variant_id, round, t_ns, kind, subject, expected, observed, verdict, detail)"
			" VALUES(?,?,?,?,?,?,?,?,?,?)",
			"iiiitttttt", run_id, variant_id, (int64_t)round, w->t_ns, w->kind, w->subject, w->expected,
			w->observed, kvb_witness_verdict_name(w->verdict), w->detail);
}

int kvb_store_run_artifact(struct kvb_store *s, int64_t run_id, const char *kind, const char *path, struct kvb_error *err)
{
	char hex[65];
	int64_t bytes = 0;
	if (kvb_sha256_file(path, hex, &bytes))
		return kvb_error_set(err, KVB_ESTORE, "cannot read artifact %s", path);
	return kvb_store_write(s, err, NULL, "INSERT INTO artifact(run_id, kind, path, sha256, bytes) VALUES(?,?,?,?,?)", "ittti", run_id,
			kind, path, hex, bytes);
}

int kvb_store_knob_save(struct kvb_store *s, int64_t run_id, const char *platform, const char *path,
			const char *original, struct kvb_error *err)
{
	return kvb_store_write(s, err, NULL, "INSERT INTO knob_saved(run_id, platform, path, original, saved_ns) VALUES(?,?,?,?,?)",
			"ittti", run_id, platform, path, original, (int64_t)kvb_wall_ns());
}

int kvb_store_knob_done(struct kvb_store *s, int64_t run_id, const char *path, struct kvb_error *err)
{
	return kvb_store_write(s, err, NULL,
			"DELETE FROM knob_saved WHERE id = (SELECT max(id) FROM knob_saved WHERE run_id = ? AND path = ?)",
			"it", run_id, path);
}

int kvb_store_knob_leftovers(struct kvb_store *s, const char *platform, struct kvb_strv *paths,
			     struct kvb_strv *originals, struct kvb_error *err)
{
	sqlite3_stmt *st;
	/* the oldest saved value of a path is the board's own (later ones were ours) */
	if (sqlite3_prepare_v2(s->db,
			       "SELECT path, original FROM knob_saved k WHERE platform = ? AND id = "
			       "(SELECT min(id) FROM knob_saved WHERE platform = k.platform AND path = k.path) ORDER BY id",
			       -1, &st, NULL) != SQLITE_OK)
		return kvb_store_db_err(s, err, "reading saved knobs");
	sqlite3_bind_text(st, 1, platform, -1, SQLITE_TRANSIENT);
	while (sqlite3_step(st) == SQLITE_ROW) {
		kvb_strv_push(paths, (const char *)sqlite3_column_text(st, 0));
		kvb_strv_push(originals, (const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	return KVB_OK;
}

int kvb_store_knob_clear(struct kvb_store *s, const char *platform, struct kvb_error *err)
{
	return kvb_store_write(s, err, NULL, "DELETE FROM knob_saved WHERE platform = ?", "t", platform);
}

void kvb_store_event_job(struct kvb_store *s, int64_t run_id, int64_t job_id, const char *level, const char *msg)
{
	if (job_id > 0)
		kvb_store_write(s, NULL, NULL, "INSERT INTO event(run_id, t_ns, level, message, job_id) VALUES(?,?,?,?,?)", "iitti",
			 run_id, (int64_t)kvb_wall_ns(), level, msg, job_id);
	else
		kvb_store_write(s, NULL, NULL, "INSERT INTO event(run_id, t_ns, level, message) VALUES(?,?,?,?)", "iitt", run_id,
			 (int64_t)kvb_wall_ns(), level, msg);
}

void kvb_store_event(struct kvb_store *s, int64_t run_id, const char *level, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kvb_store_write(s, NULL, NULL, "INSERT INTO event(run_id, t_ns, level, message) VALUES(?,?,?,?)", "iitt", run_id,
		 (int64_t)kvb_wall_ns(), level, msg);
}

int kvb_store_variant_build(struct kvb_store *s, int64_t variant_id, const struct kvb_variant_build *b,
			    struct kvb_error *err)
{
	int rc = kvb_store_write(s, err, NULL,
				 "INSERT OR REPLACE INTO variant_build(variant_id, repo, rev, commit_sha, describe, subject,"
				 " parent_sha, series_pos, config_hash, toolchain, build_s, cached, build_log, error,"
				 " config_diff, patched_onto)"
				 " VALUES(?,?,?,?,?,?,?,nullif(?, -1),?,?,?,?,?,?,?,?)",
				 "ittttttittdittt" "t", variant_id, b->repo, b->rev, b->sha, b->describe, b->subject,
				 b->parent_sha, (int64_t)b->series_pos, b->config_hash, b->toolchain, b->build_s,
				 (int64_t)b->cached, b->build_log, b->error, b->config_diff, b->patched_onto);
	if (!rc)
		rc = kvb_store_write(s, err, NULL, "DELETE FROM variant_patch WHERE variant_id = ?", "i", variant_id);
	for (size_t i = 0; !rc && i < b->npatches; i++) {
		const char *l = b->patches[i], *tab = strchr(l, '\t');
		char sha[41];
		snprintf(sha, sizeof(sha), "%.*s", tab ? (int)(tab - l) : 40, l);
		rc = kvb_store_write(s, err, NULL, "INSERT INTO variant_patch(variant_id, pos, commit_sha, subject) VALUES(?,?,?,?)",
				     "iitt", variant_id, (int64_t)i, sha, tab ? tab + 1 : "");
	}
	return rc;
}

static char *dup_or(sqlite3_stmt *q, int i, const char *dflt)
{
	const unsigned char *t = sqlite3_column_text(q, i);
	return t ? kvb_xstrdup((const char *)t) : dflt ? kvb_xstrdup(dflt) : NULL;
}

int kvb_store_run_load(struct kvb_store *s, int64_t run_id, struct kvb_run_stored *r, struct kvb_error *err)
{
	sqlite3_stmt *q;
	int src;
	memset(r, 0, sizeof(*r));
	if (sqlite3_prepare_v2(s->db,
			       "SELECT agenda_json, agenda_path, platform, status, rounds, platform_path FROM run WHERE id = ?",
			       -1, &q, NULL) != SQLITE_OK)
		return kvb_store_db_err(s, err, "reading a run");
	sqlite3_bind_int64(q, 1, run_id);
	src = sqlite3_step(q);
	if (src == SQLITE_ROW) {
		r->agenda_json = dup_or(q, 0, "{}");
		r->agenda_path = dup_or(q, 1, "agenda");
		r->platform = dup_or(q, 2, "local");
		r->status = dup_or(q, 3, "");
		r->rounds = sqlite3_column_int(q, 4);
		r->platform_path = dup_or(q, 5, NULL);
	} else if (src != SQLITE_DONE) {
		src = kvb_store_db_err(s, err, "reading a run");
		sqlite3_finalize(q);
		return src;
	}
	sqlite3_finalize(q);
	if (!r->agenda_json)
		return kvb_error_set(err, KVB_ENOTFOUND, "%s: no run %lld to resume", s->path, (long long)run_id);
	return KVB_OK;
}

void kvb_store_run_stored_release(struct kvb_run_stored *r)
{
	free(r->agenda_json);
	free(r->agenda_path);
	free(r->platform);
	free(r->platform_path);
	free(r->status);
	memset(r, 0, sizeof(*r));
}
