/* Implements the SQLite results store: open, migrate, and the run/job write path. */
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

static int db_err(struct kvb_store *s, struct kvb_error *err, const char *what)
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
		return db_err(s, err, "reading schema version");
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
			return db_err(s, err, "setting WAL journal mode");
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
		return db_err(s, err, "preparing statement");
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
		int erc = db_err(s, err, "writing");
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
		return db_err(s, err, "reading the run");
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
		return db_err(s, err, "reading runs");
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
		return db_err(s, err, "reading variants");
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
		rc = db_err(s, err, "preparing plan");
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
			rc = db_err(s, err, "storing the plan");
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
		return db_err(s, err, "reading the plan");
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
		return db_err(s, err, "reading saved knobs");
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
		return db_err(s, err, "reading a run");
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
		src = db_err(s, err, "reading a run");
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

