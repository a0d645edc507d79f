/*
 * Implements the schbench workload (Chris Mason's scheduler wakeup-latency benchmark,
 * git.kernel.org/pub/scm/linux/kernel/git/mason/schbench): message threads hand requests to
 * worker threads; it reports wakeup and request latency percentiles (usec) and requests per
 * second. The report goes to stderr (schbench.c show_latencies()); with -i shorter than -r an
 * interim report is printed every interval (followed by "current rps:"), and the final one is
 * followed by "average rps:". Format as in tests/fixtures/field/schbench (captured from
 * schbench 24e32b8 on the QEMU board):
 *
 *   Wakeup Latencies percentiles (usec) runtime 5 (s) (108 total samples)
 *   	  50.0th: 73         (31 samples)
 *   	* 99.0th: 19936      (9 samples)
 *   	  min=12, max=23770
 *   Request Latencies percentiles (usec) ...
 *   RPS percentiles (requests) runtime 5 (s) (6 total samples)
 *   	  20.0th: 15         (2 samples)
 *   average rps: 21.60
 *
 * Only the final report is stored. A report of schbench before 2023 (no "average rps:"; one
 * "Latency percentiles (usec)" table of wakeup latencies) gives the wakeup metrics and a note
 * naming the absent ones (parse_before_2023). schbench exits 1 when a worker thread is gone before it
 * reads /proc/PID/schedstat for its last "sched delay" line; the report before it is whole, so
 * that exit is accepted with a note (kvb_schbench_exit_ok), any other is the job's failure.
 */
#include "core/util.h"
#include "workload/workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct kvb_keydef schbench_params[] = {
	{ "message_threads", KVB_T_INT, "1", NULL, KVB_KEY_CLASSIFIER | KVB_KEY_POSITIVE, "message threads (-m)" },
	{ "threads", KVB_T_INT, "2", NULL, KVB_KEY_CLASSIFIER | KVB_KEY_POSITIVE, "worker threads per message thread (-t)" },
	{ "runtime", KVB_T_INT, "10", NULL, KVB_KEY_CLASSIFIER | KVB_KEY_POSITIVE, "seconds measured (-r)" },
	{ "warmuptime", KVB_T_INT, "0", NULL, KVB_KEY_CLASSIFIER, "seconds run before measuring (-w)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

/* The percentiles one table must hold, by table. */
static const double lat_pcts[] = { 50, 90, 99, 99.9 };
static const double rps_pcts[] = { 20, 50, 90 };

/* The last line starting with title (after the line start) before end, or NULL. */
static const char *last_title(const char *out, const char *end, const char *title)
{
	const char *found = NULL;
	size_t n = strlen(title);
	for (const char *p = out; p && p < end; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, title, n))
			found = p;
	return found;
}

/*
 * Reads the table at t (its title line, then "  PCTth: VALUE (N samples)" lines, then
 * "min=A, max=B"): the value of each wanted percentile into v, and max. KVB_EINPUT naming what
 * is missing.
 */
static int read_table(const char *t, const char *what, const double *want, size_t nwant, double *v, double *max,
		      struct kvb_error *err)
{
	/* schbench of 2016-2021 printed its title without "(N total samples)": nothing to check there */
	int counted = 0;
	unsigned long long total = 0;
	const char *line = strchr(t, '\n');
	const char *paren = strstr(t, "total samples)");
	const char *eol = strchr(t, '\n');
	if (paren && (!eol || paren < eol)) {
		const char *open = paren;
		while (open > t && open[-1] != '(')
			open--;
		total = strtoull(open, NULL, 10);
		counted = 1;
	}
	if (counted && !total)
		return kvb_error_set(err, KVB_EINPUT, "%s: no samples (a run too short, or nothing woke up)", what);
	for (size_t i = 0; i < nwant; i++)
		v[i] = NAN;
	*max = NAN;
	while (line && line[1]) {
		const char *s = line + 1;
		double pct, val, mn, mx;
		line = strchr(s, '\n');
		while (*s == ' ' || *s == '\t' || *s == '*')
			s++;
		if (sscanf(s, "min=%lf, max=%lf", &mn, &mx) == 2) {
			*max = mx;
			break;
		}
		if (sscanf(s, "%lfth: %lf", &pct, &val) != 2)
			break;
		for (size_t i = 0; i < nwant; i++)
			if (fabs(pct - want[i]) < 1e-9 && isfinite(val) && val >= 0)
				v[i] = val;
	}
	for (size_t i = 0; i < nwant; i++)
		if (isnan(v[i]))
			return kvb_error_set(err, KVB_EINPUT, "%s: no %gth percentile line", what, want[i]);
	if (isnan(*max))
		return kvb_error_set(err, KVB_EINPUT, "%s: no 'min=..., max=...' line (truncated output?)", what);
	return KVB_OK;
}

