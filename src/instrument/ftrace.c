/*
 * Implements the ftrace instrument: `trace-cmd record -e EVENT... -o
 * REMOTE/NAME.dat` runs in the background on the target from start to
 * stop (SIGINT makes trace-cmd write its file), and the trace is pulled
 * into the job's artifacts (kind "ftrace"). start waits until trace-cmd
 * says it is recording, so the workload's first events are in the trace.
 * Needs trace-cmd on the target (Debian: trace-cmd) and tracefs access (root).
 *
 * A trace whose per-CPU ring buffer wrapped before trace-cmd read it misses
 * events (LISA PR #1750 refuses such traces). trace-cmd says so on stdout when
 * it stops (kvb_trace_cmd_lost reads its three formats); a loss is a `changed`
 * witness naming the CPUs and counts (raise buffer_kb), none an `ok` one.
 */
#include "instrument/instrument.h"
#include "instrument/probe.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct kvb_keydef keys[] = {
	{ "events", KVB_T_STRLIST, "sched:sched_switch sched:sched_wakeup", NULL, 0, "trace events (-e)" },
	{ "buffer_kb", KVB_T_INT, NULL, NULL, KVB_KEY_POSITIVE, "per-CPU ring buffer size (-b)" },
	{ "trace_cmd", KVB_T_STR, "trace-cmd", NULL, 0, "trace-cmd on the target" },
	{ "ready_timeout_ms", KVB_T_INT, "10000", NULL, KVB_KEY_POSITIVE, "how long trace-cmd may take to start" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

struct priv {
	long pid;
	char *dat, *log, *errlog;
};

static int ftrace_setup(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = kvb_xcalloc(1, sizeof(*p));
	(void)err;
	c->priv = p;
	p->dat = kvb_xasprintf("%s/%s.dat", c->remote_dir, c->name);
	p->log = kvb_xasprintf("%s/%s.out", c->remote_dir, c->name);
	p->errlog = kvb_xasprintf("%s/%s.err", c->remote_dir, c->name);
	return KVB_OK;
}

/* trace-cmd's complaint, for messages; arg is the instrument's context. */
static char *remote_stderr(void *arg)
{
	struct kvb_instr_ctx *c = arg;
	struct priv *p = c->priv;
	char *text = NULL;
	struct kvb_error ignore;
	/* trace-cmd's recorder children may still be writing their complaint when the parent is gone. */
	for (int i = 0; i < 10; i++) {
		free(text);
		text = NULL;
		if (!kvb_target_read_rooted(c->target, "", p->errlog, &text, &ignore) && text && text[0])
			break;
		kvb_sleep_ms(100);
	}
	if (!text)
		return kvb_xstrdup("");
	text[strcspn(text, "\n")] = '\0';
	return text;
}

static int ftrace_start(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	struct kvb_strv a = KVB_STRV_INIT;
	const cJSON *ev = cJSON_GetObjectItemCaseSensitive(c->conf, "events");
	long long buf_kb = kvb_get_int(c->conf, "buffer_kb", 0), ready_ms = kvb_get_int(c->conf, "ready_timeout_ms", 10000);
	int rc;

	kvb_strv_push(&a, kvb_get_str(c->conf, "trace_cmd", "trace-cmd"));
	kvb_strv_push(&a, "record");
	if (ev) {
		struct kvb_strv evs = KVB_STRV_INIT;
		kvb_conf_argv(ev, &evs);
		for (size_t i = 0; i < evs.n; i++) {
			kvb_strv_push(&a, "-e");
			kvb_strv_push(&a, evs.v[i]);
		}
		kvb_strv_release(&evs);
	} else {
		kvb_strv_push(&a, "-e");
		kvb_strv_push(&a, "sched:sched_switch");
		kvb_strv_push(&a, "-e");
		kvb_strv_push(&a, "sched:sched_wakeup");
	}
	if (buf_kb > 0) {
		kvb_strv_push(&a, "-b");
		kvb_strv_pushf(&a, "%lld", buf_kb);
	}
	kvb_strv_push(&a, "-o");
	kvb_strv_push(&a, p->dat);
	/* ready when trace-cmd prints its "Hit Ctrl^C to stop recording"; gone = failed */
	rc = kvb_target_bg_start_ready(c->target, kvb_strv_argv(&a), p->log, p->errlog, "trace-cmd", "Ctrl",
				       (unsigned)ready_ms, remote_stderr, c, &p->pid, err);
	kvb_strv_release(&a);
	return rc;
}

static int ftrace_stop(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	int killed = 0, rc = kvb_target_bg_stop(c->target, p->pid, "INT", 60000, &killed, err);
	p->pid = 0;
	if (!rc && killed)
		kvb_witness_add(&c->out->witnesses, "trace", c->name, "trace-cmd exits on SIGINT after writing its trace",
				"still running after 60 s: killed (SIGKILL)", KVB_WIT_CHANGED,
				"trace-cmd did not finish writing within 60 s of SIGINT and was killed: the trace may end early");
	return rc;
}

long long kvb_trace_cmd_lost(const char *out, char *summary, size_t n)
{
	long long total = 0;
	int cpu = -1;
	size_t used = 0;
	summary[0] = '\0';
	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		long long a = 0, b = 0;
		int c2, k = 0;
		/* 2.6+: "CPU 3: 12 events lost[ 4 events lost due to commit overrun]" (early 2015: "bytes lost") */
		if (sscanf(l, "CPU %d: %lld %*[a-z] lost%n", &c2, &a, &k) == 2 && k) {
			if (sscanf(l + k, " %lld events lost due to commit overrun", &b) != 1)
				b = 0;
			cpu = c2;
		} else if (sscanf(l, "CPU: %d", &c2) == 1) {
			cpu = c2; /* before 2.6: the kernel's per_cpu/cpuN/stats after "CPU: N" */
			continue;
		} else if (cpu >= 0 && (sscanf(l, "overrun: %lld", &a) == 1 || sscanf(l, "commit overrun: %lld", &a) == 1 ||
					sscanf(l, "dropped events: %lld", &a) == 1)) {
			b = 0;
		} else {
			continue;
		}
		if (a + b <= 0)
			continue;
		total += a + b;
		if (used < n)
			used += (size_t)snprintf(summary + used, n - used, "%sCPU %d: %lld", used ? ", " : "", cpu, a + b);
	}
	return total;
}

