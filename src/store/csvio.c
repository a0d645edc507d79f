/* Implements long-format CSV import (libcsv) and export of results. */
#include "store/csvio.h"
#include "store/batch.h"
#include "config/keys.h"
#include "core/buf.h"
#include "core/csv_field.h"
#include "core/log.h"
#include "core/util.h"

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * One record as libcsv delivers it: fields copied into one growing arena
 * (libcsv reuses its own buffer field after field), NUL-terminated, found by
 * offset. Reused record after record, so a pass allocates O(widest record).
 */
struct rec {
	char *arena;
	size_t len, cap;
	size_t *off;
	size_t n, offcap;
	long line; /* physical line where the record started (1-based) */
};

static const char *fld(const struct rec *r, size_t i)
{
	return r->arena + r->off[i];
}

/* Called per record; a non-zero return stops the scan with that code (err already filled). */
typedef int (*rec_fn)(const struct rec *r, size_t index, void *ctx, struct kvb_error *err);

struct scanner {
	struct rec cur;
	long next_line; /* line counter while reading */
	size_t index;   /* records delivered so far (0 = the header) */
	rec_fn fn;
	void *ctx;
	int rc;
	struct kvb_error *err;
};

static void on_field(void *data, size_t len, void *arg)
{
	struct scanner *sc = arg;
	struct rec *r = &sc->cur;
	if (r->n == r->offcap) {
		r->offcap = r->offcap ? r->offcap * 2 : 16;
		r->off = kvb_xrealloc(r->off, r->offcap * sizeof(*r->off));
	}
	if (r->len + len + 1 > r->cap) {
		r->cap = (r->len + len + 1) * 2;
		r->arena = kvb_xrealloc(r->arena, r->cap);
	}
	r->off[r->n++] = r->len;
	if (len)
		memcpy(r->arena + r->len, data, len);
	r->len += len;
	r->arena[r->len++] = '\0';
}

static void on_record(int c, void *arg)
{
	struct scanner *sc = arg;
	(void)c;
	if (!sc->rc)
		sc->rc = sc->fn(&sc->cur, sc->index++, sc->ctx, sc->err);
	sc->cur.n = sc->cur.len = 0;
	sc->cur.line = sc->next_line;
}

/*
 * Parses the open file f line by line (getline: memory is the longest line,
 * not the file), calling fn for each record (the header is index 0). Line
 * numbers are 1-based physical lines. Returns the first error: a read error,
 * a CSV syntax error (KVB_EINPUT naming the line) or fn's code.
 */
static int csv_scan(const char *file, FILE *f, rec_fn fn, void *ctx, struct kvb_error *err)
{
	struct csv_parser p;
	struct scanner sc = { .next_line = 1, .fn = fn, .ctx = ctx, .err = err };
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
	int rc = KVB_OK;
	sc.cur.line = 1;
	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL | CSV_EMPTY_IS_NULL) != 0)
		return kvb_error_set(err, KVB_EINPUT, "%s: csv_init failed", file);
	/* Fed line by line so records know the physical line they start on. */
	while (!sc.rc && (got = getline(&line, &cap, f)) > 0) {
		size_t len = (size_t)got;
		char *text = line;
		/* a UTF-8 byte order mark (Excel's "CSV UTF-8", LibreOffice) is not part of the first column's name */
		if (sc.next_line == 1 && len >= 3 && !memcmp(line, "\xEF\xBB\xBF", 3)) {
			text += 3;
			len -= 3;
		}
		/* fields are C strings from here on: a NUL would silently cut one short */
		if (memchr(text, '\0', len)) {
			rc = kvb_error_set(err, KVB_EINPUT, "%s:%ld: NUL byte (not a text file)", file, sc.next_line);
			break;
		}
		if (csv_parse(&p, text, len, on_field, on_record, &sc) != len) {
			rc = csv_error(&p) == CSV_EPARSE
				     ? kvb_error_set(err, KVB_EINPUT,
						     "%s:%ld: malformed quoted field (RFC 4180: quote the whole field, "
						     "double any quote inside it)", file, sc.next_line)
				     : kvb_error_set(err, KVB_EINPUT, "%s:%ld: %s", file, sc.next_line,
						     csv_strerror(csv_error(&p)));
			break;
		}
		sc.next_line++;
		if (!sc.cur.n && sc.cur.line < sc.next_line)
			sc.cur.line = sc.next_line;
	}
	if (!rc && !sc.rc && ferror(f))
		rc = kvb_error_set(err, KVB_EINPUT, "%s:%ld: read error: %s", file, sc.next_line, strerror(errno));
	if (!rc && !sc.rc && csv_fini(&p, on_field, on_record, &sc) != 0)
		rc = kvb_error_set(err, KVB_EINPUT, "%s:%ld: unterminated quoted field in the record starting here",
				   file, sc.cur.line);
	csv_free(&p);
	free(line);
	free(sc.cur.arena);
	free(sc.cur.off);
	return rc ? rc : sc.rc;
}

