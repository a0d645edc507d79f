/*
 * Jankbench results reader on real SQLite files built here with the app's
 * ui_results schema and frame data whose statistics are known exactly.
 */
#include "test.h"
#include "workload/workload.h"
#include "core/buf.h"
#include "core/spawn.h"
#include "config/doc.h"
#include "config/keys.h"
#include "core/util.h"
#include "workload/jankbench_db.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* The table as the Jankbench app creates it (GlobalResultsStore). */
static const char *const ui_results_schema =
	"CREATE TABLE ui_results (_id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, run_id INTEGER,"
	" iteration INTEGER, timestamp TEXT, unknown_delay_duration REAL, input_handling_duration REAL,"
	" animation_duration REAL, layout_measure_duration REAL, draw_duration REAL, sync_duration REAL,"
	" command_issue_duration REAL, swap_buffers_duration REAL, total_duration REAL, jank_frame BOOLEAN)";

static char tmpdir[64];

static char *tmp_path(const char *name)
{
	if (!*tmpdir) {
		strcpy(tmpdir, "/tmp/kvb-jank-XXXXXX");
		CHECK(mkdtemp(tmpdir) != NULL);
	}
	return kvb_xasprintf("%s/%s", tmpdir, name);
}

static void exec_sql(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "sql: %s: %s\n", sql, msg);
		kvb_test_failures++;
	}
	sqlite3_free(msg);
}

static void add_frame(sqlite3 *db, const char *name, int iter, double total_ms, int jank)
{
	sqlite3_stmt *st;
	CHECK(sqlite3_prepare_v2(db,
				 "INSERT INTO ui_results (name, run_id, iteration, timestamp, unknown_delay_duration,"
				 " input_handling_duration, animation_duration, layout_measure_duration, draw_duration,"
				 " sync_duration, command_issue_duration, swap_buffers_duration, total_duration, jank_frame)"
				 " VALUES (?, 1, ?, '1700000000000', 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, ?, ?)",
				 -1, &st, NULL) == SQLITE_OK);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, iter);
	sqlite3_bind_double(st, 3, total_ms);
	sqlite3_bind_int(st, 4, jank);
	CHECK(sqlite3_step(st) == SQLITE_DONE);
	sqlite3_finalize(st);
}

/* Order in which list_view iteration 0's durations 1..100 ms are inserted (_id order). */
static int shuffled[100];

/*
 * list_view it 0: 1..100 ms in shuffled order, jank when > 16 ms (84 frames);
 * list_view it 1: 10, 20, 30, 40 ms, jank 0, 1, 1, 1; edit_text it 0: one 7.5 ms frame.
 * Rows of the groups are interleaved.
 */
