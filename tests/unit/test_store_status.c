/* Unit tests for status from evidence (store/status.c) on a real SQLite results DB. */
#include "store/status.h"
#include "results/runstate.h"
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

static char dir[64];

/* A run with variants a, b and two rounds of 2 jobs each, every job status from `jobs` (a1 a2 a3 a4 b1 ...). */
static struct kvb_store *open_db(const char *const *jobs, int decided_round)
{
	struct kvb_store *st = NULL;
	struct kvb_error err;
	char db[128], sql[512];
	snprintf(dir, sizeof(dir), "/tmp/kvb-test-status-XXXXXX");
	if (!mkdtemp(dir))
		abort();
	snprintf(db, sizeof(db), "%s/r.db", dir);
	CHECK(kvb_store_open(&st, db, 0, &err) == KVB_OK);
	CHECK(sqlite3_exec(st->db,
			   "INSERT INTO run(id, started_ns, status) VALUES(1, 1000, 'running');"
			   "INSERT INTO variant(id, run_id, name, position, status, error) VALUES(1, 1, 'a', 0, 'pending', NULL),"
			   " (2, 1, 'b', 1, 'failed', 'boot failed');",
			   NULL, NULL, NULL) == SQLITE_OK);
	for (int i = 0; i < 8; i++) {
		snprintf(sql, sizeof(sql),
			 "INSERT INTO job(run_id, variant_id, seq, round, spec_id, workload, iteration, status, error,"
			 " start_ns, end_ns) VALUES(1, %d, %d, %d, 'w', 'w', %d, '%s', %s, %s, %s)",
			 1 + i / 4, i + 1, 1 + (i % 4) / 2, 1 + i % 2, jobs[i],
			 strcmp(jobs[i], "ok") ? "'why'" : "NULL", strcmp(jobs[i], "ok") ? "NULL" : "2000",
			 strcmp(jobs[i], "ok") ? "NULL" : "3000");
		CHECK(sqlite3_exec(st->db, sql, NULL, NULL, NULL) == SQLITE_OK);
	}
	if (decided_round) {
		snprintf(sql, sizeof(sql),
			 "INSERT INTO run_decide(run_id, margin, alpha, max_rounds, metrics_json, decided_round, outcome)"
			 " VALUES(1, 0.01, 0.05, 2, '[]', %d, 'decided')",
			 decided_round);
		CHECK(sqlite3_exec(st->db, sql, NULL, NULL, NULL) == SQLITE_OK);
	}
	return st;
}

