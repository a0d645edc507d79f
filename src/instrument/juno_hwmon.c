/*
 * Implements the juno-hwmon instrument: the Juno r1/r2 on-board energy
 * meters, read as cumulative hwmon counters
 * (/sys/class/hwmon/hwmonM/energyN_input, uJ, named by energyN_label) over
 * the target connection at start and stop, and every `interval_ms` between them (sampler.h);
 * energy = the counter's movement over those readings, power_mean = energy / (time between the
 * two end reads). A counter that goes back during the job (a reset, or a wrap the platform does
 * not declare with `wrap_uj:`) refuses its channel with a witness, the others stand (counter.h).
 *
 * Labels differ by kernel: mainline's scpi-hwmon (hwmon name scpi_sensors)
 * says BOARD_ENERGY_SYS, BOARD_ENERGY_BIG, BOARD_ENERGY_LITTLE,
 * BOARD_ENERGY_GPU (WA3 issue #150, a Juno r2's readings); the older Linaro
 * juno hwmon driver named them sys_energy, a57_energy, a53_energy,
 * gpu_energy (LISA PR #97). A `channels:` label of one generation also
 * matches the other's. Older drivers put the attributes under
 * hwmonN/device/ instead of hwmonN/ (both are read). A missing label fails
 * with the labels that were found.
 *
 * The platform's `sysfs_root:` prefixes the sysfs path (default ""), so tests (and boards whose
 * sysfs is mounted elsewhere) point it at a directory tree holding the same
 * file names. Power sampled between start and stop is not implemented.
 */
#include "instrument/instrument.h"
#include "instrument/probe.h"
#include "instrument/counter.h"
#include "instrument/sampler.h"
#include "core/buf.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct kvb_keydef keys[] = {
	{ "channels", KVB_T_MAP, NULL, NULL, 0, "{chan_name: energyN_label}: keep and rename these (default: every label)" },
	{ "sums", KVB_T_MAP, NULL, NULL, 0, "{name: [channel, ...]}" },
	{ "interval_ms", KVB_T_INT, "1000", NULL, KVB_KEY_POSITIVE,
	  "how often the counters are read during the job (a reset or a wrap is seen between two reads)" },
	{ "wrap_uj", KVB_T_INT, "0", NULL, KVB_KEY_NONNEG,
	  "the value after which this meter's counters wrap to 0 (0: hwmon declares none, and a counter that goes back "
	  "is refused)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

struct counters {
	size_t n;
	char **key;     /* "hwmon0/energy1" */
	char **label;   /* energyN_label or the key */
	uint64_t *uj;
	int *has_input;
};

struct priv {
	struct counters a, b;
	int64_t t_a, t_b;
	struct kvb_sampler loop;
	char *remote;
};

/* hwmon energyN_input (Documentation/hwmon/sysfs-interface.rst: cumulative, uJ) declares no wrap
 * point: going back is a reset or an undeclared wrap, and the job's energy is not known. */
static const struct kvb_ctr_decl hwmon_decl = { "hwmon energy", KVB_CTR_MONOTONIC,
						"Documentation/hwmon/sysfs-interface.rst energy[1-*]_input" };
static const struct kvb_ctr_decl hwmon_wrap_decl = { "hwmon energy", KVB_CTR_WRAPS,
						     "the platform's wrap_uj for this meter" };

static void counters_release(struct counters *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->key[i]);
		free(c->label[i]);
	}
	free(c->key);
	free(c->label);
	free(c->uj);
	free(c->has_input);
	memset(c, 0, sizeof(*c));
}

static size_t counter_slot(struct counters *c, const char *key, size_t klen)
{
	for (size_t i = 0; i < c->n; i++)
		if (strlen(c->key[i]) == klen && !strncmp(c->key[i], key, klen))
			return i;
	c->key = kvb_xrealloc(c->key, (c->n + 1) * sizeof(*c->key));
	c->label = kvb_xrealloc(c->label, (c->n + 1) * sizeof(*c->label));
	c->uj = kvb_xrealloc(c->uj, (c->n + 1) * sizeof(*c->uj));
	c->has_input = kvb_xrealloc(c->has_input, (c->n + 1) * sizeof(*c->has_input));
	c->key[c->n] = kvb_xstrndup(key, klen);
	c->label[c->n] = NULL;
	c->uj[c->n] = 0;
	c->has_input[c->n] = 0;
	return c->n++;
}