/* kvb_csv_read's record callback: a copy of every record, in order. */
static int collect_rec(const struct rec *r, size_t index, void *ctx, struct kvb_error *err)
{
	struct kvb_csv_rows *rows = ctx;
	struct kvb_csv_row *row;
	(void)index;
	(void)err;
	if (rows->n == rows->alloc) {
		rows->alloc = rows->alloc ? rows->alloc * 2 : 256;
		rows->rows = kvb_xrealloc(rows->rows, rows->alloc * sizeof(*rows->rows));
	}
	row = &rows->rows[rows->n++];
	memset(row, 0, sizeof(*row));
	row->line = r->line;
	for (size_t i = 0; i < r->n; i++)
		kvb_strv_push(&row->f, fld(r, i));
	return KVB_OK;
}

void kvb_csv_rows_release(struct kvb_csv_rows *r)
{
	for (size_t i = 0; i < r->n; i++)
		kvb_strv_release(&r->rows[i].f);
	free(r->rows);
	kvb_strv_release(&r->cur);
	memset(r, 0, sizeof(*r));
}

int kvb_csv_read(const char *file, struct kvb_csv_rows *r, struct kvb_error *err)
{
	FILE *f;
	int rc;
	memset(r, 0, sizeof(*r));
	if (!(f = fopen(file, "r")))
		return kvb_error_set(err, KVB_EINPUT, "%s: cannot read: %s", file, strerror(errno));
	rc = csv_scan(file, f, collect_rec, r, err);
	fclose(f);
	if (rc)
		kvb_csv_rows_release(r); /* the records read before the error are not the caller's to free */
	return rc;
}

enum col { C_VARIANT, C_WORKLOAD, C_METRIC, C_VALUE, C_UNITS, C_LIB, C_ITER, C_BOOT, C_SECTION, C_WARMUP, C_N };
static const char *const col_names[] = { "variant", "workload", "metric", "value", "units", "lower_is_better",
					 "iteration", "boot", "section", "warmup" };

/* 0/1/true/false (empty: 0) into *on; -1 for anything else. */
static int parse_flag(const char *s, int *on)
{
	*on = !strcmp(s, "1") || !strcmp(s, "true");
	return *on || !s[0] || !strcmp(s, "0") || !strcmp(s, "false") ? 0 : -1;
}

/* State of one import: the header, the rows' verdicts and the open transaction's statements. */
struct import {
	const char *file;
	struct kvb_store *s;
	struct kvb_strv header;
	int idx[C_N];
	size_t nerr, nrows;
	int header_bad; /* a needed column is missing: rows were not checked */
	size_t nwarmup; /* rows stored as warm-up jobs (iteration 0 or warmup 1/true) */
	long first_warmup_line;
	struct kvb_buf msgs;
	struct kvb_strv variants; /* in order of first appearance */
	int64_t *vids, run_id;
	int64_t next_job; /* the id of the next job row: written explicitly, so rows can be batched */
	struct kvb_batch jobs, classifiers, metrics;
	struct kvb_strv missing;  /* per row whose value is nan/inf: the event's message ... */
	int64_t *missing_job;     /* ... and its job */
	long first_missing_line;
};

