/* Implements the SQLite results store: open, migrate, the statement cache and runner (the run's write path: runlog.c). */
#include "store/store.h"
#include "core/log.h"
#include "core/util.h"
#include "store/energy.h"
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

int kvb_store_db_err(struct kvb_store *s, struct kvb_error *err, const char *what)
{
	return kvb_error_set(err, KVB_ESTORE, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
}

int kvb_store_read_failed(struct kvb_store *s, sqlite3_stmt *q, const char *what, struct kvb_error *err)
{
	int rc = kvb_error_set(err, KVB_ESTORE, "%s: reading %s: %s", s->path, what, sqlite3_errmsg(s->db));
	sqlite3_finalize(q);
	return rc;
}

int kvb_store_exec(struct kvb_store *s, const char *sql, struct kvb_error *err)
{
	char *msg = NULL;
	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, msg ? msg : sqlite3_errmsg(s->db));
		sqlite3_free(msg);
		return KVB_ESTORE;
	}
	return KVB_OK;
}

int kvb_store_begin(struct kvb_store *s, struct kvb_error *err)
{
	return kvb_store_exec(s, "BEGIN IMMEDIATE", err);
}

int kvb_store_commit(struct kvb_store *s, struct kvb_error *err)
{
	return kvb_store_exec(s, "COMMIT", err);
}

void kvb_store_rollback(struct kvb_store *s)
{
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

int kvb_store_schema_known(void)
{
	int n = 0;
	while (kvb_migrations[n].name)
		n++;
	return n;
}

/* *version = the DB's PRAGMA user_version; KVB_ESTORE naming both versions when it is newer than
 * this kvbench's (a newer kvbench wrote it: its views and tables may mean what we cannot know),
 * and KVB_ESTORE when it is 0 on a DB that has kvbench's tables (a .dump copy lost it). */
static int schema_version(struct kvb_store *s, int *version, struct kvb_error *err)
{
	sqlite3_stmt *st;
	int known = kvb_store_schema_known();
	int tables = 0;
	*version = 0;
	/* one statement, one read snapshot: read apart, the version could be another process's before
	 * its first migration committed and the tables its after (0 with tables: a false ".dump copy",
	 * seen under load in test_store_open's concurrent opens) */
	if (sqlite3_prepare_v2(s->db,
			       "SELECT (SELECT user_version FROM pragma_user_version),"
			       " EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'run')",
			       -1, &st, NULL) != SQLITE_OK)
		return kvb_store_db_err(s, err, "reading schema version");
	if (sqlite3_step(st) == SQLITE_ROW) {
		*version = sqlite3_column_int(st, 0);
		tables = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	/* kvbench's tables without a version: a copy through sqlite3's .dump (which does not write
	 * user_version); migrating would re-run 0001 into them, reading would guess the schema */
	if (*version == 0 && tables)
		return kvb_error_set(err, KVB_ESTORE,
				     "%s: holds kvbench's tables but no schema version (PRAGMA user_version is 0, "
				     "as in a copy made with sqlite3's .dump): set the version of the kvbench that "
				     "wrote it (`sqlite3 %s 'PRAGMA user_version = N'`; this kvbench writes %d, see "
				     "`kvbench --version`), or copy DBs with .backup or VACUUM INTO",
				     s->path, s->path, known);
	if (*version > known)
		return kvb_error_set(err, KVB_ESTORE,
				     "%s: results database schema version %d was written by a newer kvbench; this "
				     "kvbench (%s) reads versions up to %d: use a newer kvbench",
				     s->path, *version, KVB_VERSION, known);
	return KVB_OK;
}

/*
 * Applies the migrations this DB lacks, one transaction each. The version is read again inside
 * each write transaction: another process may be migrating the same file (a `kvbench query`
 * polling a DB that `kvbench run` is creating opens it read-write to migrate it), and a version
 * read before BEGIN IMMEDIATE may be stale by the time the lock is ours; applying a migration a
 * second time fails ("view kvbench_schema already exists", seen in CI on 2 Dec).
 */
static int migrate(struct kvb_store *s, struct kvb_error *err)
{
	int version, n = kvb_store_schema_known(), rc;
	if ((rc = schema_version(s, &version, err)) || version >= n)
		return rc;
	for (;;) {
		char pragma[64];
		if ((rc = kvb_store_begin(s, err)))
			return rc;
		if ((rc = schema_version(s, &version, err)) || version >= n) {
			kvb_store_rollback(s);
			return rc;
		}
		if ((rc = kvb_store_exec(s, kvb_migrations[version].sql, err))) {
			kvb_store_rollback(s);
			return kvb_error_prefix(err, "applying %s", kvb_migrations[version].name);
		}
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", version + 1);
		if ((rc = kvb_store_exec(s, pragma, err)) || (rc = kvb_store_commit(s, err))) {
			kvb_store_rollback(s);
			return rc;
		}
	}
}

/*
 * Puts the DB in WAL mode (persistent in the file). Changing the journal mode takes an exclusive
 * lock and SQLite returns SQLITE_BUSY at once, without the busy handler, when another connection
 * holds any lock (processes opening one new DB together: "database is locked"); so it is retried
 * for as long as the busy timeout, and skipped when the file is already in WAL mode.
 */
static int wal_mode(struct kvb_store *s, struct kvb_error *err)
{
	for (int tries = 0;; tries++) {
		sqlite3_stmt *st = NULL;
		int rc = sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st, NULL);
		if (rc == SQLITE_OK)
			rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			sqlite3_finalize(st);
			return KVB_OK;
		}
		sqlite3_finalize(st);
		if ((rc & 0xff) != SQLITE_BUSY || tries >= 1000)
			return kvb_store_db_err(s, err, "setting WAL journal mode");
		usleep(10000);
	}
}

