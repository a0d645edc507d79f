/*
 * rt-app log parser, statistics, parameter validation and config generation.
 * Logs under tests/fixtures/rt-app/ were written by Debian's rt-app 1.0 (see
 * the README there); expected statistics were computed from them separately
 * (python, no GSL) and are hard-coded here.
 */
#include "test.h"
#include "config/doc.h"
#include "core/buf.h"
#include "core/spawn.h"
#include "core/util.h"
#include "results/pload.h"
#include "store/store.h"
#include "workload/rt_app.h"
#include "workload/workload.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIX KVB_SOURCE_DIR "/tests/fixtures/rt-app"

static const struct kvb_metric *find_metric(const struct kvb_metrics *m, const char *name, const char *task)
{
	for (size_t i = 0; i < m->n; i++) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(m->v[i].classifiers, "task");
		if (!strcmp(m->v[i].name, name) && cJSON_IsString(t) && !strcmp(t->valuestring, task))
			return &m->v[i];
	}
	return NULL;
}

static double metric(const struct kvb_metrics *m, const char *name, const char *task)
{
	const struct kvb_metric *mt = find_metric(m, name, task);
	if (!mt) {
		fprintf(stderr, "metric %s{task=%s} missing\n", name, task);
		kvb_test_failures++;
		return NAN;
	}
	return mt->value;
}

static int load_err(const char *path, struct kvb_error *err)
{
	struct kvb_rtapp_log log;
	int rc;
	kvb_rtapp_log_init(&log);
	rc = kvb_rtapp_log_load(&log, path, err);
	CHECK(rc != KVB_OK || log.n > 0 || log.have);
	kvb_rtapp_log_release(&log);
	return rc;
}

static void test_rtapp__parses_every_row_and_column_of_a_real_log(void)
{
	struct kvb_rtapp_log log;
	struct kvb_error err;
	kvb_rtapp_log_init(&log);
	CHECK(kvb_rtapp_log_load(&log, FIX "/periodic/rt-app-light-0.log", &err) == KVB_OK);
	CHECK(log.n == 100);
	CHECK(log.have == 0x7ffu);
	if (log.n == 100) {
		const struct kvb_rtapp_row *r = &log.rows[0], *z = &log.rows[99];
		CHECK(r->idx == 0 && r->perf == 133333 && r->run_us == 10262 && r->period_us == 10267);
		CHECK(r->start_us == 613134794 && r->end_us == 613145061 && r->rel_st_us == 512);
		CHECK(r->slack_us == -323 && r->c_duration_us == 2000 && r->c_period_us == 10000 && r->wu_lat_us == 0);
		CHECK(z->run_us == 2129 && z->period_us == 7435 && z->slack_us == 4904 && z->wu_lat_us == 402);
	}
	kvb_rtapp_log_release(&log);
	kvb_rtapp_log_release(NULL);
}

static void test_rtapp__stats_of_one_thread_match_reference_values(void)
{
	struct kvb_rtapp_log log;
	const struct kvb_rtapp_log *logs[1] = { &log };
	struct kvb_rtapp_stats st;
	struct kvb_error err;
	kvb_rtapp_log_init(&log);
	CHECK(kvb_rtapp_log_load(&log, FIX "/periodic/rt-app-light-0.log", &err) == KVB_OK);
	CHECK(kvb_rtapp_stats(logs, 1, &st, &err) == KVB_OK);
	CHECK(st.activations == 100);
	CHECK_NEAR(st.slack_mean_us, 6073.35, 1e-9);
	CHECK_NEAR(st.slack_min_us, -323, 0);
	CHECK_NEAR(st.negative_slack_pct, 1.0, 1e-12);
	CHECK_NEAR(st.wu_lat_mean_us, 1267.41, 1e-9);
	CHECK_NEAR(st.wu_lat_p99_us, 4997.77, 1e-9);
	CHECK_NEAR(st.run_mean_us, 2661.66, 1e-9);
	CHECK_NEAR(st.period_mean_us, 10006.19, 1e-9);
	{ /* what a job stores of these statistics is what rt-app declares */
		struct kvb_metrics m;
		kvb_metrics_init(&m);
		kvb_rtapp_metrics_add(&m, "light", &st);
		CHECK(m.n == 8 && kvb_workload_check_metrics(kvb_workload_find("rt-app"), &m, 0, &err) == KVB_OK);
		kvb_metrics_release(&m);
	}
	kvb_rtapp_log_release(&log);
}

static void test_rtapp__pools_the_instances_of_a_task(void)
{
	const char *paths[] = { FIX "/periodic/rt-app-heavy-1.log", FIX "/periodic/rt-app-heavy-2.log",
				FIX "/periodic/rt-app-light-0.log" };
	const char *tasks[] = { "light", "heavy", NULL };
	struct kvb_metrics m;
	struct kvb_error err;
	const struct kvb_metric *mt;
	kvb_metrics_init(&m);
	CHECK(kvb_rtapp_parse_logs(paths, 3, "rt-app", tasks, &m, &err) == KVB_OK);
	CHECK(m.n == 16);
	/* heavy: 84 + 83 phases of two threads */
	CHECK_NEAR(metric(&m, "activations", "heavy"), 167, 0);
	CHECK_NEAR(metric(&m, "slack_mean", "heavy"), -871.820359281437, 1e-6);
	CHECK_NEAR(metric(&m, "slack_min", "heavy"), -12779, 0);
	CHECK_NEAR(metric(&m, "negative_slack_pct", "heavy"), 47.3053892215569, 1e-9);
	CHECK_NEAR(metric(&m, "wu_lat_mean", "heavy"), 312.628742514970, 1e-9);
	CHECK_NEAR(metric(&m, "wu_lat_p99", "heavy"), 3160.54, 1e-9);
	CHECK_NEAR(metric(&m, "run_mean", "heavy"), 10502.7065868263, 1e-9);
	CHECK_NEAR(metric(&m, "period_mean", "heavy"), 11976.7125748503, 1e-9);
	CHECK_NEAR(metric(&m, "activations", "light"), 100, 0);
	/* units and direction are an interface (docs/design.md#metrics) */
	mt = find_metric(&m, "slack_min", "light");
	CHECK(mt && !strcmp(mt->units, "us") && mt->lower_is_better == 0);
	mt = find_metric(&m, "negative_slack_pct", "light");
	CHECK(mt && !strcmp(mt->units, "%") && mt->lower_is_better == 1);
	mt = find_metric(&m, "wu_lat_p99", "light");
	CHECK(mt && !strcmp(mt->units, "us") && mt->lower_is_better == 1);
	mt = find_metric(&m, "activations", "light");
	CHECK(mt && !strcmp(mt->units, "count") && mt->lower_is_better == 0);
	/* order: the tasks list first */
	CHECK(m.n && !strcmp(cJSON_GetObjectItemCaseSensitive(m.v[0].classifiers, "task")->valuestring, "light"));
	kvb_metrics_release(&m);
}

