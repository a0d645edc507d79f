/*
 * Integration tests of the Jankbench workload: Debian's real adb client and a
 * private adb server talking to adbd_sim (tests/sim/adbd_sim.c), whose
 * sandbox gets a simulated Jankbench app: `am`, `pm`, `dumpsys` scripts
 * first on the device's PATH (the sim's STATE/bin). `am start` of
 * com.android.benchmark/.app.RunLocalBenchmarksActivity copies a results DB
 * built here with the app's ui_results schema (STATE/fixtures/N.db for the
 * Nth start, else default.db) to the DB path and logs "BenchmarkDone!"
 * (tag BENCH) with the sim's `log`, 0.5 s later. STATE/mode changes that:
 * hang (never finishes), nodb (finishes without a DB), left (leaves the
 * foreground without the log line). `dumpsys package` answers
 * dataDir=ROOT/data/data/com.android.benchmark, so the DB lives in the
 * sandbox; `dumpsys activity activities` shows the app resumed while
 * STATE/fg exists. Every am/pm call is appended to STATE/calls.
 */
#include "test.h"
#include "engine/catalog.h"

#include "adb_fixture.h"

#include "config/platform.h"
#include "core/buf.h"
#include "core/spawn.h"
#include "core/util.h"
#include "target/target.h"
#include "workload/jankbench.h"
#include "workload/workload.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct simdev {
	struct kvb_adbsim a;     /* dir: root/, port, platform.yaml */
	char *root, *state, *db; /* sandbox, sim state dir, results DB path on the device */
};

static void write_file(const char *path, const char *text, int mode)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	chmod(path, (mode_t)mode);
}

static char *read_text(const char *path)
{
	struct kvb_buf b = KVB_BUF_INIT;
	if (kvb_buf_read_file(&b, path))
		return kvb_xstrdup("(unreadable)");
	return kvb_buf_detach(&b);
}

static const char am_sh[] =
	"#!/bin/sh\n"
	"# simulated am: only what the Jankbench workload uses\n"
	"S=$ADBD_SIM_DIR\n"
	"echo \"am $*\" >> \"$S/calls\"\n"
	"case \"$1\" in\n"
	"  force-stop) rm -f \"$S/fg\"; exit 0;;\n"
	"  start) ;;\n"
	"  *) echo \"am: unknown command $1\" >&2; exit 1;;\n"
	"esac\n"
	"case \" $* \" in\n"
	"  *' -n com.android.benchmark/.app.RunLocalBenchmarksActivity '*) ;;\n"
	"  *) echo 'Error: Activity not started, unable to resolve Intent'; exit 0;;\n"
	"esac\n"
	"n=$(( $(cat \"$S/starts\" 2>/dev/null || echo 0) + 1 )); echo $n > \"$S/starts\"\n"
	"fx=\"$S/fixtures/$n.db\"; [ -e \"$fx\" ] || fx=\"$S/fixtures/default.db\"\n"
	"db=$(cat \"$S/dbpath\"); mkdir -p \"${db%/*}\"\n"
	"mode=$(cat \"$S/mode\" 2>/dev/null || echo ok)\n"
	": > \"$S/fg\"\n"
	"echo 'Starting: Intent { cmp=com.android.benchmark/.app.RunLocalBenchmarksActivity (has extras) }'\n"
	"echo 'Status: ok'\n"
	"echo 'Complete'\n"
	"log -t BENCH 'starting benchmarks'\n"
	"case $mode in\n"
	"  ok) (sleep 0.5; cp \"$fx\" \"$db\"; log -t BENCH 'BenchmarkDone!') >/dev/null 2>&1 &;;\n"
	"  nodb) (sleep 0.5; log -t BENCH 'BenchmarkDone!') >/dev/null 2>&1 &;;\n"
	"  left) (sleep 0.5; cp \"$fx\" \"$db\"; rm -f \"$S/fg\") >/dev/null 2>&1 &;;\n"
	"  hang) ;;\n"
	"esac\n"
	"exit 0\n";

static const char pm_sh[] =
	"#!/bin/sh\n"
	"# simulated pm: the app is installed while $ADBD_SIM_DIR/installed exists\n"
	"S=$ADBD_SIM_DIR\n"
	"echo \"pm $*\" >> \"$S/calls\"\n"
	"case \"$1\" in\n"
	"  list)\n"
	"    echo package:com.android.benchmark.helper\n"
	"    [ -e \"$S/installed\" ] && echo package:com.android.benchmark\n"
	"    exit 0;;\n"
	"  install)\n"
	"    for a; do apk=$a; done\n"
	"    if cmp -s \"$apk\" \"$S/good.apk\"; then : > \"$S/installed\"; echo Success; exit 0; fi\n"
	"    echo 'Failure [INSTALL_FAILED_INVALID_APK: not an APK]'; exit 1;;\n"
	"esac\n"
	"echo \"pm: unknown command $1\" >&2; exit 1\n";

