/* Implements long-format CSV import (libcsv) and export of results. */
#include "store/csvio.h"
#include "config/keys.h"
#include "core/buf.h"
#include "core/util.h"
#include "report/box.h"

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
 * Parses the file held in b record by record, calling fn for each (the
 * header is index 0). Line numbers are 1-based physical lines. Returns the
 * first error: a CSV syntax error (KVB_EINPUT naming the line) or fn's code.
 */
static int csv_scan(const char *file, const struct kvb_buf *b, rec_fn fn, void *ctx, struct kvb_error *err)
{
	struct csv_parser p;
	struct scanner sc = { .next_line = 1, .fn = fn, .ctx = ctx, .err = err };
	int rc = KVB_OK;
	sc.cur.line = 1;
	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL | CSV_EMPTY_IS_NULL) != 0)
		return kvb_error_set(err, KVB_EINPUT, "%s: csv_init failed", file);
	/* Feed line by line so records know the physical line they start on. */
	for (size_t off = 0; off < b->len && !sc.rc;) {
		const char *nl = memchr(b->data + off, '\n', b->len - off);
		size_t len = nl ? (size_t)(nl - (b->data + off)) + 1 : b->len - off;
		/* fields are C strings from here on: a NUL would silently cut one short */
		if (memchr(b->data + off, '\0', len)) {
			rc = kvb_error_set(err, KVB_EINPUT, "%s:%ld: NUL byte (not a text file)", file, sc.next_line);
			break;
		}
		if (csv_parse(&p, b->data + off, len, on_field, on_record, &sc) != len) {
			rc = csv_error(&p) == CSV_EPARSE
				     ? kvb_error_set(err, KVB_EINPUT,
						     "%s:%ld: malformed quoted field (RFC 4180: quote the whole field, "
						     "double any quote inside it)", file, sc.next_line)
				     : kvb_error_set(err, KVB_EINPUT, "%s:%ld: %s", file, sc.next_line,
						     csv_strerror(csv_error(&p)));
			break;
		}
		off += len;
		sc.next_line++;
		if (!sc.cur.n && sc.cur.line < sc.next_line)
			sc.cur.line = sc.next_line;
	}
	if (!rc && !sc.rc && csv_fini(&p, on_field, on_record, &sc) != 0)
		rc = kvb_error_set(err, KVB_EINPUT, "%s:%ld: unterminated quoted field in the record starting here",
				   file, sc.cur.line);
	csv_free(&p);
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
	struct kvb_buf b = KVB_BUF_INIT;
	int rc;
	memset(r, 0, sizeof(*r));
	if (kvb_buf_read_file(&b, file))
		return kvb_error_set(err, KVB_EINPUT, "%s: cannot read: %s", file, strerror(errno));
	rc = csv_scan(file, &b, collect_rec, r, err);
	kvb_buf_release(&b);
	if (rc)
		kvb_csv_rows_release(r); /* the records read before the error are not the caller's to free */
	return rc;
}

enum col { C_VARIANT, C_WORKLOAD, C_METRIC, C_VALUE, C_UNITS, C_LIB, C_ITER, C_BOOT, C_SECTION, C_N };
static const char *const col_names[] = { "variant", "workload", "metric", "value", "units", "lower_is_better",
					 "iteration", "boot", "section" };

