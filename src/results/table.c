/* Implements the computed comparison: each cell once, and the order of groups by what changed. */
#include "results/table.h"
#include "config/margins.h"
#include "core/util.h"
#include "store/rows.h"

#include <stdlib.h>
#include <string.h>

void kvb_table_compute(const struct kvb_report *r, enum kvb_stat stat, double alpha, const char *by,
		       struct kvb_table *t)
{
	size_t nv = r->variants.n, ng = r->ngroups;
	memset(t, 0, sizeof(*t));
	t->r = r;
	t->stat = stat;
	t->alpha = alpha;
	t->by = by;
	t->cs = kvb_xcalloc(ng * nv + 1, sizeof(*t->cs));
	t->order = kvb_xcalloc(ng + 1, sizeof(*t->order));
	for (size_t g = 0; g < ng; g++) {
		for (size_t v = 0; v < nv; v++) {
			kvb_cell_compute(r, &r->groups[g], v, stat, alpha, &t->cs[g * nv + v]);
			t->one_boot |= t->cs[g * nv + v].one_boot;
		}
		t->any_labels |= r->groups[g].label && *r->groups[g].label;
	}
	/* a stable insertion sort: rank, then count metrics last, then load order */
	for (size_t g = 0; g < ng; g++) {
		size_t j = g;
		int rk = kvb_table_rank(t, g), cnt = !strcmp(r->groups[g].units, "count");
		while (j > 0) {
			size_t p = t->order[j - 1];
			int prk = kvb_table_rank(t, p), pcnt = !strcmp(r->groups[p].units, "count");
			if (prk < rk || (prk == rk && pcnt <= cnt))
				break;
			t->order[j] = p;
			j--;
		}
		t->order[j] = g;
	}
}

void kvb_table_release(struct kvb_table *t)
{
	free(t->cs);
	free(t->order);
	memset(t, 0, sizeof(*t));
}

const struct kvb_cell_stats *kvb_table_cell(const struct kvb_table *t, size_t g, size_t v)
{
	return &t->cs[g * t->r->variants.n + v];
}

enum kvb_table_rank kvb_table_rank(const struct kvb_table *t, size_t g)
{
	enum kvb_table_rank best = KVB_RANK_NONE;
	for (size_t v = 1; v < t->r->variants.n; v++) {
		const struct kvb_cell_stats *cs = kvb_table_cell(t, g, v);
		enum kvb_table_rank k;
		if (!cs->has_cmp)
			k = cs->left_out || cs->base_left_out ? KVB_RANK_UNDECIDED : KVB_RANK_NONE;
		else if (!strcmp(cs->verdict, "better") || !strcmp(cs->verdict, "worse"))
			k = KVB_RANK_CHANGED;
		else if (!strcmp(cs->verdict, "same"))
			k = KVB_RANK_SAME;
		else
			k = KVB_RANK_UNDECIDED; /* undecided, untested, n<2 */
		if (k < best)
			best = k;
	}
	return best;
}

void kvb_report_set_steps(struct kvb_report *r, kvb_metric_decl_fn decl)
{
	for (size_t i = 0; decl && i < r->ngroups; i++) {
		struct kvb_group *g = &r->groups[i];
		const struct kvb_metric_decl *d = decl(g->workload, g->metric);
		g->resolution = d && d->resolution > 0 ? d->resolution : 0;
		g->finer = d ? d->finer : NULL;
	}
}

int kvb_report_set_margins(struct kvb_store *s, struct kvb_report *r, double override, struct kvb_error *err)
{
	cJSON *agenda = NULL;
	if (override <= 0 && r->nruns) {
		struct kvb_rows *st;
		if (kvb_rows_open(s, "SELECT agenda_json FROM run WHERE id = ?", &st, NULL, NULL) != KVB_OK)
			return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, kvb_store_errmsg(s));
		kvb_rows_bind_int(st, 1, r->runs[0]);
		if (kvb_rows_next(st, NULL) == 1 && kvb_rows_text(st, 0))
			agenda = cJSON_Parse((const char *)kvb_rows_text(st, 0));
		kvb_rows_close(st);
	}
	for (size_t i = 0; i < r->ngroups; i++) {
		struct kvb_group *g = &r->groups[i];
		g->margin = override > 0 ? override : kvb_margin_from_agenda(agenda, g->workload, g->metric);
		if (!(g->margin > 0))
			g->margin = KVB_VERDICT_MARGIN;
	}
	cJSON_Delete(agenda);
	return KVB_OK;
}
