/* Implements the report page's --metric/--workload/--variant filters as temp views (page_filters.h). */
#include "report/page_filters.h"
#include "core/util.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

static int any_of(const char *const *pat, size_t n, const char *name)
{
	if (!n)
		return 1;
	for (size_t i = 0; i < n; i++)
		if (!fnmatch(pat[i], name, 0))
			return 1;
	return 0;
}

int kvb_page_filter_any(const struct kvb_page_filter *f)
{
	return f && (f->nmetric || f->nworkload || f->nvariant);
}

int kvb_page_filter_pass(const struct kvb_page_filter *f, const char *kind, const char *name)
{
	if (!f || !name)
		return 1;
	if (!strcmp(kind, "metric"))
		return any_of(f->metric, f->nmetric, name);
	if (!strcmp(kind, "workload"))
		return any_of(f->workload, f->nworkload, name);
	if (!strcmp(kind, "variant"))
		return (f->baseline && !strcmp(name, f->baseline)) || any_of(f->variant, f->nvariant, name);
	/* a per-job plot's kind: passes with one of the metrics it shows */
	if (!strcmp(kind, "artifact") || !strcmp(kind, "channel")) {
		static const struct {
			const char *kind, *metrics[2];
		} fam[] = {
			{ "energy", { "power_mean", "energy" } },
			{ "jankbench-frames", { "frame_duration_mean", NULL } },
			{ "rt-app-log", { "slack_mean", "wu_lat_mean" } },
		};
		for (size_t i = 0; i < KVB_ARRAY_SIZE(fam); i++)
			if (!strcmp(fam[i].kind, name))
				return any_of(f->metric, f->nmetric, fam[i].metrics[0]) ||
				       (fam[i].metrics[1] && any_of(f->metric, f->nmetric, fam[i].metrics[1]));
		return 1;
	}
	return 1;
}

/* SQL kvb_keep(kind, name): kvb_page_filter_pass of the filter in the function's user data. */
static void sql_keep(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	const struct kvb_page_filter *f = sqlite3_user_data(cx);
	(void)argc;
	sqlite3_result_int(cx, kvb_page_filter_pass(f, (const char *)sqlite3_value_text(argv[0]),
						    (const char *)sqlite3_value_text(argv[1])));
}

/* Sets PRAGMA query_only to on (0 or 1; -1: off) and returns what it was. */
static int query_only(struct kvb_store *s, int on)
{
	sqlite3_stmt *st;
	int was = 0;
	char sql[40];
	if (sqlite3_prepare_v2(s->db, "PRAGMA query_only", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		was = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	snprintf(sql, sizeof(sql), "PRAGMA query_only = %d", on > 0);
	sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	return was;
}

/* The views, in creation order (each may read the ones before it). */
static const struct {
	const char *name, *sql;
} views[] = {
	{ "variant", "SELECT * FROM main.variant WHERE kvb_keep('variant', name)" },
	{ "job", "SELECT * FROM main.job WHERE kvb_keep('workload', workload) AND variant_id IN (SELECT id FROM variant)" },
	{ "boot", "SELECT * FROM main.boot WHERE variant_id IN (SELECT id FROM variant)" },
	{ "results", "SELECT * FROM main.results WHERE kvb_keep('workload', workload) AND kvb_keep('variant', variant)"
		     " AND kvb_keep('metric', metric)" },
	{ "jobs", "SELECT * FROM main.jobs WHERE job_id IN (SELECT id FROM job)" },
	{ "energy_channel", "SELECT * FROM main.energy_channel WHERE job_id IN (SELECT id FROM job)"
			    " AND kvb_keep('channel', 'energy')" },
	{ "energy", "SELECT * FROM main.energy WHERE channel_id IN (SELECT id FROM energy_channel)" },
	{ "artifact", "SELECT * FROM main.artifact WHERE (job_id IS NULL OR job_id IN (SELECT id FROM job))"
		      " AND kvb_keep('artifact', kind)" },
	{ "event", "SELECT * FROM main.event WHERE job_id IS NULL OR job_id IN (SELECT id FROM job)" },
};

int kvb_page_filter_apply(struct kvb_store *s, struct kvb_page_filter *f, const char *runs_json, struct kvb_error *err)
{
	sqlite3_stmt *st;
	if (!kvb_page_filter_any(f))
		return KVB_OK;
	if (!f->baseline) {
		if (sqlite3_prepare_v2(s->db,
				       "SELECT name FROM main.variant WHERE run_id IN (SELECT value FROM json_each(?1))"
				       " ORDER BY run_id, position LIMIT 1",
				       -1, &st, NULL) != SQLITE_OK)
			return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
		sqlite3_bind_text(st, 1, runs_json, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			f->baseline = f->baseline_owned = kvb_xstrdup((const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	if (sqlite3_create_function(s->db, "kvb_keep", 2, SQLITE_UTF8, f, sql_keep, NULL, NULL) != SQLITE_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	/* a read-only open (report) has query_only set, which refuses temp objects too; the main
	 * file stays read-only through SQLITE_OPEN_READONLY */
	int qo = query_only(s, -1);
	for (size_t i = 0; i < KVB_ARRAY_SIZE(views); i++) {
		char *sql = kvb_xasprintf("CREATE TEMP VIEW %s AS %s", views[i].name, views[i].sql);
		int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
		free(sql);
		if (rc != SQLITE_OK) {
			rc = kvb_error_set(err, KVB_ESTORE, "%s: filter view %s: %s", s->path, views[i].name,
					   sqlite3_errmsg(s->db));
			query_only(s, qo);
			kvb_page_filter_drop(s, f);
			return rc;
		}
	}
	query_only(s, qo);
	return KVB_OK;
}

void kvb_page_filter_drop(struct kvb_store *s, struct kvb_page_filter *f)
{
	int qo;
	if (!kvb_page_filter_any(f))
		return;
	qo = query_only(s, -1);
	for (size_t i = KVB_ARRAY_SIZE(views); i-- > 0;) {
		char *sql = kvb_xasprintf("DROP VIEW IF EXISTS temp.%s", views[i].name);
		sqlite3_exec(s->db, sql, NULL, NULL, NULL);
		free(sql);
	}
	query_only(s, qo);
	sqlite3_create_function(s->db, "kvb_keep", 2, SQLITE_UTF8, NULL, NULL, NULL, NULL);
	if (f->baseline == f->baseline_owned)
		f->baseline = NULL;
	free(f->baseline_owned);
	f->baseline_owned = NULL;
}
