/*
 * Implements the import of WA3 results (csvio.h): results.csv as the csv
 * output processor writes it, and a WA3 output directory as
 * wa/framework/output.py lays it out. One kvbench job per (WA3 job id,
 * iteration) holding all its metrics; the run is stored with status
 * 'imported' in one transaction, nothing from a file that fails.
 */
#include "store/csvio.h"
#include "config/keys.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/pyjson.h"
#include "core/sha256.h"
#include "core/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One earlier attempt of a job WA3 retried (__failed/OUTPUT_NAME-attemptNN/result.json). */
struct wattempt {
	char *status;  /* WA3 status pod, "FAILED(9)" */
	char *error;   /* its last event's message, or NULL */
};

/* One artifact a job's result.json lists: an artifact row, the file left where WA3 wrote it. */
struct wart {
	char *kind;        /* WA3's kind: raw, data, log, meta, export */
	char *path;        /* realpath(DIR)/OUTPUT_NAME/PATH */
	char sha256[65];   /* of a regular file present in DIR, else "" (a directory, or not there) */
	int64_t bytes;
};

/* One job being imported. */
struct wjob {
	char *id, *label, *status, *section;
	char *workload;  /* JobSpec workload_name (jobs.json), or NULL: the label stands in */
	char *error;     /* the last event message of its result.json, or NULL */
	long iteration;
	int retries;
	struct kvb_metrics m;
	cJSON *classifiers;  /* job classifiers (key -> string) */
	struct wattempt *att;  /* the retried attempts found, attempt k + 1 at att[k] */
	size_t natt;
	struct wart *art;  /* the artifacts result.json lists, in its order */
	size_t nart;
	struct kvb_strv missing;  /* one message per metric WA3 could not compute (NaN, inf): not stored */
};

static void wjob_release(struct wjob *j)
{
	free(j->id);
	free(j->label);
	free(j->status);
	free(j->section);
	free(j->workload);
	free(j->error);
	for (size_t k = 0; k < j->natt; k++) {
		free(j->att[k].status);
		free(j->att[k].error);
	}
	free(j->att);
	for (size_t k = 0; k < j->nart; k++) {
		free(j->art[k].kind);
		free(j->art[k].path);
	}
	free(j->art);
	kvb_strv_release(&j->missing);
	kvb_metrics_release(&j->m);
	cJSON_Delete(j->classifiers);
}

/* WA3 job status (core.py Status, a `level` whose pod is "NAME(N)", e.g. "OK(7)", "FAILED(9)" in a real run) -> kvbench's job status. */
static const char *job_status(const char *wa)
{
	char name[32];
	size_t n = wa ? strcspn(wa, "(") : 0;
	if (wa && n < sizeof(name)) {
		memcpy(name, wa, n);
		name[n] = '\0';
		wa = name;
	}
	if (!wa || !strcmp(wa, "OK") || !strcmp(wa, "PARTIAL"))
		return "ok";
	if (!strcmp(wa, "SKIPPED") || !strcmp(wa, "ABORTED") || !strcmp(wa, "PENDING") || !strcmp(wa, "NEW"))
		return "skipped";
	return "failed";
}

/* The statements store_jobs inserts with: a job, one of its earlier attempts, one of its artifacts. */
struct wa3_stmts {
	sqlite3_stmt *job, *att, *art;
};

static int insert_failed(struct kvb_store *s, struct kvb_error *err)
{
	return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
}

/* Job j, the seq-th of the run (variant vid), as a planned job row with its status; *job_id its id. */
static int insert_job(struct kvb_store *s, sqlite3_stmt *st, int64_t run_id, int64_t vid, int64_t seq,
		      const struct wjob *j, const char *status, int64_t *job_id, struct kvb_error *err)
{
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, vid);
	sqlite3_bind_int64(st, 3, seq);
	sqlite3_bind_text(st, 4, j->id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, j->workload ? j->workload : j->label, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 6, j->label, -1, SQLITE_TRANSIENT);
	if (j->section)
		sqlite3_bind_text(st, 7, j->section, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 7);
	sqlite3_bind_int64(st, 8, j->iteration);
	sqlite3_bind_text(st, 9, status, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 10, j->retries + 1);
	if (sqlite3_step(st) != SQLITE_DONE)
		return insert_failed(s, err);
	*job_id = sqlite3_last_insert_rowid(s->db);
	return KVB_OK;
}

