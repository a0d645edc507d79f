/* Implements diff-table footnotes from the events recorded while jobs ran. */
#include "report/event_notes.h"
#include "store/rows.h"
#include "core/buf.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

static char *col(struct kvb_rows *st, int i)
{
	const char *t = (const char *)kvb_rows_text(st, i);
	return kvb_xstrdup(t ? t : "");
}

int kvb_event_notes_load(struct kvb_store *s, const int64_t *runs, size_t nruns, struct kvb_event_notes *en,
			 struct kvb_error *err)
{
	struct kvb_rows *st;
	memset(en, 0, sizeof(*en));
	if (kvb_rows_open(s, "SELECT e.job_id, j.workload, v.name, e.level, e.message,"
			       " (SELECT json_group_object(c.key, c.value) FROM classifier c"
			       "  WHERE c.job_id = j.id AND c.metric_id IS NULL)"
			       " FROM event e JOIN job j ON j.id = e.job_id JOIN variant v ON v.id = j.variant_id"
			       /* a job left out (the host disturbed it: diff's one disturbance line says so) is in no cell */
			       " WHERE e.run_id = ? AND e.level <> 'info' AND j.status <> 'disturbed' ORDER BY e.id", &st, NULL,
			       NULL) != KVB_OK)
		return KVB_OK; /* an older DB (no event.job_id): nothing to footnote */
	for (size_t i = 0; i < nruns; i++) {
		kvb_rows_reset(st);
		kvb_rows_bind_int(st, 1, runs[i]);
		while (kvb_rows_next(st, NULL) == 1) {
			struct kvb_event_note *e;
			const char *cj = (const char *)kvb_rows_text(st, 5);
			en->v = kvb_xrealloc(en->v, (en->n + 1) * sizeof(*en->v));
			e = &en->v[en->n++];
			e->job_id = kvb_rows_int(st, 0);
			e->workload = col(st, 1);
			e->variant = col(st, 2);
			e->level = col(st, 3);
			e->message = col(st, 4);
			e->cls = cJSON_Parse(cj ? cj : "{}");
			if (!e->cls)
				e->cls = cJSON_CreateObject();
		}
	}
	kvb_rows_close(st);
	(void)err;
	return KVB_OK;
}

/* 1 when every classifier of the group has the same value in the job's classifiers. */
static int in_group(const struct kvb_event_notes *en, const struct kvb_event_note *e, const struct kvb_group *g)
{
	cJSON *gc = cJSON_Parse(g->cls_json ? g->cls_json : "{}");
	int ok = gc != NULL;
	for (const cJSON *kv = gc ? gc->child : NULL; kv && ok; kv = kv->next) {
		const cJSON *mine = cJSON_GetObjectItemCaseSensitive(e->cls, kv->string);
		ok = cJSON_IsString(kv) && cJSON_IsString(mine) && !strcmp(kv->valuestring, mine->valuestring);
	}
	if (ok && g->by_value && en->by) {
		/* a --by column: the group's key leaves the by classifier out; a job of another value is not this cell */
		const cJSON *mine = cJSON_GetObjectItemCaseSensitive(e->cls, en->by);
		ok = cJSON_IsString(mine) && !strcmp(mine->valuestring, g->by_value);
	}
	cJSON_Delete(gc);
	return ok;
}

const char *kvb_event_notes_mark(const struct kvb_event_notes *en, const struct kvb_group *g, const char *variant,
				 char *buf, size_t n)
{
	struct kvb_buf b = KVB_BUF_INIT;
	for (size_t i = 0; en && i < en->n; i++) {
		const struct kvb_event_note *e = &en->v[i];
		if (strcmp(e->variant, variant) || strcmp(e->workload, g->workload) || !in_group(en, e, g))
			continue;
		kvb_buf_addf(&b, "%s%zu", b.len ? "," : " [", i + 1);
	}
	snprintf(buf, n, "%s%s", b.data, b.len ? "]" : "");
	kvb_buf_release(&b);
	return buf;
}

void kvb_event_notes_print(const struct kvb_event_notes *en, const struct kvb_format *fmt, FILE *out)
{
	int md = !!(fmt->caps & KVB_FMT_MARKUP);
	for (size_t i = 0; en && i < en->n; i++) {
		const struct kvb_event_note *e = &en->v[i];
		fprintf(out, "%s[%zu] %s: %s, %s, job %lld: %s\n", md ? "- " : "", i + 1, e->level, e->variant,
			e->workload, (long long)e->job_id, e->message);
	}
}

void kvb_event_notes_release(struct kvb_event_notes *en)
{
	for (size_t i = 0; en && i < en->n; i++) {
		free(en->v[i].workload);
		free(en->v[i].variant);
		free(en->v[i].level);
		free(en->v[i].message);
		cJSON_Delete(en->v[i].cls);
	}
	if (en) {
		free(en->v);
		memset(en, 0, sizeof(*en));
	}
}
