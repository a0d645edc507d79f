/* Fuzzes `kvbench import csv`: kvb_csv_import of the input (as a file) into an in-memory results DB. */
#include "fuzz.h"
#include "store/csvio.h"

static struct kvb_store *g_store;
static unsigned g_imports;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = kvb_fuzz_file("results.csv", data, size);
	struct kvb_error err;
	int64_t run = 0;

	/* a fresh DB now and then keeps memory flat (imports accumulate runs) */
	if (g_store && g_imports >= 100) {
		kvb_store_close(g_store);
		g_store = NULL;
	}
	if (!g_store) {
		if (kvb_store_open(&g_store, ":memory:", 0, &err)) {
			fprintf(stderr, "%s\n", err.msg);
			abort();
		}
		g_imports = 0;
	}
	if (!kvb_csv_import(g_store, path, &run, &err)) {
		g_imports++;
		/* what a user does next: read it back */
		FILE *devnull = fopen("/dev/null", "w");
		if (devnull) {
			kvb_csv_export(g_store, run, devnull, &err);
			fclose(devnull);
		}
	}
	return 0;
}