/* WA3's retried attempts: the final one is written by kvb_store_job_write as attempt retries + 1. */
static int insert_attempts(struct kvb_store *s, sqlite3_stmt *at, int64_t job_id, const struct wjob *j,
			   struct kvb_error *err)
{
	for (size_t k = 0; k < j->natt; k++) {
		sqlite3_reset(at);
		sqlite3_bind_int64(at, 1, job_id);
		sqlite3_bind_int64(at, 2, (int64_t)k + 1);
		sqlite3_bind_text(at, 3, job_status(j->att[k].status), -1, SQLITE_STATIC);
		sqlite3_bind_text(at, 4, j->att[k].error ? j->att[k].error : j->att[k].status, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(at) != SQLITE_DONE)
			return insert_failed(s, err);
	}
	return KVB_OK;
}

/* The artifacts result.json lists, after kvb_store_job_write (which replaces the job's artifact rows). */
static int insert_artifacts(struct kvb_store *s, sqlite3_stmt *ar, int64_t run_id, int64_t job_id,
			    const struct wjob *j, struct kvb_error *err)
{
	for (size_t k = 0; k < j->nart; k++) {
		const struct wart *a = &j->art[k];
		sqlite3_reset(ar);
		sqlite3_bind_int64(ar, 1, job_id);
		sqlite3_bind_int64(ar, 2, run_id);
		sqlite3_bind_text(ar, 3, a->kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(ar, 4, a->path, -1, SQLITE_STATIC);
		if (a->sha256[0]) {
			sqlite3_bind_text(ar, 5, a->sha256, -1, SQLITE_STATIC);
			sqlite3_bind_int64(ar, 6, a->bytes);
		} else {
			sqlite3_bind_null(ar, 5);
			sqlite3_bind_null(ar, 6);
		}
		if (sqlite3_step(ar) != SQLITE_DONE)
			return insert_failed(s, err);
	}
	return KVB_OK;
}

/* The classifiers kvbench gives j over WA3's own: variant, iteration and wa3_id (replacing any of the same name). */
static void job_classifiers(struct wjob *j, const char *variant)
{
	char its[32];
	if (!j->classifiers)
		j->classifiers = cJSON_CreateObject();
	cJSON_DeleteItemFromObjectCaseSensitive(j->classifiers, "variant");
	cJSON_AddStringToObject(j->classifiers, "variant", variant);
	snprintf(its, sizeof(its), "%ld", j->iteration);
	cJSON_DeleteItemFromObjectCaseSensitive(j->classifiers, "iteration");
	cJSON_AddStringToObject(j->classifiers, "iteration", its);
	/* WA3's job id names its spec (section and workload entry): diff groups by classifiers, and
	 * two specs of one workload (sections s1-wk1 and s2-wk1, other runtime parameters) must
	 * stay two cells, as kvbench's own runs keep them with `section` */
	cJSON_DeleteItemFromObjectCaseSensitive(j->classifiers, "wa3_id");
	cJSON_AddStringToObject(j->classifiers, "wa3_id", j->id);
}

/* Job j, the seq-th of the run: its row, earlier attempts, outcome with metrics and classifiers, events, artifacts. */
static int store_job(struct kvb_store *s, const struct wa3_stmts *q, int64_t run_id, int64_t vid, int64_t seq,
		     struct wjob *j, const char *variant, struct kvb_error *err)
{
	const char *status = job_status(j->status);
	struct kvb_job_outcome o = { .status = status, .attempts = j->retries + 1,
				     .error = strcmp(status, "ok") ? (j->error ? j->error : j->status) : NULL };
	int64_t job_id = 0;
	int rc;
	if ((rc = insert_job(s, q->job, run_id, vid, seq, j, status, &job_id, err)) ||
	    (rc = insert_attempts(s, q->att, job_id, j, err)))
		return rc;
	job_classifiers(j, variant);
	if ((rc = kvb_store_job_write(s, run_id, job_id, &o, &j->m, j->classifiers, err)))
		return rc;
	/* a value WA3 could not compute is no metric row (no reader can take it for 0) but an
	   event of its job: diff footnotes the cell, `show events` names file and line */
	for (size_t k = 0; k < j->missing.n; k++)
		kvb_store_event_job(s, run_id, job_id, "warning", j->missing.v[k]);
	return insert_artifacts(s, q->art, run_id, job_id, j, err);
}

/*
 * The run's events: info, WA3's RunInfo pod (__meta/run_info.json) or NULL, as one run event
 * (info); run_res, WA3's run-level Result pod (DIR/result.json) or NULL: its events (warning).
 */
static void run_events(struct kvb_store *s, int64_t run_id, const cJSON *run_res, const cJSON *info)
{
	const cJSON *ev = cJSON_GetObjectItemCaseSensitive(run_res, "events");
	if (info)
		kvb_store_event(s, run_id, "info",
				"WA3 run_info: run_name '%s', project '%s', uuid %s, start_time %s, end_time %s, duration %g s",
				kvb_get_str(info, "run_name", "-"), kvb_get_str(info, "project", "-"),
				kvb_get_str(info, "uuid", "-"), kvb_get_str(info, "start_time", "-"),
				kvb_get_str(info, "end_time", "-"),
				cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(info, "duration")));
	for (const cJSON *e = cJSON_IsArray(ev) ? ev->child : NULL; e; e = e->next)
		if (kvb_get_str(e, "message", NULL))
			kvb_store_event(s, run_id, "warning", "WA3 run event: %s", kvb_get_str(e, "message", ""));
}

