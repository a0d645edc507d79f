/*
 * A meter's proof that its samples cover the job window (docs/design.md#witnesses, issue 25 item 2).
 *
 * Energy is integrated over the samples kept in [start_ns, stop_ns] (core/samples.h): a
 * meter that stopped writing early (killed before it flushed, devlib #47/#48), started late,
 * lost a stretch, or wrote nothing inside the window gives a number that looks measured and
 * is not. So each channel is judged before its value is kept:
 *
 *   interval I  the meter's declared rate (1 / rate_hz) when it has one, else the median
 *               spacing of the channel's samples;
 *   edges       the first sample at most max(I, edge_ms) after the start and the last at most
 *               max(I, edge_ms) before the end. edge_ms (default 50 ms) is there because a meter
 *               that counts time from its own start (arm-probe, iio-capture's relative
 *               timestamps) is late by its start-up time, which kvbench cannot see;
 *   gaps        no two consecutive samples more than N x I apart (N = max_gap_intervals,
 *               default 10);
 *   count       at least 2 samples (energy needs an interval).
 *
 * A channel that fails any of these is refused: its energy and power_mean are not stored
 * (never a 0 in their place), its samples are kept for inspection, and a `refused` witness
 * names the coverage ("2.00 s of 3.00 s; ends 1.00 s early"). A channel that passes gets an
 * `ok` witness with the same observation. With no window (start = stop = 0: an import of a
 * whole file), only the count and the gaps are judged.
 */
#ifndef KVB_COVERAGE_H
#define KVB_COVERAGE_H

#include "core/samples.h"
#include "core/witness.h"

#include <stdint.h>

struct kvb_coverage_rule {
	double rate_hz;          /* the meter's declared sample rate, 0: use the samples' median spacing */
	double max_gap_intervals;/* N: a gap longer than N intervals refuses the channel (default 10) */
	double edge_ms;          /* lower bound of the edge tolerance, ms (default 50) */
};
#define KVB_COVERAGE_RULE_DEFAULT { 0, 10, 50 }

struct kvb_coverage {
	int ok;                   /* 1: the channel's value may be kept */
	int64_t window_ns;        /* stop - start, 0 without a window */
	int64_t covered_ns;       /* last sample - first sample */
	int64_t lead_ns, tail_ns; /* first sample - start, stop - last sample (0 without a window) */
	int64_t interval_ns;      /* I */
	int64_t max_gap_ns;
	uint64_t n;
	char expected[200];       /* what was required, for the witness */
	char observed[320];       /* "2.00 s of 3.00 s (201 samples every 10.0 ms; ...)" */
	char why[400];            /* why it was refused, "" when ok */
};

/* Judges channel c against [win_start_ns, win_stop_ns] (both 0: no window) by rule r. */
void kvb_coverage_check(const struct kvb_sample_chan *c, int64_t win_start_ns, int64_t win_stop_ns,
			const struct kvb_coverage_rule *r, struct kvb_coverage *out);

/*
 * kvb_coverage_check on every channel of s; one `meter` witness per channel into w (subject
 * "INSTANCE channel NAME"), c->refused set on the channels that fail. Returns how many were refused.
 */
size_t kvb_coverage_witness(struct kvb_samples *s, const char *instance, int64_t win_start_ns, int64_t win_stop_ns,
			    const struct kvb_coverage_rule *r, struct kvb_witnesses *w);

#endif
