/*
 * Counters read by the instruments that take deltas: what each reader declares its counters may
 * do, and the one place their movement between two readings is judged (issue 40). No I/O here.
 *
 * A reader declares a struct kvb_ctr_decl for each kind of counter it reads (cpufreq.c:
 * time_in_state; cpustat.c: the /proc/stat fields; juno_hwmon.c: hwmon energyN_input; rapl.c:
 * energy_uj keeps its own arithmetic, rapl.h, which bounds a wrap by a power). What a counter
 * may do, and how each case is taken, follows the tool of reference named in the declaration:
 *
 *   monotonic  only goes up. Going back is a fault: KVB_CTR_BAD, the caller refuses the value.
 *   WRAPS      goes back to 0 after a stated maximum (RAPL max_energy_range_uj, turbostat and
 *              powertop undo it): delta = max - prev + cur.
 *   RESETS     may restart from 0 (cpufreq `stats/reset`, a table freed and recreated with its
 *              policy, Documentation/cpu-freq/cpufreq-stats.rst; a driver reloaded): the new
 *              value is what was counted since the restart, delta = cur; what was counted
 *              between the previous reading and the restart is lost, and the caller says so.
 *   DIPS       may go back a little and carry on (/proc/stat iowait on NO_HZ kernels, proc(5);
 *              sysstat's ll_sp_value() counts such a field as 0): held at its previous value,
 *              delta 0, and the held value stays the base of the next reading, so what went
 *              back is not counted twice when it comes up again.
 *   VANISHES   may be absent from a reading while its CPU is offline (a /proc/stat cpuN line;
 *              an inactive policy's stats answer EBUSY): the reader feeds "absent" readings.
 *
 * A reset is seen only between two readings: readers that can sample during the job do
 * (sampler.h), so a restart whose counter climbs back above its start value by the end is not
 * taken for movement.
 */
#ifndef KVB_COUNTER_H
#define KVB_COUNTER_H

#include <stddef.h>
#include <stdint.h>

enum {
	KVB_CTR_MONOTONIC = 0,
	KVB_CTR_WRAPS = 1 << 0,
	KVB_CTR_RESETS = 1 << 1,
	KVB_CTR_DIPS = 1 << 2,
	KVB_CTR_VANISHES = 1 << 3,
};

/* What a reader's counter may do (static data of the reader). */
struct kvb_ctr_decl {
	const char *name;       /* "cpufreq time_in_state", for messages */
	unsigned may;           /* KVB_CTR_* bits; 0 = monotonic */
	const char *reference;  /* whose handling is followed ("sysstat ll_sp_value()") */
};

/* What one step from a reading to the next was. */
enum kvb_ctr_step {
	KVB_CTR_MOVED,      /* cur >= prev: delta = cur - prev (0 when still) */
	KVB_CTR_WRAPPED,    /* cur < prev, WRAPS, prev <= max: delta = max - prev + cur */
	KVB_CTR_RESTARTED,  /* cur < prev, RESETS: delta = cur (counted from 0) */
	KVB_CTR_HELD,       /* cur < prev, DIPS: delta 0, the base stays prev */
	KVB_CTR_BAD,        /* cur < prev and the counter may not: no delta, the value is refused */
	KVB_CTR_ABSENT,     /* this reading has no value (VANISHES): no delta, the next present one starts afresh */
};

/*
 * The step from prev to cur of a counter declared d, max its wrap point (WRAPS; 0 = unknown:
 * a counter that went back is then not taken as wrapped). *delta gets the counted movement
 * (0 for HELD, BAD). Preference when several apply: DIPS, then WRAPS, then RESETS.
 */
enum kvb_ctr_step kvb_ctr_step(const struct kvb_ctr_decl *d, uint64_t prev, uint64_t cur, uint64_t max,
			       uint64_t *delta);

/*
 * A group of counters that restart together (the rows of one time_in_state table, which
 * `stats/reset` and a recreated table zero at once): when any of prev[k] > cur[k] and the
 * group RESETS, every counter restarted and delta[k] = cur[k]; otherwise each is stepped alone
 * (a MONOTONIC row that went back is BAD and the group is BAD). n rows, matched by index.
 * Returns KVB_CTR_MOVED, KVB_CTR_RESTARTED or KVB_CTR_BAD.
 */
enum kvb_ctr_step kvb_ctr_group_step(const struct kvb_ctr_decl *d, const uint64_t *prev, const uint64_t *cur,
				     size_t n, uint64_t *delta);

/* "moved", "wrapped", "restarted", "held", "went back", "absent". */
const char *kvb_ctr_step_name(enum kvb_ctr_step s);

/* One counter's readings in order (the start, every sample that has it, the end): v in the counter's
 * unit (uJ for energy), up the board's uptime of each (s; -1: an end reading, time unknown). Owned
 * arrays; kvb_ctr_series_release frees them. juno_hwmon.c and rapl.c. */
struct kvb_ctr_series {
	uint64_t *v;
	double *up;
	size_t n;
};

/* Appends one reading (v, up) to s. */
void kvb_ctr_series_push(struct kvb_ctr_series *s, uint64_t v, double up);
/* Frees s's arrays and zeroes it. */
void kvb_ctr_series_release(struct kvb_ctr_series *s);

#endif
