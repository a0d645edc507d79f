/* Implements the report's distribution plots: Jankbench frame-duration and rt-app slack / wake-up latency CDFs. */
#include "report/page_build.h"
#include "store/rows.h"
#include "workload/rt_app.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* name -> series of values, in first-seen order (small n: linear search). */
struct series_set {
	struct kvb_strv key, name;  /* key groups plots (task, test), name is the series (variant) */
	double **v;
	size_t *n, *alloc;
};

static void series_add(struct series_set *ss, const char *key, const char *name, double x)
{
	size_t i;
	for (i = 0; i < ss->key.n && (strcmp(ss->key.v[i], key) || strcmp(ss->name.v[i], name)); i++)
		;
	if (i == ss->key.n) {
		kvb_strv_push(&ss->key, key);
		kvb_strv_push(&ss->name, name);
		ss->v = kvb_xrealloc(ss->v, (i + 1) * sizeof(*ss->v));
		ss->n = kvb_xrealloc(ss->n, (i + 1) * sizeof(*ss->n));
		ss->alloc = kvb_xrealloc(ss->alloc, (i + 1) * sizeof(*ss->alloc));
		ss->v[i] = NULL;
		ss->n[i] = ss->alloc[i] = 0;
	}
	if (ss->n[i] == ss->alloc[i]) {
		ss->alloc[i] = ss->alloc[i] ? 2 * ss->alloc[i] : 256;
		ss->v[i] = kvb_xrealloc(ss->v[i], ss->alloc[i] * sizeof(double));
	}
	ss->v[i][ss->n[i]++] = x;
}

/* One cdf plot per key, one series per name. */
static void series_cdfs(struct kvb_page *p, struct series_set *ss, const char *what, const char *xlabel)
{
	struct kvb_strv done = KVB_STRV_INIT;
	for (size_t i = 0; i < ss->key.n; i++) {
		size_t k;
		for (k = 0; k < done.n && strcmp(done.v[k], ss->key.v[i]); k++)
			;
		if (k < done.n)
			continue;
		kvb_strv_push(&done, ss->key.v[i]);
		char *title = kvb_xasprintf("%s: %s", ss->key.v[i], what);
		cJSON *pl = kvb_plot_new("cdf", title, xlabel, "fraction"), *arr = cJSON_CreateArray();
		for (size_t j = i; j < ss->key.n; j++) {
			if (strcmp(ss->key.v[j], ss->key.v[i]))
				continue;
			cJSON *s = cJSON_CreateObject(), *vals = cJSON_CreateArray();
			cJSON_AddStringToObject(s, "name", ss->name.v[j]);
			for (size_t x = 0; x < ss->n[j]; x++)
				cJSON_AddItemToArray(vals, kvb_plot_num(ss->v[j][x]));
			cJSON_AddItemToObject(s, "values", vals);
			cJSON_AddItemToArray(arr, s);
		}
		cJSON_AddItemToObject(pl, "series", arr);
		kvb_page_plot(p, pl, NULL);
		free(title);
	}
	kvb_strv_release(&done);
}

static void series_release(struct series_set *ss)
{
	for (size_t i = 0; i < ss->key.n; i++)
		free(ss->v[i]);
	free(ss->v);
	free(ss->n);
	free(ss->alloc);
	kvb_strv_release(&ss->key);
	kvb_strv_release(&ss->name);
}

/* Artifacts of a kind for the page's runs: rows (path, variant, job). */
static const char *artifact_sql =
	"SELECT a.path, v.name, j.id FROM artifact a JOIN job j ON j.id = a.job_id JOIN variant v ON v.id = j.variant_id"
	" WHERE a.kind = ?1 AND j.run_id IN (SELECT value FROM json_each(?2)) AND j.status IN ('ok', 'instrument-failed')"
	" ORDER BY j.run_id, j.seq, a.id";

static int artifacts(struct kvb_store *s, struct kvb_page *p, const char *kind, struct kvb_rows **st, struct kvb_error *err)
{
	int rc = kvb_rows_open(s, artifact_sql, st, NULL, err);
	if (rc)
		return rc;
	kvb_rows_bind_text(*st, 1, kind);
	kvb_rows_bind_text(*st, 2, p->runs_json);
	return KVB_OK;
}

