/*
 * The `rapl` meter's zones (Linux powercap, Documentation/power/powercap/powercap.rst):
 * what a listing of /sys/class/powercap says, which zones a platform's `channels:` keeps,
 * which `sums:` would count energy twice, and the energy between two readings of a counter
 * that wraps. No I/O here: rapl.c reads the board and stores; tests feed listings.
 *
 * A zone is a directory intel-rapl:N (a package, or psys) or intel-rapl:N:M (a sub-zone of
 * intel-rapl:N: core, uncore, dram) under /sys/class/powercap; intel-rapl-mmio:* (the same
 * package through MMIO, codecarbon PR #950) is not read, so no package counts twice. Its
 * `energy_uj` counts uJ from boot and wraps to 0 after `max_energy_range_uj`.
 */
#ifndef KVB_RAPL_H
#define KVB_RAPL_H

#include "core/error.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

struct kvb_rapl_zone {
	char *dir;          /* "intel-rapl:0:2" */
	char *name;         /* its `name` file ("dram"), or NULL when it could not be read */
	char *chan;         /* default channel name: "package-0", "psys"; a sub-zone's is its
			     * package's + "-" + its own ("package-0-dram"): stable when a second
			     * socket adds another "dram" */
	int64_t parent;     /* index of intel-rapl:N for intel-rapl:N:M, else -1 */
	uint64_t energy_uj, range_uj;
	int has_energy, has_range;
	char *unreadable;   /* why energy_uj or max_energy_range_uj gave no number ("energy_uj:
			     * Permission denied"), or NULL */
};

/* The zones of one reading, in listing order. Zeroed = empty; owns every string. */
struct kvb_rapl_zones {
	struct kvb_rapl_zone *v;
	size_t n;
};

/*
 * Parses one reading: out holds `grep -H . ZONE/name ZONE/energy_uj ZONE/max_energy_range_uj`
 * lines run in /sys/class/powercap ("intel-rapl:0/energy_uj:240422366267"), errtext grep's
 * stderr ("grep: intel-rapl:0/energy_uj: Permission denied"), which marks that zone
 * unreadable. Lines of other directories and files are ignored. A value that is not a
 * non-negative integer is KVB_EINPUT naming the line. z is released first.
 */
int kvb_rapl_parse(const char *out, const char *errtext, struct kvb_rapl_zones *z, struct kvb_error *err);
void kvb_rapl_zones_release(struct kvb_rapl_zones *z);
/* Index of the zone whose directory is dir, or -1. */
int64_t kvb_rapl_zone_find(const struct kvb_rapl_zones *z, const char *dir);

/* The zones kept for the job: zone[i] (an index into the zones) stored as chan[i] (owned). */
struct kvb_rapl_sel {
	size_t n;
	size_t *zone;
	char **chan;
};
void kvb_rapl_sel_release(struct kvb_rapl_sel *s);

/*
 * The selection of `channels:` ({chan_name: ZONE}, ZONE a default channel name or a directory;
 * NULL or empty: every zone under its default name), checked against `sums:` ({name: [chan,
 * ...]}, may be NULL). KVB_EINPUT: a ZONE not found (the zones found are listed), two zones
 * with one default name, or a sum that counts energy twice: a zone and its own sub-zone
 * (package-0 already counts core and uncore; dram is the exception, the package counter does
 * not include it: Intel SDM vol. 3 "RAPL domains", kepler PR #156), psys with any other zone
 * (psys is the platform: packages and DRAM), or a zone named twice.
 */
int kvb_rapl_select(const struct kvb_rapl_zones *z, const cJSON *channels, const cJSON *sums, struct kvb_rapl_sel *out,
		    struct kvb_error *err);

enum kvb_rapl_verdict {
	KVB_RAPL_MOVED,    /* stop > start: delta = stop - start */
	KVB_RAPL_WRAPPED,  /* stop < start, one wrap fits max_power_w: delta = range - start + stop */
	KVB_RAPL_STILL,    /* stop == start: the counter did not move (refused, never 0 J) */
	KVB_RAPL_LONG,     /* max_power_w x the window reaches the range: a second wrap could hide */
	KVB_RAPL_RESET,    /* stop < start but the wrap would need more than max_power_w: a reset */
	KVB_RAPL_NO_RANGE, /* max_energy_range_uj 0, or a reading above it: nothing to bound wraps by */
};

/*
 * The energy (uJ) a counter read a_uj at the start and b_uj at the stop counted, window_s
 * apart (the widest estimate of the time between the two reads), given its range_uj and the
 * most the zone can draw, max_power_w. Only MOVED and WRAPPED set *delta_uj. The counter
 * wraps from range to 0, so a wrapped delta is range - a + b; the kernel's range is
 * 0xffffffff units, one unit (15-61 uJ) short of the true period, which is that much low.
 */
enum kvb_rapl_verdict kvb_rapl_delta(uint64_t a_uj, uint64_t b_uj, uint64_t range_uj, double window_s,
				     double max_power_w, uint64_t *delta_uj);

#endif