/* Both layouts; a glob that matches nothing is grep's "No such file", not an error here. $1: the root. */
static const char grep_body[] = "cd \"$1/sys/class/hwmon\" && grep -H . hwmon*/energy*_input hwmon*/energy*_label"
				" hwmon*/device/energy*_input hwmon*/device/energy*_label 2>/dev/null; true";

/* `grep -H .` prints "hwmonN/energyM_input:VALUE" and "hwmonN/energyM_label:NAME": into out. */
static int parse_counters(const char *text, const char *root, struct counters *out, struct kvb_error *err)
{
	char *buf = kvb_xstrdup(text ? text : "");
	int rc = KVB_OK;
	memset(out, 0, sizeof(*out));
	for (char *l = buf; !rc && l && *l;) {
		char *nl = strchr(l, '\n'), *colon, *us;
		if (nl)
			*nl = '\0';
		colon = strchr(l, ':');
		us = colon ? memrchr(l, '_', (size_t)(colon - l)) : NULL;
		if (us && strncmp(l, "uptime ", 7)) {
			size_t i = counter_slot(out, l, (size_t)(us - l));
			if (!strncmp(us, "_input:", 7)) {
				int64_t v;
				if (kvb_parse_i64(colon + 1, &v) || v < 0)
					rc = kvb_error_set(err, KVB_EINPUT, "%s/sys/class/hwmon/%.*s: '%s' is not a counter", root, (int)(colon - l), l, colon + 1);
				out->uj[i] = (uint64_t)v;
				out->has_input[i] = 1;
			} else if (!strncmp(us, "_label:", 7)) {
				free(out->label[i]);
				out->label[i] = kvb_xstrdup(colon + 1);
			}
		}
		l = nl ? nl + 1 : NULL;
	}
	free(buf);
	return rc;
}

static int read_counters(struct kvb_instr_ctx *c, struct counters *out, struct kvb_error *err)
{
	const char *root = kvb_instr_sysfs_root(c->plat);
	const char *argv[] = { "sh", "-c", grep_body, "sh", root, NULL };
	struct kvb_exec_result r;
	int rc;
	memset(out, 0, sizeof(*out));
	kvb_exec_result_init(&r);
	rc = kvb_target_exec(c->target, argv, 30000, &r, err);
	if (!rc)
		rc = parse_counters(r.out.data, root, out, err);
	if (!rc && !out->n)
		rc = kvb_error_set(err, KVB_ETARGET, "no hwmon energy counters under '%s/sys/class/hwmon'%s%s", root, r.err.len ? ": " : "", r.err.data);
	for (size_t i = 0; !rc && i < out->n; i++) {
		if (!out->label[i])
			out->label[i] = kvb_xstrdup(out->key[i]);
		if (!out->has_input[i])
			rc = kvb_error_set(err, KVB_EINPUT, "'%s' has a label but no energy input",
					   out->key[i]);
	}
	kvb_exec_result_release(&r);
	return rc;
}

/* The same meter under the other kernel generation's label (see the top of this file), or NULL. */
static const char *other_generation(const char *label)
{
	static const char *const pairs[][2] = { { "BOARD_ENERGY_SYS", "sys_energy" },
						{ "BOARD_ENERGY_BIG", "a57_energy" },
						{ "BOARD_ENERGY_LITTLE", "a53_energy" },
						{ "BOARD_ENERGY_GPU", "gpu_energy" } };
	for (size_t i = 0; i < KVB_ARRAY_SIZE(pairs); i++)
		for (int k = 0; k < 2; k++)
			if (!strcmp(pairs[i][k], label))
				return pairs[i][!k];
	return NULL;
}

static int label_matches(const char *want, const char *have)
{
	const char *alt = other_generation(want);
	return !strcmp(want, have) || (alt && !strcmp(alt, have));
}

static int juno_hwmon_setup(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = kvb_xcalloc(1, sizeof(struct priv));
	c->priv = p;
	p->remote = kvb_xasprintf("%s/%s-energy.txt", c->remote_dir, c->name);
	return kvb_sums_check(cJSON_GetObjectItemCaseSensitive(c->conf, "sums"), err);
}

static int juno_hwmon_start(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	const char *args[] = { kvb_instr_sysfs_root(c->plat), NULL };
	int rc = read_counters(c, &p->a, err);
	p->t_a = kvb_wall_ns();
	if (!rc)
		rc = kvb_sampler_start(&p->loop, c->target, p->remote, (unsigned)kvb_get_int(c->conf, "interval_ms", 1000),
				       grep_body, args, err);
	return rc;
}

