/*
 * Implements the util instrument: per-CPU utilisation sampled at an
 * interval. A shell loop on the target (sampler.h) appends /proc/stat snapshots
 * (separated by "---" lines) to a file in the job's remote directory from
 * start to stop; one snapshot is also read directly at start and at stop, so
 * even a job shorter than the interval gets one utilisation sample. Each pair of
 * consecutive snapshots gives, per CPU, util = delta busy / delta total x
 * 100 (busy = user + nice + system + irq + softirq + steal; total adds idle
 * and iowait). Metrics: util_min, util_mean, util_max (%) with classifier cpu.
 * The platform's `sysfs_root:` prefixes /proc (tests).
 *
 * Each field is a declared counter (counter.h, kvb_procstat_step): one that reads below its
 * previous value (NO_HZ iowait) is held there and its interval kept, as sysstat does (a
 * `counter` witness, ok, says how often); a CPU missing from a sample (offline: /proc/stat lists
 * online CPUs only), first seen after the start, or whose idle restarted (offline and back
 * between two samples) is a `hotplug` witness, `changed`, even when it is back by the end; the
 * interval across a restart is not used.
 *
 * The loop does not trust `sleep`: on boards whose sleep has no fractions
 * (AOSP toolbox's sleep, Android <= 5: strtoul, so "0.100" sleeps 0 s and
 * exits 0; busybox without FEATURE_FLOAT_SLEEP: "invalid number", exit 1),
 * `sleep 0.100` returns at once and the sampler becomes a busy loop beside the
 * benchmark. So it times itself: before its first sample it measures a
 * `sleep 0.2` against /proc/uptime (0.15 to 0.6 s counts as sleeping: a
 * start-up of 150 ms cannot pass for it), then `usleep 200000`, and paces
 * itself with the first that sleeps, else with whole seconds (`sleep N`, N =
 * the interval rounded up). Its output starts with "# sampler HOW" and each
 * snapshot with "uptime SECONDS", so collect() measures the interval it really
 * kept (kvb_util_pace): a `sampler` witness per job, `disturbed` when it ran
 * faster than half the interval (a busy loop), `changed` when slower than
 * twice the interval plus 20 ms (whole seconds, or a board too busy to keep it).
 */
