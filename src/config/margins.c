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
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(agenda, "config");
	const cJSON *m, *v;
	char key[512];
	if (!cfg)
		cfg = cJSON_GetObjectItemCaseSensitive(agenda, "global");
	m = cJSON_GetObjectItemCaseSensitive(cfg, "margins");
	if (!cJSON_IsObject(m))
		return 0;
	snprintf(key, sizeof(key), "%s/%s", workload, metric);
	if (!cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(m, key)) &&
	    !cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(m, metric)) &&
	    !cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(m, "default")))
		return 0;
	return v->valuedouble > 0 && v->valuedouble < 100 ? v->valuedouble / 100 : 0;
}
