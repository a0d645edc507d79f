/* Errors quote the end of a failing tool's stderr (core/tail.h), on the real tools' output. */
#include "core/buf.h"
#include "core/tail.h"
#include "test.h"
#include "test_platform.h"
#include "workload/workload.h"

#include <stdlib.h>

static char *field(const char *name)
{
	struct kvb_buf b = KVB_BUF_INIT;
	char path[1024];
	snprintf(path, sizeof(path), "%s/tests/fixtures/field/%s", getenv("KVB_SOURCE_DIR") ? getenv("KVB_SOURCE_DIR") : ".",
		 name);
	if (kvb_buf_read_file(&b, path)) {
		fprintf(stderr, "cannot read %s\n", path);
		return NULL;
	}
	return kvb_buf_detach(&b);
}

/* The reason a tool failed is at the end of its stderr (tests/fixtures/field/rt-group-sched/PROVENANCE). */
static void test_tail__an_error_quotes_the_end_of_stderr(void)
{
	char *rtapp = field("rt-group-sched/rt-app-1.0-eperm.stderr"), *ct = field("rt-group-sched/cyclictest-2.4-eperm.stderr");
	char *t = kvb_text_tail(rtapp, 3, 400);
	CHECK_STR(t, "[rt-app] <notice> pLoad = 100ns | [rt-app] <notice> [0] Using SCHED_FIFO policy with priority 10 | "
		     "pthread_setschedparam: Operation not permitted");
	free(t);
	t = kvb_text_tail(rtapp, 3, 60);
	CHECK_STR(t, "...ority 10 | pthread_setschedparam: Operation not permitted");
	CHECK(strlen(t) == 60);
	free(t);
	t = kvb_text_tail(ct, 3, 400);
	CHECK_STR(t, "Unable to change scheduling policy! | Probably missing capabilities, either run as root or increase "
		     "RLIMIT_RTPRIO limits.");
	free(t);
	t = kvb_text_tail("\n\n  \r\n", 3, 400);
	CHECK_STR(t, "");
	free(t);
	t = kvb_text_tail("one\r\n\ntwo  \n", 1, 400);
	CHECK_STR(t, "two");
	free(t);
	free(rtapp);
	free(ct);
}

static int parse_nothing(const char *out, struct kvb_metrics *m, struct kvb_error *err)
{
	(void)out, (void)m, (void)err;
	return KVB_OK;
}

/* A tool that fails the way rt-app 1.0 does in a group without RT budget (its real stderr replayed by sh on
 * the local target): the job's error quotes the perror() line at the end, not the notice at the start. */
static void test_workload__a_failing_tool_is_quoted_by_its_last_lines(void)
{
	struct kvb_platform p;
	struct kvb_diag d;
	struct kvb_target t;
	struct kvb_error err;
	struct kvb_metrics m;
	struct kvb_job_ctx ctx;
	char dir[] = "/tmp/kvb-test-tail-XXXXXX", path[1200];
	const char *src = getenv("KVB_SOURCE_DIR") ? getenv("KVB_SOURCE_DIR") : ".";
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/tests/fixtures/field/rt-group-sched/rt-app-1.0-eperm.stderr", src);
	const char *argv[] = { "sh", "-c", "cat \"$1\" >&2; exit 1", "rt-app", path, NULL };
	CHECK(load_text(&p, &d, "name: t\nconnection: {type: local}\n") == KVB_OK);
	CHECK(kvb_target_open(&t, &p, &err) == KVB_OK);
	kvb_metrics_init(&m);
	memset(&ctx, 0, sizeof(ctx));
	ctx.target = &t;
	ctx.artifact_dir = dir;
	ctx.remote_dir = dir;
	ctx.timeout_ms = 30000;
	ctx.out = &m;
	CHECK(kvb_workload_run_cmd(&ctx, "rt-app", argv, parse_nothing, &err) == KVB_ETARGET);
	CHECK_STR(err.msg, "sh failed (exit status 1): [rt-app] <notice> pLoad = 100ns | [rt-app] <notice> [0] Using "
			   "SCHED_FIFO policy with priority 10 | pthread_setschedparam: Operation not permitted");
	kvb_metrics_release(&m);
	kvb_target_close(&t);
	kvb_platform_release(&p);
	kvb_diag_release(&d);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	CHECK(system(path) == 0);
}

#define TESTS                                                                                                          \
	T(test_tail__an_error_quotes_the_end_of_stderr)                                                                \
	T(test_workload__a_failing_tool_is_quoted_by_its_last_lines)
#include "test_main.h"
