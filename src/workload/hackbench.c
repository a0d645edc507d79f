/*
 * Implements the hackbench workload (rt-tests hackbench): groups of senders
 * and receivers passing messages over sockets or pipes; metric `time` (s).
 * Output format: "Running in process mode with 4 groups using 40 file
 * descriptors each (== 160 tasks)" ... "Time: 0.353" (notes/formats.md).
 */
#include "workload/outparse.h"
#include "workload/workload.h"

#include <stdlib.h>
#include <string.h>

static const struct kvb_keydef hackbench_params[] = {
	{ "groups", KVB_T_INT, "10", NULL, KVB_KEY_CLASSIFIER | KVB_KEY_POSITIVE, "number of groups (-g)" },
	{ "fds", KVB_T_INT, "20", NULL, KVB_KEY_CLASSIFIER | KVB_KEY_POSITIVE, "file descriptors (senders/receivers) per group (-f)" },
	{ "loops", KVB_T_INT, "100", NULL, KVB_KEY_CLASSIFIER | KVB_KEY_POSITIVE, "messages each sender passes (-l)" },
	{ "datasize", KVB_T_INT, "100", NULL, KVB_KEY_CLASSIFIER | KVB_KEY_POSITIVE, "message size in bytes (-s)" },
	{ "mode", KVB_T_STR, "process", "process|thread", KVB_KEY_CLASSIFIER, "tasks are processes (-P) or threads (-T)" },
	{ "ipc", KVB_T_STR, "socket", "socket|pipe", KVB_KEY_CLASSIFIER, "socketpairs or pipes (-p)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

int kvb_parse_hackbench(const char *out, struct kvb_metrics *m, struct kvb_error *err)
{
	double t;
	int rc;
	if (!strstr(out, "Running in "))
		return kvb_error_set(err, KVB_EINPUT, "not hackbench output (no 'Running in ... mode' line)");
	rc = kvb_find_number_once(out, "Time:", "", &t);
	if (rc > 0)
		return kvb_error_set(err, KVB_EINPUT, "the output holds %d runs ('Time:' lines); one run per job expected", rc);
	if (rc)
		return kvb_error_set(err, KVB_EINPUT, "no 'Time: SECONDS' line (truncated output?)");
	if (t < 0)
		return kvb_error_set(err, KVB_EINPUT, "negative time %g", t);
	kvb_metrics_add(m, "time", t, "s", 1);
	return KVB_OK;
}

static int hackbench_run(struct kvb_job_ctx *ctx, struct kvb_error *err)
{
	const struct kvb_workload_ops *ops = ctx->ops;
	struct kvb_strv a = KVB_STRV_INIT;
	char *mode = kvb_param_str(ops, ctx->params, "mode"), *ipc = kvb_param_str(ops, ctx->params, "ipc");
	int rc;

	/* Short options only: rt-tests' hackbench checks a value as argv[optind], where its optind
	 * is getopt_long's long-option index (rt-tests 0.84 src/hackbench/hackbench.c), so whether a
	 * long option passes depends on the others: rt-tests 2.4 (Debian 12) refuses
	 * `--datasize=100 --process --pipe` and `... --threads --pipe` with "--datasize|-s requires
	 * an integer > 0", and every `ipc: pipe` job failed (docs/field-files.md). Short options
	 * leave that index at 0; every hackbench since 0.84 takes these. */
	kvb_strv_push(&a, "hackbench");
	kvb_strv_push(&a, "-g");
	kvb_strv_pushf(&a, "%lld", kvb_param_int(ops, ctx->params, "groups"));
	kvb_strv_push(&a, "-f");
	kvb_strv_pushf(&a, "%lld", kvb_param_int(ops, ctx->params, "fds"));
	kvb_strv_push(&a, "-l");
	kvb_strv_pushf(&a, "%lld", kvb_param_int(ops, ctx->params, "loops"));
	kvb_strv_push(&a, "-s");
	kvb_strv_pushf(&a, "%lld", kvb_param_int(ops, ctx->params, "datasize"));
	kvb_strv_push(&a, !strcmp(mode, "thread") ? "-T" : "-P");
	if (!strcmp(ipc, "pipe"))
		kvb_strv_push(&a, "-p");
	rc = kvb_workload_run_cmd(ctx, "hackbench", kvb_strv_argv(&a), kvb_parse_hackbench, err);
	kvb_strv_release(&a);
	free(mode);
	free(ipc);
	return rc;
}

static const char *const hackbench_needs[] = { "hackbench", NULL };

/* What it stores (docs/design.md#metrics: metric names are an interface); checked after every job. */
static const struct kvb_metric_decl hackbench_metrics[] = {
	{ "time", "s", 1, "wall time of all groups' messages, as hackbench prints it", .resolution = 0.001 },
	{ NULL, NULL, 0, NULL, 0, NULL },
};

/* WA3's hackbench (wa/workloads/hackbench/__init__.py) runs `hackbench -s -g -l` only, though it declares fds. */
static const struct kvb_wa3_param hackbench_wa3[] = {
	{ "fds", KVB_WA3_WARN_IF_WA3, NULL,
	  "kvbench passes fds to hackbench (-f); WA3's hackbench never did (it runs -s -g -l only), so results differ "
	  "from WA3's: drop fds to run as WA3 did" },
	{ "timeout", KVB_WA3_TO_ENTRY, "timeout_s", NULL },
	{ "duration", KVB_WA3_TO_ENTRY, "timeout_s", NULL },
	{ "extra_params", KVB_WA3_REFUSE_UNLESS_EMPTY, NULL,
	  "WA3 hackbench extra_params cannot be applied by kvbench (use its parameters: groups, fds, loops, datasize, "
	  "mode, ipc)" },
	{ NULL, 0, NULL, NULL },
};

/* rt-tests hackbench: each of a group's fds senders writes loops messages to each of its fds receivers
 * (hackbench.c sender()): groups x fds x fds x loops messages a run */
static double hackbench_ops(const struct kvb_workload_ops *w, const cJSON *params, const char **what)
{
	double fds = (double)kvb_param_int(w, params, "fds");
	*what = "message";
	return (double)kvb_param_int(w, params, "groups") * fds * fds * (double)kvb_param_int(w, params, "loops");
}

const struct kvb_workload_ops kvb_workload_hackbench = {
	.metrics = hackbench_metrics,
	.name = "hackbench",
	.summary = "rt-tests hackbench: message passing between task groups; time (s)",
	.params = hackbench_params,
	.needs = hackbench_needs,
	.default_timeout_s = 600,
	.run = hackbench_run,
	.wa3_params = hackbench_wa3,
	.op_count = hackbench_ops,
};
