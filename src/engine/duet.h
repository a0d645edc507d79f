/*
 * Duet runs (execution_order: duet): the two variants of a run at the same time, one per board,
 * job by job (Bulej, Horký, Tůma, Trubiani, Farquhar: "Duet Benchmarking: Improving Measurement
 * Accuracy in the Cloud", ICPE 2020). What the host does during a job (another tenant, a CPU
 * frequency change, a noisy neighbour of a shared CI machine) it does to both sides of the pair,
 * so the per-round difference cancels most of it; `diff` then judges the paired differences
 * (report/diff.c, stats.h kvb_stats_paired).
 *
 * Two boards of one kind (the pool's first two: `-p qemu-x86_64 -p qemu-x86_64` boots two guests
 * on this host). Round r: board 0 runs variant (r - 1) % 2 and board 1 the other, so a board's
 * own effect alternates between the variants and cancels over an even number of rounds. Both
 * boards are flashed and booted, then meet; before each job of the round they meet again, so job
 * k of A and job k of B start together; at the end of the round they meet whatever happened. A
 * side whose boot fails, or whose board stops answering, gives up the rest of its round (its
 * jobs skipped with the reason, the variant failed, as on one board); its partner finishes the
 * round alone (those jobs have no pair). Ctrl-C or a store failure stops both at the next meeting.
 * --resume runs, per side, the jobs still pending; a side with none waits at the meetings.
 *
 * The engine lends the same hooks as to a pool (pool.h); a duet gives its workers no board
 * handle (kvb_pool_board_trouble is not called: a board in trouble ends its side of the round).
 */
#ifndef KVB_DUET_H
#define KVB_DUET_H

#include "engine/pool.h"

/*
 * Runs the plan's two variants as a duet on the first two boards of l. Needs l->n >= 2 and
 * nvariants == 2 (the caller checks and says so; KVB_EINTERNAL otherwise). *interrupted and
 * *store_failed say why it stopped early. Returns KVB_OK, KVB_ESTORE when a worker's DB
 * connection cannot be opened, or KVB_EINTERNAL when the two variants' rounds do not hold the
 * same jobs in the same order (a plan bug: nothing runs).
 */
int kvb_duet_run(const struct kvb_pool_hooks *h, void *eng, const struct kvb_pool_list *l, const struct kvb_plan *plan,
		 const char *const *variant_names, int *interrupted, int *store_failed, struct kvb_error *err);

#endif
