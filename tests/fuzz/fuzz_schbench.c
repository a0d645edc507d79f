/* Fuzzes kvb_parse_schbench, the parser of schbench's stderr report (src/workload/schbench.c). */
#include "fuzz.h"
#include "workload/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *out = kvb_fuzz_str(data, size);
	struct kvb_metrics m;
	struct kvb_error err;

	kvb_metrics_init(&m);
	kvb_parse_schbench(out, &m, &err);
	kvb_metrics_release(&m);
	free(out);
	return 0;
}
