/* Implements the residency of a cluster summed over time_in_state readings that may restart (probe.h). */
#include "instrument/counter.h"
#include "instrument/probe.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

/* Rows restart together; a table that went back is counted from 0 (cpufreq-stats.rst: `reset`,
 * and the stats freed and recreated with the policy). */
static const struct kvb_ctr_decl tis_decl = {
	"cpufreq time_in_state", KVB_CTR_RESETS | KVB_CTR_VANISHES,
	"Documentation/cpu-freq/cpufreq-stats.rst: `reset` zeroes the table; it is freed and recreated with the policy"
};

static void add(struct kvb_residency *r, uint64_t khz, double t)
{
	size_t k = 0;
	while (k < r->n && r->khz[k] != khz)
		k++;
	if (k == r->n) {
		r->khz = kvb_xrealloc(r->khz, (r->n + 1) * sizeof(*r->khz));
		r->t = kvb_xrealloc(r->t, (r->n + 1) * sizeof(*r->t));
		r->khz[r->n] = khz;
		r->t[r->n++] = 0;
	}
	r->t[k] += t;
}

static void *memdup(const void *p, size_t n)
{
	void *q = kvb_xmalloc(n ? n : 1);
	if (n)
		memcpy(q, p, n);
	return q;
}

static void copy_tis(struct kvb_tis *dst, const struct kvb_tis *src)
{
	kvb_tis_release(dst);
	dst->n = src->n;
	dst->khz = memdup(src->khz, src->n * sizeof(*src->khz));
	dst->t = memdup(src->t, src->n * sizeof(*src->t));
	dst->has_trans = src->has_trans;
	dst->trans = src->trans;
}

void kvb_residency_feed(struct kvb_residency *r, const struct kvb_tis *t, double uptime_s)
{
	uint64_t *prev, *delta;
	enum kvb_ctr_step st;
	int lost_row = 0;
	if (!t) {
		if (!r->gap++)
			r->gap_from = uptime_s;
		r->gap_to = uptime_s;
		return;
	}
	if (!r->have_base) {
		copy_tis(&r->base, t);
		r->base_up = uptime_s;
		r->have_base = 1;
		r->gap = 0;
		for (size_t k = 0; k < t->n; k++)
			add(r, t->khz[k], 0);
		return;
	}
	prev = kvb_xcalloc(t->n + 1, sizeof(*prev));
	delta = kvb_xcalloc(t->n + 1, sizeof(*delta));
	for (size_t k = 0; k < t->n; k++)
		for (size_t j = 0; j < r->base.n; j++)
			if (r->base.khz[j] == t->khz[k])
				prev[k] = r->base.t[j];
	/* a frequency of the table before that this one lacks: a new table */
	for (size_t j = 0; j < r->base.n && !lost_row; j++) {
		size_t k = 0;
		while (k < t->n && t->khz[k] != r->base.khz[j])
			k++;
		lost_row = k == t->n;
	}
	st = kvb_ctr_group_step(&tis_decl, prev, t->t, t->n, delta);
	if (st != KVB_CTR_RESTARTED && (lost_row || (t->has_trans && r->base.has_trans && t->trans < r->base.trans))) {
		for (size_t k = 0; k < t->n; k++)
			delta[k] = t->t[k];
		st = KVB_CTR_RESTARTED;
	}
	if (st == KVB_CTR_RESTARTED && !r->restarts++) {
		r->rs_from = r->base_up;
		r->rs_to = uptime_s;
		r->restart_after_gap = r->gap > 0;
	}
	for (size_t k = 0; k < t->n; k++)
		add(r, t->khz[k], (double)delta[k]);
	copy_tis(&r->base, t);
	r->base_up = uptime_s;
	r->gap = 0;
	free(prev);
	free(delta);
}

void kvb_residency_release(struct kvb_residency *r)
{
	free(r->khz);
	free(r->t);
	kvb_tis_release(&r->base);
	memset(r, 0, sizeof(*r));
}