static const char dumpsys_sh[] =
	"#!/bin/sh\n"
	"# simulated dumpsys: package com.android.benchmark, activity activities\n"
	"S=$ADBD_SIM_DIR\n"
	"case \"$1 $2\" in\n"
	"  'package com.android.benchmark')\n"
	"    echo 'Packages:'\n"
	"    echo '  Package [com.android.benchmark] (5e1f2a0):'\n"
	"    echo '    userId=10123'\n"
	"    echo \"    dataDir=$(cat \"$S/datadir\")\"\n"
	"    exit 0;;\n"
	"  'activity activities')\n"
	"    echo 'ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)'\n"
	"    if [ -e \"$S/fg\" ]; then\n"
	"      echo '    mResumedActivity: ActivityRecord{8c1d2e u0 com.android.benchmark/.app.RunLocalBenchmarksActivity t41}'\n"
	"    else\n"
	"      echo '    mResumedActivity: ActivityRecord{1a2b3c u0 com.android.launcher3/.uioverrides.QuickstepLauncher t2}'\n"
	"    fi\n"
	"    exit 0;;\n"
	"esac\n"
	"echo \"dumpsys: unknown service $1\" >&2; exit 1\n";

static void state_write(struct simdev *d, const char *name, const char *text, int mode)
{
	char *p = kvb_xasprintf("%s/%s", d->state, name);
	write_file(p, text, mode);
	free(p);
}

static char *state_read(struct simdev *d, const char *name)
{
	char *p = kvb_xasprintf("%s/%s", d->state, name), *t = read_text(p);
	free(p);
	return t;
}

/* Starts adbd_sim with the simulated app installed, writes platform.yaml, opens the target. */
static void sim_start(struct simdev *d)
{
	struct kvb_error e;
	char *p, *datadir, *workdir;

	memset(d, 0, sizeof(*d));
	CHECK(kvb_adbsim_start(&d->a, "/tmp/kvb-jank-XXXXXX", NULL) == 0);
	d->root = kvb_xasprintf("%s/root", d->a.dir);
	d->state = kvb_xasprintf("%s/root/.adbd_sim", d->a.dir);

	/* the simulated app (the sim has created STATE/bin by the time it listens) */
	p = kvb_xasprintf("%s/fixtures", d->state);
	kvb_mkdir_p(p, 0755);
	free(p);
	state_write(d, "bin/am", am_sh, 0755);
	state_write(d, "bin/pm", pm_sh, 0755);
	state_write(d, "bin/dumpsys", dumpsys_sh, 0755);
	state_write(d, "installed", "", 0644);
	datadir = kvb_xasprintf("%s/data/data/com.android.benchmark", d->root);
	state_write(d, "datadir", datadir, 0644);
	d->db = kvb_xasprintf("%s/databases/BenchmarkResults", datadir);
	state_write(d, "dbpath", d->db, 0644);
	free(datadir);

	workdir = kvb_xasprintf("workdir: %s/data/local/tmp/kvbench\n", d->root);
	kvb_adbsim_open(&d->a, "simjank", workdir);
	free(workdir);
	CHECK(d->a.open_rc == 0);
	CHECK(kvb_target_wait_ready(&d->a.t, 20000, &e) == KVB_OK);
}

static int sim_stop(struct simdev *d)
{
	int status = kvb_adbsim_stop(&d->a);
	free(d->root);
	free(d->state);
	free(d->db);
	return status;
}

/* The table as the Jankbench app creates it. */
static const char *const ui_results_schema =
	"CREATE TABLE ui_results (_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, run_id INTEGER,"
	" iteration INTEGER, timestamp TEXT, unknown_delay_duration REAL, input_handling_duration REAL,"
	" animation_duration REAL, layout_measure_duration REAL, draw_duration REAL, sync_duration REAL,"
	" command_issue_duration REAL, swap_buffers_duration REAL, total_duration REAL, jank_frame BOOLEAN)";

struct frame {
	const char *name;
	int rep;
	double ms;
	int jank;
};

static sqlite3 *fixture_open(const char *path, int with_table)
{
	sqlite3 *db = NULL;
	unlink(path);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	if (with_table)
		CHECK(sqlite3_exec(db, ui_results_schema, NULL, NULL, NULL) == SQLITE_OK);
	return db;
}

static void fixture_add(sqlite3 *db, const char *name, int rep, double ms, int jank)
{
	sqlite3_stmt *st;
	CHECK(sqlite3_prepare_v2(db,
				 "INSERT INTO ui_results (name, run_id, iteration, timestamp, unknown_delay_duration,"
				 " input_handling_duration, animation_duration, layout_measure_duration, draw_duration,"
				 " sync_duration, command_issue_duration, swap_buffers_duration, total_duration, jank_frame)"
				 " VALUES (?, 1, ?, '1700000000000', 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, ?, ?)",
				 -1, &st, NULL) == SQLITE_OK);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 2, rep);
	sqlite3_bind_double(st, 3, ms);
	sqlite3_bind_int(st, 4, jank);
	CHECK(sqlite3_step(st) == SQLITE_DONE);
	sqlite3_finalize(st);
}

