/*
 * What the host did to a set of runs' jobs (docs/design.md#witnesses, issue 38): read from
 * the host witnesses (witness.kind 'host') and the jobs' statuses, for the one line diff and
 * the run print under their tables in place of a footnote per disturbed job.
 */
#ifndef KVB_STORE_DISTURBANCE_H
#define KVB_STORE_DISTURBANCE_H

#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

/* One witness subject's range over the disturbed attempts ("cpu pressure" 11.2-55.0 %). */
struct kvb_disturbance_range {
	char subject[32];   /* "cpu pressure", "steal", "board process" */
	double lo, hi;      /* percent, over the witnesses of that subject that said disturbed */
};

/*
 * Counts over the jobs of the runs (warm-ups left out: never compared):
 *  on_host    jobs with a host witness (a board on this host's CPUs)
 *  disturbed  jobs with at least one attempt the host disturbed
 *  rerun_ok   of those, jobs whose final attempt was clean (status ok or instrument-failed)
 *  left_out   jobs stored with status disturbed (every attempt disturbed; never compared)
 *  kept       jobs whose final attempt was disturbed and still counts (a duet's: both boards
 *             saw the same host)
 *  ranges     the disturbed witnesses' observed percentages per subject (at most 4 subjects)
 */
struct kvb_disturbance {
	int64_t on_host, disturbed, rerun_ok, left_out, kept;
	struct kvb_disturbance_range ranges[4];
	size_t nranges;
};

/* Fills *d for runs[0..nruns-1]. Errors: KVB_ESTORE (an older DB without the columns reads as none). */
int kvb_store_disturbance(struct kvb_store *s, const int64_t *runs, size_t nruns, struct kvb_disturbance *d,
			  struct kvb_error *err);

/*
 * The one line, or NULL (owned) when no job was disturbed:
 * "14 of 48 jobs disturbed by the host (cpu pressure 11-55 %): 12 re-run clean, 2 left out".
 */
char *kvb_disturbance_line(const struct kvb_disturbance *d);

#endif
