/*
 * The plan: every job of a run, in the order it will execute (DESIGN.md §3).
 *
 * Rounds: each variant's iterations are split into `rounds` contiguous
 * blocks; round r of every variant runs before round r+1 (A B A B ...), and
 * each round is a fresh flash + boot, so a job's round is its boot.
 * Within (variant, round) jobs follow the agenda's execution_order.
 * The plan is deterministic (random order uses a fixed seed), so --resume
 * rebuilds the same plan and matches jobs by seq.
 */
#ifndef KVB_PLAN_H
#define KVB_PLAN_H

#include "config/agenda.h"

struct kvb_plan_job {
	int seq;                     /* 0-based position in execution order */
	size_t variant;              /* index into agenda->variants */
	const struct kvb_spec *spec; /* borrowed from the agenda */
	int iteration;               /* 1-based */
	int round;                   /* 1-based */
};

struct kvb_plan {
	struct kvb_plan_job *jobs;
	size_t n;
	int rounds;
};

/* Builds the plan; rounds >= 1. */
void kvb_plan_build(struct kvb_plan *p, const struct kvb_agenda *a, int rounds);
void kvb_plan_release(struct kvb_plan *p);

#endif
