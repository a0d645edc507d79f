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
 * failing with EBUSY or ENODEV; a cluster offline at the end of the job is skipped the same way.
 *
 * Between the two end readings a sampler (sampler.h, every `interval_ms`) reads each cluster's
 * time_in_state and total_trans and the online list, so what happens during the job is seen
 * even when it is undone by its end (issue 40). The table's rows are counters that restart
 * together (kvb_residency_feed): a `stats/reset`, or the stats freed with the policy when the
 * cluster went offline and recreated when it came back, restart them at 0. The residency is
 * then summed over the readings, counting a restarted table from 0, with a `counter` witness,
 * `changed`, saying where it restarted and that the time between the reading before and the
 * restart is not in freq_mean. Before, a restart read as rows going back, turned into 0, and the
 * rows that had passed their old values made the whole job (a board that ran mostly at 500 MHz
 * stored at 1000 MHz). An online list that changed during the job, even if back by its end, is a
 * `hotplug` witness, `changed`.
 */
#include "instrument/instrument.h"
#include "instrument/residency.h"
#include "instrument/sampler.h"
#include "core/log.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct kvb_keydef keys[] = {
	{ "interval_ms", KVB_T_INT, "100", NULL, KVB_KEY_POSITIVE,
	  "how often time_in_state is read during the job (a reset or a hotplug is seen between two reads)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

/* Frequency has no better or worse: a higher one is more speed and more power (docs/outputs.md, "Directions"). */
static const struct kvb_metric_decl freq_metrics[] = {
	{ "freq_mean", "MHz", KVB_NO_DIRECTION, "time-weighted mean frequency of the job, per cluster (classifier cluster)", 0, NULL },
	{ "freq_residency", "%", KVB_NO_DIRECTION, "share of the job's time at each frequency (classifier freq_mhz)", 0, NULL },
	{ NULL, NULL, 0, NULL, 0, NULL },
};
/* One sample: the online list and each read CPU's time_in_state (residency.h). $1 the root, then the CPUs. */
static const char snap_body[] = KVB_TIS_SNAP_BODY("");

struct priv {
	struct kvb_cluster_set cs;
	struct kvb_tis *a, *b;
	int *cpu;      /* per cluster: the CPU whose cpufreq directory is read */
	int *skip;     /* per cluster: offline, no metrics (its witness is in the job) */
	struct kvb_online_watch online; /* the online list at the start and in the samples */
	struct kvb_sampler loop;
	char *remote;
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
	p->remote = kvb_xasprintf("%s/%s-tis.txt", c->remote_dir, c->name);
	return KVB_OK;
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
	kvb_online_watch_start(&p->online, c->target, kvb_instr_sysfs_root(c->plat));
	for (size_t i = 0; i < p->cs.n; i++) {
		p->cpu[i] = kvb_cluster_read_cpu(&p->cs, i, p->online.start);
		if (p->cpu[i] < 0) {
			char *why = kvb_xasprintf("/sys/devices/system/cpu/online is %s", p->online.start);
			skip_cluster(c, i, "at the start of the job", why);
			free(why);
		}
	}
}

static int read_all(struct kvb_instr_ctx *c, struct kvb_tis *out, const char *when, struct kvb_error *err)
{
	struct priv *p = c->priv;
	for (size_t i = 0; i < p->cs.n; i++) {
		if (p->skip[i])
			continue;
		if (kvb_tis_read(c->target, kvb_instr_sysfs_root(c->plat), p->cpu[i], &out[i], err)) {
			if (!kvb_tis_offline_error(err->msg))
				return kvb_error_prefix(err, "cluster '%s'", p->cs.name[i]);
			skip_cluster(c, i, when, err->msg);
		}
	}
	return KVB_OK;
}

static int cpufreq_start(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	struct kvb_strv args = KVB_STRV_INIT;
	int rc;
	pick_cpus(c);
	if ((rc = read_all(c, p->a, "at the start of the job", err)))
		return rc;
	kvb_strv_push(&args, kvb_instr_sysfs_root(c->plat));
	for (size_t i = 0; i < p->cs.n; i++)
		if (!p->skip[i])
			kvb_strv_pushf(&args, "%d", p->cpu[i]);
	rc = kvb_sampler_start(&p->loop, c->target, p->remote, (unsigned)kvb_get_int(c->conf, "interval_ms", 100),
			       snap_body, (const char *const *)kvb_strv_argv(&args), err);
	kvb_strv_release(&args);
	return rc;
}

/* The sampler stops first: a sample taken after the end reading would be placed before it. */
static int cpufreq_stop(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	int rc = kvb_sampler_stop(&p->loop, c->target, err);
	struct kvb_error e2;
	if (read_all(c, p->b, "at the end of the job", &e2) && !rc) {
		*err = e2;
		rc = e2.code;
	}
	return rc;
}

/* Feeds every sample of the loop to each cluster's residency, and the online lists to the watch. */
static void feed_samples(struct kvb_instr_ctx *c, const char *text, struct kvb_residency *res)
{
	struct priv *p = c->priv;
	const char *cur = text;
	double up;
	char *body;
	while (!kvb_snapshots_next(&cur, &up, &body)) {
		for (size_t i = 0; i < p->cs.n; i++) {
			if (!(p->skip[i]))
				kvb_residency_feed_sample(&res[i], body, p->cpu[i], up);
		}
		kvb_online_watch_feed(&p->online, body, up);
		free(body);
	}
	kvb_online_watch_witness(&p->online, c->out, c->name);
}

static int cpufreq_collect(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	struct kvb_residency *res = kvb_xcalloc(p->cs.n, sizeof(*res));
	char *text = NULL;
	int rc = kvb_sampler_text(&p->loop, c->target, &text, err);
	if (rc) {
		free(res);
		return rc;
	}
	for (size_t i = 0; i < p->cs.n; i++)
		if (!p->skip[i])
			kvb_residency_feed(&res[i], &p->a[i], -1);
	feed_samples(c, text, res);
	for (size_t i = 0; i < p->cs.n; i++) {
		struct kvb_residency *r = &res[i];
		double total = 0, wsum = 0;
		struct kvb_metric *mt;
		if (p->skip[i])
			continue;
		kvb_residency_feed(r, &p->b[i], -1);
		for (size_t k = 0; k < r->n; k++) {
			total += r->t[k];
			wsum += r->t[k] * (double)r->khz[k];
		}
		if (r->restarts)
			kvb_residency_witness(c->out, p->cs.name[i], cluster_cpus(c, i), r, "freq_mean and freq_residency");
		if (total <= 0) {
			/* time_in_state counts in 10 ms: a shorter job has nothing to report. */
			kvb_warn("instrument '%s': cluster '%s': no cpufreq residency accounted during the job", c->name,
				 p->cs.name[i]);
			continue;
		}
		mt = kvb_metrics_add_decl(c->out, &freq_metrics[0], wsum / total / 1000.0);
		kvb_metric_classify(mt, "cluster", p->cs.name[i]);
		for (size_t k = 0; k < r->n; k++) {
			char mhz[32];
			snprintf(mhz, sizeof(mhz), "%g", (double)r->khz[k] / 1000.0);
			mt = kvb_metrics_add_decl(c->out, &freq_metrics[1], r->t[k] / total * 100.0);
			kvb_metric_classify(mt, "cluster", p->cs.name[i]);
			kvb_metric_classify(mt, "freq_mhz", mhz);
		}
	}
	for (size_t i = 0; i < p->cs.n; i++)
		kvb_residency_release(&res[i]);
	free(res);
	free(text);
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
	kvb_online_watch_release(&p->online);
	kvb_sampler_release(&p->loop, c->target);
	free(p->remote);
	kvb_clusters_release(&p->cs);
	free(p);
	c->priv = NULL;
}

/* `platform check` (instrument.h kvb_instr_probe): cpufreq stats of each cluster's first CPU under ROOT on the board. */
static void cpufreq_probe(struct kvb_instr_probe *p)
{
	kvb_instr_probe_tis(p);
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
