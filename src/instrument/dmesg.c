/*
 * Implements the dmesg instrument: the kernel log printed during the job, kept
 * as an artifact (kind "dmesg"), and `dmesg_warnings` = the number of its lines
 * that report a kernel problem (WARNING, BUG, Oops, "cut here", call traces'
 * first line), with a `kmsg` witness that the log of the job is whole (kmsg.h).
 *
 * Where /dev/kmsg can be read and written (root; kernel.printk_devkmsg not
 * "off"), a reader runs on the target from start to stop (`cat /dev/kmsg`,
 * started over after an EPIPE), so records are read as they are logged and a
 * ring buffer that wraps during the job loses nothing; kvbench writes a start
 * and a stop marker into /dev/kmsg ("kvbench: NAME start NONCE", as LTP marks
 * its tests) and the job's records are the ones between them. A sequence number
 * missing between the markers (overwritten before the reader got it) or a
 * marker not found is a `refused` witness: dmesg_warnings is not stored (a count
 * of what was left would look whole), the log kept is what was read.
 *
 * Elsewhere (`source: dmesg`, or a `command:`, or no access to /dev/kmsg) the
 * log is read with `dmesg` at start and at stop and the job's lines are found
 * by content (kvb_dmesg_new_lines); a log whose lines at the start are all gone
 * at the stop (wrapped past them, or cleared) is refused the same way.
 */
#include "instrument/instrument.h"
#include "instrument/kmsg.h"
#include "instrument/probe.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct kvb_keydef keys[] = {
	{ "source", KVB_T_STR, "auto", "auto|kmsg|dmesg", 0,
	  "kmsg: read /dev/kmsg through the job (needs root), dmesg: run `command` at start and stop; auto: kmsg "
	  "when /dev/kmsg can be read and written and no command is given" },
	{ "command", KVB_T_STRLIST, "dmesg", NULL, 0, "command printing the kernel log on the target (source dmesg)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static const struct kvb_metric_decl dmesg_metrics[] = {
	{ "dmesg_warnings", "", KVB_LOWER_IS_BETTER, "kernel log records of level warning or worse during the job", 0, NULL },
	{ NULL, NULL, 0, NULL, 0, NULL },
};

/* The reader: `cat /dev/kmsg` until TERM, started over (from the oldest record) when it ends on EPIPE. */
static const char reader[] =
	"trap 'kill $c 2>/dev/null; exit 0' TERM INT; n=0; "
	"while [ $n -lt 100 ]; do cat /dev/kmsg & c=$!; wait $c; n=$((n + 1)); done";

struct priv {
	int kmsg;         /* 1: the /dev/kmsg reader runs */
	long pid;         /* its pid on the target */
	char *remote;     /* where it writes */
	char *start_marker, *stop_marker;
	char *before;     /* dmesg: log at start */
	char *after;      /* dmesg: log at stop; kmsg: the reader's output */
	char *why_not_kmsg; /* auto chose dmesg because ... (for the witness), or NULL */
};

static int read_log(struct kvb_instr_ctx *c, char **out, struct kvb_error *err)
{
	struct kvb_strv a = KVB_STRV_INIT;
	struct kvb_exec_result r;
	int rc;
	if (kvb_conf_argv(cJSON_GetObjectItemCaseSensitive(c->conf, "command"), &a))
		kvb_strv_push(&a, "dmesg");
	kvb_exec_result_init(&r);
	rc = kvb_target_run_ok(c->target, kvb_strv_argv(&a), 30000, &r, err);
	*out = rc ? NULL : kvb_buf_detach(&r.out);
	kvb_exec_result_release(&r);
	kvb_strv_release(&a);
	return rc;
}

static int dmesg_setup(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	static unsigned counter;
	struct priv *p = kvb_xcalloc(1, sizeof(*p));
	char nonce[96];
	(void)err;
	c->priv = p;
	snprintf(nonce, sizeof(nonce), "%ld-%u-%lld", (long)getpid(), ++counter, (long long)kvb_wall_ns());
	p->start_marker = kvb_xasprintf("kvbench: %s start %s", c->name, nonce);
	p->stop_marker = kvb_xasprintf("kvbench: %s stop %s", c->name, nonce);
	p->remote = kvb_xasprintf("%s/%s-kmsg.txt", c->remote_dir, c->name);
	return KVB_OK;
}

