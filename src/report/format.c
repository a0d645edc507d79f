/* Implements the registry of output formats and the lookup every command uses. */
#include "report/format.h"

#include <stdio.h>
#include <string.h>

const struct kvb_format *const kvb_formats[] = {
	&kvb_format_table, &kvb_format_markdown, &kvb_format_csv, &kvb_format_tsv, &kvb_format_json, &kvb_format_html,
	NULL,
};

const struct kvb_box *kvb_out_one_table(const struct kvb_out *d, const char *format, struct kvb_error *err)
{
	const struct kvb_box *t = NULL;
	size_t n = 0;
	for (size_t i = 0; i < d->nsec; i++)
		if (d->sec[i].table) {
			t = d->sec[i].table;
			n++;
		}
	if (n != 1) {
		kvb_error_set(err, KVB_EUSAGE, "--format %s holds exactly one table; this output has %zu (use json or html)",
			      format, n);
		return NULL;
	}
	return t;
}

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