/*
 * Stores jobs[0..n) as run `variant` in a new imported run, one transaction; run_res is WA3's
 * run-level Result pod (DIR/result.json) or NULL: its events become run events (warning);
 * info is WA3's RunInfo pod (__meta/run_info.json) or NULL: kept as one run event (info).
 */
static int store_jobs(struct kvb_store *s, const char *source, const char *command, const char *variant,
		      struct wjob *jobs, size_t n, const cJSON *run_res, const cJSON *info, int64_t *run_id,
		      struct kvb_error *err)
{
	struct kvb_run_info ri = { .agenda_path = source, .platform = "import", .rounds = 1, .status = "imported",
				   .command_line = command, .exec_order = "by_iteration" };
	struct kvb_variant_row vr = { .name = variant, .runtime_json = "{}" };
	struct wa3_stmts q = { NULL, NULL, NULL };
	int64_t vid;
	int rc;
	if ((rc = kvb_store_begin(s, err)))
		return rc;
	size_t not_ok = 0;
	const char *first_bad = NULL;
	if ((rc = kvb_store_run_begin(s, &ri, run_id, err)) || (rc = kvb_store_variant_add(s, *run_id, &vr, &vid, err)))
		goto rollback;
	if (sqlite3_prepare_v2(s->db,
			       "INSERT INTO job(run_id, variant_id, seq, round, spec_id, workload, label, section,"
			       " iteration, status, attempts) VALUES(?,?,?,1,?,?,?,?,?,?,?)",
			       -1, &q.job, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT INTO job_attempt(job_id, attempt, status, error) VALUES(?,?,?,?)", -1, &q.att,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT INTO artifact(job_id, run_id, kind, path, sha256, bytes) VALUES(?,?,?,?,?,?)",
			       -1, &q.art, NULL) != SQLITE_OK) {
		rc = insert_failed(s, err);
		goto rollback;
	}
	for (size_t i = 0; i < n; i++) {
		if (strcmp(job_status(jobs[i].status), "ok") && !not_ok++)
			first_bad = jobs[i].id;
		if ((rc = store_job(s, &q, *run_id, vid, (int64_t)i + 1, &jobs[i], variant, err)))
			goto rollback;
	}
	sqlite3_finalize(q.job);
	sqlite3_finalize(q.att);
	sqlite3_finalize(q.art);
	q.job = q.att = q.art = NULL;
	/* docs/design.md#witnesses: a variant is ok only when every job of it is (WA3 marks the run OK beside a
	 * FAILED job; a reader of `show runs` must not see the variant ok) */
	if (not_ok) {
		char why[256];
		snprintf(why, sizeof(why), "%zu of %zu WA3 job%s not OK (first: %s)", not_ok, n, n == 1 ? "" : "s",
			 first_bad ? first_bad : "?");
		rc = kvb_store_variant_status(s, vid, "incomplete", why, err);
	} else {
		rc = kvb_store_variant_status(s, vid, "ok", NULL, err);
	}
	if (rc)
		goto rollback;
	run_events(s, *run_id, run_res, info);
	return kvb_store_commit(s, err);
rollback:
	sqlite3_finalize(q.job);
	sqlite3_finalize(q.att);
	sqlite3_finalize(q.art);
	kvb_store_rollback(s);
	return rc;
}

