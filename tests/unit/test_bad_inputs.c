/*
 * Tests that every broken tool output in tests/bad/outputs/ and every broken
 * rt-app log in tests/bad/rt-app/ is refused with exactly the message in its
 * FILE.expect (one line). The parser is chosen by the file name: hackbench-*,
 * sched-pipe-*, sched-messaging-* (tests/bad/outputs), any name (rt-app).
 * Platforms and CSVs go through the kvbench binary: integration/bad_inputs.sh.
 */
#include "core/buf.h"
#include "test.h"
#include "workload/rt_app.h"
#include "workload/workload.h"

#include <dirent.h>
#include <stdlib.h>

static const char *src_dir(void)
{
	return getenv("KVB_SOURCE_DIR") ? getenv("KVB_SOURCE_DIR") : ".";
}

/* The expected message: the first line of FILE.expect, or NULL. Owned. */
static char *expected(const char *path)
{
	struct kvb_buf b = KVB_BUF_INIT;
	char *e = kvb_xasprintf("%s.expect", path), *nl;
	int rc = kvb_buf_read_file(&b, e);
	free(e);
	if (rc)
		return NULL;
	if ((nl = strchr(b.data, '\n')))
		*nl = '\0';
	return kvb_buf_detach(&b);
}

static int is_input(const char *name)
{
	size_t n = strlen(name);
	return name[0] != '.' && !(n > 7 && !strcmp(name + n - 7, ".expect"));
}

typedef int (*parse_fn)(const char *out, struct kvb_metrics *m, struct kvb_error *err);

static parse_fn output_parser(const char *name)
{
	if (!strncmp(name, "hackbench-", 10))
		return kvb_parse_hackbench;
	if (!strncmp(name, "sched-pipe-", 11))
		return kvb_parse_sched_pipe;
	if (!strncmp(name, "sched-messaging-", 16))
		return kvb_parse_sched_messaging;
	return NULL;
}

/* Runs check(path, name) on every input file of tests/bad/SUB; returns how many there were. */
static int each_input(const char *sub, void (*check)(const char *path, const char *name))
{
	char *dir = kvb_xasprintf("%s/tests/bad/%s", src_dir(), sub);
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, NULL, alphasort), count = 0;
	CHECK(n > 0);
	for (int i = 0; i < n; i++) {
		if (is_input(ents[i]->d_name)) {
			char *path = kvb_xasprintf("%s/%s", dir, ents[i]->d_name);
			check(path, ents[i]->d_name);
			free(path);
			count++;
		}
		free(ents[i]);
	}
	free(ents);
	free(dir);
	return count;
}

static void check_output(const char *path, const char *name)
{
	struct kvb_buf b = KVB_BUF_INIT;
	struct kvb_metrics m;
	struct kvb_error err;
	parse_fn parse = output_parser(name);
	char *want = expected(path);
	kvb_metrics_init(&m);
	kvb_error_clear(&err);
	if (!parse || !want || kvb_buf_read_file(&b, path)) {
		fprintf(stderr, "%s: no parser for the name, no .expect or unreadable\n", path);
		CHECK(0);
	} else {
		int rc = parse(b.data, &m, &err);
		if (rc != KVB_EINPUT)
			fprintf(stderr, "%s: accepted (%zu metrics)\n", name, m.n);
		CHECK(rc == KVB_EINPUT);
		CHECK(m.n == 0);
		CHECK_STR(err.msg, want);
	}
	kvb_metrics_release(&m);
	kvb_buf_release(&b);
	free(want);
}

static void check_rtapp(const char *path, const char *name)
{
	struct kvb_buf b = KVB_BUF_INIT;
	struct kvb_rtapp_log log;
	struct kvb_error err;
	char *want = expected(path);
	kvb_rtapp_log_init(&log);
	kvb_error_clear(&err);
	if (!want || kvb_buf_read_file(&b, path)) {
		fprintf(stderr, "%s: no .expect or unreadable\n", path);
		CHECK(0);
	} else {
		CHECK(kvb_rtapp_log_parse(&log, name, b.data, b.len, &err) == KVB_EINPUT);
		CHECK(log.n == 0);
		CHECK_STR(err.msg, want);
	}
	kvb_rtapp_log_release(&log);
	kvb_buf_release(&b);
	free(want);
}

static void test_bad_inputs__every_broken_tool_output_is_refused_with_its_message(void)
{
	CHECK(each_input("outputs", check_output) >= 10);
}

static void test_bad_inputs__every_broken_rt_app_log_is_refused_with_its_message(void)
{
	CHECK(each_input("rt-app", check_rtapp) >= 8);
}

#define TESTS                                                                        \
	T(test_bad_inputs__every_broken_tool_output_is_refused_with_its_message) \
	T(test_bad_inputs__every_broken_rt_app_log_is_refused_with_its_message)
#include "test_main.h"
