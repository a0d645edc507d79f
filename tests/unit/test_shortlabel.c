/* Short classifier labels of the report page (report/shortlabel.h). */
#include "report/shortlabel.h"
#include "core/sha256.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_shortlabel__rt_app_tasks_become_names_and_a_hash(void)
{
	const char *tasks = "[{\"name\":\"big\",\"instances\":2,\"period_us\":16000},{\"name\":\"small\",\"period_us\":8000}]";
	char *label = malloc(strlen(tasks) + 64), hex[65], want[128], *s;
	sprintf(label, "cgroup_depth=1 tasks=%s test_name=a b", tasks);
	kvb_sha256_mem(tasks, strlen(tasks), hex);
	snprintf(want, sizeof(want), "cgroup_depth=1 tasks=[big,small]#%.6s test_name=a b", hex);
	s = kvb_short_label(label);
	CHECK_STR(s, want);
	free(s);
	free(label);
}

static void test_shortlabel__other_long_values_keep_their_start_and_a_hash(void)
{
	const char *v = "perf bench sched messaging --group 20 --loop 1000";
	char label[128], hex[65], want[128], *s;
	snprintf(label, sizeof(label), "cmd=%s", v);
	kvb_sha256_mem(v, strlen(v), hex);
	snprintf(want, sizeof(want), "cmd=perf bench sched\u2026#%.6s", hex);
	s = kvb_short_label(label);
	CHECK_STR(s, want);
	free(s);
	/* two long values that start alike stay apart */
	char *a = kvb_short_label("cmd=perf bench sched messaging --group 20 --loop 1000");
	char *b = kvb_short_label("cmd=perf bench sched messaging --group 40 --loop 1000");
	CHECK(strcmp(a, b) != 0);
	free(a);
	free(b);
}

static void test_shortlabel__short_labels_are_unchanged(void)
{
	char *s = kvb_short_label("chan_name=total_power cgroup_depth=3");
	CHECK_STR(s, "chan_name=total_power cgroup_depth=3");
	free(s);
	s = kvb_short_label(NULL);
	CHECK_STR(s, "");
	free(s);
}

#define TESTS                                                         \
	T(test_shortlabel__rt_app_tasks_become_names_and_a_hash)          \
	T(test_shortlabel__other_long_values_keep_their_start_and_a_hash) \
	T(test_shortlabel__short_labels_are_unchanged)
#include "test_main.h"
