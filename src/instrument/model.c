/*
 * Implements the model instrument: an energy estimate for boards without a
 * meter. Per cluster: E = sum over its CPUs of busy time (from /proc/stat,
 * USER_HZ ticks) x the residency-weighted active power sum_f r_f P(f), where
 * r_f comes from the cluster's cpufreq time_in_state and P(f) from the
 * platform's energy_model (cluster -> {frequency kHz: active power mW}),
 * linearly interpolated between listed frequencies and clamped at the ends.
 * Idle power is not modelled. Every metric carries classifier
 * estimated=true so tables can mark it. `root:` prefixes /proc and /sys.
 *
 * Both counters are read at the start, every `interval_ms` during the job by a sampler
 * (sampler.h, the body cpufreq.c uses with /proc/stat added: residency.h) and at the end, and
 * taken as util and cpufreq take them (issue 40): busy time is summed over the intervals, a
 * /proc/stat field that went back held (kvb_procstat_step, sysstat's way), a CPU missing from a
 * sample or whose idle restarted (offline and back) a `hotplug` witness, `changed`, its busy time
 * of the intervals it was online (kvb_cpu_seen_*); the residency is summed over the readings
 * (kvb_residency_feed), a table that restarted (stats/reset; the cluster offline and its stats
 * recreated) counted from the restart with a `counter` witness, `changed`; an online list that
 * changed is a `hotplug` witness. Before, one delta between the two ends: a reset made the rows
 * that had not passed their start values count 0 (a board at 500 MHz for 90 % of the job weighted
 * at 1 GHz). A cluster whose CPUs were busy but whose table gave no residency after a restart or
 * while unreadable is refused (a `refused` witness; the others are kept): there is nothing to
 * weight its busy time with.
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
	{ "energy_model", KVB_T_MAP, NULL, NULL, 0, "cluster -> {kHz: mW}; default: the platform's energy_model" },
	{ "user_hz", KVB_T_INT, "100", NULL, KVB_KEY_POSITIVE, "ticks per second of /proc/stat (getconf CLK_TCK)" },
	{ "sums", KVB_T_MAP, NULL, NULL, 0, "{name: [cluster, ...]}" },
	{ "interval_ms", KVB_T_INT, "100", NULL, KVB_KEY_POSITIVE,
	  "how often /proc/stat and time_in_state are read during the job (a reset or a hotplug is seen between two reads)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

struct opp {
	double khz, mw;
};

/* One sample: /proc/stat, the online list, the time_in_state of each cluster read. $1 the root, then the CPUs. */
static const char snap_body[] = KVB_TIS_SNAP_BODY("cat \"$r/proc/stat\"; ");

