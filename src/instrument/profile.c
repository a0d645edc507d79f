/*
 * Implements the profile instrument (docs/profile.md, docs/design.md#profiles): where a job's
 * instructions go. `perf record -a -e cpu-clock:I -c PERIOD` samples every CPU from start to
 * stop (the 'I' modifier is exclude_idle: no sample while a CPU idles, so on a QEMU -icount
 * board, whose idle time is the clock jumping to the next timer, every sample is PERIOD
 * instructions run); at stop perf record takes SIGINT and writes its file; collect runs `perf
 * report --stdio --no-children -n --sort dso,sym -t '|'` on the board (its kallsyms resolve the
 * kernel's symbols), keeps the report as an artifact (kind "profile") and hangs the per-function
 * sample counts on the job (struct kvb_profile, stored by the store in the job's transaction).
 *
 * Start waits until perf record runs its placeholder command (`sh -c 'echo ...; exec sleep'`):
 * with -a perf enables its events before it starts the command, so the workload's first
 * instructions are sampled.
 *
 * Witnesses (kind "profile"): the clock (instructions on an instruction-clock board, else the
 * numbers are ns of CPU time and it says so), the period perf kept (its event count must be
 * samples x period: cpu-clock's floor is 10000 ns), lost samples (perf's "Total Lost Samples" and
 * its "lost M chunks" warning: refused beyond max_lost_pct, any lost chunk refused) and the kernel
 * samples resolved to a symbol (refused below min_resolved_pct: kernel.kptr_restrict = 2 or a
 * kernel without kallsyms gives addresses, named in the message). A refused profile is not
 * stored: the job is instrument-failed.
 */
#include "instrument/instrument.h"
#include "instrument/probe.h"
#include "instrument/profile_count.h"
#include "instrument/profile_judge.h"
#include "core/profile.h"
#include "core/spawn.h"
#include "core/log.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define READY_MARK "kvb-profile-recording"

