/*
 * Unit tests: the cyclictest parser on real captures (tests/fixtures/field/
 * cyclictest/, values checked by hand there: PROVENANCE), and every broken
 * output in tests/bad/cyclictest/ refused with exactly its FILE.expect message.
 */
#include "core/buf.h"
#include "core/util.h"
#include "test.h"
#include "workload/workload.h"

#include <dirent.h>
#include <stdlib.h>

static const char *src_dir(void)
{
	return getenv("KVB_SOURCE_DIR") ? getenv("KVB_SOURCE_DIR") : ".";
}

/* Parses a fixture; returns the parser's status, metrics in m, message in err. */
static int parse_file(const char *rel, struct kvb_metrics *m, struct kvb_error *err)
{
	struct kvb_buf b = KVB_BUF_INIT;
	char *path = kvb_xasprintf("%s/%s", src_dir(), rel);
	int rc;
	kvb_metrics_init(m);
	kvb_error_clear(err);
	if (kvb_buf_read_file(&b, path)) {
		fprintf(stderr, "%s: unreadable\n", path);
		rc = -1;
	} else {
		rc = kvb_parse_cyclictest(b.data, m, err);
	}
	kvb_buf_release(&b);
	free(path);
	return rc;
}

/* The value of metric name for thread (the "thread" classifier), or NAN. */
static double metric(const struct kvb_metrics *m, const char *name, const char *thread)
{
	for (size_t i = 0; i < m->n; i++) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(m->v[i].classifiers, "thread");
		if (!strcmp(m->v[i].name, name) && cJSON_IsString(t) && !strcmp(t->valuestring, thread)) {
			CHECK_STR(m->v[i].units, "us");
			CHECK(m->v[i].lower_is_better == 1);
			return m->v[i].value;
		}
	}
	return NAN;
}

static void check_four(const struct kvb_metrics *m, const char *thread, double min, double avg, double max, double p99)
{
	CHECK_NEAR(metric(m, "latency_min", thread), min, 0);
	CHECK_NEAR(metric(m, "latency_avg", thread), avg, 1e-6);
	CHECK_NEAR(metric(m, "latency_max", thread), max, 0);
	CHECK_NEAR(metric(m, "latency_p99", thread), p99, 0);
}

static void test_cyclictest__upstream_capture_one_thread(void)
{
	struct kvb_metrics m;
	struct kvb_error err;
	CHECK(parse_file("tests/fixtures/field/cyclictest/upstream-hypriot-rpi2-rt-t1-h400.txt", &m, &err) == KVB_OK);
	CHECK(m.n == 8);
	/* p99: 9,900,000 of 10,000,000 samples are <= 21 us (cumulative 9,901,243 at bucket 21) */
	check_four(&m, "0", 14, 16, 76, 21);
	check_four(&m, "all", 14, 16, 76, 21);
	kvb_metrics_release(&m);
}

static void test_cyclictest__debian_capture_two_threads_and_overall(void)
{
	struct kvb_metrics m;
	struct kvb_error err;
	CHECK(parse_file("tests/fixtures/field/cyclictest/debian-2.4-1-fifo-t2-h2000.txt", &m, &err) == KVB_OK);
	CHECK(m.n == 12);
	check_four(&m, "0", 6, 21, 9987, 36);
	check_four(&m, "1", 7, 31, 12913, 63);
	/* overall avg weighted by samples (Total + Overflows): (21 * 2985 + 31 * 2971) / 5956 */
	check_four(&m, "all", 6, (21.0 * 2985 + 31.0 * 2971) / 5956, 12913, 54);
	kvb_metrics_release(&m);
}

static void test_cyclictest__debian_capture_policy_other(void)
{
	struct kvb_metrics m;
	struct kvb_error err;
	CHECK(parse_file("tests/fixtures/field/cyclictest/debian-2.4-1-other-t1-h1000.txt", &m, &err) == KVB_OK);
	check_four(&m, "0", 25, 85, 7425, 190);
	kvb_metrics_release(&m);
}

static void test_cyclictest__p99_among_the_overflows_fails_the_job(void)
{
	struct kvb_metrics m;
	struct kvb_error err;
	CHECK(parse_file("tests/fixtures/field/cyclictest/debian-2.4-1-fifo-t2-h50-overflows.txt", &m, &err) ==
	      KVB_EINPUT);
	CHECK_STR(err.msg, "thread 0: latency_p99 is above the histogram (52 of 1965 samples overflowed it): raise "
			   "histogram_us");
	CHECK(m.n == 0);
	kvb_metrics_release(&m);
}

static void test_cyclictest__every_broken_output_is_refused_with_its_message(void)
{
	char *dir = kvb_xasprintf("%s/tests/bad/cyclictest", src_dir());
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	CHECK(d != NULL);
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		struct kvb_buf want = KVB_BUF_INIT;
		struct kvb_metrics m;
		struct kvb_error err;
		char *rel, *exp;
		if (len < 5 || strcmp(de->d_name + len - 4, ".txt"))
			continue;
		rel = kvb_xasprintf("tests/bad/cyclictest/%s", de->d_name);
		exp = kvb_xasprintf("%s/%s.expect", dir, de->d_name);
		if (kvb_buf_read_file(&want, exp)) {
			fprintf(stderr, "%s: missing\n", exp);
			CHECK(0);
		} else {
			want.data[strcspn(want.data, "\n")] = '\0';
			CHECK(parse_file(rel, &m, &err) == KVB_EINPUT);
			CHECK(m.n == 0);
			if (strcmp(err.msg, want.data))
				fprintf(stderr, "%s:\n", de->d_name);
			CHECK_STR(err.msg, want.data);
			kvb_metrics_release(&m);
		}
		kvb_buf_release(&want);
		free(rel);
		free(exp);
		n++;
	}
	if (d)
		closedir(d);
	CHECK(n >= 10);
	free(dir);
}

#define TESTS                                                                                          \
	T(test_cyclictest__upstream_capture_one_thread)                                                \
	T(test_cyclictest__debian_capture_two_threads_and_overall)                                     \
	T(test_cyclictest__debian_capture_policy_other)                                                \
	T(test_cyclictest__p99_among_the_overflows_fails_the_job)                                      \
	T(test_cyclictest__every_broken_output_is_refused_with_its_message)
#include "test_main.h"
