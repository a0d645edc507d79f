/*
 * Jankbench workload helpers that read device output (dumpsys), its test-id
 * mapping, and how `kvbench diff` treats its `rep` classifier: repetitions
 * inside one job pool into one cell per test_name, like iterations.
 */
#include "test.h"
#include "core/util.h"
#include "report/diff.h"
#include "store/csvio.h"
#include "store/store.h"
#include "workload/jankbench.h"

#include <stdlib.h>
#include <unistd.h>

static void test_jankbench__test_ids_by_name_or_number(void)
{
	static const char *const names[] = { "list_view",        "image_list_view", "shadow_grid", "low_hitrate_text",
					     "high_hitrate_text", "edit_text",       "overdraw_test" };
	for (int i = 0; i < 7; i++) {
		cJSON *s = cJSON_CreateString(names[i]), *n = cJSON_CreateNumber(i);
		char num[8];
		snprintf(num, sizeof(num), "%d", i);
		cJSON *ns = cJSON_CreateString(num);
		CHECK(kvb_jankbench_test_id(s) == i);
		CHECK(kvb_jankbench_test_id(n) == i);
		CHECK(kvb_jankbench_test_id(ns) == i);
		CHECK_STR(kvb_jankbench_tests[i], names[i]);
		cJSON_Delete(s);
		cJSON_Delete(n);
		cJSON_Delete(ns);
	}
	const char *bad[] = { "7", "-1", "List_View", "list_view ", "", "listview" };
	for (size_t i = 0; i < KVB_ARRAY_SIZE(bad); i++) {
		cJSON *s = cJSON_CreateString(bad[i]);
		CHECK(kvb_jankbench_test_id(s) == -1);
		cJSON_Delete(s);
	}
	cJSON *f = cJSON_CreateNumber(1.5), *t = cJSON_CreateTrue();
	CHECK(kvb_jankbench_test_id(f) == -1);
	CHECK(kvb_jankbench_test_id(t) == -1);
	cJSON_Delete(f);
	cJSON_Delete(t);
}

static void test_jankbench__foreground_from_dumpsys_activities(void)
{
	const char *pkg = "com.android.benchmark";
	/* Android 9-11 style */
	CHECK(kvb_jankbench_foreground("ACTIVITY MANAGER ACTIVITIES\n  Stack #1:\n"
				       "    mResumedActivity: ActivityRecord{8c1d2e u0 com.android.benchmark/.ui.ListViewScrollActivity t41}\n",
				       pkg) == 1);
	/* Android 12+ style, another app on top */
	CHECK(kvb_jankbench_foreground("  topResumedActivity=ActivityRecord{1a u0 com.android.launcher3/.Launcher t2}\n"
				       "    ResumedActivity: ActivityRecord{1a u0 com.android.launcher3/.Launcher t2}\n",
				       pkg) == 0);
	/* a package whose name only starts like ours is not ours */
	CHECK(kvb_jankbench_foreground("mResumedActivity: ActivityRecord{9 u0 com.android.benchmarkx/.Main t3}\n", pkg) ==
	      0);
	CHECK(kvb_jankbench_foreground("mResumedActivity: null\n", pkg) == 0);
	/* the benchmark named elsewhere (a paused activity) does not count */
	CHECK(kvb_jankbench_foreground("    mLastPausedActivity: ActivityRecord{5 u0 com.android.benchmark/.app.RunLocalBenchmarksActivity t4}\n"
				       "    mResumedActivity: ActivityRecord{1a u0 com.android.launcher3/.Launcher t2}",
				       pkg) == 0);
	/* no resumed-activity line at all: nothing can be concluded */
	CHECK(kvb_jankbench_foreground("Can't find service: activity\n", pkg) == -1);
	CHECK(kvb_jankbench_foreground("", pkg) == -1);
}