static int blank(const struct rec *r)
{
	return r->n == 1 && !fld(r, 0)[0];
}

static size_t variant_find(const struct import *im, const char *name)
{
	size_t k;
	for (k = 0; k < im->variants.n && strcmp(im->variants.v[k], name); k++)
		;
	return k;
}

static int store_fail(const struct import *im, struct kvb_error *err)
{
	return kvb_error_set(err, KVB_ESTORE, "%s: %s", im->s->path, sqlite3_errmsg(im->s->db));
}

/* The header: where each known column is; a missing needed column is an error of line 1. */
static int import_header(struct import *im, const struct rec *row)
{
	for (size_t k = 0; k < row->n; k++)
		kvb_strv_push(&im->header, fld(row, k));
	for (int c = 0; c < C_N; c++) {
		im->idx[c] = -1;
		for (size_t k = 0; k < row->n; k++)
			if (!strcmp(fld(row, k), col_names[c]) || (c == C_BOOT && !strcmp(fld(row, k), "round")))
				im->idx[c] = (int)k;
	}
	for (int c = 0; c < C_BOOT; c++)
		if (im->idx[c] < 0 && c != C_UNITS && c != C_LIB && c != C_ITER) {
			kvb_buf_addf(&im->msgs, "%s%s:1: missing column '%s' (need variant, workload, metric, value)",
				     im->msgs.len ? "\n" : "", im->file, col_names[c]);
			im->nerr++;
		}
	/* nothing is imported from a file with errors; without the columns rows cannot be checked */
	im->header_bad = im->nerr > 0;
	return im->nerr ? KVB_EINPUT : KVB_OK;
}

/* What is wrong with a data row (why[] may hold the text), or NULL. */
static const char *row_problem(const struct import *im, const struct rec *row, char *why, size_t n)
{
	const int *idx = im->idx;
	double v;
	int64_t it;
	int w;
	if (row->n != im->header.n) {
		snprintf(why, n, "%zu fields, header has %zu", row->n, im->header.n);
		return why;
	}
	/* nan, inf, Infinity (any case, as strtod reads them) are a value that was not computed: the row's
	   job is kept without it (insert_row); anything else that is not a number is an error */
	if (kvb_parse_double(fld(row, idx[C_VALUE]), &v)) {
		snprintf(why, n, "value \"%.40s\" is not a finite number", fld(row, idx[C_VALUE]));
		return why;
	}
	if (!fld(row, idx[C_VARIANT])[0] || !fld(row, idx[C_WORKLOAD])[0] || !fld(row, idx[C_METRIC])[0])
		return "variant, workload and metric must not be empty";
	if (idx[C_LIB] >= 0 && strcmp(fld(row, idx[C_LIB]), "0") && strcmp(fld(row, idx[C_LIB]), "1") &&
	    strcmp(fld(row, idx[C_LIB]), "-1") && strcmp(fld(row, idx[C_LIB]), "true") &&
	    strcmp(fld(row, idx[C_LIB]), "false")) {
		snprintf(why, n, "lower_is_better \"%.20s\" is not 0/1/-1/true/false (-1: no better or worse)",
			 fld(row, idx[C_LIB]));
		return why;
	}
	if (idx[C_ITER] >= 0 && fld(row, idx[C_ITER])[0] && (kvb_parse_i64(fld(row, idx[C_ITER]), &it) || it < 0)) {
		snprintf(why, n, "iteration \"%.20s\" is not 0 (a warm-up) or a positive integer", fld(row, idx[C_ITER]));
		return why;
	}
	if (idx[C_WARMUP] >= 0 && parse_flag(fld(row, idx[C_WARMUP]), &w)) {
		snprintf(why, n, "warmup \"%.20s\" is not 0/1/true/false", fld(row, idx[C_WARMUP]));
		return why;
	}
	if (idx[C_BOOT] >= 0 && fld(row, idx[C_BOOT])[0] && (kvb_parse_i64(fld(row, idx[C_BOOT]), &it) || it < 1)) {
		snprintf(why, n, "boot \"%.20s\" is not a positive integer", fld(row, idx[C_BOOT]));
		return why;
	}
	return NULL;
}