/*
 * The "known" results (test_ids [list_view, shadow_grid], reps 2):
 *   list_view rep 0: 1..100 ms inserted 100 down to 1, jank when > 16 ms: mean 50.5, max 100,
 *                    p99 99.01 (gsl: x[98] + 0.01 * (x[99] - x[98])), jank 84 %
 *   list_view rep 1: 10, 20, 30, 40 ms, jank 0 1 1 1: mean 25, max 40, p99 39.7, jank 75 %
 *   shadow_grid rep 0: 8, 24 ms, jank 0 1: mean 16, max 24, p99 23.84, jank 50 %
 *   shadow_grid rep 1: 12.5 ms, no jank
 */
static void write_known_fixture(struct simdev *d, const char *name)
{
	char *p = kvb_xasprintf("%s/fixtures/%s", d->state, name);
	sqlite3 *db = fixture_open(p, 1);
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	for (int ms = 100; ms >= 1; ms--) {
		fixture_add(db, "list_view", 0, ms, ms > 16);
		if (ms == 50) { /* groups interleave in _id order, as in a real DB of several runs */
			fixture_add(db, "shadow_grid", 0, 8, 0);
			fixture_add(db, "list_view", 1, 10, 0);
		}
	}
	fixture_add(db, "list_view", 1, 20, 1);
	fixture_add(db, "list_view", 1, 30, 1);
	fixture_add(db, "list_view", 1, 40, 1);
	fixture_add(db, "shadow_grid", 0, 24, 1);
	fixture_add(db, "shadow_grid", 1, 12.5, 0);
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(db);
	free(p);
}

/* Runs the jankbench workload once on d with params (JSON). Metrics in m, error in err. */
static int run_job(struct simdev *d, const char *params_json, uint64_t job_timeout_ms, struct kvb_metrics *m,
		   struct kvb_error *err, char **artdir)
{
	const struct kvb_workload_ops *ops = kvb_workload_find("jankbench");
	cJSON *params = cJSON_Parse(params_json);
	struct kvb_job_ctx ctx;
	char *rdir = kvb_xasprintf("%s/data/local/tmp/kvbench/job", d->root);
	int rc;
	static int n;
	*artdir = kvb_xasprintf("%s/art%d", d->a.dir, ++n);
	kvb_mkdir_p(*artdir, 0755);
	kvb_mkdir_p(rdir, 0755);
	CHECK(ops != NULL);
	CHECK(params != NULL);
	memset(&ctx, 0, sizeof(ctx));
	ctx.ops = ops;
	ctx.target = &d->a.t;
	ctx.params = params;
	ctx.artifact_dir = *artdir;
	ctx.remote_dir = rdir;
	ctx.timeout_ms = job_timeout_ms;
	ctx.out = m;
	rc = ops->run(&ctx, err);
	cJSON_Delete(params);
	free(rdir);
	return rc;
}

static const struct kvb_metric *find_metric(const struct kvb_metrics *m, const char *name, const char *test,
					    const char *rep)
{
	for (size_t i = 0; i < m->n; i++) {
		const cJSON *c = m->v[i].classifiers;
		if (strcmp(m->v[i].name, name))
			continue;
		if (!strcmp(kvb_get_str(c, "test_name", ""), test) && !strcmp(kvb_get_str(c, "rep", ""), rep))
			return &m->v[i];
	}
	fprintf(stderr, "metric %s test_name=%s rep=%s not found\n", name, test, rep);
	return NULL;
}

static void check_metric(const struct kvb_metrics *m, const char *name, const char *test, const char *rep,
			 double want, const char *units)
{
	const struct kvb_metric *mt = find_metric(m, name, test, rep);
	CHECK(mt != NULL);
	if (!mt)
		return;
	CHECK_NEAR(mt->value, want, 1e-9);
	CHECK_STR(mt->units, units);
}

static const char *artifact(const struct kvb_metrics *m, const char *kind)
{
	for (size_t i = 0; i < m->nart; i++)
		if (!strcmp(m->art[i].kind, kind))
			return m->art[i].path;
	return NULL;
}

static double secs_since(uint64_t t0)
{
	return (double)(kvb_mono_ns() - t0) / 1e9;
}

