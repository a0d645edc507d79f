/*
 * Implements the juno-hwmon instrument: the Juno r1/r2 on-board energy
 * meters, read as cumulative hwmon counters
 * (/sys/class/hwmon/hwmonM/energyN_input, uJ, named by energyN_label) over
 * the target connection at start and stop; energy = counter(stop) -
 * counter(start), power_mean = energy / (time between the two reads).
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
#include "core/buf.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct kvb_keydef keys[] = {
	{ "channels", KVB_T_MAP, NULL, NULL, 0, "{chan_name: energyN_label}: keep and rename these (default: every label)" },
	{ "sums", KVB_T_MAP, NULL, NULL, 0, "{name: [channel, ...]}" },
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
};

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

/* `grep -H .` prints "hwmonN/energyM_input:VALUE" and "hwmonN/energyM_label:NAME". */
static int read_counters(struct kvb_instr_ctx *c, struct counters *out, struct kvb_error *err)
{
	/* both layouts; a glob that matches nothing is grep's "No such file", not an error here */
	static const char script[] = "cd \"$1/sys/class/hwmon\" && grep -H . hwmon*/energy*_input hwmon*/energy*_label"
				     " hwmon*/device/energy*_input hwmon*/device/energy*_label 2>/dev/null; true";
	const char *root = kvb_instr_sysfs_root(c->plat);
	const char *argv[] = { "sh", "-c", script, "sh", root, NULL };
	struct kvb_exec_result r;
	int rc;
	memset(out, 0, sizeof(*out));
	kvb_exec_result_init(&r);
	rc = kvb_target_exec(c->target, argv, 30000, &r, err);
	for (char *l = r.out.data; !rc && l && *l;) {
		char *nl = strchr(l, '\n'), *colon, *us;
		if (nl)
			*nl = '\0';
		colon = strchr(l, ':');
		us = colon ? memrchr(l, '_', (size_t)(colon - l)) : NULL;
		if (us) {
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
	c->priv = kvb_xcalloc(1, sizeof(struct priv));
	return kvb_sums_check(cJSON_GetObjectItemCaseSensitive(c->conf, "sums"), err);
}

static int juno_hwmon_start(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	int rc = read_counters(c, &p->a, err);
	p->t_a = kvb_wall_ns();
	return rc;
}

static int juno_hwmon_stop(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	p->t_b = kvb_wall_ns();
	return read_counters(c, &p->b, err);
}

/*
 * A counter that did not move while the job ran says nothing about the job: the board's firmware
 * updates it less often than the job lasted, or it is stuck (a short job would otherwise be stored
 * as 0 J, as pyJoules #17 reports for its counters). Such a channel is refused (returns 1); one
 * that moved gets an ok witness with its delta (returns 0).
 */
static int counter_witness(struct kvb_instr_ctx *c, const struct kvb_chan_energy *e, const char *key, uint64_t a,
			   uint64_t b, double dt_s)
{
	char subject[256], observed[160];
	snprintf(subject, sizeof(subject), "%s channel %s", c->name, e->name);
	snprintf(observed, sizeof(observed), "%s: %llu -> %llu uJ in %.3f s", key, (unsigned long long)a,
		 (unsigned long long)b, dt_s);
	if (b > a || dt_s <= 0) {
		kvb_witness_add(&c->out->witnesses, "meter", subject, "the counter moves during the job", observed,
				KVB_WIT_OK, NULL);
		return 0;
	}
	kvb_witness_add(&c->out->witnesses, "meter", subject, "the counter moves during the job", observed,
			KVB_WIT_REFUSED,
			"energy and power_mean not stored: the counter did not move in %.3f s (it updates less often than "
			"the job lasted, or it is stuck); never 0 J in their place", dt_s);
	return 1;
}

static int juno_hwmon_collect(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	const cJSON *chans = cJSON_GetObjectItemCaseSensitive(c->conf, "channels");
	struct kvb_chan_energy *v = kvb_xcalloc(p->b.n + 1, sizeof(*v));
	int *refused = kvb_xcalloc(p->b.n + 1, sizeof(*refused));
	double dt_s = (double)(p->t_b - p->t_a) / 1e9;
	size_t n = 0;
	int rc = KVB_OK;

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
		if (p->b.uj[i] < p->a.uj[k]) {
			rc = kvb_error_set(err, KVB_EINPUT,
					   "counter '%s' (%s) went backwards (%llu -> %llu uJ): reset or wrapped", p->b.key[i], p->b.label[i], (unsigned long long)p->a.uj[k],
					   (unsigned long long)p->b.uj[i]);
			break;
		}
		v[n].name = name;
		v[n].energy_j = (double)(p->b.uj[i] - p->a.uj[k]) * 1e-6;
		v[n].power_mw = dt_s > 0 ? v[n].energy_j / dt_s * 1000 : 0;
		refused[n] = counter_witness(c, &v[n], p->b.key[i], p->a.uj[k], p->b.uj[i], dt_s);
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
	return rc;
}

static void juno_hwmon_teardown(struct kvb_instr_ctx *c)
{
	struct priv *p = c->priv;
	if (!p)
		return;
	counters_release(&p->a);
	counters_release(&p->b);
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
