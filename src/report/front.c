/* Implements the front page of diff's tables for people: the workloads' own metrics and energy. */
#include "report/front.h"
#include "instrument/instrument.h"
#include "workload/workload.h"

#include <stdio.h>
#include <string.h>

/* 1 when an instrument stores metric (an energy meter's power_mean too). */
static int instrument_metric(const char *metric)
{
	for (const struct kvb_metric_decl *d = kvb_energy_metric_decls; d->name; d++)
		if (!strcmp(d->name, metric))
			return 1;
	for (size_t i = 0; kvb_instruments[i]; i++)
		for (const struct kvb_metric_decl *d = kvb_instruments[i]->metrics; d && d->name; d++)
			if (!strcmp(d->name, metric))
				return 1;
	return 0;
}

static int on_front(const struct kvb_group *g)
{
	const struct kvb_workload_ops *w = kvb_workload_find(g->workload);
	if (g->units && !strcmp(g->units, "J"))
		return 1;
	return (w && kvb_workload_metric(w, g->metric)) || !instrument_metric(g->metric);
}

size_t kvb_front_page(struct kvb_report *r, char *left, size_t n)
{
	size_t kept = 0, dropped = 0, len = 0;
	if (n)
		left[0] = '\0';
	for (size_t i = 0; i < r->ngroups; i++)
		kept += on_front(&r->groups[i]);
	if (!kept || kept == r->ngroups)
		return 0;
	kept = 0;
	for (size_t i = 0; i < r->ngroups; i++) {
		struct kvb_group *g = &r->groups[i];
		if (on_front(g)) {
			if (kept != i)
				r->groups[kept] = *g;
			kept++;
			continue;
		}
		/* each metric named once, in load order */
		if (len < n && !strstr(left, g->metric)) {
			int k = snprintf(left + len, n - len, "%s%s", len ? ", " : "", g->metric);
			len += k > 0 ? (size_t)k : 0;
		}
		kvb_group_release(g, r->variants.n);
		dropped++;
	}
	r->ngroups = kept;
	return dropped;
}
