/* Implements the agenda's per-metric verdict margins: validation and look-up. */
#include "config/margins.h"
#include "config/doc.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>

void kvb_margins_check(const cJSON *margins, const char *path, struct kvb_diag *d)
{
	if (!margins)
		return;
	if (!cJSON_IsObject(margins)) {
		kvb_diag_at(d, path, "expected a map of METRIC or WORKLOAD/METRIC (or default) to a margin in %%");
		return;
	}
	for (const cJSON *kv = margins->child; kv; kv = kv->next) {
		char *p = kvb_path_key(path, kv->string);
		if (!cJSON_IsNumber(kv) || !(kv->valuedouble > 0 && kv->valuedouble < 100))
			kvb_diag_at(d, p, "margin must be a number of percent between 0 and 100 (exclusive)");
		free(p);
	}
}

double kvb_margin_from_agenda(const cJSON *agenda, const char *workload, const char *metric)
{
	/* config: then global: as WA3 reads them in turn: the maps merge, global's key wins */
	const cJSON *m[2] = {
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(agenda, "global"), "margins"),
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(agenda, "config"), "margins"),
	};
	const cJSON *v = NULL;
	char key[512];
	const char *keys[3] = { key, metric, "default" };
	snprintf(key, sizeof(key), "%s/%s", workload, metric);
	for (int k = 0; k < 3 && !v; k++)
		for (int b = 0; b < 2 && !v; b++)
			if (cJSON_IsObject(m[b]) && !cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(m[b], keys[k])))
				v = NULL;
	if (!v)
		return 0;
	return v->valuedouble > 0 && v->valuedouble < 100 ? v->valuedouble / 100 : 0;
}
