/* Fuzzes the Jankbench results reader: the input bytes are an SQLite file opened read-only. */
#include "fuzz.h"
#include "workload/jankbench_db.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = kvb_fuzz_file("BenchmarkResults", data, size);
	char side[4300];
	struct kvb_jank_results res = { 0 };
	struct kvb_error err;
	struct kvb_metrics m;

	kvb_metrics_init(&m);
	if (!kvb_jankbench_db_read(path, size & 1, &res, &err))
		kvb_jankbench_metrics_add(&m, &res);
	kvb_metrics_release(&m);
	kvb_jank_results_release(&res);
	/* a header saying WAL mode makes SQLite look for (and maybe create) these */
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);
	return 0;
}
