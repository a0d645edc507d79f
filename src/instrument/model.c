/*
 * Implements the model instrument: an energy estimate for boards without a
 * meter. Per cluster: E = sum over its CPUs of busy time (from /proc/stat,
 * USER_HZ ticks) x the residency-weighted active power sum_f r_f P(f), where
 * r_f comes from the cluster's cpufreq time_in_state deltas and P(f) from the
 * platform's energy_model (cluster -> {frequency kHz: active power mW}),
 * linearly interpolated between listed frequencies and clamped at the ends.
 * Idle power is not modelled. Every metric carries classifier
 * estimated=true so tables can mark it. `root:` prefixes /proc and /sys.
 */
#include "instrument/instrument.h"
#include "instrument/probe.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

static const struct kvb_keydef keys[] = {
	{ "energy_model", KVB_T_MAP, NULL, NULL, 0, "cluster -> {kHz: mW}; default: the platform's energy_model" },
	{ "user_hz", KVB_T_INT, "100", NULL, KVB_KEY_POSITIVE, "ticks per second of /proc/stat (getconf CLK_TCK)" },
	{ "sums", KVB_T_MAP, NULL, NULL, 0, "{name: [cluster, ...]}" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

struct opp {
	double khz, mw;
};

struct priv {
	struct kvb_cluster_set cs;
	struct opp **opp;   /* per cluster, sorted by khz */
	size_t *nopp;
	struct kvb_tis *ta, *tb;
	struct kvb_procstat pa, pb;
	int64_t t_a, t_b;
};

static int cmp_opp(const void *x, const void *y)
{
	const struct opp *a = x, *b = y;
	return a->khz < b->khz ? -1 : a->khz > b->khz;
}

/* Active power at khz, interpolated (the model lists a few operating points). */
static double power_at(const struct opp *o, size_t n, double khz)
{
	if (khz <= o[0].khz)
		return o[0].mw;
	for (size_t i = 1; i < n; i++)
		if (khz <= o[i].khz)
			return o[i - 1].mw + (o[i].mw - o[i - 1].mw) * (khz - o[i - 1].khz) / (o[i].khz - o[i - 1].khz);
	return o[n - 1].mw;
}

static int energy_model_setup(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = kvb_xcalloc(1, sizeof(*p));
	const cJSON *em = cJSON_GetObjectItemCaseSensitive(c->conf, "energy_model");
	c->priv = p;
	if (!em && c->plat && c->plat->doc.root)
		em = cJSON_GetObjectItemCaseSensitive(c->plat->doc.root, "energy_model");
	if (!em)
		return kvb_error_set(err, KVB_EINPUT, "no energy_model (platform or instrument)");
	if (!c->plat || !c->plat->nclusters)
		return kvb_error_set(err, KVB_EINPUT, "the model needs topology.clusters");
	if (kvb_clusters_get(c->plat, &p->cs, err))
		return err->code;
	p->opp = kvb_xcalloc(p->cs.n, sizeof(*p->opp));
	p->nopp = kvb_xcalloc(p->cs.n, sizeof(*p->nopp));
	p->ta = kvb_xcalloc(p->cs.n, sizeof(*p->ta));
	p->tb = kvb_xcalloc(p->cs.n, sizeof(*p->tb));
	for (size_t i = 0; i < p->cs.n; i++) {
		const cJSON *cl = cJSON_GetObjectItemCaseSensitive(em, p->cs.name[i]);
		if (!cJSON_IsObject(cl) || !cl->child)
			return kvb_error_set(err, KVB_EINPUT, "energy_model has no cluster '%s' {kHz: mW}", p->cs.name[i]);
		p->opp[i] = kvb_xcalloc((size_t)cJSON_GetArraySize(cl), sizeof(**p->opp));
		for (const cJSON *kv = cl->child; kv; kv = kv->next) {
			double khz;
			if (kvb_parse_double(kv->string, &khz) || khz <= 0 || !cJSON_IsNumber(kv) || kv->valuedouble < 0)
				return kvb_error_set(err, KVB_EINPUT,
						     "energy_model.%s.%s: want frequency (kHz): power (mW)", p->cs.name[i], kv->string);
			p->opp[i][p->nopp[i]].khz = khz;
			p->opp[i][p->nopp[i]++].mw = kv->valuedouble;
		}
		qsort(p->opp[i], p->nopp[i], sizeof(**p->opp), cmp_opp);
	}
	return kvb_sums_check(cJSON_GetObjectItemCaseSensitive(c->conf, "sums"), err);
}

static int snapshot(struct kvb_instr_ctx *c, struct kvb_procstat *ps, struct kvb_tis *tis, int64_t *t,
		    struct kvb_error *err)
{
	struct priv *p = c->priv;
	const char *root = kvb_instr_sysfs_root(c->plat);
	char *text = NULL;
	int rc = kvb_target_read_rooted(c->target, root, "/proc/stat", &text, err);
	*t = kvb_wall_ns();
	if (!rc && kvb_procstat_parse(text, ps))
		rc = kvb_error_set(err, KVB_EINPUT, "'%s/proc/stat' has no cpuN lines", root);
	free(text);
	for (size_t i = 0; !rc && i < p->cs.n; i++) {
		/* A cluster with a single operating point needs no cpufreq stats. */
		if (p->nopp[i] == 1)
			continue;
		rc = kvb_tis_read(c->target, root, p->cs.first[i], &tis[i], err);
	}
	return rc;
}

static int energy_model_start(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	return snapshot(c, &p->pa, p->ta, &p->t_a, err);
}

static int energy_model_stop(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	return snapshot(c, &p->pb, p->tb, &p->t_b, err);
}

static int energy_model_collect(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	double hz = (double)kvb_get_int(c->conf, "user_hz", 100), dt_s = (double)(p->t_b - p->t_a) / 1e9;
	struct kvb_chan_energy *v = kvb_xcalloc(p->cs.n, sizeof(*v));
	int rc;
	for (size_t i = 0; i < p->cs.n; i++) {
		double busy_s = 0, pavg = 0, total = 0;
		for (int cpu = 0; cpu < 1024; cpu++) {
			if (!p->cs.cpus[i][cpu] || cpu >= p->pa.n || cpu >= p->pb.n || !p->pa.seen[cpu] || !p->pb.seen[cpu])
				continue;  /* offline CPUs do not appear in /proc/stat */
			if (p->pb.busy[cpu] > p->pa.busy[cpu])
				busy_s += (double)(p->pb.busy[cpu] - p->pa.busy[cpu]) / hz;
		}
		if (p->nopp[i] == 1) {
			pavg = p->opp[i][0].mw;
		} else {
			for (size_t k = 0; k < p->tb[i].n; k++) {
				uint64_t t0 = 0, d;
				for (size_t j = 0; j < p->ta[i].n; j++)
					if (p->ta[i].khz[j] == p->tb[i].khz[k])
						t0 = p->ta[i].t[j];
				d = p->tb[i].t[k] > t0 ? p->tb[i].t[k] - t0 : 0;
				total += (double)d;
				pavg += (double)d * power_at(p->opp[i], p->nopp[i], (double)p->tb[i].khz[k]);
			}
			/* No residency accounted (job < 10 ms): assume the highest operating point, an upper bound. */
			pavg = total > 0 ? pavg / total : p->opp[i][p->nopp[i] - 1].mw;
		}
		v[i].name = p->cs.name[i];
		v[i].energy_j = busy_s * pavg / 1000.0;
		v[i].power_mw = dt_s > 0 ? v[i].energy_j / dt_s * 1000.0 : 0;
		v[i].estimated = 1;
	}
	rc = kvb_energy_emit(c->out, v, p->cs.n, cJSON_GetObjectItemCaseSensitive(c->conf, "sums"), err);
	free(v);
	return rc;
}

static void energy_model_teardown(struct kvb_instr_ctx *c)
{
	struct priv *p = c->priv;
	if (!p)
		return;
	for (size_t i = 0; i < p->cs.n; i++) {
		if (p->opp)
			free(p->opp[i]);
		if (p->ta) {
			kvb_tis_release(&p->ta[i]);
			kvb_tis_release(&p->tb[i]);
		}
	}
	free(p->opp);
	free(p->nopp);
	free(p->ta);
	free(p->tb);
	kvb_procstat_release(&p->pa);
	kvb_procstat_release(&p->pb);
	kvb_clusters_release(&p->cs);
	free(p);
	c->priv = NULL;
}

/* `platform check` (instrument.h kvb_instr_probe): /proc/stat and the cpufreq stats it estimates from, under ROOT on the board. */
static void model_probe(struct kvb_instr_probe *p)
{
	struct kvb_cluster_set cs;
	struct kvb_error err;
	if (kvb_clusters_get(p->plat, &cs, &err)) {
		kvb_instr_probe_problem(p, "%s", err.msg);
		return;
	}
	kvb_instr_probe_board_file(p, "/proc/stat");
	for (size_t i = 0; i < cs.n; i++) {
		char path[128];
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/stats/time_in_state", cs.first[i]);
		kvb_instr_probe_board_file(p, path);
	}
	kvb_clusters_release(&cs);
}

const struct kvb_instrument_ops kvb_instrument_model = {
	.name = "model",
	.summary = "energy estimate from busy time x cpufreq residency x the platform's energy_model (estimated=true)",
	.conf_keys = keys,
	.setup = energy_model_setup,
	.start = energy_model_start,
	.stop = energy_model_stop,
	.collect = energy_model_collect,
	.teardown = energy_model_teardown,
	.probe = model_probe,
	.metrics = kvb_energy_metric_decls,
};
