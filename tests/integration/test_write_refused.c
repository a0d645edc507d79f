/*
 * A value the kernel refuses, written through the local target to this machine's kernel: the
 * error says what the kernel said. auto-cpufreq#724/#751 ("echo: write error: Device or resource
 * busy") and the uclamp knobs (a value above 1024: EINVAL) are where users read it; dash's printf
 * builtin, kvbench's writer before, said "printf: I/O error" for every errno.
 * The file: /sys/kernel/mm/transparent_hugepage/enabled, which takes one of its listed words and
 * refuses anything else with EINVAL, changing nothing. Needs root (else EACCES, also said).
 */
#include "test.h"
#include "core/util.h"
#include "target/target.h"

#include <stdlib.h>
#include <unistd.h>

extern const struct kvb_target_ops kvb_target_local;

static void test_write_refused__the_kernels_words(void)
{
	const char *knob = "/sys/kernel/mm/transparent_hugepage/enabled";
	struct kvb_target t;
	struct kvb_error e;
	char *before = NULL, *after = NULL;
	memset(&t, 0, sizeof(t));
	t.ops = &kvb_target_local;
	if (access(knob, R_OK)) {
		fprintf(stderr, "skip: no %s on this kernel\n", knob);
		return;
	}
	CHECK(kvb_target_read(&t, knob, &before, &e) == KVB_OK);
	CHECK(kvb_target_write(&t, knob, "kvbench-not-a-mode", &e) != KVB_OK);
	CHECK_CONTAINS(e.msg, "cannot write 'kvbench-not-a-mode' to /sys/kernel/mm/transparent_hugepage/enabled");
	CHECK_CONTAINS(e.msg, geteuid() == 0 ? "Invalid argument" : "Permission denied");
	CHECK(strstr(e.msg, "I/O error") == NULL);
	CHECK(kvb_target_read(&t, knob, &after, &e) == KVB_OK);
	CHECK(before && after && !strcmp(before, after));
	free(before);
	free(after);
}

#define TESTS T(test_write_refused__the_kernels_words)
#include "test_main.h"
