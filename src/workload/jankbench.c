/*
 * Implements the Jankbench workload: runs the com.android.benchmark app's
 * tests on an adb target, waits for "BenchmarkDone!" in logcat, pulls the
 * app's results DB and turns its frames into per (test_name, rep) metrics
 * (docs/design.md#metrics; app facts in notes/formats.md; DB reader in jankbench_db.c).
 *
 * Parameters:
 *   test_ids     tests to run: names (list_view, ...) or app ids 0-6, a list
 *                or one string; absent = the app's default (all tests)
 *   test         one test name (WA3 agendas' spelling; not with test_ids)
 *   reps         com.android.benchmark.EXTRA_RUN_COUNT, default 1
 *   apk          local APK installed (push + `pm install -r -g`) when
 *                `pm list packages` lacks com.android.benchmark
 *   timeout_s    budget to wait for the app to finish; default the job timeout
 *   keep_frames  also write jankbench-frames.csv (artifact "jankbench-frames"):
 *                header test_name,rep,frame,total_duration_ms, one row per
 *                frame, frame = 0-based index in ui_results._id order within
 *                its (test_name, rep); for CDF plots. The pulled DB is kept
 *                either way (artifact "jankbench-db").
 *   results_db   path of the results DB on the device. Default:
 *                DATADIR/databases/BenchmarkResults with DATADIR the
 *                `dataDir=` of `dumpsys package com.android.benchmark`
 *                (/data/user/0/... on multi-user builds), else
 *                /data/data/com.android.benchmark. The simulated device of
 *                the tests answers dumpsys with a directory in its sandbox.
 *
 * One job: check the package (install the APK if asked), `logcat -c`,
 * remove the previous DB (and its -wal/-shm/-journal), wake the screen (best
 * effort), `am start -W -S -n com.android.benchmark/.app.RunLocalBenchmarksActivity
 * --eia ...EXTRA_ENABLED_BENCHMARK_IDS 0,1 --ei ...EXTRA_RUN_COUNT N`, then wait
 * in slices of JANK_POLL_MS: logcat until "BenchmarkDone!" (tag BENCH), and
 * between slices `dumpsys activity activities`; once the app has been seen
 * resumed and is no longer, that also ends the wait (a crash or an app that
 * finished without the log line), but then the DB must hold every
 * (test, rep) group asked for. Then `am force-stop` (so no writer is left),
 * pull the DB plus its -wal/-shm files and compute the metrics.
 * Pulling from the app's data directory needs a root adbd (connection.root).
 */
#include "workload/jankbench.h"
#include "workload/jankbench_db.h"
#include "workload/workload.h"
#include "config/platform.h"
#include "core/buf.h"
#include "core/csv_field.h"
#include "core/log.h"
#include "core/util.h"
#include "target/adb.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JANK_PKG "com.android.benchmark"
#define JANK_ACTIVITY JANK_PKG "/.app.RunLocalBenchmarksActivity"
#define JANK_EXTRA_IDS JANK_PKG ".EXTRA_ENABLED_BENCHMARK_IDS"
#define JANK_EXTRA_COUNT JANK_PKG ".EXTRA_RUN_COUNT"
#define JANK_DEFAULT_DATA_DIR "/data/data/" JANK_PKG
#define JANK_DB_REL "databases/BenchmarkResults"
#define JANK_DB_LOCAL "BenchmarkResults"
/* threadtime logcat line of the app's end marker: "... I BENCH   : BenchmarkDone!" */
#define JANK_DONE_RE "BENCH *: BenchmarkDone!"
#define JANK_POLL_MS 2000u
#define JANK_CMD_MS 60000u

extern const struct kvb_workload_ops kvb_workload_jankbench;

const char *const kvb_jankbench_tests[] = {
	"list_view", "image_list_view", "shadow_grid", "low_hitrate_text", "high_hitrate_text", "edit_text",
	"overdraw_test", NULL,
};

