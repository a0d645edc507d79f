/* Implements the Jankbench results reader: ui_results rows -> per (test, iteration) frame statistics. */
#include "workload/jankbench_db.h"
#include "core/util.h"

#include <errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Metric-level classifier keys (docs/design.md#metrics). */
#define JANK_CLS_TEST "test_name"
#define JANK_CLS_ITER "rep" /* not "iteration": that is the job-level classifier */

static const char *const needed_cols[] = { "_id", "name", "iteration", "total_duration", "jank_frame" };

void kvb_jank_results_release(struct kvb_jank_results *res)
{
	if (!res)
		return;
	for (size_t i = 0; i < res->n; i++) {
		free(res->v[i].test_name);
		free(res->v[i].frames_ms);
	}
	free(res->v);
	res->v = NULL;
	res->n = 0;
}

/* Checks that ui_results exists and has every needed column; names all missing ones. */
static int check_schema(sqlite3 *db, const char *path, struct kvb_error *err)
{
	sqlite3_stmt *st = NULL;
	int found[KVB_ARRAY_SIZE(needed_cols)] = { 0 }, ncols = 0, rc = KVB_OK, s;
	char missing[256] = "";

	if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('ui_results')", -1, &st, NULL) != SQLITE_OK)
		return kvb_error_set(err, KVB_EINPUT, "'%s': %s", path, sqlite3_errmsg(db));
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);
		ncols++;
		for (size_t i = 0; c && i < KVB_ARRAY_SIZE(needed_cols); i++)
			if (!strcmp(c, needed_cols[i]))
				found[i] = 1;
	}
	if (s != SQLITE_DONE) {
		/* "file is not a database" shows up here, at the first read */
		rc = kvb_error_set(err, KVB_EINPUT, "'%s': %s", path, sqlite3_errmsg(db));
		goto out;
	}
	if (ncols == 0) {
		rc = kvb_error_set(err, KVB_EINPUT, "'%s' has no ui_results table (not a Jankbench results DB?)", path);
		goto out;
	}
	for (size_t i = 0; i < KVB_ARRAY_SIZE(needed_cols); i++) {
		if (found[i])
			continue;
		if (*missing)
			strcat(missing, ", ");
		strcat(missing, needed_cols[i]);
	}
	if (*missing)
		rc = kvb_error_set(err, KVB_EINPUT, "'%s': table ui_results lacks column(s) %s", path, missing);
out:
	sqlite3_finalize(st);
	return rc;
}

static int is_number(int type)
{
	return type == SQLITE_INTEGER || type == SQLITE_FLOAT;
}

/* Fills the statistics of g from its frames (sorted copy for quantiles). */
static void finish_group(struct kvb_jank_iter *g, double *ms, size_t jank, int keep)
{
	double *sorted = kvb_xmalloc(g->frames * sizeof(double));
	memcpy(sorted, ms, g->frames * sizeof(double));
	gsl_sort(sorted, 1, g->frames);
	g->mean_ms = gsl_stats_mean(ms, 1, g->frames);
	g->max_ms = sorted[g->frames - 1];
	g->p90_ms = gsl_stats_quantile_from_sorted_data(sorted, 1, g->frames, 0.90);
	g->p95_ms = gsl_stats_quantile_from_sorted_data(sorted, 1, g->frames, 0.95);
	g->p99_ms = gsl_stats_quantile_from_sorted_data(sorted, 1, g->frames, 0.99);
	g->jank_pct = 100.0 * (double)jank / (double)g->frames;
	free(sorted);
	if (keep) {
		g->frames_ms = kvb_xmalloc(g->frames * sizeof(double));
		memcpy(g->frames_ms, ms, g->frames * sizeof(double));
	}
}

/*
 * The ui_results row at st (kvb_jankbench_db_read's columns: _id, name, iteration,
 * total_duration, jank_frame) as Jankbench writes it: a test name, an integer iteration, a
 * duration >= 0 and a jank flag 0 or 1. KVB_EINPUT naming the row and what is wrong.
 */
static int check_row(sqlite3_stmt *st, const char *path, struct kvb_error *err)
{
	long long id = sqlite3_column_int64(st, 0);
	const char *name = (const char *)sqlite3_column_text(st, 1);
	double total, jf;
	if (sqlite3_column_type(st, 1) != SQLITE_TEXT || !name || !*name)
		return kvb_error_set(err, KVB_EINPUT, "'%s': ui_results row _id %lld has no test name", path, id);
	if (sqlite3_column_type(st, 2) != SQLITE_INTEGER)
		return kvb_error_set(err, KVB_EINPUT, "'%s': ui_results row _id %lld: iteration is not an integer", path,
				     id);
	if (!is_number(sqlite3_column_type(st, 3)))
		return kvb_error_set(err, KVB_EINPUT, "'%s': ui_results row _id %lld: total_duration is not a number",
				     path, id);
	if (!is_number(sqlite3_column_type(st, 4)))
		return kvb_error_set(err, KVB_EINPUT, "'%s': ui_results row _id %lld: jank_frame is not 0 or 1", path, id);
	total = sqlite3_column_double(st, 3);
	jf = sqlite3_column_double(st, 4);
	if (!(total >= 0))
		return kvb_error_set(err, KVB_EINPUT, "'%s': ui_results row _id %lld: negative total_duration %g", path,
				     id, total);
	if (jf != 0 && jf != 1)
		return kvb_error_set(err, KVB_EINPUT, "'%s': ui_results row _id %lld: jank_frame is %g, not 0 or 1", path,
				     id, jf);
	return KVB_OK;
}