/* auto: can this board's /dev/kmsg be read and written, and are writes logged? NULL, or why not (owned). */
static char *kmsg_unusable(struct kvb_instr_ctx *c)
{
	static const char check[] = "[ -r /dev/kmsg ] || { echo 'cannot read /dev/kmsg'; exit 0; }; "
				    "[ -w /dev/kmsg ] || { echo 'cannot write /dev/kmsg'; exit 0; }; "
				    "case \"$(cat /proc/sys/kernel/printk_devkmsg 2>/dev/null)\" in "
				    "off*) echo 'kernel.printk_devkmsg is off';; esac";
	const char *argv[] = { "sh", "-c", check, NULL };
	struct kvb_exec_result r;
	struct kvb_error e;
	char *why = NULL;
	kvb_exec_result_init(&r);
	if (kvb_target_run_ok(c->target, argv, 30000, &r, &e))
		why = kvb_xstrdup(e.msg);
	else if (r.out.len)
		why = kvb_xstrndup(r.out.data, strcspn(r.out.data, "\n"));
	kvb_exec_result_release(&r);
	return why;
}

/*
 * Logs marker through /dev/kmsg, ending in a newline: a record without one stays open for a
 * continuation and no reader sees it until the next record is logged (printk_ringbuffer: only
 * finalized records are read; vprintk_store finalizes on LOG_NEWLINE).
 */
static int write_marker(struct kvb_instr_ctx *c, const char *marker, struct kvb_error *err)
{
	const char *argv[] = { "sh", "-c", "printf '%s\n' \"$1\" > /dev/kmsg", "kvb-mark", marker, NULL };
	struct kvb_exec_result r;
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_target_run_ok(c->target, argv, 30000, &r, err);
	kvb_exec_result_release(&r);
	return rc ? kvb_error_prefix(err, "writing a marker into /dev/kmsg") : KVB_OK;
}

/* The reader's output so far into p->after; 1 when it holds marker. */
static int reader_has(struct kvb_instr_ctx *c, struct priv *p, const char *marker)
{
	const char *argv[] = { "cat", p->remote, NULL };
	struct kvb_exec_result r;
	struct kvb_error e;
	int found = 0;
	kvb_exec_result_init(&r);
	if (!kvb_target_exec(c->target, argv, 30000, &r, &e)) {
		free(p->after);
		p->after = kvb_buf_detach(&r.out);
		found = strstr(p->after, marker) != NULL;
	}
	kvb_exec_result_release(&r);
	return found;
}

static int dmesg_start(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	const char *source = kvb_get_str(c->conf, "source", "auto");
	int rc;
	if (!strcmp(source, "kmsg") || (!strcmp(source, "auto") && !cJSON_GetObjectItemCaseSensitive(c->conf, "command") &&
					 !(p->why_not_kmsg = kmsg_unusable(c)))) {
		const char *argv[] = { "sh", "-c", reader, NULL };
		char *errf = kvb_xasprintf("%s.err", p->remote);
		rc = kvb_target_bg_start(c->target, argv, p->remote, errf, &p->pid, err);
		free(errf);
		if (rc)
			return kvb_error_prefix(err, "starting the /dev/kmsg reader");
		p->kmsg = 1;
		if ((rc = write_marker(c, p->start_marker, err)))
			return rc;
		/* the job starts once the reader holds the start marker: a burst of messages at the job's
		 * start could otherwise overwrite the marker before the reader reached it */
		for (unsigned waited = 0, step = 10; !reader_has(c, p, p->start_marker); waited += step, step *= 2)
			if (waited >= 5000)
				return kvb_error_set(err, KVB_ETARGET,
						     "the /dev/kmsg reader did not read the start marker "
						     "within 5 s");
			else
				kvb_sleep_ms(step);
		return KVB_OK;
	}
	return read_log(c, &p->before, err);
}

