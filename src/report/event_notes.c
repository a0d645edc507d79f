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
	for (size_t i = 0; i < en->n; i++) {
		size_t j = 0;
		while (j < i && (strcmp(en->v[j].level, en->v[i].level) || strcmp(en->v[j].message, en->v[i].message)))
			j++;
		en->v[i].note = j < i ? en->v[j].note : ++en->nnotes;
	}
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
	unsigned char *hit = kvb_xcalloc(en ? en->nnotes + 1 : 1, 1);
	for (size_t i = 0; en && i < en->n; i++) {
		const struct kvb_event_note *e = &en->v[i];
		if (!strcmp(e->variant, variant) && !strcmp(e->workload, g->workload) && in_group(en, e, g))
			hit[e->note] = 1;
	}
	for (size_t k = 1; en && k <= en->nnotes; k++)
		if (hit[k])
			kvb_buf_addf(&b, "%s%zu", b.len ? "," : " [", k);
	snprintf(buf, n, "%s%s", b.data, b.len ? "]" : "");
	kvb_buf_release(&b);
	free(hit);
	return buf;
}

/* Pushes s onto v unless v already holds it. */
static void add_once(struct kvb_strv *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return;
	kvb_strv_push(v, s);
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/*
 * Footnote k's jobs: "(one jobs 1-4,9, two jobs 5-8; hackbench, sched_pipe)" into b (when b is
 * not NULL); returns how many distinct jobs it has.
 */
static size_t shared_jobs(const struct kvb_event_notes *en, size_t k, struct kvb_buf *b)
{
	struct kvb_strv variants = KVB_STRV_INIT, workloads = KVB_STRV_INIT;
	int64_t *ids = kvb_xcalloc(en->n + 1, sizeof(*ids));
	size_t total = 0;
	for (size_t i = 0; i < en->n; i++)
		if (en->v[i].note == k) {
			add_once(&variants, en->v[i].variant);
			add_once(&workloads, en->v[i].workload);
		}
	if (b)
		kvb_buf_addf(b, "(");
	for (size_t vi = 0; vi < variants.n; vi++) {
		size_t n = 0, m = 0;
		for (size_t i = 0; i < en->n; i++)
			if (en->v[i].note == k && !strcmp(en->v[i].variant, variants.v[vi]))
				ids[n++] = en->v[i].job_id;
		qsort(ids, n, sizeof(*ids), cmp_id);
		for (size_t i = 0; i < n; i++) /* one job's event on two attempts is one job */
			if (!m || ids[i] != ids[m - 1])
				ids[m++] = ids[i];
		total += m;
		if (b)
			kvb_buf_addf(b, "%s%s jobs ", vi ? ", " : "", variants.v[vi]);
		for (size_t i = 0; b && i < m;) {
			size_t j = i;
			while (j + 1 < m && ids[j + 1] == ids[j] + 1)
				j++;
			kvb_buf_addf(b, "%s%lld", i ? "," : "", (long long)ids[i]);
			if (j > i)
				kvb_buf_addf(b, "-%lld", (long long)ids[j]);
			i = j + 1;
		}
	}
	for (size_t wi = 0; b && wi < workloads.n; wi++)
		kvb_buf_addf(b, "%s%s", wi ? ", " : "; ", workloads.v[wi]);
	if (b)
		kvb_buf_addf(b, ")");
	free(ids);
	kvb_strv_release(&variants);
	kvb_strv_release(&workloads);
	return total;
}

void kvb_event_notes_print(const struct kvb_event_notes *en, const struct kvb_format *fmt, FILE *out)
{
	int md = !!(fmt->caps & KVB_FMT_MARKUP);
	for (size_t k = 1; en && k <= en->nnotes; k++) {
		const struct kvb_event_note *e = NULL;
		size_t jobs = shared_jobs(en, k, NULL);
		for (size_t i = 0; i < en->n && !e; i++)
			if (en->v[i].note == k)
				e = &en->v[i];
		if (jobs == 1) {
			fprintf(out, "%s[%zu] %s: %s, %s, job %lld: %s\n", md ? "- " : "", k, e->level, e->variant,
				e->workload, (long long)e->job_id, e->message);
		} else {
			struct kvb_buf b = KVB_BUF_INIT;
			shared_jobs(en, k, &b);
			fprintf(out, "%s[%zu] %s, %zu jobs %s: %s\n", md ? "- " : "", k, e->level, jobs, b.data, e->message);
			kvb_buf_release(&b);
		}
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
