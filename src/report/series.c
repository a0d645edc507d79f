/* Implements `kvbench diff --series`: per commit vs first and vs parent, and E-Divisive change points. */
#include "report/series.h"
#include "store/rows.h"
#include "core/buf.h"
#include "report/format.h"
#include "stats/changepoint.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct commit_info {
	char *sha, *subject, *error;
};

/* variant_build rows of the run, indexed like r->variants; 0 rows -> not a series run. */
static int load_commits(struct kvb_store *s, int64_t run, const struct kvb_report *r, struct commit_info *ci,
			size_t *found, struct kvb_error *err)
{
	struct kvb_rows *q;
	*found = 0;
	if (kvb_rows_open(s, "SELECT v.name, b.commit_sha, b.subject, b.error FROM variant v JOIN variant_build b "
			       "ON b.variant_id = v.id WHERE v.run_id = ?", &q, NULL, NULL) != KVB_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, kvb_store_errmsg(s));
	kvb_rows_bind_int(q, 1, run);
	while (kvb_rows_next(q, NULL) == 1) {
		const char *name = (const char *)kvb_rows_text(q, 0);
		for (size_t i = 0; i < r->variants.n; i++)
			if (!strcmp(r->variants.v[i], name)) {
				ci[i].sha = kvb_xstrdup((const char *)kvb_rows_text(q, 1));
				ci[i].subject = kvb_xstrdup(kvb_rows_text(q, 2) ? (const char *)kvb_rows_text(q, 2) : "");
				ci[i].error = kvb_rows_text(q, 3) ? kvb_xstrdup((const char *)kvb_rows_text(q, 3)) : NULL;
				(*found)++;
			}
	}
	kvb_rows_close(q);
	return KVB_OK;
}

size_t kvb_series_changepoints(const struct kvb_report *r, const struct kvb_group *g, double p0, size_t *first_commit,
			       double *p, size_t max)
{
	/* enough permutations that p can fall well below p0 (R + 1 >= 10 / p0; ecp's R = 199 at 0.05) */
	struct kvb_cp_opts co = { .p0 = p0, .seed = 1, .permutations = p0 < 0.05 ? (unsigned)ceil(10.0 / p0) - 1 : 199 };
	size_t nobs = 0, ncp = 0, cap = 0;
	double *x = NULL;
	size_t *grp = NULL;
	struct kvb_cp cps[8];
	struct kvb_error err;
	/* one observation per (commit, boot): the mean of the boot's runs (boots are the unit, docs/design.md#statistics) */
	for (size_t v = 0; v < r->variants.n; v++) {
		const struct kvb_cell *c = &g->cells[v];
		for (size_t i = 0; i < c->n; i++) {
			int dup = 0;
			double sum = 0;
			size_t k = 0;
			for (size_t j = 0; j < i; j++)
				dup |= c->boot[j] == c->boot[i];
			if (dup)
				continue;
			for (size_t j = i; j < c->n; j++)
				if (c->boot[j] == c->boot[i]) {
					sum += c->v[j];
					k++;
				}
			if (nobs == cap) {
				cap = cap ? 2 * cap : 32;
				x = kvb_xrealloc(x, cap * sizeof(*x));
				grp = kvb_xrealloc(grp, cap * sizeof(*grp));
			}
			x[nobs] = sum / (double)k;
			grp[nobs++] = v;
		}
	}
	if (nobs >= 4 && !kvb_changepoints(x, grp, nobs, &co, cps, &ncp, &err)) {
		if (ncp > max)
			ncp = max;
		for (size_t i = 0; i < ncp; i++) {
			first_commit[i] = cps[i].group;
			p[i] = cps[i].p;
		}
	} else {
		ncp = 0;
	}
	free(x);
	free(grp);
	return ncp;
}

static void fmt_cmp(char *buf, size_t n, const struct kvb_cell_stats *cs)
{
	if (!cs->ok)
		snprintf(buf, n, "-");
	else if (!cs->has_cmp)
		snprintf(buf, n, "(base)");
	else if (isnan(cs->diff_pct))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%+.2f%%%s %s%s", cs->diff_pct, cs->significant ? "*" : "", cs->verdict,
			 cs->one_boot ? " (1 boot)" : "");
}


