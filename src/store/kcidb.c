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

/* Checkouts and builds of one run, then its tests. */
static int export_run(struct kvb_store *s, int64_t run, const char *origin, cJSON *checkouts, cJSON *builds,
		      cJSON *tests, struct kvb_error *err)
{
	sqlite3_stmt *st = NULL, *mt = NULL;
	char prefix[320], t0[40];
	int64_t started = 0;
	const char *platform = "";
	char *plat = NULL, host[256] = "";
	int rc = KVB_OK;

	/* the host that ran it, from the DB: ids are the same whoever exports them, and later */
	if (sqlite3_prepare_v2(s->db, "SELECT started_ns, platform, hostname FROM run WHERE id = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_fail(s, st, err);
	sqlite3_bind_int64(st, 1, run);
	if (sqlite3_step(st) == SQLITE_ROW) {
		started = sqlite3_column_int64(st, 0);
		plat = kvb_xstrdup(col(st, 1) ? col(st, 1) : "");
		snprintf(host, sizeof(host), "%s", col(st, 2) ? col(st, 2) : "");
	}
	sqlite3_finalize(st);
	if (!plat)
		return kvb_error_set(err, KVB_ENOTFOUND, "%s: no run %lld", s->path, (long long)run);
	platform = plat;
	snprintf(prefix, sizeof(prefix), "%s:%s/%lld", origin, host, (long long)started);
	iso_time(started, t0);

	/* variants: a checkout and a build each */
	if (sqlite3_prepare_v2(s->db,
			       "SELECT v.position, v.name, v.kernel, v.kernel_sha256, v.cmdline, v.status, v.error,"
			       " v.expected_release, b.commit_sha, b.describe, b.subject, b.config_hash, b.toolchain,"
			       " b.build_s, b.error, b.repo, v.boot_image, v.boot_image_sha256"
			       " FROM variant v LEFT JOIN variant_build b ON b.variant_id = v.id WHERE v.run_id = ?"
			       " ORDER BY v.position",
			       -1, &st, NULL) != SQLITE_OK) {
		free(plat);
		return db_fail(s, st, err);
	}
	sqlite3_bind_int64(st, 1, run);
	while (sqlite3_step(st) == SQLITE_ROW) {
		cJSON *ck = cJSON_CreateObject(), *bd = cJSON_CreateObject(), *misc = cJSON_CreateObject();
		char id[400];
		snprintf(id, sizeof(id), "%s/v%d", prefix, sqlite3_column_int(st, 0));
		cJSON_AddStringToObject(ck, "id", id);
		cJSON_AddStringToObject(ck, "origin", origin);
		if (col(st, 8) && strlen(col(st, 8)) == 40)
			cJSON_AddStringToObject(ck, "git_commit_hash", col(st, 8));
		add_str(ck, "git_commit_name", col(st, 9));
		add_str(ck, "git_commit_message", col(st, 10));
		cJSON_AddStringToObject(ck, "start_time", t0);
		cJSON_AddTrueToObject(ck, "valid");
		{
			char c[512];
			snprintf(c, sizeof(c), "variant %s of kvbench run %lld on %s", col(st, 1), (long long)run, platform);
			cJSON_AddStringToObject(ck, "comment", c);
		}
		cJSON_AddStringToObject(misc, "variant", col(st, 1));
		cJSON_AddNumberToObject(misc, "kvbench_run", (double)run);
		add_str(misc, "repository", col(st, 15));
		cJSON_AddItemToObject(ck, "misc", misc);
		cJSON_AddItemToArray(checkouts, ck);

		cJSON_AddStringToObject(bd, "id", id);
		cJSON_AddStringToObject(bd, "checkout_id", id);
		cJSON_AddStringToObject(bd, "origin", origin);
		cJSON_AddStringToObject(bd, "start_time", t0);
		add_str(bd, "config_name", col(st, 11));
		add_str(bd, "compiler", col(st, 12));
		if (sqlite3_column_type(st, 13) != SQLITE_NULL)
			cJSON_AddNumberToObject(bd, "duration", sqlite3_column_double(st, 13));
		if (col(st, 8)) /* kvbench built it: the build's own status */
			cJSON_AddStringToObject(bd, "status", col(st, 14) ? "FAIL" : "PASS");
		misc = cJSON_CreateObject();
		add_str(misc, "kernel", col(st, 2));
		add_str(misc, "kernel_sha256", col(st, 3));
		add_str(misc, "boot_image", col(st, 16));
		add_str(misc, "boot_image_sha256", col(st, 17));
		add_str(misc, "cmdline", col(st, 4));
		add_str(misc, "release", col(st, 7));
		add_str(misc, "variant_status", col(st, 5));
		add_str(misc, "variant_error", col(st, 6));
		cJSON_AddItemToObject(bd, "misc", misc);
		cJSON_AddItemToArray(builds, bd);
	}
	sqlite3_finalize(st);

	/* jobs and their metrics */
	if (sqlite3_prepare_v2(s->db,
			       "SELECT j.id, j.seq, j.workload, j.spec_id, j.iteration, j.round, j.status, j.error, j.start_ns,"
			       " j.end_ns, v.position, v.name, b.board, b.lava_url, b.running_release"
			       " FROM job j JOIN variant v ON v.id = j.variant_id"
			       " LEFT JOIN boot b ON b.variant_id = j.variant_id AND b.round = j.round"
			       " WHERE j.run_id = ? AND j.status NOT IN ('pending', 'running') ORDER BY j.seq",
			       -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "SELECT id, name, value, units, lower_is_better FROM metric WHERE job_id = ? ORDER BY id",
			       -1, &mt, NULL) != SQLITE_OK) {
		sqlite3_finalize(mt);
		free(plat);
		return db_fail(s, st, err);
	}
	sqlite3_bind_int64(st, 1, run);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t job = sqlite3_column_int64(st, 0), s0 = sqlite3_column_int64(st, 8), s1 = sqlite3_column_int64(st, 9);
		const char *status = col(st, 6), *kstatus;
		char build[400], jid[480], ts[40];
		struct kvb_buf path = KVB_BUF_INIT;
		cJSON *t = cJSON_CreateObject(), *env = cJSON_CreateObject(), *emisc = cJSON_CreateObject(), *misc;
		snprintf(build, sizeof(build), "%s/v%d", prefix, sqlite3_column_int(st, 10));
		snprintf(jid, sizeof(jid), "%s/job%d", prefix, sqlite3_column_int(st, 1));
		/* a warm-up job that ran passes; its metrics are never compared (DESIGN.md §15): none exported */
		int warmup = !strcmp(status, "warmup");
		kstatus = !strcmp(status, "ok") || warmup ? "PASS" : !strcmp(status, "instrument-failed") ? "DONE"
			  : !strcmp(status, "skipped")                                                   ? "SKIP"
														   : "ERROR";
		kvb_buf_adds(&path, "kvbench.");
		add_segment(&path, col(st, 2));
		/* environment: the board the boot ran on */
		{
			char c[300];
			snprintf(c, sizeof(c), "board %s, boot %d", col(st, 12) ? col(st, 12) : platform, sqlite3_column_int(st, 5));
			cJSON_AddStringToObject(env, "comment", c);
		}
		add_str(emisc, "board", col(st, 12));
		add_str(emisc, "platform", platform);
		cJSON_AddNumberToObject(emisc, "boot", sqlite3_column_int(st, 5));
		add_str(emisc, "lava_job", col(st, 13));
		add_str(emisc, "running_release", col(st, 14));
		cJSON_AddItemToObject(env, "misc", emisc);

		cJSON_AddStringToObject(t, "id", jid);
		cJSON_AddStringToObject(t, "build_id", build);
		cJSON_AddStringToObject(t, "origin", origin);
		cJSON_AddStringToObject(t, "path", path.data);
		cJSON_AddStringToObject(t, "status", kstatus);
		if (s0 > 0) {
			iso_time(s0, ts);
			cJSON_AddStringToObject(t, "start_time", ts);
			if (s1 >= s0)
				cJSON_AddNumberToObject(t, "duration", (double)(s1 - s0) / 1e9);
		}
		add_str(t, "comment", col(st, 7));
		cJSON_AddItemToObject(t, "environment", cJSON_Duplicate(env, 1));
		misc = cJSON_CreateObject();
		cJSON_AddNumberToObject(misc, "kvbench_job", (double)job);
		cJSON_AddStringToObject(misc, "spec", col(st, 3));
		cJSON_AddStringToObject(misc, "variant", col(st, 11));
		cJSON_AddNumberToObject(misc, "iteration", sqlite3_column_int(st, 4));
		if (warmup)
			cJSON_AddBoolToObject(misc, "warmup", 1);
		cJSON_AddItemToObject(misc, "classifiers", classifiers(s, job, 0));
		cJSON_AddItemToObject(t, "misc", misc);
		cJSON_AddItemToArray(tests, t);

		/* each metric of a job that measured: DONE with its number */
		sqlite3_reset(mt);
		sqlite3_bind_int64(mt, 1, job);
		while (!warmup && strcmp(kstatus, "ERROR") && strcmp(kstatus, "SKIP") && sqlite3_step(mt) == SQLITE_ROW) {
			int64_t mid = sqlite3_column_int64(mt, 0);
			cJSON *m = cJSON_CreateObject(), *num = cJSON_CreateObject(), *mc = classifiers(s, job, mid);
			struct kvb_buf mp = KVB_BUF_INIT, id = KVB_BUF_INIT;
			kvb_buf_adds(&mp, path.data);
			kvb_buf_addc(&mp, '.');
			add_segment(&mp, col(mt, 1));
			kvb_buf_addf(&id, "%s/%s", jid, col(mt, 1));
			for (const cJSON *kv = mc->child; kv; kv = kv->next) {
				kvb_buf_addc(&mp, '.');
				add_segment(&mp, kv->valuestring);
				kvb_buf_addf(&id, "/%s=%s", kv->string, kv->valuestring);
			}
			cJSON_AddStringToObject(m, "id", id.data);
			cJSON_AddStringToObject(m, "build_id", build);
			cJSON_AddStringToObject(m, "origin", origin);
			cJSON_AddStringToObject(m, "path", mp.data);
			cJSON_AddStringToObject(m, "status", "DONE");
			cJSON_AddNumberToObject(num, "value", sqlite3_column_double(mt, 2));
			if (col(mt, 3) && *col(mt, 3))
				cJSON_AddStringToObject(num, "unit", col(mt, 3));
			cJSON_AddItemToObject(m, "number", num);
			if (s0 > 0) {
				cJSON_AddStringToObject(m, "start_time", ts);
				if (s1 >= s0)
					cJSON_AddNumberToObject(m, "duration", (double)(s1 - s0) / 1e9);
			}
			cJSON_AddItemToObject(m, "environment", cJSON_Duplicate(env, 1));
			misc = cJSON_CreateObject();
			cJSON_AddNumberToObject(misc, "kvbench_job", (double)job);
			cJSON_AddBoolToObject(misc, "lower_is_better", sqlite3_column_int(mt, 4));
			cJSON_AddItemToObject(misc, "classifiers", mc);
			cJSON_AddItemToObject(m, "misc", misc);
			cJSON_AddItemToArray(tests, m);
			kvb_buf_release(&mp);
			kvb_buf_release(&id);
		}
		cJSON_Delete(env);
		kvb_buf_release(&path);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(mt);
	free(plat);
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
