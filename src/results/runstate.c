/* Implements the run-state notes of `kvbench diff`: failed and missing variants, a failed baseline, empty results. */
#include "results/runstate.h"
#include "core/suggest.h"
#include "store/rows.h"
#include "core/buf.h"
#include "core/util.h"
#include "store/status.h"

#include <stdlib.h>
#include <string.h>

static char *col(struct kvb_rows *q, int i)
{
	const char *t = kvb_rows_text(q, i);
	return t ? kvb_xstrdup((const char *)t) : NULL;
}

int kvb_run_state_load(struct kvb_store *s, const int64_t *runs, size_t nruns, struct kvb_run_state *rs,
		       struct kvb_error *err)
{
	struct kvb_rows *q;
	/* a variant without its own error (it ran, some jobs failed): the first failed job's error says why */
	static const char sql[] =
		"SELECT r.status, v.name, v.status,"
		" coalesce(v.error, (SELECT j.error FROM job j WHERE j.variant_id = v.id AND j.status != 'ok'"
		"                    AND j.error IS NOT NULL ORDER BY j.seq LIMIT 1)),"
		/* planned jobs: those --until-decided skipped as not needed are not (store/status.h), nor are
		 * warm-up jobs (status warmup: neither compared nor missing) or jobs the host disturbed
		 * (status disturbed: measured and left out, counted in diff's disturbance line) */
		" (SELECT count(*) FROM job j WHERE j.variant_id = v.id AND j.status NOT IN ('warmup', 'disturbed') AND NOT "
		KVB_SQL_JOB_NOT_NEEDED("j") "),"
		" (SELECT count(*) FROM job j WHERE j.variant_id = v.id AND j.status = 'ok'),"
		" (SELECT count(*) FROM job j WHERE j.variant_id = v.id AND j.status = 'instrument-failed')"
		" FROM variant v JOIN run r ON r.id = v.run_id WHERE v.run_id = ? ORDER BY v.position";
	memset(rs, 0, sizeof(*rs));
	if (kvb_rows_open(s, sql, &q, NULL, NULL) != KVB_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, kvb_store_errmsg(s));
	for (size_t i = 0; i < nruns; i++) {
		kvb_rows_reset(q);
		kvb_rows_bind_int(q, 1, runs[i]);
		while (kvb_rows_next(q, NULL) == 1) {
			rs->v = kvb_xrealloc(rs->v, (rs->n + 1) * sizeof(*rs->v));
			struct kvb_variant_state *v = &rs->v[rs->n++];
			v->run_id = runs[i];
			v->run_status = col(q, 0);
			v->name = col(q, 1);
			v->status = col(q, 2);
			v->error = col(q, 3);
			v->jobs = (int)kvb_rows_int(q, 4);
			v->jobs_ok = (int)kvb_rows_int(q, 5);
			v->jobs_instr_failed = (int)kvb_rows_int(q, 6);
		}
	}
	kvb_rows_close(q);
	return KVB_OK;
}

void kvb_run_state_release(struct kvb_run_state *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		free(rs->v[i].run_status);
		free(rs->v[i].name);
		free(rs->v[i].status);
		free(rs->v[i].error);
	}
	free(rs->v);
	memset(rs, 0, sizeof(*rs));
}

static int has_results(const struct kvb_report *r, size_t v)
{
	for (size_t g = 0; g < r->ngroups; g++)
		if (r->groups[g].cells[v].n || r->groups[g].cells[v].left_out) /* a left-out cell has its row */
			return 1;
	return 0;
}

/* "failed: flash hook ... " / "3 of 24 jobs ok: <first error>" / "pending (run interrupted)". Owned. */
static char *why(const struct kvb_variant_state *v)
{
	const char *e = v->error ? v->error : "no error recorded";
	if (!strcmp(v->status, "failed"))
		return kvb_xasprintf("failed: %s", e);
	if (v->jobs_ok < v->jobs && !strcmp(v->run_status, "running"))
		return kvb_xasprintf("%d of %d jobs done (run %lld still running)", v->jobs_ok, v->jobs,
				     (long long)v->run_id);
	if (v->jobs_ok < v->jobs) {
		/* an instrument-failed job's workload numbers are in the table: say so, or "0 of 16 ok" beside
		   n=4 cells reads as a contradiction */
		char ifail[96] = "";
		if (v->jobs_instr_failed)
			snprintf(ifail, sizeof(ifail), ", %d more compared without an instrument that failed",
				 v->jobs_instr_failed);
		return kvb_xasprintf("%d of %d jobs ok%s (run %lld %s)%s%s", v->jobs_ok, v->jobs, ifail, (long long)v->run_id,
				     v->run_status, v->error ? "; first error: " : "", v->error ? v->error : "");
	}
	return kvb_xasprintf("%s", v->status);
}

static const struct kvb_variant_state *find(const struct kvb_run_state *rs, const char *name)
{
	for (size_t i = 0; i < rs->n; i++)
		if (!strcmp(rs->v[i].name, name))
			return &rs->v[i];
	return NULL;
}