static int juno_hwmon_stop(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	struct kvb_error e2;
	/* the sampler stops first: a sample after the end reading would be placed before it */
	int rc = kvb_sampler_stop(&p->loop, c->target, err);
	p->t_b = kvb_wall_ns();
	if (read_counters(c, &p->b, &e2) && !rc) {
		*err = e2;
		rc = e2.code;
	}
	return rc;
}

static void where(char *buf, size_t n, double up, const char *end)
{
	if (up < 0)
		snprintf(buf, n, "%s", end);
	else
		snprintf(buf, n, "uptime %.2f s", up);
}

/*
 * The channel's energy from its readings (counter.h: monotonic, or wrapping at wrap_uj), with its
 * witness; returns 1 when refused. A counter that went back (a reset, or a wrap the platform does
 * not declare) refuses the channel, the others stand (before, the whole instrument failed, and a
 * reset undone by the end was stored as movement). A counter that did not move while the job ran
 * (firmware updating it less often than the job lasted, or stuck) is refused too: a short job
 * would otherwise be stored as 0 J, as pyJoules #17 reports for its counters.
 */
static int judge_series(struct kvb_instr_ctx *c, struct kvb_chan_energy *e, const char *key, const struct kvb_ctr_series *s,
			double dt_s)
{
	uint64_t wrap = (uint64_t)kvb_get_int(c->conf, "wrap_uj", 0), sum = 0, d;
	const struct kvb_ctr_decl *decl = wrap ? &hwmon_wrap_decl : &hwmon_decl;
	char subject[256], observed[200], from[48], to[48];
	int wraps = 0;
	snprintf(subject, sizeof(subject), "%s channel %s", c->name, e->name);
	snprintf(observed, sizeof(observed), "%s: %llu -> %llu uJ in %.3f s, %zu readings", key,
		 (unsigned long long)s->v[0], (unsigned long long)s->v[s->n - 1], dt_s, s->n);
	for (size_t k = 1; k < s->n; k++) {
		enum kvb_ctr_step st = kvb_ctr_step(decl, s->v[k - 1], s->v[k], wrap, &d);
		if (st == KVB_CTR_BAD) {
			where(from, sizeof(from), s->up[k - 1], "the start of the job");
			where(to, sizeof(to), s->up[k], "the end of the job");
			kvb_witness_add(&c->out->witnesses, "meter", subject, "the counter only grows", observed,
					KVB_WIT_REFUSED,
					"energy and power_mean not stored: the counter went back from %llu to %llu uJ between "
					"the readings at %s and %s (a reset, or a wrap: hwmon declares no wrap point; set "
					"wrap_uj if this meter's counters wrap), so the job's energy is not known",
					(unsigned long long)s->v[k - 1], (unsigned long long)s->v[k], from, to);
			return 1;
		}
		wraps += st == KVB_CTR_WRAPPED;
		sum += d;
	}
	e->energy_j = (double)sum * 1e-6;
	e->power_mw = dt_s > 0 ? e->energy_j / dt_s * 1000 : 0;
	if (sum > 0 || dt_s <= 0) {
		kvb_witness_add(&c->out->witnesses, "meter", subject, "the counter moves during the job", observed,
				KVB_WIT_OK, wraps ? "wrapped %d time%s at wrap_uj %llu: counted %llu uJ" : NULL, wraps,
				wraps == 1 ? "" : "s", (unsigned long long)wrap, (unsigned long long)sum);
		return 0;
	}
	kvb_witness_add(&c->out->witnesses, "meter", subject, "the counter moves during the job", observed,
			KVB_WIT_REFUSED,
			"energy and power_mean not stored: the counter did not move in %.3f s (it updates less often than "
			"the job lasted, or it is stuck); never 0 J in their place", dt_s);
	return 1;
}

/* The channel key's readings: the start (k in a), each sample of text that has it, the end (i in b). */
static void build_series(const struct priv *p, size_t k, size_t i, const char *text, struct kvb_ctr_series *s)
{
	const char *cur = text;
	double up;
	char *body;
	memset(s, 0, sizeof(*s));
	kvb_ctr_series_push(s, p->a.uj[k], -1);
	while (!kvb_snapshots_next(&cur, &up, &body)) {
		struct counters m;
		struct kvb_error ignore;
		if (!parse_counters(body, "", &m, &ignore))
			for (size_t j = 0; j < m.n; j++)
				if (!strcmp(m.key[j], p->b.key[i]) && m.has_input[j])
					kvb_ctr_series_push(s, m.uj[j], up);
		counters_release(&m);
		free(body);
	}
	kvb_ctr_series_push(s, p->b.uj[i], -1);
}