static void test_rtapp__keeps_negative_slack_rows(void)
{
	const char *paths[] = { FIX "/overload/rt-app-over-0.log", FIX "/overload/rt-app-over-1.log" };
	struct kvb_metrics m;
	struct kvb_error err;
	kvb_metrics_init(&m);
	CHECK(kvb_rtapp_parse_logs(paths, 2, "rt-app", NULL, &m, &err) == KVB_OK);
	CHECK_NEAR(metric(&m, "activations", "over"), 130, 0);
	CHECK_NEAR(metric(&m, "negative_slack_pct", "over"), 98.4615384615385, 1e-9);
	CHECK_NEAR(metric(&m, "slack_mean", "over"), -5504.03076923077, 1e-9);
	CHECK_NEAR(metric(&m, "slack_min", "over"), -10937, 0);
	CHECK_NEAR(metric(&m, "run_mean", "over"), 15555.3307692308, 1e-9);
	kvb_metrics_release(&m);
}

static void same_stats(const char *a, const char *b)
{
	struct kvb_rtapp_log la, lb;
	const struct kvb_rtapp_log *pa[1] = { &la }, *pb[1] = { &lb };
	struct kvb_rtapp_stats sa, sb;
	struct kvb_error err;
	kvb_rtapp_log_init(&la);
	kvb_rtapp_log_init(&lb);
	CHECK(kvb_rtapp_log_load(&la, a, &err) == KVB_OK);
	CHECK(kvb_rtapp_log_load(&lb, b, &err) == KVB_OK);
	CHECK(la.n == 100 && lb.n == la.n && la.have == lb.have);
	CHECK(kvb_rtapp_stats(pa, 1, &sa, &err) == KVB_OK && kvb_rtapp_stats(pb, 1, &sb, &err) == KVB_OK);
	CHECK(!memcmp(&sa, &sb, sizeof(sa)));
	CHECK(la.n && lb.n && la.rows[5].c_duration_us == 2000 && lb.rows[5].c_duration_us == 2000);
	CHECK(la.n && lb.n && !memcmp(la.rows, lb.rows, la.n * sizeof(*la.rows)));
	kvb_rtapp_log_release(&la);
	kvb_rtapp_log_release(&lb);
}

static void test_rtapp__reads_older_c_run_header_like_c_duration(void)
{
	same_stats(FIX "/periodic/rt-app-light-0.log", FIX "/c_run/rt-app-light-0.log");
}

static void test_rtapp__maps_columns_by_header_name_not_position(void)
{
	/* run and slack swapped, in the header and in every row */
	same_stats(FIX "/periodic/rt-app-light-0.log", FIX "/reordered/rt-app-light-0.log");
}

