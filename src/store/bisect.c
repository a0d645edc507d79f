/* Implements the stored state of `kvbench bisect` (bisect.h). */
#include "store/bisect.h"
#include "core/util.h"
#include "store/stmt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *col_dup(sqlite3_stmt *q, int i)
{
	const unsigned char *t = sqlite3_column_text(q, i);
	return t ? kvb_xstrdup((const char *)t) : NULL;
}

int kvb_store_bisect_add(struct kvb_store *s, const struct kvb_bisect_row *b, int64_t *id, struct kvb_error *err)
{
	return kvb_store_write(s, err, id,
			       "INSERT INTO bisect(repo, good_sha, bad_sha, metric, threshold_pct, agenda_path, platform,"
			       " command_line, started_ns, rounds, max_rounds) VALUES(?,?,?,?,?,?,?,?,?,nullif(?, 0),?)",
			       "ttttdttti" "ii", b->repo, b->good, b->bad, b->metric, b->threshold_pct, b->agenda_path,
			       b->platform, b->command_line, kvb_wall_ns(), (int64_t)b->rounds, (int64_t)b->max_rounds);
}

int kvb_store_bisect_load(struct kvb_store *s, int64_t id, struct kvb_bisect_row *b, struct kvb_error *err)
{
	sqlite3_stmt *q;
	int rc = KVB_OK;
	memset(b, 0, sizeof(*b));
	if (sqlite3_prepare_v2(s->db,
			       "SELECT id, repo, good_sha, bad_sha, metric, threshold_pct, agenda_path, platform, status,"
			       " coalesce(good_run_id, 0), coalesce(bad_run_id, 0), command_line, coalesce(rounds, 0),"
			       " max_rounds FROM bisect WHERE ?1 = 0 OR id = ?1 ORDER BY id DESC LIMIT 1",
			       -1, &q, NULL) != SQLITE_OK)
		return kvb_store_read_failed(s, q, "the bisect", err);
	sqlite3_bind_int64(q, 1, id);
	switch (sqlite3_step(q)) {
	case SQLITE_ROW:
		b->id = sqlite3_column_int64(q, 0);
		b->repo = col_dup(q, 1);
		snprintf(b->good, sizeof(b->good), "%s", (const char *)sqlite3_column_text(q, 2));
		snprintf(b->bad, sizeof(b->bad), "%s", (const char *)sqlite3_column_text(q, 3));
		b->metric = col_dup(q, 4);
		b->threshold_pct = sqlite3_column_double(q, 5);
		b->agenda_path = col_dup(q, 6);
		b->platform = col_dup(q, 7);
		b->status = col_dup(q, 8);
		b->good_run = sqlite3_column_int64(q, 9);
		b->bad_run = sqlite3_column_int64(q, 10);
		b->command_line = col_dup(q, 11);
		b->rounds = sqlite3_column_int(q, 12);
		b->max_rounds = sqlite3_column_int(q, 13);
		break;
	case SQLITE_DONE:
		rc = kvb_error_set(err, KVB_ENOTFOUND, "%s: no bisect%s to resume", s->path, id ? " with that id" : "");
		break;
	default:
		return kvb_store_read_failed(s, q, "the bisect", err);
	}
	sqlite3_finalize(q);
	return rc;
}

void kvb_store_bisect_release(struct kvb_bisect_row *b)
{
	free(b->repo);
	free(b->metric);
	free(b->agenda_path);
	free(b->platform);
	free(b->command_line);
	free(b->status);
	memset(b, 0, sizeof(*b));
}

int kvb_store_bisect_resumed(struct kvb_store *s, int64_t id, struct kvb_error *err)
{
	return kvb_store_write(s, err, NULL, "UPDATE bisect SET status = 'running', error = NULL WHERE id = ?", "i", id);
}