static void test_jankbench__run_gives_the_fixture_statistics_exactly(void)
{
	struct simdev d;
	struct kvb_metrics m;
	struct kvb_error e = { 0 };
	char *art = NULL, *calls, *csv;
	sim_start(&d);
	write_known_fixture(&d, "default.db");
	kvb_metrics_init(&m);
	int rc = run_job(&d, "{\"test_ids\": [\"list_view\", 2], \"reps\": 2, \"keep_frames\": true}", 60000, &m, &e,
			 &art);
	if (rc)
		fprintf(stderr, "  error: %s\n", e.msg);
	CHECK(rc == KVB_OK);
	/* 4 (test, rep) groups x 7 metrics */
	CHECK(m.n == 28);
	/* the tests the job ran are a job classifier: what measures the whole job (energy, util) is
	   grouped by them as the per-test metrics are by their own test_name (issue 26) */
	CHECK(m.job_classifiers && cJSON_IsString(cJSON_GetObjectItem(m.job_classifiers, "test_name")) &&
	      !strcmp(cJSON_GetObjectItem(m.job_classifiers, "test_name")->valuestring, "list_view,shadow_grid"));
	check_metric(&m, "frame_duration_mean", "list_view", "0", 50.5, "ms");
	check_metric(&m, "frame_duration_max", "list_view", "0", 100, "ms");
	check_metric(&m, "frame_duration_p99", "list_view", "0", 99.01, "ms");
	check_metric(&m, "frame_duration_p90", "list_view", "0", 90.1, "ms");
	check_metric(&m, "jank_pct", "list_view", "0", 84, "%");
	check_metric(&m, "frames", "list_view", "0", 100, "count");
	check_metric(&m, "frame_duration_mean", "list_view", "1", 25, "ms");
	check_metric(&m, "frame_duration_max", "list_view", "1", 40, "ms");
	check_metric(&m, "frame_duration_p99", "list_view", "1", 39.7, "ms");
	check_metric(&m, "jank_pct", "list_view", "1", 75, "%");
	check_metric(&m, "frame_duration_mean", "shadow_grid", "0", 16, "ms");
	check_metric(&m, "frame_duration_max", "shadow_grid", "0", 24, "ms");
	check_metric(&m, "frame_duration_p99", "shadow_grid", "0", 23.84, "ms");
	check_metric(&m, "jank_pct", "shadow_grid", "0", 50, "%");
	check_metric(&m, "frame_duration_max", "shadow_grid", "1", 12.5, "ms");
	check_metric(&m, "jank_pct", "shadow_grid", "1", 0, "%");
	/* the app was started the documented way, with ids 0 and 2 and the run count, then stopped */
	calls = state_read(&d, "calls");
	CHECK_CONTAINS(calls, "am start -W -S -n com.android.benchmark/.app.RunLocalBenchmarksActivity --eia "
			      "com.android.benchmark.EXTRA_ENABLED_BENCHMARK_IDS 0,2 --ei "
			      "com.android.benchmark.EXTRA_RUN_COUNT 2\n");
	CHECK_CONTAINS(calls, "am force-stop com.android.benchmark\n");
	CHECK(strstr(calls, "pm install") == NULL);
	free(calls);
	/* artifacts: the pulled DB, logcat with the end marker, the am output, per-frame CSV */
	CHECK(artifact(&m, "jankbench-db") != NULL);
	CHECK(artifact(&m, "raw-output") != NULL);
	CHECK(artifact(&m, "logcat") != NULL);
	if (artifact(&m, "logcat")) {
		char *lc = read_text(artifact(&m, "logcat"));
		CHECK_CONTAINS(lc, "BENCH   : BenchmarkDone!");
		free(lc);
	}
	CHECK(artifact(&m, "jankbench-frames") != NULL);
	csv = artifact(&m, "jankbench-frames") ? read_text(artifact(&m, "jankbench-frames")) : kvb_xstrdup("");
	CHECK(!strncmp(csv, "test_name,rep,frame,total_duration_ms\nlist_view,0,0,100\nlist_view,0,1,99\n", 72));
	CHECK_CONTAINS(csv, "\nlist_view,1,3,40\nshadow_grid,0,0,8\nshadow_grid,0,1,24\nshadow_grid,1,0,12.5\n");
	{
		size_t lines = 0;
		for (const char *c = csv; *c; c++)
			lines += *c == '\n';
		CHECK(lines == 1 + 100 + 4 + 2 + 1);
	}
	free(csv);
	kvb_metrics_release(&m);
	free(art);
	CHECK(sim_stop(&d) == 0);
}

static void test_jankbench__never_finishing_app_fails_at_its_timeout(void)
{
	struct simdev d;
	struct kvb_metrics m;
	struct kvb_error e = { 0 };
	char *art = NULL, *calls;
	uint64_t t0;
	sim_start(&d);
	write_known_fixture(&d, "default.db");
	state_write(&d, "mode", "hang", 0644);
	kvb_metrics_init(&m);
	t0 = kvb_mono_ns();
	CHECK(run_job(&d, "{\"test\": \"edit_text\", \"reps\": 1, \"timeout_s\": 3}", 600000, &m, &e, &art) ==
	      KVB_ETARGET);
	fprintf(stderr, "  message: %s (%.1f s)\n", e.msg, secs_since(t0));
	CHECK(secs_since(t0) >= 3.0);
	CHECK(secs_since(t0) < 15.0);
	CHECK_CONTAINS(e.msg, "jankbench did not finish within 3.0 s (no 'BenchmarkDone!' in logcat");
	CHECK_CONTAINS(e.msg, "still in the foreground");
	CHECK(m.n == 0);
	calls = state_read(&d, "calls");
	CHECK_CONTAINS(calls, "EXTRA_ENABLED_BENCHMARK_IDS 5 --ei");
	CHECK_CONTAINS(calls, "am force-stop com.android.benchmark\n");
	free(calls);
	kvb_metrics_release(&m);
	free(art);
	CHECK(sim_stop(&d) == 0);
}

