/*
 * Test helpers that look up what an instrument or workload stored in a struct kvb_metrics:
 * metric() the value of the metric `name` whose classifier key equals value (NAN when there is
 * none: a refused number is absent, never 0), witness() the witness of that subject (or NULL).
 */
#ifndef KVB_TEST_METRICS_H
#define KVB_TEST_METRICS_H

#include "core/metric.h"

#include <math.h>
#include <string.h>

static inline double metric(const struct kvb_metrics *m, const char *name, const char *key, const char *value)
{
	for (size_t i = 0; i < m->n; i++) {
		const cJSON *c = m->v[i].classifiers ? cJSON_GetObjectItem(m->v[i].classifiers, key) : NULL;
		if (!strcmp(m->v[i].name, name) && c && cJSON_IsString(c) && !strcmp(c->valuestring, value))
			return m->v[i].value;
	}
	return NAN;
}

static inline const struct kvb_witness *witness(const struct kvb_metrics *m, const char *subject)
{
	for (size_t i = 0; i < m->witnesses.n; i++)
		if (!strcmp(m->witnesses.v[i].subject, subject))
			return &m->witnesses.v[i];
	return NULL;
}

#endif
