/* Tests the benchmark output parsers on outputs captured from the real tools, and on broken ones. */
#include "core/buf.h"
#include "core/util.h"
#include "test.h"
#include "workload/workload.h"

#include <math.h>
#include <stdlib.h>

static char *fixture(const char *name)
{
	struct kvb_buf b = KVB_BUF_INIT;
	char path[1024];
	snprintf(path, sizeof(path), "%s/tests/fixtures/outputs/%s", getenv("KVB_SOURCE_DIR") ? getenv("KVB_SOURCE_DIR") : ".", name);
	if (kvb_buf_read_file(&b, path)) {
		fprintf(stderr, "cannot read %s\n", path);
		return NULL;
	}
	return kvb_buf_detach(&b);
}

static const struct kvb_metric *find(const struct kvb_metrics *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].name, name))
			return &m->v[i];
	return NULL;
}

/* Field outputs (tests/fixtures/field/outputs/PROVENANCE) holding several runs: an error naming how many. */
static void test_parsers__several_runs_in_one_output_are_an_error(void)
{
	char *hb = fixture("../field/outputs/lkp-hackbench-iterations.txt");
	char *all = fixture("../field/outputs/perf-bench-sched-all-debian.txt");
	char *msg = fixture("../field/outputs/lkp-perf-bench-sched-messaging.txt");
	struct kvb_metrics m;
	struct kvb_error err;
	kvb_metrics_init(&m);
	CHECK(hb && kvb_parse_hackbench(hb, &m, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "the output holds 8 runs ('Time:' lines)");
	CHECK(all && kvb_parse_sched_pipe(all, &m, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "the output holds 2 runs ('Total time:' lines");
	CHECK(kvb_parse_sched_messaging(all, &m, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "the output holds 2 runs");
	CHECK(m.n == 0);
	/* One run: lkp's own expected value (01.yaml total_time_sec: 0.055). */
	CHECK(msg && kvb_parse_sched_messaging(msg, &m, &err) == KVB_OK);
	CHECK(m.n == 1 && fabs(m.v[0].value - 0.055) < 1e-12);
	kvb_metrics_release(&m);
	free(hb);
	free(all);
	free(msg);
}

static void test_hackbench__reads_time_from_real_output(void)
{
	char *out = fixture("hackbench-process.txt");
	struct kvb_metrics m;
	struct kvb_error err;
	double expect;
	kvb_metrics_init(&m);
	CHECK(out && !kvb_parse_hackbench(out, &m, &err));
	CHECK(sscanf(strstr(out, "Time:"), "Time: %lf", &expect) == 1);
	CHECK(m.n == 1 && !strcmp(m.v[0].name, "time"));
	CHECK_NEAR(m.v[0].value, expect, 1e-12);
	CHECK_STR(m.v[0].units, "s");
	CHECK(m.v[0].lower_is_better == 1);
	kvb_metrics_release(&m);
	free(out);
}

static void test_hackbench__thread_mode_output_parses(void)
{
	char *out = fixture("hackbench-thread-pipe.txt");
	struct kvb_metrics m;
	struct kvb_error err;
	kvb_metrics_init(&m);
	CHECK(out && !kvb_parse_hackbench(out, &m, &err));
	CHECK(m.n == 1 && m.v[0].value > 0);
	kvb_metrics_release(&m);
	free(out);
}

static void test_hackbench__truncated_output_fails_without_a_value(void)
{
	struct kvb_metrics m;
	struct kvb_error err;
	kvb_metrics_init(&m);
	CHECK(kvb_parse_hackbench("Running in process mode with 4 groups using 40 file descriptors each (== 160 tasks)\n"
				  "Each sender will pass 200 messages of 100 bytes\n", &m, &err) == KVB_EINPUT);
	CHECK(m.n == 0);
	CHECK_CONTAINS(err.msg, "Time:");
	CHECK(kvb_parse_hackbench("Running in process mode\nTime: 0.3xyz\n", &m, &err) == KVB_EINPUT);
	CHECK(kvb_parse_hackbench("Running in process mode\nTime: \n", &m, &err) == KVB_EINPUT);
	CHECK(kvb_parse_hackbench("garbage\x01\x02", &m, &err) == KVB_EINPUT);
	CHECK(kvb_parse_hackbench("", &m, &err) == KVB_EINPUT);
	CHECK(m.n == 0);
	kvb_metrics_release(&m);
}

static void test_sched_pipe__reads_three_metrics_with_units(void)
{
	char *out = fixture("sched-pipe.txt");
	struct kvb_metrics m;
	struct kvb_error err;
	double total, usecs, ops;
	kvb_metrics_init(&m);
	CHECK(out && !kvb_parse_sched_pipe(out, &m, &err));
	CHECK(sscanf(strstr(out, "Total time:"), "Total time: %lf", &total) == 1);
	CHECK(sscanf(strstr(out, "usecs/op") - 20, "%*[ ]%lf", &usecs) >= 0);
	CHECK(m.n == 3);
	CHECK(find(&m, "total_time") && find(&m, "total_time")->value == total);
	CHECK(find(&m, "ops_per_sec") && !strcmp(find(&m, "ops_per_sec")->units, "ops/s") &&
	      find(&m, "ops_per_sec")->lower_is_better == 0);
	CHECK(find(&m, "usecs_per_op") && !strcmp(find(&m, "usecs_per_op")->units, "us") &&
	      find(&m, "usecs_per_op")->lower_is_better == 1);
	/* consistency of the real tool's numbers: ops/s ~ 1e6 / usecs_per_op */
	ops = find(&m, "ops_per_sec")->value;
	usecs = find(&m, "usecs_per_op")->value;
	CHECK_NEAR(ops, 1e6 / usecs, 1.0);
	kvb_metrics_release(&m);
	free(out);
}

static void test_sched_pipe__missing_line_is_an_error(void)
{
	struct kvb_metrics m;
	struct kvb_error err;
	kvb_metrics_init(&m);
	CHECK(kvb_parse_sched_pipe("# Running 'sched/pipe' benchmark:\n     Total time: 1.491 [sec]\n\n", &m, &err) ==
	      KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "usecs/op");
	CHECK(kvb_parse_sched_pipe("     Total time: 1.491 [sec]\n   74.5 usecs/op\n  13406 ops/sec", &m, &err) == KVB_OK);
	CHECK(m.n == 3);
	kvb_metrics_release(&m);
	kvb_metrics_init(&m);
	CHECK(kvb_parse_sched_pipe("     Total time: nan [sec]\n   74.5 usecs/op\n  13406 ops/sec\n", &m, &err) == KVB_EINPUT);
	CHECK(kvb_parse_sched_pipe("     Total time: 1.4 [sec]\n   -74.5 usecs/op\n  13406 ops/sec\n", &m, &err) == KVB_EINPUT);
	CHECK(m.n == 0);
	kvb_metrics_release(&m);
}

static void test_sched_messaging__reads_total_time(void)
{
	char *out = fixture("sched-messaging.txt");
	struct kvb_metrics m;
	struct kvb_error err;
	double expect;
	kvb_metrics_init(&m);
	CHECK(out && !kvb_parse_sched_messaging(out, &m, &err));
	CHECK(sscanf(strstr(out, "Total time:"), "Total time: %lf", &expect) == 1);
	CHECK(m.n == 1 && !strcmp(m.v[0].name, "time") && m.v[0].value == expect);
	CHECK(kvb_parse_sched_messaging("# 20 sender and receiver processes per group\n", &m, &err) == KVB_EINPUT);
	kvb_metrics_release(&m);
	free(out);
}

/* Every metric a parser stores from a real output is declared by its workload (units and direction too),
 * and the check refuses one that is not (docs/design.md#metrics, docs/design.md#witnesses). */
static void test_metrics__parsers_store_only_declared_metrics(void)
{
	static const struct {
		const char *workload, *file;
		int (*parse)(const char *, struct kvb_metrics *, struct kvb_error *);
		size_t expect;
	} cases[] = {
		{ "hackbench", "hackbench-process.txt", kvb_parse_hackbench, 1 },
		{ "sched_pipe", "sched-pipe.txt", kvb_parse_sched_pipe, 3 },
		{ "sched_messaging", "sched-messaging.txt", kvb_parse_sched_messaging, 1 },
		{ "cyclictest", "../field/cyclictest/debian-2.4-1-fifo-t2-h2000.txt", kvb_parse_cyclictest, 12 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct kvb_workload_ops *w = kvb_workload_find(cases[i].workload);
		char *out = fixture(cases[i].file);
		struct kvb_metrics m;
		struct kvb_error err;
		kvb_metrics_init(&m);
		CHECK(w && out && !cases[i].parse(out, &m, &err));
		CHECK(m.n == cases[i].expect);
		CHECK(kvb_workload_check_metrics(w, &m, 0, &err) == KVB_OK);
		/* the same number in other units, or the other way round, is refused naming the metric */
		free(m.v[0].units);
		m.v[0].units = kvb_xstrdup("ms");
		CHECK(kvb_workload_check_metrics(w, &m, 0, &err) == KVB_EINTERNAL && strstr(err.msg, m.v[0].name));
		CHECK(kvb_workload_check_metrics(w, &m, 1, &err) == KVB_OK); /* from: only what the job added */
		kvb_metrics_release(&m);
		free(out);
	}
	{
		const struct kvb_workload_ops *w = kvb_workload_find("sched_pipe");
		struct kvb_metrics m;
		struct kvb_error err;
		kvb_metrics_init(&m);
		kvb_metrics_add(&m, "usecs_per_op", 5, "us", 0);
		CHECK(kvb_workload_check_metrics(w, &m, 0, &err) == KVB_EINTERNAL && strstr(err.msg, "lower_is_better"));
		kvb_metrics_add(&m, "usec_per_op", 5, "us", 1);
		CHECK(kvb_workload_check_metrics(w, &m, 1, &err) == KVB_EINTERNAL && strstr(err.msg, "does not declare"));
		kvb_metrics_release(&m);
	}
	/* every workload declares what it stores: no workload without a table, no name twice */
	for (size_t i = 0; kvb_workloads[i]; i++) {
		const struct kvb_metric_decl *d = kvb_workloads[i]->metrics;
		CHECK(d && d->name);
		for (; d && d->name; d++) {
			CHECK(d->units && d->units[0] && d->description && d->description[0]);
			CHECK(kvb_workload_metric(kvb_workloads[i], d->name) == d);
		}
	}
}

/* schbench (tests/fixtures/field/schbench/PROVENANCE): the final report of its stderr, not an interim one. */
static void test_schbench__reads_the_final_report(void)
{
	char *one = fixture("../field/schbench/qemu-m1-t2-r5.stderr");
	char *interim = fixture("../field/schbench/qemu-m2-t2-r10-i5.stderr");
	struct kvb_metrics m;
	struct kvb_error err;
	kvb_metrics_init(&m);
	CHECK(one && !kvb_parse_schbench(one, &m, &err));
	CHECK(m.n == 14);
	/* the values the JSON file -j wrote beside it (PROVENANCE) */
	CHECK(find(&m, "wakeup_p99") && find(&m, "wakeup_p99")->value == 19936);
	CHECK(find(&m, "request_p50") && find(&m, "request_p50")->value == 69248);
	CHECK(find(&m, "rps_p50") && find(&m, "rps_p50")->value == 16 && !find(&m, "rps_p50")->lower_is_better);
	CHECK(find(&m, "average_rps") && find(&m, "average_rps")->value == 21.6);
	CHECK(find(&m, "wakeup_max") && find(&m, "wakeup_max")->value == 23770 && !strcmp(find(&m, "wakeup_max")->units, "us"));
	CHECK(kvb_workload_check_metrics(kvb_workload_find("schbench"), &m, 0, &err) == KVB_OK);
	kvb_metrics_release(&m);
	/* interim reports every 5 s (each followed by "current rps:"), then the final one */
	kvb_metrics_init(&m);
	CHECK(interim && !kvb_parse_schbench(interim, &m, &err));
	CHECK(find(&m, "wakeup_p90") && find(&m, "wakeup_p90")->value == 12784);   /* interim: 12400 */
	CHECK(find(&m, "request_p50") && find(&m, "request_p50")->value == 175872); /* interim: 172800 */
	CHECK(find(&m, "average_rps") && find(&m, "average_rps")->value == 20.8);
	CHECK(m.nnotes == 0);
	/* its exit 1 (a gone thread's schedstat) after a whole report: accepted, with a note */
	CHECK(kvb_schbench_exit_ok(1, interim, interim, &m) == 1 && m.nnotes == 1 &&
	      strstr(m.notes[0], "Failed to parse /proc/170/schedstat"));
	CHECK(kvb_schbench_exit_ok(2, interim, interim, &m) == 0);
	CHECK(kvb_schbench_exit_ok(1, one, "", &m) == 0);
	kvb_metrics_release(&m);
	/* cut before the final "average rps:", or inside a table: refused, nothing stored */
	kvb_metrics_init(&m);
	*strstr(one, "average rps:") = '\0';
	CHECK(kvb_parse_schbench(one, &m, &err) == KVB_EINPUT && strstr(err.msg, "average rps"));
	*strstr(interim, "average rps:") = '\0';
	CHECK(kvb_parse_schbench(interim, &m, &err) == KVB_EINPUT);
	CHECK(kvb_parse_schbench("Wakeup Latencies percentiles (usec) runtime 5 (s) (3 total samples)\n\t  50.0th: 7\n"
				 "average rps: 1.00\n", &m, &err) == KVB_EINPUT);
	/* an older schbench (before its 2023 rewrite: one "Latency percentiles" table, no RPS, as in
	 * Chris Mason's 2020 LKML bisect report of 0b0695f2b34a): refused, naming why */
	CHECK(kvb_parse_schbench("Latency percentiles (usec) runtime 30 (s) (1000 total samples)\n"
				 "         50.0th: 180 (502 samples)\n         *99.0th: 338 (41 samples)\n"
				 "         min=25, max=1185\n", &m, &err) == KVB_EINPUT &&
	      strstr(err.msg, "older schbench"));
	CHECK(m.n == 0);
	kvb_metrics_release(&m);
	free(one);
	free(interim);
}

/* kvb_param_has / kvb_param_int_opt tell a parameter the spec gives (0 included) from one it leaves to its default. */
static void test_params__given_is_told_from_default(void)
{
	const struct kvb_workload_ops *w = kvb_workload_find("hackbench");  /* groups: default 10; loops: 100 */
	cJSON *p = cJSON_Parse("{\"groups\": 0, \"fds\": \"many\", \"nope\": 3, \"datasize\": 4096}");
	long long v = -1;
	CHECK(kvb_param_has(w, p, "groups") == 1);
	CHECK(kvb_param_has(w, p, "loops") == 0);      /* a table default is not given */
	CHECK(kvb_param_has(w, p, "nope") == 0);       /* not one of hackbench's parameters */
	CHECK(kvb_param_has(w, NULL, "groups") == 0);
	CHECK(kvb_param_int_opt(w, p, "groups", &v) == 1 && v == 0);  /* 0 given: not "absent" */
	CHECK(kvb_param_int(w, p, "groups") == 0);
	CHECK(kvb_param_int_opt(w, p, "datasize", &v) == 1 && v == 4096);
	CHECK(kvb_param_int_opt(w, p, "loops", &v) == 0 && v == 100);   /* absent: the table default */
	CHECK(kvb_param_int_opt(w, p, "fds", &v) == 0 && v == 20);      /* not an integer: as absent */
	CHECK(kvb_param_int_opt(w, p, "mode", &v) == 0 && v == 0);      /* a string parameter's default is no integer */
	cJSON_Delete(p);
}

#define TESTS                                                                                                          \
	T(test_parsers__several_runs_in_one_output_are_an_error) \
	T(test_hackbench__reads_time_from_real_output)                                                                 \
	T(test_hackbench__thread_mode_output_parses)                                                                   \
	T(test_hackbench__truncated_output_fails_without_a_value)                                                      \
	T(test_sched_pipe__reads_three_metrics_with_units)                                                             \
	T(test_sched_pipe__missing_line_is_an_error)                                                                   \
	T(test_sched_messaging__reads_total_time)                                                                      \
	T(test_metrics__parsers_store_only_declared_metrics)                                                         \
	T(test_schbench__reads_the_final_report) \
	T(test_params__given_is_told_from_default)
#include "test_main.h"
