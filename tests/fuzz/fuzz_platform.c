/* Fuzzes the platform loader (kvb_platform_load reads a file: the input is written to a temp platform.yaml). */
#include "config/platform.h"
#include "engine/catalog.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = kvb_fuzz_file("platform.yaml", data, size);
	struct kvb_platform p;
	struct kvb_diag d;

	kvb_diag_init(&d, NULL);
	kvb_platform_load(&p, path, &kvb_catalog, &d);
	kvb_platform_release(&p);
	kvb_diag_release(&d);
	return 0;
}
