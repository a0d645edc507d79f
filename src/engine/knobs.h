/*
 * Applying runtime knobs on a target around a job: sysctl/sysfs/governor
 * values are written before and the old values restored after; cpus and
 * cgroup_depth become an argv prefix (the "wrap") for the workload command:
 *
 *   sh -c 'echo $$ > "$1" && shift && exec "$@"' kvb-cgroup PROCS taskset -c CPUS <cmd...>
 *
 * Only fixed script text reaches sh; every value travels as an argument.
 * cgroups: the hierarchy that has the cpu controller (engine/cgroup.h: a
 * cgroup2 mount with cpu in cgroup.controllers, +cpu enabled down the chain,
 * else the v1 mount with the cpu option, e.g. Android's /dev/cpuctl); depth
 * N creates kvbench-<tag>/l2/.../lN under its root, depth 0 is the root
 * cgroup itself. A controller that cannot be enabled fails the job. With
 * cg_report set, the wrapper also copies the workload's /proc/PID/cgroup
 * there, and kvb_knobs_check_cgroup() fails the job unless it is the leaf.
 *
 * Every file written is read back (engine/readback.h compares by format), once
 * right after its write (again up to 10 times 10 ms apart while it disagrees, as
 * devlib's write_value(verify=True) waits for a write the kernel applies late),
 * and all together once every knob is written (a later knob can undo an earlier
 * one: a governor change removes the old governor's tunables). A value the
 * kernel did not take fails the job ("cpufreq.big.max_freq: asked 2800000,
 * kernel has 2362000") with a `failed` witness, unless the knob is `readback:
 * record` (config/runtime.h): then the value found is the job's classifier
 * (k->recorded) and a `recorded` witness says so. A knob that agrees gets an
 * `ok` witness. kvb_knobs_recheck() reads them again after the job: one that
 * changed meanwhile is a `changed` witness. Restoring reads back too (a warning).
 *
 * RT group scheduling (CONFIG_RT_GROUP_SCHED, Android's /dev/cpuctl): a v1 cpu
 * group starts with cpu.rt_runtime_us 0, where no SCHED_FIFO/RR task may run
 * (Documentation/scheduler/sched-rt-group.rst). Each level kvbench creates gets
 * the platform's cgroup.rt_runtime_us, else all the budget its parent's other
 * groups leave free (the kernel's own ratio arithmetic, so the sum of the
 * children never exceeds the parent); with none left, a job whose workload runs
 * RT tasks (needs_rt) fails naming the budgets.
 */
#ifndef KVB_KNOBS_H
#define KVB_KNOBS_H

#include "config/platform.h"
#include "config/runtime.h"
#include "core/witness.h"
#include "engine/cgroup.h"
#include "target/target.h"

struct kvb_knob_state {
	/* Optional: called with a file's original value before kvbench writes it, and once the
	 * original is back (the engine keeps them in the DB so a crash cannot lose them). */
	void (*on_save)(void *arg, const char *path, const char *original);
	void (*on_restored)(void *arg, const char *path);
	void *cb_arg;
	struct kvb_strv paths;   /* files written */
	struct kvb_strv olds;    /* their previous values, same order */
	struct kvb_strv wrap;    /* argv prefix for the workload */
	struct kvb_strv cgdirs;  /* cgroup directories created, outermost first */
	char *cg_report;         /* set by the caller (owned, freed by release): remote file for the
				  * workload's /proc/PID/cgroup; NULL: no membership check */
	struct kvb_cgroup_hier cg; /* the hierarchy used by cgroup_depth */
	char *cg_expect;         /* the leaf's path relative to cg.mount ("/" at depth 0), or NULL */
	const struct kvb_cluster *clusters; /* topology.clusters for per-cluster cpufreq knobs (borrowed) */
	size_t nclusters;
	struct kvb_strv knobs;   /* per path written: the knob's classifier key (or "cgroup") */
	struct kvb_strv asked;   /* per path written: the value written */
	struct kvb_strv found;   /* per path written: what it read right after its write */
	struct kvb_strv settled; /* after kvb_knobs_apply: per path, what it read once every knob was written */
	struct kvb_witnesses *wit; /* set by the caller: where witnesses go (borrowed); NULL: none kept */
	cJSON *recorded;         /* owned: classifier key -> value found, for `readback: record` knobs the
				  * kernel did not take as asked (the job's classifiers take these), or NULL */
	int needs_rt;            /* set by the caller: the workload may run SCHED_FIFO/RR tasks */
	long long rt_runtime_us; /* set by the caller: platform cgroup.rt_runtime_us (0: the parent's free budget) */
	const cJSON *readback;   /* the job's readback policy while applying (borrowed from rt) */
};

void kvb_knob_state_init(struct kvb_knob_state *k);
/* Writes originals back (paths[i] <- values[i], last first); returns the first error, tries all. */
int kvb_knobs_write_back(struct kvb_target *t, const struct kvb_strv *paths, const struct kvb_strv *values,
			 struct kvb_error *err);
/*
 * Applies rt on t. tag names the cgroup (unique per run, e.g. "run3").
 * On error, what was already written is restored before returning.
 */
int kvb_knobs_apply(struct kvb_target *t, const struct kvb_runtime *rt, const char *tag, struct kvb_knob_state *k,
		    struct kvb_error *err);
/*
 * After the job: reads every knob written again (one command); one that no longer agrees with
 * what it read before the job is a `changed` witness in k->wit (a daemon or the kernel rewrote
 * it during the job). Never fails the job; an unreadable file is a `changed` witness too.
 */
void kvb_knobs_recheck(struct kvb_target *t, struct kvb_knob_state *k);
/* Restores written values and removes created cgroups; returns the first error but tries everything. */
int kvb_knobs_restore(struct kvb_target *t, struct kvb_knob_state *k, struct kvb_error *err);
void kvb_knob_state_release(struct kvb_knob_state *k);
/*
 * After the workload: with a cgroup_depth and cg_report, reads the record and
 * checks the workload ran in the leaf asked for. *where gets the leaf's full
 * path (owned; NULL without cgroup_depth). KVB_ETARGET names the cgroup it ran in.
 */
int kvb_knobs_check_cgroup(struct kvb_target *t, const struct kvb_knob_state *k, char **where, struct kvb_error *err);

#endif
