/*
 * Implements the cpufreq instrument: per cluster, the deltas of cpufreq
 * stats/time_in_state (of the cluster's first CPU, i.e. its policy) between
 * start and stop give the residency at each frequency and the time-weighted
 * mean frequency. Metrics: `freq_mean` (MHz) with classifier cluster, and
 * `freq_residency` (% of the job) with classifiers cluster and freq_mhz.
 * `root:` prefixes /sys (tests use a directory tree with the real file names).
 *
 * A cluster whose CPUs are all offline keeps its policy directory, but the kernel answers
 * every read of an inactive policy with EBUSY (drivers/cpufreq/cpufreq.c show(); WA3 PR
 * #148, sbc-bench #138): such a cluster is skipped with a `refused` witness (an event of the
 * job) and the online clusters' metrics are kept. Offline is known from
 * /sys/devices/system/cpu/online when readable (the cluster's policy is then read through its
 * first online CPU: WA3 #1217, the first CPU of a cluster hotplugged out), else from a read
 * failing with EBUSY or ENODEV; a cluster going offline during the job is skipped the same way.
 */
#include "instrument/instrument.h"
#include "instrument/probe.h"
#include "core/log.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct kvb_keydef keys[] = {
	{ NULL, 0, NULL, NULL, 0, NULL },
};

/* Frequency has no better or worse: a higher one is more speed and more power (docs/outputs.md, "Directions"). */
static const struct kvb_metric_decl freq_metrics[] = {
	{ "freq_mean", "MHz", KVB_NO_DIRECTION, "time-weighted mean frequency of the job, per cluster (classifier cluster)" },
	{ "freq_residency", "%", KVB_NO_DIRECTION, "share of the job's time at each frequency (classifier freq_mhz)" },
	{ NULL, NULL, 0, NULL },
};

struct priv {
	struct kvb_cluster_set cs;
	struct kvb_tis *a, *b;
	int *cpu;      /* per cluster: the CPU whose cpufreq directory is read */
	int *skip;     /* per cluster: offline, no metrics (its witness is in the job) */
};

static int cpufreq_setup(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = kvb_xcalloc(1, sizeof(*p));
	c->priv = p;
	if (kvb_clusters_get(c->plat, &p->cs, err))
		return err->code;
	p->a = kvb_xcalloc(p->cs.n, sizeof(*p->a));
	p->b = kvb_xcalloc(p->cs.n, sizeof(*p->b));
	p->cpu = kvb_xcalloc(p->cs.n, sizeof(*p->cpu));
	p->skip = kvb_xcalloc(p->cs.n, sizeof(*p->skip));
	return KVB_OK;
}

/* "cat: ...: Device or resource busy" (EBUSY: an inactive policy), "No such device" (ENODEV). */
static int offline_error(const char *msg)
{
	return strstr(msg, "Device or resource busy") || strstr(msg, "No such device");
}

/* The cluster's CPU list as text ("2-3"), for messages. */
static const char *cluster_cpus(const struct kvb_instr_ctx *c, size_t i)
{
	return c->plat && c->plat->nclusters > i ? c->plat->clusters[i].cpus : "0";
}

static void skip_cluster(struct kvb_instr_ctx *c, size_t i, const char *when, const char *why)
{
	struct priv *p = c->priv;
	p->skip[i] = 1;
	kvb_witness_add(&c->out->witnesses, "cpufreq", p->cs.name[i], "online", "offline", KVB_WIT_REFUSED,
			"instrument '%s': cluster '%s' (CPUs %s) is offline %s (%s): no cpufreq metrics for it, the "
			"other clusters' kept",
			c->name, p->cs.name[i], cluster_cpus(c, i), when, why);
}

/*
 * Per cluster, the CPU to read: its first online CPU by /sys/devices/system/cpu/online; a
 * cluster with none is skipped. Without that file, the cluster's first CPU.
 */
static void pick_cpus(struct kvb_instr_ctx *c)
{
	struct priv *p = c->priv;
	char *txt = NULL;
	struct kvb_error ignore;
	unsigned char *online = kvb_xcalloc(1024, 1);
	int known = !kvb_target_read_rooted(c->target, kvb_instr_sysfs_root(c->plat), "/sys/devices/system/cpu/online",
					    &txt, &ignore) && txt;
	if (known) {
		txt[strcspn(txt, " \r\n")] = '\0';
		known = kvb_cpulist_parse(txt, online, 1024) > 0;
	}
	for (size_t i = 0; i < p->cs.n; i++) {
		p->cpu[i] = p->cs.first[i];
		if (!known)
			continue;
		for (p->cpu[i] = 0; p->cpu[i] < 1024 && !(p->cs.cpus[i][p->cpu[i]] && online[p->cpu[i]]); p->cpu[i]++)
			;
		if (p->cpu[i] == 1024) {
			char *why = kvb_xasprintf("/sys/devices/system/cpu/online is %s", txt);
			skip_cluster(c, i, "at the start of the job", why);
			free(why);
		}
	}
	free(txt);
	free(online);
}