static void test_jankbench__data_dir_from_dumpsys_package(void)
{
	char *d = kvb_jankbench_data_dir("Packages:\n  Package [com.android.benchmark] (5e1f2a0):\n    userId=10123\n"
					 "    codePath=/data/app/com.android.benchmark-1\n    dataDir=/data/user/0/com.android.benchmark\n"
					 "    legacyNativeLibraryDir=/data/app/com.android.benchmark-1/lib\n");
	CHECK_STR(d, "/data/user/0/com.android.benchmark");
	free(d);
	/* "deviceProtectedDataDir=" or a relative value is not the app's dataDir */
	d = kvb_jankbench_data_dir("    deviceProtectedDataDir=/data/user_de/0/x\n    dataDir=relative\n");
	CHECK(d == NULL);
	d = kvb_jankbench_data_dir("Unable to find package: com.android.benchmark\n");
	CHECK(d == NULL);
	free(d);
}

/*
 * Two variants, one job each, Jankbench-style metrics with rep 0..2 and two
 * tests: diff must give one row per (test_name, variant) with n = 3 (reps
 * pooled), not one row per rep.
 */
static void test_jankbench__diff_pools_reps_per_test_name(void)
{
	char dir[] = "/tmp/kvb-jankrep-XXXXXX";
	char *csv, *db, *text = NULL;
	size_t len = 0;
	struct kvb_store *st = NULL;
	struct kvb_error err;
	int64_t run = 0;
	FILE *f, *out;
	CHECK(mkdtemp(dir) != NULL);
	csv = kvb_xasprintf("%s/in.csv", dir);
	db = kvb_xasprintf("%s/r.db", dir);
	f = fopen(csv, "w");
	CHECK(f != NULL);
	fputs("variant,workload,metric,value,units,lower_is_better,iteration,test_name,rep\n", f);
	for (int v = 0; v < 2; v++)
		for (int t = 0; t < 2; t++)
			for (int r = 0; r < 3; r++)
				fprintf(f, "%s,jankbench,frame_duration_max,%d,ms,1,1,%s,%d\n", v ? "b" : "a",
					(v ? 15 : 20) + 10 * t + r, t ? "edit_text" : "list_view", r);
	fclose(f);
	CHECK(kvb_store_open(&st, db, 0, &err) == KVB_OK);
	CHECK(kvb_csv_import(st, csv, &run, &err) == KVB_OK);
	struct kvb_diff_opts o = { .fmt = &kvb_format_csv, .stat = KVB_STAT_MAX, .alpha = 0.05 };
	o.sel.workload = "jankbench";
	o.sel.metric_glob = "frame_duration_max";
	out = open_memstream(&text, &len);
	CHECK(kvb_diff_print(st, &o, out, &err) == KVB_OK);
	fclose(out);
	fprintf(stderr, "%s", text);
	/* 2 tests x 2 variants */
	size_t rows = 0;
	for (const char *p = strstr(text, "jankbench,"); p; p = strstr(p + 1, "jankbench,"))
		rows++;
	CHECK(rows == 4);
	CHECK(strstr(text, "rep=") == NULL);
	/* list_view: max of a is 22, of b 17: -22.73 %; n 3 each */
	CHECK_CONTAINS(text, "jankbench,frame_duration_max (ms),test_name=list_view,a,3,1,22,");
	CHECK_CONTAINS(text, "jankbench,frame_duration_max (ms),test_name=list_view,b,3,1,17,");
	CHECK_CONTAINS(text, ",-22.72727272727");
	CHECK_CONTAINS(text, "jankbench,frame_duration_max (ms),test_name=edit_text,a,3,1,32,");
	free(text);
	kvb_store_close(st);
	unlink(csv);
	char *side = kvb_xasprintf("%s-wal", db), *shm = kvb_xasprintf("%s-shm", db);
	unlink(db);
	unlink(side);
	unlink(shm);
	free(side);
	free(shm);
	rmdir(dir);
	free(csv);
	free(db);
}

#define TESTS                                              \
	T(test_jankbench__test_ids_by_name_or_number)        \
	T(test_jankbench__foreground_from_dumpsys_activities) \
	T(test_jankbench__data_dir_from_dumpsys_package)     \
	T(test_jankbench__diff_pools_reps_per_test_name)
#include "test_main.h"
