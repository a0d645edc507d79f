/*
 * Implements the value sets of options that take one of a fixed set (options.h): each lists the
 * names its owner keeps, so a new format, statistic, layout or probe format is one row in its
 * owner's table and every usage, man page, completion and error message follows.
 */
#include "cli/options.h"
#include "instrument/probe.h"
#include "report/diff.h"
#include "report/format.h"
#include "results/cell_stats.h"

void kvb_values_formats(struct kvb_strv *out)
{
	for (size_t i = 0; kvb_formats[i]; i++)
		kvb_strv_push(out, kvb_formats[i]->name);
}

void kvb_values_stats(struct kvb_strv *out)
{
	for (size_t i = 0; kvb_stat_names[i]; i++)
		kvb_strv_push(out, kvb_stat_names[i]);
}

void kvb_values_layouts(struct kvb_strv *out)
{
	for (size_t i = 0; kvb_layout_names[i]; i++)
		kvb_strv_push(out, kvb_layout_names[i]);
}

/* `import energy --format`: the probe formats' registry (probe.h). */
void kvb_values_probe_formats(struct kvb_strv *out)
{
	for (const struct kvb_probe_format *f = kvb_probe_formats; f->name; f++)
		kvb_strv_push(out, f->name);
}