static const struct kvb_keydef jank_params[] = {
	{ "test_ids", KVB_T_STRLIST, NULL, NULL, 0,
	  "tests to run, names or app ids 0-6: list_view, image_list_view, shadow_grid, low_hitrate_text, "
	  "high_hitrate_text, edit_text, overdraw_test (default: the app's, all)" },
	{ "test", KVB_T_STR, NULL, NULL, 0, "one test name (WA3 spelling of test_ids)" },
	{ "reps", KVB_T_INT, "1", NULL, KVB_KEY_POSITIVE, "repetitions inside the app (EXTRA_RUN_COUNT); metric classifier rep" },
	{ "apk", KVB_T_STR, NULL, NULL, 0, "Jankbench APK installed when com.android.benchmark is missing" },
	{ "timeout_s", KVB_T_INT, NULL, NULL, KVB_KEY_POSITIVE, "wait for the app to finish, s (default: the job timeout)" },
	{ "keep_frames", KVB_T_BOOL, "false", NULL, 0, "also store per-frame durations as jankbench-frames.csv" },
	{ "results_db", KVB_T_STR, NULL, NULL, 0,
	  "results DB on the device (default: dataDir from dumpsys package, databases/BenchmarkResults)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

int kvb_jankbench_test_id(const cJSON *v)
{
	int64_t n;
	if (cJSON_IsNumber(v)) {
		double d = v->valuedouble;
		return d >= 0 && d <= 6 && floor(d) == d ? (int)d : -1;
	}
	if (!cJSON_IsString(v))
		return -1;
	for (int i = 0; kvb_jankbench_tests[i]; i++)
		if (!strcmp(v->valuestring, kvb_jankbench_tests[i]))
			return i;
	if (!kvb_parse_i64(v->valuestring, &n) && n >= 0 && n <= 6)
		return (int)n;
	return -1;
}

static int bad_test(const cJSON *v, const char *path, struct kvb_diag *d)
{
	char got[96];
	kvb_diag_at(d, path,
		    "unknown Jankbench test %s (known: list_view, image_list_view, shadow_grid, low_hitrate_text, "
		    "high_hitrate_text, edit_text, overdraw_test, or ids 0-6)",
		    kvb_node_describe(v, got, sizeof(got)));
	return 1;
}

int kvb_jankbench_validate(const cJSON *params, const char *path, struct kvb_diag *d)
{
	const cJSON *ids = cJSON_GetObjectItemCaseSensitive(params, "test_ids");
	const cJSON *test = cJSON_GetObjectItemCaseSensitive(params, "test");
	int errors = 0, seen[7] = { 0 };

	if (!cJSON_IsObject(params))
		return 0; /* the key table reports it */
	if (ids && test) {
		kvb_diag_at(d, path, "give one of 'test_ids' and 'test' (test is a single test_ids entry)");
		errors++;
	}
	if (test && kvb_jankbench_test_id(test) < 0) {
		char *p = kvb_path_key(path, "test");
		errors += bad_test(test, p, d);
		free(p);
	}
	if (cJSON_IsString(ids)) {
		char *p = kvb_path_key(path, "test_ids");
		if (kvb_jankbench_test_id(ids) < 0)
			errors += bad_test(ids, p, d);
		free(p);
	} else if (cJSON_IsArray(ids)) {
		char *tp = kvb_path_key(path, "test_ids");
		int i = 0;
		if (!ids->child) {
			kvb_diag_at(d, tp, "empty test list (leave test_ids out to run every test)");
			errors++;
		}
		for (const cJSON *t = ids->child; t; t = t->next, i++) {
			char *p = kvb_path_idx(tp, i);
			int id = kvb_jankbench_test_id(t);
			if (id < 0) {
				errors += bad_test(t, p, d);
			} else if (seen[id]++) {
				kvb_diag_at(d, p, "test '%s' is listed twice", kvb_jankbench_tests[id]);
				errors++;
			}
			free(p);
		}
		free(tp);
	}
	return errors;
}

int kvb_jankbench_foreground(const char *dumpsys, const char *pkg)
{
	size_t plen = strlen(pkg);
	int any = 0;
	for (const char *l = dumpsys; l && *l;) {
		size_t n = strcspn(l, "\n");
		const char *hit = NULL;
		for (const char *p = l; p + 15 <= l + n && !hit; p++)
			if (!strncmp(p, "ResumedActivity", 15))
				hit = p + 15;
		if (hit) {
			/* "mResumedActivity: ActivityRecord{.. u0 pkg/.Act t5}"; "mResumedActivity: null" counts too */
			any = 1;
			for (const char *p = hit; p + plen < l + n; p++)
				if (!strncmp(p, pkg, plen) && p[plen] == '/' && (p == l || p[-1] == ' ' || p[-1] == '{'))
					return 1;
		}
		l += n;
		if (*l)
			l++;
	}
	return any ? 0 : -1;
}

char *kvb_jankbench_data_dir(const char *dumpsys)
{
	for (const char *p = dumpsys ? strstr(dumpsys, "dataDir=") : NULL; p; p = strstr(p + 1, "dataDir=")) {
		const char *v = p + 8;
		size_t n = strcspn(v, " \t\r\n");
		if ((p == dumpsys || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n') && n && v[0] == '/')
			return kvb_xstrndup(v, n);
	}
	return NULL;
}

/* First line of text (at most 300 bytes) for messages. */
static const char *first_line(const char *text, int *len)
{
	while (*text == '\n' || *text == '\r' || *text == ' ')
		text++;
	size_t n = strcspn(text, "\r\n");
	*len = (int)(n > 300 ? 300 : n);
	return text;
}

/* The first line of text that starts with prefix, or NULL. */
static const char *line_starting(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);
	for (const char *l = text; l && *l;) {
		if (!strncmp(l, prefix, n))
			return l;
		l += strcspn(l, "\n");
		if (*l)
			l++;
	}
	return NULL;
}

/* Runs argv on the target with the standard command budget; the result stays in r. */
static int run(struct kvb_job_ctx *ctx, const char *const *argv, struct kvb_exec_result *r, struct kvb_error *err)
{
	return kvb_target_exec(ctx->target, argv, JANK_CMD_MS, r, err);
}

static int package_installed(struct kvb_job_ctx *ctx, int *yes, struct kvb_error *err)
{
	const char *argv[] = { "pm", "list", "packages", JANK_PKG, NULL };
	struct kvb_exec_result r;
	int rc;
	*yes = 0;
	kvb_exec_result_init(&r);
	rc = kvb_target_run_ok(ctx->target, argv, JANK_CMD_MS, &r, err);
	/* pm filters by substring: look for the exact package line */
	for (const char *l = r.out.data; !rc && l && *l;) {
		size_t n = strcspn(l, "\r\n");
		if (n == strlen("package:" JANK_PKG) && !strncmp(l, "package:" JANK_PKG, n))
			*yes = 1;
		l += n;
		while (*l == '\r' || *l == '\n')
			l++;
	}
	kvb_exec_result_release(&r);
	return rc;
}

static int ensure_installed(struct kvb_job_ctx *ctx, const char *apk, struct kvb_error *err)
{
	struct kvb_exec_result r;
	char *remote = NULL;
	int yes = 0, rc, len;
	const char *l;

	if ((rc = package_installed(ctx, &yes, err)) || yes)
		return rc;
	if (!apk)
		return kvb_error_set(err, KVB_ETARGET,
				     "%s is not installed on the device (install Jankbench or give params.apk)", JANK_PKG);
	remote = kvb_xasprintf("%s/jankbench.apk", ctx->remote_dir);
	kvb_exec_result_init(&r);
	if ((rc = kvb_target_push(ctx->target, apk, remote, err)))
		goto out;
	{
		const char *argv[] = { "pm", "install", "-r", "-g", remote, NULL };
		if ((rc = run(ctx, argv, &r, err)))
			goto out;
	}
	/* pm prints "Success" or "Failure [REASON]" (and may still exit 0) */
	if (r.exit_code != 0 || !strstr(r.out.data, "Success")) {
		l = first_line(r.err.len && !strstr(r.out.data, "Failure") ? r.err.data : r.out.data, &len);
		rc = kvb_error_set(err, KVB_ETARGET, "cannot install '%s': pm install said: %.*s", apk, len, l);
		goto out;
	}
	if ((rc = package_installed(ctx, &yes, err)))
		goto out;
	if (!yes)
		rc = kvb_error_set(err, KVB_ETARGET, "installed '%s' but %s is still not listed by pm (wrong APK?)", apk,
				   JANK_PKG);
out:
	kvb_exec_result_release(&r);
	free(remote);
	return rc;
}

/* Device path of the results DB: params.results_db, else from dumpsys package, else the classic path. Owned. */
static char *results_db_path(struct kvb_job_ctx *ctx, const char *param)
{
	const char *argv[] = { "dumpsys", "package", JANK_PKG, NULL };
	struct kvb_exec_result r;
	struct kvb_error e;
	char *dir = NULL, *path;
	if (param)
		return kvb_xstrdup(param);
	kvb_exec_result_init(&r);
	if (!run(ctx, argv, &r, &e) && r.exit_code == 0)
		dir = kvb_jankbench_data_dir(r.out.data);
	kvb_exec_result_release(&r);
	path = kvb_xasprintf("%s/%s", dir ? dir : JANK_DEFAULT_DATA_DIR, JANK_DB_REL);
	free(dir);
	return path;
}

/* Which of the DB's files exist on the device: bit 0 the DB, 1 -wal, 2 -shm, 3 -journal. */
static const char *const db_suffixes[] = { "", "-wal", "-shm", "-journal" };

static int db_files(struct kvb_job_ctx *ctx, const char *db, unsigned *mask, struct kvb_error *err)
{
	struct kvb_strv v = KVB_STRV_INIT;
	struct kvb_exec_result r;
	int rc;
	*mask = 0;
	/* fixed script; the paths travel as arguments */
	kvb_strv_push(&v, "sh");
	kvb_strv_push(&v, "-c");
	kvb_strv_push(&v, "i=0; for f; do [ -e \"$f\" ] && echo $i; i=$((i+1)); done; exit 0");
	kvb_strv_push(&v, "sh");
	for (size_t i = 0; i < KVB_ARRAY_SIZE(db_suffixes); i++)
		kvb_strv_pushf(&v, "%s%s", db, db_suffixes[i]);
	kvb_exec_result_init(&r);
	rc = kvb_target_run_ok(ctx->target, kvb_strv_argv(&v), JANK_CMD_MS, &r, err);
	for (const char *l = r.out.data; !rc && l && *l; l++)
		if (*l >= '0' && *l <= '3')
			*mask |= 1u << (*l - '0');
	kvb_exec_result_release(&r);
	kvb_strv_release(&v);
	return rc;
}

static int remove_old_db(struct kvb_job_ctx *ctx, const char *db, struct kvb_error *err)
{
	struct kvb_strv v = KVB_STRV_INIT;
	struct kvb_exec_result r;
	unsigned mask;
	int rc;
	kvb_strv_push(&v, "rm");
	kvb_strv_push(&v, "-f");
	for (size_t i = 0; i < KVB_ARRAY_SIZE(db_suffixes); i++)
		kvb_strv_pushf(&v, "%s%s", db, db_suffixes[i]);
	kvb_exec_result_init(&r);
	rc = kvb_target_run_ok(ctx->target, kvb_strv_argv(&v), JANK_CMD_MS, &r, err);
	if (!rc && !(rc = db_files(ctx, db, &mask, err)) && mask)
		rc = kvb_error_set(err, KVB_ETARGET, "cannot remove the previous results '%s'", db);
	if (rc)
		kvb_error_prefix(err, "jankbench (removing app data needs a root adbd: connection.root: true)");
	kvb_exec_result_release(&r);
	kvb_strv_release(&v);
	return rc;
}

static void save_text(struct kvb_job_ctx *ctx, const char *name, const char *kind, const char *text)
{
	char *path = kvb_xasprintf("%s/%s", ctx->artifact_dir, name);
	FILE *f = kvb_fopen_nofollow(path);
	if (f) {
		fputs(text, f);
		if (!fclose(f))
			kvb_metrics_artifact(ctx->out, kind, path);
	}
	free(path);
}

static int start_app(struct kvb_job_ctx *ctx, const char *ids, long long reps, struct kvb_buf *log,
		     struct kvb_error *err)
{
	struct kvb_strv v = KVB_STRV_INIT;
	struct kvb_exec_result r;
	int rc, len;
	const char *l;

	kvb_strv_push(&v, "am");
	kvb_strv_push(&v, "start");
	kvb_strv_push(&v, "-W");
	kvb_strv_push(&v, "-S");
	kvb_strv_push(&v, "-n");
	kvb_strv_push(&v, JANK_ACTIVITY);
	if (ids) {
		kvb_strv_push(&v, "--eia");
		kvb_strv_push(&v, JANK_EXTRA_IDS);
		kvb_strv_push(&v, ids);
	}
	kvb_strv_push(&v, "--ei");
	kvb_strv_push(&v, JANK_EXTRA_COUNT);
	kvb_strv_pushf(&v, "%lld", reps);
	kvb_exec_result_init(&r);
	rc = run(ctx, kvb_strv_argv(&v), &r, err);
	kvb_buf_addf(log, "$");
	for (size_t i = 0; i < v.n; i++)
		kvb_buf_addf(log, " %s", v.v[i]);
	kvb_buf_addf(log, "\n%s%s%s", r.out.data, r.err.len ? "--- stderr ---\n" : "", r.err.data);
	if (rc) {
		kvb_error_prefix(err, "am start");
		goto out;
	}
	/* am reports a bad component or intent on a line "Error: ..." (or "Error type N") and may exit 0 */
	l = line_starting(r.out.data, "Error");
	if (!l)
		l = line_starting(r.err.data, "Error");
	if (r.exit_code != 0 || l) {
		l = first_line(l ? l : r.err.len ? r.err.data : r.out.data, &len);
		rc = kvb_error_set(err, KVB_ETARGET, "am start %s failed: %.*s", JANK_ACTIVITY, len, l);
	}
out:
	kvb_exec_result_release(&r);
	kvb_strv_release(&v);
	return rc;
}

/* 1/0/-1 as kvb_jankbench_foreground; -1 too when dumpsys cannot run. */
static int app_foreground(struct kvb_job_ctx *ctx)
{
	const char *argv[] = { "dumpsys", "activity", "activities", NULL };
	struct kvb_exec_result r;
	struct kvb_error e;
	int fg = -1;
	kvb_exec_result_init(&r);
	if (!run(ctx, argv, &r, &e) && r.exit_code == 0)
		fg = kvb_jankbench_foreground(r.out.data, JANK_PKG);
	kvb_exec_result_release(&r);
	return fg;
}

/*
 * Waits until logcat shows the end marker (*how = "done") or the app left the
 * foreground after being seen in it (*how = "left"). KVB_ETARGET on timeout.
 */
static int wait_done(struct kvb_job_ctx *ctx, const char *logcat_path, uint64_t timeout_ms, const char **how,
		     struct kvb_error *err)
{
	uint64_t t0 = kvb_mono_ns(), deadline = t0 + timeout_ms * 1000000ull;
	int seen_fg = 0, matched = 0, rc;

	*how = NULL;
	/* am start -W has returned: the app is up now, and may be gone before the first slice ends */
	seen_fg = app_foreground(ctx) == 1;
	for (;;) {
		uint64_t now = kvb_mono_ns(), left_ms = now < deadline ? (deadline - now) / 1000000ull : 0;
		uint64_t slice = left_ms < JANK_POLL_MS ? left_ms : JANK_POLL_MS;
		int fg;
		/* logcat replays the whole (cleared-at-start) buffer each time, so nothing is missed between slices */
		rc = kvb_adb_logcat_until(ctx->target, logcat_path, JANK_DONE_RE, slice ? slice : 1, &matched, err);
		if (rc)
			return rc;
		if (matched) {
			*how = "done";
			return KVB_OK;
		}
		fg = app_foreground(ctx);
		if (fg == 1)
			seen_fg = 1;
		else if (fg == 0 && seen_fg) {
			*how = "left";
			return KVB_OK;
		}
		if (kvb_mono_ns() >= deadline)
			break;
	}
	return kvb_error_set(err, KVB_ETARGET, "jankbench did not finish within %.1f s (no '%s' in logcat%s)",
			     (double)timeout_ms / 1000.0, "BenchmarkDone!",
			     seen_fg ? "; the app was still in the foreground" : "");
}

static void force_stop(struct kvb_job_ctx *ctx)
{
	const char *argv[] = { "am", "force-stop", JANK_PKG, NULL };
	struct kvb_exec_result r;
	struct kvb_error e;
	kvb_exec_result_init(&r);
	if (run(ctx, argv, &r, &e) || r.exit_code != 0)
		kvb_warn("jankbench: 'am force-stop %s' failed", JANK_PKG);
	kvb_exec_result_release(&r);
}

static int write_frames(struct kvb_job_ctx *ctx, const struct kvb_jank_results *res, struct kvb_error *err)
{
	char *path = kvb_xasprintf("%s/jankbench-frames.csv", ctx->artifact_dir);
	FILE *f = kvb_fopen_nofollow(path);
	int rc = KVB_OK;
	if (!f) {
		rc = kvb_error_set(err, KVB_EINPUT, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	fputs("test_name,rep,frame,total_duration_ms\n", f);
	for (size_t i = 0; i < res->n; i++) {
		const struct kvb_jank_iter *g = &res->v[i];
		for (size_t k = 0; g->frames_ms && k < g->frames; k++) {
			kvb_csv_field(f, g->test_name);
			fprintf(f, ",%lld,%zu,%.17g\n", (long long)g->iteration, k, g->frames_ms[k]);
		}
	}
	if (fclose(f)) {
		rc = kvb_error_set(err, KVB_EINPUT, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	kvb_metrics_artifact(ctx->out, "jankbench-frames", path);
out:
	free(path);
	return rc;
}

/* "0,1,4" from test_ids (or test); NULL when neither is given. *n gets the count. Owned. */
static char *ids_arg(const cJSON *params, size_t *n)
{
	const cJSON *ids = cJSON_GetObjectItemCaseSensitive(params, "test_ids");
	struct kvb_buf b = KVB_BUF_INIT;
	*n = 0;
	if (!ids)
		ids = cJSON_GetObjectItemCaseSensitive(params, "test");
	if (cJSON_IsArray(ids)) {
		for (const cJSON *t = ids->child; t; t = t->next, (*n)++)
			kvb_buf_addf(&b, "%s%d", b.len ? "," : "", kvb_jankbench_test_id(t));
	} else if (ids) {
		kvb_buf_addf(&b, "%d", kvb_jankbench_test_id(ids));
		*n = 1;
	} else {
		return NULL;
	}
	return kvb_buf_detach(&b);
}

/*
 * The tests this job ran (ids "0,1,4"), as the job classifier test_name: the per-test metrics
 * carry their own test_name, but what measures the whole job (energy, util, cpufreq) would
 * otherwise pool the jobs of every spec (list_view with image_list_view): one grouping rule
 * for all of a job's rows.
 */
static void classify_tests(struct kvb_job_ctx *ctx, const char *ids)
{
	struct kvb_buf names = KVB_BUF_INIT;
	const char *p = ids;
	while (*p) {
		long id = strtol(p, (char **)&p, 10);
		kvb_buf_addf(&names, "%s%s", names.len ? "," : "", id >= 0 && id <= 6 ? kvb_jankbench_tests[id] : "?");
		if (*p == ',')
			p++;
		else if (*p)
			break;
	}
	kvb_metrics_job_classify(ctx->out, "test_name", names.data);
	kvb_buf_release(&names);
}

/* Empties the device's log, so that the end marker wait_done looks for is this run's. */
static int clear_logcat(struct kvb_job_ctx *ctx, struct kvb_error *err)
{
	const char *clear[] = { "logcat", "-c", NULL };
	struct kvb_exec_result r;
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_target_run_ok(ctx->target, clear, JANK_CMD_MS, &r, err);
	kvb_exec_result_release(&r);
	return rc;
}

/* Best effort: with the screen off the app renders no frames (WA3 does the same). */
static void wake_screen(struct kvb_job_ctx *ctx)
{
	const char *wake[] = { "input", "keyevent", "KEYCODE_WAKEUP", NULL };
	struct kvb_exec_result r;
	struct kvb_error e;
	kvb_exec_result_init(&r);
	run(ctx, wake, &r, &e);
	kvb_exec_result_release(&r);
}

/* Pulls the results DB and the files of it mask names (db_files) to local_db..., each an artifact. */
static int pull_db(struct kvb_job_ctx *ctx, const char *db, unsigned mask, const char *local_db, struct kvb_error *err)
{
	for (size_t i = 0; i < 3; i++) { /* the DB, -wal, -shm; a -journal is left: it would be a hot journal */
		char *src, *dst;
		int rc;
		if (!(mask & (1u << i)))
			continue;
		src = kvb_xasprintf("%s%s", db, db_suffixes[i]);
		dst = kvb_xasprintf("%s%s", local_db, db_suffixes[i]);
		rc = kvb_target_pull(ctx->target, src, dst, err);
		if (rc)
			kvb_error_prefix(err, "jankbench results (pulling app data needs a root adbd: connection.root: true)");
		else
			kvb_metrics_artifact(ctx->out, "jankbench-db", dst);
		free(src);
		free(dst);
		if (rc)
			return rc;
	}
	return KVB_OK;
}

static int jank_run(struct kvb_job_ctx *ctx, struct kvb_error *err)
{
	const struct kvb_workload_ops *ops = &kvb_workload_jankbench;
	struct kvb_jank_results res = { 0 };
	struct kvb_buf log = KVB_BUF_INIT;
	char *apk = kvb_param_str(ops, ctx->params, "apk");
	char *db_param = kvb_param_str(ops, ctx->params, "results_db");
	char *keep_s = kvb_param_str(ops, ctx->params, "keep_frames");
	char *db = NULL, *ids = NULL, *logcat_path = NULL, *local_db = NULL;
	long long reps = kvb_param_int(ops, ctx->params, "reps");
	long long tmo_s = kvb_param_int(ops, ctx->params, "timeout_s");
	uint64_t timeout_ms = tmo_s > 0 ? (uint64_t)tmo_s * 1000 : ctx->timeout_ms;
	int keep = keep_s && !strcmp(keep_s, "true");
	const char *how = NULL;
	size_t ntests = 0;
	unsigned mask = 0;
	int rc;

	if ((ctx->target->ops->caps & ops->target_caps) != ops->target_caps) {
		const char *pn = ctx->target->plat && ctx->target->plat->name ? ctx->target->plat->name : "?";
		rc = kvb_error_set(err, KVB_EINPUT,
				   "jankbench runs an Android app and needs an adb target; platform '%s' connects with '%s'",
				   pn, ctx->target->ops->name);
		goto out;
	}
	if (reps < 1)
		reps = 1;
	if (!timeout_ms)
		timeout_ms = (uint64_t)ops->default_timeout_s * 1000;
	ids = ids_arg(ctx->params, &ntests);
	if (ids)
		classify_tests(ctx, ids);
	if ((rc = ensure_installed(ctx, apk, err)))
		goto out;
	db = results_db_path(ctx, db_param);
	if ((rc = clear_logcat(ctx, err)) || (rc = remove_old_db(ctx, db, err)))
		goto out;
	wake_screen(ctx);
	rc = start_app(ctx, ids, reps, &log, err);
	save_text(ctx, "jankbench.out", "raw-output", log.data);
	if (rc)
		goto out;
	logcat_path = kvb_xasprintf("%s/logcat.txt", ctx->artifact_dir);
	rc = wait_done(ctx, logcat_path, timeout_ms, &how, err);
	kvb_metrics_artifact(ctx->out, "logcat", logcat_path);
	force_stop(ctx);
	if (rc)
		goto out;
	if (!strcmp(how, "left"))
		kvb_warn("jankbench: the app left the foreground without logging 'BenchmarkDone!'");

	if ((rc = db_files(ctx, db, &mask, err)))
		goto out;
	if (!(mask & 1)) {
		rc = kvb_error_set(err, KVB_ETARGET, "no Jankbench results DB at '%s' on the device after the run%s", db,
				   !strcmp(how, "left") ? " (the app left the foreground without 'BenchmarkDone!')" : "");
		goto out;
	}
	local_db = kvb_xasprintf("%s/%s", ctx->artifact_dir, JANK_DB_LOCAL);
	if ((rc = pull_db(ctx, db, mask, local_db, err)) || (rc = kvb_jankbench_db_read(local_db, keep, &res, err)))
		goto out;
	if (!strcmp(how, "left") && ntests && res.n < ntests * (size_t)reps) {
		rc = kvb_error_set(err, KVB_ETARGET,
				   "the app left the foreground without 'BenchmarkDone!' and its results hold %zu of %zu "
				   "(test, rep) groups",
				   res.n, ntests * (size_t)reps);
		goto out;
	}
	if (keep && (rc = write_frames(ctx, &res, err)))
		goto out;
	kvb_jankbench_metrics_add(ctx->out, &res);
out:
	kvb_jank_results_release(&res);
	kvb_buf_release(&log);
	free(apk);
	free(db_param);
	free(keep_s);
	free(db);
	free(ids);
	free(logcat_path);
	free(local_db);
	return rc;
}

static const char *const jank_needs[] = { "am", "pm", "logcat", "dumpsys", NULL };

/* What it stores (docs/design.md#metrics: metric names are an interface); checked after every job. */
static const struct kvb_metric_decl jank_metrics[] = {
	{ "frames", "count", 0, "frames rendered, per test", 0, NULL },
	{ "frame_duration_mean", "ms", 1, "mean frame duration, per test", 0, NULL },
	{ "frame_duration_max", "ms", 1, "longest frame, per test", 0, NULL },
	{ "frame_duration_p90", "ms", 1, "90th percentile frame duration, per test", 0, NULL },
	{ "frame_duration_p95", "ms", 1, "95th percentile frame duration, per test", 0, NULL },
	{ "frame_duration_p99", "ms", 1, "99th percentile frame duration, per test", 0, NULL },
	{ "jank_pct", "%", 1, "frames over the deadline (jank_frame), per test", 0, NULL },
	{ NULL, NULL, 0, NULL, 0, NULL },
};

/* The report's frame-duration CDFs (keep_frames) show the 60 Hz frame budget. */
static const struct kvb_plot_decl jank_plots[] = {
	{ "frame duration", 16.7, "16.7 ms (60 Hz frame budget)", 0 },
	{ NULL, 0, NULL, 0 },
};

/* WA3's jankbench (wa/workloads/jankbench/__init__.py): its spellings of reps and timeout_s. */
static const struct kvb_wa3_param jank_wa3[] = {
	{ "loops", KVB_WA3_RENAME, "reps", NULL },
	{ "timeout", KVB_WA3_RENAME, "timeout_s", NULL },
	{ "run_timeout", KVB_WA3_RENAME, "timeout_s", NULL },
	{ "pull_results_db", KVB_WA3_DROP, NULL, "has no meaning in kvbench: the results DB is always pulled" },
	{ NULL, 0, NULL, NULL },
};

/* keep_frames' jankbench-frames.csv (test_name,rep,frame,total_duration_ms; written by jank_run): every
 * frame's duration (ms) into set 0, keyed by its test. */
static int read_frames(const char *path, void (*add)(void *arg, size_t set, const char *key, double x), void *arg,
		       char *why, size_t why_len)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	if (!f) {
		snprintf(why, why_len, "%s (%s)", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		/* the last field is the duration; the test name is the first (quoted when it has a comma) */
		char *last = strrchr(line, ','), *first = strchr(line, ',');
		double ms;
		if (!last || !first || !strncmp(line, "test_name,", 10) || kvb_parse_double(strtok(last + 1, "\r\n"), &ms))
			continue;
		*first = '\0';
		if (line[0] == '"' && first > line + 1 && first[-1] == '"') {
			first[-1] = '\0';
			add(arg, 0, line + 1, ms);
		} else {
			add(arg, 0, line, ms);
		}
	}
	fclose(f);
	return 0;
}

static const struct kvb_artifact_plot jank_artifact_plots[] = {
	{ "jankbench-frames", "Jankbench frame durations", "jankbench",
	  "Empirical CDF of every frame's total duration per variant (keep_frames).", "ms",
	  { "frame_duration_mean", NULL }, 1, { "frame duration CDF", NULL }, { "total frame duration (ms)", NULL },
	  read_frames },
	{ NULL, NULL, NULL, NULL, NULL, { NULL, NULL }, 0, { NULL, NULL }, { NULL, NULL }, NULL },
};

const struct kvb_workload_ops kvb_workload_jankbench = {
	.metrics = jank_metrics,
	.plots = jank_plots,
	.artifact_plots = jank_artifact_plots,
	.name = "jankbench",
	.summary = "Jankbench (com.android.benchmark) UI frame times on Android: per test frame_duration_*, jank_pct",
	.params = jank_params,
	.validate = kvb_jankbench_validate,
	.needs = jank_needs,
	.target_caps = KVB_TARGET_ANDROID,
	.default_timeout_s = 1800,
	.run = jank_run,
	.wa3_params = jank_wa3,
};
