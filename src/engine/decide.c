/* Implements the --until-decided look after each round: sequential verdicts with O'Brien-Fleming alpha spending. */
#include "engine/decide.h"
#include "core/log.h"
#include "results/groups.h"
#include "store/decide.h"
#include "stats/stats.h"
#include "stats/verdict.h"
#include "workload/workload.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void kvb_decide_opts_release(struct kvb_decide_opts *d)
{
	kvb_strv_release(&d->metrics);
}

enum kvb_err kvb_decide_parse_duration(const char *s, double *seconds)
{
	char *end;
	double x = strtod(s, &end);
	double mul = !*end ? 1 : !strcmp(end, "s") ? 1 : !strcmp(end, "m") ? 60 : !strcmp(end, "h") ? 3600 : 0;
	if (end == s || !mul || !(x > 0) || !isfinite(x))
		return KVB_EINPUT;
	*seconds = x * mul;
	return KVB_OK;
}

int kvb_decide_save(struct kvb_store *s, int64_t run_id, const struct kvb_decide_opts *d, struct kvb_error *err)
{
	cJSON *m = cJSON_CreateArray();
	struct kvb_decide_row row = { .margin = d->margin, .alpha = d->alpha, .max_rounds = d->max_rounds,
				      .max_time_s = d->max_time_s, .add_rounds = d->add_rounds };
	int rc;
	for (size_t i = 0; i < d->metrics.n; i++)
		cJSON_AddItemToArray(m, cJSON_CreateString(d->metrics.v[i]));
	row.metrics_json = cJSON_PrintUnformatted(m);
	cJSON_Delete(m);
	rc = kvb_store_decide_save(s, run_id, &row, err);
	free(row.metrics_json);
	return rc;
}

int kvb_decide_load(struct kvb_store *s, int64_t run_id, struct kvb_decide_opts *d, int *found, struct kvb_error *err)
{
	struct kvb_decide_row row;
	int rc;
	memset(d, 0, sizeof(*d));
	if ((rc = kvb_store_decide_load(s, run_id, &row, found, err)) || !*found)
		return rc;
	d->margin = row.margin;
	d->alpha = row.alpha;
	d->max_rounds = row.max_rounds;
	d->max_time_s = row.max_time_s;
	d->add_rounds = row.add_rounds;
	{
		cJSON *m = cJSON_Parse(row.metrics_json), *x;
		cJSON_ArrayForEach(x, m)
			if (cJSON_IsString(x))
				kvb_strv_push(&d->metrics, x->valuestring);
		cJSON_Delete(m);
	}
	free(row.metrics_json);
	return KVB_OK;
}

static int chosen(const struct kvb_decide_opts *d, const struct kvb_group *g)
{
	char wm[512];
	if (!d->metrics.n) {
		/* a metric printed too coarsely to decide, beside a finer one of the same job
		 * (total_time beside usecs_per_op), is not waited for: the finer one decides */
		const struct kvb_metric_decl *decl = kvb_workload_metric_decl(g->workload, g->metric);
		return !(decl && decl->finer);
	}
	snprintf(wm, sizeof(wm), "%s/%s", g->workload, g->metric);
	for (size_t i = 0; i < d->metrics.n; i++)
		if (!strcmp(d->metrics.v[i], wm) || !strcmp(d->metrics.v[i], g->metric))
			return 1;
	return 0;
}

struct boot_value {
	int id;
	double v;
};

static int cmp_boot_value(const void *pa, const void *pb)
{
	const struct boot_value *a = pa, *b = pb;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return a->v < b->v ? -1 : a->v > b->v;
}

/*
 * The units of a cell: with >= 2 boots each boot's robust level (stats.h kvb_stats_boot_level:
 * 20 % trimmed mean, as diff's mean test judges boots, so a cold first run cannot decide a look
 * diff would not), else its runs (*runs set). Returns the count; *u owned.
 */
static size_t units(const struct kvb_cell *c, double **u, int *runs)
{
	int *ids = kvb_xcalloc(c->n + 1, sizeof(*ids));
	size_t nb = kvb_stats_dense_ids(c->boot, c->n, ids);
	*u = kvb_xcalloc(c->n + 1, sizeof(double));
	if (nb >= 2) {
		struct boot_value *bv = kvb_xcalloc(c->n + 1, sizeof(*bv));
		double *sorted = kvb_xcalloc(c->n + 1, sizeof(double));
		for (size_t i = 0; i < c->n; i++)
			bv[i] = (struct boot_value){ ids[i], c->v[i] };
		qsort(bv, c->n, sizeof(*bv), cmp_boot_value);
		for (size_t i = 0; i < c->n; i++)
			sorted[i] = bv[i].v;
		for (size_t i = 0, k = 0; i < c->n; k++) {
			size_t j = i;
			while (j < c->n && bv[j].id == bv[i].id)
				j++;
			(*u)[k] = kvb_stats_boot_level(sorted + i, j - i);
			i = j;
		}
		free(bv);
		free(sorted);
	} else {
		memcpy(*u, c->v, c->n * sizeof(double));
		nb = c->n;
		*runs = 1;
	}
	free(ids);
	return nb;
}