static int dmesg_stop(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	struct kvb_error e2;
	int rc;
	if (!p->kmsg)
		return read_log(c, &p->after, err);
	rc = write_marker(c, p->stop_marker, err);
	/* the reader gets the marker as soon as it is logged; wait for it, up to 5 s, then stop it */
	for (unsigned waited = 0, step = 10; !rc && !reader_has(c, p, p->stop_marker) && waited < 5000; waited += step, step *= 2)
		kvb_sleep_ms(step);
	if (kvb_target_bg_stop(c->target, p->pid, "TERM", 2000, NULL, &e2) && !rc) {
		rc = e2.code;
		*err = e2;
	}
	p->pid = 0;
	if (!rc && (!p->after || !strstr(p->after, p->stop_marker)))
		reader_has(c, p, p->stop_marker); /* what it wrote after the last look */
	return rc;
}

/* Writes the job's log to the artifact; the count of its warning lines into *warnings. */
static int keep_log(struct kvb_instr_ctx *c, const char *text, int *warnings, struct kvb_error *err)
{
	char *path = kvb_xasprintf("%s/%s.log", c->artifact_dir, c->name);
	FILE *f = kvb_fopen_nofollow(path);
	int bad = !f, rc = KVB_OK;
	*warnings = 0;
	for (const char *l = text; *l;) {
		size_t n = strcspn(l, "\n");
		*warnings += kvb_dmesg_is_warning(l, n);
		l += n + (l[n] == '\n');
	}
	if (f) {
		bad = fputs(text, f) < 0;
		bad |= fclose(f) != 0;
	}
	if (bad)
		rc = kvb_error_set(err, KVB_ETARGET, "cannot write '%s'", path);
	else
		kvb_metrics_artifact(c->out, "dmesg", path);
	free(path);
	return rc;
}

static int collect_kmsg(struct kvb_instr_ctx *c, struct priv *p, struct kvb_error *err)
{
	struct kvb_kmsg_job j;
	struct kvb_buf log = KVB_BUF_INIT;
	char subject[256], expected[128], observed[256], why[256] = "";
	int warnings, rc;
	kvb_kmsg_slice(p->after ? p->after : "", p->start_marker, p->stop_marker, &j);
	for (size_t i = 0; i < j.n; i++)
		kvb_buf_addf(&log, "[%5llu.%06llu] %s\n", (unsigned long long)(j.v[i].ts_us / 1000000),
			     (unsigned long long)(j.v[i].ts_us % 1000000), j.v[i].msg);
	rc = keep_log(c, log.len ? log.data : "", &warnings, err);
	snprintf(subject, sizeof(subject), "%s /dev/kmsg", c->name);
	snprintf(expected, sizeof(expected), "every record between kvbench's start and stop markers");
	if (!j.have_start)
		snprintf(why, sizeof(why), "the start marker was not read (%zu records read, the oldest seq %llu): the ring "
					   "buffer wrapped past it before the reader got it",
			 j.records_read, (unsigned long long)j.first_seq);
	else if (!j.have_stop)
		snprintf(why, sizeof(why), "the stop marker was not read within 5 s: the job's last records may be missing");
	else if (j.lost)
		snprintf(why, sizeof(why), "%llu record%s (seq %llu-%llu) overwritten before they were read: the ring buffer "
					   "wrapped faster than the reader read",
			 (unsigned long long)j.lost, j.lost == 1 ? "" : "s", (unsigned long long)j.lost_first,
			 (unsigned long long)j.lost_last);
	if (j.have_start && j.have_stop)
		snprintf(observed, sizeof(observed), "seq %llu-%llu: %zu record%s read, %llu lost, %d warning%s",
			 (unsigned long long)j.start_seq + 1, (unsigned long long)j.stop_seq - 1, j.n, j.n == 1 ? "" : "s",
			 (unsigned long long)j.lost, warnings, warnings == 1 ? "" : "s");
	else
		snprintf(observed, sizeof(observed), "%zu record%s of the job read, %d warning%s%s", j.n, j.n == 1 ? "" : "s",
			 warnings, warnings == 1 ? "" : "s", j.have_start ? "" : " (start marker lost)");
	if (!rc && why[0])
		kvb_witness_add(&c->out->witnesses, "kmsg", subject, expected, observed, KVB_WIT_REFUSED,
				"dmesg_warnings not stored (%d seen in what was read): %s", warnings, why);
	else if (!rc) {
		kvb_witness_add(&c->out->witnesses, "kmsg", subject, expected, observed, KVB_WIT_OK, NULL);
		kvb_metrics_add_decl(c->out, &dmesg_metrics[0], warnings);
	}
	kvb_buf_release(&log);
	kvb_kmsg_job_release(&j);
	return rc;
}

