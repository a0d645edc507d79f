/*
 * Implements a bisect's judgements (steps.h): a step against both endpoints, and the endpoints
 * against each other, with the boot-aware verdict of `kvbench diff` (results/cell_stats.h).
 */
#include "bisect/steps.h"
#include "core/log.h"
#include "results/cell_stats.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/*
 * A difference bisect may act on: significant by the boot-aware test. A verdict from one boot a
 * side (the naive test over runs, docs/design.md#statistics) cannot tell a change from boot-to-boot noise:
 * the commit gets another boot.
 */
static int decided(const struct kvb_cell_stats *c)
{
	return c->significant && !c->one_boot;
}

/* The metric's results of the endpoints' runs and, when mine != NULL, those runs too. */
static int load(struct kvb_bisect *b, const struct kvb_bisect_runs *mine, struct kvb_report *r, struct kvb_error *err)
{
	struct kvb_report_opts o = { 0 };
	struct kvb_bisect_runs all = { 0 };
	int rc;
	kvb_bisect_runs_add(&all, b->row.good_run);
	kvb_bisect_runs_add(&all, b->row.bad_run);
	for (size_t i = 0; i < b->ends.n; i++)
		kvb_bisect_runs_add(&all, b->ends.v[i]);
	for (size_t i = 0; mine && i < mine->n; i++)
		kvb_bisect_runs_add(&all, mine->v[i]);
	o.runs = all.v;
	o.nruns = all.n;
	o.workload = b->workload;
	o.metric_glob = b->metric_name;
	memset(r, 0, sizeof(*r));
	rc = kvb_report_load(b->st, &o, r, err);
	kvb_bisect_runs_release(&all);
	if (!rc && !r->ngroups) {
		kvb_report_release(r);
		rc = kvb_error_set(err, KVB_EINPUT, "--metric %s: not in the results", b->row.metric);
	}
	return rc;
}

/* The report's variant named for commit sha (its first 10 hex digits), or (size_t)-1. */
static size_t variant_of(const struct kvb_report *r, const char *sha)
{
	char name[11];
	snprintf(name, sizeof(name), "%.10s", sha);
	for (size_t v = 0; v < r->variants.n; v++)
		if (!strcmp(r->variants.v[v], name))
			return v;
	return (size_t)-1;
}

/* Which endpoint's results are missing, for the message: the run ids the report was asked for. */
static int missing(struct kvb_bisect *b, const char *sha, size_t ig, size_t ib, struct kvb_error *err)
{
	const char *who = ig == (size_t)-1 ? "good endpoint" : ib == (size_t)-1 ? "bad endpoint" : "step";
	return kvb_error_set(err, KVB_EINPUT,
			     "bisect %lld: the %s %.12s has no ok %s results in its runs (good run %lld, bad run %lld, "
			     "%zu extra endpoint runs): measure it again with --resume",
			     (long long)b->row.id, who, ig == (size_t)-1 ? b->row.good : ib == (size_t)-1 ? b->row.bad : sha,
			     b->row.metric, (long long)b->row.good_run, (long long)b->row.bad_run, b->ends.n);
}

/* res->outcome and res->reason from the step against good (cg) and bad (cb). */
static void verdict(const struct kvb_bisect *b, const struct kvb_cell_stats *cg, const struct kvb_cell_stats *cb,
		    int final, struct kvb_step_result *res)
{
	int worse_than_good = decided(cg) && !strcmp(cg->verdict, "worse") && fabs(cg->diff_pct) >= b->row.threshold_pct;
	int like_good = !cg->significant || fabs(cg->diff_pct) < b->row.threshold_pct || !strcmp(cg->verdict, "better");
	int like_bad = !cb->significant;
	int better_than_bad = decided(cb) && !strcmp(cb->verdict, "better");
	if (worse_than_good && like_bad) {
		res->outcome = "bad";
		snprintf(res->reason, sizeof(res->reason), "%+.1f%% vs good (worse*), %+.1f%% vs bad (~)", res->vs_good,
			 res->vs_bad);
	} else if (like_good && better_than_bad) {
		res->outcome = "good";
		snprintf(res->reason, sizeof(res->reason), "%+.1f%% vs good (~), %+.1f%% vs bad (better*)", res->vs_good,
			 res->vs_bad);
	} else if (final) {
		double dg = fabs(cg->value - cg->c.mean_b), db = fabs(cb->value - cb->c.mean_b);
		res->outcome = dg <= db ? "good" : "bad";
		snprintf(res->reason, sizeof(res->reason),
			 "undecided after %d boots (%+.1f%% vs good %s, %+.1f%% vs bad %s): nearer to %s", res->boots,
			 res->vs_good, cg->verdict, res->vs_bad, cb->verdict, res->outcome);
	} else {
		snprintf(res->reason, sizeof(res->reason), "%+.1f%% vs good %s, %+.1f%% vs bad %s: undecided", res->vs_good,
			 cg->verdict, res->vs_bad, cb->verdict);
	}
}

int kvb_bisect_judge(struct kvb_bisect *b, const char *sha, const struct kvb_bisect_runs *mine, int max_boots,
		     struct kvb_step_result *res, struct kvb_error *err)
{
	struct kvb_report r;
	size_t ig, ib, is;
	struct kvb_cell_stats cg, cb;
	int rc;
	if ((rc = load(b, mine, &r, err)))
		return rc;
	ig = variant_of(&r, b->row.good);
	ib = variant_of(&r, b->row.bad);
	is = variant_of(&r, sha);
	if (ig == (size_t)-1 || ib == (size_t)-1 || is == (size_t)-1) {
		rc = missing(b, sha, ig, ib, err);
		kvb_report_release(&r);
		return rc;
	}
	if (r.ngroups > 1)
		kvb_warn("--metric %s matches %zu classifier groups; bisect judges the first (%s)", b->row.metric, r.ngroups,
			 r.groups[0].label ? r.groups[0].label : "");
	kvb_cell_compare(&r, &r.groups[0], ig, ig, KVB_STAT_MEAN, KVB_STATS_ALPHA, &cg);
	res->good_boots = (int)cg.boots;
	kvb_cell_compare(&r, &r.groups[0], ib, ib, KVB_STAT_MEAN, KVB_STATS_ALPHA, &cb);
	res->bad_boots = (int)cb.boots;
	kvb_cell_compare(&r, &r.groups[0], ig, is, KVB_STAT_MEAN, KVB_STATS_ALPHA, &cg);
	kvb_cell_compare(&r, &r.groups[0], ib, is, KVB_STAT_MEAN, KVB_STATS_ALPHA, &cb);
	res->value = cg.ok ? cg.value : NAN;
	res->vs_good = cg.has_cmp ? cg.diff_pct : (is == ig ? 0 : NAN);
	res->vs_bad = cb.has_cmp ? cb.diff_pct : (is == ib ? 0 : NAN);
	res->boots = (int)cg.boots;
	res->left_out = (int)cg.left_out;
	res->outcome = NULL;
	if (!cg.ok && cg.left_out)
		/* the host disturbed every job it has: nothing to judge, never an error (more boots may be clean) */
		snprintf(res->reason, sizeof(res->reason), "every %s result of it left out: the host disturbed its %zu job(s)",
			 b->row.metric, cg.left_out);
	else if (!cg.ok)
		rc = kvb_error_set(err, KVB_EINPUT, "commit %.12s has no %s results", sha, b->row.metric);
	else
		verdict(b, &cg, &cb, max_boots > 0 && res->boots >= max_boots, res);
	kvb_report_release(&r);
	return rc;
}

int kvb_bisect_check_endpoints(struct kvb_bisect *b, double *change, int *more, struct kvb_step_result *r,
			       struct kvb_error *err)
{
	struct kvb_report rep;
	struct kvb_cell_stats c;
	size_t ig, ib;
	int rc;
	*more = 0;
	memset(r, 0, sizeof(*r));
	/* judging bad itself: its vs_good is the measured change of the whole range */
	if ((rc = kvb_bisect_judge(b, b->row.bad, NULL, 0, r, err)))
		return rc;
	*change = r->vs_good;
	if (r->outcome && !strcmp(r->outcome, "bad"))
		return KVB_OK;
	if ((rc = load(b, NULL, &rep, err)))
		return rc;
	ig = variant_of(&rep, b->row.good);
	ib = variant_of(&rep, b->row.bad);
	kvb_cell_compare(&rep, &rep.groups[0], ig, ib, KVB_STAT_MEAN, KVB_STATS_ALPHA, &c);
	if (decided(&c) && !strcmp(c.verdict, "better"))
		rc = kvb_error_set(err, KVB_EINPUT,
				   "the \"good\" %.12s measures worse than the \"bad\" %.12s (%s: bad is %+.1f%%, better): "
				   "swap --good and --bad, or check the metric",
				   b->row.good, b->row.bad, b->row.metric, c.diff_pct);
	else if (decided(&c) && fabs(c.diff_pct) < b->row.threshold_pct)
		rc = kvb_error_set(err, KVB_EINPUT,
				   "good %.12s and bad %.12s differ by %+.1f%% on %s, less than --threshold %.1f%%: "
				   "nothing to bisect",
				   b->row.good, b->row.bad, c.diff_pct, b->row.metric, b->row.threshold_pct);
	else if (!decided(&c) && c.boots < (size_t)b->row.max_rounds)
		*more = 1;
	else
		rc = kvb_error_set(err, KVB_EINPUT,
				   "good %.12s and bad %.12s do not differ significantly on %s (%+.1f%%, %zu boots "
				   "each): nothing to bisect (more --rounds?)",
				   b->row.good, b->row.bad, b->row.metric, c.diff_pct, c.boots);
	kvb_report_release(&rep);
	return rc;
}
