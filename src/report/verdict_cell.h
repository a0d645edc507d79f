/*
 * The three-way verdict in reports (docs/design.md#verdicts-and-deciding): margins per group, the
 * verdict cell text, its JSON fields, the legend and the multimodality
 * footnote. The statistics are in stats/verdict.h; kvb_cell_compute (results/table.h) fills
 * struct kvb_cell_stats.v3, .cliffs and .modes.
 */
#ifndef KVB_REPORT_VERDICT_CELL_H
#define KVB_REPORT_VERDICT_CELL_H

#include "report/format.h"
#include "results/table.h"
#include "results/verdict_words.h"

#include <cjson/cJSON.h>
#include <stdio.h>

/* Half the width of the ratio CI [ci_lo, ci_hi], in % (0.03 wide -> 1.5): the smallest change the data
 * could have shown. NAN when the CI is unbounded or missing. */
double kvb_verdict_ci_halfwidth_pct(double ci_lo, double ci_hi);

/*
 * The text of an undecided cell (issue 27): "undecided (CI +-1.5 %, ~12 boots)", without the
 * part that is unknown (NAN), or "undecided (CI +-1.5 %, >1000 boots)" when more than
 * KVB_VERDICT_MAX_BOOTS (results/verdict_words.h) would be needed: the word is the verdict's in
 * every layout. unit: what the estimate counts, "boots" (per
 * variant) or "pairs" (a duet's rounds both variants finished: the paired test's unit).
 */
void kvb_verdict_undecided_text(char *buf, size_t n, double ci_lo, double ci_hi, double boots_needed, const char *unit);

/*
 * "better", "worse", "same", "undecided (CI +-X %, ~12 boots)", "n<2", "baseline", plus " (1 boot)" and "†"
 * (multimodal); a cell the host emptied says so (kvb_verdict_left_out).
 */
void kvb_verdict_cell(char *buf, size_t n, const struct kvb_cell_stats *cs);

/*
 * When the host's disturbance left this cell or its baseline with nothing to compare (every run
 * left out) or too few runs (n < 2), the verdict text that says so and what would measure it:
 * "left out: the host disturbed all 5 runs (too busy to measure this board; a quieter host
 * would)". Returns 1 when it wrote buf, 0 when the cell is not such a cell.
 */
int kvb_verdict_left_out(char *buf, size_t n, const struct kvb_cell_stats *cs);

/* Adds boots_needed, margin_pct, same_ci95_lo/hi, cliffs_delta, cliffs_magnitude, modes, multimodal to jv. */
void kvb_verdict_json(cJSON *jv, const struct kvb_group *g, const struct kvb_cell_stats *cs);

/*
 * The legend under a table (table/markdown: what every verdict and mark
 * means) and, when any cell of r is multimodal, a footnote naming each one.
 */
void kvb_verdict_legend(FILE *out, const struct kvb_table *t, const struct kvb_format *fmt);

#endif
