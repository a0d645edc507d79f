/* Witnesses (docs/design.md#witnesses) are stored with their job, failed or not, and replaced when the job is redone. */
#include "core/witness.h"
#include "store/store.h"
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

static char path[] = "/tmp/kvb-test-witness-XXXXXX";

static char *text(struct kvb_store *st, const char *sql)
{
	sqlite3_stmt *q;
	char *v = NULL;
	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW &&
	    sqlite3_column_text(q, 0))
		v = strdup((const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	return v;
}

static void test_witness__describe_names_what_was_asked_and_found(void)
{
	struct kvb_witnesses w;
	char *d;
	kvb_witnesses_init(&w);
	kvb_witness_add(&w, "knob", "/sys/x/scaling_max_freq", "2800000", "2362000", KVB_WIT_FAILED, NULL);
	kvb_witness_add(&w, "meter", "total", NULL, "2.00 s of 3.00 s", KVB_WIT_REFUSED, "covers %d %% of the job", 67);
	CHECK(w.n == 2);
	d = kvb_witness_describe(&w.v[0]);
	CHECK_STR(d, "knob /sys/x/scaling_max_freq: expected 2800000, found 2362000 (failed)");
	free(d);
	d = kvb_witness_describe(&w.v[1]);
	CHECK_STR(d, "meter total: covers 67 % of the job");
	free(d);
	CHECK(kvb_witnesses_count(&w, KVB_WIT_REFUSED) == 1 && kvb_witnesses_count(&w, KVB_WIT_OK) == 0);
	CHECK_STR(kvb_witness_verdict_name(KVB_WIT_DISTURBED), "disturbed");
	kvb_witnesses_release(&w);
	CHECK(w.n == 0 && w.v == NULL);
}

static void test_witness__stored_with_a_failed_job_and_replaced_on_redo(void)
{
	struct kvb_store *st;
	struct kvb_error err;
	int64_t run, var;
	struct kvb_run_info ri = { .platform = "local", .rounds = 1, .status = "running" };
	struct kvb_variant_row vr = { .name = "base" };
	struct kvb_job_row jr = { .seq = 1, .round = 1, .iteration = 1, .spec_id = "w", .workload = "w", .label = "w",
				  .params_json = "{}", .runtime_json = "{}" };
	struct kvb_witnesses w;
	struct kvb_metrics m;
	char *s;
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	unlink(path);
	if (kvb_store_open(&st, path, KVB_STORE_RW, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		CHECK(0);
		return;
	}
	CHECK(!kvb_store_run_begin(st, &ri, &run, &err));
	CHECK(!kvb_store_variant_add(st, run, &vr, &var, &err));
	jr.variant_id = var;
	CHECK(!kvb_store_plan_add(st, run, &jr, 1, &err));

	/* the job failed because a knob did not take: no metric, the witness that failed it is kept */
	kvb_witnesses_init(&w);
	kvb_witness_add(&w, "knob", "/sys/max_freq", "2800000", "2362000", KVB_WIT_FAILED, NULL);
	kvb_witness_add(&w, "knob", "/proc/sys/kernel/x", "1", "1", KVB_WIT_OK, NULL);
	struct kvb_job_outcome o = { .status = "failed", .error = "max_freq: asked 2800000, kernel has 2362000",
				     .attempts = 1, .start_ns = 1, .end_ns = 2, .witnesses = &w };
	CHECK(!kvb_store_job_commit(st, run, jr.id, &o, NULL, NULL, &err));
	s = text(st, "SELECT group_concat(verdict || ':' || observed, ',') FROM (SELECT * FROM witness ORDER BY id)");
	CHECK_STR(s, "failed:2362000,ok:1");
	free(s);
	/* the view gives the job's variant and round */
	s = text(st, "SELECT variant || '/' || round || '/' || kind FROM witnesses WHERE verdict = 'failed'");
	CHECK_STR(s, "base/1/knob");
	free(s);
	kvb_witnesses_release(&w);

	/* redone (resume): the new attempt's witnesses replace the old ones */
	kvb_metrics_init(&m);
	kvb_metrics_add(&m, "time", 1.5, "s", 1);
	kvb_witness_add(&m.witnesses, "meter", "total", NULL, "100 %", KVB_WIT_OK, NULL);
	o.status = "ok";
	o.error = NULL;
	o.witnesses = &m.witnesses;
	CHECK(!kvb_store_job_commit(st, run, jr.id, &o, &m, NULL, &err));
	s = text(st, "SELECT group_concat(kind || ':' || verdict) FROM witness");
	CHECK_STR(s, "meter:ok");
	free(s);
	kvb_metrics_release(&m);

	/* a round's witness has no job: it names its variant and round */
	kvb_witnesses_init(&w);
	kvb_witness_add(&w, "pload", "rt-app calibration", "264", "301", KVB_WIT_CHANGED, "pLoad moved by %d %%", 14);
	CHECK(!kvb_store_witness_add(st, run, var, 2, &w.v[0], &err));
	s = text(st, "SELECT variant || '/' || round || '/' || detail FROM witnesses WHERE job_id IS NULL");
	CHECK_STR(s, "base/2/pLoad moved by 14 %");
	free(s);
	kvb_witnesses_release(&w);
	kvb_store_close(st);
	unlink(path);
}

#define TESTS                                                                                                          \
	T(test_witness__describe_names_what_was_asked_and_found)                                                       \
	T(test_witness__stored_with_a_failed_job_and_replaced_on_redo)
#include "test_main.h"
