/*
 * The board level of the hierarchical bootstrap (docs/design.md#pools-and-lava): with a pool,
 * boards are the blocks of a balanced design (every board runs every variant),
 * so a resample keeps every board's share of boots: each boot of board B is
 * replaced by a boot drawn from board B's boots (a bootstrap stratified by
 * board). A board effect then cancels in the ratio instead of widening it or,
 * with unbalanced boots, passing for a kernel effect.
 */
#ifndef KVB_STATS_BOARD_H
#define KVB_STATS_BOARD_H

#include <gsl/gsl_rng.h>
#include <stddef.h>

/*
 * One stratified draw: a boot index in [lo, lo + len), where boots are sorted
 * by board and [lo, lo + len) are the boots of the board of the boot being
 * replaced. With one board (lo 0, len = all boots) this is one
 * gsl_rng_uniform_int(rng, len) call, exactly the draw of the two-level
 * bootstrap: the same random stream, so one-board results do not change.
 * len must be >= 1.
 */
size_t kvb_stats_board_draw(gsl_rng *rng, size_t lo, size_t len);

/*
 * Fills lo[k], len[k] for boots k = 0..nboots-1 sorted by board, from
 * board_of_boot[k] (any ints, equal for boots of one board, nondecreasing).
 * board_of_boot NULL: one board.
 */
void kvb_stats_board_strata(const int *board_of_boot, size_t nboots, size_t *lo, size_t *len);

#endif