int kvb_run_state_check(const struct kvb_run_state *rs, const struct kvb_report *r, int with_running,
			struct kvb_strv *notes, struct kvb_error *err)
{
	if (r->variants.n && !has_results(r, 0)) {
		const struct kvb_variant_state *b = find(rs, r->variants.v[0]);
		struct kvb_buf others = KVB_BUF_INIT;
		char *w = b ? why(b) : kvb_xstrdup("no results");
		for (size_t v = 1; v < r->variants.n; v++)
			if (has_results(r, v))
				kvb_buf_addf(&others, "%s%s", others.len ? ", " : "", r->variants.v[v]);
		kvb_error_set(err, KVB_EINPUT, "baseline variant '%s' has no results here (%s); %s%s", r->variants.v[0],
			      w, others.len ? "compare against another with --baseline: " : "no variant has results",
			      others.len ? others.data : "");
		free(w);
		kvb_buf_release(&others);
		return KVB_EINPUT;
	}
	for (size_t v = 0; v < r->variants.n; v++) {
		const struct kvb_variant_state *st = find(rs, r->variants.v[v]);
		int any = has_results(r, v);
		if (st && !with_running && !strcmp(st->run_status, "running") && strcmp(st->status, "failed"))
			continue;
		if (st && (!strcmp(st->status, "failed") || st->jobs_ok < st->jobs)) {
			char *w = why(st);
			kvb_strv_pushf(notes, "note: variant '%s' %s%s", st->name, w,
				       any ? "" : " -- not in the table");
			free(w);
		} else if (!any) {
			kvb_strv_pushf(notes, "note: variant '%s' has no results that match -- not in the table",
				       r->variants.v[v]);
		}
	}
	return KVB_OK;
}

/* Distinct values of one column of the results view for the runs, "a, b, c". Owned. */
static char *distinct(struct kvb_store *s, const struct kvb_report *r, const char *column)
{
	struct kvb_buf out = KVB_BUF_INIT;
	struct kvb_strv seen = KVB_STRV_INIT;
	struct kvb_rows *q;
	char *sql = kvb_xasprintf("SELECT DISTINCT %s FROM results WHERE run_id = ? ORDER BY 1", column);
	if (kvb_rows_open(s, sql, &q, NULL, NULL) == KVB_OK) {
		for (size_t i = 0; i < r->nruns; i++) {
			kvb_rows_reset(q);
			kvb_rows_bind_int(q, 1, r->runs[i]);
			while (kvb_rows_next(q, NULL) == 1) {
				const char *t = (const char *)kvb_rows_text(q, 0);
				size_t k;
				for (k = 0; t && k < seen.n && strcmp(seen.v[k], t); k++)
					;
				if (t && k == seen.n) {
					kvb_strv_push(&seen, t);
					kvb_buf_addf(&out, "%s%s", out.len ? ", " : "", t);
				}
			}
		}
		kvb_rows_close(q);
	}
	free(sql);
	kvb_strv_release(&seen);
	return kvb_buf_detach(&out);
}

/* " (did you mean 'jank_pct'?)" for the first --metric that is a plain name (no glob) close to a stored one. */
static void did_you_mean_metric(struct kvb_buf *m, const struct kvb_report_opts *o, const char *metrics)
{
	struct kvb_strv have = KVB_STRV_INIT;
	char *copy = kvb_xstrdup(metrics ? metrics : ""), *save = NULL, dym[200];
	for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
		kvb_strv_push(&have, t);
	for (size_t i = 0; i <= o->nmetric_globs; i++) {
		const char *g = i < o->nmetric_globs ? o->metric_globs[i] : o->metric_glob;
		if (!g || strpbrk(g, "*?["))
			continue;
		kvb_did_you_mean(dym, sizeof(dym), g, (const char *const *)have.v, have.n);
		if (*dym) {
			kvb_buf_addf(m, "; --metric %s:%s", g, dym);
			break;
		}
	}
	kvb_strv_release(&have);
	free(copy);
}

int kvb_run_state_explain_empty(struct kvb_store *s, const struct kvb_report_opts *o, const struct kvb_report *r,
				struct kvb_error *err)
{
	struct kvb_run_state rs;
	struct kvb_buf m = KVB_BUF_INIT;
	char *metrics = distinct(s, r, "metric"), *workloads = distinct(s, r, "workload");
	int filtered = o->metric_glob || o->nmetric_globs || o->workload;
	for (size_t i = 0; i < r->nruns; i++)
		kvb_buf_addf(&m, "%srun %lld", i ? ", " : "", (long long)r->runs[i]);
	if (!metrics || !*metrics) {
		/* nothing stored at all: say what happened to each variant */
		kvb_buf_addf(&m, " has no results");
		if (!kvb_run_state_load(s, r->runs, r->nruns, &rs, err)) {
			for (size_t i = 0; i < rs.n; i++) {
				char *w = why(&rs.v[i]);
				if (!i)
					kvb_buf_addf(&m, " (%s)", rs.v[i].run_status);
				kvb_buf_addf(&m, "%s variant '%s' %s", i ? ";" : ":", rs.v[i].name, w);
				free(w);
			}
			kvb_run_state_release(&rs);
		}
	} else {
		kvb_buf_addf(&m, ": no results match");
		if (o->workload)
			kvb_buf_addf(&m, " --workload '%s'", o->workload);
		if (o->metric_glob)
			kvb_buf_addf(&m, " --metric '%s'", o->metric_glob);
		for (size_t i = 0; i < o->nmetric_globs; i++)
			if (!o->metric_glob || strcmp(o->metric_glob, o->metric_globs[i]))
				kvb_buf_addf(&m, " --metric '%s'", o->metric_globs[i]);
		kvb_buf_addf(&m, " (workloads: %s; metrics: %s)", workloads, metrics);
		did_you_mean_metric(&m, o, metrics);
		if (!filtered)
			kvb_buf_addf(&m, " -- none of them has a value");
	}
	/* a filter that names nothing stored is bad input (exit 3), as `report` says it and as a run
	 * with nothing stored is: one exit status for "what it names does not exist" */
	kvb_error_set(err, KVB_EINPUT, "%s", m.data);
	kvb_buf_release(&m);
	free(metrics);
	free(workloads);
	return KVB_EINPUT;
}
