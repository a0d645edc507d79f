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

#define row kvb_csv_row
#define reader kvb_csv_rows

static void on_field(void *data, size_t len, void *arg)
{
	struct reader *r = arg;
	char *s = kvb_xstrndup(data ? data : "", len);
	kvb_strv_push(&r->cur, s);
	free(s);
}

static void on_record(int c, void *arg)
{
	struct reader *r = arg;
	(void)c;
	if (r->n == r->alloc) {
		r->alloc = r->alloc ? r->alloc * 2 : 256;
		r->rows = kvb_xrealloc(r->rows, r->alloc * sizeof(*r->rows));
	}
	r->rows[r->n].f = r->cur;
	r->rows[r->n].line = r->line;
	r->n++;
	memset(&r->cur, 0, sizeof(r->cur));
	r->line = r->next_line;
}

void kvb_csv_rows_release(struct reader *r)
{
	for (size_t i = 0; i < r->n; i++)
		kvb_strv_release(&r->rows[i].f);
	free(r->rows);
	kvb_strv_release(&r->cur);
}

int kvb_csv_read(const char *file, struct reader *r, struct kvb_error *err)
{
	struct csv_parser p;
	struct kvb_buf b = KVB_BUF_INIT;
	int rc = KVB_OK;
	memset(r, 0, sizeof(*r));
	r->line = r->next_line = 1;
	if (kvb_buf_read_file(&b, file))
		return kvb_error_set(err, KVB_EINPUT, "%s: cannot read: %s", file, strerror(errno));
	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL | CSV_EMPTY_IS_NULL) != 0) {
		kvb_buf_release(&b);
		return kvb_error_set(err, KVB_EINPUT, "%s: csv_init failed", file);
	}
	/* Feed line by line so records know the physical line they start on. */
	for (size_t off = 0; off < b.len;) {
		const char *nl = memchr(b.data + off, '\n', b.len - off);
		size_t len = nl ? (size_t)(nl - (b.data + off)) + 1 : b.len - off;
		/* fields are C strings from here on: a NUL would silently cut one short */
		if (memchr(b.data + off, '\0', len)) {
			rc = kvb_error_set(err, KVB_EINPUT, "%s:%ld: NUL byte (not a text file)", file, r->next_line);
			break;
		}
		if (csv_parse(&p, b.data + off, len, on_field, on_record, r) != len) {
			rc = csv_error(&p) == CSV_EPARSE
				     ? kvb_error_set(err, KVB_EINPUT,
						     "%s:%ld: malformed quoted field (RFC 4180: quote the whole field, "
						     "double any quote inside it)", file, r->next_line)
				     : kvb_error_set(err, KVB_EINPUT, "%s:%ld: %s", file, r->next_line,
						     csv_strerror(csv_error(&p)));
			break;
		}
		off += len;
		r->next_line++;
		if (!r->cur.n && r->line < r->next_line)
			r->line = r->next_line;
	}
	if (!rc && csv_fini(&p, on_field, on_record, r) != 0)
		rc = kvb_error_set(err, KVB_EINPUT, "%s:%ld: unterminated quoted field in the record starting here",
				   file, r->line);
	csv_free(&p);
	kvb_buf_release(&b);
	if (rc) {
		/* the records read before the error are not the caller's to free */
		kvb_csv_rows_release(r);
		memset(r, 0, sizeof(*r));
	}
	return rc;
}

enum col { C_VARIANT, C_WORKLOAD, C_METRIC, C_VALUE, C_UNITS, C_LIB, C_ITER, C_BOOT, C_SECTION, C_N };
static const char *const col_names[] = { "variant", "workload", "metric", "value", "units", "lower_is_better",
					 "iteration", "boot", "section" };

