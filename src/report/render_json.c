/* Implements the "json" format: the producer's own JSON, else tables as arrays of row objects; every
 * document but query's bare rows opens with "schema_version" (format.h). */
#include "report/format.h"
#include "core/utf8.h"

#include <stdlib.h>
#include <string.h>

/* One table as [{"header": value, ...}, ...]; numbers and nulls from the cells' raw kind. */
static cJSON *rows(const struct kvb_box *b)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t r = 0; r < b->nrows; r++) {
		cJSON *o = cJSON_CreateObject();
		for (size_t c = 0; c < b->ncols; c++) {
			const char *raw = kvb_box_raw_at(b, r, c);
			cJSON *v;
			switch (kvb_box_kind_at(b, r, c)) {
			case KVB_CELL_NUM: v = cJSON_CreateNumber(strtod(raw, NULL)); break;
			case KVB_CELL_NULL: v = cJSON_CreateNull(); break;
			default: v = cJSON_CreateString(raw); break;
			}
			cJSON_AddItemToObject(o, b->head.v[c], v);
		}
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

cJSON *kvb_json_versioned(cJSON *obj)
{
	cJSON *v = cJSON_CreateObject();
	cJSON_AddNumberToObject(v, "schema_version", KVB_JSON_SCHEMA_VERSION);
	while (obj->child) {
		cJSON *item = cJSON_DetachItemViaPointer(obj, obj->child);
		cJSON_AddItemToObject(v, item->string, item);
	}
	cJSON_Delete(obj);
	return v;
}

static int render(const struct kvb_out *d, FILE *out, struct kvb_error *err)
{
	cJSON *root;
	char *s;
	(void)err;
	if (d->json) {
		root = kvb_json_versioned(cJSON_Duplicate(d->json, 1));
	} else if (d->plain && d->nsec == 1 && d->sec[0].table && d->bare_rows) {
		root = rows(d->sec[0].table);
	} else if (d->plain && d->nsec == 1 && d->sec[0].table) {
		root = cJSON_CreateObject();
		cJSON_AddNumberToObject(root, "schema_version", KVB_JSON_SCHEMA_VERSION);
		cJSON_AddItemToObject(root, "rows", rows(d->sec[0].table));
	} else {
		cJSON *secs = cJSON_CreateArray();
		root = cJSON_CreateObject();
		cJSON_AddNumberToObject(root, "schema_version", KVB_JSON_SCHEMA_VERSION);
		if (d->title)
			cJSON_AddStringToObject(root, "title", d->title);
		for (size_t i = 0; i < d->nsec; i++) {
			const struct kvb_out_section *sc = &d->sec[i];
			cJSON *o = cJSON_CreateObject();
			if (sc->id)
				cJSON_AddStringToObject(o, "id", sc->id);
			if (sc->heading)
				cJSON_AddStringToObject(o, "heading", sc->heading);
			if (sc->text)
				cJSON_AddStringToObject(o, "text", sc->text);
			if (sc->table)
				cJSON_AddItemToObject(o, "rows", rows(sc->table));
			if (sc->plot)
				cJSON_AddItemToObject(o, "plot", cJSON_Duplicate(sc->plot, 1));
			cJSON_AddItemToArray(secs, o);
		}
		cJSON_AddItemToObject(root, "sections", secs);
	}
	{
		char *raw = cJSON_Print(root);
		s = kvb_utf8_clean(raw, strlen(raw)); /* JSON must be UTF-8 (RFC 8259) */
		free(raw);
	}
	fputs(s, out);
	fputc('\n', out);
	free(s);
	cJSON_Delete(root);
	return KVB_OK;
}

const struct kvb_format kvb_format_json = { "json", "JSON: every statistic and value, for scripts and notebooks", render,
					    KVB_FMT_DOCUMENT, NULL };