static char *build_db(const char *name, int wal, sqlite3 **keep_open)
{
	char *path = tmp_path(name);
	sqlite3 *db;
	unsigned seed = 7;
	unlink(path);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	if (wal)
		exec_sql(db, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0");
	exec_sql(db, ui_results_schema);
	for (int i = 0; i < 100; i++)
		shuffled[i] = i + 1;
	for (int i = 99; i > 0; i--) {
		int k, t;
		seed = seed * 1103515245u + 12345u;
		k = (int)((seed >> 8) % (unsigned)(i + 1));
		t = shuffled[i];
		shuffled[i] = shuffled[k];
		shuffled[k] = t;
	}
	for (int i = 0; i < 100; i++) {
		add_frame(db, "list_view", 0, shuffled[i], shuffled[i] > 16);
		if (i < 4)
			add_frame(db, "list_view", 1, 10.0 * (i + 1), i > 0);
		if (i == 50)
			add_frame(db, "edit_text", 0, 7.5, 0);
	}
	if (keep_open)
		*keep_open = db;
	else
		sqlite3_close(db);
	return path;
}

static void check_known_stats(const struct kvb_jank_results *res)
{
	CHECK(res->n == 3);
	if (res->n != 3)
		return;
	CHECK_STR(res->v[0].test_name, "edit_text");
	CHECK(res->v[0].iteration == 0 && res->v[0].frames == 1);
	CHECK_NEAR(res->v[0].mean_ms, 7.5, 0);
	CHECK_NEAR(res->v[0].p99_ms, 7.5, 0);
	CHECK_NEAR(res->v[0].jank_pct, 0, 0);

	CHECK_STR(res->v[1].test_name, "list_view");
	CHECK(res->v[1].iteration == 0 && res->v[1].frames == 100);
	CHECK_NEAR(res->v[1].mean_ms, 50.5, 1e-12);
	CHECK_NEAR(res->v[1].max_ms, 100, 0);
	/* h = 99 q: p90 = 90 + 0.1, p95 = 95 + 0.05, p99 = 99 + 0.01 */
	CHECK_NEAR(res->v[1].p90_ms, 90.1, 1e-9);
	CHECK_NEAR(res->v[1].p95_ms, 95.05, 1e-9);
	CHECK_NEAR(res->v[1].p99_ms, 99.01, 1e-9);
	CHECK_NEAR(res->v[1].jank_pct, 84.0, 1e-12);

	CHECK(res->v[2].iteration == 1 && res->v[2].frames == 4);
	CHECK_NEAR(res->v[2].mean_ms, 25, 1e-12);
	CHECK_NEAR(res->v[2].max_ms, 40, 0);
	/* h = 3 q: 30 + 0.7 x 10, 30 + 0.85 x 10, 30 + 0.97 x 10 */
	CHECK_NEAR(res->v[2].p90_ms, 37, 1e-9);
	CHECK_NEAR(res->v[2].p95_ms, 38.5, 1e-9);
	CHECK_NEAR(res->v[2].p99_ms, 39.7, 1e-9);
	CHECK_NEAR(res->v[2].jank_pct, 75, 1e-12);
}

static void test_jank__computes_per_test_iteration_stats(void)
{
	char *path = build_db("results.db", 0, NULL);
	struct kvb_jank_results res;
	struct kvb_error err;
	CHECK(kvb_jankbench_db_read(path, 0, &res, &err) == KVB_OK);
	check_known_stats(&res);
	CHECK(res.n == 3 && res.v[1].frames_ms == NULL);
	kvb_jank_results_release(&res);
	kvb_jank_results_release(NULL);
	free(path);
}

static void test_jank__keeps_frames_in_id_order_on_request(void)
{
	char *path = build_db("frames.db", 0, NULL);
	struct kvb_jank_results res;
	struct kvb_error err;
	int same = 1;
	CHECK(kvb_jankbench_db_read(path, 1, &res, &err) == KVB_OK);
	CHECK(res.n == 3);
	if (res.n == 3 && res.v[1].frames_ms) {
		for (int i = 0; i < 100; i++)
			same &= res.v[1].frames_ms[i] == shuffled[i];
		CHECK(same);
		CHECK(res.v[2].frames_ms[0] == 10 && res.v[2].frames_ms[3] == 40);
	} else {
		CHECK(!"frames kept");
	}
	kvb_jank_results_release(&res);
	free(path);
}

static void test_jank__metrics_have_names_units_and_classifiers(void)
{
	char *path = build_db("metrics.db", 0, NULL);
	struct kvb_jank_results res;
	struct kvb_metrics m;
	struct kvb_error err;
	int seen = 0;
	kvb_metrics_init(&m);
	CHECK(kvb_jankbench_db_read(path, 0, &res, &err) == KVB_OK);
	kvb_jankbench_metrics_add(&m, &res);
	CHECK(m.n == 21);
	CHECK(kvb_workload_check_metrics(kvb_workload_find("jankbench"), &m, 0, &err) == KVB_OK);
	for (size_t i = 0; i < m.n; i++) {
		const struct kvb_metric *mt = &m.v[i];
		const char *tn = cJSON_GetObjectItemCaseSensitive(mt->classifiers, "test_name")->valuestring;
		const char *it = cJSON_GetObjectItemCaseSensitive(mt->classifiers, "rep")->valuestring;
		if (!strcmp(tn, "list_view") && !strcmp(it, "1")) {
			if (!strcmp(mt->name, "jank_pct")) {
				CHECK(mt->value == 75 && !strcmp(mt->units, "%") && mt->lower_is_better == 1);
				seen++;
			} else if (!strcmp(mt->name, "frame_duration_p95")) {
				CHECK_NEAR(mt->value, 38.5, 1e-9);
				CHECK(!strcmp(mt->units, "ms") && mt->lower_is_better == 1);
				seen++;
			} else if (!strcmp(mt->name, "frames")) {
				CHECK(mt->value == 4 && !strcmp(mt->units, "count") && mt->lower_is_better == 0);
				seen++;
			} else if (!strcmp(mt->name, "frame_duration_max") || !strcmp(mt->name, "frame_duration_mean") ||
				   !strcmp(mt->name, "frame_duration_p90") || !strcmp(mt->name, "frame_duration_p99")) {
				seen++;
			}
		}
	}
	CHECK(seen == 7);
	kvb_metrics_release(&m);
	kvb_jank_results_release(&res);
	free(path);
}

static void test_jank__reads_uncheckpointed_wal_without_changing_the_file(void)
{
	sqlite3 *writer = NULL;
	char *path = build_db("wal.db", 1, &writer);
	struct kvb_buf before = KVB_BUF_INIT, after = KVB_BUF_INIT;
	struct kvb_jank_results res;
	struct kvb_error err;
	CHECK(kvb_buf_read_file(&before, path) == 0);
	CHECK(kvb_jankbench_db_read(path, 0, &res, &err) == KVB_OK);
	check_known_stats(&res);
	CHECK(kvb_buf_read_file(&after, path) == 0);
	CHECK(before.len == after.len && !memcmp(before.data, after.data, before.len));
	kvb_jank_results_release(&res);
	sqlite3_close(writer);
	kvb_buf_release(&before);
	kvb_buf_release(&after);
	free(path);
}

static void expect_error(const char *path, const char *want)
{
	struct kvb_jank_results res;
	struct kvb_error err;
	CHECK(kvb_jankbench_db_read(path, 1, &res, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, want);
	CHECK(res.n == 0 && res.v == NULL);
}

static char *db_with(const char *name, const char *sql)
{
	char *path = tmp_path(name);
	sqlite3 *db;
	unlink(path);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	if (sql)
		exec_sql(db, sql);
	sqlite3_close(db);
	return path;
}

static void test_jank__missing_file_is_a_clear_error(void)
{
	expect_error("/nonexistent/BenchmarkResults", "cannot open Jankbench results '/nonexistent/BenchmarkResults': No such file");
}

static void test_jank__empty_db_and_missing_table_are_errors(void)
{
	char *p1 = db_with("empty.db", NULL), *p2 = db_with("other.db", "CREATE TABLE x (a)");
	char *p3 = db_with("norows.db", ui_results_schema);
	expect_error(p1, "has no ui_results table");
	expect_error(p2, "has no ui_results table");
	expect_error(p3, "table ui_results has no frames");
	free(p1);
	free(p2);
	free(p3);
}

static void test_jank__missing_columns_are_all_named(void)
{
	char *p = db_with("cols.db", "CREATE TABLE ui_results (_id INTEGER PRIMARY KEY, name TEXT, iteration INTEGER,"
				     " draw_duration REAL)");
	expect_error(p, "table ui_results lacks column(s) total_duration, jank_frame");
	free(p);
}

static void test_jank__not_a_database_is_an_error(void)
{
	char *p = tmp_path("text.db");
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	fputs("this is not an SQLite database, just some text that is long enough to look like a header...\n", f);
	fclose(f);
	expect_error(p, "file is not a database");
	free(p);
}

static void test_jank__bad_rows_name_their_id(void)
{
	char *p = db_with("badjank.db", ui_results_schema);
	sqlite3 *db;
	CHECK(sqlite3_open(p, &db) == SQLITE_OK);
	add_frame(db, "list_view", 0, 5, 0);
	add_frame(db, "list_view", 0, 6, 2);
	sqlite3_close(db);
	expect_error(p, "row _id 2: jank_frame is 2, not 0 or 1");
	free(p);

	p = db_with("nulldur.db", ui_results_schema);
	CHECK(sqlite3_open(p, &db) == SQLITE_OK);
	add_frame(db, "list_view", 0, 5, 0);
	exec_sql(db, "UPDATE ui_results SET total_duration = NULL WHERE _id = 1");
	sqlite3_close(db);
	expect_error(p, "row _id 1: total_duration is not a number");
	free(p);

	p = db_with("negdur.db", ui_results_schema);
	CHECK(sqlite3_open(p, &db) == SQLITE_OK);
	add_frame(db, "list_view", 0, -1, 0);
	sqlite3_close(db);
	expect_error(p, "row _id 1: negative total_duration -1");
	free(p);
}

static void check_agenda(const char *file, long long reps)
{
	static const char *const tests[] = { "list_view", "image_list_view", "shadow_grid", "high_hitrate_text",
					     "edit_text" };
	struct kvb_doc doc;
	struct kvb_diag d;
	const cJSON *wl;
	size_t i = 0;
	memset(&doc, 0, sizeof(doc));
	kvb_diag_init(&d, &doc);
	CHECK(kvb_doc_load(&doc, file, &d) == KVB_OK);
	wl = cJSON_GetObjectItemCaseSensitive(doc.root, "workloads");
	CHECK(cJSON_GetArraySize(wl) == 5);
	for (const cJSON *w = wl ? wl->child : NULL; w && i < 5; w = w->next, i++) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(w, "params");
		CHECK_STR(kvb_get_str(w, "name", NULL), "jankbench");
		const cJSON *ids = cJSON_GetObjectItemCaseSensitive(p, "test_ids");
		CHECK(cJSON_GetArraySize(ids) == 1);
		CHECK(cJSON_IsString(cJSON_GetArrayItem(ids, 0)));
		if (cJSON_IsString(cJSON_GetArrayItem(ids, 0)))
			CHECK_STR(cJSON_GetArrayItem(ids, 0)->valuestring, tests[i]);
		CHECK(kvb_get_int(p, "reps", 0) == reps);
	}
	kvb_diag_release(&d);
	kvb_doc_release(&doc);
}

static void test_jank__shipped_agendas_run_the_five_lisa_tests(void)
{
	check_agenda(KVB_SOURCE_DIR "/agendas/jankbench.yaml", 30);
	check_agenda(KVB_SOURCE_DIR "/agendas/jankbench-quick.yaml", 2);
}

static void cleanup(void)
{
	const char *argv[] = { "rm", "-rf", tmpdir, NULL };
	struct kvb_spawn_opts o = { .argv = argv, .timeout_ms = 10000 };
	struct kvb_exec_result r;
	struct kvb_error err;
	if (!*tmpdir)
		return;
	kvb_exec_result_init(&r);
	kvb_spawn_run(&o, &r, &err);
	kvb_exec_result_release(&r);
}

static void test_jank__zz_cleanup(void)
{
	cleanup();
}

#define TESTS                                                            \
	T(test_jank__computes_per_test_iteration_stats)                 \
	T(test_jank__keeps_frames_in_id_order_on_request)               \
	T(test_jank__metrics_have_names_units_and_classifiers)          \
	T(test_jank__reads_uncheckpointed_wal_without_changing_the_file) \
	T(test_jank__missing_file_is_a_clear_error)                     \
	T(test_jank__empty_db_and_missing_table_are_errors)             \
	T(test_jank__missing_columns_are_all_named)                     \
	T(test_jank__not_a_database_is_an_error)                        \
	T(test_jank__bad_rows_name_their_id)                            \
	T(test_jank__shipped_agendas_run_the_five_lisa_tests)           \
	T(test_jank__zz_cleanup)
#include "test_main.h"
