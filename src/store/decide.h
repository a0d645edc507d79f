/*
 * The stopping rule of a run started with --until-decided (results-schema: run_decide) and the
 * rounds the host disturbed, which the rule does not count (docs/design.md#statistics, docs/design.md#noise). KVB_OK or
 * KVB_ESTORE.
 */
#ifndef KVB_STORE_DECIDE_H
#define KVB_STORE_DECIDE_H

#include "store/store.h"

#include <stddef.h>

/* The stored rule; metrics_json owned by the row when loaded (a JSON array of "WORKLOAD/METRIC"). */
struct kvb_decide_row {
	double margin;       /* fraction */
	double alpha;
	int max_rounds;
	double max_time_s;   /* 0 = no budget */
	int add_rounds;      /* 1: each round runs the agenda's iterations again (plan.h), 0: split over the rounds */
	char *metrics_json;
};

int kvb_store_decide_save(struct kvb_store *s, int64_t run_id, const struct kvb_decide_row *d, struct kvb_error *err);
/* *found 0 (and *d zero) when run_id was not started with a rule. Free d->metrics_json. */
int kvb_store_decide_load(struct kvb_store *s, int64_t run_id, struct kvb_decide_row *d, int *found,
			  struct kvb_error *err);
/* The rule's end: the round it stopped after and why (decided | budget). */
int kvb_store_decide_outcome(struct kvb_store *s, int64_t run_id, int round, const char *outcome, struct kvb_error *err);
/*
 * Rounds 1..round of run_id in which a job was left out because the host disturbed every attempt
 * it had (job status disturbed; a job run again clean does not count), ascending, into *out
 * (owned, room for round entries); *n their count.
 */
int kvb_store_disturbed_rounds(struct kvb_store *s, int64_t run_id, int round, int **out, size_t *n,
			       struct kvb_error *err);

#endif