/* The variant row of name, added to the run at its first appearance (position = order of appearance). */
static int variant_id(struct import *im, const char *name, int64_t *id, struct kvb_error *err)
{
	size_t k = variant_find(im, name);
	int rc;
	if (k == im->variants.n) {
		struct kvb_variant_row vr = { .name = name, .position = (int)k, .runtime_json = "{}" };
		kvb_strv_push(&im->variants, name);
		im->vids = kvb_xrealloc(im->vids, im->variants.n * sizeof(*im->vids));
		if ((rc = kvb_store_variant_add(im->s, im->run_id, &vr, &im->vids[k], err)) ||
		    (rc = kvb_store_variant_status(im->s, im->vids[k], "ok", NULL, err)))
			return rc;
	}
	*id = im->vids[k];
	return KVB_OK;
}

/* One job classifier row (metric_id NULL). */
static int add_classifier(struct import *im, int64_t job, const char *key, const char *value, struct kvb_error *err)
{
	kvb_batch_int(&im->classifiers, job);
	kvb_batch_text(&im->classifiers, key);
	kvb_batch_text(&im->classifiers, value);
	return kvb_batch_row_end(&im->classifiers, err);
}

/*
 * One job per row, with the rows kvb_store_job_write would write for a fresh
 * job (job classifiers, one metric; no attempt history: nothing was attempted
 * here), bound straight from the record. Metric rows of one job are not
 * regrouped: a long-format file does not say which values came from one run
 * of a tool.
 */
