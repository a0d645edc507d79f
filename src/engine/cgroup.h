/*
 * Finding the cgroup hierarchy that really has the cpu controller, and
 * checking where a process ran.
 *
 * Facts (kernel Documentation/admin-guide/cgroup-v1/cgroups.rst and
 * cgroup-v2.rst, proc(5)):
 *  - /proc/mounts: "DEVICE MOUNTPOINT FSTYPE OPTIONS 0 0"; spaces, tabs,
 *    newlines and backslashes in fields are octal escapes (\040 ...).
 *  - a v1 hierarchy is fstype "cgroup" whose options list its controllers
 *    ("rw,nosuid,nodev,noexec,relatime,cpu"; "cpu,cpuacct" when co-mounted);
 *  - a cgroup2 mount has the cpu controller when "cpu" is a word of its
 *    root's cgroup.controllers (a controller bound to a v1 hierarchy is not
 *    offered there);
 *  - /proc/PID/cgroup: "ID:CONTROLLERS:PATH" per v1 hierarchy, "0::PATH"
 *    for cgroup2; PATH is relative to the hierarchy's root ("/" = root).
 * Android mounts cgroup2 at /sys/fs/cgroup without cpu and the v1 cpu
 * controller at /dev/cpuctl (tests/fixtures/field/mounts/PROVENANCE).
 */
#ifndef KVB_CGROUP_H
#define KVB_CGROUP_H

#include "core/error.h"
#include "target/target.h"

#include <stddef.h>
#include <stdint.h>

struct kvb_cgroup_hier {
	int v2;            /* 1: cgroup2; 0: a v1 hierarchy */
	char *mount;       /* its mount point (owned), e.g. "/dev/cpuctl" */
	char *controllers; /* v1: the hierarchy's controllers as /proc/PID/cgroup lists them ("cpu",
			    * "cpu,cpuacct", in mount option order); v2: NULL */
};

/*
 * Picks the hierarchy with the cpu controller from /proc/mounts text: the
 * first cgroup2 mount for which v2_has_cpu(arg, mountpoint) says 1, else the
 * first v1 mount with "cpu" among its options. v2_has_cpu may be NULL (no
 * cgroup2 mount qualifies). Returns KVB_OK with *h filled, or KVB_ETARGET
 * with a message listing the cgroup mounts seen (none has cpu).
 */
int kvb_cgroup_pick(const char *mounts, int (*v2_has_cpu)(void *arg, const char *mount), void *arg,
		    struct kvb_cgroup_hier *h, struct kvb_error *err);

/* Path of the process in hierarchy h, from /proc/PID/cgroup text; owned string, or NULL when absent. */
char *kvb_cgroup_proc_path(const char *proc_cgroup, const struct kvb_cgroup_hier *h);

/* Reads /proc/mounts and the cgroup2 roots' cgroup.controllers on t, then kvb_cgroup_pick. */
int kvb_cgroup_find(struct kvb_target *t, struct kvb_cgroup_hier *h, struct kvb_error *err);

void kvb_cgroup_hier_release(struct kvb_cgroup_hier *h);

/*
 * RT bandwidth under a v1 cpu group with RT group scheduling (CONFIG_RT_GROUP_SCHED: the
 * group has cpu.rt_runtime_us; Android's /dev/cpuctl kernels). A new group gets runtime 0,
 * where no SCHED_FIFO/RR task may run, and the sum of a group's children's ratios
 * (runtime / period) must not exceed its own (kernel/sched/rt.c tg_rt_schedulable;
 * Documentation/scheduler/sched-rt-group.rst). Ratios are the kernel's fixed point
 * (to_ratio: runtime << 20 / period; runtime -1, RUNTIME_INF, is 1 << 20).
 */
struct kvb_rt_budget {
	int has;                     /* 0: no cpu.rt_runtime_us (no RT group scheduling): nothing to give */
	long long runtime_us, period_us; /* the parent's cpu.rt_runtime_us and cpu.rt_period_us */
	long long child_period_us;   /* the child's cpu.rt_period_us (the parent's without a child) */
	uint64_t total, used;        /* the parent's ratio, and what its other groups hold */
	long long used_us;           /* what its other groups hold, us (exact when every period is the parent's) */
	int same_period;             /* every other group's and the child's period is the parent's */
	size_t others;               /* how many other groups hold a budget there */
	char why[256];               /* "PARENT/cpu.rt_runtime_us is R of P us and its N other group(s) hold U us of it" */
};

/* Reads the budgets under parent (its groups other than child; child may be NULL) in one command. */
int kvb_cgroup_rt_budget(struct kvb_target *t, const char *parent, const char *child, struct kvb_rt_budget *b,
			 struct kvb_error *err);

/*
 * The runtime (us per child period) one more group under parent can get: all its other groups
 * leave (runtime minus theirs when every period is the same: the kernel's floored ratios of
 * parts never exceed the floored ratio of their sum; else by the ratios).
 */
long long kvb_rt_budget_free_us(const struct kvb_rt_budget *b);

#endif
