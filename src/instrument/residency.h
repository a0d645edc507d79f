/*
 * What the instruments that sample cpufreq time_in_state during a job share (cpufreq.c, model.c):
 * the sampler body that reads the online list and each cluster's table (sampler.h), the parsers
 * of one sample, the watch on the online list, and the `counter` witness of a table that
 * restarted (kvb_residency in probe.h sums the readings).
 */
#ifndef KVB_RESIDENCY_H
#define KVB_RESIDENCY_H

#include "instrument/probe.h"

/*
 * A sampler body (sampler.h): "r=$1; shift; " then PRE (a fixed shell text of the instrument, run
 * with $r the root, "" for none), then "online LIST" when /sys/devices/system/cpu/online is
 * readable, then per CPU argument "cpu N" and its time_in_state rows, or "unreadable MESSAGE"
 * (EBUSY: an inactive policy; ENOENT: freed), and "total_trans N" when readable. Arguments: the
 * root, then the CPUs whose tables are read. PRE must not print lines "cpu N" or "online ...".
 */
#define KVB_TIS_SNAP_BODY(PRE)                                                                                        \
	"r=$1; shift; " PRE "o=$r/sys/devices/system/cpu/online; [ -r \"$o\" ] && echo \"online $(cat \"$o\")\"; "    \
	"for c; do s=$r/sys/devices/system/cpu/cpu$c/cpufreq/stats; echo \"cpu $c\"; "                                 \
	"if t=$(cat \"$s/time_in_state\" 2>&1); then echo \"$t\"; else echo \"unreadable $t\"; fi; "                  \
	"t=$(cat \"$s/total_trans\" 2>/dev/null) && echo \"total_trans $t\"; done; true"

/* CPU cpu's table in one sample body (KVB_TIS_SNAP_BODY) into t (0, t owned by the caller), or -1
 * when it was unreadable or absent (t empty). */
int kvb_tis_from_sample(const char *body, int cpu, struct kvb_tis *t);

/* Feeds r with CPU cpu's table in one sample body taken at uptime_s (s): the table, or a gap when it
 * was unreadable or absent (kvb_residency_feed). cpufreq.c and model.c. */
void kvb_residency_feed_sample(struct kvb_residency *r, const char *body, int cpu, double uptime_s);

/* A read error that says the policy is inactive: EBUSY ("Device or resource busy": all its CPUs
 * offline, drivers/cpufreq/cpufreq.c show()) or ENODEV ("No such device"). */
int kvb_tis_offline_error(const char *msg);

/*
 * The CPU through which cluster i's policy is read: its lowest CPU in online (a CPU list as in
 * /sys/devices/system/cpu/online; WA3 #1217: the first CPU of a cluster may be the one hotplugged
 * out), or its lowest CPU when online is NULL or not a list; -1 when none of its CPUs is online.
 */
int kvb_cluster_read_cpu(const struct kvb_cluster_set *cs, size_t i, const char *online);

/* The online list at the start of a job and what the samples said of it afterwards. */
struct kvb_online_watch {
	char *start;      /* /sys/devices/system/cpu/online at the start, or NULL (unknown: no watch) */
	char *changed;    /* the first sampled list that differs, or NULL */
	double first_up;  /* its uptime (s) */
	char *last;       /* the last sampled list */
};
/* Reads the start list (ROOT/sys/devices/system/cpu/online; unreadable leaves start NULL); w zeroed first. */
void kvb_online_watch_start(struct kvb_online_watch *w, struct kvb_target *t, const char *root);
/* Feeds one sample body (its "online LIST" line, if any) taken at uptime up (s). */
void kvb_online_watch_feed(struct kvb_online_watch *w, const char *body, double up);
/* A `hotplug` witness, `changed`, of instance name in out when a sampled list differed from the start's. */
void kvb_online_watch_witness(const struct kvb_online_watch *w, struct kvb_metrics *out, const char *name);
void kvb_online_watch_release(struct kvb_online_watch *w);

/*
 * The `counter` witness (`changed`, subject "CLUSTER time_in_state") of a table that restarted
 * (r->restarts > 0): where, and why (a reset, or the cluster offline between the readings and its
 * stats freed and recreated). cpus: the cluster's CPU list (text); counted_in: what counts the
 * residency from the restart ("freq_mean and freq_residency").
 */
void kvb_residency_witness(struct kvb_metrics *out, const char *cluster, const char *cpus,
			   const struct kvb_residency *r, const char *counted_in);

#endif