static int juno_hwmon_collect(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	const cJSON *chans = cJSON_GetObjectItemCaseSensitive(c->conf, "channels");
	struct kvb_chan_energy *v = kvb_xcalloc(p->b.n + 1, sizeof(*v));
	int *refused = kvb_xcalloc(p->b.n + 1, sizeof(*refused));
	double dt_s = (double)(p->t_b - p->t_a) / 1e9;
	size_t n = 0;
	char *text = NULL;
	int rc = kvb_sampler_text(&p->loop, c->target, &text, err);

	for (size_t i = 0; !rc && i < p->b.n; i++) {
		const char *name = p->b.label[i];
		size_t k = 0;
		if (chans && chans->child) {
			const cJSON *kv = chans->child;
			while (kv && !(cJSON_IsString(kv) && label_matches(kv->valuestring, p->b.label[i])))
				kv = kv->next;
			if (!kv)
				continue;
			name = kv->string;
		}
		while (k < p->a.n && strcmp(p->a.key[k], p->b.key[i]))
			k++;
		if (k == p->a.n) {
			rc = kvb_error_set(err, KVB_ETARGET, "counter '%s' appeared during the job",
					   p->b.key[i]);
			break;
		}
		v[n].name = name;
		{
			struct kvb_ctr_series sr;
			build_series(p, k, i, text, &sr);
			refused[n] = judge_series(c, &v[n], p->b.key[i], &sr, dt_s);
			kvb_ctr_series_release(&sr);
		}
		n++;
	}
	for (const cJSON *kv = chans ? chans->child : NULL; !rc && kv; kv = kv->next) {
		size_t i = 0;
		while (i < n && strcmp(v[i].name, kv->string))
			i++;
		if (i == n) {
			struct kvb_buf found = KVB_BUF_INIT;
			for (size_t j = 0; j < p->b.n; j++)
				kvb_buf_addf(&found, "%s%s (%s)", j ? ", " : "", p->b.label[j], p->b.key[j]);
			rc = kvb_error_set(err, KVB_EINPUT,
					   "channel '%s': no energy counter labelled '%s'; labels found: %s", kv->string, cJSON_IsString(kv) ? kv->valuestring : "?",
					   found.len ? found.data : "none");
			kvb_buf_release(&found);
		}
	}
	if (!rc)
		rc = kvb_energy_emit_kept(c, v, refused, n, err);
	free(v);
	free(refused);
	free(text);
	return rc;
}

static void juno_hwmon_teardown(struct kvb_instr_ctx *c)
{
	struct priv *p = c->priv;
	if (!p)
		return;
	counters_release(&p->a);
	counters_release(&p->b);
	kvb_sampler_release(&p->loop, c->target);
	free(p->remote);
	free(p);
	c->priv = NULL;
}

/* `platform check` (instrument.h kvb_instr_probe): the hwmon class directory under ROOT on the board. */
static void juno_hwmon_probe(struct kvb_instr_probe *p)
{
	const char *root = kvb_instr_sysfs_root(p->plat);
	char *dir;
	if (!p->target)
		return;
	/* the energy counters are read from every hwmonN/energyN_input under it: a missing tree is no data */
	dir = kvb_xasprintf("%s/sys/class/hwmon", root);
	{
		const char *argv[] = { "sh", "-c", "test -d \"$1\"", "sh", dir, NULL };
		struct kvb_exec_result r;
		struct kvb_error err;
		kvb_exec_result_init(&r);
		if (!kvb_target_exec(p->target, argv, 10000, &r, &err) && r.exit_code)
			kvb_instr_probe_problem(p, "%s is not a directory on the board", dir);
		else if (!r.exit_code)
			kvb_instr_probe_found(p, "%s: found on the board", dir);
		kvb_exec_result_release(&r);
	}
	free(dir);
}

const struct kvb_instrument_ops kvb_instrument_juno_hwmon = {
	.name = "juno-hwmon",
	.summary = "Juno on-board energy meters: hwmon energyN_input counters (uJ) read at start and stop",
	.conf_keys = keys,
	.setup = juno_hwmon_setup,
	.start = juno_hwmon_start,
	.stop = juno_hwmon_stop,
	.collect = juno_hwmon_collect,
	.teardown = juno_hwmon_teardown,
	.probe = juno_hwmon_probe,
	.metrics = kvb_energy_metric_decls,
};