/* The job of (id, iteration) in jobs, added when missing. */
static struct wjob *job_of(struct wjob **jobs, size_t *n, const char *id, long iteration, const char *label)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*jobs)[i].id, id) && (*jobs)[i].iteration == iteration)
			return &(*jobs)[i];
	*jobs = kvb_xrealloc(*jobs, (*n + 1) * sizeof(**jobs));
	memset(&(*jobs)[*n], 0, sizeof(**jobs));
	(*jobs)[*n].id = kvb_xstrdup(id);
	(*jobs)[*n].label = kvb_xstrdup(label);
	(*jobs)[*n].iteration = iteration;
	kvb_metrics_init(&(*jobs)[*n].m);
	return &(*jobs)[(*n)++];
}

/* 1 when the last metric of m repeats an earlier one (same name and classifiers): one WA3 job
 * recorded the same measurement twice (a repeated row, two outputs concatenated), which would
 * otherwise count as two samples of the job. */
static int repeated_metric(const struct kvb_metrics *m)
{
	const struct kvb_metric *last = &m->v[m->n - 1];
	for (size_t i = 0; i + 1 < m->n; i++) {
		const struct kvb_metric *o = &m->v[i];
		const cJSON *a = o->classifiers, *b = last->classifiers;
		if (strcmp(o->name, last->name))
			continue;
		if ((a && a->child) != (b && b->child))
			continue;
		if (!(a && a->child) || cJSON_Compare(a, b, 1))
			return 1;
	}
	return 0;
}

/* kvbench's own job classifiers, which --variant, the WA3 iteration and job id set: a WA3 classifier of
 * that name would contradict them in the results view (variant 'base' beside classifier
 * variant=kernelA). */
static int reserved_classifier(const char *key)
{
	return !strcmp(key, "variant") || !strcmp(key, "iteration") || !strcmp(key, "wa3_id");
}

