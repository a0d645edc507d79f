/*
 * The names the mailing-list threads give kvbench's metrics (issue 41): `--metric jank_perc`
 * as LISA's jankbench tables say it (eas-dev seed 002) means jank_pct; "ops/sec" and
 * "usecs/op" as perf bench sched pipe prints them mean ops_per_sec and usecs_per_op.
 */
#ifndef KVB_METRIC_ALIAS_H
#define KVB_METRIC_ALIAS_H

#include <stddef.h>

/* kvbench's name for a thread's metric name (exact, case-sensitive), or NULL when name is none. Static. */
const char *kvb_metric_alias(const char *name);

/* Resolves each of n --metric arguments in place (a borrowed pointer to the static name),
 * saying on stderr what an alias stands for ("--metric jank_perc: kvbench calls it jank_pct"). */
void kvb_metric_alias_resolve(const char **names, size_t n);

#endif
