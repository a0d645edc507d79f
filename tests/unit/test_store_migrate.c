/*
 * Unit tests of the migrations: 0010 moves the results view's boot unit from the flash
 * method's name to the stored capability run.boots_each_round, and a DB written
 * before it gives the same `boot` for every row after it as before; 0016 and 0024 (a
 * resumed round is a boot of its own) on older DBs.
 */
#include "test.h"

#include "core/util.h"
#include "flash/flash.h"
#include "store/schema.h"
#include "store/store.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Rows of every kind the old view told apart by name: method none (said and unset), a
 * flasher that boots each round, and imports (whose boot is their own column). */
static const char *const old_rows =
	"INSERT INTO run(id, started_ns, status, platform_json) VALUES"
	" (1, 0, 'ok', '{\"flash\":{\"method\":\"none\"}}'),"
	" (2, 0, 'ok', '{\"flash\":{\"method\":\"qemu\"}}'),"
	" (3, 0, 'interrupted', NULL),"
	" (4, 0, 'imported', '{\"flash\":{\"method\":\"none\"}}'),"
	" (5, 0, 'ok', '{\"flash\":{\"method\":\"ssh-copy\"}}');"
	"INSERT INTO variant(id, run_id, name, position) VALUES (1, 1, 'a', 0), (2, 2, 'a', 0), (3, 3, 'a', 0),"
	" (4, 4, 'a', 0), (5, 5, 'a', 0);"
	"WITH r(n) AS (VALUES (1), (2), (3), (4), (5)), k(round) AS (VALUES (1), (2), (3))"
	" INSERT INTO job(run_id, variant_id, seq, round, spec_id, workload, iteration, status)"
	" SELECT n, n, round, round, 'w', 'w', 1, 'ok' FROM r, k;"
	"INSERT INTO metric(job_id, name, value, lower_is_better) SELECT id, 'm', id, 1 FROM job;";