/* The group's header: its object in the JSON document jroot (returns its "commits" array), or (jroot NULL) its titles. */
static cJSON *group_head(const struct kvb_group *g, cJSON *jroot, FILE *out)
{
	cJSON *jg;
	if (!jroot) {
		fprintf(out, "%s/%s%s%s%s (%s, %s is better); change points: E-Divisive (Matteson & James 2014)\n",
			g->workload, g->metric, g->label && *g->label ? " [" : "", g->label ? g->label : "",
			g->label && *g->label ? "]" : "", g->units ? g->units : "", g->lower_is_better ? "lower" : "higher");
		fprintf(out, "  %-3s %-12s %-40s %4s %10s  %-26s %-26s %s\n", "#", "commit", "subject", "n", "mean",
			"vs first", "vs parent", "change");
		return NULL;
	}
	jg = cJSON_CreateObject();
	cJSON_AddStringToObject(jg, "workload", g->workload);
	cJSON_AddStringToObject(jg, "metric", g->metric);
	cJSON_AddStringToObject(jg, "units", g->units ? g->units : "");
	cJSON_AddBoolToObject(jg, "lower_is_better", g->lower_is_better);
	if (g->label && *g->label)
		cJSON_AddStringToObject(jg, "classifiers", g->label);
	cJSON_AddItemToArray(jroot, jg);
	return cJSON_AddArrayToObject(jg, "commits");
}

/* Commit v's row of the JSON document: its statistic, its change vs the first commit and vs parent, its build error. */
static cJSON *json_row(const struct kvb_report *r, const struct commit_info *ci, size_t v, size_t parent,
		       const struct kvb_cell_stats *first, const struct kvb_cell_stats *par, int change_point)
{
	cJSON *row = cJSON_CreateObject();
	cJSON_AddStringToObject(row, "commit", ci[v].sha ? ci[v].sha : r->variants.v[v]);
	cJSON_AddStringToObject(row, "subject", ci[v].subject ? ci[v].subject : "");
	cJSON_AddNumberToObject(row, "n", (double)(first->ok ? first->s.n : 0));
	if (first->ok)
		cJSON_AddNumberToObject(row, "mean", first->value);
	if (first->has_cmp && !isnan(first->diff_pct)) {
		cJSON_AddNumberToObject(row, "vs_first_pct", first->diff_pct);
		cJSON_AddStringToObject(row, "vs_first", first->verdict);
	}
	if (par->has_cmp && !isnan(par->diff_pct)) {
		cJSON_AddStringToObject(row, "parent", ci[parent].sha ? ci[parent].sha : r->variants.v[parent]);
		cJSON_AddNumberToObject(row, "vs_parent_pct", par->diff_pct);
		cJSON_AddStringToObject(row, "vs_parent", par->verdict);
	}
	cJSON_AddBoolToObject(row, "change_point", change_point);
	if (ci[v].error)
		cJSON_AddStringToObject(row, "build_error", ci[v].error);
	return row;
}

/* Metric group g, one row per commit: into the JSON document jroot, or with jroot NULL as a table on out. */
static void series_group(const struct kvb_report *r, const struct kvb_group *g, const struct commit_info *ci,
			 const struct kvb_diff_opts *o, cJSON *jroot, FILE *out)
{
	size_t cp[8], ncp, parent = 0, have_parent = 0;
	double cpp[8];
	cJSON *jrows;
	ncp = kvb_series_changepoints(r, g, o->alpha, cp, cpp, 8);
	jrows = group_head(g, jroot, out);
	for (size_t v = 0; v < r->variants.n; v++) {
		struct kvb_cell_stats first, par;
		char mean[32], vf[64], vp[64], change[64] = "";
		const char *sha = ci[v].sha ? ci[v].sha : r->variants.v[v];
		kvb_cell_compare(r, g, 0, v, o->stat, o->alpha, &first);
		memset(&par, 0, sizeof(par));
		if (have_parent && first.ok)
			kvb_cell_compare(r, g, parent, v, o->stat, o->alpha, &par);
		for (size_t k = 0; k < ncp; k++)
			if (cp[k] == v)
				snprintf(change, sizeof(change), "<< shift (p=%.3f)", cpp[k]);
		if (first.ok)
			kvb_fmt_num(first.value, mean, sizeof(mean));
		else
			snprintf(mean, sizeof(mean), "%s", ci[v].error ? "build failed" : "no data");
		fmt_cmp(vf, sizeof(vf), &first);
		if (!have_parent || !first.ok)
			snprintf(vp, sizeof(vp), "%s", first.ok ? "(base)" : "-");
		else
			fmt_cmp(vp, sizeof(vp), &par);
		if (jroot)
			cJSON_AddItemToArray(jrows, json_row(r, ci, v, parent, &first, &par, change[0] != '\0'));
		else
			fprintf(out, "  %-3zu %-12.12s %-40.40s %4zu %10s  %-26s %-26s %s\n", v, sha,
				ci[v].subject ? ci[v].subject : "", first.ok ? first.s.n : 0, mean, vf, vp, change);
		if (first.ok) {
			parent = v;
			have_parent = 1;
		}
	}
	if (!jroot)
		fputc('\n', out);
}

