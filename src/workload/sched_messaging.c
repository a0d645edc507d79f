/*
 * Implements the sched_messaging workload (`perf bench sched messaging`,
 * perf's hackbench); metric `time` (s). Output: "# 20 sender and receiver
 * processes per group", "Total time: 0.055 [sec]" (millisecond resolution).
 */
#include "workload/outparse.h"
#include "workload/workload.h"

#include <stdlib.h>
#include <string.h>

static const struct kvb_keydef sched_messaging_params[] = {
	{ "groups", KVB_T_INT, "10", NULL, KVB_KEY_CLASSIFIER | KVB_KEY_POSITIVE, "number of groups (-g)" },
	{ "loops", KVB_T_INT, "100", NULL, KVB_KEY_CLASSIFIER | KVB_KEY_POSITIVE, "messages per sender (-l)" },
	{ "ipc", KVB_T_STR, "socket", "socket|pipe", KVB_KEY_CLASSIFIER, "socketpairs or pipes (-p)" },
	{ "mode", KVB_T_STR, "process", "process|thread", KVB_KEY_CLASSIFIER, "processes or threads (-t)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

int kvb_parse_sched_messaging(const char *out, struct kvb_metrics *m, struct kvb_error *err)
{
	double t;
	int rc;
	if (!strstr(out, "sender and receiver"))
		return kvb_error_set(err, KVB_EINPUT, "not perf bench sched messaging output (no 'sender and receiver' line)");
	rc = kvb_find_number_once(out, "Total time:", "[sec]", &t);
	if (rc > 0)
		return kvb_error_set(err, KVB_EINPUT,
				     "the output holds %d runs ('Total time:' lines; `perf bench sched all`?); one run per job expected",
				     rc);
	if (rc)
		return kvb_error_set(err, KVB_EINPUT, "no 'Total time: N [sec]' line (truncated output?)");
	if (t < 0)
		return kvb_error_set(err, KVB_EINPUT, "negative time %g", t);
	kvb_metrics_add(m, "time", t, "s", 1);
	return KVB_OK;
}

static int sched_messaging_run(struct kvb_job_ctx *ctx, struct kvb_error *err)
{
	const struct kvb_workload_ops *ops = ctx->ops;
	struct kvb_strv a = KVB_STRV_INIT;
	char *ipc = kvb_param_str(ops, ctx->params, "ipc"), *mode = kvb_param_str(ops, ctx->params, "mode");
	int rc;
	kvb_strv_push(&a, "perf");
	kvb_strv_push(&a, "bench");
	kvb_strv_push(&a, "sched");
	kvb_strv_push(&a, "messaging");
	kvb_strv_pushf(&a, "--group=%lld", kvb_param_int(ops, ctx->params, "groups"));
	kvb_strv_pushf(&a, "--nr_loops=%lld", kvb_param_int(ops, ctx->params, "loops"));
	if (!strcmp(ipc, "pipe"))
		kvb_strv_push(&a, "--pipe");
	if (!strcmp(mode, "thread"))
		kvb_strv_push(&a, "--thread");
	rc = kvb_workload_run_cmd(ctx, "sched_messaging", kvb_strv_argv(&a), kvb_parse_sched_messaging, err);
	kvb_strv_release(&a);
	free(ipc);
	free(mode);
	return rc;
}

static const char *const sched_messaging_needs[] = { "perf", NULL };

/* What it stores (docs/design.md#metrics: metric names are an interface); checked after every job. */
static const struct kvb_metric_decl messaging_metrics[] = {
	{ "time", "s", 1, "Total time perf bench sched messaging prints", .resolution = 0.001 },
	{ NULL, NULL, 0, NULL, 0, NULL },
};

const struct kvb_workload_ops kvb_workload_sched_messaging = {
	.metrics = messaging_metrics,
	.name = "sched_messaging",
	.summary = "perf bench sched messaging (perf's hackbench); time (s)",
	.params = sched_messaging_params,
	.needs = sched_messaging_needs,
	.default_timeout_s = 600,
	.run = sched_messaging_run,
};