static void test_rtapp__rejects_truncated_last_line_with_file_and_line(void)
{
	struct kvb_error err;
	CHECK(load_err(FIX "/bad/truncated.log", &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "truncated.log:102: truncated last line");
}

static void test_rtapp__rejects_garbage_line_with_file_and_line(void)
{
	struct kvb_error err;
	CHECK(load_err(FIX "/bad/garbage.log", &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "garbage.log:40: expected 11 fields as in the header, found 4");
}

static void test_rtapp__rejects_log_without_header(void)
{
	struct kvb_error err;
	CHECK(load_err(FIX "/bad/noheader.log", &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "noheader.log:1: data before the '#idx ...' header");
	CHECK(load_err(FIX "/bad/empty.log", &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "empty.log:1: empty log");
}

static void test_rtapp__rejects_non_numeric_field_naming_the_column(void)
{
	struct kvb_error err;
	CHECK(load_err(FIX "/bad/nonnumeric.log", &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "nonnumeric.log:10: field 'slack' is not an integer: \"12x4\"");
}

static void test_rtapp__rejects_short_row(void)
{
	struct kvb_error err;
	CHECK(load_err(FIX "/bad/short_row.log", &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "short_row.log:7: expected 11 fields as in the header, found 9");
}

static void test_rtapp__rejects_bad_headers(void)
{
	struct kvb_rtapp_log log;
	struct kvb_error err;
	const char *no_wu = "#idx perf run period slack\n0 1 2 3 4\n";
	const char *twice = "#idx run period slack wu_lat c_run c_duration\n";
	const char *nul = "#idx run period slack wu_lat\n0 1\0 2 3 4\n";
	kvb_rtapp_log_init(&log);
	CHECK(kvb_rtapp_log_parse(&log, "a.log", no_wu, strlen(no_wu), &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "a.log:1: header has no 'wu_lat' column");
	CHECK(kvb_rtapp_log_parse(&log, "b.log", twice, strlen(twice), &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "b.log:1: column 'c_duration' appears twice");
	CHECK(kvb_rtapp_log_parse(&log, "c.log", nul, 40, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "c.log:2: NUL byte");
	kvb_rtapp_log_release(&log);
}

static void test_rtapp__header_only_log_parses_but_has_no_stats(void)
{
	struct kvb_rtapp_log log;
	const struct kvb_rtapp_log *logs[1] = { &log };
	struct kvb_rtapp_stats st;
	struct kvb_error err;
	kvb_rtapp_log_init(&log);
	CHECK(kvb_rtapp_log_load(&log, FIX "/bad/header_only.log", &err) == KVB_OK);
	CHECK(log.n == 0);
	CHECK(kvb_rtapp_stats(logs, 1, &st, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "no completed phase");
	kvb_rtapp_log_release(&log);
}

static void test_rtapp__p99_is_gsl_linear_interpolation(void)
{
	/* wu_lat 1..100: h = 99 * 0.99 = 98.01 -> 99 + 0.01 * (100 - 99) */
	struct kvb_buf b = KVB_BUF_INIT;
	struct kvb_rtapp_log log;
	const struct kvb_rtapp_log *logs[1] = { &log };
	struct kvb_rtapp_stats st;
	struct kvb_error err;
	kvb_buf_adds(&b, "# idx run period slack wu_lat\n");
	for (int i = 100; i >= 1; i--)
		kvb_buf_addf(&b, "0 10 100 %d %d\n", i - 50, i);
	kvb_rtapp_log_init(&log);
	CHECK(kvb_rtapp_log_parse(&log, "mem", b.data, b.len, &err) == KVB_OK);
	CHECK(kvb_rtapp_stats(logs, 1, &st, &err) == KVB_OK);
	CHECK_NEAR(st.wu_lat_p99_us, 99.01, 1e-9);
	CHECK_NEAR(st.wu_lat_mean_us, 50.5, 1e-12);
	CHECK_NEAR(st.negative_slack_pct, 49.0, 1e-12); /* slack -49..-1 */
	CHECK_NEAR(st.slack_min_us, -49, 0);
	kvb_rtapp_log_release(&log);
	kvb_buf_release(&b);
}

static void test_rtapp__survives_truncation_and_byte_damage_anywhere(void)
{
	struct kvb_buf b = KVB_BUF_INIT;
	struct kvb_rtapp_log log;
	struct kvb_error err;
	unsigned seed = 12345;
	size_t ok = 0;
	CHECK(kvb_buf_read_file(&b, FIX "/periodic/rt-app-light-0.log") == 0);
	kvb_rtapp_log_init(&log);
	for (size_t cut = 0; cut < b.len; cut += 3) {
		int rc = kvb_rtapp_log_parse(&log, "cut", b.data, cut, &err);
		CHECK(rc == KVB_OK || rc == KVB_EINPUT);
		/* a cut log only parses when it ends exactly at a line end */
		CHECK(rc != KVB_OK || cut == 0 || b.data[cut - 1] == '\n');
		ok += rc == KVB_OK;
	}
	CHECK(ok > 10);
	for (int i = 0; i < 3000; i++) {
		char *copy = kvb_xmalloc(b.len);
		memcpy(copy, b.data, b.len);
		for (int k = 0; k < 3; k++) {
			seed = seed * 1103515245u + 12345u;
			copy[(seed >> 8) % b.len] = (char)(seed >> 3);
		}
		int rc = kvb_rtapp_log_parse(&log, "fuzz", copy, b.len, &err);
		CHECK(rc == KVB_OK || rc == KVB_EINPUT);
		CHECK(rc != KVB_OK || log.n <= 100);
		free(copy);
	}
	kvb_rtapp_log_release(&log);
	kvb_buf_release(&b);
}

static void test_rtapp__log_name_splits_thread_and_index(void)
{
	char *th = NULL;
	long idx = -1;
	CHECK(kvb_rtapp_log_name("/x/y/rt-app-light-0.log", "rt-app", &th, &idx) == 0);
	CHECK_STR(th, "light");
	CHECK(idx == 0);
	free(th);
	CHECK(kvb_rtapp_log_name("rt-app-my-task-12.log", "rt-app", &th, &idx) == 0);
	CHECK_STR(th, "my-task");
	CHECK(idx == 12);
	free(th);
	CHECK(kvb_rtapp_log_name("rt-app-light.log", "rt-app", &th, &idx) == KVB_EINPUT);
	CHECK(kvb_rtapp_log_name("rt-app-light-x.log", "rt-app", &th, &idx) == KVB_EINPUT);
	CHECK(kvb_rtapp_log_name("other-light-0.log", "rt-app", &th, &idx) == KVB_EINPUT);
	CHECK(kvb_rtapp_log_name("rt-app--0.log", "rt-app", &th, &idx) == KVB_EINPUT);
	CHECK(kvb_rtapp_log_name("rt-app-light-0.txt", "rt-app", &th, &idx) == KVB_EINPUT);
	CHECK(kvb_rtapp_log_name("rt-app-light-.log", "rt-app", &th, &idx) == KVB_EINPUT);
}

static void test_rtapp__task_of_matches_exact_name_or_instance_suffix(void)
{
	const char *tasks[] = { "a", "a-b", "heavy", NULL };
	CHECK_STR(kvb_rtapp_task_of("heavy", tasks), "heavy");
	CHECK_STR(kvb_rtapp_task_of("heavy-0003", tasks), "heavy");
	CHECK_STR(kvb_rtapp_task_of("a-b", tasks), "a-b");
	CHECK_STR(kvb_rtapp_task_of("a-b-2", tasks), "a-b");
	CHECK(kvb_rtapp_task_of("a-x", tasks) == NULL);
	CHECK(kvb_rtapp_task_of("ab", tasks) == NULL);
	CHECK(kvb_rtapp_task_of("heavy-", tasks) == NULL);
}

static void test_rtapp__parse_logs_fails_for_a_task_without_log(void)
{
	const char *paths[] = { FIX "/periodic/rt-app-light-0.log" };
	const char *tasks[] = { "light", "missing", NULL };
	struct kvb_metrics m;
	struct kvb_error err;
	kvb_metrics_init(&m);
	CHECK(kvb_rtapp_parse_logs(paths, 1, "rt-app", tasks, &m, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "no rt-app log for task 'missing'");
	CHECK(m.n == 0); /* no partial metrics */
	kvb_metrics_release(&m);
}

/* A thread that never completed a phase: recorded (activations 0 and a note), the other tasks kept. */
static void test_rtapp__task_without_phase_is_recorded_and_others_kept(void)
{
	const char *paths[] = { FIX "/periodic/rt-app-light-0.log", FIX "/noprogress/rt-app-late-3.log" };
	const char *tasks[] = { "light", "late", NULL };
	struct kvb_metrics m;
	struct kvb_error err;
	int light = 0;
	kvb_metrics_init(&m);
	CHECK(kvb_rtapp_parse_logs(paths, 2, "rt-app", tasks, &m, &err) == KVB_OK);
	for (size_t i = 0; i < m.n; i++)
		light += !strcmp(cJSON_GetObjectItem(m.v[i].classifiers, "task")->valuestring, "light");
	CHECK(light == 8);
	CHECK(m.n == 9);
	CHECK_STR(m.v[8].name, "activations");
	CHECK(m.v[8].value == 0);
	CHECK_STR(cJSON_GetObjectItem(m.v[8].classifiers, "task")->valuestring, "late");
	CHECK(m.nnotes == 1);
	if (m.nnotes) {
		CHECK_CONTAINS(m.notes[0], "rt-app task 'late' completed no phase (log '");
		CHECK_CONTAINS(m.notes[0], "rt-app-late-3.log'): activations = 0");
	}
	kvb_metrics_release(&m);
	/* Only the empty one: nothing was measured, the job fails; the message's quotes balance. */
	kvb_metrics_init(&m);
	CHECK(kvb_rtapp_parse_logs(paths + 1, 1, "rt-app", NULL, &m, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "task 'late': no completed phase in '" FIX "/noprogress/rt-app-late-3.log'");
	CHECK(m.n == 0);
	kvb_metrics_release(&m);
}

static void test_rtapp__parse_logs_fails_on_bad_log_without_partial_metrics(void)
{
	const char *paths[] = { FIX "/periodic/rt-app-light-0.log", FIX "/bad/rt-app-bad-3.log" };
	const char *other[] = { FIX "/periodic/rt-app.json" };
	struct kvb_metrics m;
	struct kvb_error err;
	kvb_metrics_init(&m);
	CHECK(kvb_rtapp_parse_logs(paths, 2, "rt-app", NULL, &m, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "rt-app-bad-3.log:");
	CHECK(m.n == 0);
	CHECK(kvb_rtapp_parse_logs(other, 1, "rt-app", NULL, &m, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "is not named like an rt-app log");
	kvb_metrics_release(&m);
}

/* Validates params given as JSON; returns the joined messages (owned). */
static char *validate(const char *json, int *nerr)
{
	cJSON *p = cJSON_Parse(json);
	struct kvb_diag d;
	struct kvb_buf b = KVB_BUF_INIT;
	const struct kvb_workload_ops *ops = kvb_workload_find("rt-app");
	CHECK(p != NULL);
	CHECK(ops && ops->validate == kvb_rtapp_validate);
	kvb_diag_init(&d, NULL);
	*nerr = kvb_keys_check(p, "workloads[0].params", ops->params, &d);
	*nerr += kvb_rtapp_validate(p, "workloads[0].params", &d);
	for (size_t i = 0; i < d.msgs.n; i++)
		kvb_buf_addf(&b, "%s\n", d.msgs.v[i]);
	kvb_diag_release(&d);
	cJSON_Delete(p);
	return kvb_buf_detach(&b);
}

static void test_rtapp__validate_accepts_a_good_task_set(void)
{
	int n;
	char *msg = validate("{\"tasks\": [{\"name\": \"light\", \"period_us\": 10000, \"duty_pct\": 20},"
			     "{\"name\": \"rt\", \"instances\": 2, \"period_us\": 5000, \"run_us\": 1000,"
			     " \"policy\": \"SCHED_FIFO\", \"priority\": 50, \"cpus\": [0, 1], \"util_min\": 0, \"util_max\": 512}],"
			     " \"duration_s\": 2, \"calibration\": 15}", &n);
	CHECK(n == 0);
	CHECK_STR(msg, "");
	free(msg);
	msg = validate("{\"config\": \"" KVB_SOURCE_DIR "/tests/fixtures/field/rt-app-config/rt-app/tutorial_example1.json\","
		       " \"calibration\": \"CPU3\"}", &n);
	CHECK(n == 0);
	free(msg);
}

static void test_rtapp__validate_reports_errors_with_key_paths(void)
{
	int n;
	char *msg = validate("{\"tasks\": [{\"name\": \"a\", \"period_us\": 10000, \"duty_pct\": 20, \"run_us\": 5},"
			     "{\"name\": \"b\", \"period_us\": 10000, \"run_us\": 1, \"policy\": \"SCHED_FIFO\", \"priority\": 0},"
			     "{\"name\": \"a\", \"period_us\": 10000, \"duty_pct\": 120, \"cpus\": [0, -1]},"
			     "{\"name\": \"bad/name\", \"perod_us\": 1, \"run_us\": 1},"
			     "{\"name\": \"u\", \"period_us\": 100, \"run_us\": 1, \"util_min\": 600, \"util_max\": 500}],"
			     " \"calibration\": \"GPU0\"}", &n);
	CHECK(n == 9);
	CHECK_CONTAINS(msg, "workloads[0].params.tasks[0]: give exactly one of 'run_us' and 'duty_pct'");
	CHECK_CONTAINS(msg, "workloads[0].params.tasks[1].priority: priority 0 is outside 1..99 for SCHED_FIFO");
	CHECK_CONTAINS(msg, "workloads[0].params.tasks[2].duty_pct: duty_pct 120 is above 100");
	CHECK_CONTAINS(msg, "workloads[0].params.tasks[2].cpus[1]: expected a CPU number, got -1");
	CHECK_CONTAINS(msg, "workloads[0].params.tasks[2].name: task name 'a' is used twice");
	CHECK_CONTAINS(msg, "workloads[0].params.tasks[3].perod_us: unknown key 'perod_us'");
	CHECK_CONTAINS(msg, "workloads[0].params.tasks[3]: missing required key 'period_us'");
	CHECK_CONTAINS(msg, "workloads[0].params.tasks[4]: util_min 600 is above util_max 500");
	CHECK_CONTAINS(msg, "workloads[0].params.calibration: expected ns per loop (integer >= 1) or \"CPUn\", got \"GPU0\"");
	free(msg);
	msg = validate("{\"config\": \"x.json\", \"tasks\": [{\"name\": \"a\", \"period_us\": 1, \"run_us\": 1}]}", &n);
	CHECK(n == 1);
	CHECK_CONTAINS(msg, "workloads[0].params: give one of 'config' (an rt-app use case) and 'tasks'");
	free(msg);
	/* The config is opened by validation (agenda check), not first when the job runs. */
	msg = validate("{\"config\": \"./x.json\"}", &n);
	CHECK(n == 1);
	CHECK_CONTAINS(msg, "workloads[0].params.config: rt-app config './x.json': no file ./x.json in the current directory");
	free(msg);
	msg = validate("{\"duration_s\": 0}", &n);
	CHECK(n == 2);
	CHECK_CONTAINS(msg, "workloads[0].params.duration_s: expected a number > 0");
	free(msg);
}

/* rt-app's own example4 ("runs ... until the use case is stopped with Ctrl+C"): no global.duration,
 * every task loop -1. Without duration_s the job could only end at its timeout: agenda check says so. */
static void test_rtapp__validate_refuses_a_config_that_never_ends(void)
{
	int n;
	char *msg = validate("{\"config\": \"" KVB_SOURCE_DIR
			     "/tests/fixtures/field/rt-app-config/rt-app/tutorial_example4.json\"}", &n);
	CHECK(n == 1);
	CHECK_CONTAINS(msg, "workloads[0].params.config: ");
	CHECK_CONTAINS(msg, "tutorial_example4.json has no global.duration > 0 and tasks 'thread0', 'thread1' loop "
			    "forever (loop -1, rt-app's default): rt-app would run until the job's timeout; give duration_s");
	free(msg);
	/* with duration_s it ends */
	msg = validate("{\"config\": \"" KVB_SOURCE_DIR
		       "/tests/fixtures/field/rt-app-config/rt-app/tutorial_example4.json\", \"duration_s\": 2}", &n);
	CHECK(n == 0);
	free(msg);
	/* example3: no duration but its one task has a finite loop: it ends by itself */
	msg = validate("{\"config\": \"" KVB_SOURCE_DIR
		       "/tests/fixtures/field/rt-app-config/rt-app/tutorial_example3.json\"}", &n);
	CHECK(n == 0);
	CHECK_STR(msg, "");
	free(msg);
}

static void test_rtapp__generates_config_from_tasks(void)
{
	cJSON *p = cJSON_Parse("{\"tasks\": [{\"name\": \"light\", \"period_us\": 10000, \"duty_pct\": 20},"
			       "{\"name\": \"dl\", \"instances\": 3, \"period_us\": 4000, \"run_us\": 1000, \"policy\": \"SCHED_DEADLINE\"},"
			       "{\"name\": \"rt\", \"period_us\": 1000, \"run_us\": 100, \"policy\": \"SCHED_RR\", \"priority\": 7,"
			       " \"cpus\": [1], \"util_max\": 300}],"
			       " \"duration_s\": 60, \"calibration\": 15}");
	cJSON *cfg = NULL, *g, *t, *light, *dl, *rt;
	struct kvb_error err;
	long dur = 0;
	CHECK(kvb_rtapp_config_build(p, "/data/kvb/job1", "rt-app", &cfg, &dur, &err) == KVB_OK);
	CHECK(dur == 60);
	g = cJSON_GetObjectItemCaseSensitive(cfg, "global");
	t = cJSON_GetObjectItemCaseSensitive(cfg, "tasks");
	CHECK(kvb_get_int(g, "duration", 0) == 60);
	CHECK(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(g, "calibration")) && kvb_get_int(g, "calibration", 0) == 15);
	CHECK_STR(kvb_get_str(g, "logdir", NULL), "/data/kvb/job1");
	CHECK_STR(kvb_get_str(g, "log_basename", NULL), "rt-app");
	/* rt: 60 s at 1 ms = 60000 rows x 256 bytes = 14.6 MB -> 16 MB */
	CHECK(kvb_get_int(g, "log_size", 0) == 16);
	light = cJSON_GetObjectItemCaseSensitive(t, "light");
	dl = cJSON_GetObjectItemCaseSensitive(t, "dl");
	rt = cJSON_GetObjectItemCaseSensitive(t, "rt");
	CHECK(kvb_get_int(light, "run", 0) == 2000);
	CHECK(kvb_get_int(light, "instance", 0) == 1);
	CHECK_STR(kvb_get_str(light, "policy", NULL), "SCHED_OTHER");
	CHECK(kvb_get_int(cJSON_GetObjectItemCaseSensitive(light, "timer"), "period", 0) == 10000);
	CHECK_STR(kvb_get_str(cJSON_GetObjectItemCaseSensitive(light, "timer"), "ref", NULL), "unique");
	/* rt-app runs events in key order: run, then the timer */
	CHECK(light && light->child && !strcmp(cJSON_GetArrayItem(light, cJSON_GetArraySize(light) - 2)->string, "run"));
	CHECK(kvb_get_int(dl, "instance", 0) == 3);
	CHECK(kvb_get_int(dl, "dl-runtime", 0) == 1000 && kvb_get_int(dl, "dl-period", 0) == 4000 &&
	      kvb_get_int(dl, "dl-deadline", 0) == 4000);
	CHECK(kvb_get_int(rt, "priority", 0) == 7 && kvb_get_int(rt, "util_max", 0) == 300);
	CHECK(!cJSON_GetObjectItemCaseSensitive(rt, "util_min"));
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rt, "cpus")) == 1);
	cJSON_Delete(cfg);
	cJSON_Delete(p);
}

static char *write_tmp(const char *text)
{
	char *path = kvb_xstrdup("/tmp/kvb-rtapp-XXXXXX.json");
	int fd = mkstemps(path, 5);
	CHECK(fd >= 0);
	CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void test_rtapp__config_file_keeps_tasks_and_rewrites_log_keys(void)
{
	char *file = write_tmp("{\"global\": {\"duration\": 5, \"logdir\": \"/elsewhere\", \"log_basename\": \"x\",\n"
			       " \"calibration\": \"CPU1\", \"gnuplot\": false},\n"
			       " \"tasks\": {\"t1\": {\"loop\": 3, \"run\": 100, \"sleep\": 100}}}\n");
	char *json = kvb_xasprintf("{\"config\": \"%s\"}", file);
	char *json2 = kvb_xasprintf("{\"config\": \"%s\", \"duration_s\": 2, \"calibration\": 20}", file);
	cJSON *p = cJSON_Parse(json), *p2 = cJSON_Parse(json2), *cfg = NULL, *g;
	struct kvb_error err;
	long dur = 0;

	CHECK(kvb_rtapp_config_build(p, "/r", "rt-app", &cfg, &dur, &err) == KVB_OK);
	CHECK(dur == 5);
	g = cJSON_GetObjectItemCaseSensitive(cfg, "global");
	CHECK_STR(kvb_get_str(g, "logdir", NULL), "/r");
	CHECK_STR(kvb_get_str(g, "log_basename", NULL), "rt-app");
	CHECK_STR(kvb_get_str(g, "calibration", NULL), "CPU1");
	CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(g, "gnuplot")));
	CHECK(kvb_get_int(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cfg, "tasks"), "t1"), "loop", 0) == 3);
	cJSON_Delete(cfg);

	CHECK(kvb_rtapp_config_build(p2, "/r", "rt-app", &cfg, &dur, &err) == KVB_OK);
	g = cJSON_GetObjectItemCaseSensitive(cfg, "global");
	CHECK(dur == 2 && kvb_get_int(g, "duration", 0) == 2 && kvb_get_int(g, "calibration", 0) == 20);
	cJSON_Delete(cfg);
	unlink(file);
	free(file);
	free(json);
	free(json2);
	cJSON_Delete(p);
	cJSON_Delete(p2);
}

static void test_rtapp__config_file_errors_name_file_and_line(void)
{
	char *file = write_tmp("{\"global\": {\"duration\": 5},\n \"tasks\": {\"t1\": {\"run\": 100,,}}}\n");
	char *json = kvb_xasprintf("{\"config\": \"%s\"}", file);
	cJSON *p = cJSON_Parse(json), *cfg = NULL;
	struct kvb_error err;
	long dur;
	char *want = kvb_xasprintf("%s:2:", file);
	CHECK(kvb_rtapp_config_build(p, "/r", "rt-app", &cfg, &dur, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, want);
	CHECK_CONTAINS(err.msg, "not valid rt-app JSON (json-c: ");
	CHECK(cfg == NULL);
	cJSON_Delete(p);
	p = cJSON_Parse("{\"config\": \"/nonexistent/rt.json\"}");
	CHECK(kvb_rtapp_config_build(p, "/r", "rt-app", &cfg, &dur, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "rt-app config '/nonexistent/rt.json': no file /nonexistent/rt.json in the current directory");
	unlink(file);
	free(file);
	free(json);
	free(want);
	cJSON_Delete(p);
}

static void test_rtapp__shipped_periodic_agenda_validates_and_generates(void)
{
	struct kvb_doc doc;
	struct kvb_diag d;
	const cJSON *wl;
	const struct kvb_workload_ops *ops = kvb_workload_find("rt-app");
	long long runs[2] = { 0, 0 };
	int i = 0;
	memset(&doc, 0, sizeof(doc));
	kvb_diag_init(&d, &doc);
	CHECK(kvb_doc_load(&doc, KVB_SOURCE_DIR "/agendas/rt-app-periodic.yaml", &d) == KVB_OK);
	wl = cJSON_GetObjectItemCaseSensitive(doc.root, "workloads");
	CHECK(cJSON_GetArraySize(wl) == 2);
	for (const cJSON *w = wl ? wl->child : NULL; w && i < 2; w = w->next, i++) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(w, "params");
		char *path = kvb_xasprintf("workloads[%d].params", i);
		cJSON *cfg = NULL, *task;
		struct kvb_error err;
		long dur = 0;
		CHECK_STR(kvb_get_str(w, "name", NULL), "rt-app");
		CHECK(kvb_keys_check(p, path, ops->params, &d) == 0);
		CHECK(kvb_rtapp_validate(p, path, &d) == 0);
		CHECK(kvb_rtapp_config_build(p, "/r", "rt-app", &cfg, &dur, &err) == KVB_OK);
		task = cJSON_GetObjectItemCaseSensitive(cfg, "tasks")->child;
		CHECK(task && kvb_get_int(task, "instance", 0) == 4);
		CHECK(task && kvb_get_int(cJSON_GetObjectItemCaseSensitive(task, "timer"), "period", 0) == 10000);
		runs[i] = task ? kvb_get_int(task, "run", 0) : 0;
		cJSON_Delete(cfg);
		free(path);
	}
	CHECK(runs[0] == 2000 && runs[1] == 6000);
	for (size_t k = 0; k < d.msgs.n; k++)
		fprintf(stderr, "%s\n", d.msgs.v[k]);
	kvb_diag_release(&d);
	kvb_doc_release(&doc);
}

/* rt-app's and WA3's own use cases (tests/fixtures/field/rt-app-config/PROVENANCE) load as rt-app loads them. */
static void test_rtapp__field_configs_load_like_rt_app_loads_them(void)
{
	const char *dir = KVB_SOURCE_DIR "/tests/fixtures/field/rt-app-config";
	const char *sub[] = { "rt-app", "wa3" };
	int loaded = 0, total = 0;
	for (int k = 0; k < 2; k++) {
		char *d = kvb_xasprintf("%s/%s", dir, sub[k]);
		DIR *dp = opendir(d);
		struct dirent *e;
		CHECK(dp != NULL);
		while (dp && (e = readdir(dp))) {
			char *f;
			cJSON *cfg = NULL;
			struct kvb_error err;
			if (!strstr(e->d_name, ".json"))
				continue;
			f = kvb_xasprintf("%s/%s", d, e->d_name);
			total++;
			if (kvb_rtapp_config_load(f, &cfg, &err) == KVB_OK)
				loaded++;
			else if (!(!strncmp(e->d_name, "merge_", 6) && strstr(err.msg, "needs a non-empty \"tasks\"")) &&
				 !(!strncmp(e->d_name, "video-", 6) && strstr(err.msg, ":6:13: not valid rt-app JSON"))) {
				fprintf(stderr, "%s\n", err.msg);
				CHECK(0);
			}
			cJSON_Delete(cfg);
			free(f);
		}
		if (dp)
			closedir(dp);
		free(d);
	}
	/* 28 + 10 files. Not loaded, as rt-app would not load them either: merge_global and
	   merge_resources (fragments without "tasks"), and video-long/-short in both trees (line 6
	   is `"suspend",`, a key without a value). */
	CHECK(total == 38);
	CHECK(loaded == 32);
}

/* Comments, a trailing comma, values read by hand from rt-app's doc/examples/tutorial/example1.json. */
static void test_rtapp__json_c_reads_comments_and_trailing_commas(void)
{
	cJSON *cfg = NULL;
	struct kvb_error err;
	const cJSON *g, *t;
	int rc = kvb_rtapp_config_load(KVB_SOURCE_DIR "/tests/fixtures/field/rt-app-config/rt-app/tutorial_example1.json",
				       &cfg, &err);
	CHECK(rc == KVB_OK);
	if (rc)
		return;
	g = cJSON_GetObjectItemCaseSensitive(cfg, "global");
	t = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cfg, "tasks"), "thread0");
	CHECK(kvb_get_int(g, "duration", 0) == 2);
	CHECK_STR(kvb_get_str(g, "log_basename", ""), "rt-app1");
	CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "gnuplot")));
	CHECK(kvb_get_int(t, "loop", 0) == -1 && kvb_get_int(t, "run", 0) == 20000 && kvb_get_int(t, "sleep", 0) == 80000);
	cJSON_Delete(cfg);
	/* A repeated key is renamed as workgen does (run, run1, run2), a missing brace names the end of file. */
	{
		char *f = write_tmp("{\"tasks\": {\"a\": {\"run\": 1, \"sleep\": 5, \"run\": 2, /* \"run\" */ \"run\": 3,"
				    " \"x\": {\"run\": 4}}}}\n");
		const cJSON *a;
		CHECK(kvb_rtapp_config_load(f, &cfg, &err) == KVB_OK);
		a = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cfg, "tasks"), "a");
		CHECK(kvb_get_int(a, "run", 0) == 1 && kvb_get_int(a, "run1", 0) == 2 && kvb_get_int(a, "run2", 0) == 3);
		CHECK(kvb_get_int(cJSON_GetObjectItemCaseSensitive(a, "x"), "run", 0) == 4);
		CHECK(cJSON_GetArraySize(a) == 5);
		cJSON_Delete(cfg);
		unlink(f);
		free(f);
		f = write_tmp("{\"tasks\": {\"a\": {\"run\": 1}}\n");
		CHECK(kvb_rtapp_config_load(f, &cfg, &err) == KVB_EINPUT);
		CHECK_CONTAINS(err.msg, ":2:1: not valid rt-app JSON (json-c: unexpected end of file)");
		unlink(f);
		free(f);
	}
	/* a file is what the loader takes: a use case name is resolved first (kvb_rtapp_config_path) */
	CHECK(kvb_rtapp_config_load("/nonexistent/taskset.json", &cfg, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "cannot read rt-app config '/nonexistent/taskset.json': No such file or directory");
	/* text after the JSON object: rt-app's json_object_from_file keeps the first value and ignores the rest */
	{
		char *f = write_tmp("{\"tasks\": {\"a\": {\"run\": 1}}}\n}\nleft over by an editor\n");
		CHECK(kvb_rtapp_config_load(f, &cfg, &err) == KVB_OK);
		CHECK(kvb_get_int(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cfg, "tasks"), "a"), "run",
				  0) == 1);
		cJSON_Delete(cfg);
		unlink(f);
		free(f);
	}
}