/* The trace's witness from what trace-cmd printed when it stopped. */
static void loss_witness(struct kvb_instr_ctx *c)
{
	struct priv *p = c->priv;
	char *out = NULL, summary[512], subject[256], observed[640];
	struct kvb_error ignore;
	long long lost;
	if (kvb_target_read_rooted(c->target, "", p->log, &out, &ignore))
		return;
	lost = kvb_trace_cmd_lost(out, summary, sizeof(summary));
	snprintf(subject, sizeof(subject), "%s trace buffer", c->name);
	if (lost) {
		snprintf(observed, sizeof(observed), "%lld events lost (%s)", lost, summary);
		kvb_witness_add(&c->out->witnesses, "trace", subject, "no event lost", observed, KVB_WIT_CHANGED,
				"the per-CPU ring buffer wrapped before trace-cmd read it: the trace misses events "
				"(raise buffer_kb)");
	} else {
		kvb_witness_add(&c->out->witnesses, "trace", subject, "no event lost", "trace-cmd reported no lost event",
				KVB_WIT_OK, NULL);
	}
	free(out);
}

static int ftrace_collect(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	char *local = kvb_xasprintf("%s/%s.dat", c->artifact_dir, c->name);
	int rc = kvb_target_pull(c->target, p->dat, local, err);
	if (!rc)
		loss_witness(c);
	if (rc) {
		char *why = remote_stderr(c);
		rc = kvb_error_set(err, KVB_ETARGET, "no trace written%s%s", why[0] ? ": " : "",
				   why);
		free(why);
	} else if (kvb_metrics_artifact(c->out, "ftrace", local)) {
		rc = kvb_error_set(err, KVB_ETARGET, "cannot read '%s'", local);
	}
	free(local);
	return rc;
}

static void ftrace_teardown(struct kvb_instr_ctx *c)
{
	struct priv *p = c->priv;
	if (!p)
		return;
	kvb_target_bg_kill(c->target, &p->pid);
	free(p->dat);
	free(p->log);
	free(p->errlog);
	free(p);
	c->priv = NULL;
}

/* `platform check` (instrument.h kvb_instr_probe): trace-cmd on the board. */
static void ftrace_probe(struct kvb_instr_probe *p)
{
	kvb_instr_probe_board_program(p, kvb_get_str(p->conf, "trace_cmd", "trace-cmd"), "trace_cmd");
}

const struct kvb_instrument_ops kvb_instrument_ftrace = {
	.name = "ftrace",
	.summary = "trace-cmd record of chosen events during the job, kept as an artifact",
	.conf_keys = keys,
	.setup = ftrace_setup,
	.start = ftrace_start,
	.stop = ftrace_stop,
	.collect = ftrace_collect,
	.teardown = ftrace_teardown,
	.probe = ftrace_probe,
};
