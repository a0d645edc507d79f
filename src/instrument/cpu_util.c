/*
 * Implements the util instrument: per-CPU utilisation sampled at an
 * interval. A shell loop on the target appends /proc/stat snapshots
 * (separated by "---" lines) to a file in the job's remote directory from
 * start to stop; one snapshot is also read directly at start and at stop, so
 * even a job shorter than the interval gets one utilisation sample. Each pair of
 * consecutive snapshots gives, per CPU, util = delta busy / delta total x
 * 100 (busy = user + nice + system + irq + softirq + steal; total adds idle
 * and iowait). Metrics: util_min, util_mean, util_max (%) with classifier cpu.
 * `root:` prefixes /proc (tests).
 */
#include "instrument/instrument.h"
#include "instrument/probe.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct kvb_keydef keys[] = {
	{ "interval_ms", KVB_T_INT, "100", NULL, KVB_KEY_POSITIVE, "sampling interval" },
	{ "root", KVB_T_STR, "", NULL, 0, "path prefix of /proc on the target (tests)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

struct priv {
	long pid;
	char *remote;
	char *first, *last;  /* snapshots taken at start and stop: two at least, however short the job */
};

static int cpu_util_setup(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = kvb_xcalloc(1, sizeof(*p));
	(void)err;
	c->priv = p;
	p->remote = kvb_xasprintf("%s/%s-stat.txt", c->remote_dir, c->name);
	return KVB_OK;
}

static int cpu_util_start(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	static const char loop[] = "while :; do cat \"$2\"; echo ---; sleep \"$1\"; done";
	struct priv *p = c->priv;
	char interval[32], *stat = kvb_xasprintf("%s/proc/stat", kvb_get_str(c->conf, "root", ""));
	char *errf = kvb_xasprintf("%s.err", p->remote);
	const char *argv[] = { "sh", "-c", loop, "sh", interval, stat, NULL };
	int rc;
	snprintf(interval, sizeof(interval), "%.3f", (double)kvb_get_int(c->conf, "interval_ms", 100) / 1000.0);
	rc = kvb_target_read_rooted(c->target, kvb_get_str(c->conf, "root", ""), "/proc/stat", &p->first, err);
	if (!rc)
		rc = kvb_target_bg_start(c->target, argv, p->remote, errf, &p->pid, err);
	free(stat);
	free(errf);
	return rc ? kvb_error_prefix(err, "instrument '%s'", c->name) : KVB_OK;
}

static int cpu_util_stop(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	int rc = kvb_target_read_rooted(c->target, kvb_get_str(c->conf, "root", ""), "/proc/stat", &p->last, err);
	struct kvb_error e2;
	if (kvb_target_bg_stop(c->target, p->pid, "TERM", 2000, &e2) && !rc) {
		rc = e2.code;
		*err = e2;
	}
	p->pid = 0;
	return rc ? kvb_error_prefix(err, "instrument '%s'", c->name) : KVB_OK;
}

enum kvb_err kvb_util_from_snapshots(const char *text, struct kvb_metrics *out, char *why, size_t why_len)
{
	struct kvb_procstat prev, cur;
	double *mn = NULL, *mx = NULL, *sum = NULL;
	int *cnt = NULL, ncpu = 0, snaps = 0, have_prev = 0;
	const char *s = text;
	memset(&prev, 0, sizeof(prev));
	while (s && *s) {
		const char *sep = strstr(s, "\n---\n");
		char *snap;
		if (!sep)
			sep = !strncmp(s, "---\n", 4) ? s - 1 : NULL;
		if (!sep)
			break;
		snap = kvb_xstrndup(s, (size_t)(sep + 1 - s));
		s = sep + 5;
		if (kvb_procstat_parse(snap, &cur)) {
			free(snap);
			continue;
		}
		free(snap);
		snaps++;
		if (have_prev) {
			if (cur.n > ncpu) {
				mn = kvb_xrealloc(mn, (size_t)cur.n * sizeof(*mn));
				mx = kvb_xrealloc(mx, (size_t)cur.n * sizeof(*mx));
				sum = kvb_xrealloc(sum, (size_t)cur.n * sizeof(*sum));
				cnt = kvb_xrealloc(cnt, (size_t)cur.n * sizeof(*cnt));
				for (int i = ncpu; i < cur.n; i++) {
					mn[i] = 1e300;
					mx[i] = -1;
					sum[i] = 0;
					cnt[i] = 0;
				}
				ncpu = cur.n;
			}
			for (int i = 0; i < cur.n && i < prev.n; i++) {
				double db, dt, u;
				if (!cur.seen[i] || !prev.seen[i] || cur.total[i] <= prev.total[i])
					continue;
				db = cur.busy[i] >= prev.busy[i] ? (double)(cur.busy[i] - prev.busy[i]) : 0;
				dt = (double)(cur.total[i] - prev.total[i]);
				u = db / dt * 100.0;
				if (u > 100)
					u = 100;
				mn[i] = u < mn[i] ? u : mn[i];
				mx[i] = u > mx[i] ? u : mx[i];
				sum[i] += u;
				cnt[i]++;
			}
			kvb_procstat_release(&prev);
		}
		prev = cur;
		have_prev = 1;
	}
	kvb_procstat_release(&prev);
	for (int i = 0; i < ncpu; i++) {
		char cpu[16];
		struct kvb_metric *m;
		if (!cnt[i])
			continue;
		snprintf(cpu, sizeof(cpu), "%d", i);
		m = kvb_metrics_add(out, "util_min", mn[i], "%", 0);
		kvb_metric_classify(m, "cpu", cpu);
		m = kvb_metrics_add(out, "util_mean", sum[i] / cnt[i], "%", 0);
		kvb_metric_classify(m, "cpu", cpu);
		m = kvb_metrics_add(out, "util_max", mx[i], "%", 0);
		kvb_metric_classify(m, "cpu", cpu);
	}
	free(mn);
	free(mx);
	free(sum);
	free(cnt);
	if (snaps < 2) {
		snprintf(why, why_len, "%d usable /proc/stat snapshot%s, need 2", snaps, snaps == 1 ? "" : "s");
		return KVB_EINPUT;
	}
	return KVB_OK;
}

static int cpu_util_collect(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	char *text = NULL, why[128];
	struct kvb_buf b = KVB_BUF_INIT;
	const char *argv[] = { "cat", p->remote, NULL };
	struct kvb_exec_result r;
	int rc;
	/* A job shorter than the loop's start-up leaves no file: then only the two direct snapshots count. */
	kvb_exec_result_init(&r);
	rc = kvb_target_exec(c->target, argv, 30000, &r, err);
	text = kvb_buf_detach(&r.out);
	kvb_exec_result_release(&r);
	if (rc) {
		free(text);
		return kvb_error_prefix(err, "instrument '%s'", c->name);
	}
	/* start snapshot, the loop's whole snapshots (its last may be cut by the kill), stop snapshot */
	kvb_buf_addf(&b, "%s\n---\n", p->first);
	{
		char *end = text, *q;
		while ((q = strstr(end, "\n---\n")))
			end = q + 5;
		kvb_buf_add(&b, text, (size_t)(end - text));
	}
	kvb_buf_addf(&b, "%s\n---\n", p->last);
	if (kvb_util_from_snapshots(b.data, c->out, why, sizeof(why)))
		rc = kvb_error_set(err, KVB_EINPUT, "instrument '%s': %s in '%s'", c->name, why, p->remote);
	kvb_buf_release(&b);
	free(text);
	return rc;
}

static void cpu_util_teardown(struct kvb_instr_ctx *c)
{
	struct priv *p = c->priv;
	if (!p)
		return;
	kvb_target_bg_kill(c->target, &p->pid);
	free(p->remote);
	free(p->first);
	free(p->last);
	free(p);
	c->priv = NULL;
}

/* `platform check` (instrument.h kvb_instr_probe): ROOT/proc/stat on the board. */
static void util_probe(struct kvb_instr_probe *p)
{
	kvb_instr_probe_board_file(p, "/proc/stat");
}

const struct kvb_instrument_ops kvb_instrument_util = {
	.name = "util",
	.summary = "per-CPU utilisation from /proc/stat sampled at interval_ms: util_min/mean/max (%)",
	.conf_keys = keys,
	.setup = cpu_util_setup,
	.start = cpu_util_start,
	.stop = cpu_util_stop,
	.collect = cpu_util_collect,
	.teardown = cpu_util_teardown,
	.probe = util_probe,
};