int kvb_jankbench_db_read(const char *path, int keep_frames, struct kvb_jank_results *res, struct kvb_error *err)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	struct stat sb;
	double *ms = NULL;
	size_t nms = 0, ams = 0, jank = 0, alloc = 0;
	struct kvb_jank_iter *cur = NULL;
	int rc = KVB_OK, s;

	res->v = NULL;
	res->n = 0;
	/* sqlite3_open_v2 only says "unable to open database file"; say why */
	if (stat(path, &sb))
		return kvb_error_set(err, KVB_EINPUT, "cannot open Jankbench results '%s': %s", path, strerror(errno));
	/*
	 * Read-only: the file is never changed. A WAL-mode copy needs its -wal
	 * file beside it (frames not yet checkpointed live there); SQLite may
	 * create the -shm index next to it.
	 */
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		rc = kvb_error_set(err, KVB_EINPUT, "cannot open Jankbench results '%s': %s", path,
				   db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	if ((rc = check_schema(db, path, err)))
		goto out;
	if (sqlite3_prepare_v2(db,
			       "SELECT _id, name, iteration, total_duration, jank_frame FROM ui_results "
			       "ORDER BY name, iteration, _id",
			       -1, &st, NULL) != SQLITE_OK) {
		rc = kvb_error_set(err, KVB_EINPUT, "'%s': %s", path, sqlite3_errmsg(db));
		goto out;
	}
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);
		int64_t iter;
		double total, jf;

		if ((rc = check_row(st, path, err)))
			goto out;
		iter = sqlite3_column_int64(st, 2);
		total = sqlite3_column_double(st, 3);
		jf = sqlite3_column_double(st, 4);
		if (!cur || cur->iteration != iter || strcmp(cur->test_name, name)) {
			if (cur)
				finish_group(cur, ms, jank, keep_frames);
			if (res->n == alloc) {
				alloc = alloc ? alloc * 2 : 16;
				res->v = kvb_xrealloc(res->v, alloc * sizeof(*res->v));
			}
			cur = &res->v[res->n++];
			memset(cur, 0, sizeof(*cur));
			cur->test_name = kvb_xstrdup(name);
			cur->iteration = iter;
			nms = 0;
			jank = 0;
		}
		if (nms == ams) {
			ams = ams ? ams * 2 : 256;
			ms = kvb_xrealloc(ms, ams * sizeof(double));
		}
		ms[nms++] = total;
		cur->frames = nms;
		jank += jf == 1;
	}
	if (s != SQLITE_DONE) {
		rc = kvb_error_set(err, KVB_EINPUT, "'%s': %s", path, sqlite3_errmsg(db));
		goto out;
	}
	if (!cur) {
		rc = kvb_error_set(err, KVB_EINPUT, "'%s': table ui_results has no frames (did the benchmark run?)", path);
		goto out;
	}
	finish_group(cur, ms, jank, keep_frames);
out:
	free(ms);
	sqlite3_finalize(st);
	sqlite3_close(db);
	if (rc)
		kvb_jank_results_release(res);
	return rc;
}

void kvb_jankbench_metrics_add(struct kvb_metrics *m, const struct kvb_jank_results *res)
{
	for (size_t i = 0; i < res->n; i++) {
		const struct kvb_jank_iter *g = &res->v[i];
		const struct {
			const char *name;
			double v;
			const char *units;
			int lower;
		} all[] = {
			{ "frames", (double)g->frames, "count", 0 },
			{ "frame_duration_mean", g->mean_ms, "ms", 1 },
			{ "frame_duration_max", g->max_ms, "ms", 1 },
			{ "frame_duration_p90", g->p90_ms, "ms", 1 },
			{ "frame_duration_p95", g->p95_ms, "ms", 1 },
			{ "frame_duration_p99", g->p99_ms, "ms", 1 },
			{ "jank_pct", g->jank_pct, "%", 1 },
		};
		char iter[24];
		snprintf(iter, sizeof(iter), "%lld", (long long)g->iteration);
		for (size_t k = 0; k < KVB_ARRAY_SIZE(all); k++) {
			struct kvb_metric *mt = kvb_metrics_add(m, all[k].name, all[k].v, all[k].units, all[k].lower);
			kvb_metric_classify(mt, JANK_CLS_TEST, g->test_name);
			kvb_metric_classify(mt, JANK_CLS_ITER, iter);
		}
	}
}