#include "instrument/instrument.h"
#include "instrument/probe.h"
#include "instrument/sampler.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct kvb_keydef keys[] = {
	{ "interval_ms", KVB_T_INT, "100", NULL, KVB_KEY_POSITIVE, "sampling interval" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

struct priv {
	struct kvb_sampler loop;
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
	struct priv *p = c->priv;
	char *stat = kvb_xasprintf("%s/proc/stat", kvb_instr_sysfs_root(c->plat));
	const char *args[] = { stat, NULL };
	int rc = kvb_target_read_rooted(c->target, kvb_instr_sysfs_root(c->plat), "/proc/stat", &p->first, err);
	if (!rc)
		rc = kvb_sampler_start(&p->loop, c->target, p->remote,
				       (unsigned)kvb_get_int(c->conf, "interval_ms", 100), "cat \"$1\"", args, err);
	free(stat);
	return rc;
}

/* The loop stops first: a sample taken after the last reading would be placed before it. */
static int cpu_util_stop(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	struct kvb_error e2;
	int rc = kvb_sampler_stop(&p->loop, c->target, err);
	if (kvb_target_read_rooted(c->target, kvb_instr_sysfs_root(c->plat), "/proc/stat", &p->last, &e2) && !rc) {
		rc = e2.code;
		*err = e2;
	}
	return rc;
}

/* Utilisation has no better or worse: a busier CPU is no improvement by itself (docs/outputs.md, "Directions"). */
static const struct kvb_metric_decl util_metrics[] = {
	{ "util_min", "%", KVB_NO_DIRECTION, "least busy sample of the job, per CPU (classifier cpu)", 0, NULL },
	{ "util_mean", "%", KVB_NO_DIRECTION, "mean busy share of the job's samples, per CPU", 0, NULL },
	{ "util_max", "%", KVB_NO_DIRECTION, "busiest sample of the job, per CPU", 0, NULL },
	{ NULL, NULL, 0, NULL, 0, NULL },
};

enum kvb_err kvb_util_from_snapshots(const char *text, struct kvb_metrics *out, char *why, size_t why_len)
{
	struct kvb_procstat cur;
	struct kvb_cpu_seen *cs = NULL;
	double *mn = NULL, *mx = NULL, *sum = NULL, up = -1, prev_up = -1;
	int *cnt = NULL, ncpu = 0, snaps = 0;
	const char *s = text;
	while (s && *s) {
		const char *sep = strstr(s, "\n---\n"), *u;
		char *snap;
		if (!sep)
			sep = !strncmp(s, "---\n", 4) ? s - 1 : NULL;
		if (!sep)
			break;
		snap = kvb_xstrndup(s, (size_t)(sep + 1 - s));
		s = sep + 5;
		u = !strncmp(snap, "uptime ", 7) ? snap : strstr(snap, "\nuptime ");
		if (kvb_procstat_parse(snap, &cur)) {
			free(snap);
			continue;
		}
		prev_up = up;
		up = u ? strtod(u + (*u == '\n' ? 8 : 7), NULL) : -1;
		free(snap);
		snaps++;
		if (cur.n > ncpu) {
			mn = kvb_xrealloc(mn, (size_t)cur.n * sizeof(*mn));
			mx = kvb_xrealloc(mx, (size_t)cur.n * sizeof(*mx));
			sum = kvb_xrealloc(sum, (size_t)cur.n * sizeof(*sum));
			cnt = kvb_xrealloc(cnt, (size_t)cur.n * sizeof(*cnt));
			cs = kvb_xrealloc(cs, (size_t)cur.n * sizeof(*cs));
			for (int i = ncpu; i < cur.n; i++) {
				mn[i] = 1e300;
				mx[i] = -1;
				sum[i] = 0;
				cnt[i] = 0;
				memset(&cs[i], 0, sizeof(cs[i]));
			}
			ncpu = cur.n;
		}
		for (int i = 0; i < ncpu; i++) {
			struct kvb_procstat_step st;
			double u;
			if (kvb_cpu_seen_step(&cs[i], &cur, i, snaps, up, prev_up, &st))
				continue;
			u = st.busy / st.total * 100.0;
			mn[i] = u < mn[i] ? u : mn[i];
			mx[i] = u > mx[i] ? u : mx[i];
			sum[i] += u;
			cnt[i]++;
		}
		kvb_procstat_release(&cur);
	}
	for (int i = 0; i < ncpu; i++) {
		char cpu[16];
		struct kvb_metric *m;
		if (!cnt[i])
			continue;
		snprintf(cpu, sizeof(cpu), "%d", i);
		m = kvb_metrics_add_decl(out, &util_metrics[0], mn[i]);
		kvb_metric_classify(m, "cpu", cpu);
		m = kvb_metrics_add_decl(out, &util_metrics[1], sum[i] / cnt[i]);
		kvb_metric_classify(m, "cpu", cpu);
		m = kvb_metrics_add_decl(out, &util_metrics[2], mx[i]);
		kvb_metric_classify(m, "cpu", cpu);
	}
	kvb_cpu_seen_witnesses(out, cs, ncpu, snaps, "its utilisation");
	free(mn);
	free(mx);
	free(sum);
	free(cnt);
	free(cs);
	if (snaps < 2) {
		snprintf(why, why_len, "%d usable /proc/stat snapshot%s, need 2", snaps, snaps == 1 ? "" : "s");
		return KVB_EINPUT;
	}
	return KVB_OK;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

void kvb_util_pace(const char *text, unsigned interval_ms, struct kvb_util_pace *out)
{
	double *t = NULL, *d = NULL;
	size_t n = 0;
	memset(out, 0, sizeof(*out));
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t len = strcspn(l, "\n");
		if (!strncmp(l, "# sampler ", 10) && !out->how[0]) {
			snprintf(out->how, sizeof(out->how), "%.*s", (int)(len - 10), l + 10);
		} else if (!strncmp(l, "uptime ", 7)) {
			t = kvb_xrealloc(t, (n + 1) * sizeof(*t));
			t[n++] = strtod(l + 7, NULL);
		}
	}
	out->reads = n;
	out->whole_seconds = strstr(out->how, "no fractional sleep") != NULL;
	if (n >= 2) {
		d = kvb_xmalloc((n - 1) * sizeof(*d));
		for (size_t i = 1; i < n; i++)
			d[i - 1] = (t[i] - t[i - 1]) * 1000.0;
		qsort(d, n - 1, sizeof(*d), cmp_dbl);
		out->median_ms = n % 2 ? (d[(n - 1) / 2 - 1] + d[(n - 1) / 2]) / 2 : d[(n - 1) / 2];
		out->span_s = t[n - 1] - t[0];
	}
	/* uptime has centiseconds: a sampler is off its interval by more than that */
	if (n >= 3 && out->median_ms < interval_ms / 2.0)
		out->verdict = KVB_WIT_DISTURBED;
	else if ((n >= 3 && out->median_ms > 2.0 * interval_ms + 20) || (out->whole_seconds && interval_ms % 1000))
		out->verdict = KVB_WIT_CHANGED;
	else
		out->verdict = KVB_WIT_OK;
	free(t);
	free(d);
}

/* The job's `sampler` witness from the loop's output. */
static void pace_witness(struct kvb_instr_ctx *c, const char *text, unsigned interval_ms)
{
	struct kvb_util_pace pc;
	char subject[256], expected[64], observed[320];
	kvb_util_pace(text, interval_ms, &pc);
	snprintf(subject, sizeof(subject), "%s /proc/stat sampler", c->name);
	snprintf(expected, sizeof(expected), "a read every %u ms", interval_ms);
	if (pc.reads >= 2)
		snprintf(observed, sizeof(observed), "%zu reads in %.2f s: every %.1f ms (%s)", pc.reads, pc.span_s,
			 pc.median_ms, pc.how[0] ? pc.how : "no sampler header");
	else
		snprintf(observed, sizeof(observed), "%zu read%s (%s)", pc.reads, pc.reads == 1 ? "" : "s",
			 pc.how[0] ? pc.how : "no sampler header");
	if (pc.verdict == KVB_WIT_DISTURBED)
		kvb_witness_add(&c->out->witnesses, "sampler", subject, expected, observed, pc.verdict,
				"the sampler ran every %.1f ms instead of every %u ms: a busy loop beside the workload",
				pc.median_ms, interval_ms);
	else if (pc.whole_seconds && pc.verdict == KVB_WIT_CHANGED)
		kvb_witness_add(&c->out->witnesses, "sampler", subject, expected, observed, pc.verdict,
				"this board's sleep has no fractions (Android <= 5 toolbox, busybox without "
				"FEATURE_FLOAT_SLEEP) and it has no usleep: sampled every %u s instead of every %u ms",
				(interval_ms + 999) / 1000, interval_ms);
	else if (pc.verdict == KVB_WIT_CHANGED)
		kvb_witness_add(&c->out->witnesses, "sampler", subject, expected, observed, pc.verdict,
				"the sampler ran every %.1f ms instead of every %u ms (a board too busy to keep it?)",
				pc.median_ms, interval_ms);
	else
		kvb_witness_add(&c->out->witnesses, "sampler", subject, expected, observed, pc.verdict, NULL);
}

static int cpu_util_collect(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	char *text = NULL, why[128];
	struct kvb_buf b = KVB_BUF_INIT;
	int rc;
	/* A job shorter than the loop's start-up leaves no file: then only the two direct snapshots count. */
	if ((rc = kvb_sampler_text(&p->loop, c->target, &text, err)))
		return rc;
	/* start snapshot, the loop's whole snapshots (its last may be cut by the kill), stop snapshot */
	kvb_buf_addf(&b, "%s\n---\n", p->first);
	{
		char *end = text, *q;
		while ((q = strstr(end, "\n---\n")))
			end = q + 5;
		kvb_buf_add(&b, text, (size_t)(end - text));
	}
	kvb_buf_addf(&b, "%s\n---\n", p->last);
	pace_witness(c, text, (unsigned)kvb_get_int(c->conf, "interval_ms", 100));
	if (kvb_util_from_snapshots(b.data, c->out, why, sizeof(why)))
		rc = kvb_error_set(err, KVB_EINPUT, "%s in '%s'", why, p->remote);
	kvb_buf_release(&b);
	free(text);
	return rc;
}

static void cpu_util_teardown(struct kvb_instr_ctx *c)
{
	struct priv *p = c->priv;
	if (!p)
		return;
	kvb_sampler_release(&p->loop, c->target);
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
	.metrics = util_metrics,
};
