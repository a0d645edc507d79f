/*
 * The order in which cpufreq knobs are written (devlib PR #417, LISA PR #411):
 * a governor's tunables (policyN/schedutil/rate_limit_us) exist only while
 * that governor is active, so every governor is written first, then
 * frequencies, then the remaining sysfs values; restoring goes in reverse
 * (tunables back, then the governor). A policy whose CPUs are all offline
 * (empty affected_cpus) rejects writes: the global `governor` knob skips it
 * with a warning (an event), a per-cluster knob naming it fails the job.
 *
 * Runtime knob `cpufreq: {CLUSTER: {governor, min_freq, max_freq, frequency,
 * tunables}}` (kHz, as cpufreq's scaling_* files), CLUSTER a name from
 * topology.clusters; the cluster's policy is the one whose related_cpus holds
 * its first CPU. tunables {NAME: value} are written to policyN/GOVERNOR/NAME
 * right after that cluster's governor (which they need in the same knob).
 */
#ifndef KVB_CPUFREQ_PLAN_H
#define KVB_CPUFREQ_PLAN_H

#include "config/platform.h"
#include "core/error.h"
#include "core/util.h"

struct kvb_write_plan {
	struct kvb_strv paths, values; /* writes in order */
	struct kvb_strv knobs;         /* per write: the knob's classifier key ("governor", "sysfs./PATH",
					* "cpufreq.CLUSTER.KEY", "cpufreq.CLUSTER.tunables.NAME"): messages and readback */
	struct kvb_strv warnings;      /* skipped policies etc. (the caller logs them) */
};

/*
 * Fills argv (6 slots, NULL-terminated; the strings are static or root's) with the listing run on
 * the target: it prints "POLICYDIR|affected_cpus|related_cpus" per policy found under root (the
 * platform's sysfs_root, "" or NULL for the real /sys), POLICYDIR without root, as the board names
 * it. The plan's paths are the board's; the caller puts root before each one it writes.
 */
void kvb_cpufreq_list_argv(const char *root, const char *argv[6]);

/*
 * Plans the sysfs, governor and per-cluster cpufreq writes of rt (sysctl is
 * not included). policies: the listing's output (may be NULL when rt has no
 * governor or cpufreq knob). KVB_ETARGET/KVB_EINPUT with the reason when a
 * knob cannot be applied as asked (no policies, unknown cluster, offline cluster).
 */
int kvb_cpufreq_plan(const struct kvb_runtime *rt, const char *policies, const struct kvb_cluster *clusters,
		     size_t nclusters, struct kvb_write_plan *p, struct kvb_error *err);
/*
 * The clusters a cpufreq knob key names: the cluster of that name, else every
 * cluster whose `core` is that core type, as WA3's NAME_governor takes devlib's
 * core names ("a53" or "cortex-a53" for core: cortex-a53; case ignored).
 * Indexes into idx (room for ncl); returns how many (0 = none).
 */
size_t kvb_clusters_match(const struct kvb_cluster *cl, size_t ncl, const char *name, size_t *idx);
/* "known: little (cortex-a53), big" (or "known: none declared"), for messages; caller frees. */
char *kvb_clusters_known(const struct kvb_cluster *cl, size_t ncl);
void kvb_write_plan_release(struct kvb_write_plan *p);

#endif