static int read_all(struct kvb_instr_ctx *c, struct kvb_tis *out, const char *when, struct kvb_error *err)
{
	struct priv *p = c->priv;
	for (size_t i = 0; i < p->cs.n; i++) {
		if (p->skip[i])
			continue;
		if (kvb_tis_read(c->target, kvb_instr_sysfs_root(c->plat), p->cpu[i], &out[i], err)) {
			if (!offline_error(err->msg))
				return kvb_error_prefix(err, "cluster '%s'", p->cs.name[i]);
			skip_cluster(c, i, when, err->msg);
		}
	}
	return KVB_OK;
}

static int cpufreq_start(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	pick_cpus(c);
	return read_all(c, ((struct priv *)c->priv)->a, "at the start of the job", err);
}

static int cpufreq_stop(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	return read_all(c, ((struct priv *)c->priv)->b, "at the end of the job", err);
}

/* Time at freq in a, or 0 (a frequency may appear only after a hotplug). */
static uint64_t tis_at(const struct kvb_tis *a, uint64_t khz)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->khz[i] == khz)
			return a->t[i];
	return 0;
}

static int cpufreq_collect(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	(void)err;
	for (size_t i = 0; i < p->cs.n; i++) {
		const struct kvb_tis *a = &p->a[i], *b = &p->b[i];
		double total = 0, wsum = 0;
		struct kvb_metric *mt;
		if (p->skip[i])
			continue;
		for (size_t k = 0; k < b->n; k++) {
			uint64_t t0 = tis_at(a, b->khz[k]), d = b->t[k] > t0 ? b->t[k] - t0 : 0;
			total += (double)d;
			wsum += (double)d * (double)b->khz[k];
		}
		if (total <= 0) {
			/* time_in_state counts in 10 ms: a shorter job has nothing to report. */
			kvb_warn("instrument '%s': cluster '%s': no cpufreq residency accounted during the job", c->name,
				 p->cs.name[i]);
			continue;
		}
		mt = kvb_metrics_add_decl(c->out, &freq_metrics[0], wsum / total / 1000.0);
		kvb_metric_classify(mt, "cluster", p->cs.name[i]);
		for (size_t k = 0; k < b->n; k++) {
			char mhz[32];
			uint64_t t0 = tis_at(a, b->khz[k]), d = b->t[k] > t0 ? b->t[k] - t0 : 0;
			snprintf(mhz, sizeof(mhz), "%g", (double)b->khz[k] / 1000.0);
			mt = kvb_metrics_add_decl(c->out, &freq_metrics[1], (double)d / total * 100.0);
			kvb_metric_classify(mt, "cluster", p->cs.name[i]);
			kvb_metric_classify(mt, "freq_mhz", mhz);
		}
	}
	return KVB_OK;
}

static void cpufreq_teardown(struct kvb_instr_ctx *c)
{
	struct priv *p = c->priv;
	if (!p)
		return;
	for (size_t i = 0; p->a && i < p->cs.n; i++) {
		kvb_tis_release(&p->a[i]);
		kvb_tis_release(&p->b[i]);
	}
	free(p->a);
	free(p->b);
	free(p->cpu);
	free(p->skip);
	kvb_clusters_release(&p->cs);
	free(p);
	c->priv = NULL;
}

/* `platform check` (instrument.h kvb_instr_probe): cpufreq stats of each cluster's first CPU under ROOT on the board. */
static void cpufreq_probe(struct kvb_instr_probe *p)
{
	struct kvb_cluster_set cs;
	struct kvb_error err;
	if (kvb_clusters_get(p->plat, &cs, &err)) {
		kvb_instr_probe_problem(p, "%s", err.msg);
		return;
	}
	for (size_t i = 0; i < cs.n; i++) {
		char path[128];
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/stats/time_in_state", cs.first[i]);
		kvb_instr_probe_board_file(p, path);
	}
	kvb_clusters_release(&cs);
}

const struct kvb_instrument_ops kvb_instrument_cpufreq = {
	.name = "cpufreq",
	.summary = "per cluster mean frequency (MHz) and residency per frequency from time_in_state",
	.conf_keys = keys,
	.setup = cpufreq_setup,
	.start = cpufreq_start,
	.stop = cpufreq_stop,
	.collect = cpufreq_collect,
	.teardown = cpufreq_teardown,
	.probe = cpufreq_probe,
	.metrics = freq_metrics,
};
