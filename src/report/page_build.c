/* Implements the report page's document under construction and the plot spec helpers. */
#include "report/page_build.h"
#include "store/rows.h"
#include "report/sqltable.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *kvb_page_keep(struct kvb_page *p, char *s)
{
	kvb_strv_push(&p->strs, s);
	free(s);
	return p->strs.v[p->strs.n - 1];
}

struct kvb_out_section *kvb_page_add(struct kvb_page *p, const char *heading, const char *id)
{
	if (p->n == p->alloc) {
		p->alloc = p->alloc ? 2 * p->alloc : 32;
		p->sec = kvb_xrealloc(p->sec, p->alloc * sizeof(*p->sec));
	}
	memset(&p->sec[p->n], 0, sizeof(*p->sec));
	p->sec[p->n].heading = heading ? kvb_page_keep(p, kvb_xstrdup(heading)) : NULL;
	p->sec[p->n].id = id;
	return &p->sec[p->n++];
}

void kvb_page_plot(struct kvb_page *p, cJSON *plot, const char *caption)
{
	struct kvb_out_section *s = kvb_page_add(p, NULL, NULL);
	p->plots = kvb_xrealloc(p->plots, (p->nplots + 1) * sizeof(*p->plots));
	p->plots[p->nplots++] = plot;
	s->plot = plot;
	s->text = caption ? kvb_page_keep(p, kvb_xstrdup(caption)) : NULL;
}

void kvb_page_release(struct kvb_page *p)
{
	for (size_t i = 0; i < p->nboxes; i++) {
		kvb_box_release(p->boxes[i]);
		free(p->boxes[i]);
	}
	for (size_t i = 0; i < p->nplots; i++)
		cJSON_Delete(p->plots[i]);
	free(p->boxes);
	free(p->plots);
	free(p->sec);
	kvb_strv_release(&p->strs);
}

/* A table section from SQL over the page's runs (?2); `none` is shown instead of an empty table. */
int kvb_page_sql(struct kvb_page *p, struct kvb_store *s, const char *heading, const char *id, const char *sql,
		   const char *none, size_t *rows, struct kvb_error *err)
{
	struct kvb_box *b = kvb_xcalloc(1, sizeof(*b));
	struct kvb_out_section *sec;
	size_t n = 0;
	int rc = kvb_sql_box(s, sql, -1, p->runs_json, b, &n, err);
	if (rc) {
		free(b);
		return rc == KVB_EINPUT ? KVB_ESTORE : rc;
	}
	p->boxes = kvb_xrealloc(p->boxes, (p->nboxes + 1) * sizeof(*p->boxes));
	p->boxes[p->nboxes++] = b;
	sec = kvb_page_add(p, heading, id);
	if (n)
		sec->table = b;
	else
		sec->text = none;
	if (rows)
		*rows = n;
	return KVB_OK;
}

/* Plot numbers keep 6 significant digits: a screen shows fewer, and the page stays small. */
int kvb_page_query(struct kvb_store *s, const struct kvb_page *p, const char *sql, struct kvb_rows **st,
		   struct kvb_error *err)
{
	int rc = kvb_rows_open(s, sql, st, NULL, err);
	if (rc)
		return rc;
	kvb_rows_bind_text(*st, 1, p->runs_json);
	return KVB_OK;
}

cJSON *kvb_plot_num(double x)
{
	char b[32];
	if (!isfinite(x))
		return cJSON_CreateNull();
	snprintf(b, sizeof(b), "%.6g", x);
	return cJSON_CreateNumber(strtod(b, NULL));
}

cJSON *kvb_plot_new(const char *kind, const char *title, const char *x, const char *y)
{
	cJSON *p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "kind", kind);
	cJSON_AddStringToObject(p, "title", title);
	cJSON_AddStringToObject(p, "x", x ? x : "");
	cJSON_AddStringToObject(p, "y", y ? y : "");
	return p;
}

/* Boot label of a model boot id (run_id * 100000 + round, model.c): the round, run-qualified when several runs. */
void kvb_plot_boot_label(char *buf, size_t n, int64_t boot, int nruns)
{
	if (nruns > 1)
		snprintf(buf, n, "%lld.%lld", (long long)(boot / 100000), (long long)(boot % 100000));
	else
		snprintf(buf, n, "%lld", (long long)(boot % 100000));
}

/* Per metric group: every sample per variant over its box, coloured by boot. */

void kvb_plot_dot(cJSON *groups, const char *name, double value, int64_t boot, int nruns)
{
	cJSON *g = NULL;
	char b[48];
	for (cJSON *x = groups->child; x && !g; x = x->next)
		if (!strcmp(cJSON_GetObjectItem(x, "name")->valuestring, name))
			g = x;
	if (!g) {
		g = cJSON_CreateObject();
		cJSON_AddStringToObject(g, "name", name);
		cJSON_AddArrayToObject(g, "values");
		cJSON_AddArrayToObject(g, "boots");
		cJSON_AddItemToArray(groups, g);
	}
	kvb_plot_boot_label(b, sizeof(b), boot, nruns);
	cJSON_AddItemToArray(cJSON_GetObjectItem(g, "values"), kvb_plot_num(value));
	cJSON_AddItemToArray(cJSON_GetObjectItem(g, "boots"), cJSON_CreateString(b));
}

cJSON *kvb_plot_group_dots(const struct kvb_report *r, const struct kvb_group *g, const char *prefix, int nruns,
			   cJSON *groups)
{
	if (!groups)
		groups = cJSON_CreateArray();
	for (size_t v = 0; v < r->variants.n; v++) {
		const struct kvb_cell *c = &g->cells[v];
		char *name = prefix ? kvb_xasprintf("%s %s", prefix, r->variants.v[v]) : kvb_xstrdup(r->variants.v[v]);
		for (size_t i = 0; i < c->n; i++)
			kvb_plot_dot(groups, name, c->v[i], c->boot[i], nruns);
		free(name);
	}
	return groups;
}

char *kvb_group_label_without(const struct kvb_group *g, const char *const *keys, size_t nkeys)
{
	struct kvb_buf b = KVB_BUF_INIT;
	const char *t = g->label ? g->label : "";
	while (*t) {
		size_t n = strcspn(t, " "), k;
		for (k = 0; k < nkeys; k++) {
			size_t kl = strlen(keys[k]);
			if (n > kl && !strncmp(t, keys[k], kl) && t[kl] == '=')
				break;
		}
		if (k == nkeys)
			kvb_buf_addf(&b, "%s%.*s", b.len ? " " : "", (int)n, t);
		t += n;
		t += *t == ' ';
	}
	if (!b.data)
		kvb_buf_addf(&b, "%s", "");
	return kvb_buf_detach(&b);
}

char *kvb_group_cls_without(const struct kvb_group *g, const char *const *keys, size_t nkeys)
{
	cJSON *c = cJSON_Parse(g->cls_json ? g->cls_json : "{}");
	char *out;
	if (!c)
		c = cJSON_CreateObject();
	for (size_t k = 0; k < nkeys; k++)
		cJSON_DeleteItemFromObjectCaseSensitive(c, keys[k]);
	out = cJSON_PrintUnformatted(c);
	cJSON_Delete(c);
	return out;
}
