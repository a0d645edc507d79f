/* Implements `kvbench plan`: variance components, costs, K&J runs per boot and boots for a detectable change. */
#include "report/sizing.h"
#include "store/rows.h"
#include "report/box.h"
#include "report/diff.h"
#include "stats/stats.h"
#include "stats/verdict.h"
#include "store/store.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Mean seconds of one SQL duration query bound to (run, variant[, workload]); NAN when the DB has none. */
static double mean_s(struct kvb_store *s, const char *sql, int64_t run, const char *variant, const char *workload)
{
	struct kvb_rows *st;
	double x = NAN;
	if (kvb_rows_open(s, sql, &st, NULL, NULL) != KVB_OK)
		return NAN;
	kvb_rows_bind_int(st, 1, run);
	kvb_rows_bind_text(st, 2, variant);
	if (workload)
		kvb_rows_bind_text(st, 3, workload);
	if (kvb_rows_next(st, NULL) == 1 && kvb_rows_type(st, 0) != KVB_ROWS_NULL)
		x = kvb_rows_double(st, 0);
	kvb_rows_close(st);
	return x;
}

static const char *fmt_or_dash(char *buf, size_t n, const char *fmt, double x)
{
	if (!isfinite(x))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, fmt, x);
	return buf;
}

int kvb_plan_print(struct kvb_store *s, const struct kvb_plan_opts *o, FILE *out, struct kvb_error *err)
{
	struct kvb_report r;
	struct kvb_box b;
	int rc, rows = 0, boots_dominate = 0, runs_dominate = 0, no_costs = 0;
	char t1[64], t2[64];
	rc = kvb_report_load(s, &o->sel, &r, err);
	if (rc) {
		kvb_report_release(&r);
		return rc;
	}
	kvb_box_init(&b, 12);
	const char *heads[] = { "workload", "metric", "variant", "boots", "runs/boot", "mean", "boot sd %", "run sd %",
				"boot s", "run s", "K&J runs/boot", "boots needed" };
	for (size_t i = 0; i < 12; i++)
		kvb_box_header(&b, i, heads[i], i < 3 ? KVB_ALIGN_LEFT : KVB_ALIGN_RIGHT);
	for (size_t gi = 0; gi < r.ngroups; gi++) {
		const struct kvb_group *g = &r.groups[gi];
		for (size_t v = 0; v < r.variants.n; v++) {
			const struct kvb_cell *c = &g->cells[v];
			struct kvb_twolevel p;
			int *ids;
			if (c->n < 2)
				continue;
			ids = kvb_xmalloc(c->n * sizeof(int));
			kvb_stats_dense_ids(c->boot, c->n, ids);
			double bc = o->boot_cost_s > 0 ? o->boot_cost_s
							: mean_s(s, "SELECT avg(b.ready_ns - b.started_ns) / 1e9 FROM boot b JOIN variant v"
								    " ON v.id = b.variant_id WHERE v.run_id = ?1 AND v.name = ?2"
								    " AND b.status = 'ok' AND b.ready_ns > b.started_ns",
								 r.runs[0], r.variants.v[v], NULL);
			double jc = o->run_cost_s > 0 ? o->run_cost_s
						      : mean_s(s, "SELECT avg(j.end_ns - j.start_ns) / 1e9 FROM job j JOIN variant v"
								  " ON v.id = j.variant_id WHERE j.run_id = ?1 AND v.name = ?2"
								  " AND j.workload = ?3 AND j.status = 'ok' AND j.end_ns > j.start_ns",
							       r.runs[0], r.variants.v[v], g->workload);
			if (kvb_twolevel_components(c->v, ids, c->n, isfinite(bc) ? bc : 0, isfinite(jc) ? jc : 0, &p, NULL)) {
				free(ids);
				continue; /* one boot, or one run per boot: nothing to split */
			}
			free(ids);
			if (!isfinite(bc) || !isfinite(jc)) {
				p.runs_per_boot = NAN;
				no_costs = 1;
			}
			double runs = isfinite(p.runs_per_boot) ? p.runs_per_boot : p.runs_per_boot_now;
			unsigned need = kvb_twolevel_boots(&p, runs, o->detect, o->alpha, o->power);
			kvb_box_cell(&b, g->workload);
			kvb_box_cell(&b, g->metric);
			kvb_box_cell(&b, r.variants.v[v]);
			kvb_box_cellf(&b, "%zu", p.boots);
			kvb_box_cellf(&b, "%.1f", p.runs_per_boot_now);
			kvb_box_cell(&b, kvb_fmt_num(p.mean, t1, sizeof(t1)));
			kvb_box_cell(&b, fmt_or_dash(t2, sizeof(t2), "%.2f", sqrt(p.t_boot2) / fabs(p.mean) * 100));
			kvb_box_cell(&b, fmt_or_dash(t2, sizeof(t2), "%.2f", sqrt(p.s_run2) / fabs(p.mean) * 100));
			kvb_box_cell(&b, fmt_or_dash(t1, sizeof(t1), "%.1f", bc));
			kvb_box_cell(&b, fmt_or_dash(t1, sizeof(t1), "%.2f", jc));
			kvb_box_cell(&b, fmt_or_dash(t1, sizeof(t1), "%.0f", p.runs_per_boot));
			if (need)
				kvb_box_cellf(&b, "%u x %.0f runs", need, runs);
			else
				kvb_box_cell(&b, "> 10000");
			rows++;
			if (isfinite(p.runs_per_boot) && p.runs_per_boot < p.runs_per_boot_now)
				boots_dominate = 1;
			if (isfinite(p.runs_per_boot) && p.runs_per_boot > p.runs_per_boot_now)
				runs_dominate = 1;
		}
	}
	if (!rows) {
		kvb_box_release(&b);
		kvb_report_release(&r);
		return kvb_error_set(err, KVB_EINPUT,
				     "nothing to plan from: every metric needs >= 2 boots per variant and a boot with >= 2 runs "
				     "(run with --rounds 2 or more)");
	}
	kvb_box_print(&b, out);
	fprintf(out,
		"boot sd %%, run sd %%: boot-to-boot and run-to-run components as %% of the mean (Kalibera & Jones 2013:\n"
		"T2^2 = S2^2 - S1^2/n); K&J runs/boot = ceil(sqrt(boot s / run s x run var / boot var)); boots needed:\n"
		"boots per variant to detect a %.3g %% change with %.0f %% power at alpha %g (Welch on boot means), at\n"
		"K&J's runs per boot (or today's when costs are unknown)\n",
		o->detect * 100, o->power * 100, o->alpha);
	if (boots_dominate)
		fprintf(out, "recommendation: boots vary more than their cost justifies runs: fewer runs per boot, more boots "
			     "(--rounds)\n");
	if (runs_dominate)
		fprintf(out, "recommendation: some metrics gain from more runs per boot (iterations) at the same boots\n");
	if (no_costs)
		fprintf(out, "costs unknown for some rows (imported results keep no times): give --boot-cost S and "
			     "--run-cost S\n");
	kvb_box_release(&b);
	kvb_report_release(&r);
	return KVB_OK;
}