static void cleanup(struct kvb_store *st)
{
	char cmd[128];
	kvb_store_close(st);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

static void text(struct kvb_store *st, const char *sql, char *out, size_t n)
{
	sqlite3_stmt *q;
	out[0] = '\0';
	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
		snprintf(out, n, "%s", (const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
}

/* b failed to boot: its jobs skipped. a ok, b failed with its error, the run incomplete. */
static void test_settle__failed_variant_keeps_its_error_and_the_run_is_not_ok(void)
{
	const char *jobs[] = { "ok", "ok", "ok", "ok", "skipped", "skipped", "skipped", "skipped" };
	struct kvb_store *st = open_db(jobs, 0);
	struct kvb_run_tally t;
	struct kvb_error err;
	char s[256];
	CHECK(kvb_store_settle_run(st, 1, 0, 0, &t, &err) == KVB_OK);
	CHECK_STR(t.status, "incomplete");
	CHECK(t.variants == 2 && t.variants_ok == 1 && t.planned == 8 && t.planned_ok == 4);
	text(st, "SELECT group_concat(name || ':' || status || ':' || coalesce(error, ''), ' ') FROM variant", s, sizeof(s));
	CHECK_STR(s, "a:ok: b:failed:boot failed");
	text(st, "SELECT status FROM run", s, sizeof(s));
	CHECK_STR(s, "incomplete");
	/* finished now, never before the start */
	text(st, "SELECT finished_ns > started_ns FROM run", s, sizeof(s));
	CHECK_STR(s, "1");
	cleanup(st);
}

/* 0 of 2 jobs ok, no variant-level failure: incomplete, not ok (issue 26). Interrupted: pending. */
static void test_settle__variant_without_ok_jobs_is_incomplete_or_pending(void)
{
	const char *jobs[] = { "ok", "ok", "ok", "ok", "failed", "failed", "pending", "pending" };
	struct kvb_store *st = open_db(jobs, 0);
	struct kvb_run_tally t;
	struct kvb_error err;
	char s[256];
	CHECK(sqlite3_exec(st->db, "UPDATE variant SET status = 'pending', error = NULL", NULL, NULL, NULL) == SQLITE_OK);
	CHECK(kvb_store_settle_run(st, 1, 1, 0, &t, &err) == KVB_OK);
	CHECK_STR(t.status, "interrupted");
	text(st, "SELECT status FROM variant WHERE name = 'b'", s, sizeof(s));
	CHECK_STR(s, "pending");
	CHECK(sqlite3_exec(st->db, "UPDATE job SET status = 'failed' WHERE status = 'pending'", NULL, NULL, NULL) == SQLITE_OK);
	CHECK(kvb_store_settle_run(st, 1, 0, 1, &t, &err) == KVB_OK);
	CHECK_STR(t.status, "incomplete");
	text(st, "SELECT status FROM variant WHERE name = 'b'", s, sizeof(s));
	CHECK_STR(s, "incomplete");
	/* at_last_job: the end of the last job that ended, not a skipped job's missing end */
	text(st, "SELECT finished_ns FROM run", s, sizeof(s));
	CHECK_STR(s, "3000");
	cleanup(st);
}

/* --until-decided stopped after round 1: round 2's skipped jobs are not planned, the run is ok. */
static void test_settle__jobs_not_needed_after_a_decision_do_not_count(void)
{
	const char *jobs[] = { "ok", "ok", "skipped", "skipped", "ok", "ok", "skipped", "skipped" };
	struct kvb_store *st = open_db(jobs, 1);
	struct kvb_run_tally t;
	struct kvb_error err;
	int64_t n = -1;
	CHECK(kvb_store_settle_run(st, 1, 0, 0, &t, &err) == KVB_OK);
	CHECK_STR(t.status, "ok");
	CHECK(t.planned == 4 && t.planned_ok == 4 && t.variants_ok == 2);
	/* diff's notes count planned jobs too: no "2 of 4 jobs ok" for a decided run */
	{
		struct kvb_run_state rs;
		int64_t run = 1;
		CHECK(kvb_run_state_load(st, &run, 1, &rs, &err) == KVB_OK);
		CHECK(rs.n == 2 && rs.v[0].jobs == 2 && rs.v[0].jobs_ok == 2 && rs.v[1].jobs == 2);
		kvb_run_state_release(&rs);
	}
	/* and resume does not plan them again */
	CHECK(kvb_store_replan(st, 1, &n, &err) == KVB_OK);
	CHECK(n == 0);
	cleanup(st);
	/* without the decision the same skips are failures */
	st = open_db(jobs, 0);
	CHECK(kvb_store_settle_run(st, 1, 0, 0, &t, &err) == KVB_OK);
	CHECK_STR(t.status, "incomplete");
	cleanup(st);
}

/* --resume plans failed, skipped and instrument-failed jobs again; errors stay until fixed. */
static void test_replan__failed_and_skipped_jobs_run_again_errors_kept(void)
{
	const char *jobs[] = { "ok", "instrument-failed", "failed", "ok", "skipped", "skipped", "skipped", "skipped" };
	struct kvb_store *st = open_db(jobs, 0);
	struct kvb_error err;
	int64_t n = 0;
	char s[256];
	CHECK(kvb_store_replan(st, 1, &n, &err) == KVB_OK);
	CHECK(n == 6);
	text(st, "SELECT group_concat(status, ' ') FROM (SELECT status FROM job ORDER BY seq)", s, sizeof(s));
	CHECK_STR(s, "ok pending pending ok pending pending pending pending");
	text(st, "SELECT count(*) FROM job WHERE status = 'pending' AND error = 'why'", s, sizeof(s));
	CHECK_STR(s, "6");
	text(st, "SELECT status || ':' || coalesce(error, '') FROM variant WHERE name = 'b'", s, sizeof(s));
	CHECK_STR(s, "pending:boot failed");
	cleanup(st);
}

#define TESTS                                                                                                          \
	T(test_settle__failed_variant_keeps_its_error_and_the_run_is_not_ok)                                           \
	T(test_settle__variant_without_ok_jobs_is_incomplete_or_pending)                                               \
	T(test_settle__jobs_not_needed_after_a_decision_do_not_count)                                                  \
	T(test_replan__failed_and_skipped_jobs_run_again_errors_kept)
#include "test_main.h"