/* State shared by the two passes over the file. */
struct import {
	const char *file;
	struct kvb_store *s;
	struct kvb_strv header;
	int idx[C_N];
	size_t nerr, nrows;
	int header_bad; /* a needed column is missing: rows were not checked */
	struct kvb_buf msgs;
	struct kvb_strv variants; /* in order of first appearance */
	int64_t *vids, run_id;
	sqlite3_stmt *job_st, *cls_st, *met_st;
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

/* Pass 1: header columns, then every row checked (up to 20 messages kept) and the variants listed. */
static int check_rec(const struct rec *row, size_t index, void *ctx, struct kvb_error *err)
{
	struct import *im = ctx;
	const int *idx = im->idx;
	size_t ncols = im->header.n;
	double v;
	int64_t it;
	const char *bad = NULL;
	char why[256];
	(void)err;
	if (index == 0) {
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
	if (blank(row))
		return KVB_OK;
	if (row->n != ncols) {
		snprintf(why, sizeof(why), "%zu fields, header has %zu", row->n, ncols);
		bad = why;
	} else if (kvb_parse_double(fld(row, idx[C_VALUE]), &v) || !isfinite(v)) {
		snprintf(why, sizeof(why), "value \"%.40s\" is not a finite number", fld(row, idx[C_VALUE]));
		bad = why;
	} else if (!fld(row, idx[C_VARIANT])[0] || !fld(row, idx[C_WORKLOAD])[0] || !fld(row, idx[C_METRIC])[0]) {
		bad = "variant, workload and metric must not be empty";
	} else if (idx[C_LIB] >= 0 && strcmp(fld(row, idx[C_LIB]), "0") && strcmp(fld(row, idx[C_LIB]), "1") &&
		   strcmp(fld(row, idx[C_LIB]), "true") && strcmp(fld(row, idx[C_LIB]), "false")) {
		snprintf(why, sizeof(why), "lower_is_better \"%.20s\" is not 0/1/true/false", fld(row, idx[C_LIB]));
		bad = why;
	} else if (idx[C_ITER] >= 0 && fld(row, idx[C_ITER])[0] &&
		   (kvb_parse_i64(fld(row, idx[C_ITER]), &it) || it < 1)) {
		snprintf(why, sizeof(why), "iteration \"%.20s\" is not a positive integer", fld(row, idx[C_ITER]));
		bad = why;
	} else if (idx[C_BOOT] >= 0 && fld(row, idx[C_BOOT])[0] &&
		   (kvb_parse_i64(fld(row, idx[C_BOOT]), &it) || it < 1)) {
		snprintf(why, sizeof(why), "boot \"%.20s\" is not a positive integer", fld(row, idx[C_BOOT]));
		bad = why;
	}
	if (bad) {
		if (im->nerr < 20)
			kvb_buf_addf(&im->msgs, "%s%s:%ld: %s", im->msgs.len ? "\n" : "", im->file, row->line, bad);
		im->nerr++;
		return KVB_OK;
	}
	if (variant_find(im, fld(row, idx[C_VARIANT])) == im->variants.n)
		kvb_strv_push(&im->variants, fld(row, idx[C_VARIANT]));
	return KVB_OK;
}

/* One job classifier row (key, value) of job. */
static int add_cls(struct import *im, int64_t job, const char *key, const char *value, struct kvb_error *err)
{
	sqlite3_stmt *st = im->cls_st;
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, job);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, value, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", im->s->path, sqlite3_errmsg(im->s->db));
	return KVB_OK;
}

/*
 * Pass 2 (inside the import's transaction): one job per row. It carries the
 * row's classifiers; metric rows of one job are not regrouped because a
 * long-format file does not say which values came from one run of a tool.
 */
static int import_rec(const struct rec *row, size_t index, void *ctx, struct kvb_error *err)
{
	struct import *im = ctx;
	const int *idx = im->idx;
	sqlite3_stmt *st = im->job_st;
	int64_t it = 1, boot = 1, job;
	double v;
	char its[32];
	int rc;
	if (index == 0 || blank(row))
		return KVB_OK;
	im->nrows++;
	if (idx[C_ITER] >= 0 && fld(row, idx[C_ITER])[0])
		kvb_parse_i64(fld(row, idx[C_ITER]), &it);
	if (idx[C_BOOT] >= 0 && fld(row, idx[C_BOOT])[0])
		kvb_parse_i64(fld(row, idx[C_BOOT]), &boot);
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, im->run_id);
	sqlite3_bind_int64(st, 2, im->vids[variant_find(im, fld(row, idx[C_VARIANT]))]);
	sqlite3_bind_int64(st, 3, (int64_t)index);
	sqlite3_bind_int64(st, 4, boot);
	sqlite3_bind_text(st, 5, fld(row, idx[C_WORKLOAD]), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, fld(row, idx[C_WORKLOAD]), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, fld(row, idx[C_WORKLOAD]), -1, SQLITE_STATIC);
	if (idx[C_SECTION] >= 0 && fld(row, idx[C_SECTION])[0])
		sqlite3_bind_text(st, 8, fld(row, idx[C_SECTION]), -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 8);
	sqlite3_bind_int64(st, 9, it);
	if (sqlite3_step(st) != SQLITE_DONE)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", im->s->path, sqlite3_errmsg(im->s->db));
	job = sqlite3_last_insert_rowid(im->s->db);
	/* the rows kvb_store_job_write would write for a fresh job (job classifiers, one metric; no attempt
	 * history: nothing was attempted here),
	 * bound straight from the record: no JSON or metric list per row */
	snprintf(its, sizeof(its), "%lld", (long long)it);
	rc = add_cls(im, job, "variant", fld(row, idx[C_VARIANT]), err);
	if (!rc)
		rc = add_cls(im, job, "iteration", its, err);
	if (!rc && idx[C_SECTION] >= 0 && fld(row, idx[C_SECTION])[0])
		rc = add_cls(im, job, "section", fld(row, idx[C_SECTION]), err);
	for (size_t c = 0; !rc && c < row->n; c++) {
		int known = 0;
		for (int kc = 0; kc < C_N; kc++)
			known |= idx[kc] == (int)c;
		if (!known && fld(row, c)[0])
			rc = add_cls(im, job, im->header.v[c], fld(row, c), err);
	}
	if (rc)
		return rc;
	kvb_parse_double(fld(row, idx[C_VALUE]), &v);
	st = im->met_st;
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, job);
	sqlite3_bind_text(st, 2, fld(row, idx[C_METRIC]), -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 3, v);
	sqlite3_bind_text(st, 4, idx[C_UNITS] >= 0 ? fld(row, idx[C_UNITS]) : "", -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 5, idx[C_LIB] >= 0 && (!strcmp(fld(row, idx[C_LIB]), "1") || !strcmp(fld(row, idx[C_LIB]), "true")));
	if (sqlite3_step(st) != SQLITE_DONE)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", im->s->path, sqlite3_errmsg(im->s->db));
	return KVB_OK;
}

