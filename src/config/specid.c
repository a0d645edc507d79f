/* Implements default spec ids: the workload name, numbered only when the name repeats. */
#include "config/specid.h"
#include "core/suggest.h"
#include "core/util.h"
#include "workload/workload.h"

#include <string.h>

/* First element of the array holding n (cJSON: the head's prev is the tail, whose next is NULL). */
static const cJSON *list_head(const cJSON *n)
{
	while (n->prev && n->prev->next == n)
		n = n->prev;
	return n;
}

static const struct kvb_workload_ops *entry_ops(const cJSON *e)
{
	const cJSON *name = cJSON_IsString(e) ? e : cJSON_GetObjectItemCaseSensitive(e, "name");
	return cJSON_IsString(name) ? kvb_workload_find(name->valuestring) : NULL;
}

/* Entries of ops from head on; *before gets how many come before stop (when stop is in the list). */
static int count_from(const cJSON *head, const struct kvb_workload_ops *ops, const cJSON *stop, int *before)
{
	int n = 0;
	for (const cJSON *e = head; e; e = e->next) {
		if (e == stop)
			*before = n;
		n += entry_ops(e) == ops;
	}
	return n;
}

char *kvb_spec_default_id(const cJSON *entry, const cJSON *global_list, const cJSON *section_entry)
{
	const struct kvb_workload_ops *ops = entry_ops(entry);
	const cJSON *own = list_head(entry), *sec = section_entry ? list_head(section_entry) : NULL;
	int in_section = sec == own, before = 0, nglobal, nsec;
	if (!ops)
		return NULL;
	/* global_list may be a copy of the document: it gives the count, the entry's own list its position */
	nglobal = cJSON_IsArray(global_list) && global_list->child ? count_from(global_list->child, ops, NULL, &before)
								   : 0;
	if (!in_section) {
		int n = count_from(own, ops, entry, &before);
		if (!cJSON_IsArray(global_list))
			nglobal = n;
	}
	nsec = sec ? count_from(sec, ops, in_section ? entry : NULL, &before) : 0;
	if (in_section)
		before += nglobal;
	return nglobal + nsec > 1 ? kvb_xasprintf("%s%d", ops->name, before + 1) : kvb_xstrdup(ops->name);
}

char *kvb_suggest_workload(const char *name)
{
	const char *cands[64];
	size_t n = 0;
	char buf[160];
	for (size_t i = 0; kvb_workloads[i] && n < KVB_ARRAY_SIZE(cands); i++)
		cands[n++] = kvb_workloads[i]->name;
	kvb_did_you_mean(buf, sizeof(buf), name, cands, n);
	return *buf ? kvb_xstrdup(buf) : NULL;
}
