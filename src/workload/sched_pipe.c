/*
 * Implements the sched_pipe workload (`perf bench sched pipe`): two tasks
 * ping-pong over a pipe; metrics ops_per_sec, usecs_per_op, total_time.
 * Output: "Total time: 1.491 [sec]", "74.592200 usecs/op", "13406 ops/sec".
 */
#include "workload/outparse.h"
#include "workload/workload.h"

#include <stdlib.h>
#include <string.h>

static const struct kvb_keydef sched_pipe_params[] = {
	{ "loops", KVB_T_INT, "1000000", NULL, KVB_KEY_CLASSIFIER | KVB_KEY_POSITIVE, "pipe operations (-l)" },
	{ "threads", KVB_T_BOOL, "false", NULL, KVB_KEY_CLASSIFIER, "threads instead of processes (-T)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

int kvb_parse_sched_pipe(const char *out, struct kvb_metrics *m, struct kvb_error *err)
{
	double total, usecs, ops;
	int rc;
	rc = kvb_find_number_once(out, "Total time:", "[sec]", &total);
	if (rc > 0)
		return kvb_error_set(err, KVB_EINPUT,
				     "the output holds %d runs ('Total time:' lines; `perf bench sched all`?); one run per job expected",
				     rc);
	if (rc)
		return kvb_error_set(err, KVB_EINPUT, "no 'Total time: N [sec]' line (truncated output?)");
	if (kvb_find_number(out, "", "usecs/op", &usecs))
		return kvb_error_set(err, KVB_EINPUT, "no 'N usecs/op' line");
	if (kvb_find_number(out, "", "ops/sec", &ops))
		return kvb_error_set(err, KVB_EINPUT, "no 'N ops/sec' line");
	if (total < 0 || usecs <= 0 || ops <= 0)
		return kvb_error_set(err, KVB_EINPUT, "implausible values: total %g s, %g usecs/op, %g ops/sec", total, usecs, ops);
	kvb_metrics_add(m, "ops_per_sec", ops, "ops/s", 0);
	kvb_metrics_add(m, "usecs_per_op", usecs, "us", 1);
	kvb_metrics_add(m, "total_time", total, "s", 1);
	return KVB_OK;
}

static int sched_pipe_run(struct kvb_job_ctx *ctx, struct kvb_error *err)
{
	struct kvb_strv a = KVB_STRV_INIT;
	int rc;
	kvb_strv_push(&a, "perf");
	kvb_strv_push(&a, "bench");
	kvb_strv_push(&a, "sched");
	kvb_strv_push(&a, "pipe");
	kvb_strv_pushf(&a, "--loop=%lld", kvb_param_int(ctx->ops, ctx->params, "loops"));
	if (kvb_get_bool(ctx->params, "threads", 0))
		kvb_strv_push(&a, "--threaded");
	rc = kvb_workload_run_cmd(ctx, "sched_pipe", kvb_strv_argv(&a), kvb_parse_sched_pipe, err);
	kvb_strv_release(&a);
	return rc;
}

/* perf bench sched pipe's usecs/op is the run's time over --loop (bench/sched-pipe.c): one op is one loop,
 * a round trip of a token through the two pipes */
static double sched_pipe_ops(const struct kvb_workload_ops *w, const cJSON *params, const char **what)
{
	*what = "loop";
	return (double)kvb_param_int(w, params, "loops");
}

static const char *const sched_pipe_needs[] = { "perf", NULL };

/* What it stores (docs/design.md#metrics: metric names are an interface); checked after every job. */
static const struct kvb_metric_decl pipe_metrics[] = {
	{ "ops_per_sec", "ops/s", 0, "pipe round trips per second", 0, NULL },
	{ "usecs_per_op", "us", 1, "time per round trip", 0, NULL },
	{ "total_time", "s", 1, "Total time of all round trips", .resolution = 0.001, .finer = "usecs_per_op" },
	{ NULL, NULL, 0, NULL, 0, NULL },
};

const struct kvb_workload_ops kvb_workload_sched_pipe = {
	.metrics = pipe_metrics,
	.name = "sched_pipe",
	.summary = "perf bench sched pipe: pipe ping-pong; ops_per_sec, usecs_per_op, total_time",
	.params = sched_pipe_params,
	.needs = sched_pipe_needs,
	.default_timeout_s = 600,
	.run = sched_pipe_run,
	.op_count = sched_pipe_ops,
};