static int insert_row(struct import *im, const struct rec *row, size_t index, struct kvb_error *err)
{
	const int *idx = im->idx;
	const char *section = idx[C_SECTION] >= 0 && fld(row, idx[C_SECTION])[0] ? fld(row, idx[C_SECTION]) : NULL;
	const char *lib = idx[C_LIB] >= 0 ? fld(row, idx[C_LIB]) : "0";
	int64_t it = 1, boot = 1, vid, job = im->next_job++;
	double v;
	char its[32];
	int rc, warmup = 0;
	if (idx[C_ITER] >= 0 && fld(row, idx[C_ITER])[0])
		kvb_parse_i64(fld(row, idx[C_ITER]), &it);
	if (idx[C_WARMUP] >= 0)
		parse_flag(fld(row, idx[C_WARMUP]), &warmup);
	/* iteration 0 is a warm-up, as kvbench's own planner numbers them (0022_warmup.sql) */
	warmup |= it == 0;
	if (warmup && !im->nwarmup++)
		im->first_warmup_line = row->line;
	if (idx[C_BOOT] >= 0 && fld(row, idx[C_BOOT])[0])
		kvb_parse_i64(fld(row, idx[C_BOOT]), &boot);
	if ((rc = variant_id(im, fld(row, idx[C_VARIANT]), &vid, err)))
		return rc;
	kvb_batch_int(&im->jobs, job);
	kvb_batch_int(&im->jobs, im->run_id);
	kvb_batch_int(&im->jobs, vid);
	kvb_batch_int(&im->jobs, (int64_t)index); /* seq */
	kvb_batch_int(&im->jobs, boot);           /* round */
	for (int i = 0; i < 3; i++)               /* spec_id, workload, label */
		kvb_batch_text(&im->jobs, fld(row, idx[C_WORKLOAD]));
	kvb_batch_text(&im->jobs, section);
	kvb_batch_int(&im->jobs, it);
	kvb_batch_text(&im->jobs, warmup ? "warmup" : "ok"); /* warmup: stored, never compared (results view) */
	kvb_batch_int(&im->jobs, 1); /* attempts */
	if ((rc = kvb_batch_row_end(&im->jobs, err)))
		return rc;

	snprintf(its, sizeof(its), "%lld", (long long)it);
	if ((rc = add_classifier(im, job, "variant", fld(row, idx[C_VARIANT]), err)) ||
	    (rc = add_classifier(im, job, "iteration", its, err)) ||
	    (section && (rc = add_classifier(im, job, "section", section, err))))
		return rc;
	for (size_t c = 0; c < row->n; c++) {
		int known = 0;
		for (int kc = 0; kc < C_N; kc++)
			known |= idx[kc] == (int)c;
		if (!known && fld(row, c)[0] && (rc = add_classifier(im, job, im->header.v[c], fld(row, c), err)))
			return rc;
	}

	kvb_parse_double(fld(row, idx[C_VALUE]), &v);
	if (!isfinite(v)) {
		/* no metric row (no reader can take it for 0): an event of the job says which value is missing */
		kvb_strv_pushf(&im->missing, "%s:%ld: metric '%s' is '%.20s' (not computed): stored as missing", im->file,
			       row->line, fld(row, idx[C_METRIC]), fld(row, idx[C_VALUE]));
		im->missing_job = kvb_xrealloc(im->missing_job, im->missing.n * sizeof(*im->missing_job));
		im->missing_job[im->missing.n - 1] = job;
		if (im->missing.n == 1)
			im->first_missing_line = row->line;
		kvb_warn("%s", im->missing.v[im->missing.n - 1]);
		return KVB_OK;
	}
	kvb_batch_int(&im->metrics, job);
	kvb_batch_text(&im->metrics, fld(row, idx[C_METRIC]));
	kvb_batch_double(&im->metrics, v);
	kvb_batch_text(&im->metrics, idx[C_UNITS] >= 0 ? fld(row, idx[C_UNITS]) : "");
	kvb_batch_int(&im->metrics, !strcmp(lib, "-1") ? KVB_NO_DIRECTION : !strcmp(lib, "1") || !strcmp(lib, "true"));
	return kvb_batch_row_end(&im->metrics, err);
}

/*
 * The record callback of the one pass: the header, then every row checked (up
 * to 20 messages kept) and, while no row was bad, inserted. A bad row stops
 * the inserts, not the checking: the user sees every problem at once, and the
 * transaction is rolled back (import_finish).
 */
static int import_rec(const struct rec *row, size_t index, void *ctx, struct kvb_error *err)
{
	struct import *im = ctx;
	char why[256];
	const char *bad;
	if (index == 0)
		return import_header(im, row);
	if (blank(row))
		return KVB_OK;
	if ((bad = row_problem(im, row, why, sizeof(why)))) {
		if (im->nerr < 20)
			kvb_buf_addf(&im->msgs, "%s%s:%ld: %s", im->msgs.len ? "\n" : "", im->file, row->line, bad);
		im->nerr++;
		return KVB_OK;
	}
	im->nrows++;
	return im->nerr ? KVB_OK : insert_row(im, row, index, err);
}

/*
 * Opens the import's one transaction: the run row and the batched inserts.
 * Foreign-key checks are off for it: every id written comes from a row
 * inserted in this transaction, and the lookups (one per row and table)
 * would only re-check that, at a third of the import's time. Job ids are
 * given explicitly from max(id) + 1, the id SQLite would pick (no
 * AUTOINCREMENT; BEGIN IMMEDIATE holds the write lock), so a job's
 * classifier and metric rows can be batched before the job row is written.
 */