/* Makes the directory that will hold the DB file PATH when it is missing (mkdir -p). */
static int make_parent_dir(const char *path, struct kvb_error *err)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int rc = KVB_OK;
	if (!slash || slash == path)
		return KVB_OK;
	dir = kvb_xstrndup(path, (size_t)(slash - path));
	if (access(dir, F_OK) && kvb_mkdir_p(dir, 0777))
		rc = kvb_error_set(err, KVB_ESTORE, "%s: cannot create the results database's directory %s: %s", path, dir,
				   strerror(errno));
	free(dir);
	return rc;
}

/* PRAGMA user_version of the SQLite file at path, read without writing it; 0 when it has none or
 * cannot be read (kvbench's migrations set it to their count, see migrate()). */
static int user_version_of(const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int v = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

int kvb_store_open(struct kvb_store **out, const char *path, enum kvb_store_mode mode, struct kvb_error *err)
{
	int readonly = mode == KVB_STORE_RO;
	struct kvb_store *s = kvb_xcalloc(1, sizeof(*s));
	int flags = readonly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
	int rc = KVB_OK;

	/* no global allocation counters (a mutex per malloc); refused, harmlessly, once SQLite is initialised */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	s->path = kvb_xstrdup(path);
	s->readonly = readonly;
	s->lock_fd = -1;
	*out = NULL;
	if (readonly && access(path, R_OK)) {
		rc = kvb_error_set(err, KVB_ESTORE, "%s: cannot open results database: %s", path, strerror(errno));
		goto fail;
	}
	struct stat sb;
	/* an empty file is not an older kvbench DB: migrating would write a schema into it; nor is an
	   SQLite file of another program's (no kvbench migration applied: user_version 0) */
	if (readonly && !access(path, W_OK) && !stat(path, &sb) && sb.st_size > 0 && user_version_of(path) > 0) {
		/* A DB written by an older kvbench lacks newer views: migrate it once (schema only,
		 * no result is touched), then open it read-only as asked. */
		struct kvb_store *rw = NULL;
		if (kvb_store_open(&rw, path, KVB_STORE_RW, err) == KVB_OK)
			kvb_store_close(rw);
		kvb_error_clear(err);
	}
	/* `-d out/results.db` as README shows it: a new DB's directory is made (SQLite only makes the file) */
	if (!readonly && (rc = make_parent_dir(path, err)))
		goto fail;
	if (sqlite3_open_v2(path, &s->db, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		rc = kvb_error_set(err, KVB_ESTORE, "%s: cannot open results database: %s", path,
				   s->db ? sqlite3_errmsg(s->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(s->db, 10000);
	sqlite3_extended_result_codes(s->db, 1);
	if (readonly) {
		if ((rc = kvb_store_exec(s, "PRAGMA query_only = 1", err)))
			goto fail;
		/* A read-only open still needs a readable schema: check it is ours. */
		sqlite3_stmt *st;
		int version;
		if (sqlite3_prepare_v2(s->db, "SELECT 1 FROM run LIMIT 1", -1, &st, NULL) != SQLITE_OK) {
			rc = kvb_error_set(err, KVB_ESTORE, "%s: not a kvbench results database (%s)", path,
					   sqlite3_errmsg(s->db));
			goto fail;
		}
		sqlite3_finalize(st);
		/* reading is refused too: a newer kvbench's views may not mean what ours do */
		if ((rc = schema_version(s, &version, err)))
			goto fail;
	} else {
		if ((rc = wal_mode(s, err)) ||
		    (rc = kvb_store_exec(s, "PRAGMA synchronous = NORMAL", err)) ||
		    (rc = kvb_store_exec(s, "PRAGMA foreign_keys = ON", err)) || (rc = migrate(s, err)))
			goto fail;
	}
	*out = s;
	return KVB_OK;
fail:
	kvb_store_close(s);
	return rc;
}

void kvb_store_close(struct kvb_store *s)
{
	if (!s)
		return;
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	for (size_t i = 0; i < KVB_ARRAY_SIZE(s->stmt_cache); i++)
		sqlite3_finalize(s->stmt_cache[i].st);
	if (s->db)
		sqlite3_close(s->db);
	free(s->path);
	free(s);
}

int kvb_store_lock_runs(struct kvb_store *s, struct kvb_error *err)
{
	char *lp = kvb_xasprintf("%s.lock", s->path), pid[32] = "";
	int fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		kvb_error_set(err, KVB_ESTORE, "%s: cannot create the run lock: %s", lp, strerror(errno));
		free(lp);
		return KVB_ESTORE;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		kvb_error_set(err, KVB_ESTORE, "%s: another kvbench (pid %s) is running a run of this database; "
					     "wait for it or stop it first",
			      s->path, *pid ? pid : "?");
		close(fd);
		free(lp);
		return KVB_ESTORE;
	}
	if (ftruncate(fd, 0) == 0) {
		int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
		if (pwrite(fd, pid, (size_t)n, 0) < 0)
			kvb_debug("cannot write pid to %s", lp);
	}
	s->lock_fd = fd;
	free(lp);
	return KVB_OK;
}

char *kvb_store_artifact_dir(const struct kvb_store *s, int64_t run_id)
{
	char *top = kvb_xasprintf("%s.d", s->path), *d = kvb_xasprintf("%s/run-%lld", top, (long long)run_id);
	/* <db>.d may be the user's link to a bigger disk; what kvbench makes below it may not be a link */
	int failed = kvb_mkdir_p(top, 0755) || kvb_mkdir_nofollow(d, 0755), saved = errno;
	free(top);
	if (failed) {
		free(d);
		errno = saved;
		return NULL;
	}
	{
		/* absolute, so hooks (run from the platform directory) and stored artifact paths do not depend on cwd */
		char *abs = realpath(d, NULL);
		if (abs) {
			free(d);
			d = abs;
		}
	}
	return d;
}

/* Prepares, binds varargs by type letters (i=int64, t=text or NULL, d=double), steps, finalizes. */
/*
 * The prepared statement for sql, from the store's cache (reset, bindings
 * cleared) or newly prepared and cached in the first free slot. *cached says
 * whether the caller must reset rather than finalize it. NULL on a prepare error.
 */
static sqlite3_stmt *stmt_get(struct kvb_store *s, const char *sql, int *cached)
{
	sqlite3_stmt *st = NULL;
	size_t i;
	for (i = 0; i < KVB_ARRAY_SIZE(s->stmt_cache) && s->stmt_cache[i].st; i++)
		if (!strcmp(s->stmt_cache[i].sql, sql)) {
			*cached = 1;
			sqlite3_clear_bindings(s->stmt_cache[i].st);
			return s->stmt_cache[i].st;
		}
	if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK)
		return NULL;
	*cached = i < KVB_ARRAY_SIZE(s->stmt_cache);
	if (*cached) {
		s->stmt_cache[i].sql = sql; /* callers pass string literals */
		s->stmt_cache[i].st = st;
	}
	return st;
}

int kvb_store_write(struct kvb_store *s, struct kvb_error *err, int64_t *rowid, const char *sql, const char *types, ...)
{
	sqlite3_stmt *st;
	va_list ap;
	int rc, cached = 0;
	if (!(st = stmt_get(s, sql, &cached)))
		return kvb_store_db_err(s, err, "preparing statement");
	va_start(ap, types);
	for (int i = 0; types[i]; i++) {
		switch (types[i]) {
		case 'i': sqlite3_bind_int64(st, i + 1, va_arg(ap, int64_t)); break;
		case 'd': {
			double d = va_arg(ap, double);
			if (isnan(d))
				sqlite3_bind_null(st, i + 1);
			else
				sqlite3_bind_double(st, i + 1, d);
			break;
		}
		default: {
			const char *t = va_arg(ap, const char *);
			/* STATIC: the statement is reset (or finalized) before this call returns */
			if (t)
				sqlite3_bind_text(st, i + 1, t, -1, SQLITE_STATIC);
			else
				sqlite3_bind_null(st, i + 1);
		}
		}
	}
	va_end(ap);
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		/* the message first: reset/finalize keep it, but say so explicitly */
		int erc = kvb_store_db_err(s, err, "writing");
		if (cached)
			sqlite3_reset(st);
		else
			sqlite3_finalize(st);
		return erc;
	}
	if (cached)
		sqlite3_reset(st);
	else
		sqlite3_finalize(st);
	if (rowid)
		*rowid = sqlite3_last_insert_rowid(s->db);
	return KVB_OK;
}

