/* Implements the KCIDB export of a run (kcidb.h). */
#include "store/kcidb.h"
#include "core/buf.h"
#include "core/util.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KCIDB_MAJOR 5
#define KCIDB_MINOR 3

/* RFC 3339 UTC with microseconds ("2020-08-14T23:08:06.967000+00:00"), KCIDB's format. */
static void iso_time(int64_t ns, char out[40])
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;
	size_t n;
	gmtime_r(&t, &tm);
	n = strftime(out, 40, "%Y-%m-%dT%H:%M:%S", &tm); /* 19 characters */
	snprintf(out + n, 40 - n, ".%06ld+00:00", (long)((ns % 1000000000) / 1000));
}

/* A path segment of KCIDB's tree: [a-zA-Z0-9_-]+ (anything else becomes '_'). */
static void add_segment(struct kvb_buf *b, const char *s)
{
	if (!*s)
		kvb_buf_addc(b, '_');
	for (; *s; s++)
		kvb_buf_addc(b, (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
					*s == '-'
				? *s
				: '_');
}

static const char *col(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

static void add_str(cJSON *o, const char *k, const char *v)
{
	if (v && *v)
		cJSON_AddStringToObject(o, k, v);
}

static int db_fail(struct kvb_store *s, sqlite3_stmt *st, struct kvb_error *err)
{
	int rc = kvb_error_set(err, KVB_ESTORE, "%s: KCIDB export: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
	return rc;
}

/* The job's classifiers as an object (job-level, or a metric's own with metric_id). */
static cJSON *classifiers(struct kvb_store *s, int64_t job_id, int64_t metric_id)
{
	sqlite3_stmt *st = NULL;
	cJSON *o = cJSON_CreateObject();
	if (sqlite3_prepare_v2(s->db,
			       metric_id ? "SELECT key, value FROM classifier WHERE metric_id = ? ORDER BY key"
					 : "SELECT key, value FROM classifier WHERE job_id = ? AND metric_id IS NULL ORDER BY key",
			       -1, &st, NULL) != SQLITE_OK)
		return o;
	sqlite3_bind_int64(st, 1, metric_id ? metric_id : job_id);
	while (sqlite3_step(st) == SQLITE_ROW)
		cJSON_AddStringToObject(o, col(st, 0), col(st, 1) ? col(st, 1) : "");
	sqlite3_finalize(st);
	return o;
}

/* What every object of one run's export names: set by run_header, platform owned. */
struct kcidb_run {
	int64_t run;
	const char *origin;
	char prefix[320];  /* ORIGIN:HOST/RUN-START-NS, the start of every id */
	char t0[40];       /* the run's start (iso_time) */
	char *platform;
};

/* One job's test as its metrics repeat it: ids, times and environment (owned by export_job). */
struct kcidb_job {
	int64_t job, s0, s1;  /* kvbench's job id; its start and end, ns (s0 <= 0: never started) */
	char build[400], jid[480], ts[40];
	const char *path;     /* "kvbench.WORKLOAD" */
	const cJSON *env;
};

/* The run's start, platform and host, from the DB: ids are the same whoever exports them, and later. */
static int run_header(struct kvb_store *s, int64_t run, const char *origin, struct kcidb_run *k, struct kvb_error *err)
{
	sqlite3_stmt *st = NULL;
	int64_t started = 0;
	char host[256] = "";

	k->run = run;
	k->origin = origin;
	k->platform = NULL;
	if (sqlite3_prepare_v2(s->db, "SELECT started_ns, platform, hostname FROM run WHERE id = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_fail(s, st, err);
	sqlite3_bind_int64(st, 1, run);
	if (sqlite3_step(st) == SQLITE_ROW) {
		started = sqlite3_column_int64(st, 0);
		k->platform = kvb_xstrdup(col(st, 1) ? col(st, 1) : "");
		snprintf(host, sizeof(host), "%s", col(st, 2) ? col(st, 2) : "");
	}
	sqlite3_finalize(st);
	if (!k->platform)
		return kvb_error_set(err, KVB_ENOTFOUND, "%s: no run %lld", s->path, (long long)run);
	snprintf(k->prefix, sizeof(k->prefix), "%s:%s/%lld", origin, host, (long long)started);
	iso_time(started, k->t0);
	return KVB_OK;
}

/* The checkout of the variant row at st (export_variants' columns), id its id. */
static cJSON *variant_checkout(sqlite3_stmt *st, const struct kcidb_run *k, const char *id)
{
	cJSON *ck = cJSON_CreateObject(), *misc = cJSON_CreateObject();
	char c[512];
	cJSON_AddStringToObject(ck, "id", id);
	cJSON_AddStringToObject(ck, "origin", k->origin);
	if (col(st, 8) && strlen(col(st, 8)) == 40)
		cJSON_AddStringToObject(ck, "git_commit_hash", col(st, 8));
	add_str(ck, "git_commit_name", col(st, 9));
	add_str(ck, "git_commit_message", col(st, 10));
	cJSON_AddStringToObject(ck, "start_time", k->t0);
	cJSON_AddTrueToObject(ck, "valid");
	snprintf(c, sizeof(c), "variant %s of kvbench run %lld on %s", col(st, 1), (long long)k->run, k->platform);
	cJSON_AddStringToObject(ck, "comment", c);
	cJSON_AddStringToObject(misc, "variant", col(st, 1));
	cJSON_AddNumberToObject(misc, "kvbench_run", (double)k->run);
	add_str(misc, "repository", col(st, 15));
	cJSON_AddItemToObject(ck, "misc", misc);
	return ck;
}

/* The build of the variant row at st (export_variants' columns): the checkout id's kernel as booted. */
static cJSON *variant_build(sqlite3_stmt *st, const struct kcidb_run *k, const char *id)
{
	cJSON *bd = cJSON_CreateObject(), *misc = cJSON_CreateObject();
	cJSON_AddStringToObject(bd, "id", id);
	cJSON_AddStringToObject(bd, "checkout_id", id);
	cJSON_AddStringToObject(bd, "origin", k->origin);
	cJSON_AddStringToObject(bd, "start_time", k->t0);
	add_str(bd, "config_name", col(st, 11));
	add_str(bd, "compiler", col(st, 12));
	if (sqlite3_column_type(st, 13) != SQLITE_NULL)
		cJSON_AddNumberToObject(bd, "duration", sqlite3_column_double(st, 13));
	if (col(st, 8)) /* kvbench built it: the build's own status */
		cJSON_AddStringToObject(bd, "status", col(st, 14) ? "FAIL" : "PASS");
	add_str(misc, "kernel", col(st, 2));
	add_str(misc, "kernel_sha256", col(st, 3));
	add_str(misc, "boot_image", col(st, 16));
	add_str(misc, "boot_image_sha256", col(st, 17));
	add_str(misc, "cmdline", col(st, 4));
	add_str(misc, "release", col(st, 7));
	add_str(misc, "variant_status", col(st, 5));
	add_str(misc, "variant_error", col(st, 6));
	cJSON_AddItemToObject(bd, "misc", misc);
	return bd;
}

/* The run's variants: a checkout and a build each. */
static int export_variants(struct kvb_store *s, const struct kcidb_run *k, cJSON *checkouts, cJSON *builds,
			   struct kvb_error *err)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT v.position, v.name, v.kernel, v.kernel_sha256, v.cmdline, v.status, v.error,"
			       " v.expected_release, b.commit_sha, b.describe, b.subject, b.config_hash, b.toolchain,"
			       " b.build_s, b.error, b.repo, v.boot_image, v.boot_image_sha256"
			       " FROM variant v LEFT JOIN variant_build b ON b.variant_id = v.id WHERE v.run_id = ?"
			       " ORDER BY v.position",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(s, st, err);
	sqlite3_bind_int64(st, 1, k->run);
	while (sqlite3_step(st) == SQLITE_ROW) {
		char id[400];
		snprintf(id, sizeof(id), "%s/v%d", k->prefix, sqlite3_column_int(st, 0));
		cJSON_AddItemToArray(checkouts, variant_checkout(st, k, id));
		cJSON_AddItemToArray(builds, variant_build(st, k, id));
	}
	sqlite3_finalize(st);
	return KVB_OK;
}

/* The environment of the job row at st (export_jobs' columns): the board the boot ran on. */
static cJSON *job_environment(sqlite3_stmt *st, const char *platform)
{
	cJSON *env = cJSON_CreateObject(), *emisc = cJSON_CreateObject();
	char c[300];
	snprintf(c, sizeof(c), "board %s, boot %d", col(st, 12) ? col(st, 12) : platform, sqlite3_column_int(st, 5));
	cJSON_AddStringToObject(env, "comment", c);
	add_str(emisc, "board", col(st, 12));
	add_str(emisc, "platform", platform);
	cJSON_AddNumberToObject(emisc, "boot", sqlite3_column_int(st, 5));
	add_str(emisc, "lava_job", col(st, 13));
	add_str(emisc, "running_release", col(st, 14));
	cJSON_AddItemToObject(env, "misc", emisc);
	return env;
}

/* Each metric of a job that measured (mt: export_jobs' metric query): a DONE test with its number. */
static void export_metrics(struct kvb_store *s, const struct kcidb_run *k, sqlite3_stmt *mt, const struct kcidb_job *j,
			   cJSON *tests)
{
	sqlite3_reset(mt);
	sqlite3_bind_int64(mt, 1, j->job);
	while (sqlite3_step(mt) == SQLITE_ROW) {
		int64_t mid = sqlite3_column_int64(mt, 0);
		cJSON *m = cJSON_CreateObject(), *num = cJSON_CreateObject(), *mc = classifiers(s, j->job, mid), *misc;
		struct kvb_buf mp = KVB_BUF_INIT, id = KVB_BUF_INIT;
		kvb_buf_adds(&mp, j->path);
		kvb_buf_addc(&mp, '.');
		add_segment(&mp, col(mt, 1));
		kvb_buf_addf(&id, "%s/%s", j->jid, col(mt, 1));
		for (const cJSON *kv = mc->child; kv; kv = kv->next) {
			kvb_buf_addc(&mp, '.');
			add_segment(&mp, kv->valuestring);
			kvb_buf_addf(&id, "/%s=%s", kv->string, kv->valuestring);
		}
		cJSON_AddStringToObject(m, "id", id.data);
		cJSON_AddStringToObject(m, "build_id", j->build);
		cJSON_AddStringToObject(m, "origin", k->origin);
		cJSON_AddStringToObject(m, "path", mp.data);
		cJSON_AddStringToObject(m, "status", "DONE");
		cJSON_AddNumberToObject(num, "value", sqlite3_column_double(mt, 2));
		if (col(mt, 3) && *col(mt, 3))
			cJSON_AddStringToObject(num, "unit", col(mt, 3));
		cJSON_AddItemToObject(m, "number", num);
		if (j->s0 > 0) {
			cJSON_AddStringToObject(m, "start_time", j->ts);
			if (j->s1 >= j->s0)
				cJSON_AddNumberToObject(m, "duration", (double)(j->s1 - j->s0) / 1e9);
		}
		cJSON_AddItemToObject(m, "environment", cJSON_Duplicate(j->env, 1));
		misc = cJSON_CreateObject();
		cJSON_AddNumberToObject(misc, "kvbench_job", (double)j->job);
		cJSON_AddBoolToObject(misc, "lower_is_better", sqlite3_column_int(mt, 4));
		cJSON_AddItemToObject(misc, "classifiers", mc);
		cJSON_AddItemToObject(m, "misc", misc);
		cJSON_AddItemToArray(tests, m);
		kvb_buf_release(&mp);
		kvb_buf_release(&id);
	}
}

/* The job row at st (export_jobs' columns) as a test, then its metrics (mt) when it measured. */
static void export_job(struct kvb_store *s, const struct kcidb_run *k, sqlite3_stmt *st, sqlite3_stmt *mt, cJSON *tests)
{
	struct kcidb_job j = { .job = sqlite3_column_int64(st, 0), .s0 = sqlite3_column_int64(st, 8),
			       .s1 = sqlite3_column_int64(st, 9) };
	const char *status = col(st, 6), *kstatus;
	struct kvb_buf path = KVB_BUF_INIT;
	cJSON *t = cJSON_CreateObject(), *env, *misc;
	snprintf(j.build, sizeof(j.build), "%s/v%d", k->prefix, sqlite3_column_int(st, 10));
	snprintf(j.jid, sizeof(j.jid), "%s/job%d", k->prefix, sqlite3_column_int(st, 1));
	/* a warm-up job that ran passes; its metrics are never compared (docs/design.md#noise): none exported */
	int warmup = !strcmp(status, "warmup");
	kstatus = !strcmp(status, "ok") || warmup ? "PASS" : !strcmp(status, "instrument-failed") ? "DONE"
		  : !strcmp(status, "skipped")                                                   ? "SKIP"
												   : "ERROR";
	kvb_buf_adds(&path, "kvbench.");
	add_segment(&path, col(st, 2));
	env = job_environment(st, k->platform);

	cJSON_AddStringToObject(t, "id", j.jid);
	cJSON_AddStringToObject(t, "build_id", j.build);
	cJSON_AddStringToObject(t, "origin", k->origin);
	cJSON_AddStringToObject(t, "path", path.data);
	cJSON_AddStringToObject(t, "status", kstatus);
	if (j.s0 > 0) {
		iso_time(j.s0, j.ts);
		cJSON_AddStringToObject(t, "start_time", j.ts);
		if (j.s1 >= j.s0)
			cJSON_AddNumberToObject(t, "duration", (double)(j.s1 - j.s0) / 1e9);
	}
	add_str(t, "comment", col(st, 7));
	cJSON_AddItemToObject(t, "environment", cJSON_Duplicate(env, 1));
	misc = cJSON_CreateObject();
	cJSON_AddNumberToObject(misc, "kvbench_job", (double)j.job);
	cJSON_AddStringToObject(misc, "spec", col(st, 3));
	cJSON_AddStringToObject(misc, "variant", col(st, 11));
	cJSON_AddNumberToObject(misc, "iteration", sqlite3_column_int(st, 4));
	if (warmup)
		cJSON_AddBoolToObject(misc, "warmup", 1);
	cJSON_AddItemToObject(misc, "classifiers", classifiers(s, j.job, 0));
	cJSON_AddItemToObject(t, "misc", misc);
	cJSON_AddItemToArray(tests, t);

	j.path = path.data;
	j.env = env;
	if (!warmup && strcmp(kstatus, "ERROR") && strcmp(kstatus, "SKIP"))
		export_metrics(s, k, mt, &j, tests);
	cJSON_Delete(env);
	kvb_buf_release(&path);
}

/* The run's finished jobs and their metrics, as tests. */
static int export_jobs(struct kvb_store *s, const struct kcidb_run *k, cJSON *tests, struct kvb_error *err)
{
	sqlite3_stmt *st = NULL, *mt = NULL;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT j.id, j.seq, j.workload, j.spec_id, j.iteration, j.round, j.status, j.error, j.start_ns,"
			       " j.end_ns, v.position, v.name, b.board, b.lava_url, b.running_release"
			       " FROM job j JOIN variant v ON v.id = j.variant_id"
			       /* the job's own boot; a job stored before 0024 has none: its round's last boot */
			       " LEFT JOIN boot b ON b.id = coalesce(j.boot_id, (SELECT max(id) FROM boot"
			       "  WHERE variant_id = j.variant_id AND round = j.round))"
			       " WHERE j.run_id = ? AND j.status NOT IN ('pending', 'running') ORDER BY j.seq",
			       -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "SELECT id, name, value, units, lower_is_better FROM metric WHERE job_id = ? ORDER BY id",
			       -1, &mt, NULL) != SQLITE_OK) {
		sqlite3_finalize(mt);
		return db_fail(s, st, err);
	}
	sqlite3_bind_int64(st, 1, k->run);
	while (sqlite3_step(st) == SQLITE_ROW)
		export_job(s, k, st, mt, tests);
	sqlite3_finalize(st);
	sqlite3_finalize(mt);
	return KVB_OK;
}

/* Checkouts and builds of one run, then its tests. */
static int export_run(struct kvb_store *s, int64_t run, const char *origin, cJSON *checkouts, cJSON *builds,
		      cJSON *tests, struct kvb_error *err)
{
	struct kcidb_run k;
	int rc;
	if ((rc = run_header(s, run, origin, &k, err)))
		return rc;
	if (!(rc = export_variants(s, &k, checkouts, builds, err)))
		rc = export_jobs(s, &k, tests, err);
	free(k.platform);
	return rc;
}

int kvb_kcidb_export(struct kvb_store *s, int64_t run_id, const char *origin, FILE *out, struct kvb_error *err)
{
	cJSON *doc, *ver, *checkouts, *builds, *tests;
	char *text;
	sqlite3_stmt *st = NULL;
	int rc = KVB_OK, any = 0;
	if (!*origin || strspn(origin, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(origin))
		return kvb_error_set(err, KVB_EINPUT, "--origin '%s': KCIDB origins are [a-z0-9_]+", origin);
	doc = cJSON_CreateObject();
	ver = cJSON_CreateObject();
	cJSON_AddNumberToObject(ver, "major", KCIDB_MAJOR);
	cJSON_AddNumberToObject(ver, "minor", KCIDB_MINOR);
	cJSON_AddItemToObject(doc, "version", ver);
	checkouts = cJSON_AddArrayToObject(doc, "checkouts");
	builds = cJSON_AddArrayToObject(doc, "builds");
	tests = cJSON_AddArrayToObject(doc, "tests");
	if (sqlite3_prepare_v2(s->db, "SELECT id FROM run WHERE (?1 = 0 OR id = ?1) AND status <> 'imported' ORDER BY id",
			       -1, &st, NULL) != SQLITE_OK) {
		cJSON_Delete(doc);
		return db_fail(s, st, err);
	}
	sqlite3_bind_int64(st, 1, run_id);
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		any = 1;
		rc = export_run(s, sqlite3_column_int64(st, 0), origin, checkouts, builds, tests, err);
	}
	sqlite3_finalize(st);
	if (!rc && !any)
		rc = run_id ? kvb_error_set(err, KVB_ENOTFOUND, "%s: no run %lld (imported runs are not exported)", s->path,
					    (long long)run_id)
			    : kvb_error_set(err, KVB_EINPUT, "%s: no run to export", s->path);
	if (!rc) {
		text = cJSON_Print(doc);
		fprintf(out, "%s\n", text);
		free(text);
	}
	cJSON_Delete(doc);
	return rc;
}
