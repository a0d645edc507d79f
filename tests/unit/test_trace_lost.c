/*
 * What trace-cmd record says it lost when it stops (kvb_trace_cmd_lost, instrument/ftrace.c):
 * the old full statistics (real transcripts, tests/fixtures/field/trace-cmd) and the 2.6+ lines.
 */
#include "core/buf.h"
#include "core/util.h"
#include "instrument/probe.h"

#include "test.h"

#include <stdlib.h>

static char *fixture(const char *name)
{
	struct kvb_buf b = KVB_BUF_INIT;
	const char *src = getenv("KVB_SOURCE_DIR");
	char *p = kvb_xasprintf("%s/tests/fixtures/field/trace-cmd/%s", src ? src : ".", name);
	if (kvb_buf_read_file(&b, p))
		fprintf(stderr, "cannot read %s\n", p);
	free(p);
	return kvb_buf_detach(&b);
}

static void test_trace_lost__old_statistics_overrun_per_cpu(void)
{
	char s[256], *t = fixture("record-old-stats-overrun.txt");
	CHECK(kvb_trace_cmd_lost(t, s, sizeof(s)) == 214);
	CHECK_STR(s, "CPU 0: 107, CPU 1: 107");
	free(t);
	t = fixture("record-old-stats-nolost.txt");
	CHECK(kvb_trace_cmd_lost(t, s, sizeof(s)) == 0);
	CHECK_STR(s, "");
	free(t);
}

static void test_trace_lost__current_lines(void)
{
	char s[256];
	CHECK(kvb_trace_cmd_lost("Hit Ctrl^C to stop recording\nCPU 3: 750319 events lost\n", s, sizeof(s)) == 750319);
	CHECK_STR(s, "CPU 3: 750319");
	CHECK(kvb_trace_cmd_lost("CPU 0: 5 events lost 2 events lost due to commit overrun\nCPU 1: 4 events lost due to "
				 "commit overrun\n",
				 s, sizeof(s)) == 11);
	CHECK_STR(s, "CPU 0: 7, CPU 1: 4");
	/* the two months of 2015 when it said bytes */
	CHECK(kvb_trace_cmd_lost("CPU 2: 12 bytes lost\n", s, sizeof(s)) == 12);
	CHECK(kvb_trace_cmd_lost("CPU0 data recorded at offset=0x464000\n    4096 bytes in size\n", s, sizeof(s)) == 0);
}

#define TESTS                                                                                                          \
	T(test_trace_lost__old_statistics_overrun_per_cpu)                                                            \
	T(test_trace_lost__current_lines)
#include "test_main.h"
