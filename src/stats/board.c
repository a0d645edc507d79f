/* Implements the board strata of the hierarchical bootstrap (stratified draws, one stratum per board). */
#include "stats/board.h"

size_t kvb_stats_board_draw(gsl_rng *rng, size_t lo, size_t len)
{
	return lo + gsl_rng_uniform_int(rng, len);
}

void kvb_stats_board_strata(const int *board_of_boot, size_t nboots, size_t *lo, size_t *len)
{
	size_t start = 0;
	for (size_t k = 1; k <= nboots; k++) {
		if (k < nboots && (!board_of_boot || board_of_boot[k] == board_of_boot[start]))
			continue;
		for (size_t i = start; i < k; i++) {
			lo[i] = start;
			len[i] = k - start;
		}
		start = k;
	}
}