static int collect_dmesg(struct kvb_instr_ctx *c, struct priv *p, struct kvb_error *err)
{
	struct kvb_dmesg_new nw;
	char subject[256], observed[256];
	int warnings, rc;
	kvb_dmesg_new_lines(p->before ? p->before : "", p->after ? p->after : "", &nw);
	rc = keep_log(c, nw.from, &warnings, err);
	if (rc)
		return rc;
	snprintf(subject, sizeof(subject), "%s dmesg", c->name);
	if (nw.start_lost)
		snprintf(observed, sizeof(observed), "none of the log's lines at the start were left at the stop; %d warning%s "
			 "in what was", warnings, warnings == 1 ? "" : "s");
	else if (nw.dropped_old)
		snprintf(observed, sizeof(observed), "the ring buffer dropped %zu older line%s, none of the job's; %d warning%s",
			 nw.dropped_old, nw.dropped_old == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
	else
		snprintf(observed, sizeof(observed), "the start's log followed by the job's lines; %d warning%s", warnings,
			 warnings == 1 ? "" : "s");
	if (nw.start_lost) {
		kvb_witness_add(&c->out->witnesses, "kmsg", subject, "the log at the start, then the job's lines", observed,
				KVB_WIT_REFUSED,
				"dmesg_warnings not stored (%d seen in what was left): the ring buffer wrapped past the start "
				"(or was cleared), so the job's first lines may be lost%s%s",
				warnings, p->why_not_kmsg ? "; /dev/kmsg not used: " : "",
				p->why_not_kmsg ? p->why_not_kmsg : "");
		return KVB_OK;
	}
	kvb_witness_add(&c->out->witnesses, "kmsg", subject, "the log at the start, then the job's lines", observed,
			KVB_WIT_OK, NULL);
	kvb_metrics_add_decl(c->out, &dmesg_metrics[0], warnings);
	return KVB_OK;
}

static int dmesg_collect(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	return p->kmsg ? collect_kmsg(c, p, err) : collect_dmesg(c, p, err);
}

static void dmesg_teardown(struct kvb_instr_ctx *c)
{
	struct priv *p = c->priv;
	if (!p)
		return;
	kvb_target_bg_kill(c->target, &p->pid);
	free(p->remote);
	free(p->start_marker);
	free(p->stop_marker);
	free(p->before);
	free(p->after);
	free(p->why_not_kmsg);
	free(p);
	c->priv = NULL;
}

/* `platform check` (instrument.h kvb_instr_probe): its command on the board. */
static void dmesg_probe(struct kvb_instr_probe *p)
{
	struct kvb_strv a = KVB_STRV_INIT;
	if (kvb_conf_argv(cJSON_GetObjectItemCaseSensitive(p->conf, "command"), &a))
		kvb_strv_push(&a, "dmesg");
	kvb_instr_probe_board_program(p, a.v[0], "command");
	kvb_strv_release(&a);
}

const struct kvb_instrument_ops kvb_instrument_dmesg = {
	.name = "dmesg",
	.summary = "kernel log during the job (/dev/kmsg read through it, or dmesg) as an artifact; dmesg_warnings "
		   "counts WARNING/BUG/Oops lines",
	.conf_keys = keys,
	.setup = dmesg_setup,
	.start = dmesg_start,
	.stop = dmesg_stop,
	.collect = dmesg_collect,
	.teardown = dmesg_teardown,
	.probe = dmesg_probe,
	.metrics = dmesg_metrics,
};
