/* Implements default spec ids: the workload name, numbered only when the name repeats. */
#include "config/specid.h"
#include "config/catalog.h"
#include "core/suggest.h"
#include "core/util.h"

#include <string.h>

/* First element of the array holding n (cJSON: the head's prev is the tail, whose next is NULL). */
static const cJSON *list_head(const cJSON *n)
{
	while (n->prev && n->prev->next == n)
		n = n->prev;
	return n;
}

/* The workload name of entry e when cat knows it (the registry's static string), else NULL. */
static const char *entry_workload(const struct kvb_catalog *cat, const cJSON *e)
{
	const cJSON *name = cJSON_IsString(e) ? e : cJSON_GetObjectItemCaseSensitive(e, "name");
	struct kvb_catalog_workload w;
	return cJSON_IsString(name) && !kvb_catalog_find_workload(cat, name->valuestring, &w) ? w.name : NULL;
}

/* Entries of workload wl from head on; *before gets how many come before stop (when stop is in the list). */
static int count_from(const struct kvb_catalog *cat, const cJSON *head, const char *wl, const cJSON *stop, int *before)
{
	int n = 0;
	for (const cJSON *e = head; e; e = e->next) {
		const char *w = entry_workload(cat, e);
		if (e == stop)
			*before = n;
		n += w && !strcmp(w, wl);
	}
	return n;
}

char *kvb_spec_default_id(const struct kvb_catalog *cat, const cJSON *entry, const cJSON *global_list,
			  const cJSON *section_entry)
{
	const char *wl = entry_workload(cat, entry);
	const cJSON *own = list_head(entry), *sec = section_entry ? list_head(section_entry) : NULL;
	int in_section = sec == own, before = 0, nglobal, nsec;
	if (!wl)
		return NULL;
	/* global_list may be a copy of the document: it gives the count, the entry's own list its position */
	nglobal = cJSON_IsArray(global_list) && global_list->child
			  ? count_from(cat, global_list->child, wl, NULL, &before)
			  : 0;
	if (!in_section) {
		int n = count_from(cat, own, wl, entry, &before);
		if (!cJSON_IsArray(global_list))
			nglobal = n;
	}
	nsec = sec ? count_from(cat, sec, wl, in_section ? entry : NULL, &before) : 0;
	if (in_section)
		before += nglobal;
	return nglobal + nsec > 1 ? kvb_xasprintf("%s%d", wl, before + 1) : kvb_xstrdup(wl);
}

char *kvb_suggest_workload(const struct kvb_catalog *cat, const char *name)
{
	const char *cands[64];
	struct kvb_catalog_workload w;
	size_t n = 0;
	char buf[160];
	for (size_t i = 0; n < KVB_ARRAY_SIZE(cands) && !cat->workload(i, &w); i++)
		cands[n++] = w.name;
	kvb_did_you_mean(buf, sizeof(buf), name, cands, n);
	return *buf ? kvb_xstrdup(buf) : NULL;
}