static int import_begin(struct import *im, struct kvb_error *err)
{
	struct kvb_run_info ri = { .agenda_path = im->file, .platform = "import", .rounds = 1, .status = "imported",
				   .command_line = "kvbench import csv", .exec_order = "by_iteration" };
	sqlite3_stmt *st;
	int rc;
	kvb_batch_init(&im->jobs, im->s,
		       "INSERT OR FAIL INTO job(id, run_id, variant_id, seq, round, spec_id, workload, label, section,"
		       " iteration, status, attempts) VALUES", 12);
	kvb_batch_init(&im->classifiers, im->s, "INSERT OR FAIL INTO classifier(job_id, key, value) VALUES", 3);
	kvb_batch_init(&im->metrics, im->s,
		       "INSERT OR FAIL INTO metric(job_id, name, value, units, lower_is_better) VALUES", 5);
	if ((rc = kvb_store_exec(im->s, "PRAGMA foreign_keys = OFF", err)) || (rc = kvb_store_begin(im->s, err)))
		return rc;
	if ((rc = kvb_store_run_begin(im->s, &ri, &im->run_id, err)))
		return rc;
	if (sqlite3_prepare_v2(im->s->db, "SELECT coalesce(max(id), 0) + 1 FROM job", -1, &st, NULL) != SQLITE_OK)
		return store_fail(im, err);
	rc = sqlite3_step(st) == SQLITE_ROW ? KVB_OK : store_fail(im, err);
	im->next_job = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc;
}

/* Commits a file without errors and with rows; anything else is the caller's rollback with err set. */
static int import_finish(struct import *im, struct kvb_error *err)
{
	int rc;
	if (!im->header.n)
		return kvb_error_set(err, KVB_EINPUT, "%s:1: empty file (expected a header row)", im->file);
	if (im->nerr)
		return kvb_error_set(err, KVB_EINPUT, "%s%s", im->msgs.data,
				     im->nerr > 20 ? "\n(more errors not shown)" : "");
	/* a header and no row (or only blank lines) would become an empty run that diff then reports */
	if (!im->nrows)
		return kvb_error_set(err, KVB_EINPUT, "%s: no rows after the header: nothing imported", im->file);
	/* rows whose every value is nan/inf would be a run with nothing to compare */
	if (im->missing.n == im->nrows)
		return kvb_error_set(err, KVB_EINPUT, "%s:%ld: every value is missing (nan or inf, from this line on): "
				     "nothing imported", im->file, im->first_missing_line);
	if (im->nwarmup == im->nrows)
		return kvb_error_set(err, KVB_EINPUT, "%s:%ld: every row is a warm-up (iteration 0 or warmup 1, the first "
				     "here): nothing to compare, nothing imported", im->file, im->first_warmup_line);
	if (im->nwarmup)
		kvb_info("%s: %zu warm-up row%s (iteration 0 or warmup 1) stored as warm-up jobs, never compared",
			 im->file, im->nwarmup, im->nwarmup == 1 ? "" : "s");
	if ((rc = kvb_batch_flush(&im->jobs, err)) || (rc = kvb_batch_flush(&im->classifiers, err)) ||
	    (rc = kvb_batch_flush(&im->metrics, err)))
		return rc;
	for (size_t i = 0; i < im->missing.n; i++)
		kvb_store_event_job(im->s, im->run_id, im->missing_job[i], "warning", im->missing.v[i]);
	return kvb_store_commit(im->s, err);
}

static void import_release(struct import *im)
{
	kvb_batch_release(&im->jobs);
	kvb_batch_release(&im->classifiers);
	kvb_batch_release(&im->metrics);
	kvb_strv_release(&im->missing);
	free(im->missing_job);
	free(im->vids);
	kvb_strv_release(&im->header);
	kvb_strv_release(&im->variants);
	kvb_buf_release(&im->msgs);
}

