/*
 * Test helper load_text(): loads a platform.yaml given as text (written to a temp file, which
 * is removed again). Returns kvb_platform_load's status; diagnostics in d
 * (initialised here; the caller releases d and p).
 */
#ifndef KVB_TEST_PLATFORM_H
#define KVB_TEST_PLATFORM_H

#include "config/platform.h"
#include "engine/catalog.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline int load_text(struct kvb_platform *p, struct kvb_diag *d, const char *yaml)
{
	char path[] = "/tmp/kvb-platform-XXXXXX.yaml";
	int fd = mkstemps(path, 5), rc;
	if (fd < 0 || write(fd, yaml, strlen(yaml)) < 0)
		abort();
	close(fd);
	kvb_diag_init(d, NULL);
	rc = kvb_platform_load(p, path, &kvb_catalog, d);
	unlink(path);
	return rc;
}

#endif
