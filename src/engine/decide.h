/*
 * `kvbench run --until-decided` (docs/design.md#verdicts-and-deciding): after every round, re-judge
 * the chosen metrics with a group-sequential rule and stop the run when each
 * comparison (every variant against the baseline) is decided or the budget is
 * spent.
 *
 * Repeated looks are corrected by alpha spending: Lan & DeMets (1983) with the
 * O'Brien-Fleming-type spending function, exact boundaries for max_rounds
 * equally spaced looks (kvb_seq_bounds, stats/verdict.h); look k tests at
 * nominal[k-1] (kvb_seq_judge: Welch on the boots' robust levels,
 * kvb_stats_boot_level, as diff's mean test; Fieller's CI for "same").
 * Where boots cannot be told apart (a platform whose flash method is none:
 * results.boot is 1) runs are the units, as in `kvbench diff`.
 * The rule is stored with the run (results-schema/0008, 0031) so --resume keeps it.
 *
 * What a round holds: on a board that reboots, a round is a boot and the agenda's iterations
 * are split over max_rounds rounds (each look has one more boot a variant, the unit there). Where
 * every job shares one boot (flash: none; add_rounds), the runs are the units, so each round
 * runs the agenda's iterations again (plan.h): every look has as many more runs, the looks are
 * equally spaced in information as the boundaries assume, and the rule adds runs until decided
 * or the budget is spent (without it, iterations 5 over 10 rounds left 5 rounds empty).
 *
 * A round in which the host disturbed a job (a `host` witness with verdict disturbed,
 * engine/hostwatch.h) is not counted: its results are left out of every look and the
 * looks are numbered by the rounds that count; the run is planned with spare_rounds
 * rounds beyond max_rounds to take their place (the plan's rounds minus max_rounds on
 * --resume). When more rounds are disturbed than there are spares, the run stops with
 * outcome "budget" and says the host was too busy.
 */
#ifndef KVB_DECIDE_H
#define KVB_DECIDE_H

#include "core/util.h"
#include "store/store.h"

struct kvb_decide_opts {
	double margin;          /* fraction */
	double alpha;
	int max_rounds;         /* >= 2: looks that count */
	int spare_rounds;       /* planned rounds beyond max_rounds, run in place of disturbed ones */
	double max_time_s;      /* 0 = no budget */
	int add_rounds;         /* 1: each round runs the agenda's iterations again (above), 0: split */
	struct kvb_strv metrics; /* "WORKLOAD/METRIC" (or "METRIC"); empty = every metric */
};

void kvb_decide_opts_release(struct kvb_decide_opts *d);

/* "90", "90s", "30m", "2h" -> seconds (> 0). Returns KVB_OK, or KVB_EINPUT on anything else. */
enum kvb_err kvb_decide_parse_duration(const char *s, double *seconds);

/* Stores d for run_id (a new run). Errors: KVB_ESTORE. */
int kvb_decide_save(struct kvb_store *s, int64_t run_id, const struct kvb_decide_opts *d, struct kvb_error *err);

/* Loads the rule of run_id into *d (*found 0 when the run was not started with one). Errors: KVB_ESTORE. */
int kvb_decide_load(struct kvb_store *s, int64_t run_id, struct kvb_decide_opts *d, int *found, struct kvb_error *err);

/*
 * The look after `round` (1-based) of run_id: judges every chosen comparison
 * on the results of rounds 1..round (a later round's jobs, stored before an
 * interruption, are left for the next look), logs one line each, records an event, and
 * sets *stop when all are decided or the time budget is spent: elapsed_s (s since the run started
 * or resumed) plus next_round_s (what the next round is expected to take, 0 if unknown) would
 * pass max_time_s, so a run does not start a round it cannot finish in the budget (outcome stored).
 * Comparisons with fewer than 2 units a side stay undecided. paired: the run is a duet
 * (execution_order: duet): each comparison is the paired test on the rounds both variants
 * finished, and a round the host disturbed still counts (it disturbed both sides of each pair
 * at once, which the pairing cancels: Bulej et al., ICPE 2020). Errors: KVB_ESTORE.
 */
int kvb_decide_look(struct kvb_store *s, int64_t run_id, const struct kvb_decide_opts *d, int round, int paired,
		    double elapsed_s, double next_round_s, int *stop, struct kvb_error *err);

#endif
