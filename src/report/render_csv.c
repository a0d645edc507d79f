/* Implements the "csv" format: one table, RFC 4180, raw full-precision cells (box.c). */
#include "report/format.h"

static int render(const struct kvb_out *d, FILE *out, struct kvb_error *err)
{
	const struct kvb_box *t = NULL;
	size_t n = 0;
	for (size_t i = 0; i < d->nsec; i++)
		if (d->sec[i].table) {
			t = d->sec[i].table;
			n++;
		}
	if (n != 1)
		return kvb_error_set(err, KVB_EUSAGE, "--format csv holds exactly one table; this output has %zu (use json or html)",
				     n);
	kvb_box_print_csv(t, out);
	return KVB_OK;
}

const struct kvb_format kvb_format_csv = { "csv", "one table as CSV, numbers at full precision", render };
