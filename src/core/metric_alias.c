/* Implements the thread names of kvbench's metrics (metric_alias.h). */
#include "core/metric_alias.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *alias, *name;
} aliases[] = {
	{ "jank_perc", "jank_pct" },            /* LISA jankbench tables (eas-dev, seed 002) */
	{ "jank_percentage", "jank_pct" },      /* the same thread's "Jank percentage" */
	{ "max_frame_duration", "frame_duration_max" },   /* "Max frame durations" */
	{ "mean_frame_duration", "frame_duration_mean" }, /* "Mean frame duration" */
	{ "ops/sec", "ops_per_sec" },           /* perf bench sched pipe output (seeds 000, 003) */
	{ "ops/seconds", "ops_per_sec" },       /* the PELT thread's table header (seed 001) */
	{ "usecs/op", "usecs_per_op" },
};

const char *kvb_metric_alias(const char *name)
{
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(aliases[i].alias, name))
			return aliases[i].name;
	return NULL;
}

void kvb_metric_alias_resolve(const char **names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *to = names[i] ? kvb_metric_alias(names[i]) : NULL;
		if (to) {
			fprintf(stderr, "kvbench: --metric %s: kvbench calls it %s\n", names[i], to);
			names[i] = to;
		}
	}
}