int kvb_wa3_csv_import(struct kvb_store *s, const char *file, const char *variant, int64_t *run_id, size_t *skipped,
		       struct kvb_error *err)
{
	static const char *const head[] = { "id", "workload", "iteration", "metric" };
	struct kvb_csv_rows r;
	struct wjob *jobs = NULL;
	size_t n = 0, ncols;
	int rc;
	*skipped = 0;
	if ((rc = kvb_csv_read(file, &r, err)))
		return rc;
	if (r.n == 0) {
		kvb_csv_rows_release(&r);
		return kvb_error_set(err, KVB_EINPUT, "%s:1: empty file (expected WA3's header id,workload,iteration,metric,...,value,units)", file);
	}
	ncols = r.rows[0].f.n;
	for (size_t k = 0; k < 4 && !rc; k++)
		if (ncols < 6 || strcmp(r.rows[0].f.v[k], head[k]))
			rc = kvb_error_set(err, KVB_EINPUT, "%s:1: not WA3's results.csv: column %zu is '%s', expected '%s'", file,
					   k + 1, k < ncols ? r.rows[0].f.v[k] : "", head[k]);
	if (!rc && (strcmp(r.rows[0].f.v[ncols - 2], "value") || strcmp(r.rows[0].f.v[ncols - 1], "units")))
		rc = kvb_error_set(err, KVB_EINPUT, "%s:1: not WA3's results.csv: the last columns must be 'value', 'units'",
				   file);
	for (size_t c = 4; !rc && c < ncols - 2; c++)
		if (reserved_classifier(r.rows[0].f.v[c]))
			rc = kvb_error_set(err, KVB_EINPUT,
					   "%s:1: classifier column '%s' is kvbench's own (set by --variant and the WA3 "
					   "iteration): rename it, or import each of its values' rows with --variant",
					   file, r.rows[0].f.v[c]);
	for (size_t i = 1; !rc && i < r.n; i++) {
		struct kvb_csv_row *row = &r.rows[i];
		int64_t it = 0;
		double v;
		struct wjob *j;
		struct kvb_metric *mt;
		if (row->f.n == 1 && !row->f.v[0][0])
			continue;
		if (row->f.n != ncols) {
			rc = kvb_error_set(err, KVB_EINPUT, "%s:%ld: %zu fields, header has %zu", file, row->line, row->f.n, ncols);
			break;
		}
		if (!row->f.v[0][0]) {  /* run-level metric: no job */
			(*skipped)++;
			continue;
		}
		if (kvb_parse_i64(row->f.v[2], &it) || it < 1) {
			rc = kvb_error_set(err, KVB_EINPUT, "%s:%ld: iteration \"%.20s\" is not a positive integer", file,
					   row->line, row->f.v[2]);
			break;
		}
		if (kvb_parse_double(row->f.v[ncols - 2], &v)) {
			rc = kvb_error_set(err, KVB_EINPUT, "%s:%ld: value \"%.40s\" is not a finite number", file, row->line,
					   row->f.v[ncols - 2]);
			break;
		}
		j = job_of(&jobs, &n, row->f.v[0], (long)it, row->f.v[1]);
		if (!isfinite(v)) {
			/* WA3 writes str(float('nan')) for a metric it could not compute: the job and its other
			   metrics are kept, this value is missing (no metric row) and said as an event */
			kvb_strv_pushf(&j->missing, "%s:%ld: metric '%s' of WA3 job %s iteration %ld is '%.20s' (not computed): "
				       "stored as missing", file, row->line, row->f.v[3], j->id, j->iteration, row->f.v[ncols - 2]);
			kvb_warn("%s", j->missing.v[j->missing.n - 1]);
			continue;
		}
		mt = kvb_metrics_add(&j->m, row->f.v[3], v, row->f.v[ncols - 1], 0);
		for (size_t c = 4; c < ncols - 2; c++)
			if (row->f.v[c][0])
				kvb_metric_classify(mt, r.rows[0].f.v[c], row->f.v[c]);
		if (repeated_metric(&j->m)) {
			rc = kvb_error_set(err, KVB_EINPUT,
					   "%s:%ld: job %s iteration %ld already has metric '%s' with these classifiers "
					   "(a repeated row?): one value per job and metric",
					   file, row->line, j->id, j->iteration, mt->name);
			break;
		}
	}
	if (!rc && n) {
		size_t values = 0;
		for (size_t i = 0; i < n; i++)
			values += jobs[i].m.n;
		if (!values) /* every value nan: a run with nothing to compare */
			rc = kvb_error_set(err, KVB_EINPUT, "%s: every value is missing (nan or inf): nothing imported", file);
	}
	if (!rc && !n)
		rc = *skipped ? kvb_error_set(err, KVB_EINPUT, "%s: no job rows (only run-level metrics)", file)
			      : kvb_error_set(err, KVB_EINPUT, "%s: no metric rows, only the header (WA3 writes that when no job "
							       "produced a metric)", file);
	if (!rc)
		rc = store_jobs(s, file, "kvbench import csv (WA3 results.csv)", variant, jobs, n, NULL, NULL, run_id, err);
	for (size_t i = 0; i < n; i++)
		wjob_release(&jobs[i]);
	free(jobs);
	kvb_csv_rows_release(&r);
	return rc;
}