static void add_lat(struct kvb_metrics *m, const char *prefix, const double *v, double max)
{
	static const char *const sfx[] = { "p50", "p90", "p99", "p999" };
	for (size_t i = 0; i < 4; i++) {
		char name[32];
		snprintf(name, sizeof(name), "%s_%s", prefix, sfx[i]);
		kvb_metrics_add(m, name, v[i], "us", 1);
	}
	{
		char name[32];
		snprintf(name, sizeof(name), "%s_max", prefix);
		kvb_metrics_add(m, name, max, "us", 1);
	}
}

/*
 * schbench before its April 2023 rewrite (e791e41..6809f4a) measured wakeup latency only and
 * printed one table, "Latency percentiles (usec)" (tests/fixtures/field/schbench/lkml-*: the
 * LKML posts of 2020-2021): percentiles 50, 75, 90, 95, *99, 99.5, 99.9 ("50.0000th" before
 * 2019), then "min=A, max=B". Its last table gives wakeup_p50 .. wakeup_max; the request and
 * RPS metrics do not exist in it, and a note says so. No such table: KVB_EINPUT.
 */
static int parse_before_2023(const char *out, struct kvb_metrics *m, struct kvb_error *err)
{
	const char *t = last_title(out, out + strlen(out), "Latency percentiles");
	double wv[4] = { 0 }, wmax;
	int rc;
	if (!t)
		return kvb_error_set(err, KVB_EINPUT, "neither a final 'average rps:' line (schbench since 2023) nor a "
						      "'Latency percentiles' table (older schbench): not schbench's "
						      "report, or cut short");
	if ((rc = read_table(t, "wakeup latencies (schbench before 2023)", lat_pcts, 4, wv, &wmax, err)))
		return rc;
	add_lat(m, "wakeup", wv, wmax);
	kvb_metrics_note(m, "schbench's report is in its format before 2023 (one 'Latency percentiles' table): "
			    "wakeup_p50, wakeup_p90, wakeup_p99, wakeup_p999 and wakeup_max are stored; request_*, "
			    "rps_* and average_rps are absent (that schbench does not measure them)");
	return KVB_OK;
}

int kvb_parse_schbench(const char *out, struct kvb_metrics *m, struct kvb_error *err)
{
	const char *fin = last_title(out, out + strlen(out), "average rps:");
	const char *wk, *rq, *rp;
	double wv[4] = { 0 }, rv[4] = { 0 }, pv[3] = { 0 }, wmax, rmax, pmax, avg; /* read_table fills them (zeros: gcc -O3 cannot see it) */
	int rc;
	if (!fin)
		return parse_before_2023(out, m, err);
	wk = last_title(out, fin, "Wakeup Latencies percentiles");
	rq = last_title(out, fin, "Request Latencies percentiles");
	rp = last_title(out, fin, "RPS percentiles");
	if (!wk || !rq || !rp)
		return kvb_error_set(err, KVB_EINPUT, "the final report lacks its %s table",
				     !wk ? "'Wakeup Latencies percentiles'" : !rq ? "'Request Latencies percentiles'"
									: "'RPS percentiles'");
	if ((rc = read_table(wk, "wakeup latencies", lat_pcts, 4, wv, &wmax, err)) ||
	    (rc = read_table(rq, "request latencies", lat_pcts, 4, rv, &rmax, err)) ||
	    (rc = read_table(rp, "RPS", rps_pcts, 3, pv, &pmax, err)))
		return rc;
	if (sscanf(fin, "average rps: %lf", &avg) != 1 || !isfinite(avg) || avg < 0)
		return kvb_error_set(err, KVB_EINPUT, "'average rps:' without a number");
	add_lat(m, "wakeup", wv, wmax);
	add_lat(m, "request", rv, rmax);
	kvb_metrics_add(m, "rps_p20", pv[0], "req/s", 0);
	kvb_metrics_add(m, "rps_p50", pv[1], "req/s", 0);
	kvb_metrics_add(m, "rps_p90", pv[2], "req/s", 0);
	kvb_metrics_add(m, "average_rps", avg, "req/s", 0);
	return KVB_OK;
}

