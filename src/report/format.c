/* Implements the registry of output formats and the lookup every command uses. */
#include "report/format.h"

#include <string.h>

const struct kvb_format *const kvb_formats[] = {
	&kvb_format_table, &kvb_format_markdown, &kvb_format_csv, &kvb_format_json, &kvb_format_html, NULL,
};

const struct kvb_format *kvb_format_find(const char *name, struct kvb_error *err)
{
	char list[128];
	size_t len = 0;
	for (size_t i = 0; kvb_formats[i]; i++) {
		if (name && !strcmp(kvb_formats[i]->name, name))
			return kvb_formats[i];
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "", kvb_formats[i]->name);
	}
	kvb_error_set(err, KVB_EUSAGE, "--format '%s': unknown format (formats: %s)", name ? name : "", list);
	return NULL;
}