int kvb_store_bisect_set_endpoint(struct kvb_store *s, int64_t id, const char *which, int64_t run_id,
				  struct kvb_error *err)
{
	return kvb_store_write(s, err, NULL,
			       "UPDATE bisect SET good_run_id = CASE WHEN ?1 = 'good' THEN ?2 ELSE good_run_id END,"
			       " bad_run_id = CASE WHEN ?1 = 'bad' THEN ?2 ELSE bad_run_id END WHERE id = ?3",
			       "tii", which, run_id, id);
}

int kvb_store_bisect_add_endpoint_run(struct kvb_store *s, int64_t id, const char *which, int64_t run_id,
				      struct kvb_error *err)
{
	return kvb_store_write(s, err, NULL, "INSERT INTO bisect_endpoint_run(bisect_id, endpoint, run_id) VALUES(?,?,?)",
			       "iti", id, which, run_id);
}

int kvb_store_bisect_endpoint_runs(struct kvb_store *s, int64_t id, int64_t **runs, size_t *n, struct kvb_error *err)
{
	sqlite3_stmt *q;
	size_t alloc = 0;
	int src;
	*runs = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(s->db, "SELECT run_id FROM bisect_endpoint_run WHERE bisect_id = ? ORDER BY rowid", -1, &q,
			       NULL) != SQLITE_OK)
		return kvb_store_read_failed(s, q, "the bisect", err);
	sqlite3_bind_int64(q, 1, id);
	while ((src = sqlite3_step(q)) == SQLITE_ROW) {
		if (*n == alloc) {
			alloc = alloc ? 2 * alloc : 8;
			*runs = kvb_xrealloc(*runs, alloc * sizeof(**runs));
		}
		(*runs)[(*n)++] = sqlite3_column_int64(q, 0);
	}
	if (src != SQLITE_DONE) {
		free(*runs);
		*runs = NULL;
		*n = 0;
		return kvb_store_read_failed(s, q, "the bisect", err);
	}
	sqlite3_finalize(q);
	return KVB_OK;
}

int kvb_store_bisect_step_add(struct kvb_store *s, int64_t id, const struct kvb_bisect_step *st, struct kvb_error *err)
{
	return kvb_store_write(s, err, NULL,
			       "INSERT INTO bisect_step(bisect_id, step, commit_sha, run_id, outcome, value, vs_good_pct,"
			       " vs_bad_pct, rounds, reason) VALUES(?,?,?,nullif(?, 0),?,?,?,?,?,?)",
			       "iititdddit", id, (int64_t)st->step, st->sha, st->run_id, st->outcome, st->value, st->vs_good,
			       st->vs_bad, (int64_t)st->boots, st->reason);
}

static double col_num(sqlite3_stmt *q, int i)
{
	return sqlite3_column_type(q, i) == SQLITE_NULL ? NAN : sqlite3_column_double(q, i);
}

int kvb_store_bisect_steps(struct kvb_store *s, int64_t id, int (*fn)(void *arg, const struct kvb_bisect_step *st),
			   void *arg, struct kvb_error *err)
{
	sqlite3_stmt *q;
	int src, rc = KVB_OK;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT s.step, s.commit_sha, coalesce(vb.subject, ''), s.outcome, s.value, s.vs_good_pct,"
			       " s.vs_bad_pct, coalesce(s.rounds, 0), coalesce(s.reason, ''), coalesce(s.run_id, 0)"
			       " FROM bisect_step s LEFT JOIN variant v ON v.run_id = s.run_id"
			       " LEFT JOIN variant_build vb ON vb.variant_id = v.id WHERE s.bisect_id = ? ORDER BY s.step",
			       -1, &q, NULL) != SQLITE_OK)
		return kvb_store_read_failed(s, q, "the bisect", err);
	sqlite3_bind_int64(q, 1, id);
	while (!rc && (src = sqlite3_step(q)) == SQLITE_ROW) {
		struct kvb_bisect_step st = {
			.step = sqlite3_column_int(q, 0),
			.sha = (const char *)sqlite3_column_text(q, 1),
			.subject = (const char *)sqlite3_column_text(q, 2),
			.outcome = (const char *)sqlite3_column_text(q, 3),
			.value = col_num(q, 4),
			.vs_good = col_num(q, 5),
			.vs_bad = col_num(q, 6),
			.boots = sqlite3_column_int(q, 7),
			.reason = (const char *)sqlite3_column_text(q, 8),
			.run_id = sqlite3_column_int64(q, 9),
		};
		rc = fn(arg, &st);
	}
	if (!rc && src != SQLITE_DONE)
		return kvb_store_read_failed(s, q, "the bisect", err);
	sqlite3_finalize(q);
	return rc;
}

