/* Implements the command-driven energy meter shared by csv-command, aep, monsoon and acme (see probe.h). */
#include "instrument/instrument.h"
#include "instrument/probe.h"
#include "core/util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kvb_meter *kvb_meter_new(struct kvb_instr_ctx *c, const char *format, int def_stop_signal)
{
	struct kvb_meter *m = kvb_xcalloc(1, sizeof(*m));
	const char *sig = kvb_get_str(c->conf, "stop_signal", NULL);
	m->format = kvb_probe_format_find(format);
	if (!m->format)
		abort(); /* a meter names a format of the registry: a programming error */
	m->sums = cJSON_GetObjectItemCaseSensitive(c->conf, "sums");
	m->ready_timeout_ms = (unsigned)kvb_get_int(c->conf, "ready_timeout_ms", 0);
	/* the key table allows INT|TERM only (KVB_METER_STOP_KEYS) */
	m->stop_signal = !sig ? def_stop_signal : !strcmp(sig, "INT") ? SIGINT : SIGTERM;
	m->stop_timeout_ms = (unsigned)kvb_get_int(c->conf, "stop_timeout_ms", 5000);
	m->coverage.max_gap_intervals = kvb_get_num(c->conf, "max_gap_intervals", 10);
	m->coverage.edge_ms = kvb_get_num(c->conf, "edge_ms", 50);
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
				kvb_probe_cmd_stop(&m->cmd[k].cmd, "meter", m->stop_signal, m->stop_timeout_ms, NULL, &ignore);
			return rc;
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
		int killed = 0;
		int r = kvb_probe_cmd_stop(&m->cmd[i].cmd, m->cmd[i].argv.v[0], m->stop_signal, m->stop_timeout_ms,
					   &killed, &e2);
		if (killed) {
			/* what it held when killed is lost: the coverage witness of its channels says how much */
			char subject[256];
			snprintf(subject, sizeof(subject), "%s%s%s stop", c->name, m->cmd[i].chan_name ? " channel " : "",
				 m->cmd[i].chan_name ? m->cmd[i].chan_name : "");
			kvb_witness_add(&c->out->witnesses, "meter", subject,
					m->stop_signal == SIGINT ? "exits on SIGINT" : "exits on SIGTERM",
					"still running: killed (SIGKILL)", KVB_WIT_CHANGED,
					"'%s' did not exit within stop_timeout_ms %u of SIG%s and was killed: its last samples "
					"may be missing", m->cmd[i].argv.v[0], m->stop_timeout_ms,
					m->stop_signal == SIGINT ? "INT" : "TERM");
		}
		if (r && !rc) {
			rc = r;
			*err = e2;
		}
	}
	return rc;
}

int kvb_instr_take_samples(struct kvb_instr_ctx *c, struct kvb_samples *s, const cJSON *sums, struct kvb_error *err)
{
	int rc = kvb_energy_metrics(c->out, s, sums, err);
	if (rc)
		return rc;
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
			.channels = m->format->caps & KVB_PROBE_FILE_PER_CHANNEL ? NULL : m->channels,
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
	if (!rc) {
		/* every channel proves it covered the job window, or its energy is refused (coverage.h) */
		struct kvb_coverage_rule rule = m->coverage;
		rule.rate_hz = m->rate_hz;
		kvb_coverage_witness(s, c->name, c->start_ns, c->stop_ns, &rule, &c->out->witnesses);
		rc = kvb_instr_take_samples(c, s, m->sums, err);
	}
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