static const struct kvb_keydef keys[] = {
	{ "method", KVB_T_STR, "auto", "auto|count|sample", 0,
	  "count: every instruction by block (the board's counter: QEMU with kvbench's plugin, instruction clock); "
	  "sample: perf record of cpu-clock; auto: count where the board can, else sample" },
	{ "max_clock_gap_pct", KVB_T_NUM, "5", NULL, KVB_KEY_NONNEG,
	  "count: instructions against the guest's busy ns allowed to differ by this %, else refused" },
	{ "period_ns", KVB_T_INT, "100003", NULL, KVB_KEY_POSITIVE,
	  "sample period of cpu-clock (-c), ns of the board's clock (>= 10000; instructions on an instruction-clock board)" },
	{ "perf", KVB_T_STR, "perf", NULL, 0, "perf on the target" },
	{ "mmap_pages", KVB_T_INT, NULL, NULL, KVB_KEY_POSITIVE, "perf record's ring buffer per CPU, pages (-m)" },
	{ "max_lost_pct", KVB_T_NUM, "0.1", NULL, KVB_KEY_NONNEG, "samples perf may lose before the profile is refused, %" },
	{ "min_resolved_pct", KVB_T_NUM, "99", NULL, KVB_KEY_NONNEG,
	  "kernel samples that must resolve to a symbol, % (kptr_restrict, kallsyms)" },
	{ "report_timeout_s", KVB_T_INT, "600", NULL, KVB_KEY_POSITIVE, "how long perf report may take on the board" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

struct priv {
	long pid;
	char *data, *out, *errlog;
	char kptr[16]; /* kernel.kptr_restrict at setup, "" when unreadable */
	int count;     /* 1: the board's instruction counter (profile_count.h), 0: perf sampling */
	struct kvb_pcount pc;
};

/* auto and count want the board's counter; it is loaded when the board boots */
static unsigned profile_wants(const cJSON *conf)
{
	return strcmp(kvb_get_str(conf, "method", "auto"), "sample") ? KVB_TARGET_WANT_INSN_COUNTER : 0;
}

/* method count/auto: does the board count? (sets p->count) */
static int choose_method(struct kvb_instr_ctx *c, struct priv *p, struct kvb_error *err)
{
	static int said;
	const char *m = kvb_get_str(c->conf, "method", "auto");
	struct kvb_insn_count n;
	struct kvb_error e;
	if (!strcmp(m, "sample"))
		return KVB_OK;
	if (strcmp(m, "auto") && strcmp(m, "count"))
		return kvb_error_set(err, KVB_EINPUT, "method '%s': expected auto, count or sample", m);
	kvb_error_clear(&e);
	if (!kvb_target_insn_counter(c->target, NULL, &n, &e)) {
		p->count = 1;
		return KVB_OK;
	}
	if (!strcmp(m, "count"))
		return kvb_error_set(err, KVB_ETARGET, "method count: %s", e.msg);
	if (!said++)
		kvb_info("profile '%s': sampling with perf (interrupts-off code is charged where interrupts come back on): %s",
			 c->name, e.msg);
	return KVB_OK;
}

static int profile_setup(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = kvb_xcalloc(1, sizeof(*p));
	long long period = kvb_get_int(c->conf, "period_ns", 100003);
	char *k = NULL;
	struct kvb_error ignore;
	c->priv = p;
	if (choose_method(c, p, err))
		return err->code;
	if (p->count)
		return KVB_OK;
	if (period < 10000)
		return kvb_error_set(err, KVB_EINPUT,
				     "period_ns %lld: the kernel samples cpu-clock at most every 10000 ns (perf_swevent_start_hrtimer)",
				     period);
	p->data = kvb_xasprintf("%s/%s.perf.data", c->remote_dir, c->name);
	p->out = kvb_xasprintf("%s/%s.record.out", c->remote_dir, c->name);
	p->errlog = kvb_xasprintf("%s/%s.record.err", c->remote_dir, c->name);
	if (!kvb_target_read_rooted(c->target, kvb_instr_sysfs_root(c->plat), "/proc/sys/kernel/kptr_restrict", &k,
				    &ignore) &&
	    k)
		snprintf(p->kptr, sizeof(p->kptr), "%.*s", (int)strcspn(k, "\n"), k);
	free(k);
	return KVB_OK;
}

/* perf record's complaint (first line of its stderr), for messages; arg is the instrument's context. */
static char *record_stderr(void *arg)
{
	struct kvb_instr_ctx *c = arg;
	struct priv *p = c->priv;
	char *text = NULL;
	struct kvb_error ignore;
	if (kvb_target_read_rooted(c->target, "", p->errlog, &text, &ignore) || !text)
		return kvb_xstrdup("");
	for (char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != '\0')) {
		size_t n = strcspn(l, "\n");
		/* perf's first words are often a blank "Error:" line: quote the first line that says something */
		if (n && strncmp(l, "Error:", n) && strncmp(l, "Warning:", n)) {
			char *s = kvb_xstrndup(l, n);
			free(text);
			return s;
		}
	}
	text[strcspn(text, "\n")] = '\0';
	return text;
}

static int profile_start(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	struct kvb_strv a = KVB_STRV_INIT;
	long long pages = kvb_get_int(c->conf, "mmap_pages", 0);
	int rc;

	if (p->count)
		return kvb_pcount_start(c, &p->pc, err);
	kvb_strv_push(&a, kvb_get_str(c->conf, "perf", "perf"));
	kvb_strv_push(&a, "record");
	kvb_strv_push(&a, "-a");
	kvb_strv_push(&a, "-e");
	kvb_strv_push(&a, "cpu-clock:I");
	kvb_strv_push(&a, "-c");
	kvb_strv_pushf(&a, "%lld", kvb_get_int(c->conf, "period_ns", 100003));
	kvb_strv_push(&a, "-B"); /* no build-ids: report runs on the same board, by path */
	kvb_strv_push(&a, "-N");
	if (pages > 0) {
		kvb_strv_push(&a, "-m");
		kvb_strv_pushf(&a, "%lld", pages);
	}
	kvb_strv_push(&a, "-o");
	kvb_strv_push(&a, p->data);
	kvb_strv_push(&a, "--");
	kvb_strv_push(&a, "sh");
	kvb_strv_push(&a, "-c");
	kvb_strv_push(&a, "echo " READY_MARK "; exec sleep 2147483");
	/* ready when the placeholder command printed its mark; perf gone = failed */
	rc = kvb_target_bg_start_ready(c->target, kvb_strv_argv(&a), p->out, p->errlog, "perf record", READY_MARK,
				       60000, record_stderr, c, &p->pid, err);
	kvb_strv_release(&a);
	return rc;
}

static int profile_stop(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	int killed = 0, rc;
	if (p->count)
		return kvb_pcount_stop(c, &p->pc, err);
	rc = kvb_target_bg_stop(c->target, p->pid, "INT", 120000, &killed, err);
	p->pid = 0;
	if (!rc && killed)
		rc = kvb_error_set(err, KVB_ETARGET, "perf record did not finish its file within 120 s of SIGINT (killed)");
	return rc;
}

/* The report's text kept with the job (artifact kind "profile"). */
static void keep_report(struct kvb_instr_ctx *c, const struct kvb_buf *text)
{
	char *local = kvb_xasprintf("%s/%s.report.txt", c->artifact_dir, c->name);
	FILE *f = fopen(local, "w");
	if (f) {
		fwrite(text->data ? text->data : "", 1, text->len, f);
		if (!fclose(f))
			kvb_metrics_artifact(c->out, "profile", local);
	}
	free(local);
}

static int profile_collect(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	struct kvb_strv a = KVB_STRV_INIT;
	struct kvb_exec_result r;
	struct kvb_profile *prof;
	struct kvb_profile_limits lim;
	char why[512];
	int rc;

	if (p->count) {
		if (c->out->profile)
			return kvb_error_set(err, KVB_EINPUT, "a second profile of the same job (one profile instrument per job)");
		rc = kvb_pcount_collect(c, &p->pc, &prof, err);
		if (!rc)
			c->out->profile = prof;
		return rc;
	}
	kvb_strv_push(&a, kvb_get_str(c->conf, "perf", "perf"));
	kvb_strv_push(&a, "report");
	kvb_strv_push(&a, "-i");
	kvb_strv_push(&a, p->data);
	kvb_strv_push(&a, "--stdio");
	kvb_strv_push(&a, "--no-children");
	kvb_strv_push(&a, "-n");
	kvb_strv_push(&a, "--sort");
	kvb_strv_push(&a, "dso,sym");
	kvb_strv_push(&a, "-t");
	kvb_strv_push(&a, "|");
	kvb_exec_result_init(&r);
	rc = kvb_target_exec(c->target, kvb_strv_argv(&a),
			     (uint64_t)kvb_get_int(c->conf, "report_timeout_s", 600) * 1000, &r, err);
	kvb_strv_release(&a);
	if (!rc && (r.exit_code || r.timed_out)) {
		char *e = r.err.data ? r.err.data : "";
		while (*e == '\n' || !strncmp(e, "Error:\n", 7))
			e += *e == '\n' ? 1 : 7;
		rc = kvb_error_set(err, KVB_ETARGET, "perf report %s: %.*s", r.timed_out ? "timed out" : "failed",
				   (int)strcspn(e, "\n"), e);
	}
	if (!rc) {
		keep_report(c, &r.out);
		prof = kvb_perf_report_parse(r.out.data, why, sizeof(why));
		if (!prof) {
			rc = kvb_error_set(err, KVB_ETARGET, "perf report's output: %s", why);
		} else {
			prof->lost_chunks = kvb_perf_lost_chunks(r.err.data);
			prof->lost_pct = kvb_perf_lost_pct(r.err.data);
			prof->period = (uint64_t)kvb_get_int(c->conf, "period_ns", 100003);
			prof->unit = c->instruction_clock ? "instructions" : "ns";
			lim.max_lost_pct = kvb_get_num(c->conf, "max_lost_pct", 0.1);
			lim.min_resolved_pct = kvb_get_num(c->conf, "min_resolved_pct", 99);
			lim.kptr_restrict = p->kptr;
			lim.name = c->name;
			rc = kvb_profile_judge(prof, &lim, c->instruction_clock, &c->out->witnesses, err);
			if (!rc && c->out->profile)
				rc = kvb_error_set(err, KVB_EINPUT, "a second profile of the same job (one profile instrument per job)");
			if (!rc) {
				c->out->profile = prof;
				prof = NULL;
			}
			kvb_profile_free(prof);
		}
	}
	kvb_exec_result_release(&r);
	return rc;
}

static void profile_teardown(struct kvb_instr_ctx *c)
{
	struct priv *p = c->priv;
	if (!p)
		return;
	if (!p->count)
		kvb_target_bg_kill(c->target, &p->pid);
	kvb_pcount_release(&p->pc);
	free(p->data);
	free(p->out);
	free(p->errlog);
	free(p);
	c->priv = NULL;
}

/* `platform check`: perf on the board, its kallsyms readable, what a sample counts there. */
static void profile_probe(struct kvb_instr_probe *p)
{
	kvb_instr_probe_board_program(p, kvb_get_str(p->conf, "perf", "perf"), "perf");
	if (!p->target)
		return;
	kvb_instr_probe_board_file(p, "/proc/kallsyms");
	if (kvb_instr_board_counts_instructions(p->target))
		kvb_instr_probe_found(p, "the board's clock counts instructions: a sample is period_ns instructions");
	else
		kvb_instr_probe_found(p, "the board's clock is time: samples x period are ns of CPU time, not instructions");
}

const struct kvb_instrument_ops kvb_instrument_profile = {
	.name = "profile",
	.summary = "perf record -a of cpu-clock during the job: samples per function (instructions on an icount board)",
	.conf_keys = keys,
	.setup = profile_setup,
	.start = profile_start,
	.stop = profile_stop,
	.collect = profile_collect,
	.teardown = profile_teardown,
	.probe = profile_probe,
	.caps = KVB_INSTR_INSTRUCTION_CLOCK,
	.wants = profile_wants,
};
