/* diff's check that compared variants ran rt-app with one pLoad (pload.c). */
#ifndef KVB_RESULTS_PLOAD_H
#define KVB_RESULTS_PLOAD_H

#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

/*
 * Prints one warning on stderr when the jobs of runs[0..nruns) (none = the
 * latest run) hold more than one rt-app pLoad (job classifier pload_ns),
 * naming each value and its variants. Returns 1 when it warned, else 0.
 */
int kvb_report_pload_warn(struct kvb_store *s, const int64_t *runs, size_t nruns);

#endif