/*
 * One pass over the file, streamed (memory is one line plus SQLite's page
 * cache, whatever the number of rows), inside one transaction: begin, check
 * and insert every row, then commit, or roll back when any row was bad so
 * nothing is imported from a file with errors.
 */
int kvb_csv_import(struct kvb_store *s, const char *file, int64_t *run_id, struct kvb_error *err)
{
	struct import im = { .file = file, .s = s, .header = KVB_STRV_INIT, .msgs = KVB_BUF_INIT,
			     .variants = KVB_STRV_INIT };
	FILE *f = fopen(file, "r");
	int rc;

	if (!f)
		return kvb_error_set(err, KVB_EINPUT, "%s: cannot read: %s", file, strerror(errno));
	rc = import_begin(&im, err);
	if (!rc) {
		rc = csv_scan(file, f, import_rec, &im, err);
		if (!rc || im.header_bad)
			rc = import_finish(&im, err); /* else a syntax or store error: err holds it */
	}
	if (rc)
		kvb_store_rollback(s);
	else
		*run_id = im.run_id;
	import_release(&im);
	kvb_store_exec(s, "PRAGMA foreign_keys = ON", NULL);
	fclose(f);
	return rc;
}

int kvb_csv_export(struct kvb_store *s, int64_t run_id, FILE *out, struct kvb_error *err)
{
	sqlite3_stmt *st;
	struct kvb_strv keys = KVB_STRV_INIT;
	int rc = KVB_OK;
	if (!run_id && (rc = kvb_store_latest_run(s, &run_id, err)))
		return rc;
	/* classifier columns: union of keys, sorted, minus the fixed columns */
	if (sqlite3_prepare_v2(s->db,
			       "SELECT DISTINCT c.key FROM classifier c JOIN job j ON j.id = c.job_id WHERE j.run_id = ?"
			       " AND c.key NOT IN ('variant', 'iteration', 'section', 'boot') ORDER BY c.key",
			       -1, &st, NULL) != SQLITE_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_bind_int64(st, 1, run_id);
	while (sqlite3_step(st) == SQLITE_ROW)
		kvb_strv_push(&keys, (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	fputs("variant,workload,metric,value,units,lower_is_better,iteration,boot,section", out);
	for (size_t k = 0; k < keys.n; k++) {
		fputc(',', out);
		kvb_csv_field(out, keys.v[k]);
	}
	fputc('\n', out);
	if (sqlite3_prepare_v2(s->db,
			       "SELECT variant, workload, metric, value, units, lower_is_better, iteration, boot,"
			       " coalesce(section, ''), classifiers FROM results WHERE run_id = ? ORDER BY metric_id",
			       -1, &st, NULL) != SQLITE_OK) {
		kvb_strv_release(&keys);
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	}
	sqlite3_bind_int64(st, 1, run_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		cJSON *c = cJSON_Parse((const char *)sqlite3_column_text(st, 9));
		for (int i = 0; i < 3; i++) {
			kvb_csv_field(out, (const char *)sqlite3_column_text(st, i));
			fputc(',', out);
		}
		fprintf(out, "%.17g,", sqlite3_column_double(st, 3));
		kvb_csv_field(out, (const char *)sqlite3_column_text(st, 4));
		fprintf(out, ",%d,%lld,%lld,", sqlite3_column_int(st, 5), (long long)sqlite3_column_int64(st, 6),
			(long long)sqlite3_column_int64(st, 7));
		kvb_csv_field(out, (const char *)sqlite3_column_text(st, 8));
		for (size_t k = 0; k < keys.n; k++) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, keys.v[k]);
			fputc(',', out);
			kvb_csv_field(out, cJSON_IsString(v) ? v->valuestring : "");
		}
		fputc('\n', out);
		cJSON_Delete(c);
	}
	sqlite3_finalize(st);
	kvb_strv_release(&keys);
	return KVB_OK;
}