/*
 * A duet's look (execution_order: duet): the paired t test on the per-round differences at the
 * look's nominal level, judged as kvb_verdict_judge judges a cell (the rounds that pair as the unit).
 */
static void paired_look(const struct kvb_cell *b, const struct kvb_cell *c, double nominal, double margin,
			int lower_is_better, struct kvb_verdict *vd)
{
	struct kvb_paired pr;
	if (kvb_cell_paired(b, c, nominal, &pr))
		return; /* fewer than 2 pairs: undecided */
	struct kvb_verdict_in in = { .significant = pr.significant, .diff = pr.diff, .change = pr.rel,
				     .ci_lo = pr.rel_ci_lo, .ci_hi = pr.rel_ci_hi, .boots = pr.n, .margin = margin,
				     .lower_is_better = lower_is_better, .diff_ci_zero = pr.ci_lo == 0 && pr.ci_hi == 0,
				     .no_ci = pr.mean_b == 0 ? KVB_WHY_ZERO_BASE : KVB_WHY_UNBOUNDED };
	kvb_verdict_judge(&in, vd);
}

/*
 * A look on the units of both sides (kvb_seq_judge). Where they are runs of one boot, a change
 * also needs Mann-Whitney below the look's level, as diff's verdict with one boot a side needs
 * both tests below alpha (stats.h kvb_compare.significant): a look that called a change diff's
 * table then left undecided (Welch p 0.03 on 20 runs a side, Mann-Whitney 0.063) stopped a run
 * as decided whose table said it was not.
 */
static void judge_look(const double *ub, size_t nb, const double *uv, size_t nv, int runs, double nominal,
		       double margin, int lower_is_better, struct kvb_verdict *vd)
{
	struct kvb_mannwhitney mw;
	kvb_seq_judge(ub, nb, uv, nv, nominal, margin, lower_is_better, vd, NULL);
	if (!runs || (vd->kind != KVB_VERDICT_BETTER && vd->kind != KVB_VERDICT_WORSE &&
		      vd->kind != KVB_VERDICT_CHANGED))
		return;
	if (kvb_stats_mannwhitney(ub, nb, uv, nv, &mw, NULL) || !(mw.p < nominal)) {
		vd->kind = KVB_VERDICT_UNDECIDED;
		vd->name = "undecided";
	}
}

/*
 * A disturbed round: no look (nothing new counts); the run stops when the disturbed rounds
 * outnumber the spares. Returns 1 when round was disturbed (handled here).
 */
static int skip_disturbed(struct kvb_store *s, int64_t run_id, const struct kvb_decide_opts *d, int round,
			  const int *skip, size_t nskip, int *stop, int *rc, struct kvb_error *err)
{
	if (!nskip || skip[nskip - 1] != round)
		return 0;
	kvb_info("round %d: the host disturbed it; not counted (%zu disturbed, %d spare round(s))", round, nskip,
		 d->spare_rounds);
	kvb_store_event(s, run_id, "warning", "until-decided: round %d disturbed by the host, not counted (%zu of %d spare)",
			round, nskip, d->spare_rounds);
	if ((int)nskip > d->spare_rounds) {
		*stop = 1;
		kvb_warn("--until-decided: the host disturbed %zu rounds, more than --max-disturbed %d: the host is too busy "
			 "to decide here (`kvbench show witnesses`)",
			 nskip, d->spare_rounds);
		*rc = kvb_store_decide_outcome(s, run_id, round, "budget", err);
	}
	return 1;
}