static void test_jankbench__missing_db_fails_even_with_a_stale_one_left(void)
{
	struct simdev d;
	struct kvb_metrics m;
	struct kvb_error e = { 0 };
	char *art = NULL, *stale, *cmd;
	sim_start(&d);
	write_known_fixture(&d, "default.db");
	/* an earlier run's DB and WAL: the workload must remove them, not report them */
	stale = kvb_xasprintf("%s/fixtures/default.db", d.state);
	{
		char *dir = kvb_xstrndup(d.db, (size_t)(strrchr(d.db, '/') - d.db)), *wal = kvb_xasprintf("%s-wal", d.db);
		kvb_mkdir_p(dir, 0755);
		CHECK(kvb_copy_file(stale, d.db) == 0);
		write_file(wal, "stale", 0644);
		free(dir);
		free(wal);
	}
	state_write(&d, "mode", "nodb", 0644);
	kvb_metrics_init(&m);
	CHECK(run_job(&d, "{\"test_ids\": \"list_view\"}", 60000, &m, &e, &art) == KVB_ETARGET);
	fprintf(stderr, "  message: %s\n", e.msg);
	cmd = kvb_xasprintf("no Jankbench results DB at '%s' on the device after the run", d.db);
	CHECK_CONTAINS(e.msg, cmd);
	CHECK(m.n == 0);
	CHECK(access(d.db, F_OK) != 0);
	free(cmd);
	free(stale);
	kvb_metrics_release(&m);
	free(art);
	CHECK(sim_stop(&d) == 0);
}