/* Reads DIR/sub as JSON as WA3 writes its pods: Python's json.dump, NaN and Infinity included (pyjson.h). */
static int read_json(const char *dir, const char *sub, cJSON **out, int required, struct kvb_error *err)
{
	char *path = kvb_xasprintf("%s/%s", dir, sub);
	struct kvb_buf b = KVB_BUF_INIT;
	int rc = KVB_OK;
	*out = NULL;
	if (kvb_buf_read_file(&b, path)) {
		if (required || errno != ENOENT)
			rc = kvb_error_set(err, KVB_EINPUT, "%s: cannot read: %s%s", path, strerror(errno),
					   required ? " (not a WA3 output directory?)" : "");
	} else {
		rc = kvb_pyjson_parse(b.data, b.len, path, out, err);
	}
	kvb_buf_release(&b);
	free(path);
	return rc;
}

static char *scalar_str(const cJSON *v)
{
	char *s = kvb_node_str(v);
	return s ? s : kvb_xstrdup("");
}

/* The message of the last event of a Result pod (WA3 logs the failure's reason there), or NULL; caller frees. */
static char *last_event(const cJSON *res)
{
	const cJSON *ev = cJSON_GetObjectItemCaseSensitive(res, "events"), *last = NULL;
	for (const cJSON *e = cJSON_IsArray(ev) ? ev->child : NULL; e; e = e->next)
		if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "message")))
			last = e;
	return last ? kvb_xstrdup(kvb_get_str(last, "message", "")) : NULL;
}

/*
 * The attempts WA3 retried before the final one: output.py moves each to
 * __failed/OUTPUT_NAME-attemptNN (NN = 01, 02 ...). A missing one is not an error (WA3 only
 * keeps them when the output directory was not cleaned); what is found goes to j->att.
 */
static int read_attempts(const char *dir, const char *output_name, struct wjob *j, struct kvb_error *err)
{
	int rc = KVB_OK;
	for (int k = 1; k <= j->retries && !rc; k++) {
		char *sub = kvb_xasprintf("__failed/%s-attempt%02d/result.json", output_name, k);
		cJSON *res = NULL;
		rc = read_json(dir, sub, &res, 0, err);
		free(sub);
		if (rc || !res)
			break;
		j->att = kvb_xrealloc(j->att, (j->natt + 1) * sizeof(*j->att));
		j->att[j->natt].status = kvb_xstrdup(kvb_get_str(res, "status", "FAILED"));
		j->att[j->natt++].error = last_event(res);
		cJSON_Delete(res);
	}
	return rc;
}

/*
 * Metrics, job classifiers, failure reason and artifacts of one job's result.json into j.
 * The Result pod's own classifiers replace the JobSpec's: a workload adds to them while it
 * runs (rt-app's duration and task_count are only there).
 */