/* Jankbench keep_frames: jankbench-frames.csv (test_name,rep,frame,total_duration_ms; jankbench.c). */
int kvb_page_jank_cdfs(struct kvb_store *s, struct kvb_page *p, struct kvb_error *err)
{
	struct series_set ss;
	struct kvb_buf missing = KVB_BUF_INIT;
	struct kvb_rows *st;
	size_t files = 0;
	int rc;
	memset(&ss, 0, sizeof(ss));
	if ((rc = artifacts(s, p, "jankbench-frames", &st, err)))
		return rc;
	while (kvb_rows_next(st, NULL) == 1) {
		const char *path = (const char *)kvb_rows_text(st, 0), *variant = (const char *)kvb_rows_text(st, 1);
		FILE *f = fopen(path, "r");
		char line[1024];
		files++;
		if (!f) {
			kvb_buf_addf(&missing, "%s%s (%s)", missing.len ? ", " : "", path, strerror(errno));
			continue;
		}
		while (fgets(line, sizeof(line), f)) {
			/* the last field is the duration; the test name is the first (quoted when it has a comma) */
			char *last = strrchr(line, ','), *first = strchr(line, ',');
			double ms;
			if (!last || !first || !strncmp(line, "test_name,", 10) || kvb_parse_double(strtok(last + 1, "\r\n"), &ms))
				continue;
			*first = '\0';
			if (line[0] == '"' && first > line + 1 && first[-1] == '"') {
				first[-1] = '\0';
				series_add(&ss, line + 1, variant, ms);
			} else {
				series_add(&ss, line, variant, ms);
			}
		}
		fclose(f);
	}
	kvb_rows_close(st);
	if (files) {
		kvb_page_add(p, "Jankbench frame durations", "jankbench")->text =
			missing.len ? kvb_page_keep(p, kvb_xasprintf("Empirical CDF per variant. Missing artifacts: %s", missing.data))
				    : "Empirical CDF of every frame's total duration per variant (keep_frames).";
		series_cdfs(p, &ss, "frame duration CDF", "total frame duration (ms)");
	}
	kvb_buf_release(&missing);
	series_release(&ss);
	return KVB_OK;
}

/* rt-app logs: per task (thread name), slack and wake-up latency CDFs per variant. */
int kvb_page_rtapp_cdfs(struct kvb_store *s, struct kvb_page *p, struct kvb_error *err)
{
	struct series_set slack, wu;
	struct kvb_buf bad = KVB_BUF_INIT;
	struct kvb_rows *st;
	size_t files = 0;
	int rc;
	memset(&slack, 0, sizeof(slack));
	memset(&wu, 0, sizeof(wu));
	if ((rc = artifacts(s, p, "rt-app-log", &st, err)))
		return rc;
	while (kvb_rows_next(st, NULL) == 1) {
		const char *path = (const char *)kvb_rows_text(st, 0), *variant = (const char *)kvb_rows_text(st, 1);
		struct kvb_rtapp_log log;
		struct kvb_error e2;
		char *task = NULL, *dash;
		long index;
		files++;
		/* "rt-app-<thread>-<index>.log" (rt_app.c's log_basename); instances are "<task>-<n>" */
		if (kvb_rtapp_log_name(path, "rt-app", &task, &index))
			task = kvb_xstrdup(path);
		else if ((dash = strrchr(task, '-')) && dash[1] && strspn(dash + 1, "0123456789") == strlen(dash + 1))
			*dash = '\0';
		kvb_rtapp_log_init(&log);
		if (kvb_rtapp_log_load(&log, path, &e2)) {
			kvb_buf_addf(&bad, "%s%s", bad.len ? "; " : "", e2.msg);
		} else {
			for (size_t i = 0; i < log.n; i++) {
				series_add(&slack, task, variant, (double)log.rows[i].slack_us);
				series_add(&wu, task, variant, (double)log.rows[i].wu_lat_us);
			}
		}
		kvb_rtapp_log_release(&log);
		free(task);
	}
	kvb_rows_close(st);
	if (files) {
		kvb_page_add(p, "rt-app slack and wake-up latency", "rt-app")->text =
			bad.len ? kvb_page_keep(p, kvb_xasprintf("Per task, every phase. Unreadable logs: %s", bad.data))
				: "Per task, every phase of every job (rt-app logs): slack (negative = overran its period) "
				  "and wake-up latency after the timer.";
		series_cdfs(p, &slack, "slack CDF", "slack (us)");
		series_cdfs(p, &wu, "wake-up latency CDF", "wake-up latency (us)");
	}
	kvb_buf_release(&bad);
	series_release(&slack);
	series_release(&wu);
	return KVB_OK;
}
