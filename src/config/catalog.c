/* Implements lookups in the backend catalog a caller hands config/ (catalog.h). */
#include "config/catalog.h"
#include "core/buf.h"

#include <string.h>

int kvb_catalog_find_workload(const struct kvb_catalog *c, const char *name, struct kvb_catalog_workload *out)
{
	for (size_t i = 0; name && !c->workload(i, out); i++)
		if (!strcmp(out->name, name))
			return 0;
	return -1;
}

static int find_backend(int (*at)(size_t, struct kvb_catalog_backend *), const char *name,
			struct kvb_catalog_backend *out)
{
	for (size_t i = 0; name && !at(i, out); i++)
		if (!strcmp(out->name, name))
			return 0;
	return -1;
}

int kvb_catalog_find_target(const struct kvb_catalog *c, const char *name, struct kvb_catalog_backend *out)
{
	return find_backend(c->target, name, out);
}

int kvb_catalog_find_flasher(const struct kvb_catalog *c, const char *name, struct kvb_catalog_backend *out)
{
	return find_backend(c->flasher, name, out);
}

int kvb_catalog_find_instrument(const struct kvb_catalog *c, const char *name, struct kvb_catalog_backend *out)
{
	return c && c->instrument ? find_backend(c->instrument, name, out) : -1;
}

char *kvb_catalog_names(const struct kvb_catalog *c, char kind, const char *sep)
{
	struct kvb_buf b = KVB_BUF_INIT;
	struct kvb_catalog_workload w;
	struct kvb_catalog_backend be;
	for (size_t i = 0;; i++) {
		const char *name;
		if (kind == 'w')
			name = c->workload(i, &w) ? NULL : w.name;
		else
			name = (kind == 't' ? c->target : c->flasher)(i, &be) ? NULL : be.name;
		if (!name)
			break;
		kvb_buf_addf(&b, "%s%s", i ? sep : "", name);
	}
	kvb_buf_addf(&b, "%s", "");
	return b.data;
}
