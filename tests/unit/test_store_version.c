/*
 * Unit tests: the results database's schema version (issue 31). A new DB reads its version
 * with a query (the kvbench_schema view) and it is the number of embedded migrations; a DB
 * from a newer kvbench is refused by a read-write and by a read-only open, the message naming
 * both versions, and the file is left as it was.
 */
#include "test.h"

#include "core/util.h"
#include "store/schema.h"
#include "store/store.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int count_migrations(void)
{
	int n = 0;
	while (kvb_migrations[n].name)
		n++;
	return n;
}

static int query_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int v = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -2;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void remove_db(const char *dir, const char *path)
{
	char *wal = kvb_xasprintf("%s-wal", path), *shm = kvb_xasprintf("%s-shm", path);
	unlink(path);
	unlink(wal);
	unlink(shm);
	free(wal);
	free(shm);
	rmdir(dir);
}

static void test_store_version__a_query_reads_the_schema_version(void)
{
	char dir[] = "/tmp/kvb-version-XXXXXX";
	struct kvb_store *s = NULL;
	struct kvb_error err;
	char *path;
	CHECK(mkdtemp(dir) != NULL);
	path = kvb_xasprintf("%s/new.db", dir);
	CHECK(kvb_store_open(&s, path, KVB_STORE_RW, &err) == KVB_OK);
	CHECK(kvb_store_schema_known() == count_migrations());
	if (s) {
		CHECK(query_int(s->db, "SELECT version FROM kvbench_schema") == count_migrations());
		CHECK(query_int(s->db, "PRAGMA user_version") == count_migrations());
		kvb_store_close(s);
	}
	/* and through a read-only open, as `kvbench query` reads it */
	s = NULL;
	CHECK(kvb_store_open(&s, path, KVB_STORE_RO, &err) == KVB_OK);
	if (s)
		CHECK(query_int(s->db, "SELECT version FROM kvbench_schema") == count_migrations());
	kvb_store_close(s);
	remove_db(dir, path);
	free(path);
}

static void test_store_version__a_newer_db_is_refused_naming_both_versions(void)
{
	char dir[] = "/tmp/kvb-version-XXXXXX";
	struct kvb_store *s = NULL;
	struct kvb_error err;
	char *path, *newer, *want;
	int n = count_migrations();
	sqlite3 *db;
	CHECK(mkdtemp(dir) != NULL);
	path = kvb_xasprintf("%s/newer.db", dir);
	CHECK(kvb_store_open(&s, path, KVB_STORE_RW, &err) == KVB_OK);
	kvb_store_close(s);
	/* what a kvbench with one more migration leaves */
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	newer = kvb_xasprintf("PRAGMA user_version = %d", n + 1);
	CHECK(sqlite3_exec(db, newer, NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	want = kvb_xasprintf("%s: results database schema version %d was written by a newer kvbench; this kvbench (%s) "
			     "reads versions up to %d: use a newer kvbench",
			     path, n + 1, KVB_VERSION, n);

	s = NULL;
	CHECK(kvb_store_open(&s, path, KVB_STORE_RW, &err) == KVB_ESTORE);
	CHECK(s == NULL);
	CHECK_STR(err.msg, want);
	/* reading is refused too (it used to fall through to a read-only open that read on) */
	s = NULL;
	CHECK(kvb_store_open(&s, path, KVB_STORE_RO, &err) == KVB_ESTORE);
	CHECK(s == NULL);
	CHECK_STR(err.msg, want);
	/* and nothing was written to it */
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(query_int(db, "PRAGMA user_version") == n + 1);
	sqlite3_close(db);
	remove_db(dir, path);
	free(want);
	free(newer);
	free(path);
}

/* sqlite3's .dump writes no PRAGMA user_version: a DB restored from it has kvbench's tables at
 * version 0. Migrating re-ran 0001 into them ("table run already exists"); reading went on. */
static void test_store_version__tables_without_a_version_are_refused_saying_why(void)
{
	char dir[] = "/tmp/kvb-version-XXXXXX";
	struct kvb_store *s = NULL;
	struct kvb_error err;
	char *path;
	sqlite3 *db;
	CHECK(mkdtemp(dir) != NULL);
	path = kvb_xasprintf("%s/dumped.db", dir);
	CHECK(kvb_store_open(&s, path, KVB_STORE_RW, &err) == KVB_OK);
	kvb_store_close(s);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "PRAGMA user_version = 0", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	s = NULL;
	CHECK(kvb_store_open(&s, path, KVB_STORE_RW, &err) == KVB_ESTORE);
	CHECK_CONTAINS(err.msg, "holds kvbench's tables but no schema version (PRAGMA user_version is 0, as in a copy "
				"made with sqlite3's .dump)");
	s = NULL;
	CHECK(kvb_store_open(&s, path, KVB_STORE_RO, &err) == KVB_ESTORE);
	CHECK(s == NULL);
	CHECK_CONTAINS(err.msg, "no schema version");
	/* the version set by hand, it opens again */
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	{
		char *v = kvb_xasprintf("PRAGMA user_version = %d", count_migrations());
		CHECK(sqlite3_exec(db, v, NULL, NULL, NULL) == SQLITE_OK);
		free(v);
	}
	sqlite3_close(db);
	s = NULL;
	CHECK(kvb_store_open(&s, path, KVB_STORE_RW, &err) == KVB_OK);
	kvb_store_close(s);
	remove_db(dir, path);
	free(path);
}

#define TESTS                                                                                          \
	T(test_store_version__a_query_reads_the_schema_version)                                        \
	T(test_store_version__a_newer_db_is_refused_naming_both_versions)                              \
	T(test_store_version__tables_without_a_version_are_refused_saying_why)
#include "test_main.h"
