/* Implements the steps of declared counters (counter.h): moved, wrapped, restarted, held, bad. */
#include "instrument/counter.h"
#include "core/util.h"

#include <stdlib.h>

enum kvb_ctr_step kvb_ctr_step(const struct kvb_ctr_decl *d, uint64_t prev, uint64_t cur, uint64_t max,
			       uint64_t *delta)
{
	*delta = 0;
	if (cur >= prev) {
		*delta = cur - prev;
		return KVB_CTR_MOVED;
	}
	if (d->may & KVB_CTR_DIPS)
		return KVB_CTR_HELD;
	if ((d->may & KVB_CTR_WRAPS) && max && prev <= max) {
		*delta = max - prev + cur;
		return KVB_CTR_WRAPPED;
	}
	if (d->may & KVB_CTR_RESETS) {
		*delta = cur;
		return KVB_CTR_RESTARTED;
	}
	return KVB_CTR_BAD;
}

enum kvb_ctr_step kvb_ctr_group_step(const struct kvb_ctr_decl *d, const uint64_t *prev, const uint64_t *cur,
				     size_t n, uint64_t *delta)
{
	int back = 0;
	for (size_t k = 0; k < n; k++)
		back |= cur[k] < prev[k];
	if (back && (d->may & KVB_CTR_RESETS)) {
		for (size_t k = 0; k < n; k++)
			delta[k] = cur[k];
		return KVB_CTR_RESTARTED;
	}
	for (size_t k = 0; k < n; k++)
		if (kvb_ctr_step(d, prev[k], cur[k], 0, &delta[k]) == KVB_CTR_BAD)
			return KVB_CTR_BAD;
	return KVB_CTR_MOVED;
}

const char *kvb_ctr_step_name(enum kvb_ctr_step s)
{
	switch (s) {
	case KVB_CTR_MOVED:
		return "moved";
	case KVB_CTR_WRAPPED:
		return "wrapped";
	case KVB_CTR_RESTARTED:
		return "restarted";
	case KVB_CTR_HELD:
		return "held";
	case KVB_CTR_BAD:
		return "went back";
	case KVB_CTR_ABSENT:
		return "absent";
	}
	return "?";
}

void kvb_ctr_series_push(struct kvb_ctr_series *s, uint64_t v, double up)
{
	s->v = kvb_xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
	s->up = kvb_xrealloc(s->up, (s->n + 1) * sizeof(*s->up));
	s->v[s->n] = v;
	s->up[s->n++] = up;
}

void kvb_ctr_series_release(struct kvb_ctr_series *s)
{
	free(s->v);
	free(s->up);
	s->v = NULL;
	s->up = NULL;
	s->n = 0;
}
