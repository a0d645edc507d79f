/* Implements the "csv" format: one table, RFC 4180, raw full-precision cells (box.c). */
#include "report/format.h"

static int render(const struct kvb_out *d, FILE *out, struct kvb_error *err)
{
	const struct kvb_box *t = kvb_out_one_table(d, "csv", err);
	if (!t)
		return KVB_EUSAGE;
	kvb_box_print_csv(t, out);
	return KVB_OK;
}

const struct kvb_format kvb_format_csv = { "csv", "one table as CSV, numbers at full precision", render,
					   KVB_FMT_ONE_TABLE, kvb_box_print_csv };
