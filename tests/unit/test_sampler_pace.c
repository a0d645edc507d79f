/*
 * The util sampler's own account of its interval (kvb_util_pace, instrument/cpu_util.c), on
 * outputs shaped as its loop writes them: "# sampler HOW", then per read "uptime S", the
 * /proc/stat snapshot, "---".
 */
#include "core/buf.h"
#include "instrument/probe.h"

#include "test.h"

#include <stdlib.h>

/* n reads every step_s seconds from uptime 100, after the header how. */
static char *loop_output(const char *how, int n, double step_s)
{
	struct kvb_buf b = KVB_BUF_INIT;
	kvb_buf_addf(&b, "# sampler %s\n", how);
	for (int i = 0; i < n; i++)
		kvb_buf_addf(&b, "uptime %.2f\ncpu  1 2 3 4 5 6 7 0 0 0\ncpu0 1 2 3 4 5 6 7 0 0 0\n---\n", 100 + i * step_s);
	return kvb_buf_detach(&b);
}

static void test_sampler_pace__kept_interval_is_ok(void)
{
	struct kvb_util_pace pc;
	char *t = loop_output("sleep 0.100", 20, 0.11);
	kvb_util_pace(t, 100, &pc);
	CHECK(pc.verdict == KVB_WIT_OK);
	CHECK(pc.reads == 20);
	CHECK_NEAR(pc.median_ms, 110, 0.5);
	CHECK_NEAR(pc.span_s, 19 * 0.11, 1e-6);
	CHECK_STR(pc.how, "sleep 0.100");
	free(t);
}

static void test_sampler_pace__a_busy_loop_is_disturbed(void)
{
	/* toolbox's `sleep 0.100` is sleep(0): 110 reads in 1.1 s instead of 11 */
	struct kvb_util_pace pc;
	char *t = loop_output("sleep 0.100", 110, 0.01);
	kvb_util_pace(t, 100, &pc);
	CHECK(pc.verdict == KVB_WIT_DISTURBED);
	CHECK_NEAR(pc.median_ms, 10, 0.5);
	free(t);
}

static void test_sampler_pace__slow_or_whole_seconds_is_changed(void)
{
	struct kvb_util_pace pc;
	char *t = loop_output("sleep 0.100", 10, 0.5);
	kvb_util_pace(t, 100, &pc);
	CHECK(pc.verdict == KVB_WIT_CHANGED);
	free(t);
	/* no fractional sleep: changed even when the job was too short for two loop reads */
	t = loop_output("sleep 1 (neither sleep 0.2 nor usleep 200000 slept 0.2 s: no fractional sleep)", 1, 1);
	kvb_util_pace(t, 100, &pc);
	CHECK(pc.whole_seconds && pc.verdict == KVB_WIT_CHANGED);
	free(t);
	/* ... but not for a whole-second interval */
	t = loop_output("sleep 2 (neither sleep 0.2 nor usleep 200000 slept 0.2 s: no fractional sleep)", 5, 2);
	kvb_util_pace(t, 2000, &pc);
	CHECK(pc.verdict == KVB_WIT_OK);
	free(t);
}

#define TESTS                                                                                                          \
	T(test_sampler_pace__kept_interval_is_ok)                                                                     \
	T(test_sampler_pace__a_busy_loop_is_disturbed)                                                                \
	T(test_sampler_pace__slow_or_whole_seconds_is_changed)
#include "test_main.h"
