/*
 * Implements the rapl instrument: the CPU's RAPL energy counters through Linux powercap
 * (/sys/class/powercap/intel-rapl:N[:M]/energy_uj, uJ, cumulative; Intel, and AMD Zen through
 * intel_rapl_msr), read over the target connection at start and stop and every `interval_ms`
 * between (sampler.h). energy = the counter's movement over those reads (each wrap at
 * max_energy_range_uj undone between two reads), power_mean = energy / the time between the
 * two end reads (mW, as juno-hwmon). Zones, names and the arithmetic are rapl_zones.c (rapl.h).
 *
 * What is refused rather than stored (a `refused` witness per zone, never 0 J): a counter
 * that did not move; two reads far enough apart that the zone could have wrapped twice between
 * them at `max_power_w`; a counter that went back by more than one wrap can explain (a reset); a zone
 * whose energy_uj or max_energy_range_uj cannot be read (root only since Linux 5.10,
 * CVE-2020-8694). A `sums:` that counts energy twice (a package with its core, psys with
 * anything) fails the instrument before the workload runs. tests/fixtures/field/rapl holds the
 * real trees and the field reports each rule replays.
 *
 * The platform's `sysfs_root:` prefixes /sys (tests point it at a fake tree).
 */
#include "instrument/counter.h"
#include "instrument/instrument.h"
#include "instrument/probe.h"
#include "instrument/rapl.h"
#include "instrument/sampler.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct kvb_keydef keys[] = {
	{ "channels", KVB_T_MAP, NULL, NULL, 0,
	  "{chan_name: ZONE}: keep and rename these zones; ZONE is a zone's name (package-0, psys, package-0-core for "
	  "a sub-zone) or its directory (intel-rapl:0:0) (default: every intel-rapl zone under its name)" },
	{ "sums", KVB_T_MAP, NULL, NULL, 0,
	  "{name: [channel, ...]}; a package with its own core or uncore, or psys with anything, counts twice and is refused" },
	{ "interval_ms", KVB_T_INT, "1000", NULL, KVB_KEY_POSITIVE,
	  "how often the counters are read during the job: each wrap is undone between two reads, so a job longer "
	  "than one wrap period is measured" },
	{ "max_power_w", KVB_T_NUM, "500", NULL, 0,
	  "the most one zone draws (W): two reads further apart than max_energy_range_uj / max_power_w could hide a "
	  "second counter wrap, and a wrap needing more is a reset: both are refused" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

struct priv {
	struct kvb_rapl_zones a, b;
	struct kvb_rapl_sel sel;
	int64_t a0, a1, b0, b1;  /* wall ns just before and after the start and the stop read */
	double up_a, up_b;       /* the board's uptime at the two reads (s; -1 unknown) */
	double max_power_w;
	struct kvb_sampler loop;
	char *remote;
};

/* intel-rapl:* matches intel-rapl:N and intel-rapl:N:M, not intel-rapl-mmio:* (the same packages again). $1: the root. */
static const char grep_body[] = "cd \"$1/sys/class/powercap\" && grep -H . intel-rapl:*/name intel-rapl:*/energy_uj"
				" intel-rapl:*/max_energy_range_uj; true";

/* `grep -H .` run in ROOT/sys/class/powercap with the board's uptime first; its stderr names the
 * files it could not read. */
static int read_zones(struct kvb_instr_ctx *c, struct kvb_rapl_zones *z, double *up, struct kvb_error *err)
{
	const char *root = kvb_instr_sysfs_root(c->plat);
	char *script = kvb_xasprintf("read u x </proc/uptime; echo \"uptime $u\"; %s", grep_body);
	const char *argv[] = { "sh", "-c", script, "sh", root, NULL };
	const char *text;
	struct kvb_exec_result r;
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_target_exec(c->target, argv, 30000, &r, err);
	text = r.out.data ? r.out.data : "";
	*up = !strncmp(text, "uptime ", 7) ? strtod(text + 7, NULL) : -1;
	if (!rc)
		rc = kvb_rapl_parse(text, r.err.data, z, err);
	if (!rc && !z->n)
		rc = kvb_error_set(err, KVB_ETARGET, "no RAPL zones (intel-rapl:*) under '%s/sys/class/powercap'%s%s", root,
				   r.err.len ? ": " : "", r.err.len ? r.err.data : "");
	kvb_exec_result_release(&r);
	free(script);
	return rc;
}

static int rapl_setup(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = kvb_xcalloc(1, sizeof(*p));
	c->priv = p;
	p->max_power_w = kvb_get_num(c->conf, "max_power_w", 500);
	p->remote = kvb_xasprintf("%s/%s-powercap.txt", c->remote_dir, c->name);
	if (!(p->max_power_w > 0))
		return kvb_error_set(err, KVB_EINPUT, "max_power_w must be a power above 0 W, not %g", p->max_power_w);
	return kvb_sums_check(cJSON_GetObjectItemCaseSensitive(c->conf, "sums"), err);
}

static int rapl_start(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	size_t readable = 0;
	int rc;
	p->a0 = kvb_wall_ns();
	rc = read_zones(c, &p->a, &p->up_a, err);
	p->a1 = kvb_wall_ns();
	for (size_t i = 0; !rc && i < p->a.n; i++)
		readable += !p->a.v[i].unreadable;
	if (!rc && !readable)
		rc = kvb_error_set(err, KVB_ETARGET, "no readable RAPL counter under '%s/sys/class/powercap' (%s: %s)%s",
				   kvb_instr_sysfs_root(c->plat), p->a.v[0].dir, p->a.v[0].unreadable,
				   strstr(p->a.v[0].unreadable, "ermission") ? ": energy_uj is root only since Linux 5.10 "
									       "(CVE-2020-8694)" : "");
	if (!rc)
		rc = kvb_rapl_select(&p->a, cJSON_GetObjectItemCaseSensitive(c->conf, "channels"),
				     cJSON_GetObjectItemCaseSensitive(c->conf, "sums"), &p->sel, err);
	if (!rc) {
		const char *args[] = { kvb_instr_sysfs_root(c->plat), NULL };
		rc = kvb_sampler_start(&p->loop, c->target, p->remote, (unsigned)kvb_get_int(c->conf, "interval_ms", 1000),
				       grep_body, args, err);
	}
	return rc;
}

static int rapl_stop(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	struct kvb_error e2;
	/* the sampler stops first: a sample after the end reading would be placed before it */
	int rc = kvb_sampler_stop(&p->loop, c->target, err);
	p->b0 = kvb_wall_ns();
	if (read_zones(c, &p->b, &p->up_b, &e2) && !rc) {
		*err = e2;
		rc = e2.code;
	}
	p->b1 = kvb_wall_ns();
	return rc;
}

static void build_series(const struct priv *p, const struct kvb_rapl_zone *za, const struct kvb_rapl_zone *zb,
			 const char *text, struct kvb_ctr_series *s)
{
	const char *cur = text;
	double up;
	char *body;
	memset(s, 0, sizeof(*s));
	kvb_ctr_series_push(s, za->energy_uj, p->up_a);
	while (text && !kvb_snapshots_next(&cur, &up, &body)) {
		struct kvb_rapl_zones z;
		struct kvb_error ignore;
		int64_t k;
		memset(&z, 0, sizeof(z));
		if (!kvb_rapl_parse(body, NULL, &z, &ignore) && (k = kvb_rapl_zone_find(&z, za->dir)) >= 0 &&
		    z.v[k].has_energy)
			kvb_ctr_series_push(s, z.v[k].energy_uj, up);
		kvb_rapl_zones_release(&z);
		free(body);
	}
	kvb_ctr_series_push(s, zb->energy_uj, p->up_b);
}

/*
 * The zone's energy into e and its witness; returns 1 when refused. za, zb: the zone at the
 * start and at the stop; s its readings between (counter.h: RAPL wraps at max_energy_range_uj,
 * as turbostat and powertop undo it); window_s between the middles of the two end reads (power),
 * outer_s from the first read's start to the second's end. Each step between two readings is
 * judged by kvb_rapl_delta over the time between them (the board's uptime, + 20 ms for its
 * centiseconds and the reads; outer_s when a reading has none): a job sampled more often than
 * the counter can wrap is measured however long it is (zeus #91, likwid #646: before, a job
 * longer than one wrap period at max_power_w was refused).
 */
static int zone_energy(struct kvb_instr_ctx *c, const struct kvb_rapl_zone *za, const struct kvb_rapl_zone *zb,
		       const struct kvb_ctr_series *s, double window_s, double outer_s, struct kvb_chan_energy *e)
{
	struct priv *p = c->priv;
	char subject[256], expected[128], observed[256];
	uint64_t sum = 0;
	int wraps = 0;
	snprintf(subject, sizeof(subject), "%s channel %s", c->name, e->name);
	snprintf(expected, sizeof(expected), "the counter moves by less than its range (%llu uJ) between reads",
		 (unsigned long long)za->range_uj);
	if (za->unreadable || zb->unreadable) {
		const char *why = za->unreadable ? za->unreadable : zb->unreadable;
		kvb_witness_add(&c->out->witnesses, "meter", subject, expected, NULL, KVB_WIT_REFUSED,
				"energy and power_mean not stored: %s/%s%s", za->dir, why,
				strstr(why, "ermission") ? " (energy_uj is root only since Linux 5.10, CVE-2020-8694)" : "");
		return 1;
	}
	snprintf(observed, sizeof(observed), "%s: %llu -> %llu uJ in %.3f s, %zu reads", za->dir,
		 (unsigned long long)za->energy_uj, (unsigned long long)zb->energy_uj, window_s, s->n);
	for (size_t k = 1; k < s->n; k++) {
		double step_s = s->up[k] >= 0 && s->up[k - 1] >= 0 ? s->up[k] - s->up[k - 1] + 0.02 : outer_s;
		uint64_t a = s->v[k - 1], b = s->v[k], d = 0;
		enum kvb_rapl_verdict v = kvb_rapl_delta(a, b, za->range_uj, step_s, p->max_power_w, &d);
		if (v == KVB_RAPL_MOVED || v == KVB_RAPL_WRAPPED || v == KVB_RAPL_STILL) {
			sum += d;
			wraps += v == KVB_RAPL_WRAPPED;
			continue;
		}
		if (v == KVB_RAPL_LONG)
			kvb_witness_add(&c->out->witnesses, "meter", subject, expected, observed, KVB_WIT_REFUSED,
					"energy and power_mean not stored: at max_power_w %g W the counter can wrap every "
					"%.0f s and two of its reads were %.1f s apart, so a second wrap could not be seen "
					"(set max_power_w to what the zone really draws, or interval_ms shorter)",
					p->max_power_w, (double)za->range_uj * 1e-6 / p->max_power_w, step_s);
		else if (v == KVB_RAPL_RESET)
			kvb_witness_add(&c->out->witnesses, "meter", subject, expected, observed, KVB_WIT_REFUSED,
					"energy and power_mean not stored: the counter went back from %llu to %llu uJ, and a "
					"wrap would mean %.1f J in %.3f s, more than max_power_w %g W: it was reset, not "
					"wrapped", (unsigned long long)a, (unsigned long long)b,
					(double)(za->range_uj - a + b) * 1e-6, step_s, p->max_power_w);
		else
			kvb_witness_add(&c->out->witnesses, "meter", subject, expected, observed, KVB_WIT_REFUSED,
					"energy and power_mean not stored: max_energy_range_uj %llu does not bound the "
					"readings, so a wrap could not be undone", (unsigned long long)za->range_uj);
		return 1;
	}
	if (!sum) {
		kvb_witness_add(&c->out->witnesses, "meter", subject, expected, observed, KVB_WIT_REFUSED,
				"energy and power_mean not stored: the counter did not move in %.3f s (a zone that counts "
				"nothing, or one updated less often than the job lasted); never 0 J in their place", window_s);
		return 1;
	}
	e->energy_j = (double)sum * 1e-6;
	e->power_mw = window_s > 0 ? e->energy_j / window_s * 1000 : 0;
	if (wraps == 1)
		kvb_witness_add(&c->out->witnesses, "meter", subject, expected, observed, KVB_WIT_OK,
				"wrapped once at max_energy_range_uj: counted %llu uJ", (unsigned long long)sum);
	else if (wraps)
		kvb_witness_add(&c->out->witnesses, "meter", subject, expected, observed, KVB_WIT_OK,
				"wrapped %d times at max_energy_range_uj, each between two reads: counted %llu uJ", wraps,
				(unsigned long long)sum);
	else
		kvb_witness_add(&c->out->witnesses, "meter", subject, expected, observed, KVB_WIT_OK, NULL);
	return 0;
}

static int rapl_collect(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	struct kvb_chan_energy *v = kvb_xcalloc(p->sel.n + 1, sizeof(*v));
	int *refused = kvb_xcalloc(p->sel.n + 1, sizeof(*refused));
	double window_s = (double)((p->b0 + p->b1) / 2 - (p->a0 + p->a1) / 2) / 1e9;
	double outer_s = (double)(p->b1 - p->a0) / 1e9;
	char *text = NULL;
	int rc = kvb_sampler_text(&p->loop, c->target, &text, err);
	for (size_t i = 0; !rc && i < p->sel.n; i++) {
		const struct kvb_rapl_zone *za = &p->a.v[p->sel.zone[i]];
		int64_t k = kvb_rapl_zone_find(&p->b, za->dir);
		if (k < 0) {
			rc = kvb_error_set(err, KVB_ETARGET, "powercap zone %s (%s) disappeared during the job", za->dir,
					   p->sel.chan[i]);
			break;
		}
		v[i].name = p->sel.chan[i];
		{
			struct kvb_ctr_series sr;
			build_series(p, za, &p->b.v[k], text, &sr);
			refused[i] = zone_energy(c, za, &p->b.v[k], &sr, window_s, outer_s, &v[i]);
			kvb_ctr_series_release(&sr);
		}
	}
	if (!rc)
		rc = kvb_energy_emit_kept(c, v, refused, p->sel.n, err);
	free(text);
	free(v);
	free(refused);
	return rc;
}

static void rapl_teardown(struct kvb_instr_ctx *c)
{
	struct priv *p = c->priv;
	if (!p)
		return;
	kvb_rapl_zones_release(&p->a);
	kvb_rapl_zones_release(&p->b);
	kvb_rapl_sel_release(&p->sel);
	kvb_sampler_release(&p->loop, c->target);
	free(p->remote);
	free(p);
	c->priv = NULL;
}

/* `platform check`: the first package's counter, readable on the board (root: CVE-2020-8694). */
static void rapl_probe(struct kvb_instr_probe *p)
{
	kvb_instr_probe_board_file(p, "/sys/class/powercap/intel-rapl:0/energy_uj");
}

const struct kvb_instrument_ops kvb_instrument_rapl = {
	.name = "rapl",
	.summary = "CPU energy counters (Intel RAPL, AMD Zen) through Linux powercap: intel-rapl zones' energy_uj (uJ) "
		   "read at start and stop, wraps undone",
	.conf_keys = keys,
	.setup = rapl_setup,
	.start = rapl_start,
	.stop = rapl_stop,
	.collect = rapl_collect,
	.teardown = rapl_teardown,
	.probe = rapl_probe,
	.metrics = kvb_energy_metric_decls,
};
