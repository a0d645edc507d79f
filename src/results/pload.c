/*
 * The rt-app pLoad check of `diff`: rt-app's `run` is a number of busy loops
 * of pLoad ns each (rt-app doc/tutorial.txt, "calibration"), so two variants
 * that ran with different pLoad did different work per activation. The
 * value is the job classifier pload_ns (rt_app_calib.c); this warns when the
 * compared runs hold more than one.
 */
#include "results/pload.h"
#include "store/rows.h"
#include "core/buf.h"
#include "core/log.h"

int kvb_report_pload_warn(struct kvb_store *s, const int64_t *runs, size_t nruns)
{
	struct kvb_buf sql = KVB_BUF_INIT, seen = KVB_BUF_INIT;
	struct kvb_rows *st = NULL;
	int values = 0;
	char last[64] = "";
	kvb_buf_adds(&sql, "SELECT c.value, group_concat(DISTINCT v.name) FROM classifier c JOIN job j ON j.id = c.job_id"
			   " JOIN variant v ON v.id = j.variant_id WHERE c.key = 'pload_ns' AND c.metric_id IS NULL AND j.run_id IN (");
	if (!nruns)
		kvb_buf_adds(&sql, "SELECT max(id) FROM run");
	for (size_t i = 0; i < nruns; i++)
		kvb_buf_addf(&sql, "%s%lld", i ? "," : "", (long long)runs[i]);
	kvb_buf_adds(&sql, ") GROUP BY c.value ORDER BY c.value");
	if (kvb_rows_open(s, sql.data, &st, NULL, NULL) == KVB_OK) {
		while (kvb_rows_next(st, NULL) == 1) {
			const char *v = (const char *)kvb_rows_text(st, 0), *who = (const char *)kvb_rows_text(st, 1);
			kvb_buf_addf(&seen, "%s%s ns (%s)", seen.len ? ", " : "", v ? v : "?", who ? who : "?");
			snprintf(last, sizeof(last), "%s", v ? v : "");
			values++;
		}
	}
	kvb_rows_close(st);
	if (values > 1)
		kvb_warn("rt-app ran with different pLoad: %s; a `run` of N us was different work per variant, so their "
			 "rt-app metrics do not compare (give `calibration: NS` or compare runs calibrated alike)",
			 seen.data);
	kvb_buf_release(&sql);
	kvb_buf_release(&seen);
	return values > 1;
}
