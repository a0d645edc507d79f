/*
 * The plan: every job of a run, in the order it will execute (docs/design.md#the-job-lifecycle).
 *
 * Rounds: each variant's iterations are split into `rounds` contiguous
 * blocks; round r of every variant runs before round r+1 (A B A B ...), and
 * each round is a fresh flash + boot, so a job's round is its boot.
 * Within (variant, round) jobs follow the agenda's execution_order.
 * The plan is deterministic (random order uses a fixed seed), so --resume
 * rebuilds the same plan and matches jobs by seq.
 *
 * Warm-up (docs/design.md#noise): a spec with warmup N gets N more jobs in every
 * (variant, round), placed just before its first job there (the first runs after a
 * boot: page cache, first-run work); they are stored with status "warmup", shown
 * but never compared, and have iteration 0.
 *
 * Spare rounds (--until-decided on a board on this host): rounds beyond `rounds`
 * that take the place of rounds the host disturbed; spare round R+k repeats the
 * iteration split of round ((k-1) mod R) + 1, its iterations numbered past the
 * spec's (it + iterations x (1 + (k-1) div R)), so every round holds as many jobs.
 */
#ifndef KVB_PLAN_H
#define KVB_PLAN_H

#include "config/agenda.h"

struct kvb_plan_job {
	int seq;                     /* 0-based position in execution order */
	size_t variant;              /* index into agenda->variants */
	const struct kvb_spec *spec; /* borrowed from the agenda */
	int iteration;               /* 1-based; 0 for a warm-up job */
	int round;                   /* 1-based */
	int warmup;                  /* 1: a warm-up job (stored, not compared) */
};

struct kvb_plan_opts {
	int rounds;                  /* >= 1: rounds whose split of the iterations is planned */
	int spare_rounds;            /* more rounds after them (see above), >= 0 */
	int default_warmup;          /* warm-up jobs of a spec whose warmup is -1 (unset) */
	int add_rounds;              /* 1: every round runs every iteration (above), 0: they are split */
};

struct kvb_plan {
	struct kvb_plan_job *jobs;
	size_t n;
	int rounds;
};

/* Builds the plan; rounds >= 1 (no spare rounds, no warm-up unless a spec sets one). */
void kvb_plan_build(struct kvb_plan *p, const struct kvb_agenda *a, int rounds);
/* The same with spare rounds and a default warm-up; p->rounds is rounds + spare_rounds. */
void kvb_plan_build_opts(struct kvb_plan *p, const struct kvb_agenda *a, const struct kvb_plan_opts *o);
void kvb_plan_release(struct kvb_plan *p);

/* "24 jobs + 24 warm-ups" (or "24 jobs" without warm-ups) for p into buf (n bytes): what
 * `agenda check` and `run` both say of a plan (issue 41). Returns buf. */
const char *kvb_plan_describe(const struct kvb_plan *p, char *buf, size_t n);
/* The same for the jobs of rounds 1..last_round only (the planned rounds without the spare ones). */
const char *kvb_plan_describe_rounds(const struct kvb_plan *p, int last_round, char *buf, size_t n);

#endif