/*
 * Two passes over the file held in memory (the only O(file) allocation):
 * check every row first, so nothing is imported from a file with errors, then
 * insert in one transaction with prepared statements. Memory is the file's
 * size plus one record, whatever the number of rows.
 */
int kvb_csv_import(struct kvb_store *s, const char *file, int64_t *run_id, struct kvb_error *err)
{
	struct import im = { .file = file, .s = s, .header = KVB_STRV_INIT, .msgs = KVB_BUF_INIT,
			     .variants = KVB_STRV_INIT };
	struct kvb_buf b = KVB_BUF_INIT;
	int rc, fk_off = 0;

	if (kvb_buf_read_file(&b, file))
		return kvb_error_set(err, KVB_EINPUT, "%s: cannot read: %s", file, strerror(errno));
	rc = csv_scan(file, &b, check_rec, &im, err);
	if (rc && !im.header_bad)
		goto out; /* a syntax error: err holds it */
	if (!im.header.n) {
		rc = kvb_error_set(err, KVB_EINPUT, "%s:1: empty file (expected a header row)", file);
		goto out;
	}
	if (im.nerr) {
		rc = kvb_error_set(err, KVB_EINPUT, "%s%s", im.msgs.data, im.nerr > 20 ? "\n(more errors not shown)" : "");
		goto out;
	}
	{
		/* a header and no row (or only blank lines) would become an empty run that diff then reports;
		 * pass 1 lists the variant of every good row, so no variant means no row */
		if (!im.variants.n) {
			rc = kvb_error_set(err, KVB_EINPUT, "%s: no rows after the header: nothing imported", file);
			goto out;
		}
	}
	{
		struct kvb_run_info ri = { .agenda_path = file, .platform = "import", .rounds = 1, .status = "imported",
					   .command_line = "kvbench import csv", .exec_order = "by_iteration" };
		/* every id written below comes from a row inserted in this transaction: the foreign-key
		 * lookups (one per row and table) would only re-check that, at a third of the import's time */
		if ((rc = kvb_store_exec(s, "PRAGMA foreign_keys = OFF", err)))
			goto out;
		fk_off = 1;
		if ((rc = kvb_store_begin(s, err)))
			goto out;
		/* one transaction for the whole file: kvb_store_run_begin etc. run inside it */
		if ((rc = kvb_store_run_begin(s, &ri, &im.run_id, err)))
			goto rollback;
		im.vids = kvb_xcalloc(im.variants.n + 1, sizeof(*im.vids));
		for (size_t k = 0; k < im.variants.n; k++) {
			struct kvb_variant_row vr = { .name = im.variants.v[k], .position = (int)k, .runtime_json = "{}" };
			if ((rc = kvb_store_variant_add(s, im.run_id, &vr, &im.vids[k], err)) ||
			    (rc = kvb_store_variant_status(s, im.vids[k], "ok", NULL, err)))
				goto rollback;
		}
		if (sqlite3_prepare_v3(s->db,
				       "INSERT INTO job(run_id, variant_id, seq, round, spec_id, workload, label, section,"
				       " iteration, status, attempts) VALUES(?,?,?,?,?,?,?,?,?,'ok',1)",
				       -1, SQLITE_PREPARE_PERSISTENT, &im.job_st, NULL) != SQLITE_OK ||
		    sqlite3_prepare_v3(s->db, "INSERT INTO classifier(job_id, key, value) VALUES(?,?,?)", -1,
				       SQLITE_PREPARE_PERSISTENT, &im.cls_st, NULL) != SQLITE_OK ||
		    sqlite3_prepare_v3(s->db,
				       "INSERT INTO metric(job_id, name, value, units, lower_is_better) VALUES(?,?,?,?,?)", -1,
				       SQLITE_PREPARE_PERSISTENT, &im.met_st, NULL) != SQLITE_OK) {
			rc = kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
			goto rollback;
		}
		if ((rc = csv_scan(file, &b, import_rec, &im, err)))
			goto rollback;
		if ((rc = kvb_store_commit(s, err)))
			goto rollback;
		*run_id = im.run_id;
		goto out;
	}
rollback:
	kvb_store_rollback(s);
out:
	sqlite3_finalize(im.job_st);
	sqlite3_finalize(im.cls_st);
	sqlite3_finalize(im.met_st);
	if (fk_off)
		kvb_store_exec(s, "PRAGMA foreign_keys = ON", NULL);
	free(im.vids);
	kvb_strv_release(&im.header);
	kvb_strv_release(&im.variants);
	kvb_buf_release(&im.msgs);
	kvb_buf_release(&b);
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
