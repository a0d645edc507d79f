/* Implements the metric and artifact lists a job fills. */
#include "core/metric.h"
#include "core/profile.h"
#include "core/samples.h"
#include "core/sha256.h"
#include "core/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kvb_metrics_init(struct kvb_metrics *m)
{
	memset(m, 0, sizeof(*m));
}

void kvb_metrics_job_classify(struct kvb_metrics *m, const char *key, const char *value)
{
	if (!m->job_classifiers)
		m->job_classifiers = cJSON_CreateObject();
	cJSON_DeleteItemFromObjectCaseSensitive(m->job_classifiers, key);
	cJSON_AddStringToObject(m->job_classifiers, key, value);
}

void kvb_metrics_note(struct kvb_metrics *m, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	m->notes = kvb_xrealloc(m->notes, (m->nnotes + 1) * sizeof(*m->notes));
	m->notes[m->nnotes++] = s;
}

void kvb_metrics_release(struct kvb_metrics *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].name);
		free(m->v[i].units);
		cJSON_Delete(m->v[i].classifiers);
	}
	free(m->v);
	for (size_t i = 0; i < m->nart; i++) {
		free(m->art[i].kind);
		free(m->art[i].path);
	}
	free(m->art);
	for (size_t i = 0; i < m->nnotes; i++)
		free(m->notes[i]);
	free(m->notes);
	cJSON_Delete(m->job_classifiers);
	kvb_samples_free(m->samples);
	kvb_profile_free(m->profile);
	kvb_witnesses_release(&m->witnesses);
	kvb_metrics_init(m);
}

const char *kvb_direction_word(int lower_is_better)
{
	return lower_is_better < 0 ? "neither" : lower_is_better ? "lower" : "higher";
}

cJSON *kvb_direction_json(int lower_is_better)
{
	return lower_is_better < 0 ? cJSON_CreateNull() : cJSON_CreateBool(lower_is_better != 0);
}

struct kvb_metric *kvb_metrics_add(struct kvb_metrics *m, const char *name, double value, const char *units,
				   int lower_is_better)
{
	struct kvb_metric *mt;
	if (m->n == m->alloc) {
		m->alloc = m->alloc ? m->alloc * 2 : 16;
		m->v = kvb_xrealloc(m->v, m->alloc * sizeof(*m->v));
	}
	mt = &m->v[m->n++];
	mt->name = kvb_xstrdup(name);
	mt->value = value;
	mt->units = kvb_xstrdup(units ? units : "");
	mt->lower_is_better = lower_is_better < 0 ? KVB_NO_DIRECTION : lower_is_better ? 1 : 0;
	mt->classifiers = NULL;
	return mt;
}

struct kvb_metric *kvb_metrics_add_decl(struct kvb_metrics *m, const struct kvb_metric_decl *d, double value)
{
	return kvb_metrics_add(m, d->name, value, d->units, d->lower_is_better);
}

void kvb_metric_classify(struct kvb_metric *mt, const char *key, const char *value)
{
	if (!mt->classifiers)
		mt->classifiers = cJSON_CreateObject();
	cJSON_DeleteItemFromObjectCaseSensitive(mt->classifiers, key);
	cJSON_AddStringToObject(mt->classifiers, key, value);
}

int kvb_metrics_artifact(struct kvb_metrics *m, const char *kind, const char *path)
{
	struct kvb_artifact *a;
	char hex[65];
	int64_t bytes;
	if (kvb_sha256_file(path, hex, &bytes))
		return -1;
	if (m->nart == m->art_alloc) {
		m->art_alloc = m->art_alloc ? m->art_alloc * 2 : 4;
		m->art = kvb_xrealloc(m->art, m->art_alloc * sizeof(*m->art));
	}
	a = &m->art[m->nart++];
	a->kind = kvb_xstrdup(kind);
	a->path = kvb_xstrdup(path);
	memcpy(a->sha256, hex, sizeof(hex));
	a->bytes = bytes;
	return 0;
}
