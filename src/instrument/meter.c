/* Implements the command-driven energy meter shared by csv-command, aep, monsoon and acme (see probe.h). */
#include "instrument/instrument.h"
#include "instrument/probe.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kvb_meter *kvb_meter_new(struct kvb_instr_ctx *c, enum kvb_probe_format format)
{
	struct kvb_meter *m = kvb_xcalloc(1, sizeof(*m));
	m->format = format;
	m->sums = cJSON_GetObjectItemCaseSensitive(c->conf, "sums");
	m->ready_timeout_ms = (unsigned)kvb_get_int(c->conf, "ready_timeout_ms", 0);
	c->priv = m;
	return m;
}

struct kvb_meter_cmd *kvb_meter_add(struct kvb_instr_ctx *c, const char *chan_name, const char *data_suffix)
{
	struct kvb_meter *m = c->priv;
	struct kvb_meter_cmd *mc;
	char *base;
	m->cmd = kvb_xrealloc(m->cmd, (m->ncmd + 1) * sizeof(*m->cmd));
	mc = &m->cmd[m->ncmd++];
	memset(mc, 0, sizeof(*mc));
	base = chan_name ? kvb_xasprintf("%s/%s-%s", c->artifact_dir, c->name, chan_name)
			 : kvb_xasprintf("%s/%s", c->artifact_dir, c->name);
	mc->stdout_path = kvb_xasprintf("%s.out", base);
	mc->data_path = data_suffix ? kvb_xasprintf("%s%s", base, data_suffix) : kvb_xstrdup(mc->stdout_path);
	mc->chan_name = chan_name ? kvb_xstrdup(chan_name) : NULL;
	free(base);
	return mc;
}

void kvb_meter_time_mode(struct kvb_meter *m, const cJSON *conf, enum kvb_time_mode def)
{
	const char *t = kvb_get_str(conf, "time", NULL);
	m->time_mode = !t ? def : !strcmp(t, "relative") ? KVB_TIME_RELATIVE : !strcmp(t, "absolute") ? KVB_TIME_ABSOLUTE
									       : KVB_TIME_AUTO;
}

int kvb_meter_start(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct kvb_meter *m = c->priv;
	for (size_t i = 0; i < m->ncmd; i++) {
		int rc = kvb_probe_cmd_start(&m->cmd[i].cmd, kvb_strv_argv(&m->cmd[i].argv), m->cmd[i].stdout_path, err);
		if (!rc)
			rc = kvb_probe_cmd_wait_output(&m->cmd[i].cmd, m->cmd[i].data_path, m->ready_timeout_ms, err);
		if (rc) {
			struct kvb_error ignore;
			for (size_t k = 0; k <= i; k++)
				kvb_probe_cmd_stop(&m->cmd[k].cmd, "meter", &ignore);
			return kvb_error_prefix(err, "instrument '%s'", c->name);
		}
	}
	return KVB_OK;
}

int kvb_meter_stop(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct kvb_meter *m = c->priv;
	int rc = KVB_OK;
	for (size_t i = 0; i < m->ncmd; i++) {
		struct kvb_error e2;
		int r = kvb_probe_cmd_stop(&m->cmd[i].cmd, m->cmd[i].argv.v[0], &e2);
		if (r && !rc) {
			rc = r;
			*err = e2;
			kvb_error_prefix(err, "instrument '%s'", c->name);
		}
	}
	return rc;
}

int kvb_instr_take_samples(struct kvb_instr_ctx *c, struct kvb_samples *s, const cJSON *sums, struct kvb_error *err)
{
	int rc = kvb_energy_metrics(c->out, s, sums, err);
	if (rc)
		return kvb_error_prefix(err, "instrument '%s'", c->name);
	if (!c->out->samples)
		c->out->samples = kvb_samples_new();
	kvb_samples_move(c->out->samples, s);
	return KVB_OK;
}

int kvb_meter_collect(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct kvb_meter *m = c->priv;
	struct kvb_samples *s = kvb_samples_new();
	int rc = KVB_OK;
	for (size_t i = 0; !rc && i < m->ncmd; i++) {
		struct kvb_meter_cmd *mc = &m->cmd[i];
		struct kvb_probe_parse p = {
			.format = m->format,
			.path = mc->data_path,
			.instrument = c->name,
			.chan_name = mc->chan_name,
			.channels = m->format == KVB_PROBE_ACME ? NULL : m->channels,
			.default_units = m->default_units,
			.rate_hz = m->rate_hz,
			.time_mode = m->time_mode,
			.base_ns = mc->cmd.started_ns,
			.win_start_ns = c->start_ns,
			.win_stop_ns = c->stop_ns,
		};
		struct kvb_probe_stats st;
		memset(&st, 0, sizeof(st));
		rc = kvb_probe_parse_file(&p, s, &st, err);
		if (rc) {
			/* Bad or no data often has its reason on the tool's stderr. */
			char line[512];
			kvb_probe_cmd_stderr_line(&mc->cmd, line, sizeof(line));
			if (line[0] && strlen(err->msg) + strlen(line) + 32 < sizeof(err->msg))
				snprintf(err->msg + strlen(err->msg), sizeof(err->msg) - strlen(err->msg), " (%s said%s)",
					 mc->argv.v[0], line);
			/* A meter slower to start than a short job is done records nothing in the job's window:
			   the fix is the meter's ready_timeout_ms (docs/energy.md), so the error says it */
			if (!st.samples_kept && !m->ready_timeout_ms && strstr(err->msg, ": no samples ("))
				snprintf(err->msg + strlen(err->msg), sizeof(err->msg) - strlen(err->msg),
					 "; a meter that starts slower than the job runs records nothing: set the instrument's "
					 "ready_timeout_ms (ms to wait for its first output before the job starts)");
		}
		kvb_metrics_artifact(c->out, "energy-raw", mc->data_path);
	}
	if (rc)
		kvb_error_prefix(err, "instrument '%s'", c->name);
	else
		rc = kvb_instr_take_samples(c, s, m->sums, err);
	kvb_samples_free(s);
	return rc;
}

void kvb_meter_teardown(struct kvb_instr_ctx *c)
{
	struct kvb_meter *m = c->priv;
	if (!m)
		return;
	for (size_t i = 0; i < m->ncmd; i++) {
		kvb_probe_cmd_release(&m->cmd[i].cmd);
		kvb_strv_release(&m->cmd[i].argv);
		free(m->cmd[i].stdout_path);
		free(m->cmd[i].data_path);
		free(m->cmd[i].chan_name);
	}
	free(m->cmd);
	free(m);
	c->priv = NULL;
}