struct priv {
	struct kvb_cluster_set cs;
	struct opp **opp;   /* per cluster, sorted by khz */
	size_t *nopp;
	struct kvb_tis *ta, *tb;
	int *ta_ok, *tb_ok; /* per cluster: its table was read at the start / end */
	int *cpu;           /* per cluster: the CPU whose cpufreq directory is read (kvb_cluster_read_cpu) */
	char *stat_a, *stat_b; /* /proc/stat at the start and the end */
	int64_t t_a, t_b;
	struct kvb_online_watch online;
	struct kvb_sampler loop;
	char *remote;
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
	p->ta_ok = kvb_xcalloc(p->cs.n, sizeof(*p->ta_ok));
	p->tb_ok = kvb_xcalloc(p->cs.n, sizeof(*p->tb_ok));
	p->cpu = kvb_xcalloc(p->cs.n, sizeof(*p->cpu));
	p->remote = kvb_xasprintf("%s/%s-model.txt", c->remote_dir, c->name);
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

/*
 * /proc/stat and each cluster's table (a cluster with a single operating point needs none). A table
 * whose policy is inactive (all its CPUs offline: EBUSY, ENODEV) is not read (ok[i] 0).
 */
static int snapshot(struct kvb_instr_ctx *c, char **stat, struct kvb_tis *tis, int *ok, int64_t *t,
		    struct kvb_error *err)
{
	struct priv *p = c->priv;
	const char *root = kvb_instr_sysfs_root(c->plat);
	struct kvb_procstat ps;
	int rc = kvb_target_read_rooted(c->target, root, "/proc/stat", stat, err);
	*t = kvb_wall_ns();
	if (!rc && kvb_procstat_parse(*stat, &ps))
		rc = kvb_error_set(err, KVB_EINPUT, "'%s/proc/stat' has no cpuN lines", root);
	if (!rc)
		kvb_procstat_release(&ps);
	for (size_t i = 0; !rc && i < p->cs.n; i++) {
		if (p->nopp[i] == 1)
			continue;
		rc = kvb_tis_read(c->target, root, p->cpu[i], &tis[i], err);
		ok[i] = !rc;
		if (rc && kvb_tis_offline_error(err->msg))
			rc = KVB_OK;
		else if (rc)
			kvb_error_prefix(err, "cluster '%s'", p->cs.name[i]);
	}
	return rc;
}

static int energy_model_start(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	struct kvb_strv args = KVB_STRV_INIT;
	int rc;
	kvb_online_watch_start(&p->online, c->target, kvb_instr_sysfs_root(c->plat));
	for (size_t i = 0; i < p->cs.n; i++) {
		/* a cluster all offline: read through its first CPU (EBUSY until one comes back) */
		p->cpu[i] = kvb_cluster_read_cpu(&p->cs, i, p->online.start);
		p->cpu[i] = p->cpu[i] < 0 ? p->cs.first[i] : p->cpu[i];
	}
	if ((rc = snapshot(c, &p->stat_a, p->ta, p->ta_ok, &p->t_a, err)))
		return rc;
	kvb_strv_push(&args, kvb_instr_sysfs_root(c->plat));
	for (size_t i = 0; i < p->cs.n; i++)
		if (p->nopp[i] > 1)
			kvb_strv_pushf(&args, "%d", p->cpu[i]);
	rc = kvb_sampler_start(&p->loop, c->target, p->remote, (unsigned)kvb_get_int(c->conf, "interval_ms", 100),
			       snap_body, (const char *const *)kvb_strv_argv(&args), err);
	kvb_strv_release(&args);
	return rc;
}

/* The sampler stops first: a sample taken after the end reading would be placed before it. */
static int energy_model_stop(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	struct kvb_error e2;
	int rc = kvb_sampler_stop(&p->loop, c->target, err);
	if (snapshot(c, &p->stat_b, p->tb, p->tb_ok, &p->t_b, &e2) && !rc) {
		*err = e2;
		rc = e2.code;
	}
	return rc;
}

/* Busy time of each CPU summed over the readings, and what they showed (hotplug, held fields). */
struct busy {
	struct kvb_cpu_seen *cs;
	double *ticks;
	int ncpu, snaps;
	double prev_up;
};

static void busy_feed(struct busy *b, const char *text, double up)
{
	struct kvb_procstat cur;
	if (kvb_procstat_parse(text, &cur))
		return;
	b->snaps++;
	if (cur.n > b->ncpu) {
		b->cs = kvb_xrealloc(b->cs, (size_t)cur.n * sizeof(*b->cs));
		b->ticks = kvb_xrealloc(b->ticks, (size_t)cur.n * sizeof(*b->ticks));
		memset(b->cs + b->ncpu, 0, (size_t)(cur.n - b->ncpu) * sizeof(*b->cs));
		memset(b->ticks + b->ncpu, 0, (size_t)(cur.n - b->ncpu) * sizeof(*b->ticks));
		b->ncpu = cur.n;
	}
	for (int i = 0; i < b->ncpu; i++) {
		struct kvb_procstat_step st;
		if (!kvb_cpu_seen_step(&b->cs[i], &cur, i, b->snaps, up, b->prev_up, &st))
			b->ticks[i] += st.busy;
	}
	b->prev_up = up;
	kvb_procstat_release(&cur);
}

static void feed_samples(struct kvb_instr_ctx *c, const char *text, struct busy *b, struct kvb_residency *res)
{
	struct priv *p = c->priv;
	const char *cur = text;
	double up;
	char *body;
	while (!kvb_snapshots_next(&cur, &up, &body)) {
		busy_feed(b, body, up);
		for (size_t i = 0; i < p->cs.n; i++) {
			if (!(p->nopp[i] == 1))
				kvb_residency_feed_sample(&res[i], body, p->cpu[i], up);
		}
		kvb_online_watch_feed(&p->online, body, up);
		free(body);
	}
}

/* The cluster's CPU list as text ("2-3"), for messages. */
static const char *cluster_cpus(const struct kvb_instr_ctx *c, size_t i)
{
	return c->plat && c->plat->nclusters > i ? c->plat->clusters[i].cpus : "0";
}

static int energy_model_collect(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	double hz = (double)kvb_get_int(c->conf, "user_hz", 100), dt_s = (double)(p->t_b - p->t_a) / 1e9;
	struct kvb_chan_energy *v = kvb_xcalloc(p->cs.n, sizeof(*v));
	struct kvb_residency *res = kvb_xcalloc(p->cs.n, sizeof(*res));
	int *refused = kvb_xcalloc(p->cs.n, sizeof(*refused));
	struct busy b = { NULL, NULL, 0, 0, -1 };
	char *text = NULL;
	int rc = kvb_sampler_text(&p->loop, c->target, &text, err);
	if (rc)
		goto out;
	busy_feed(&b, p->stat_a, -1);
	for (size_t i = 0; i < p->cs.n; i++)
		if (p->nopp[i] > 1)
			kvb_residency_feed(&res[i], p->ta_ok[i] ? &p->ta[i] : NULL, -1);
	feed_samples(c, text, &b, res);
	busy_feed(&b, p->stat_b, -1);
	kvb_online_watch_witness(&p->online, c->out, c->name);
	kvb_cpu_seen_witnesses(c->out, b.cs, b.ncpu, b.snaps, "its busy time in the energy estimate");
	for (size_t i = 0; i < p->cs.n; i++) {
		struct kvb_residency *r = &res[i];
		double busy_s = 0, pavg = 0, total = 0;
		for (int cpu = 0; cpu < b.ncpu && cpu < 1024; cpu++)
			if (p->cs.cpus[i][cpu])
				busy_s += b.ticks[cpu] / hz;
		if (p->nopp[i] == 1) {
			pavg = p->opp[i][0].mw;
		} else {
			kvb_residency_feed(r, p->tb_ok[i] ? &p->tb[i] : NULL, -1);
			if (r->restarts)
				kvb_residency_witness(c->out, p->cs.name[i], cluster_cpus(c, i), r,
						      "the energy estimate's frequency weights");
			for (size_t k = 0; k < r->n; k++) {
				total += r->t[k];
				pavg += r->t[k] * power_at(p->opp[i], p->nopp[i], (double)r->khz[k]);
			}
			if (total <= 0 && busy_s > 0 && (r->restarts || r->gap || !r->have_base)) {
				char subject[160];
				snprintf(subject, sizeof(subject), "%s cluster %s", c->name, p->cs.name[i]);
				kvb_witness_add(&c->out->witnesses, "counter", subject, "time_in_state residency",
						"none counted", KVB_WIT_REFUSED,
						"cluster '%s' (CPUs %s) was busy %.2f s but its time_in_state gave no residency "
						"(%s): no frequency to weight its busy time with, its energy not stored",
						p->cs.name[i], cluster_cpus(c, i), busy_s,
						r->restarts ? "it restarted" : "unreadable");
				refused[i] = 1;
			}
			/* No residency accounted (job < 10 ms): assume the highest operating point, an upper bound. */
			pavg = total > 0 ? pavg / total : p->opp[i][p->nopp[i] - 1].mw;
		}
		v[i].name = p->cs.name[i];
		v[i].energy_j = busy_s * pavg / 1000.0;
		v[i].power_mw = dt_s > 0 ? v[i].energy_j / dt_s * 1000.0 : 0;
		v[i].estimated = 1;
	}
	rc = kvb_energy_emit_kept(c, v, refused, p->cs.n, err);
out:
	for (size_t i = 0; i < p->cs.n; i++)
		kvb_residency_release(&res[i]);
	free(res);
	free(refused);
	free(b.cs);
	free(b.ticks);
	free(text);
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
	free(p->ta_ok);
	free(p->tb_ok);
	free(p->cpu);
	free(p->stat_a);
	free(p->stat_b);
	kvb_online_watch_release(&p->online);
	kvb_sampler_release(&p->loop, c->target);
	free(p->remote);
	kvb_clusters_release(&p->cs);
	free(p);
	c->priv = NULL;
}

/* `platform check` (instrument.h kvb_instr_probe): /proc/stat and the cpufreq stats it estimates from, under ROOT on the board. */
static void model_probe(struct kvb_instr_probe *p)
{
	kvb_instr_probe_board_file(p, "/proc/stat");
	kvb_instr_probe_tis(p);
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