int kvb_schbench_exit_ok(int exit_code, const char *out, const char *errout, struct kvb_metrics *m)
{
	const char *fail = strstr(errout, "Failed to parse /proc/");
	const char *fin = strstr(out, "average rps:");
	if (exit_code != 1 || !fail || !strstr(fail, "/schedstat") || !fin)
		return 0;
	{
		const char *eol = strchr(fail, '\n');
		kvb_metrics_note(m, "schbench exited 1 after its final report (%.*s): the report is stored, its "
				    "sched delay line is missing",
				 (int)(eol ? (size_t)(eol - fail) : strlen(fail)), fail);
	}
	return 1;
}

static int schbench_run(struct kvb_job_ctx *ctx, struct kvb_error *err)
{
	const struct kvb_workload_ops *ops = ctx->ops;
	struct kvb_strv a = KVB_STRV_INIT;
	long long runtime = kvb_param_int(ops, ctx->params, "runtime");
	int rc;
	kvb_strv_push(&a, "schbench");
	kvb_strv_push(&a, "-m");
	kvb_strv_pushf(&a, "%lld", kvb_param_int(ops, ctx->params, "message_threads"));
	kvb_strv_push(&a, "-t");
	kvb_strv_pushf(&a, "%lld", kvb_param_int(ops, ctx->params, "threads"));
	kvb_strv_push(&a, "-r");
	kvb_strv_pushf(&a, "%lld", runtime);
	kvb_strv_push(&a, "-w");
	kvb_strv_pushf(&a, "%lld", kvb_param_int(ops, ctx->params, "warmuptime"));
	kvb_strv_push(&a, "-i");
	kvb_strv_pushf(&a, "%lld", runtime + 1); /* one report: the final one */
	{
		const struct kvb_cmd_spec spec = { .name = "schbench", .argv = kvb_strv_argv(&a), .stream = KVB_OUT_STDERR,
						   .parse = kvb_parse_schbench, .exit_ok = kvb_schbench_exit_ok };
		rc = kvb_workload_run_cmd_ex(ctx, &spec, err);
	}
	kvb_strv_release(&a);
	return rc;
}

static const char *const schbench_needs[] = { "schbench", NULL };

/* What it stores (docs/design.md#metrics: metric names are an interface); checked after every job. */
static const struct kvb_metric_decl schbench_metrics[] = {
	{ "wakeup_p50", "us", 1, "median wakeup latency of the worker threads", 0, NULL },
	{ "wakeup_p90", "us", 1, "90th percentile wakeup latency", 0, NULL },
	{ "wakeup_p99", "us", 1, "99th percentile wakeup latency (schbench's starred line)", 0, NULL },
	{ "wakeup_p999", "us", 1, "99.9th percentile wakeup latency", 0, NULL },
	{ "wakeup_max", "us", 1, "largest wakeup latency", 0, NULL },
	{ "request_p50", "us", 1, "median request latency (a request: wakeup plus the worker's work)", 0, NULL },
	{ "request_p90", "us", 1, "90th percentile request latency", 0, NULL },
	{ "request_p99", "us", 1, "99th percentile request latency", 0, NULL },
	{ "request_p999", "us", 1, "99.9th percentile request latency", 0, NULL },
	{ "request_max", "us", 1, "largest request latency", 0, NULL },
	{ "rps_p20", "req/s", 0, "20th percentile of requests per second over the run's seconds", 0, NULL },
	{ "rps_p50", "req/s", 0, "median requests per second", 0, NULL },
	{ "rps_p90", "req/s", 0, "90th percentile requests per second", 0, NULL },
	{ "average_rps", "req/s", 0, "requests per second over the whole run", 0, NULL },
	{ NULL, NULL, 0, NULL, 0, NULL },
};

const struct kvb_workload_ops kvb_workload_schbench = {
	.name = "schbench",
	.summary = "schbench: wakeup and request latency percentiles (us) and requests per second",
	.params = schbench_params,
	.metrics = schbench_metrics,
	.needs = schbench_needs,
	.default_timeout_s = 600,
	.run = schbench_run,
};
