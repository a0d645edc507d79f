/*
 * Default spec ids (issue 18): a workload entry without `id:` is called by
 * its workload's name ("hackbench", "sched_pipe"), as the user wrote it,
 * not wk1/wk2. Only when entries of the same workload share one expansion
 * (the agenda's workloads plus a section's own) are they numbered in order:
 * hackbench1, hackbench2.
 */
#ifndef KVB_SPECID_H
#define KVB_SPECID_H

#include <cjson/cJSON.h>

struct kvb_catalog;

/*
 * entry: a workload entry (string or mapping) inside its list; global_list:
 * the agenda's `workloads:` array (may be NULL, or a copy of it: entries are
 * compared by workload); section_entry: any entry of the section's own
 * `workloads:` when the spec is expanded in a section that has some, else
 * NULL; cat: the known workloads (config/catalog.h). Owned string; NULL when
 * entry names no workload of cat.
 */
char *kvb_spec_default_id(const struct kvb_catalog *cat, const cJSON *entry, const cJSON *global_list,
			  const cJSON *section_entry);

/* " (did you mean 'hackbench'?)" for a name one or two typos off a workload of cat, else NULL. Owned. */
char *kvb_suggest_workload(const struct kvb_catalog *cat, const char *name);

#endif