/*
 * WA3's use case names (wa/workloads/rt_app/__init__.py _get_raw_json_config): `config: mp3-short`
 * is WA3's shipped use_cases/mp3-short.json (tests/fixtures/field/rt-app-config/wa3 holds them), no
 * config is WA3's default "taskset"; looked up in $KVB_RTAPP_USE_CASES, WA3's user directory, then
 * the installed WA3's package; a name found nowhere says every place looked in.
 */
static void test_rtapp__resolves_wa3_use_case_names(void)
{
	const char *wa3 = KVB_SOURCE_DIR "/tests/fixtures/field/rt-app-config/wa3";
	char *home = kvb_xasprintf("/tmp/kvb-test-rtapp-home-%d", (int)getpid()), *pkg, *dir, *path = NULL;
	struct kvb_error err;
	const char *old_home = getenv("HOME");
	char *saved_home = old_home ? kvb_xstrdup(old_home) : NULL;
	setenv("HOME", home, 1);
	unsetenv("WA_USER_DIRECTORY");
	setenv("KVB_WA3_PACKAGE_DIR", "", 1); /* no WA3 installed */
	unsetenv("KVB_RTAPP_USE_CASES");
	CHECK(kvb_rtapp_config_path("mp3-short", &path, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "rt-app config 'mp3-short': no file mp3-short.json in the current directory, ");
	CHECK_CONTAINS(err.msg, "/.workload_automation/dependencies/rt-app/use_cases ($KVB_RTAPP_USE_CASES unset) "
				"(WA3 is not installed: python3 finds no module 'wa')");
	CHECK(kvb_rtapp_config_path(NULL, &path, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "rt-app config 'taskset' (WA3's default use case: no config given): no file taskset.json");
	/* $KVB_RTAPP_USE_CASES: a ':' list, searched in order */
	setenv("KVB_RTAPP_USE_CASES", "/nonexistent:" KVB_SOURCE_DIR "/tests/fixtures/field/rt-app-config/wa3", 1);
	CHECK(kvb_rtapp_config_path("mp3-short", &path, &err) == KVB_OK);
	CHECK(path && strstr(path, "/rt-app-config/wa3/mp3-short.json"));
	free(path);
	CHECK(kvb_rtapp_config_path(NULL, &path, &err) == KVB_OK);
	CHECK(path && strstr(path, "/rt-app-config/wa3/taskset.json"));
	free(path);
	CHECK(kvb_rtapp_config_path("mp3-short.json", &path, &err) == KVB_OK);
	free(path);
	/* the installed WA3's package directory: wa/workloads/rt_app/use_cases/ */
	unsetenv("KVB_RTAPP_USE_CASES");
	pkg = kvb_xasprintf("%s/wa", home);
	dir = kvb_xasprintf("%s/workloads/rt_app/use_cases", pkg);
	CHECK(kvb_mkdir_p(dir, 0755) == 0);
	{
		char *src = kvb_xasprintf("%s/video-short.json", wa3), *dst = kvb_xasprintf("%s/video-short.json", dir);
		struct kvb_buf b = KVB_BUF_INIT;
		FILE *f;
		CHECK(kvb_buf_read_file(&b, src) == 0);
		f = fopen(dst, "w");
		CHECK(f != NULL);
		if (f) {
			fwrite(b.data, 1, b.len, f);
			fclose(f);
		}
		kvb_buf_release(&b);
		free(src);
		free(dst);
	}
	setenv("KVB_WA3_PACKAGE_DIR", pkg, 1);
	CHECK(kvb_rtapp_config_path("video-short", &path, &err) == KVB_OK);
	CHECK(path && strstr(path, "/wa/workloads/rt_app/use_cases/video-short.json"));
	free(path);
	CHECK(kvb_rtapp_config_path("nope", &path, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "/wa/workloads/rt_app/use_cases");
	CHECK(!strstr(err.msg, "not installed"));
	/* WA3's user directory wins over its package (SourcePriority.local above .package) */
	{
		char *ud = kvb_xasprintf("%s/.workload_automation/dependencies/rt-app/use_cases", home);
		char *dst = kvb_xasprintf("%s/video-short.json", ud);
		FILE *f;
		CHECK(kvb_mkdir_p(ud, 0755) == 0);
		f = fopen(dst, "w");
		if (f) {
			fputs("{\"tasks\": {\"t\": {\"run\": 1}}}\n", f);
			fclose(f);
		}
		CHECK(kvb_rtapp_config_path("video-short", &path, &err) == KVB_OK);
		CHECK(path && strstr(path, "/.workload_automation/dependencies/rt-app/use_cases/video-short.json"));
		free(path);
		free(ud);
		free(dst);
	}
	{
		const char *rm[] = { "rm", "-rf", home, NULL };
		struct kvb_spawn_opts o;
		struct kvb_exec_result r;
		memset(&o, 0, sizeof(o));
		o.argv = rm;
		kvb_exec_result_init(&r);
		kvb_spawn_run(&o, &r, &err);
		kvb_exec_result_release(&r);
	}
	unsetenv("KVB_WA3_PACKAGE_DIR");
	if (saved_home)
		setenv("HOME", saved_home, 1);
	free(saved_home);
	free(home);
	free(pkg);
	free(dir);
}

/* rt-app's calibration line in a real output (tests/fixtures/field/outputs: lkp's rt-app run): 32 ns. */
static void test_rtapp__reads_pload_from_real_output(void)
{
	struct kvb_buf b = KVB_BUF_INIT;
	CHECK(kvb_buf_read_file(&b, KVB_SOURCE_DIR "/tests/fixtures/field/outputs/lkp-rt-app-mp3-short.txt") == 0);
	CHECK(kvb_rtapp_parse_pload(b.data) == 32);
	CHECK(kvb_rtapp_parse_pload("[rt-app] <notice> Calibrate ns per loop\n") == -1);
	CHECK(kvb_rtapp_parse_pload("pLoad = 12x") == -1);
	kvb_buf_release(&b);
}

/* A run in a store, for a resume hook's kvb_run_memory. */
struct store_run {
	struct kvb_store *st;
	int64_t run;
};

static int store_run_classifier(void *arg, const char *key, char *buf, size_t size)
{
	const struct store_run *sr = arg;
	return kvb_store_run_classifier(sr->st, sr->run, key, buf, size) == 1;
}

/* A run's memory that holds one classifier value (NULL: nothing stored). */
static int fixed_classifier(void *arg, const char *key, char *buf, size_t size)
{
	if (!arg || strcmp(key, "pload_ns"))
		return 0;
	snprintf(buf, size, "%s", (const char *)arg);
	return 1;
}

/* Two boards of a pool keep their own pLoad: one board's does not reach the other (a board that has none calibrates). */
static void test_rtapp__boards_do_not_share_a_pload(void)
{
	const struct kvb_workload_ops *w = kvb_workload_find("rt-app");
	struct kvb_run_memory m32 = { fixed_classifier, (void *)"32" }, m40 = { fixed_classifier, (void *)"40" };
	struct kvb_workload_states a = KVB_WORKLOAD_STATES_INIT, b = KVB_WORKLOAD_STATES_INIT,
				   c = KVB_WORKLOAD_STATES_INIT;
	struct kvb_job_ctx ca = { 0 }, cb = { 0 };
	struct kvb_error err;
	long va = 0, vb = 0;
	a.resumed = &m32;
	b.resumed = &m40;
	ca.state = kvb_workload_state(&a, w);
	cb.state = kvb_workload_state(&b, w);
	CHECK(ca.state != cb.state);
	CHECK(kvb_workload_state(&a, w) == ca.state);              /* one slot per workload and board */
	CHECK(kvb_workload_state(&a, kvb_workload_find("hackbench")) != ca.state);
	CHECK(kvb_rtapp_pload(&ca, "CPU0", &va, &err) == KVB_OK && va == 32);
	CHECK(kvb_rtapp_pload(&cb, "CPU0", &vb, &err) == KVB_OK && vb == 40);
	CHECK(kvb_rtapp_pload(&ca, "CPU1", &va, &err) == KVB_OK && va == 32); /* still a's after b's */
	/* a board of a new run starts with nothing, whatever the other boards hold: it calibrates itself */
	CHECK(*kvb_workload_state(&c, w) == NULL);
	/* a resumed run whose jobs stored no pLoad leaves the slot empty */
	{
		struct kvb_run_memory none = { fixed_classifier, NULL };
		struct kvb_workload_states d = KVB_WORKLOAD_STATES_INIT;
		d.resumed = &none;
		CHECK(*kvb_workload_state(&d, w) == NULL);
		kvb_workload_states_release(&d);
	}
	kvb_workload_states_release(&a);
	kvb_workload_states_release(&b);
	kvb_workload_states_release(&c);
	CHECK(a.head == NULL && b.head == NULL);
}

/* diff warns when compared variants hold different pload_ns (a real store file). */
static void test_rtapp__diff_warns_on_different_pload(void)
{
	char path[] = "/tmp/kvb-test-pload-XXXXXX";
	struct kvb_store *st;
	struct kvb_error err;
	int64_t run, var[2];
	int fd = mkstemp(path);
	close(fd);
	unlink(path);
	CHECK(kvb_store_open(&st, path, 0, &err) == KVB_OK);
	{
		struct kvb_run_info ri = { .platform = "local", .rounds = 1, .status = "running" };
		kvb_store_run_begin(st, &ri, &run, &err);
	}
	for (int v = 0; v < 2; v++) {
		struct kvb_variant_row vr = { .name = v ? "b" : "a", .position = v };
		struct kvb_job_row jr = { .seq = v + 1, .round = 1, .iteration = 1, .spec_id = "w", .workload = "rt-app",
					  .label = "rt-app", .params_json = "{}", .runtime_json = "{}" };
		struct kvb_job_outcome o = { .status = "ok", .attempts = 1 };
		struct kvb_metrics m;
		cJSON *cls = cJSON_CreateObject();
		kvb_store_variant_add(st, run, &vr, &var[v], &err);
		jr.variant_id = var[v];
		kvb_store_plan_add(st, run, &jr, 1, &err);
		cJSON_AddStringToObject(cls, "pload_ns", v ? "40" : "32");
		kvb_metrics_init(&m);
		kvb_metrics_add(&m, "activations", 100, "count", 0);
		CHECK(kvb_store_job_commit(st, run, jr.id, &o, &m, cls, &err) == KVB_OK);
		kvb_metrics_release(&m);
		cJSON_Delete(cls);
	}
	CHECK(kvb_report_pload_warn(st, &run, 1) == 1);
	{
		/* --resume reads the run's pLoad back (first job by seq) and every later rt-app job gets it */
		char pl[32];
		long v = 0;
		struct store_run sr = { st, run };
		struct kvb_run_memory mem = { store_run_classifier, &sr };
		struct kvb_workload_states board = KVB_WORKLOAD_STATES_INIT;
		struct kvb_job_ctx ctx = { 0 };
		CHECK(kvb_store_run_classifier(st, run, "pload_ns", pl, sizeof(pl)) == 1);
		CHECK_STR(pl, "32");
		CHECK(kvb_store_run_classifier(st, run, "nothing", pl, sizeof(pl)) == 0);
		board.resumed = &mem;
		ctx.state = kvb_workload_state(&board, kvb_workload_find("rt-app"));
		CHECK(kvb_rtapp_pload(&ctx, "CPU3", &v, &err) == KVB_OK && v == 32);  /* no calibration: resumed */
		kvb_workload_states_release(&board);
	}
	/* one pLoad: nothing to say */
	sqlite3_exec(st->db, "UPDATE classifier SET value = '32' WHERE key = 'pload_ns'", NULL, NULL, NULL);
	CHECK(kvb_report_pload_warn(st, NULL, 0) == 0);
	kvb_store_close(st);
	unlink(path);
}

/* lkp's capture of a real run (tests/fixtures/field/rt-app-log): one thread never completed a phase. */
static void test_rtapp__field_logs_keep_tasks_beside_one_that_never_ran(void)
{
	static const char *const names[] = { "Display-8", "Event-Display-7", "Event-Browser-6", "Binder-display-5",
					     "Binder-dummy-4", "BrowserDisplay-3" };
	const char *paths[6];
	char buf[6][512];
	struct kvb_metrics m;
	struct kvb_error err;
	int rc;
	for (int i = 0; i < 6; i++) {
		snprintf(buf[i], sizeof(buf[i]), "%s/tests/fixtures/field/rt-app-log/lkp-browser-short/web-%s.log",
			 KVB_SOURCE_DIR, names[i]);
		paths[i] = buf[i];
	}
	kvb_metrics_init(&m);
	rc = kvb_rtapp_parse_logs(paths, 6, "web", NULL, &m, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(rc == KVB_OK);
	/* 5 tasks x 8 metrics + activations 0 for Event-Browser */
	CHECK(m.n == 41);
	CHECK(m.nnotes == 1 && strstr(m.notes[0], "rt-app task 'Event-Browser' completed no phase"));
	for (size_t i = 0; i < m.n; i++) {
		const char *task = cJSON_GetObjectItem(m.v[i].classifiers, "task")->valuestring;
		/* lkp's 02.yaml: run.average and period.average of single-phase threads */
		if (!strcmp(task, "Display") && !strcmp(m.v[i].name, "run_mean"))
			CHECK(m.v[i].value == 26414);
		if (!strcmp(task, "Display") && !strcmp(m.v[i].name, "period_mean"))
			CHECK(m.v[i].value == 64055);
		if (!strcmp(task, "BrowserDisplay") && !strcmp(m.v[i].name, "run_mean"))
			CHECK(m.v[i].value == 755);
		if (!strcmp(task, "Event-Browser"))
			CHECK(!strcmp(m.v[i].name, "activations") && m.v[i].value == 0);
	}
	kvb_metrics_release(&m);
}

#define TESTS                                                              \
	T(test_rtapp__resolves_wa3_use_case_names)                        \
	T(test_rtapp__validate_refuses_a_config_that_never_ends)           \
	T(test_rtapp__parses_every_row_and_column_of_a_real_log)          \
	T(test_rtapp__stats_of_one_thread_match_reference_values)         \
	T(test_rtapp__pools_the_instances_of_a_task)                      \
	T(test_rtapp__keeps_negative_slack_rows)                          \
	T(test_rtapp__reads_older_c_run_header_like_c_duration)           \
	T(test_rtapp__maps_columns_by_header_name_not_position)           \
	T(test_rtapp__rejects_truncated_last_line_with_file_and_line)     \
	T(test_rtapp__rejects_garbage_line_with_file_and_line)            \
	T(test_rtapp__rejects_log_without_header)                         \
	T(test_rtapp__rejects_non_numeric_field_naming_the_column)        \
	T(test_rtapp__rejects_short_row)                                  \
	T(test_rtapp__rejects_bad_headers)                                \
	T(test_rtapp__header_only_log_parses_but_has_no_stats)            \
	T(test_rtapp__p99_is_gsl_linear_interpolation)                    \
	T(test_rtapp__survives_truncation_and_byte_damage_anywhere)       \
	T(test_rtapp__log_name_splits_thread_and_index)                   \
	T(test_rtapp__task_of_matches_exact_name_or_instance_suffix)      \
	T(test_rtapp__parse_logs_fails_for_a_task_without_log)            \
	T(test_rtapp__parse_logs_fails_on_bad_log_without_partial_metrics) \
	T(test_rtapp__task_without_phase_is_recorded_and_others_kept)      \
	T(test_rtapp__field_logs_keep_tasks_beside_one_that_never_ran) \
	T(test_rtapp__validate_accepts_a_good_task_set)                   \
	T(test_rtapp__validate_reports_errors_with_key_paths)             \
	T(test_rtapp__generates_config_from_tasks)                        \
	T(test_rtapp__config_file_keeps_tasks_and_rewrites_log_keys)      \
	T(test_rtapp__config_file_errors_name_file_and_line)        \
	T(test_rtapp__shipped_periodic_agenda_validates_and_generates)     \
	T(test_rtapp__field_configs_load_like_rt_app_loads_them)          \
	T(test_rtapp__json_c_reads_comments_and_trailing_commas)          \
	T(test_rtapp__reads_pload_from_real_output)                       \
	T(test_rtapp__boards_do_not_share_a_pload)                        \
	T(test_rtapp__diff_warns_on_different_pload)
#include "test_main.h"
