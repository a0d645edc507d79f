/*
 * Implements the cpufreq instrument: per cluster, the deltas of cpufreq
 * stats/time_in_state (of the cluster's first CPU, i.e. its policy) between
 * start and stop give the residency at each frequency and the time-weighted
 * mean frequency. Metrics: `freq_mean` (MHz) with classifier cluster, and
 * `freq_residency` (% of the job) with classifiers cluster and freq_mhz.
 * `root:` prefixes /sys (tests use a directory tree with the real file names).
 */
#include "instrument/instrument.h"
#include "instrument/probe.h"
#include "core/log.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct kvb_keydef keys[] = {
	{ "root", KVB_T_STR, "", NULL, 0, "path prefix of /sys on the target (tests)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

struct priv {
	struct kvb_cluster_set cs;
	struct kvb_tis *a, *b;
};

static int cpufreq_setup(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = kvb_xcalloc(1, sizeof(*p));
	c->priv = p;
	if (kvb_clusters_get(c->plat, &p->cs, err))
		return kvb_error_prefix(err, "instrument '%s'", c->name);
	p->a = kvb_xcalloc(p->cs.n, sizeof(*p->a));
	p->b = kvb_xcalloc(p->cs.n, sizeof(*p->b));
	return KVB_OK;
}

static int read_all(struct kvb_instr_ctx *c, struct kvb_tis *out, struct kvb_error *err)
{
	struct priv *p = c->priv;
	for (size_t i = 0; i < p->cs.n; i++)
		if (kvb_tis_read(c->target, kvb_get_str(c->conf, "root", ""), p->cs.first[i], &out[i], err))
			return kvb_error_prefix(err, "instrument '%s': cluster '%s'", c->name, p->cs.name[i]);
	return KVB_OK;
}

static int cpufreq_start(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	return read_all(c, ((struct priv *)c->priv)->a, err);
}

static int cpufreq_stop(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	return read_all(c, ((struct priv *)c->priv)->b, err);
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
		mt = kvb_metrics_add(c->out, "freq_mean", wsum / total / 1000.0, "MHz", 0);
		kvb_metric_classify(mt, "cluster", p->cs.name[i]);
		for (size_t k = 0; k < b->n; k++) {
			char mhz[32];
			uint64_t t0 = tis_at(a, b->khz[k]), d = b->t[k] > t0 ? b->t[k] - t0 : 0;
			snprintf(mhz, sizeof(mhz), "%g", (double)b->khz[k] / 1000.0);
			mt = kvb_metrics_add(c->out, "freq_residency", (double)d / total * 100.0, "%", 0);
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
		kvb_strv_pushf(p->problems, "instrument '%s': %s", p->name, err.msg);
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
};
