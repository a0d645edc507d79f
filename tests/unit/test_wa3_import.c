/*
 * Import of WA3 results into a real SQLite store: results.csv (with --variant) and an output
 * directory: the real one `wa run` wrote (tests/fixtures/field/wa3-output/PROVENANCE) and a
 * hand-written one for what that run lacks (tests/fixtures/wa3-output/PROVENANCE).
 */
#include "results/groups.h"
#include "store/csvio.h"
#include "store/store.h"
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

#define WA KVB_SOURCE_DIR "/tests/fixtures/wa3-output/wa_output"
#define FIELD KVB_SOURCE_DIR "/tests/fixtures/field/wa-results-csv"

static char db[256];

static struct kvb_store *fresh(void)
{
	struct kvb_store *st = NULL;
	struct kvb_error err;
	snprintf(db, sizeof(db), "/tmp/kvb-test-wa3-%d.db", (int)getpid());
	unlink(db);
	if (kvb_store_open(&st, db, 0, &err))
		fprintf(stderr, "%s\n", err.msg);
	return st;
}

static double q(struct kvb_store *st, const char *sql)
{
	sqlite3_stmt *s;
	double v = -1;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_double(s, 0);
	else
		fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(st->db));
	sqlite3_finalize(s);
	return v;
}

static void test_wa3_import__results_csv_one_job_per_id_and_iteration(void)
{
	struct kvb_store *st = fresh();
	struct kvb_error err;
	int64_t run = 0;
	size_t skipped = 0;
	int rc = kvb_wa3_csv_import(st, WA "/results.csv", "v6.1", &run, &skipped, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(rc == KVB_OK);
	CHECK(skipped == 1);  /* the run-level run_duration row */
	/* 4 job rows -> 2 jobs (s1-wk1 iterations 1 and 2), each with time and execution_time */
	CHECK(q(st, "SELECT count(*) FROM job") == 2);
	CHECK(q(st, "SELECT count(*) FROM results") == 4);
	CHECK(q(st, "SELECT value FROM results WHERE metric = 'time' AND iteration = 2") == 1.7);
	CHECK(q(st, "SELECT count(DISTINCT variant) FROM results WHERE variant = 'v6.1'") == 1);
	CHECK(q(st, "SELECT count(*) FROM job WHERE section = 's1'") == 0);  /* results.csv has no section */
	kvb_store_close(st);
	unlink(db);
}

/* A results.csv WA wrote on a real device (tests/fixtures/field/wa-results-csv/PROVENANCE). */
static void test_wa3_import__real_results_csv_is_one_job_with_all_its_metrics(void)
{
	struct kvb_store *st = fresh();
	struct kvb_error err;
	int64_t run = 0;
	size_t skipped = 0;
	int rc = kvb_wa3_csv_import(st, KVB_SOURCE_DIR "/tests/fixtures/field/wa-results-csv/cr2-new-antutu-results.csv",
				    "stock", &run, &skipped, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(rc == KVB_OK);
	CHECK(skipped == 0);
	CHECK(q(st, "SELECT count(*) FROM job") == 1);
	CHECK(q(st, "SELECT count(*) FROM results") == 19);
	CHECK(q(st, "SELECT value FROM results WHERE metric = 'Overall_Score'") == 35549);
	CHECK(q(st, "SELECT value FROM results WHERE metric = 'Overall_Score_2'") == 35437);
	CHECK(q(st, "SELECT value FROM results WHERE metric = 'execution_time'") == 679.670315981);
	CHECK(q(st, "SELECT count(*) FROM results WHERE metric = 'execution_time' AND units = 'seconds'") == 1);
	CHECK(q(st, "SELECT count(*) FROM results WHERE variant = 'stock' AND iteration = 1") == 19);
	kvb_store_close(st);
	unlink(db);
}

static void test_wa3_import__output_directory_keeps_status_classifiers_and_direction(void)
{
	struct kvb_store *st = fresh();
	struct kvb_error err;
	int64_t run = 0;
	int rc = kvb_wa3_dir_import(st, WA, "v6.1", &run, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(rc == KVB_OK);
	CHECK(q(st, "SELECT count(*) FROM job") == 3);
	CHECK(q(st, "SELECT count(*) FROM job WHERE status = 'failed' AND spec_id = 's1-wk2' AND attempts = 3") == 1);
	CHECK(q(st, "SELECT count(*) FROM job WHERE section = 's1'") == 3);
	CHECK(q(st, "SELECT value FROM results WHERE metric = 'time' AND iteration = 1") == 1.5);
	CHECK(q(st, "SELECT lower_is_better FROM results WHERE metric = 'time' AND iteration = 1") == 1);
	CHECK(q(st, "SELECT count(*) FROM classifier WHERE key = 'tag' AND value = 'base'") >= 2);
	/* hackbench.output is listed, not in the directory: a row without sha256, and no classifier */
	CHECK(q(st, "SELECT count(*) FROM artifact a JOIN job j ON j.id = a.job_id WHERE j.iteration = 1"
		    " AND a.kind = 'raw' AND a.path LIKE '/%/wa_output/s1-wk1-hackbench-1/hackbench.output'"
		    " AND a.sha256 IS NULL AND a.bytes IS NULL") == 1);
	CHECK(q(st, "SELECT count(*) FROM classifier WHERE key LIKE '%artifact%'") == 0);
	kvb_store_close(st);
	unlink(db);
	/* Not a WA3 directory: named, nothing stored. */
	st = fresh();
	CHECK(kvb_wa3_dir_import(st, KVB_SOURCE_DIR "/tests", "x", &run, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "/tests/.run_state.json: cannot read");
	CHECK(q(st, "SELECT count(*) FROM run") == 0);
	kvb_store_close(st);
	unlink(db);
}

/* A results.csv WA wrote on real devices (tests/fixtures/field/wa-results-csv/PROVENANCE): no
 * classifier columns, empty units, metric names with spaces; values read by hand from the file. */
static void test_wa3_import__field_results_csv_values_by_hand(void)
{
	struct kvb_store *st = fresh();
	struct kvb_error err;
	int64_t run = 0;
	size_t skipped = 0;
	int rc = kvb_wa3_csv_import(st, FIELD "/cr2-results.csv", "pa", &run, &skipped, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(rc == KVB_OK && skipped == 0);
	CHECK(q(st, "SELECT count(*) FROM job") == 10);  /* power_allocator_{1,2,3,4,6}, step_wise_{1,2,3,4,6} */
	CHECK(q(st, "SELECT count(*) FROM results") == 144);
	CHECK(q(st, "SELECT count(*) FROM results WHERE metric = 'execution_time' AND units = 'seconds'") == 10);
	CHECK_NEAR(q(st, "SELECT sum(value) FROM results WHERE metric = 'execution_time'"), 14797.789998292, 1e-6);
	CHECK(q(st, "SELECT value FROM results WHERE spec_id = 'step_wise_6' AND metric = 'FPS' AND units = ''") ==
	      242.0522258138);
	CHECK(q(st, "SELECT value FROM results WHERE spec_id = 'power_allocator_4'"
		    " AND metric = 'Floating Point_score 2'") == 6);
	CHECK(q(st, "SELECT count(*) FROM results WHERE workload = 't-rex_offscreen'") == 14);
	/* antutu ran as two WA jobs (power_allocator_1, step_wise_1): two cells for diff, not one of n = 2 */
	CHECK(q(st, "SELECT count(DISTINCT json_extract(classifiers, '$.wa3_id')) FROM results"
		    " WHERE workload = 'antutu' AND metric = 'Multitask'") == 2);
	CHECK(q(st, "SELECT value FROM results WHERE json_extract(classifiers, '$.wa3_id') = 'step_wise_1'"
		    " AND metric = 'Multitask'") == 3);
	kvb_store_close(st);
	unlink(db);
}

/* The same measurement twice in one WA3 job (a repeated row): refused, not two samples of the job. */
static void test_wa3_import__repeated_metric_of_a_job_is_refused(void)
{
	struct kvb_store *st = fresh();
	struct kvb_error err;
	int64_t run = 0;
	size_t skipped = 0;
	char path[64], line[512];
	FILE *in = fopen(FIELD "/cr2-new-antutu-results.csv", "r"), *out;
	snprintf(path, sizeof(path), "/tmp/kvb-test-wa3-%d.csv", (int)getpid());
	out = fopen(path, "w");
	CHECK(in && out);
	while (in && out && fgets(line, sizeof(line), in))
		fputs(line, out);
	if (out)
		fputs("antutu,antutu,1,Dalvik,1700,\n", out);  /* line 21: Dalvik is line 3 */
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	CHECK(kvb_wa3_csv_import(st, path, "a", &run, &skipped, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, ":21: job antutu iteration 1 already has metric 'Dalvik' with these classifiers");
	CHECK(q(st, "SELECT count(*) FROM run") == 0);
	/* the file as WA wrote it: 19 metrics of one job, Dalvik 1565 */
	CHECK(kvb_wa3_csv_import(st, FIELD "/cr2-new-antutu-results.csv", "a", &run, &skipped, &err) == KVB_OK);
	CHECK(q(st, "SELECT count(*) FROM results") == 19);
	CHECK(q(st, "SELECT value FROM results WHERE metric = 'Dalvik'") == 1565);
	/* a metric repeated with other classifiers (per-core values, say) is two metrics */
	out = fopen(path, "w");
	if (out) {
		fputs("id,workload,iteration,metric,core,value,units\r\nwk1,dhrystone,1,dmips,0,10,\r\n"
		      "wk1,dhrystone,1,dmips,1,12,\r\n", out);
		fclose(out);
	}
	CHECK(kvb_wa3_csv_import(st, path, "b", &run, &skipped, &err) == KVB_OK);
	CHECK(q(st, "SELECT count(*) FROM results WHERE metric = 'dmips'") == 2);
	/* a WA3 classifier named like kvbench's own would contradict --variant in the results view */
	out = fopen(path, "w");
	if (out) {
		fputs("id,workload,iteration,metric,variant,value,units\nwk1,hackbench,1,time,kernelA,1.5,seconds\n", out);
		fclose(out);
	}
	CHECK(kvb_wa3_csv_import(st, path, "base", &run, &skipped, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, ":1: classifier column 'variant' is kvbench's own");
	CHECK(q(st, "SELECT count(*) FROM results WHERE variant = 'base'") == 0);
	unlink(path);
	kvb_store_close(st);
	unlink(db);
}

/* A results.csv saved again by a spreadsheet starts with a UTF-8 byte order mark: the header is still the header. */
static void test_wa3_import__byte_order_mark_is_not_part_of_the_header(void)
{
	struct kvb_store *st = fresh();
	struct kvb_error err;
	int64_t run = 0;
	size_t skipped = 0;
	char path[64];
	FILE *out;
	snprintf(path, sizeof(path), "/tmp/kvb-test-wa3-bom-%d.csv", (int)getpid());
	out = fopen(path, "w");
	if (out) {
		fputs("\xEF\xBB\xBFid,workload,iteration,metric,value,units\r\nwk1,hackbench,1,time,1.5,seconds\r\n", out);
		fclose(out);
	}
	if (kvb_wa3_csv_import(st, path, "a", &run, &skipped, &err))
		fprintf(stderr, "%s\n", err.msg);
	CHECK(q(st, "SELECT value FROM results WHERE metric = 'time' AND spec_id = 'wk1'") == 1.5);
	/* the long format too: 'variant' is found */
	out = fopen(path, "w");
	if (out) {
		fputs("\xEF\xBB\xBFvariant,workload,metric,value\nbase,hackbench,time,2.5\n", out);
		fclose(out);
	}
	if (kvb_csv_import(st, path, &run, &err))
		fprintf(stderr, "%s\n", err.msg);
	CHECK(q(st, "SELECT value FROM results WHERE variant = 'base'") == 2.5);
	unlink(path);
	kvb_store_close(st);
	unlink(db);
}

/* A real WA3 output directory (tests/fixtures/field/wa3-output/PROVENANCE: `wa run` on this host). */
#define WA3_FIELD KVB_SOURCE_DIR "/tests/fixtures/field/wa3-output/wa_output"

static void test_wa3_import__real_output_directory_as_wa3_wrote_it(void)
{
	struct kvb_store *st = fresh();
	struct kvb_error err;
	int64_t run = 0;
	int rc = kvb_wa3_dir_import(st, WA3_FIELD, "host", &run, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(rc == KVB_OK);
	/* .run_state.json: 4 specs x 2 iterations + s2-bad x 1 */
	CHECK(q(st, "SELECT count(*) FROM job") == 9);
	CHECK(q(st, "SELECT count(*) FROM job WHERE status = 'ok'") == 8);
	/* the workload is JobSpec's workload_name, the label the agenda's label */
	CHECK(q(st, "SELECT count(*) FROM job WHERE workload = 'hackbench' AND label = 'hb-small'") == 4);
	CHECK(q(st, "SELECT count(*) FROM job WHERE workload = 'rt-app' AND label = 'rt-app' AND section = 's2'") == 2);
	/* s2-bad: FAILED(9) after 2 retries, the reason is its result.json's last event */
	CHECK(q(st, "SELECT count(*) FROM job WHERE spec_id = 's2-bad' AND workload = 'hackbench' AND label = 'hackbench-bad'"
		    " AND section = 's2' AND iteration = 1 AND status = 'failed' AND attempts = 3"
		    " AND error LIKE '%unrecognized option ''--no-such-option'''") == 1);
	CHECK(q(st, "SELECT count(*) FROM metric WHERE job_id = (SELECT id FROM job WHERE spec_id = 's2-bad')") == 0);
	/* s1-rt iteration 1 timed out twice (__failed/s1-rt-rt-app-1-attempt01, 02), then OK */
	CHECK(q(st, "SELECT count(*) FROM job_attempt a JOIN job j ON j.id = a.job_id WHERE j.spec_id = 's1-rt'"
		    " AND j.iteration = 1 AND a.attempt IN (1, 2) AND a.status = 'failed' AND a.error LIKE 'Timed out: %'") == 2);
	CHECK(q(st, "SELECT a.attempt FROM job_attempt a JOIN job j ON j.id = a.job_id WHERE j.spec_id = 's1-rt'"
		    " AND j.iteration = 1 AND a.status = 'ok'") == 3);
	CHECK(q(st, "SELECT count(*) FROM job_attempt a JOIN job j ON j.id = a.job_id WHERE j.spec_id = 's2-bad'"
		    " AND a.status = 'failed'") == 3);
	/* s1-hb-hb-small-1/result.json */
	CHECK(q(st, "SELECT count(*) FROM results WHERE spec_id = 's1-hb' AND iteration = 1") == 6);
	CHECK(q(st, "SELECT value FROM results WHERE spec_id = 's1-hb' AND iteration = 1 AND metric = 'test_time'"
		    " AND units = 'seconds'") == 0.07);
	CHECK(q(st, "SELECT value FROM results WHERE spec_id = 's1-hb' AND iteration = 1 AND metric = 'total_fd'"
		    " AND units = 'file_descriptors'") == 40);
	CHECK(q(st, "SELECT value FROM results WHERE spec_id = 's1-hb' AND iteration = 1 AND metric = 'execution_time'")
	      == 0.13255667686462402);
	CHECK(q(st, "SELECT count(*) FROM results") == 44);
	CHECK(q(st, "SELECT count(*) FROM results WHERE lower_is_better = 0") == 44);  /* WA3 set none */
	/* s2-rt-rt-app-2: calib_cpu has units null; duration and task_count are job classifiers of result.json only */
	CHECK(q(st, "SELECT value FROM results WHERE spec_id = 's2-rt' AND iteration = 2 AND metric = 'pLoad' AND units = 'ns'")
	      == 72);
	CHECK(q(st, "SELECT count(*) FROM results WHERE spec_id = 's2-rt' AND iteration = 2 AND metric = 'calib_cpu'"
		    " AND value = 1 AND coalesce(units, '') = ''") == 1);
	CHECK(q(st, "SELECT count(*) FROM classifier c JOIN job j ON j.id = c.job_id WHERE j.spec_id = 's2-rt'"
		    " AND j.iteration = 2 AND c.metric_id IS NULL AND ((c.key = 'duration' AND c.value = '2')"
		    " OR (c.key = 'task_count' AND c.value = '4') OR (c.key = 'tag' AND c.value = 'second'))") == 3);
	/* one job classifier per key (jobs.json repeats each spec per iteration) */
	CHECK(q(st, "SELECT count(*) FROM classifier c JOIN job j ON j.id = c.job_id WHERE j.spec_id = 's1-hb'"
		    " AND j.iteration = 1 AND c.metric_id IS NULL AND c.key = 'kernel'") == 1);
	CHECK(q(st, "SELECT count(*) FROM results WHERE json_extract(classifiers, '$.size') = 'small'") == 24);
	/* artifacts: all 10 listed are rows; the regular files present have sha256 and bytes
	   (hackbench_results.txt is 141 bytes), the sysfs directories (trimmed) only their path */
	CHECK(q(st, "SELECT count(*) FROM artifact a JOIN job j ON j.id = a.job_id WHERE j.spec_id = 's1-hb' AND j.iteration = 1")
	      == 10);
	CHECK(q(st, "SELECT bytes FROM artifact a JOIN job j ON j.id = a.job_id WHERE j.spec_id = 's1-hb' AND j.iteration = 1"
		    " AND a.kind = 'raw' AND a.path LIKE '%/s1-hb-hb-small-1/hackbench_results.txt' AND length(a.sha256) = 64")
	      == 141);
	CHECK(q(st, "SELECT count(*) FROM artifact a JOIN job j ON j.id = a.job_id WHERE j.spec_id = 's1-rt' AND j.iteration = 1"
		    " AND a.kind = 'data' AND a.path LIKE '%/proc/interrupts' AND a.sha256 IS NOT NULL") == 3);
	CHECK(q(st, "SELECT count(*) FROM artifact a JOIN job j ON j.id = a.job_id WHERE j.spec_id = 's1-rt' AND j.iteration = 1"
		    " AND a.kind = 'data' AND a.path LIKE '%/sys/%' AND a.sha256 IS NULL AND a.bytes IS NULL") == 6);
	/* __meta/run_info.json and the run's result.json events (5: the retries) */
	CHECK(q(st, "SELECT count(*) FROM event WHERE level = 'info' AND message LIKE 'WA3 run_info: run_name ''kvbench-wa3-fixture'',"
		    " project ''kvbench'', uuid a1b60e34-5370-4371-9c27-6f3702bb4c11, start_time DATET:2026-12-01T10:53:02.461853,%'"
		    " AND message LIKE '%, duration 210.458 s'") == 1);
	CHECK(q(st, "SELECT count(*) FROM event WHERE level = 'warning' AND message LIKE 'WA3 run event: Job s%'") == 5);
	kvb_store_close(st);
	unlink(db);
}

/* WA3's csv output processor's results.csv of that same run. */
static void test_wa3_import__real_results_csv_of_the_same_run(void)
{
	struct kvb_store *st = fresh();
	struct kvb_error err;
	int64_t run = 0;
	size_t skipped = 0;
	int rc = kvb_wa3_csv_import(st, WA3_FIELD "/results.csv", "host", &run, &skipped, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(rc == KVB_OK);
	CHECK(skipped == 0);  /* this run wrote no run-level row */
	/* one job per (id, iteration) of the 8 OK jobs; the FAILED s2-bad has no row */
	CHECK(q(st, "SELECT count(*) FROM job") == 8);
	CHECK(q(st, "SELECT count(*) FROM results") == 44);
	CHECK(q(st, "SELECT count(*) FROM results WHERE spec_id = 's1-hb' AND iteration = 2") == 6);
	CHECK(q(st, "SELECT count(*) FROM results WHERE spec_id = 's2-rt' AND iteration = 1") == 5);
	CHECK(q(st, "SELECT value FROM results WHERE spec_id = 's2-rt' AND iteration = 2 AND metric = 'pLoad' AND units = 'ns'")
	      == 72);
	CHECK(q(st, "SELECT value FROM results WHERE spec_id = 's1-rt' AND iteration = 2 AND metric = 'execution_time'")
	      == 10.818716049194336);
	/* the workload column holds the label; an empty classifier field is no classifier */
	CHECK(q(st, "SELECT count(*) FROM job WHERE label = 'hb-small'") == 4);
	CHECK(q(st, "SELECT count(*) FROM results WHERE json_extract(classifiers, '$.size') = 'small'") == 24);
	CHECK(q(st, "SELECT count(*) FROM results WHERE label = 'rt-app' AND json_extract(classifiers, '$.size') IS NULL"
		    " AND json_extract(classifiers, '$.tag') = 'second'") == 10);
	kvb_store_close(st);
	unlink(db);
}

/* The same agenda's first real run, where WA3 skipped every job (wa_output_skipped in PROVENANCE). */
static void test_wa3_import__real_run_that_skipped_every_job_says_why(void)
{
	struct kvb_store *st = fresh();
	struct kvb_error err;
	int64_t run = 0;
	size_t skipped = 0;
	int rc = kvb_wa3_dir_import(st, WA3_FIELD "_skipped", "host", &run, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(rc == KVB_OK);
	CHECK(q(st, "SELECT count(*) FROM job WHERE status = 'skipped' AND attempts = 1") == 9);
	/* no job has an event of its own: the run's last event is each job's reason */
	CHECK(q(st, "SELECT count(*) FROM job WHERE error LIKE 'SKIPPED(11): Skipping remaining jobs due to"
		    " \"<<Workload hackbench>''s x86_64 hackbench executable> could not be found\".'") == 9);
	CHECK(q(st, "SELECT count(*) FROM event WHERE level = 'warning' AND message LIKE 'WA3 run event: %'") == 2);
	CHECK(q(st, "SELECT count(*) FROM metric") == 0);
	kvb_store_close(st);
	unlink(db);
	/* its results.csv is only the header: an error that says so, nothing stored */
	st = fresh();
	CHECK(kvb_wa3_csv_import(st, WA3_FIELD "_skipped/results.csv", "host", &run, &skipped, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "wa_output_skipped/results.csv: no metric rows, only the header");
	CHECK(q(st, "SELECT count(*) FROM run") == 0);
	kvb_store_close(st);
	unlink(db);
}

/* A real memcpy run (wa_output_memcpy in PROVENANCE): WA3 marks its time lower_is_better. */
static void test_wa3_import__real_memcpy_run_keeps_lower_is_better(void)
{
	struct kvb_store *st = fresh();
	struct kvb_error err;
	int64_t run = 0;
	size_t skipped = 0;
	int rc = kvb_wa3_dir_import(st, WA3_FIELD "_memcpy", "host", &run, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(rc == KVB_OK);
	CHECK(q(st, "SELECT count(*) FROM job WHERE spec_id = 'mc' AND workload = 'memcpy' AND label = 'memcpy-1m'"
		    " AND section IS NULL AND status = 'ok'") == 2);
	CHECK(q(st, "SELECT value FROM results WHERE iteration = 1 AND metric = 'time' AND units = 'seconds'"
		    " AND lower_is_better = 1") == 0.016186);
	CHECK(q(st, "SELECT value FROM results WHERE iteration = 2 AND metric = 'time' AND lower_is_better = 1") == 0.040845);
	CHECK(q(st, "SELECT value FROM results WHERE iteration = 1 AND metric = 'bandwidth' AND units = 'MB/s'"
		    " AND lower_is_better = 0") == 6478.207031);
	CHECK(q(st, "SELECT count(*) FROM results WHERE lower_is_better = 1") == 2);
	CHECK(q(st, "SELECT count(*) FROM results WHERE json_extract(classifiers, '$.buffer') = '1M'") == 6);
	kvb_store_close(st);
	unlink(db);
	/* its results.csv has no classifier column */
	st = fresh();
	rc = kvb_wa3_csv_import(st, WA3_FIELD "_memcpy/results.csv", "host", &run, &skipped, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(rc == KVB_OK);
	CHECK(q(st, "SELECT count(*) FROM job") == 2);
	CHECK(q(st, "SELECT count(*) FROM results WHERE label = 'memcpy-1m'") == 6);
	CHECK(q(st, "SELECT value FROM results WHERE iteration = 2 AND metric = 'bandwidth'") == 2567.210062);
	kvb_store_close(st);
	unlink(db);
}

/* The groups `kvbench diff --run A --run B` compares (results/groups.h): n groups, each with both
 * variants at n = 2 (WA3's 2 iterations), none keyed on a per-iteration value. */
static void check_diff_groups(struct kvb_store *st, int64_t run_a, int64_t run_b, size_t ngroups)
{
	int64_t runs[2] = { run_a, run_b };
	struct kvb_report_opts o = { .runs = runs, .nruns = 2 };
	struct kvb_report r;
	struct kvb_error err;
	int rc = kvb_report_load(st, &o, &r, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(rc == KVB_OK);
	if (rc)
		return;
	if (r.ngroups != ngroups)
		fprintf(stderr, "%zu groups, expected %zu\n", r.ngroups, ngroups);
	CHECK(r.ngroups == ngroups);
	CHECK(r.variants.n == 2);
	for (size_t g = 0, bad = 0; g < r.ngroups && r.variants.n == 2; g++) {
		const struct kvb_group *gr = &r.groups[g];
		/* n = 2 per variant, and no ID-LABEL-ITERATION/ path among the group's classifiers */
		if (gr->cells[0].n == 2 && gr->cells[1].n == 2 && !strstr(gr->cls_json, "-1/") &&
		    !strstr(gr->cls_json, "-2/"))
			continue;
		if (bad++ < 2)
			fprintf(stderr, "%s/%s %.200s: n = %zu, %zu\n", gr->workload, gr->metric, gr->cls_json,
				gr->cells[0].n, gr->cells[1].n);
		CHECK(!"a group without both iterations of both variants");
	}
	kvb_report_release(&r);
}

/* The real run imported twice as two variants (A/A): diff compares each (job id, metric) over WA3's
 * 2 iterations, as for the same run's results.csv. Artifact paths differ in every iteration: as a
 * job classifier they made each iteration a group of its own (44 groups of n = 1). */
static void test_wa3_import__two_variants_of_a_real_run_diff_with_both_iterations_per_group(void)
{
	struct kvb_store *st = fresh();
	struct kvb_error err;
	int64_t wa = 0, wb = 0;
	size_t skipped = 0;
	int rc = kvb_wa3_dir_import(st, WA3_FIELD, "wa", &wa, &err);
	if (!rc)
		rc = kvb_wa3_dir_import(st, WA3_FIELD, "wb", &wb, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(rc == KVB_OK);
	/* 2 tags (sections s1, s2) x (6 hackbench + 5 rt-app metrics) */
	check_diff_groups(st, wa, wb, 22);
	CHECK(q(st, "SELECT count(*) FROM classifier WHERE value LIKE '%-1/%' OR value LIKE '%-2/%'") == 0);
	/* the artifact list is still stored: 10 rows for s1-hb iteration 1 in each run, the one file in DIR hashed */
	CHECK(q(st, "SELECT count(*) FROM artifact a JOIN job j ON j.id = a.job_id WHERE j.spec_id = 's1-hb'"
		    " AND j.iteration = 1") == 20);
	CHECK(q(st, "SELECT count(*) FROM artifact a JOIN job j ON j.id = a.job_id WHERE j.spec_id = 's1-hb'"
		    " AND j.iteration = 1 AND a.kind = 'raw' AND a.path LIKE '/%/wa_output/s1-hb-hb-small-1/hackbench_results.txt'"
		    " AND a.bytes = 141") == 2);
	CHECK(q(st, "SELECT count(*) FROM artifact") == 2 * (4 * 10 + 4 * 9));
	kvb_store_close(st);
	unlink(db);
	/* the same run's results.csv, imported twice: the same number of groups */
	st = fresh();
	rc = kvb_wa3_csv_import(st, WA3_FIELD "/results.csv", "wa", &wa, &skipped, &err);
	if (!rc)
		rc = kvb_wa3_csv_import(st, WA3_FIELD "/results.csv", "wb", &wb, &skipped, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(rc == KVB_OK);
	check_diff_groups(st, wa, wb, 22);
	kvb_store_close(st);
	unlink(db);
}


#define TESTS                                                         \
	T(test_wa3_import__results_csv_one_job_per_id_and_iteration) \
	T(test_wa3_import__real_results_csv_is_one_job_with_all_its_metrics) \
	T(test_wa3_import__output_directory_keeps_status_classifiers_and_direction) \
	T(test_wa3_import__field_results_csv_values_by_hand)                   \
	T(test_wa3_import__repeated_metric_of_a_job_is_refused)                \
	T(test_wa3_import__byte_order_mark_is_not_part_of_the_header) \
	T(test_wa3_import__real_output_directory_as_wa3_wrote_it) \
	T(test_wa3_import__real_results_csv_of_the_same_run) \
	T(test_wa3_import__real_run_that_skipped_every_job_says_why) \
	T(test_wa3_import__real_memcpy_run_keeps_lower_is_better) \
	T(test_wa3_import__two_variants_of_a_real_run_diff_with_both_iterations_per_group)
#include "test_main.h"