static char *boots(sqlite3 *db)
{
	struct kvb_buf b = KVB_BUF_INIT;
	sqlite3_stmt *st;
	CHECK(sqlite3_prepare_v2(db, "SELECT run_id, round, boot FROM results ORDER BY run_id, round", -1, &st, NULL) ==
	      SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		kvb_buf_addf(&b, "%d/%d:%d ", sqlite3_column_int(st, 0), sqlite3_column_int(st, 1),
			     sqlite3_column_int(st, 2));
	sqlite3_finalize(st);
	return kvb_buf_detach(&b);
}

static void test_store_migrate__boot_unit_of_an_older_db_is_unchanged(void)
{
	char dir[] = "/tmp/kvb-migrate-XXXXXX";
	char *path, *before, *after;
	sqlite3 *db;
	struct kvb_store *s = NULL;
	struct kvb_error err;
	int n = 0;
	CHECK(mkdtemp(dir) != NULL);
	path = kvb_xasprintf("%s/old.db", dir);
	while (kvb_migrations[n].name && strcmp(kvb_migrations[n].name, "0010_boots_each_round.sql"))
		n++;
	CHECK(kvb_migrations[n].name != NULL);
	/* the DB as the kvbench before 0010 left it */
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	for (int i = 0; i < n; i++)
		CHECK(sqlite3_exec(db, kvb_migrations[i].sql, NULL, NULL, NULL) == SQLITE_OK);
	{
		char *v = kvb_xasprintf("PRAGMA user_version = %d", n);
		CHECK(sqlite3_exec(db, v, NULL, NULL, NULL) == SQLITE_OK);
		free(v);
	}
	CHECK(sqlite3_exec(db, old_rows, NULL, NULL, NULL) == SQLITE_OK);
	before = boots(db);
	sqlite3_close(db);
	/* by hand: none (said or unset) -> 1, qemu and ssh-copy -> the round, imported -> the round */
	CHECK_STR(before, "1/1:1 1/2:1 1/3:1 2/1:1 2/2:2 2/3:3 3/1:1 3/2:1 3/3:1 4/1:1 4/2:2 4/3:3 "
			  "5/1:1 5/2:2 5/3:3 ");

	CHECK(kvb_store_open(&s, path, KVB_STORE_RW, &err) == KVB_OK); /* migrates */
	after = boots(s->db);
	CHECK_STR(after, before);
	{
		sqlite3_stmt *st;
		struct kvb_buf b = KVB_BUF_INIT;
		CHECK(sqlite3_prepare_v2(s->db, "SELECT id, boots_each_round FROM run ORDER BY id", -1, &st, NULL) == SQLITE_OK);
		while (sqlite3_step(st) == SQLITE_ROW)
			kvb_buf_addf(&b, "%d:%d ", sqlite3_column_int(st, 0), sqlite3_column_int(st, 1));
		sqlite3_finalize(st);
		CHECK_STR(b.data, "1:0 2:1 3:0 4:0 5:1 ");
		kvb_buf_release(&b);
	}
	kvb_store_close(s);
	free(before);
	free(after);
	unlink(path);
	{
		char *wal = kvb_xasprintf("%s-wal", path), *shm = kvb_xasprintf("%s-shm", path);
		unlink(wal);
		unlink(shm);
		free(wal);
		free(shm);
	}
	rmdir(dir);
	free(path);
}

/* The first text column of sql's first row ("" when none). */
static void one(sqlite3 *db, const char *sql, char *out, size_t n)
{
	sqlite3_stmt *st;
	out[0] = '\0';
	CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(out, n, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

/*
 * 0016 (issue 26): a run stored as ok by a --resume that ran nothing (run 1: variant b's
 * jobs all skipped, times stored as 0, finished at 0: -1.8e9 s) becomes incomplete, its
 * times unknown (NULL) and its duration not negative; a run --until-decided cut short (run
 * 2) stays ok; an import (run 3) keeps its status; comparison's perc_diff is over |baseline|.
 */
static void test_store_migrate__0016_status_from_the_jobs_and_no_1970_times(void)
{
	char dir[] = "/tmp/kvb-migrate-XXXXXX", s[256];
	char *path;
	sqlite3 *db;
	struct kvb_store *st = NULL;
	struct kvb_error err;
	int n = 0;
	CHECK(mkdtemp(dir) != NULL);
	path = kvb_xasprintf("%s/old.db", dir);
	while (kvb_migrations[n].name && strcmp(kvb_migrations[n].name, "0016_status_evidence.sql"))
		n++;
	CHECK(kvb_migrations[n].name != NULL);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	for (int i = 0; i < n; i++)
		CHECK(sqlite3_exec(db, kvb_migrations[i].sql, NULL, NULL, NULL) == SQLITE_OK);
	CHECK(sqlite3_exec(db,
			   "INSERT INTO run(id, started_ns, finished_ns, status) VALUES (1, 1796199861300000000, 0, 'ok'),"
			   " (2, 1000, 9000, 'ok'), (3, 1000, 1000, 'imported');"
			   "INSERT INTO variant(id, run_id, name, position, status) VALUES (1, 1, 'a', 0, 'ok'),"
			   " (2, 1, 'b', 1, 'ok'), (3, 2, 'a', 0, 'ok'), (4, 3, 'a', 0, 'ok');"
			   "INSERT INTO job(run_id, variant_id, seq, round, spec_id, workload, iteration, status, start_ns, end_ns)"
			   " VALUES (1, 1, 1, 1, 'w', 'w', 1, 'skipped', 0, 0), (1, 2, 2, 1, 'w', 'w', 1, 'skipped', 0, 0),"
			   " (2, 3, 1, 1, 'w', 'w', 1, 'ok', 2000, 3000), (2, 3, 2, 2, 'w', 'w', 1, 'skipped', 0, 0),"
			   " (3, 4, 1, 1, 'w', 'w', 1, 'failed', 1000, 1000);"
			   "INSERT INTO run_decide(run_id, margin, alpha, max_rounds, metrics_json, decided_round, outcome)"
			   " VALUES (2, 0.01, 0.05, 2, '[]', 1, 'decided');"
			   "INSERT INTO job(run_id, variant_id, seq, round, spec_id, workload, iteration, status)"
			   " VALUES (3, 4, 2, 1, 'w', 'w', 2, 'ok'), (3, 4, 3, 1, 'w', 'w', 3, 'ok');",
			   NULL, NULL, NULL) == SQLITE_OK);
	{
		char *v = kvb_xasprintf("PRAGMA user_version = %d", n);
		CHECK(sqlite3_exec(db, v, NULL, NULL, NULL) == SQLITE_OK);
		free(v);
	}
	sqlite3_close(db);
	CHECK(kvb_store_open(&st, path, KVB_STORE_RW, &err) == KVB_OK); /* migrates */
	one(st->db, "SELECT group_concat(id || ':' || status, ' ') FROM run", s, sizeof(s));
	CHECK_STR(s, "1:incomplete 2:ok 3:imported");
	one(st->db, "SELECT group_concat(status, ' ') FROM (SELECT status FROM variant ORDER BY id)", s, sizeof(s));
	CHECK_STR(s, "incomplete incomplete ok ok");
	one(st->db, "SELECT count(*) FROM job WHERE start_ns = 0 OR end_ns = 0", s, sizeof(s));
	CHECK_STR(s, "0");
	one(st->db, "SELECT finished_ns = started_ns FROM run WHERE id = 1", s, sizeof(s));
	CHECK_STR(s, "1");
	one(st->db, "SELECT count(*) FROM jobs WHERE run_id = 1 AND duration_s IS NOT NULL", s, sizeof(s));
	CHECK_STR(s, "0");
	one(st->db, "SELECT duration_s FROM jobs WHERE run_id = 2 AND seq = 1", s, sizeof(s));
	CHECK_STR(s, "1.0e-06");
	kvb_store_close(st);
	{
		char *cmd = kvb_xasprintf("rm -rf '%s'", dir);
		CHECK(system(cmd) == 0);
		free(cmd);
	}
	free(path);
}

/*
 * 0024 (issue 38): boots stored before it keep their id, their round as seq and the results
 * view's boot; the killed boot of a round stays when that round boots again (a resume), marked
 * interrupted, and a job committed in the new boot is a boot apart from the round's old jobs.
 */
static void test_store_migrate__0024_a_resumed_round_is_a_boot_of_its_own(void)
{
	char dir[] = "/tmp/kvb-migrate-XXXXXX", s[256];
	char *path;
	sqlite3 *db;
	struct kvb_store *st = NULL;
	struct kvb_error err;
	int n = 0, marked = -1;
	int64_t boot = 0;
	CHECK(mkdtemp(dir) != NULL);
	path = kvb_xasprintf("%s/old.db", dir);
	while (kvb_migrations[n].name && strcmp(kvb_migrations[n].name, "0024_boot_each_physical_boot.sql"))
		n++;
	CHECK(kvb_migrations[n].name != NULL);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	for (int i = 0; i < n; i++)
		CHECK(sqlite3_exec(db, kvb_migrations[i].sql, NULL, NULL, NULL) == SQLITE_OK);
	{
		char *v = kvb_xasprintf("PRAGMA user_version = %d", n);
		CHECK(sqlite3_exec(db, v, NULL, NULL, NULL) == SQLITE_OK);
		free(v);
	}
	/* round 2's row was replaced (INSERT OR REPLACE) after round 1's: ids out of round order */
	CHECK(sqlite3_exec(db,
			   "INSERT INTO run(id, started_ns, status, boots_each_round) VALUES (1, 0, 'interrupted', 1);"
			   "INSERT INTO variant(id, run_id, name, position) VALUES (1, 1, 'a', 0);"
			   "INSERT INTO boot(id, variant_id, round, status, board) VALUES (7, 1, 1, 'ok', 'b0'), (5, 1, 2, 'ok', 'b1');"
			   "INSERT INTO job(id, run_id, variant_id, seq, round, spec_id, workload, iteration, status) VALUES"
			   " (1, 1, 1, 1, 1, 'w', 'w', 1, 'ok'), (2, 1, 1, 2, 2, 'w', 'w', 2, 'ok'),"
			   " (3, 1, 1, 3, 2, 'w', 'w', 3, 'pending');"
			   "INSERT INTO metric(job_id, name, value, lower_is_better) VALUES (1, 'm', 1, 1), (2, 'm', 2, 1);",
			   NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	CHECK(kvb_store_open(&st, path, KVB_STORE_RW, &err) == KVB_OK); /* migrates */
	one(st->db, "SELECT group_concat(id || ':' || round || ':' || seq || ':' || board, ' ') FROM (SELECT * FROM boot ORDER BY id)",
	    s, sizeof(s));
	CHECK_STR(s, "5:2:2:b1 7:1:1:b0");
	one(st->db, "SELECT count(*) FROM job WHERE boot_id IS NOT NULL", s, sizeof(s));
	CHECK_STR(s, "0");
	one(st->db, "SELECT group_concat(job_id || ':' || boot, ' ') FROM (SELECT * FROM results ORDER BY job_id)", s, sizeof(s));
	CHECK_STR(s, "1:1 2:2");
	/* --resume: round 2 still has a job to run, so its boot was interrupted; round 1's was not */
	CHECK(kvb_store_boots_interrupted(st, 1, &marked, &err) == KVB_OK);
	CHECK(marked == 1);
	/* round 2 boots again: a new row, the variant's third boot */
	{
		struct kvb_boot_row b = { .round = 2, .started_ns = 10, .ready_ns = 20, .status = "ok" };
		CHECK(kvb_store_boot_record(st, 1, &b, &boot, &err) == KVB_OK);
		CHECK(boot > 7);
	}
	one(st->db, "SELECT group_concat(round || ':' || seq || ':' || status, ' ') FROM (SELECT * FROM boot ORDER BY seq)",
	    s, sizeof(s));
	CHECK_STR(s, "1:1:ok 2:2:interrupted 2:3:ok");
	{
		struct kvb_job_outcome o = { .status = "ok", .attempts = 1, .start_ns = 30, .end_ns = 40, .boot_id = boot };
		CHECK(kvb_store_job_commit(st, 1, 3, &o, NULL, NULL, &err) == KVB_OK);
		CHECK(sqlite3_exec(st->db, "INSERT INTO metric(job_id, name, value, lower_is_better) VALUES (3, 'm', 3, 1)",
				   NULL, NULL, NULL) == SQLITE_OK);
	}
	/* the round's old job stays in boot 2 (its round), the new one is in boot 3 */
	one(st->db, "SELECT group_concat(job_id || ':' || round || ':' || boot, ' ') FROM (SELECT * FROM results ORDER BY job_id)",
	    s, sizeof(s));
	CHECK_STR(s, "1:1:1 2:2:2 3:2:3");
	one(st->db, "SELECT group_concat(job_id || ':' || boot || ':' || coalesce(boot_id, '-'), ' ') FROM (SELECT * FROM jobs ORDER BY job_id)",
	    s, sizeof(s));
	{
		char want[64];
		snprintf(want, sizeof(want), "1:1:- 2:2:- 3:3:%lld", (long long)boot);
		CHECK_STR(s, want);
	}
	/* nothing left to run: no boot is marked again */
	CHECK(kvb_store_boots_interrupted(st, 1, &marked, &err) == KVB_OK);
	CHECK(marked == 0);
	kvb_store_close(st);
	{
		char *cmd = kvb_xasprintf("rm -rf '%s'", dir);
		CHECK(system(cmd) == 0);
		free(cmd);
	}
	free(path);
}

static void test_store_migrate__the_capability_not_the_name_gives_the_boot(void)
{
	/* a flasher that installs the kernel boots each round; none installs nothing: one boot */
	CHECK(kvb_flasher_boots_each_round(kvb_flasher_find("qemu")) == 1);
	CHECK(kvb_flasher_boots_each_round(kvb_flasher_find("fastboot")) == 1);
	CHECK(kvb_flasher_boots_each_round(kvb_flasher_find("none")) == 0);
	CHECK(kvb_flasher_boots_each_round(NULL) == 0);
}

#define TESTS                                                                                          \
	T(test_store_migrate__boot_unit_of_an_older_db_is_unchanged)                                   \
	T(test_store_migrate__the_capability_not_the_name_gives_the_boot)                              \
	T(test_store_migrate__0016_status_from_the_jobs_and_no_1970_times)                            \
	T(test_store_migrate__0024_a_resumed_round_is_a_boot_of_its_own)
#include "test_main.h"
