/*
 * Profiles through the store and `kvbench profile`'s table (store/profile.c, report/profile_diff.c):
 * two variants' jobs with a real report's rows, committed in the job's transaction, summed per
 * variant and compared per operation.
 */
#include "core/profile.h"
#include "core/util.h"
#include "report/profile_diff.h"
#include "store/profile.h"
#include "store/store.h"

#include "test.h"

#include <stdlib.h>
#include <unistd.h>

static const char report_a[] = "# Samples: 4  of event 'cpu-clock:I'\n"
			       "# Overhead|     Samples|Shared Object      |Symbol\n"
			       " 50.00%  | 600        |[kernel.kallsyms]  |[k] pipe_read\n"
			       " 50.00%  | 400        |[kernel.kallsyms]  |[k] _raw_spin_unlock_irqrestore\n";
static const char report_b[] = "# Samples: 4  of event 'cpu-clock:I'\n"
			       "# Overhead|     Samples|Shared Object      |Symbol\n"
			       " 50.00%  | 600        |[kernel.kallsyms]  |[k] pipe_read\n"
			       " 40.00%  | 500        |[kernel.kallsyms]  |[k] _raw_spin_unlock_irqrestore\n"
			       " 10.00%  | 100        |[kernel.kallsyms]  |[k] uclamp_rq_inc_id\n";

static int commit(struct kvb_store *st, int64_t run, int64_t job, const char *text, uint64_t period)
{
	char why[256];
	struct kvb_metrics m;
	struct kvb_error err;
	struct kvb_job_outcome o = { .status = "ok", .attempts = 1, .start_ns = 1, .end_ns = 2 };
	int rc;
	kvb_metrics_init(&m);
	m.profile = kvb_perf_report_parse(text, why, sizeof(why));
	if (!m.profile)
		return -1;
	m.profile->period = period;
	m.profile->unit = "instructions";
	m.profile->ops = 1000;
	m.profile->op_name = kvb_xstrdup("loop");
	rc = kvb_store_job_commit(st, run, job, &o, &m, NULL, &err);
	kvb_metrics_release(&m);
	return rc;
}

static void test_profile_store__two_variants_per_operation(void)
{
	char path[] = "/tmp/kvb-test-profile-XXXXXX";
	int fd = mkstemp(path);
	struct kvb_store *st = NULL;
	struct kvb_error err;
	int64_t run = 0, va = 0, vb = 0;
	struct kvb_run_info ri = { .platform = "qemu-x86_64-icount", .rounds = 1, .status = "running" };
	struct kvb_variant_row a = { .name = "base", .position = 0 }, b = { .name = "uclamp", .position = 1 };
	struct kvb_job_row jr[2] = {
		{ .seq = 1, .round = 1, .iteration = 1, .spec_id = "p", .workload = "sched_pipe", .label = "p",
		  .params_json = "{}", .runtime_json = "{}" },
		{ .seq = 2, .round = 1, .iteration = 1, .spec_id = "p", .workload = "sched_pipe", .label = "p",
		  .params_json = "{}", .runtime_json = "{}" },
	};
	struct kvb_profile *sum = NULL;
	struct kvb_profile_diff_opts o = { 0 };
	size_t jobs = 0;
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	close(fd);
	unlink(path);
	if (kvb_store_open(&st, path, KVB_STORE_RW, &err)) {
		CHECK(0);
		return;
	}
	kvb_store_run_begin(st, &ri, &run, &err);
	kvb_store_variant_add(st, run, &a, &va, &err);
	kvb_store_variant_add(st, run, &b, &vb, &err);
	jr[0].variant_id = va;
	jr[1].variant_id = vb;
	CHECK(kvb_store_plan_add(st, run, jr, 2, &err) == KVB_OK);
	CHECK(commit(st, run, jr[0].id, report_a, 10000) == KVB_OK);
	CHECK(commit(st, run, jr[1].id, report_b, 10000) == KVB_OK);
	/* stored and summed: 1000 samples x 10000 instructions over 1000 loops */
	CHECK(kvb_store_profile_sum(st, run, "uclamp", "p", &sum, &jobs, &err) == KVB_OK);
	CHECK(sum && jobs == 1 && sum->samples == 1200 && sum->ops == 1000 && sum->period == 10000 && sum->n == 3);
	CHECK(sum && !strcmp(sum->unit, "instructions") && sum->op_name && !strcmp(sum->op_name, "loop"));
	kvb_profile_free(sum);
	/* the table: uclamp_rq_inc_id +1000 instructions/loop, the unlock +1000, pipe_read unchanged */
	out = open_memstream(&text, &len);
	o.run_id = run;
	CHECK(kvb_profile_diff_print(st, &o, out, &err) == KVB_OK);
	fclose(out);
	CHECK_CONTAINS(text, "sched_pipe (spec p): instructions per loop, cpu-clock:I every 10000 ns");
	CHECK_CONTAINS(text, "A = base: 1 job, 1000 loops, 1000 samples");
	CHECK(text && strstr(text, "uclamp_rq_inc_id") && strstr(strstr(text, "uclamp_rq_inc_id"), "+1000.0"));
	CHECK(text && strstr(text, "(all functions)") && strstr(strstr(text, "(all functions)"), "+2000.0"));
	/* uclamp_rq_inc_id: 100 samples -> sigma = 10 x 10 = 100 instructions/loop: +1000 is beyond 2 sigma */
	CHECK(text && strstr(text, "uclamp_rq_inc_id") && strstr(strstr(text, "uclamp_rq_inc_id"), "200.0 *"));
	free(text);
	/* a variant without a profile */
	o.a = "base";
	o.b = "nope";
	CHECK(kvb_profile_diff_print(st, &o, stdout, &err) == KVB_ENOTFOUND);
	kvb_store_close(st);
	unlink(path);
}

#define TESTS T(test_profile_store__two_variants_per_operation)
#include "test_main.h"