static void test_jankbench__empty_db_and_missing_table_fail_with_the_reason(void)
{
	struct simdev d;
	struct kvb_error e = { 0 };
	char *art = NULL, *p;
	sqlite3 *db;
	sim_start(&d);
	p = kvb_xasprintf("%s/fixtures/1.db", d.state);
	db = fixture_open(p, 1); /* the table, no frames */
	sqlite3_close(db);
	free(p);
	p = kvb_xasprintf("%s/fixtures/2.db", d.state);
	db = fixture_open(p, 0);
	CHECK(sqlite3_exec(db, "CREATE TABLE android_metadata (locale TEXT)", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	free(p);
	for (int i = 0; i < 2; i++) {
		struct kvb_metrics m;
		kvb_metrics_init(&m);
		CHECK(run_job(&d, "{\"test_ids\": [\"shadow_grid\"], \"reps\": 1}", 60000, &m, &e, &art) == KVB_EINPUT);
		fprintf(stderr, "  message: %s\n", e.msg);
		CHECK_CONTAINS(e.msg, i == 0 ? "table ui_results has no frames (did the benchmark run?)"
					     : "has no ui_results table");
		CHECK(m.n == 0);
		CHECK(artifact(&m, "jankbench-db") != NULL);
		kvb_metrics_release(&m);
		free(art);
	}
	CHECK(sim_stop(&d) == 0);
}

static void test_jankbench__app_leaving_the_foreground_ends_the_wait(void)
{
	struct simdev d;
	struct kvb_metrics m;
	struct kvb_error e = { 0 };
	char *art = NULL;
	uint64_t t0;
	sim_start(&d);
	write_known_fixture(&d, "default.db");
	state_write(&d, "mode", "left", 0644);
	/* every group asked for is there: the results count */
	kvb_metrics_init(&m);
	t0 = kvb_mono_ns();
	CHECK(run_job(&d, "{\"test_ids\": [\"list_view\", \"shadow_grid\"], \"reps\": 2, \"timeout_s\": 60}", 600000,
		      &m, &e, &art) == KVB_OK);
	CHECK(secs_since(t0) < 15.0);
	CHECK(m.n == 28);
	check_metric(&m, "jank_pct", "list_view", "0", 84, "%");
	kvb_metrics_release(&m);
	free(art);
	/* three reps asked for, two in the DB: the app stopped early */
	kvb_metrics_init(&m);
	CHECK(run_job(&d, "{\"test_ids\": [\"list_view\", \"shadow_grid\"], \"reps\": 3, \"timeout_s\": 60}", 600000,
		      &m, &e, &art) == KVB_ETARGET);
	fprintf(stderr, "  message: %s\n", e.msg);
	CHECK_CONTAINS(e.msg, "left the foreground without 'BenchmarkDone!' and its results hold 4 of 6 (test, rep) groups");
	CHECK(m.n == 0);
	kvb_metrics_release(&m);
	free(art);
	CHECK(sim_stop(&d) == 0);
}

static void test_jankbench__installs_the_apk_when_the_app_is_missing(void)
{
	struct simdev d;
	struct kvb_metrics m;
	struct kvb_error e = { 0 };
	char *art = NULL, *apk, *bad, *params, *calls, *inst;
	sim_start(&d);
	write_known_fixture(&d, "default.db");
	inst = kvb_xasprintf("%s/installed", d.state);
	unlink(inst);
	apk = kvb_xasprintf("%s/Jankbench.apk", d.a.dir);
	bad = kvb_xasprintf("%s/Other.apk", d.a.dir);
	write_file(apk, "PK\003\004 jankbench apk\n", 0644);
	write_file(bad, "PK\003\004 another apk\n", 0644);
	state_write(&d, "good.apk", "PK\003\004 jankbench apk\n", 0644);

	kvb_metrics_init(&m);
	CHECK(run_job(&d, "{\"test\": \"list_view\"}", 60000, &m, &e, &art) == KVB_ETARGET);
	CHECK_CONTAINS(e.msg, "com.android.benchmark is not installed on the device (install Jankbench or give params.apk)");
	free(art);
	params = kvb_xasprintf("{\"test\": \"list_view\", \"apk\": \"%s\"}", bad);
	CHECK(run_job(&d, params, 60000, &m, &e, &art) == KVB_ETARGET);
	fprintf(stderr, "  message: %s\n", e.msg);
	CHECK_CONTAINS(e.msg, "pm install said: Failure [INSTALL_FAILED_INVALID_APK: not an APK]");
	free(params);
	free(art);
	CHECK(m.n == 0);
	params = kvb_xasprintf("{\"test\": \"list_view\", \"apk\": \"%s\"}", apk);
	CHECK(run_job(&d, params, 60000, &m, &e, &art) == KVB_OK);
	CHECK(m.n == 28);
	CHECK(access(inst, F_OK) == 0);
	calls = state_read(&d, "calls");
	CHECK_CONTAINS(calls, "pm install -r -g ");
	free(calls);
	free(params);
	free(art);
	free(apk);
	free(bad);
	free(inst);
	kvb_metrics_release(&m);
	CHECK(sim_stop(&d) == 0);
}

static void test_jankbench__refuses_a_target_that_is_not_adb(void)
{
	struct kvb_platform plat;
	struct kvb_target t;
	struct kvb_diag diag;
	struct kvb_metrics m;
	struct kvb_error e = { 0 };
	struct kvb_job_ctx ctx;
	cJSON *params = cJSON_Parse("{\"test\": \"list_view\"}");
	char dir[] = "/tmp/kvb-jank-local-XXXXXX";
	const struct kvb_workload_ops *ops = kvb_workload_find("jankbench");
	CHECK(mkdtemp(dir) != NULL);
	kvb_diag_init(&diag, NULL);
	CHECK(kvb_platform_load(&plat, KVB_SOURCE_DIR "/platforms/local/platform.yaml", &kvb_catalog, &diag) == KVB_OK);
	kvb_diag_release(&diag);
	CHECK(kvb_target_open(&t, &plat, &e) == KVB_OK);
	kvb_metrics_init(&m);
	memset(&ctx, 0, sizeof(ctx));
	ctx.ops = ops;
	ctx.target = &t;
	ctx.params = params;
	ctx.artifact_dir = dir;
	ctx.remote_dir = dir;
	ctx.timeout_ms = 10000;
	ctx.out = &m;
	CHECK(ops->run(&ctx, &e) == KVB_EINPUT);
	CHECK_STR(e.msg, "jankbench runs an Android app and needs an adb target; platform 'local' connects with 'local'");
	CHECK(m.n == 0);
	kvb_metrics_release(&m);
	kvb_target_close(&t);
	kvb_platform_release(&plat);
	cJSON_Delete(params);
	rmdir(dir);
}

/* The line of text that contains all of a, b and c, or NULL. Owned. */
static char *row_with(const char *text, const char *a, const char *b, const char *c)
{
	for (const char *l = text; l && *l;) {
		size_t n = strcspn(l, "\n");
		char *line = kvb_xstrndup(l, n);
		if (strstr(line, a) && strstr(line, b) && strstr(line, c))
			return line;
		free(line);
		l += n;
		if (*l)
			l++;
	}
	return NULL;
}

static void check_row(const char *table, const char *a, const char *b, const char *c)
{
	char *r = row_with(table, a, b, c);
	if (!r)
		fprintf(stderr, "no row with '%s', '%s', '%s' in:\n%s\n", a, b, c, table);
	CHECK(r != NULL);
	free(r);
}

static size_t count_rows(const char *text, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/*
 * Fixtures for the agenda run: start N (1..10) is test t = (N-1) % 5 of
 * jankbench-quick.yaml, variant base for N <= 5, fast after. Per rep r (0, 1):
 * frames 10, 12, M ms with M = 40 + 10t - 10r (base) or 30 + 10t - 10r (fast)
 * and jank 0 0 1; fast adds a 14 ms frame. So max over both reps is 40 + 10t
 * (base) vs 30 + 10t (fast), jank 33.33 % vs 25 %.
 */
static void write_agenda_fixtures(struct simdev *d)
{
	static const char *const tests[] = { "list_view", "image_list_view", "shadow_grid", "high_hitrate_text",
					     "edit_text" };
	for (int n = 1; n <= 10; n++) {
		int t = (n - 1) % 5, fast = n > 5;
		char *p = kvb_xasprintf("%s/fixtures/%d.db", d->state, n);
		sqlite3 *db = fixture_open(p, 1);
		for (int r = 0; r < 2; r++) {
			fixture_add(db, tests[t], r, 10, 0);
			fixture_add(db, tests[t], r, 12, 0);
			fixture_add(db, tests[t], r, (fast ? 30 : 40) + 10 * t - 10 * r, 1);
			if (fast)
				fixture_add(db, tests[t], r, 14, 0);
		}
		sqlite3_close(db);
		free(p);
	}
}

static void test_jankbench__agenda_run_and_diff_tables(void)
{
	struct simdev d;
	const char *build = getenv("KVB_BUILD_DIR") ? getenv("KVB_BUILD_DIR") : "build";
	char *kvb = kvb_xasprintf("%s/kvbench", build), *plat, *dbf, *k1, *k2, *v1, *v2, *out = NULL;
	uint64_t t0;
	sim_start(&d);
	write_agenda_fixtures(&d);
	plat = kvb_xasprintf("%s/platform.yaml", d.a.dir);
	dbf = kvb_xasprintf("%s/results.db", d.a.dir);
	k1 = kvb_xasprintf("%s/base.img", d.a.dir);
	k2 = kvb_xasprintf("%s/fast.img", d.a.dir);
	write_file(k1, "kernel base\n", 0644);
	write_file(k2, "kernel fast\n", 0644);
	v1 = kvb_xasprintf("base=,cpus=0"); (void)k1;
	v2 = kvb_xasprintf("fast=,cpus=0-1"); (void)k2;
	{
		const char *argv[] = { kvb,  "run", KVB_SOURCE_DIR "/agendas/jankbench-quick.yaml", "-p", plat, "-d", dbf,
				       "-V", v1,    "-V",  v2, "--rounds", "1", "--no-diff", NULL };
		t0 = kvb_mono_ns();
		int rc = kvb_adbsim_run(argv, &out, 100000);
		fprintf(stderr, "  kvbench run: exit %d in %.1f s\n", rc, secs_since(t0));
		if (rc)
			fprintf(stderr, "%s\n", out);
		CHECK(rc == 0);
		free(out);
	}
	{
		const char *argv[] = { kvb, "query", "-d", dbf, "-f", "csv",
				       "select count(*), count(distinct variant), count(distinct json_extract(classifiers, '$.rep')) "
				       "from results where workload = 'jankbench'",
				       NULL };
		CHECK(kvb_adbsim_run(argv, &out, 30000) == 0);
		/* 7 metrics x 2 reps x 5 tests x 2 variants */
		CHECK_CONTAINS(out, "\n140,2,2\n");
		free(out);
	}
	{
		const char *argv[] = { kvb, "diff", "-d", dbf, "--workload", "jankbench", "--stat", "max", "--metric",
				       "frame_duration_max", NULL };
		CHECK(kvb_adbsim_run(argv, &out, 30000) == 0);
		fprintf(stderr, "%s", out);
		CHECK_CONTAINS(out, "perc_diff");
		CHECK_CONTAINS(out, " max ");
		check_row(out, "test_name=list_view ", "| base ", " 40 |");
		check_row(out, "test_name=list_view ", "| fast ", "  -25.00%");
		check_row(out, "test_name=list_view ", "| fast ", " 30 |");
		check_row(out, "test_name=image_list_view ", "| fast ", "  -20.00%");
		check_row(out, "test_name=shadow_grid ", "| fast ", "  -16.67%");
		check_row(out, "test_name=high_hitrate_text ", "| fast ", "  -14.29%");
		check_row(out, "test_name=edit_text ", "| base ", " 80 |");
		check_row(out, "test_name=edit_text ", "| fast ", "  -12.50%");
		/* one row per test and variant: the two reps pool into one cell (n 2) */
		CHECK(count_rows(out, "| jankbench ") == 10);
		CHECK(count_rows(out, "| frame_duration_max (ms) ") == 10);
		free(out);
	}
	{
		const char *argv[] = { kvb, "diff", "-d", dbf, "--workload", "jankbench", "--metric", "jank_pct", NULL };
		CHECK(kvb_adbsim_run(argv, &out, 30000) == 0);
		fprintf(stderr, "%s", out);
		check_row(out, "test_name=shadow_grid ", "| base ", "| 33.33 ");
		check_row(out, "test_name=shadow_grid ", "| fast ", "  -25.00%");
		CHECK(count_rows(out, "| jank_pct (%) ") == 10);
		free(out);
	}
	{
		/* mean of {10, 12, 40} and {10, 12, 30}: 19.00 for list_view on base; fast {10,12,30,14},{10,12,20,14}: 15.25 */
		const char *argv[] = { kvb, "diff", "-d", dbf, "--workload", "jankbench", "--metric", "frame_duration_mean",
				       NULL };
		CHECK(kvb_adbsim_run(argv, &out, 30000) == 0);
		check_row(out, "test_name=list_view ", "| base ", " 19 |");
		check_row(out, "test_name=list_view ", "| fast ", "| 15.25 ");
		check_row(out, "test_name=list_view ", "| fast ", "  -19.74%");
		CHECK(count_rows(out, "| frame_duration_mean (ms) ") == 10);
		free(out);
	}
	free(kvb);
	free(plat);
	free(dbf);
	free(k1);
	free(k2);
	free(v1);
	free(v2);
	CHECK(sim_stop(&d) == 0);
}

/*
 * `kvbench report` draws one frame-duration CDF per test from the keep_frames
 * artifacts (jankbench-frames.csv), a series per variant holding every frame of
 * both reps: base (start 1) 10 12 40 | 10 12 30, fast (start 2) 10 12 30 14 | 10 12 20 14.
 */
static void test_jankbench__report_draws_frame_cdfs_from_kept_frames(void)
{
	static const double base[] = { 10, 12, 40, 10, 12, 30 }, fast[] = { 10, 12, 30, 14, 10, 12, 20, 14 };
	struct simdev d;
	const char *build = getenv("KVB_BUILD_DIR") ? getenv("KVB_BUILD_DIR") : "build";
	char *kvb = kvb_xasprintf("%s/kvbench", build), *plat, *dbf, *agenda, *out = NULL;
	cJSON *doc, *plot = NULL;
	sim_start(&d);
	for (int n = 1; n <= 2; n++) {
		char *p = kvb_xasprintf("%s/fixtures/%d.db", d.state, n);
		sqlite3 *db = fixture_open(p, 1);
		for (int r = 0; r < 2; r++) {
			fixture_add(db, "list_view", r, 10, 0);
			fixture_add(db, "list_view", r, 12, 0);
			fixture_add(db, "list_view", r, (n == 2 ? 30 : 40) - 10 * r, 1);
			if (n == 2)
				fixture_add(db, "list_view", r, 14, 0);
		}
		sqlite3_close(db);
		free(p);
	}
	plat = kvb_xasprintf("%s/platform.yaml", d.a.dir);
	dbf = kvb_xasprintf("%s/report.db", d.a.dir);
	agenda = kvb_xasprintf("%s/frames.yaml", d.a.dir);
	write_file(agenda,
		   "config: {iterations: 1}\nworkloads:\n  - name: jankbench\n    id: list_view\n"
		   "    params: {test_ids: [list_view], reps: 2, keep_frames: true}\n",
		   0644);
	{
		const char *argv[] = { kvb, "run", agenda, "-p", plat, "-d", dbf, "-V", "base=,cpus=0", "-V", "fast=,cpus=0-1",
				       "--rounds", "1", "--no-diff", NULL };
		int rc = kvb_adbsim_run(argv, &out, 100000);
		if (rc)
			fprintf(stderr, "%s\n", out);
		CHECK(rc == 0);
		free(out);
	}
	{
		const char *argv[] = { kvb, "report", "-d", dbf, "-o", "-", "--format", "json", NULL };
		CHECK(kvb_adbsim_run(argv, &out, 30000) == 0);
	}
	doc = cJSON_Parse(out);
	CHECK(doc != NULL);
	cJSON_ArrayForEach(plot, cJSON_GetObjectItem(doc, "sections"))
	{
		cJSON *p = cJSON_GetObjectItem(plot, "plot"), *t = p ? cJSON_GetObjectItem(p, "title") : NULL;
		if (cJSON_IsString(t) && !strcmp(t->valuestring, "list_view: frame duration CDF"))
			break;
	}
	CHECK(plot != NULL);
	if (plot) {
		cJSON *series = cJSON_GetObjectItem(cJSON_GetObjectItem(plot, "plot"), "series");
		CHECK(cJSON_GetArraySize(series) == 2);
		for (int v = 0; v < 2 && cJSON_GetArraySize(series) == 2; v++) {
			cJSON *sr = cJSON_GetArrayItem(series, v), *vals = cJSON_GetObjectItem(sr, "values");
			const double *want = v ? fast : base;
			int n = v ? 8 : 6;
			CHECK_STR(cJSON_GetObjectItem(sr, "name")->valuestring, v ? "fast" : "base");
			CHECK(cJSON_GetArraySize(vals) == n);
			for (int i = 0; i < n && i < cJSON_GetArraySize(vals); i++)
				CHECK(cJSON_GetArrayItem(vals, i)->valuedouble == want[i]);
		}
	}
	cJSON_Delete(doc);
	free(out);
	free(kvb);
	free(plat);
	free(dbf);
	free(agenda);
	CHECK(sim_stop(&d) == 0);
}

#define TESTS                                                             \
	T(test_jankbench__run_gives_the_fixture_statistics_exactly)         \
	T(test_jankbench__never_finishing_app_fails_at_its_timeout)         \
	T(test_jankbench__missing_db_fails_even_with_a_stale_one_left)      \
	T(test_jankbench__empty_db_and_missing_table_fail_with_the_reason)  \
	T(test_jankbench__app_leaving_the_foreground_ends_the_wait)         \
	T(test_jankbench__installs_the_apk_when_the_app_is_missing)         \
	T(test_jankbench__refuses_a_target_that_is_not_adb)                 \
	T(test_jankbench__agenda_run_and_diff_tables)                       \
	T(test_jankbench__report_draws_frame_cdfs_from_kept_frames)
#include "test_main.h"