int kvb_store_bisect_step_change(struct kvb_store *s, int64_t id, const char *sha, double *pct, struct kvb_error *err)
{
	sqlite3_stmt *q;
	int src;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT vs_good_pct FROM bisect_step WHERE bisect_id = ? AND commit_sha = ?"
			       " AND vs_good_pct IS NOT NULL ORDER BY step DESC LIMIT 1",
			       -1, &q, NULL) != SQLITE_OK)
		return kvb_store_read_failed(s, q, "the bisect", err);
	sqlite3_bind_int64(q, 1, id);
	sqlite3_bind_text(q, 2, sha, -1, SQLITE_TRANSIENT);
	if ((src = sqlite3_step(q)) == SQLITE_ROW)
		*pct = sqlite3_column_double(q, 0);
	else if (src != SQLITE_DONE)
		return kvb_store_read_failed(s, q, "the bisect", err);
	sqlite3_finalize(q);
	return KVB_OK;
}

int kvb_store_bisect_set_log(struct kvb_store *s, int64_t id, const char *log, struct kvb_error *err)
{
	return kvb_store_write(s, err, NULL, "UPDATE bisect SET git_log = ? WHERE id = ?", "ti", log, id);
}

int kvb_store_bisect_done(struct kvb_store *s, int64_t id, const char *first_bad, double change_pct,
			  const char *error, struct kvb_error *err)
{
	return kvb_store_write(s, err, NULL,
			       "UPDATE bisect SET status = 'done', first_bad_sha = ?, change_pct = ?, error = ?,"
			       " finished_ns = ? WHERE id = ?",
			       "tdtii", first_bad, first_bad ? change_pct : NAN, error, kvb_wall_ns(), id);
}

int kvb_store_bisect_ended(struct kvb_store *s, int64_t id, const char *status, const char *error,
			   struct kvb_error *err)
{
	return kvb_store_write(s, err, NULL,
			       "UPDATE bisect SET status = ?, error = ?, finished_ns = ? WHERE id = ? AND status != 'done'",
			       "ttii", status, error, kvb_wall_ns(), id);
}

int kvb_store_run_outcome(struct kvb_store *s, int64_t run_id, struct kvb_run_outcome *o, struct kvb_error *err)
{
	sqlite3_stmt *q;
	int src;
	memset(o, 0, sizeof(*o));
	if (sqlite3_prepare_v2(s->db,
			       "SELECT r.status, v.status, v.error, (SELECT count(*) FROM boot WHERE variant_id = v.id)"
			       " FROM run r JOIN variant v ON v.run_id = r.id WHERE r.id = ? ORDER BY v.position LIMIT 1",
			       -1, &q, NULL) != SQLITE_OK)
		return kvb_store_read_failed(s, q, "the bisect", err);
	sqlite3_bind_int64(q, 1, run_id);
	if ((src = sqlite3_step(q)) == SQLITE_ROW) {
		o->run_status = col_dup(q, 0);
		o->variant_status = col_dup(q, 1);
		o->variant_error = col_dup(q, 2);
		o->boots = sqlite3_column_int(q, 3);
	} else if (src != SQLITE_DONE) {
		return kvb_store_read_failed(s, q, "the bisect", err);
	}
	sqlite3_finalize(q);
	return KVB_OK;
}

void kvb_store_run_outcome_release(struct kvb_run_outcome *o)
{
	free(o->run_status);
	free(o->variant_status);
	free(o->variant_error);
	memset(o, 0, sizeof(*o));
}
