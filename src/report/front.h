/*
 * The front page of a comparison for people (docs/tables.md#the-front-page): the metrics the
 * workloads declare (hackbench time, sched_pipe ops_per_sec, jank_pct ...) and energy, not every
 * instrument's per-CPU and per-channel row (util, cpufreq residency, power: 237 rows on a
 * simulated board), which `diff --all`, `--metric` and the JSON/CSV outputs keep.
 */
#ifndef KVB_REPORT_FRONT_H
#define KVB_REPORT_FRONT_H

#include "results/groups.h"

#include <stddef.h>

/*
 * Leaves out of r the groups that are not on the front page: a metric an instrument stores
 * (kvb_instrument_ops.metrics: util_mean, freq_residency, power_mean ...) that its workload does
 * not declare (kvb_workload_ops.metrics), other than energy (units J). A workload's own metrics
 * and metrics nobody declares (imported results) stay. When no group would stay, r is left whole. Returns
 * the number of groups left out; left (n bytes) gets their metric names, comma-separated, cut.
 */
size_t kvb_front_page(struct kvb_report *r, char *left, size_t n);

#endif