static int read_result(const char *dir, const char *output_name, struct wjob *j, struct kvb_error *err)
{
	char *sub = kvb_xasprintf("%s/result.json", output_name);
	cJSON *res, *m;
	int rc = read_json(dir, sub, &res, 0, err);
	if (rc || !res) {
		free(sub);
		return rc;
	}
	m = cJSON_GetObjectItemCaseSensitive(res, "metrics");
	int idx = -1;
	for (const cJSON *x = cJSON_IsArray(m) ? m->child : NULL; x; x = x->next) {
		idx++;
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(x, "name");
		const cJSON *val = cJSON_GetObjectItemCaseSensitive(x, "value");
		const cJSON *units = cJSON_GetObjectItemCaseSensitive(x, "units");
		const cJSON *cls = cJSON_GetObjectItemCaseSensitive(x, "classifiers");
		struct kvb_metric *mt;
		if (!cJSON_IsString(name) || !(cJSON_IsNumber(val) || cJSON_IsNull(val))) {
			rc = kvb_error_set(err, KVB_EINPUT, "%s/%s: metrics[%d]: a metric needs a name and a number value", dir,
					   sub, idx);
			break;
		}
		if (cJSON_IsNull(val) || !isfinite(val->valuedouble)) {
			/* json.dump wrote NaN / Infinity (or null for None): WA3 could not compute it */
			kvb_strv_pushf(&j->missing, "%s/%s: metrics[%d].value of metric '%s' is %s (not computed): stored as missing",
				       dir, sub, idx, name->valuestring,
				       cJSON_IsNull(val) ? "null" : kvb_pyjson_nonfinite_name(val->valuedouble));
			kvb_warn("%s", j->missing.v[j->missing.n - 1]);
			continue;
		}
		mt = kvb_metrics_add(&j->m, name->valuestring, val->valuedouble,
				     cJSON_IsString(units) ? units->valuestring : "",
				     cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "lower_is_better")));
		for (const cJSON *c = cJSON_IsObject(cls) ? cls->child : NULL; c && !rc; c = c->next) {
			char *v = scalar_str(c);
			if (reserved_classifier(c->string))
				rc = kvb_error_set(err, KVB_EINPUT,
						   "%s/%s: metric '%s' has classifier '%s', which is kvbench's own (set by "
						   "--variant and the WA3 iteration)",
						   dir, sub, name->valuestring, c->string);
			kvb_metric_classify(mt, c->string, v);
			free(v);
		}
		if (rc)
			break;
		if (repeated_metric(&j->m)) {
			rc = kvb_error_set(err, KVB_EINPUT,
					   "%s/%s: metric '%s' appears twice with the same classifiers: one value per job "
					   "and metric",
					   dir, sub, mt->name);
			break;
		}
	}
	m = cJSON_GetObjectItemCaseSensitive(res, "classifiers");
	if (!rc && cJSON_IsObject(m)) {
		cJSON_Delete(j->classifiers);
		j->classifiers = cJSON_CreateObject();
		for (const cJSON *c = m->child; c; c = c->next) {
			char *v = scalar_str(c);
			cJSON_AddStringToObject(j->classifiers, c->string, v);
			free(v);
		}
	}
	free(j->error);
	j->error = last_event(res);
	/* Artifacts are listed, not copied: each one result.json lists is an artifact row naming it in DIR
	   (absolute, so the row names the file wherever kvbench runs later), with sha256 and bytes when it
	   is a regular file there. Not a job classifier: its paths differ in every iteration, and diff
	   groups by classifiers (one group per iteration, n = 1). */
	m = cJSON_GetObjectItemCaseSensitive(res, "artifacts");
	if (!rc && cJSON_IsArray(m) && m->child) {
		char *abs = realpath(dir, NULL);
		for (const cJSON *a = m->child; a; a = a->next) {
			struct wart *w;
			struct stat sb;
			j->art = kvb_xrealloc(j->art, (j->nart + 1) * sizeof(*j->art));
			w = &j->art[j->nart++];
			w->kind = kvb_xstrdup(kvb_get_str(a, "kind", "data"));
			w->path = kvb_xasprintf("%s/%s/%s", abs ? abs : dir, output_name, kvb_get_str(a, "path", "?"));
			w->sha256[0] = '\0';
			w->bytes = 0;
			/* a directory, or a file not in DIR (trimmed, or never pulled from the target): listed only */
			if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "is_dir")) && !stat(w->path, &sb) &&
			    S_ISREG(sb.st_mode) && kvb_sha256_file(w->path, w->sha256, &w->bytes))
				w->sha256[0] = '\0';
		}
		free(abs);
	}
	cJSON_Delete(res);
	free(sub);
	return rc;
}

