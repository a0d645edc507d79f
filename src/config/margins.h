/*
 * Per-metric margins of the "same" verdict (docs/design.md#verdicts-and-deciding), from the agenda:
 *
 *   config:
 *     margins: {default: 1, time: 2, sched_pipe/usecs_per_op: 0.5}   # percent
 *
 * A key is METRIC or WORKLOAD/METRIC (the latter wins) or `default`; values
 * are percentages > 0 and < 100.
 */
#ifndef KVB_MARGINS_H
#define KVB_MARGINS_H

#include <cjson/cJSON.h>

struct kvb_diag;

/* Checks a `margins` map (NULL: nothing to check); path names it in messages ("config.margins"). */
void kvb_margins_check(const cJSON *margins, const char *path, struct kvb_diag *d);

/*
 * The margin, as a fraction, for (workload, metric) in an agenda as stored
 * with its run (run.agenda_json; `config` and `global`, global's key first as WA3 merges them), or 0 when
 * the agenda names none for it.
 */
double kvb_margin_from_agenda(const cJSON *agenda, const char *workload, const char *metric);

#endif