int kvb_csv_import(struct kvb_store *s, const char *file, int64_t *run_id, struct kvb_error *err)
{
	struct reader r;
	int idx[C_N], rc;
	size_t ncols, nerr = 0, nerr_header;
	struct kvb_buf msgs = KVB_BUF_INIT;
	struct kvb_strv variants = KVB_STRV_INIT;
	int64_t *vids = NULL;

	if ((rc = kvb_csv_read(file, &r, err)))
		return rc;
	if (r.n == 0) {
		kvb_csv_rows_release(&r);
		return kvb_error_set(err, KVB_EINPUT, "%s:1: empty file (expected a header row)", file);
	}
	ncols = r.rows[0].f.n;
	for (int c = 0; c < C_N; c++) {
		idx[c] = -1;
		for (size_t k = 0; k < ncols; k++)
			if (!strcmp(r.rows[0].f.v[k], col_names[c]) || (c == C_BOOT && !strcmp(r.rows[0].f.v[k], "round")))
				idx[c] = (int)k;
	}
	for (int c = 0; c < C_BOOT; c++)
		if (idx[c] < 0 && c != C_UNITS && c != C_LIB && c != C_ITER) {
			if (msgs.len)
				kvb_buf_addc(&msgs, '\n');
			kvb_buf_addf(&msgs, "%s:1: missing column '%s' (need variant, workload, metric, value)", file, col_names[c]);
			nerr++;
		}
	/* nothing is imported from a file with errors */
	nerr_header = nerr;
	/* validate every row (when the needed columns exist) and report them all, up to 20 */
	for (size_t i = 1; !nerr_header && i < r.n; i++) {
		struct row *row = &r.rows[i];
		double v;
		int64_t it;
		const char *bad = NULL;
		char why[256];
		if (row->f.n == 1 && !row->f.v[0][0])
			continue; /* blank line */
		if (row->f.n != ncols) {
			snprintf(why, sizeof(why), "%zu fields, header has %zu", row->f.n, ncols);
			bad = why;
		} else if (kvb_parse_double(row->f.v[idx[C_VALUE]], &v) || !isfinite(v)) {
			snprintf(why, sizeof(why), "value \"%.40s\" is not a finite number", row->f.v[idx[C_VALUE]]);
			bad = why;
		} else if (!row->f.v[idx[C_VARIANT]][0] || !row->f.v[idx[C_WORKLOAD]][0] || !row->f.v[idx[C_METRIC]][0]) {
			bad = "variant, workload and metric must not be empty";
		} else if (idx[C_LIB] >= 0 && strcmp(row->f.v[idx[C_LIB]], "0") && strcmp(row->f.v[idx[C_LIB]], "1") &&
			   strcmp(row->f.v[idx[C_LIB]], "true") && strcmp(row->f.v[idx[C_LIB]], "false")) {
			snprintf(why, sizeof(why), "lower_is_better \"%.20s\" is not 0/1/true/false", row->f.v[idx[C_LIB]]);
			bad = why;
		} else if (idx[C_ITER] >= 0 && row->f.v[idx[C_ITER]][0] &&
			   (kvb_parse_i64(row->f.v[idx[C_ITER]], &it) || it < 1)) {
			snprintf(why, sizeof(why), "iteration \"%.20s\" is not a positive integer", row->f.v[idx[C_ITER]]);
			bad = why;
		} else if (idx[C_BOOT] >= 0 && row->f.v[idx[C_BOOT]][0] &&
			   (kvb_parse_i64(row->f.v[idx[C_BOOT]], &it) || it < 1)) {
			snprintf(why, sizeof(why), "boot \"%.20s\" is not a positive integer", row->f.v[idx[C_BOOT]]);
			bad = why;
		}
		if (bad) {
			if (nerr < 20)
				kvb_buf_addf(&msgs, "%s%s:%ld: %s", msgs.len ? "\n" : "", file, row->line, bad);
			nerr++;
		}
	}
	if (nerr) {
		rc = kvb_error_set(err, KVB_EINPUT, "%s%s", msgs.data, nerr > 20 ? "\n(more errors not shown)" : "");
		goto out;
	}
	{
		/* a header and no row (or only blank lines) would become an empty run that diff then reports */
		size_t rows = 0;
		for (size_t i = 1; i < r.n; i++)
			rows += !(r.rows[i].f.n == 1 && !r.rows[i].f.v[0][0]);
		if (!rows) {
			rc = kvb_error_set(err, KVB_EINPUT, "%s: no rows after the header: nothing imported", file);
			goto out;
		}
	}
	{
		struct kvb_run_info ri = { .agenda_path = file, .platform = "import", .rounds = 1, .status = "imported",
					   .command_line = "kvbench import csv", .exec_order = "by_iteration" };
		if ((rc = kvb_store_begin(s, err)))
			goto out;
		/* one transaction for the whole file: kvb_store_run_begin etc. run inside it */
		if ((rc = kvb_store_run_begin(s, &ri, run_id, err)))
			goto rollback;
		for (size_t i = 1; i < r.n; i++) {
			struct row *row = &r.rows[i];
			const char *vn;
			size_t k;
			if (row->f.n != ncols)
				continue;
			vn = row->f.v[idx[C_VARIANT]];
			for (k = 0; k < variants.n && strcmp(variants.v[k], vn); k++)
				;
			if (k == variants.n) {
				struct kvb_variant_row vr = { .name = vn, .position = (int)k, .runtime_json = "{}" };
				kvb_strv_push(&variants, vn);
				vids = kvb_xrealloc(vids, variants.n * sizeof(*vids));
				if ((rc = kvb_store_variant_add(s, *run_id, &vr, &vids[k], err)))
					goto rollback;
				if ((rc = kvb_store_variant_status(s, vids[k], "ok", NULL, err)))
					goto rollback;
			}
		}
		/* one job per row: it carries the row's classifiers; metric rows of one job are not regrouped
		 * because a long-format file does not say which values came from one run of a tool */
		{
			sqlite3_stmt *st = NULL;
			if (sqlite3_prepare_v2(s->db,
					       "INSERT INTO job(run_id, variant_id, seq, round, spec_id, workload, label, section,"
					       " iteration, status, attempts) VALUES(?,?,?,?,?,?,?,?,?,'ok',1)",
					       -1, &st, NULL) != SQLITE_OK) {
				rc = kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
				goto rollback;
			}
			for (size_t i = 1; i < r.n; i++) {
				struct row *row = &r.rows[i];
				struct kvb_metrics m;
				struct kvb_job_outcome o = { .status = "ok", .attempts = 1 };
				cJSON *cls;
				size_t k;
				int64_t it = 1, boot = 1, job;
				double v;
				if (row->f.n != ncols)
					continue;
				cls = cJSON_CreateObject();
				for (k = 0; k < variants.n && strcmp(variants.v[k], row->f.v[idx[C_VARIANT]]); k++)
					;
				if (idx[C_ITER] >= 0 && row->f.v[idx[C_ITER]][0])
					kvb_parse_i64(row->f.v[idx[C_ITER]], &it);
				if (idx[C_BOOT] >= 0 && row->f.v[idx[C_BOOT]][0])
					kvb_parse_i64(row->f.v[idx[C_BOOT]], &boot);
				sqlite3_reset(st);
				sqlite3_bind_int64(st, 1, *run_id);
				sqlite3_bind_int64(st, 2, vids[k]);
				sqlite3_bind_int64(st, 3, (int64_t)i);
				sqlite3_bind_int64(st, 4, boot);
				sqlite3_bind_text(st, 5, row->f.v[idx[C_WORKLOAD]], -1, SQLITE_TRANSIENT);
				sqlite3_bind_text(st, 6, row->f.v[idx[C_WORKLOAD]], -1, SQLITE_TRANSIENT);
				sqlite3_bind_text(st, 7, row->f.v[idx[C_WORKLOAD]], -1, SQLITE_TRANSIENT);
				if (idx[C_SECTION] >= 0 && row->f.v[idx[C_SECTION]][0])
					sqlite3_bind_text(st, 8, row->f.v[idx[C_SECTION]], -1, SQLITE_TRANSIENT);
				else
					sqlite3_bind_null(st, 8);
				sqlite3_bind_int64(st, 9, it);
				if (sqlite3_step(st) != SQLITE_DONE) {
					rc = kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
					cJSON_Delete(cls);
					sqlite3_finalize(st);
					goto rollback;
				}
				job = sqlite3_last_insert_rowid(s->db);
				cJSON_AddStringToObject(cls, "variant", row->f.v[idx[C_VARIANT]]);
				{
					char its[32];
					snprintf(its, sizeof(its), "%lld", (long long)it);
					cJSON_AddStringToObject(cls, "iteration", its);
				}
				if (idx[C_SECTION] >= 0 && row->f.v[idx[C_SECTION]][0])
					cJSON_AddStringToObject(cls, "section", row->f.v[idx[C_SECTION]]);
				for (size_t c = 0; c < ncols; c++) {
					int known = 0;
					for (int kc = 0; kc < C_N; kc++)
						known |= idx[kc] == (int)c;
					if (!known && row->f.v[c][0])
						cJSON_AddStringToObject(cls, r.rows[0].f.v[c], row->f.v[c]);
				}
				kvb_metrics_init(&m);
				kvb_parse_double(row->f.v[idx[C_VALUE]], &v);
				kvb_metrics_add(&m, row->f.v[idx[C_METRIC]], v, idx[C_UNITS] >= 0 ? row->f.v[idx[C_UNITS]] : "",
						idx[C_LIB] >= 0 && (!strcmp(row->f.v[idx[C_LIB]], "1") ||
								    !strcmp(row->f.v[idx[C_LIB]], "true")));
				rc = kvb_store_job_write(s, *run_id, job, &o, &m, cls, err);
				kvb_metrics_release(&m);
				cJSON_Delete(cls);
				if (rc) {
					sqlite3_finalize(st);
					goto rollback;
				}
			}
			sqlite3_finalize(st);
		}
		if ((rc = kvb_store_commit(s, err)))
			goto rollback;
		goto out;
	}
rollback:
	kvb_store_rollback(s);
out:
	free(vids);
	kvb_strv_release(&variants);
	kvb_buf_release(&msgs);
	kvb_csv_rows_release(&r);
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
