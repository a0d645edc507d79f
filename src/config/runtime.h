/*
 * Runtime knobs: what a variant, section or workload entry changes on the
 * target around a job without a new kernel (WA3 runtime_params).
 *
 *   cpus          CPU list for the workload's affinity ("0", "0-3", "4-7")
 *   cgroup_depth  run the workload N cgroups deep (0 = root cgroup)
 *   sysctl        {name: value}, written to /proc/sys before, restored after
 *   sysfs         {path: value} (WA3 alias: sysfile_values), same
 *   governor      cpufreq scaling_governor for every policy with an online CPU
 *   cpufreq       {CLUSTER: {governor, min_freq, max_freq, frequency,
 *                 tunables: {NAME: value}}} per topology.clusters name (kHz);
 *                 engine/cpufreq_plan.h
 *   readback      what a knob the kernel did not take as written does to the
 *                 job (engine/readback.h): `fail` (default: the job fails
 *                 naming asked and found) or `record` (the value found is the
 *                 job's classifier, with a `recorded` witness); one word for
 *                 every knob, or {KIND[.NAME]: fail|record} per knob kind
 *                 (all, sysctl, sysfs, governor, cpufreq) or per knob
 *                 (sysctl.kernel.sched_rr_timeslice_ms, cpufreq.big.max_freq,
 *                 sysfs./sys/...); the most specific entry wins. Not a knob
 *                 and not a classifier: it says how the knobs are checked (the
 *                 files of the cgroups kvbench creates are never lenient)
 *   wa3_unapplied {WA3 key: value}: WA3 runtime parameters kvbench has no
 *                 knob for (CPU hotplug, governor tunables, all-CPU
 *                 frequencies; config/wa3_keys.c puts them here): a job
 *                 carrying one fails with kvb_runtime_unapplied_reason()
 */
#ifndef KVB_RUNTIME_H
#define KVB_RUNTIME_H

#include "config/keys.h"
#include "core/error.h"

struct kvb_runtime {
	char *cpus;        /* owned, NULL = unset */
	int cgroup_depth;  /* -1 = unset */
	cJSON *sysctl;     /* owned object name -> scalar, or NULL */
	cJSON *sysfs;      /* owned object path -> scalar, or NULL */
	char *governor;    /* owned, NULL = unset */
	cJSON *cpufreq;    /* owned object cluster -> {governor, min_freq, max_freq, frequency, tunables}, or NULL */
	cJSON *unapplied;  /* owned object WA3 key -> value (wa3_unapplied), or NULL */
	cJSON *readback;   /* owned object KIND[.NAME] -> "fail"|"record" (scalar form: {all: V}), or NULL */
};

extern const struct kvb_keydef kvb_runtime_keys[];

void kvb_runtime_init(struct kvb_runtime *rt);
void kvb_runtime_release(struct kvb_runtime *rt);
/* True when key names a runtime knob (used by sweep: to route values). */
int kvb_runtime_is_knob(const char *key);
/* Validates obj (a mapping of knobs) and merges it over rt: scalars replace, maps merge per key. */
int kvb_runtime_merge_json(struct kvb_runtime *rt, const cJSON *obj, const char *path, struct kvb_diag *d);
/* Merges src over dst (same rules). */
void kvb_runtime_merge(struct kvb_runtime *dst, const struct kvb_runtime *src);
/* Deep copy. */
void kvb_runtime_copy(struct kvb_runtime *dst, const struct kvb_runtime *src);
/*
 * Why the WA3 runtime parameter `key` (from wa3_unapplied) cannot be applied:
 * a static sentence naming what kvbench lacks and what to write instead.
 */
const char *kvb_runtime_unapplied_reason(const char *key);
/*
 * KVB_EINPUT naming the first wa3_unapplied key and its reason (the job
 * must fail: nothing is silently dropped), else KVB_OK.
 */
int kvb_runtime_check_applicable(const struct kvb_runtime *rt, struct kvb_error *err);
/*
 * Job classifiers for the knobs `set` (a workload entry's own: global <
 * section < entry < sweep), each with its value as applied (`applied`: the
 * job's merged knobs, a variant's value wins: diff compares the keys a
 * variant sets instead of grouping by them): cpus, cgroup_depth, governor,
 * sysctl.NAME, sysfs.PATH, cpufreq.CLUSTER.KEY (tunables:
 * cpufreq.CLUSTER.tunables.NAME), wa3_unapplied.KEY. Values as strings, added
 * to (replacing keys in) the object cls. Two jobs that ran with different
 * knobs so never share a diff cell.
 */
void kvb_runtime_add_classifiers(const struct kvb_runtime *set, const struct kvb_runtime *applied, cJSON *cls);
/*
 * The classifier keys kvb_runtime_add_classifiers gives for the knobs a JSON
 * object from kvb_runtime_to_json holds (a variant row's runtime_json): its
 * scalars by name, its maps' leaves as "map.key[.key...]". Each key is
 * pushed to keys once. Used by diff to compare, not group by, the knobs a
 * variant sets (groups.c).
 */
void kvb_runtime_json_classifier_keys(const cJSON *rt_json, struct kvb_strv *keys);
/* As a JSON object (for the DB and `agenda check`); caller owns it. */
cJSON *kvb_runtime_to_json(const struct kvb_runtime *rt);

#endif
