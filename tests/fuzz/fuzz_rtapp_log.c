/* Fuzzes the rt-app per-thread log parser and the statistics computed from what it accepts. */
#include "fuzz.h"
#include "workload/rt_app.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kvb_rtapp_log log;
	struct kvb_error err;

	kvb_rtapp_log_init(&log);
	/* not NUL-terminated on purpose: the parser takes (text, len) */
	if (!kvb_rtapp_log_parse(&log, "rt-app-fuzz-0.log", (const char *)data, size, &err)) {
		const struct kvb_rtapp_log *logs[] = { &log };
		struct kvb_rtapp_stats st;
		struct kvb_metrics m;
		kvb_metrics_init(&m);
		if (!kvb_rtapp_stats(logs, 1, &st, &err))
			kvb_rtapp_metrics_add(&m, "fuzz", &st);
		kvb_metrics_release(&m);
	}
	kvb_rtapp_log_release(&log);
	return 0;
}