int kvb_wa3_dir_import(struct kvb_store *s, const char *dir, const char *variant, int64_t *run_id,
		       struct kvb_error *err)
{
	cJSON *state = NULL, *specs = NULL, *info = NULL, *run_res = NULL;
	char *run_last = NULL;
	const cJSON *sj, *specs_l;
	struct wjob *jobs = NULL;
	size_t n = 0;
	int rc;
	if ((rc = read_json(dir, ".run_state.json", &state, 1, err)) || (rc = read_json(dir, "__meta/run_info.json", &info, 1, err)) ||
	    (rc = read_json(dir, "__meta/jobs.json", &specs, 0, err)) || (rc = read_json(dir, "result.json", &run_res, 0, err)))
		goto out;
	/* A job WA3 skipped or failed without an event of its own was stopped by the run: its reason
	   is the run's last event ("Skipping remaining jobs due to ..."). */
	run_last = last_event(run_res);
	/* RunState pod (run.py): {"status", "timestamp", "jobs": [JobState pods]}; JobSpec pods in jobs.json
	   under "jobs" (output.py write_job_specs). */
	sj = cJSON_GetObjectItemCaseSensitive(state, "jobs");
	specs_l = cJSON_GetObjectItemCaseSensitive(specs, "jobs");
	if (!cJSON_IsArray(sj)) {
		rc = kvb_error_set(err, KVB_EINPUT, "%s/.run_state.json: no \"jobs\"", dir);
		goto out;
	}
	for (const cJSON *js = sj->child; js && !rc; js = js->next) {
		const char *id = kvb_get_str(js, "id", NULL);
		long it = (long)kvb_get_int(js, "iteration", 0);
		struct wjob *j;
		char *out_name;
		if (!id || it < 1) {
			rc = kvb_error_set(err, KVB_EINPUT, "%s/.run_state.json: a job needs \"id\" and \"iteration\"", dir);
			break;
		}
		j = job_of(&jobs, &n, id, it, kvb_get_str(js, "label", id));
		free(j->status);
		{
			const cJSON *st = cJSON_GetObjectItemCaseSensitive(js, "status");
			j->status = cJSON_IsString(st) ? kvb_xstrdup(st->valuestring) : NULL;
		}
		j->retries = (int)kvb_get_int(js, "retries", 0);
		/* the spec's workload, classifiers (replaced by result.json's when it has them) and section;
		   jobs.json holds one JobSpec per job instance (each iteration repeats it): the first is taken */
		/* a section's job ids are SECTION-WORKLOAD (JobSpec.section_id) */
		if (strchr(id, '-') && !j->section)
			j->section = kvb_xstrndup(id, (size_t)(strrchr(id, '-') - id));
		for (const cJSON *sp = cJSON_IsArray(specs_l) ? specs_l->child : NULL; sp; sp = sp->next) {
			const cJSON *cls;
			if (strcmp(kvb_get_str(sp, "id", ""), id))
				continue;
			if (!j->workload && kvb_get_str(sp, "workload_name", NULL))
				j->workload = kvb_xstrdup(kvb_get_str(sp, "workload_name", NULL));
			cls = cJSON_GetObjectItemCaseSensitive(sp, "classifiers");
			for (const cJSON *c = cJSON_IsObject(cls) ? cls->child : NULL; c; c = c->next) {
				char *v;
				if (reserved_classifier(c->string)) {
					rc = kvb_error_set(err, KVB_EINPUT,
							   "%s/__meta/jobs.json: job spec %s has classifier '%s', which is "
							   "kvbench's own (set by --variant and the WA3 iteration)",
							   dir, id, c->string);
					break;
				}
				v = scalar_str(c);
				if (!j->classifiers)
					j->classifiers = cJSON_CreateObject();
				cJSON_AddStringToObject(j->classifiers, c->string, v);
				free(v);
			}
			break;
		}
		if (rc)
			break;
		/* JobState.output_name: ID-LABEL-ITERATION */
		out_name = kvb_xasprintf("%s-%s-%ld", id, j->label, it);
		rc = read_result(dir, out_name, j, err);
		if (!rc)
			rc = read_attempts(dir, out_name, j, err);
		free(out_name);
	}
	if (!rc && !n)
		rc = kvb_error_set(err, KVB_EINPUT, "%s/.run_state.json: no jobs", dir);
	for (size_t i = 0; !rc && run_last && i < n; i++)
		if (!jobs[i].error && strcmp(job_status(jobs[i].status), "ok"))
			jobs[i].error = kvb_xasprintf("%s: %s", jobs[i].status ? jobs[i].status : "?", run_last);
	if (!rc)
		rc = store_jobs(s, dir, "kvbench import wa3", variant, jobs, n, run_res, info, run_id, err);
out:
	for (size_t i = 0; i < n; i++)
		wjob_release(&jobs[i]);
	free(jobs);
	cJSON_Delete(state);
	cJSON_Delete(specs);
	cJSON_Delete(info);
	cJSON_Delete(run_res);
	free(run_last);
	return rc;
}
