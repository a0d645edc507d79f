/*
 * `kvbench plan`: per metric and variant, the variance components (boot to
 * boot, run to run), the costs measured in the DB (boot: boot.started_ns to
 * ready_ns, i.e. flash + reboot + identity check; run: job start to end),
 * Kalibera & Jones' optimal runs per boot, and the boots per variant needed
 * to detect a given change with 80 % power (stats/verdict.h).
 */
#ifndef KVB_REPORT_SIZING_H
#define KVB_REPORT_SIZING_H

#include "results/groups.h"

#include <stdio.h>

struct kvb_plan_opts {
	struct kvb_report_opts sel;
	double detect;       /* fraction (0.05 = 5 %) */
	double alpha, power; /* two-sided level; power of the planned test */
	double boot_cost_s;  /* > 0: use instead of the DB's boot times */
	double run_cost_s;   /* > 0: use instead of the DB's job times */
};

/* Loads, computes and prints the plan table and a recommendation. Errors: KVB_EINPUT, KVB_EUSAGE, KVB_ESTORE. */
int kvb_plan_print(struct kvb_store *s, const struct kvb_plan_opts *o, FILE *out, struct kvb_error *err);

#endif