int kvb_decide_look(struct kvb_store *s, int64_t run_id, const struct kvb_decide_opts *d, int round, int paired,
		    double elapsed_s, double next_round_s, int *stop, struct kvb_error *err)
{
	struct kvb_report r;
	/* the first `round` rounds only: a resumed run looks again after a round it had already
	 * passed, and jobs of the next round, stored before the interruption, must not count
	 * at this look's level; rounds the host disturbed never count */
	struct kvb_report_opts sel = { .runs = &run_id, .nruns = 1, .max_round = round };
	struct kvb_error lerr;
	double *nominal;
	int *skip = NULL;
	size_t nskip;
	int rc = KVB_OK, compared = 0, decided = 0, look;
	*stop = 0;
	if (round < 1 || round > d->max_rounds + d->spare_rounds)
		return KVB_OK;
	if ((rc = kvb_store_disturbed_rounds(s, run_id, round, &skip, &nskip, err))) {
		free(skip);
		return rc;
	}
	if (paired)
		nskip = 0; /* a duet's disturbed round hit both sides of its pairs: it counts */
	if (skip_disturbed(s, run_id, d, round, skip, nskip, stop, &rc, err)) {
		free(skip);
		return rc;
	}
	look = round - (int)nskip; /* the looks are the rounds that count */
	if (look > d->max_rounds) {
		free(skip);
		return KVB_OK;
	}
	sel.skip_rounds = skip;
	sel.nskip_rounds = nskip;
	nominal = kvb_xcalloc((size_t)d->max_rounds, sizeof(double));
	if (kvb_seq_bounds(d->alpha, (unsigned)d->max_rounds, nominal)) {
		free(nominal);
		return kvb_error_set(err, KVB_EINPUT, "--until-decided: cannot compute boundaries for %d looks", d->max_rounds);
	}
	if (kvb_report_load(s, &sel, &r, &lerr)) {
		/* nothing stored yet (every job failed): nothing to judge, go on */
		kvb_report_release(&r);
		free(nominal);
		free(skip);
		return KVB_OK;
	}
	for (size_t gi = 0; gi < r.ngroups; gi++) {
		const struct kvb_group *g = &r.groups[gi];
		if (!chosen(d, g))
			continue;
		for (size_t v = 1; v < r.variants.n; v++) {
			double *ub, *uv;
			int runs = 0;
			size_t nb = units(&g->cells[0], &ub, &runs), nv = units(&g->cells[v], &uv, &runs);
			struct kvb_verdict vd = { .kind = KVB_VERDICT_UNDECIDED, .name = "undecided", .boots_needed = NAN };
			compared++;
			if (paired && r.paired)
				paired_look(&g->cells[0], &g->cells[v], nominal[look - 1], d->margin, g->lower_is_better, &vd);
			else if (nb >= 2 && nv >= 2)
				judge_look(ub, nb, uv, nv, runs, nominal[look - 1], d->margin, g->lower_is_better, &vd);
			decided += vd.kind != KVB_VERDICT_UNDECIDED;
			char lk[32] = "";
			if (look != round) /* disturbed rounds before it were not counted */
				snprintf(lk, sizeof(lk), " (look %d)", look);
			kvb_info("round %d%s of at most %d: %s/%s %s vs %s: %s (look level %.3g)", round, lk, d->max_rounds,
				 g->workload, g->metric, r.variants.v[v], r.variants.v[0], vd.name, nominal[look - 1]);
			free(ub);
			free(uv);
		}
	}
	kvb_report_release(&r);
	free(nominal);
	free(skip);
	if (compared && decided == compared) {
		*stop = 1;
		kvb_store_event(s, run_id, "info", "until-decided: all %d comparisons decided after round %d", compared, round);
		rc = kvb_store_decide_outcome(s, run_id, round, "decided", err);
	} else if (d->max_time_s > 0 && look < d->max_rounds && elapsed_s + next_round_s >= d->max_time_s) {
		*stop = 1;
		kvb_store_event(s, run_id, "warning", "until-decided: time budget %.0f s spent after round %d (%.0f s, "
				"a round ~%.0f s), %d of %d decided", d->max_time_s, round, elapsed_s, next_round_s, decided, compared);
		kvb_warn("--max-time %.0f s spent after round %d (%.0f s run, another round ~%.0f s): %d of %d comparisons "
			 "decided; the table says what would decide the others", d->max_time_s, round, elapsed_s, next_round_s,
			 decided, compared);
		rc = kvb_store_decide_outcome(s, run_id, round, "budget", err);
	} else if (look == d->max_rounds) {
		/* the spare rounds left, if any, are not needed: the looks are spent */
		*stop = round < d->max_rounds + d->spare_rounds;
		kvb_warn("--max-rounds %d spent: %d of %d comparisons decided%s", look, decided, compared,
			 decided < compared ? "; the table says what would decide the others" : "");
		rc = kvb_store_decide_outcome(s, run_id, round, "budget", err);
	}
	return rc;
}