int kvb_series_print(struct kvb_store *s, const struct kvb_diff_opts *o, FILE *out, struct kvb_error *err)
{
	struct kvb_report r;
	struct commit_info *ci;
	size_t found = 0;
	const struct kvb_format *fmt = kvb_format_find(o->format ? o->format : "table", err);
	int rc, json;
	cJSON *jroot = NULL;

	if (!fmt)
		return KVB_EUSAGE;
	json = !!(fmt->caps & KVB_FMT_DOCUMENT);
	/* its own fixed-width layout for a terminal, or the JSON document */
	if (!(fmt->caps & (KVB_FMT_TERMINAL | KVB_FMT_DOCUMENT)))
		return kvb_error_set(err, KVB_EUSAGE, "diff --series: --format '%s': expected table or json", fmt->name);
	if (o->sel.nruns > 1)
		return kvb_error_set(err, KVB_EUSAGE, "diff --series reads one run (give one --run)");
	if (o->sel.baseline)
		return kvb_error_set(err, KVB_EUSAGE, "diff --series: the first commit is the baseline (no --baseline)");
	memset(&r, 0, sizeof(r));
	if ((rc = kvb_report_load(s, &o->sel, &r, err)))
		return rc;
	jroot = json ? cJSON_CreateArray() : NULL; /* after every early return: they would leak it */
	ci = kvb_xcalloc(r.variants.n + 1, sizeof(*ci));
	if ((rc = load_commits(s, r.runs[0], &r, ci, &found, err)))
		goto out;
	if (!found) {
		rc = kvb_error_set(err, KVB_EINPUT, "%s: run %lld was not built from git (no series: use `kvbench run "
						    "--series A..B`)",
				   s->path, (long long)r.runs[0]);
		goto out;
	}
	for (size_t gi = 0; gi < r.ngroups; gi++)
		series_group(&r, &r.groups[gi], ci, o, jroot, out);
	if (json) {
		/* versioned as every JSON output (report/format.h): {"schema_version", "series": [...]} */
		cJSON *doc = cJSON_CreateObject();
		char *txt;
		cJSON_AddNumberToObject(doc, "schema_version", KVB_JSON_SCHEMA_VERSION);
		cJSON_AddItemToObject(doc, "series", jroot);
		jroot = doc;
		txt = cJSON_Print(jroot);
		fprintf(out, "%s\n", txt);
		free(txt);
	} else {
		fprintf(out, "vs first / vs parent: change of the %s over |first| (|parent|), * significant (boot-aware verdict "
			     "as in `kvbench diff`%s); parent = the previous commit with results.\n",
			kvb_stat_name(o->stat),
			o->stat == KVB_STAT_MAX || o->stat == KVB_STAT_MIN ? "; min and max are untested"
			: o->stat == KVB_STAT_P95			   ? "; p95 is untested under 20 runs a side"
									   : "");
	}
out:
	cJSON_Delete(jroot);
	for (size_t v = 0; v < r.variants.n; v++) {
		free(ci[v].sha);
		free(ci[v].subject);
		free(ci[v].error);
	}
	free(ci);
	kvb_report_release(&r);
	return rc;
}
