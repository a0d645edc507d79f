/* Implements the "table" format: psql-style boxes (box.c), headings and paragraphs as plain lines. */
#include "report/format.h"

static int render(const struct kvb_out *d, FILE *out, struct kvb_error *err)
{
	(void)err;
	if (!d->plain && d->title)
		fprintf(out, "%s\n\n", d->title);
	for (size_t i = 0; i < d->nsec; i++) {
		const struct kvb_out_section *s = &d->sec[i];
		if (!d->plain && s->heading)
			fprintf(out, "%s== %s ==\n", i ? "\n" : "", s->heading);
		if (s->text)
			fprintf(out, "%s\n", s->text);
		if (s->table)
			kvb_box_print(s->table, out);
		if (s->footer)
			fprintf(out, "%s\n", s->footer);
	}
	return KVB_OK;
}

const struct kvb_format kvb_format_table = { "table", "boxed text tables, as pasted into mailing-list posts", render,
					     KVB_FMT_PROSE | KVB_FMT_TERMINAL, kvb_box_print };
