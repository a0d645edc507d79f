/* Implements `kvbench report`: the sections and plot specs of the report page, written atomically. */
#include "report/page.h"
#include "core/samples.h"
#include "core/util.h"
#include "report/diff.h"
#include "report/format.h"
#include "report/model.h"
#include "report/sqltable.h"
#include "store/schema.h"
#include "workload/rt_app.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The document being built; owns every section's storage. */
struct page {
	struct kvb_out_section *sec;
	size_t n, alloc;
	struct kvb_box **boxes;
	size_t nboxes;
	cJSON **plots;
	size_t nplots;
	struct kvb_strv strs;
	const char *runs_json;  /* "[1,2]": bound to ?2 of every section query */
	int nruns;
};

static const char *keep(struct page *p, char *s)
{
	kvb_strv_push(&p->strs, s);
	free(s);
	return p->strs.v[p->strs.n - 1];
}

static struct kvb_out_section *add(struct page *p, const char *heading, const char *id)
{
	if (p->n == p->alloc) {
		p->alloc = p->alloc ? 2 * p->alloc : 32;
		p->sec = kvb_xrealloc(p->sec, p->alloc * sizeof(*p->sec));
	}
	memset(&p->sec[p->n], 0, sizeof(*p->sec));
	p->sec[p->n].heading = heading ? keep(p, kvb_xstrdup(heading)) : NULL;
	p->sec[p->n].id = id;
	return &p->sec[p->n++];
}

static void add_plot(struct page *p, cJSON *plot, const char *caption)
{
	struct kvb_out_section *s = add(p, NULL, NULL);
	p->plots = kvb_xrealloc(p->plots, (p->nplots + 1) * sizeof(*p->plots));
	p->plots[p->nplots++] = plot;
	s->plot = plot;
	s->text = caption ? keep(p, kvb_xstrdup(caption)) : NULL;
}

static void page_release(struct page *p)
{
	for (size_t i = 0; i < p->nboxes; i++) {
		kvb_box_release(p->boxes[i]);
		free(p->boxes[i]);
	}
	for (size_t i = 0; i < p->nplots; i++)
		cJSON_Delete(p->plots[i]);
	free(p->boxes);
	free(p->plots);
	free(p->sec);
	kvb_strv_release(&p->strs);
}

/* A table section from SQL over the page's runs (?2); `none` is shown instead of an empty table. */
static int add_sql(struct page *p, struct kvb_store *s, const char *heading, const char *id, const char *sql,
		   const char *none, size_t *rows, struct kvb_error *err)
{
	struct kvb_box *b = kvb_xcalloc(1, sizeof(*b));
	struct kvb_out_section *sec;
	size_t n = 0;
	int rc = kvb_sql_box(s, sql, -1, p->runs_json, b, &n, err);
	if (rc) {
		free(b);
		return rc == KVB_EINPUT ? KVB_ESTORE : rc;
	}
	p->boxes = kvb_xrealloc(p->boxes, (p->nboxes + 1) * sizeof(*p->boxes));
	p->boxes[p->nboxes++] = b;
	sec = add(p, heading, id);
	if (n)
		sec->table = b;
	else
		sec->text = none;
	if (rows)
		*rows = n;
	return KVB_OK;
}

/* Plot numbers keep 6 significant digits: a screen shows fewer, and the page stays small. */
static cJSON *num6(double x)
{
	char b[32];
	if (!isfinite(x))
		return cJSON_CreateNull();
	snprintf(b, sizeof(b), "%.6g", x);
	return cJSON_CreateNumber(strtod(b, NULL));
}

static cJSON *plot_new(const char *kind, const char *title, const char *x, const char *y)
{
	cJSON *p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "kind", kind);
	cJSON_AddStringToObject(p, "title", title);
	cJSON_AddStringToObject(p, "x", x ? x : "");
	cJSON_AddStringToObject(p, "y", y ? y : "");
	return p;
}

/* Boot label of a model boot id (run_id * 100000 + round, model.c): the round, run-qualified when several runs. */
static void boot_label(char *buf, size_t n, int64_t boot, int nruns)
{
	if (nruns > 1)
		snprintf(buf, n, "%lld.%lld", (long long)(boot / 100000), (long long)(boot % 100000));
	else
		snprintf(buf, n, "%lld", (long long)(boot % 100000));
}

/* Per metric group: every sample per variant over its box, coloured by boot. */
/* util_mean and freq_residency are drawn per CPU / per frequency instead (cpu_plots). */
static int own_plot(const struct kvb_group *g)
{
	return !strcmp(g->metric, "util_mean") || !strcmp(g->metric, "freq_residency");
}

static void metric_plots(struct page *p, const struct kvb_report *r)
{
	size_t n = 0;
	for (size_t gi = 0; gi < r->ngroups; gi++)
		n += !own_plot(&r->groups[gi]);
	if (!n)
		return;
	add(p, "Samples per metric", "samples")->text =
		"Every sample per variant as a dot (colour: boot) over its box (quartiles; whiskers to the furthest "
		"sample within 1.5 IQR). Boot-to-boot spread shows as colour bands.";
	for (size_t gi = 0; gi < r->ngroups; gi++) {
		const struct kvb_group *g = &r->groups[gi];
		if (own_plot(g))
			continue;
		char *title = kvb_xasprintf("%s %s%s%s%s%s%s", g->workload, g->metric, *g->units ? " (" : "", g->units,
					    *g->units ? ")" : "", *g->label ? " " : "", g->label);
		cJSON *pl = plot_new("dotbox", title, "variant", g->units), *groups = cJSON_CreateArray();
		for (size_t v = 0; v < r->variants.n; v++) {
			const struct kvb_cell *c = &g->cells[v];
			cJSON *jg, *vals, *boots;
			if (!c->n)
				continue;
			jg = cJSON_CreateObject();
			vals = cJSON_CreateArray();
			boots = cJSON_CreateArray();
			cJSON_AddStringToObject(jg, "name", r->variants.v[v]);
			for (size_t i = 0; i < c->n; i++) {
				char b[48];
				boot_label(b, sizeof(b), c->boot[i], p->nruns);
				cJSON_AddItemToArray(vals, num6(c->v[i]));
				cJSON_AddItemToArray(boots, cJSON_CreateString(b));
			}
			cJSON_AddItemToObject(jg, "values", vals);
			cJSON_AddItemToObject(jg, "boots", boots);
			cJSON_AddItemToArray(groups, jg);
		}
		cJSON_AddItemToObject(pl, "groups", groups);
		add_plot(p, pl, g->lower_is_better ? "lower is better" : "higher is better");
		free(title);
	}
}

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
static void series_cdfs(struct page *p, struct series_set *ss, const char *what, const char *xlabel)
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
		cJSON *pl = plot_new("cdf", title, xlabel, "fraction"), *arr = cJSON_CreateArray();
		for (size_t j = i; j < ss->key.n; j++) {
			if (strcmp(ss->key.v[j], ss->key.v[i]))
				continue;
			cJSON *s = cJSON_CreateObject(), *vals = cJSON_CreateArray();
			cJSON_AddStringToObject(s, "name", ss->name.v[j]);
			for (size_t x = 0; x < ss->n[j]; x++)
				cJSON_AddItemToArray(vals, num6(ss->v[j][x]));
			cJSON_AddItemToObject(s, "values", vals);
			cJSON_AddItemToArray(arr, s);
		}
		cJSON_AddItemToObject(pl, "series", arr);
		add_plot(p, pl, NULL);
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

static int artifacts(struct kvb_store *s, struct page *p, const char *kind, sqlite3_stmt **st, struct kvb_error *err)
{
	if (sqlite3_prepare_v2(s->db, artifact_sql, -1, st, NULL) != SQLITE_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_bind_text(*st, 1, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(*st, 2, p->runs_json, -1, SQLITE_STATIC);
	return KVB_OK;
}

/* Jankbench keep_frames: jankbench-frames.csv (test_name,rep,frame,total_duration_ms; jankbench.c). */
static int jank_cdfs(struct kvb_store *s, struct page *p, struct kvb_error *err)
{
	struct series_set ss;
	struct kvb_buf missing = KVB_BUF_INIT;
	sqlite3_stmt *st;
	size_t files = 0;
	int rc;
	memset(&ss, 0, sizeof(ss));
	if ((rc = artifacts(s, p, "jankbench-frames", &st, err)))
		return rc;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(st, 0), *variant = (const char *)sqlite3_column_text(st, 1);
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
	sqlite3_finalize(st);
	if (files) {
		add(p, "Jankbench frame durations", "jankbench")->text =
			missing.len ? keep(p, kvb_xasprintf("Empirical CDF per variant. Missing artifacts: %s", missing.data))
				    : "Empirical CDF of every frame's total duration per variant (keep_frames).";
		series_cdfs(p, &ss, "frame duration CDF", "total frame duration (ms)");
	}
	kvb_buf_release(&missing);
	series_release(&ss);
	return KVB_OK;
}

/* rt-app logs: per task (thread name), slack and wake-up latency CDFs per variant. */
static int rtapp_cdfs(struct kvb_store *s, struct page *p, struct kvb_error *err)
{
	struct series_set slack, wu;
	struct kvb_buf bad = KVB_BUF_INIT;
	sqlite3_stmt *st;
	size_t files = 0;
	int rc;
	memset(&slack, 0, sizeof(slack));
	memset(&wu, 0, sizeof(wu));
	if ((rc = artifacts(s, p, "rt-app-log", &st, err)))
		return rc;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(st, 0), *variant = (const char *)sqlite3_column_text(st, 1);
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
	sqlite3_finalize(st);
	if (files) {
		add(p, "rt-app slack and wake-up latency", "rt-app")->text =
			bad.len ? keep(p, kvb_xasprintf("Per task, every phase. Unreadable logs: %s", bad.data))
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

/* Min, max and mean per time bucket of one channel. */
struct buckets {
	size_t n;
	int64_t t0_ns, width_ns;
	double *min, *max, *sum;
	uint64_t *cnt;
};

static void bucket_add(struct buckets *b, int64_t t_ns, double v)
{
	int64_t k = (t_ns - b->t0_ns) / b->width_ns;
	if (k < 0)
		k = 0;
	if ((size_t)k >= b->n)
		k = (int64_t)b->n - 1;
	if (!b->cnt[k] || v < b->min[k])
		b->min[k] = v;
	if (!b->cnt[k] || v > b->max[k])
		b->max[k] = v;
	b->sum[k] += v;
	b->cnt[k]++;
}

static float f32le(const unsigned char *p)
{
	uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/*
 * Adds one stored chunk (samples.h encoding 1). When the whole chunk lies in
 * one bucket (it starts there and the next chunk starts there too) only its
 * float32 values are read; otherwise it is decoded with its timestamps.
 */
static int chunk_add(struct buckets *b, const unsigned char *blob, size_t len, int64_t t0, uint32_t n, int64_t t_next,
		     int64_t **tbuf, float **vbuf, uint32_t *cap)
{
	if (t_next > t0 && (t0 - b->t0_ns) / b->width_ns == (t_next - 1 - b->t0_ns) / b->width_ns && len >= 1 + 4 * (size_t)n &&
	    blob[0] == KVB_CHUNK_ENCODING) {
		double lo = INFINITY, hi = -INFINITY, sum = 0;
		int64_t k = (t0 - b->t0_ns) / b->width_ns;
		if (k < 0)
			k = 0;
		if ((size_t)k >= b->n)
			k = (int64_t)b->n - 1;
		for (uint32_t i = 0; i < n; i++) {
			double v = f32le(blob + 1 + 4 * (size_t)i);
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
			sum += v;
		}
		if (n) {
			if (!b->cnt[k] || lo < b->min[k])
				b->min[k] = lo;
			if (!b->cnt[k] || hi > b->max[k])
				b->max[k] = hi;
			b->sum[k] += sum;
			b->cnt[k] += n;
		}
		return 0;
	}
	if (n > *cap) {
		*cap = n;
		*tbuf = kvb_xrealloc(*tbuf, n * sizeof(**tbuf));
		*vbuf = kvb_xrealloc(*vbuf, n * sizeof(**vbuf));
	}
	if (kvb_chunk_decode(blob, len, t0, n, *tbuf, *vbuf))
		return -1;
	for (uint32_t i = 0; i < n; i++)
		bucket_add(b, (*tbuf)[i], (*vbuf)[i]);
	return 0;
}

/* Reads channel id's chunks into b. KVB_ESTORE on a corrupt chunk. */
static int channel_buckets(struct kvb_store *s, int64_t id, struct buckets *b, struct kvb_error *err)
{
	sqlite3_stmt *st;
	int64_t *starts = NULL, *tbuf = NULL;
	size_t nstarts = 0, alloc = 0, i = 0;
	uint32_t cap = 0;
	float *vbuf = NULL;
	int step, rc = KVB_OK;
	/* chunk start times first (a chunk ends before the next starts): reads no blob */
	if (sqlite3_prepare_v2(s->db, "SELECT t0_ns FROM energy_chunk WHERE channel_id = ? ORDER BY seq", -1, &st, NULL) !=
	    SQLITE_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_bind_int64(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (nstarts == alloc) {
			alloc = alloc ? 2 * alloc : 1024;
			starts = kvb_xrealloc(starts, alloc * sizeof(*starts));
		}
		starts[nstarts++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(s->db, "SELECT t0_ns, n, blob FROM energy_chunk WHERE channel_id = ? ORDER BY seq", -1, &st,
			       NULL) != SQLITE_OK) {
		free(starts);
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	}
	sqlite3_bind_int64(st, 1, id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t t0 = sqlite3_column_int64(st, 0), t_next = i + 1 < nstarts ? starts[i + 1] : INT64_MAX;
		const unsigned char *blob = sqlite3_column_blob(st, 2);
		i++;
		if (chunk_add(b, blob, (size_t)sqlite3_column_bytes(st, 2), t0, (uint32_t)sqlite3_column_int64(st, 1),
			      t_next, &tbuf, &vbuf, &cap)) {
			rc = kvb_error_set(err, KVB_ESTORE, "%s: energy channel %lld: corrupt sample chunk", s->path,
					   (long long)id);
			break;
		}
	}
	if (!rc && step != SQLITE_DONE)
		rc = kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
	free(starts);
	free(tbuf);
	free(vbuf);
	return rc;
}

/* Power over time per job (one trace per channel, decimated to max_points buckets: mean line, min..max band). */
static int power_plots(struct kvb_store *s, struct page *p, size_t max_points, struct kvb_error *err)
{
	sqlite3_stmt *st;
	int64_t job = -1;
	cJSON *pl = NULL, *arr = NULL;
	int rc = KVB_OK, any = 0;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT c.id, c.job_id, v.name, c.name, c.units, c.t_first_ns, c.t_last_ns, j.workload,"
			       " j.iteration, j.round, c.estimated FROM energy_channel c JOIN job j ON j.id = c.job_id"
			       " JOIN variant v ON v.id = j.variant_id WHERE j.run_id IN (SELECT value FROM json_each(?1))"
			       " AND c.n_samples > 0 ORDER BY c.job_id, c.id",
			       -1, &st, NULL) != SQLITE_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_bind_text(st, 1, p->runs_json, -1, SQLITE_STATIC);
	/* an hour at 10 kHz is ~0.7 GB of chunks: map the file rather than copy it through read() */
	sqlite3_exec(s->db, "PRAGMA mmap_size = 4294967296", NULL, NULL, NULL);
	while (rc == KVB_OK && sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0), jid = sqlite3_column_int64(st, 1);
		int64_t t_first = sqlite3_column_int64(st, 5), t_last = sqlite3_column_int64(st, 6);
		const char *units = (const char *)sqlite3_column_text(st, 4);
		struct buckets b;
		cJSON *ser, *jt, *jy, *jlo, *jhi;
		if (!any++)
			add(p, "Power over time", "power")->text =
				"Per job and channel: mean power per time bucket (line) and its min..max (band), "
				"decimated to what a screen shows.";
		if (jid != job) {
			char *title = kvb_xasprintf("job %lld: %s %s iteration %lld boot %lld", (long long)jid,
						    (const char *)sqlite3_column_text(st, 2),
						    (const char *)sqlite3_column_text(st, 7), sqlite3_column_int64(st, 8),
						    sqlite3_column_int64(st, 9));
			char *ylab = kvb_xasprintf("power (%s)", units ? units : "");
			pl = plot_new("lines", title, "time since the first sample (s)", ylab);
			arr = cJSON_AddArrayToObject(pl, "series");
			add_plot(p, pl, sqlite3_column_int(st, 10) ? "estimated from an energy model" : NULL);
			free(title);
			free(ylab);
			job = jid;
		}
		memset(&b, 0, sizeof(b));
		b.n = max_points;
		b.t0_ns = t_first;
		b.width_ns = (t_last - t_first) / (int64_t)max_points + 1;
		b.min = kvb_xcalloc(b.n, sizeof(double));
		b.max = kvb_xcalloc(b.n, sizeof(double));
		b.sum = kvb_xcalloc(b.n, sizeof(double));
		b.cnt = kvb_xcalloc(b.n, sizeof(uint64_t));
		rc = channel_buckets(s, id, &b, err);
		ser = cJSON_CreateObject();
		cJSON_AddStringToObject(ser, "name", (const char *)sqlite3_column_text(st, 3));
		jt = cJSON_AddArrayToObject(ser, "t");
		jy = cJSON_AddArrayToObject(ser, "y");
		jlo = cJSON_AddArrayToObject(ser, "lo");
		jhi = cJSON_AddArrayToObject(ser, "hi");
		for (size_t k = 0; k < b.n; k++) {
			if (!b.cnt[k])
				continue;
			cJSON_AddItemToArray(jt, num6(((double)k + 0.5) * (double)b.width_ns / 1e9));
			cJSON_AddItemToArray(jy, num6(b.sum[k] / (double)b.cnt[k]));
			cJSON_AddItemToArray(jlo, num6(b.min[k]));
			cJSON_AddItemToArray(jhi, num6(b.max[k]));
		}
		cJSON_AddItemToArray(arr, ser);
		free(b.min);
		free(b.max);
		free(b.sum);
		free(b.cnt);
	}
	sqlite3_finalize(st);
	return rc;
}

/* Energy per job per variant: per channel, each job's energy as a dot over the variant's box. */
static int energy_plots(struct kvb_store *s, struct page *p, struct kvb_error *err)
{
	sqlite3_stmt *st;
	struct kvb_strv chans = KVB_STRV_INIT;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT DISTINCT c.name FROM energy_channel c JOIN job j ON j.id = c.job_id"
			       " WHERE j.run_id IN (SELECT value FROM json_each(?1)) AND c.energy_j IS NOT NULL ORDER BY c.name",
			       -1, &st, NULL) != SQLITE_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_bind_text(st, 1, p->runs_json, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW)
		kvb_strv_push(&chans, (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (!chans.n)
		return KVB_OK;
	add(p, "Energy per job", "energy")->text = "Energy of each job (dot, colour: boot) per variant and channel.";
	if (sqlite3_prepare_v2(s->db,
			       "SELECT v.name, c.energy_j, j.run_id * 100000 + j.round FROM energy_channel c"
			       " JOIN job j ON j.id = c.job_id JOIN variant v ON v.id = j.variant_id"
			       " WHERE j.run_id IN (SELECT value FROM json_each(?1)) AND c.name = ?2"
			       " AND c.energy_j IS NOT NULL ORDER BY j.run_id, v.position, j.seq",
			       -1, &st, NULL) != SQLITE_OK) {
		kvb_strv_release(&chans);
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	}
	for (size_t c = 0; c < chans.n; c++) {
		char *title = kvb_xasprintf("energy per job, channel %s", chans.v[c]);
		cJSON *pl = plot_new("dotbox", title, "variant", "J"), *groups = cJSON_AddArrayToObject(pl, "groups");
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, p->runs_json, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, chans.v[c], -1, SQLITE_STATIC);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *v = (const char *)sqlite3_column_text(st, 0);
			cJSON *g = NULL;
			char b[48];
			for (cJSON *x = groups->child; x && !g; x = x->next)
				if (!strcmp(cJSON_GetObjectItem(x, "name")->valuestring, v))
					g = x;
			if (!g) {
				g = cJSON_CreateObject();
				cJSON_AddStringToObject(g, "name", v);
				cJSON_AddArrayToObject(g, "values");
				cJSON_AddArrayToObject(g, "boots");
				cJSON_AddItemToArray(groups, g);
			}
			boot_label(b, sizeof(b), sqlite3_column_int64(st, 2), p->nruns);
			cJSON_AddItemToArray(cJSON_GetObjectItem(g, "values"), num6(sqlite3_column_double(st, 1)));
			cJSON_AddItemToArray(cJSON_GetObjectItem(g, "boots"), cJSON_CreateString(b));
		}
		add_plot(p, pl, "lower is better");
		free(title);
	}
	sqlite3_finalize(st);
	kvb_strv_release(&chans);
	return KVB_OK;
}

/*
 * Where the util and cpufreq instruments ran: per workload, util_mean of every
 * job per (CPU, variant) as dots over boxes; per (workload, cluster), the mean
 * residency per frequency per variant, stacked to 100 %.
 */
static int cpu_plots(struct kvb_store *s, struct page *p, struct kvb_error *err)
{
	sqlite3_stmt *st;
	cJSON *pl = NULL, *groups = NULL, *g = NULL;
	char *key = NULL, *gname = NULL;
	int rc = KVB_OK, any = 0;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT r.workload, json_extract(r.classifiers, '$.cpu') AS cpu, r.variant, r.value,"
			       " r.run_id * 100000 + r.boot FROM results r JOIN variant v ON v.run_id = r.run_id AND v.name = r.variant"
			       " WHERE r.metric = 'util_mean' AND r.run_id IN (SELECT value FROM json_each(?1))"
			       " ORDER BY r.workload, CAST(cpu AS INTEGER), cpu, v.position, r.metric_id",
			       -1, &st, NULL) != SQLITE_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_bind_text(st, 1, p->runs_json, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *w = (const char *)sqlite3_column_text(st, 0), *cpu = (const char *)sqlite3_column_text(st, 1);
		char *gn = kvb_xasprintf("cpu%s %s", cpu ? cpu : "?", (const char *)sqlite3_column_text(st, 2));
		char b[48];
		if (!any++)
			add(p, "Per-CPU utilisation and frequency residency", "cpu")->text =
				"Where the util and cpufreq instruments ran: each job's mean utilisation per CPU and "
				"variant (dots, colour: boot), and the mean time at each frequency per cluster.";
		if (!key || strcmp(key, w)) {
			char *title = kvb_xasprintf("%s: util_mean per CPU", w);
			free(key);
			key = kvb_xstrdup(w);
			pl = plot_new("dotbox", title, "CPU and variant", "%");
			groups = cJSON_AddArrayToObject(pl, "groups");
			add_plot(p, pl, "busy time of each CPU during the job");
			free(title);
			free(gname);
			gname = NULL;
		}
		if (!gname || strcmp(gname, gn)) {
			free(gname);
			gname = kvb_xstrdup(gn);
			g = cJSON_CreateObject();
			cJSON_AddStringToObject(g, "name", gn);
			cJSON_AddArrayToObject(g, "values");
			cJSON_AddArrayToObject(g, "boots");
			cJSON_AddItemToArray(groups, g);
		}
		boot_label(b, sizeof(b), sqlite3_column_int64(st, 4), p->nruns);
		cJSON_AddItemToArray(cJSON_GetObjectItem(g, "values"), num6(sqlite3_column_double(st, 3)));
		cJSON_AddItemToArray(cJSON_GetObjectItem(g, "boots"), cJSON_CreateString(b));
		free(gn);
	}
	sqlite3_finalize(st);
	free(key);
	free(gname);
	key = NULL;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT r.workload || ' cluster ' || coalesce(json_extract(r.classifiers, '$.cluster'), '?'),"
			       " r.variant, json_extract(r.classifiers, '$.freq_mhz') AS f, avg(r.value)"
			       " FROM results r JOIN variant v ON v.run_id = r.run_id AND v.name = r.variant"
			       " WHERE r.metric = 'freq_residency' AND r.run_id IN (SELECT value FROM json_each(?1))"
			       " GROUP BY 1, 2, 3 ORDER BY 1, min(v.position), 2, CAST(f AS INTEGER)",
			       -1, &st, NULL) != SQLITE_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_bind_text(st, 1, p->runs_json, -1, SQLITE_STATIC);
	g = NULL;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0), *v = (const char *)sqlite3_column_text(st, 1);
		cJSON *bar;
		if (!any++)
			add(p, "Per-CPU utilisation and frequency residency", "cpu")->text =
				"Where the util and cpufreq instruments ran: each job's mean utilisation per CPU and "
				"variant (dots, colour: boot), and the mean time at each frequency per cluster.";
		if (!key || strcmp(key, k)) {
			char *title = kvb_xasprintf("%s: frequency residency", k);
			free(key);
			key = kvb_xstrdup(k);
			pl = plot_new("stack", title, "variant", "% of the job");
			groups = cJSON_AddArrayToObject(pl, "bars");
			add_plot(p, pl, "mean over the variant's jobs of the time at each frequency (MHz)");
			free(title);
			g = NULL;
		}
		if (!g || strcmp(cJSON_GetObjectItem(g, "name")->valuestring, v)) {
			g = cJSON_CreateObject();
			cJSON_AddStringToObject(g, "name", v);
			cJSON_AddArrayToObject(g, "parts");
			cJSON_AddItemToArray(groups, g);
		}
		bar = cJSON_CreateObject();
		cJSON_AddStringToObject(bar, "name", (const char *)sqlite3_column_text(st, 2));
		cJSON_AddItemToObject(bar, "value", num6(sqlite3_column_double(st, 3)));
		cJSON_AddItemToArray(cJSON_GetObjectItem(g, "parts"), bar);
	}
	sqlite3_finalize(st);
	free(key);
	return rc;
}

/* The DB must carry every migration this kvbench knows: a read-only older DB lacks views the page reads. */
static int check_schema(struct kvb_store *s, struct kvb_error *err)
{
	sqlite3_stmt *st;
	int have = 0, want = 0;
	while (kvb_migrations[want].name)
		want++;
	if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		have = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (have < want)
		return kvb_error_set(err, KVB_ESTORE,
				     "%s: results schema version %d is older than this kvbench's (%d) and the file is "
				     "read-only; make it writable once (any kvbench command then migrates it) or copy it",
				     s->path, have, want);
	return KVB_OK;
}

static int count(struct kvb_store *s, const char *sql, const char *runs_json, int64_t *n, struct kvb_error *err)
{
	sqlite3_stmt *st;
	*n = 0;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_bind_text(st, 1, runs_json, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return KVB_OK;
}

/* Renders d to a temporary file beside path and renames it into place ("-": stdout). */
static int write_atomic(const struct kvb_format *fmt, const struct kvb_out *d, const char *path, struct kvb_error *err)
{
	char *tmp;
	FILE *f;
	int fd, rc;
	if (!strcmp(path, "-")) {
		rc = fmt->render(d, stdout, err);
		return rc;
	}
	tmp = kvb_xasprintf("%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		rc = kvb_error_set(err, KVB_EINPUT, "cannot write '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(tmp);
		return rc;
	}
	rc = fmt->render(d, f, err);
	if (fflush(f) || ferror(f)) {
		if (!rc)
			rc = kvb_error_set(err, KVB_EINPUT, "cannot write '%s': %s", tmp, strerror(errno));
	}
	if (fclose(f) && !rc)
		rc = kvb_error_set(err, KVB_EINPUT, "cannot write '%s': %s", tmp, strerror(errno));
	if (!rc) {
		/* mkstemp made it 0600: give the page the mode a plain fopen would have */
		mode_t um = umask(0);
		umask(um);
		chmod(tmp, 0666 & ~um);
	}
	if (!rc && rename(tmp, path))
		rc = kvb_error_set(err, KVB_EINPUT, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

int kvb_page_write(struct kvb_store *s, const struct kvb_page_opts *o, struct kvb_error *err)
{
	const struct kvb_format *fmt = kvb_format_find(o->format ? o->format : "html", err);
	struct kvb_buf runs = KVB_BUF_INIT;
	struct kvb_report r;
	struct kvb_diff_opts d;
	struct kvb_box *table = NULL;
	struct page p;
	struct kvb_out doc;
	int64_t latest = 0, nres = 0, njobs = 0, nfailed = 0;
	char *title = NULL, *legend = NULL, *runs_text = NULL;
	int rc, one_boot = 0, loaded = 0;

	memset(&p, 0, sizeof(p));
	memset(&r, 0, sizeof(r));
	if (!fmt)
		return KVB_EUSAGE;
	if ((rc = check_schema(s, err)))
		return rc;
	kvb_buf_addf(&runs, "[");
	if (o->nruns) {
		for (size_t i = 0; i < o->nruns; i++) {
			int64_t n;
			char *q = kvb_xasprintf("SELECT count(*) FROM run WHERE id = %lld AND ?1 IS NOT NULL", (long long)o->runs[i]);
			rc = count(s, q, "", &n, err);
			free(q);
			if (rc)
				goto out;
			if (!n) {
				rc = kvb_error_set(err, KVB_EINPUT, "%s: run %lld not found", s->path, (long long)o->runs[i]);
				goto out;
			}
			kvb_buf_addf(&runs, "%s%lld", i ? "," : "", (long long)o->runs[i]);
		}
	} else {
		if ((rc = kvb_store_latest_run(s, &latest, err)))
			goto out;
		if (!latest) {
			rc = kvb_error_set(err, KVB_EINPUT, "%s: no runs yet: nothing to report", s->path);
			goto out;
		}
		kvb_buf_addf(&runs, "%lld", (long long)latest);
	}
	kvb_buf_addf(&runs, "]");
	p.runs_json = runs.data;
	p.nruns = o->nruns ? (int)o->nruns : 1;
	if ((rc = count(s, "SELECT count(*) FROM results WHERE run_id IN (SELECT value FROM json_each(?1))", runs.data,
			&nres, err)) ||
	    (rc = count(s, "SELECT count(*) FROM job WHERE run_id IN (SELECT value FROM json_each(?1))", runs.data, &njobs,
			err)) ||
	    (rc = count(s, "SELECT count(*) FROM job WHERE run_id IN (SELECT value FROM json_each(?1)) AND status <> 'ok'",
			runs.data, &nfailed, err)))
		goto out;

	/* metadata */
	if ((rc = add_sql(&p, s, "Runs", "runs",
			  "SELECT r.id AS run, datetime(r.started_ns / 1000000000, 'unixepoch') AS started, r.status,"
			  " r.platform, r.agenda_path AS agenda, r.rounds, r.exec_order AS execution_order,"
			  " r.kvbench_version AS kvbench, r.hostname AS host, r.command_line"
			  " FROM run r WHERE r.id IN (SELECT value FROM json_each(?2)) ORDER BY r.id",
			  "no runs", NULL, err)) ||
	    (rc = add_sql(&p, s, "Variants", "variants",
			  "SELECT v.run_id AS run, v.name AS variant, v.status, v.kernel, v.kernel_sha256 AS sha256,"
			  " v.cmdline, v.expected_release, v.runtime_json AS knobs, v.error"
			  " FROM variant v WHERE v.run_id IN (SELECT value FROM json_each(?2)) ORDER BY v.run_id, v.position",
			  "no variants", NULL, err)) ||
	    (rc = add_sql(&p, s, "Boots: the kernel seen after each boot", "boots",
			  "SELECT v.run_id AS run, v.name AS variant, b.round AS boot, b.status,"
			  " b.running_release AS release, b.running_version AS version, b.running_cmdline AS cmdline, b.error"
			  " FROM boot b JOIN variant v ON v.id = b.variant_id"
			  " WHERE v.run_id IN (SELECT value FROM json_each(?2)) ORDER BY v.run_id, v.position, b.round",
			  "no boots recorded (imported results, or a platform that is not flashed)", NULL, err)) ||
	    (rc = add_sql(&p, s, "Failures", "failures",
			  "SELECT job_id AS job, run_id AS run, variant, boot, workload, iteration, status, attempts, error"
			  " FROM jobs WHERE run_id IN (SELECT value FROM json_each(?2)) AND status <> 'ok' ORDER BY run_id, seq",
			  "no failed jobs", NULL, err)) ||
	    (rc = add_sql(&p, s, "Events", "events",
			  "SELECT run_id AS run, datetime(t_ns / 1000000000, 'unixepoch') AS time, level, message FROM event"
			  " WHERE run_id IN (SELECT value FROM json_each(?2)) ORDER BY id",
			  "no events", NULL, err)))
		goto out;

	/* comparison and plots */
	if (nres) {
		memset(&d, 0, sizeof(d));
		d.sel.runs = o->nruns ? o->runs : &latest;
		d.sel.nruns = o->nruns ? o->nruns : 1;
		d.sel.baseline = o->baseline;
		d.alpha = KVB_STATS_ALPHA;
		if ((rc = kvb_report_load(s, &d.sel, &r, err)))
			goto out;
		loaded = 1;
		table = kvb_xcalloc(1, sizeof(*table));
		kvb_diff_table(&r, &d, table, &one_boot);
		legend = kvb_diff_legend(&d);
		struct kvb_out_section *sec = add(&p, "Comparison", "comparison");
		sec->table = table;
		sec->footer = legend;
		if (one_boot)
			sec->text = "Some comparisons have a single boot per variant: kernel and boot effects cannot be "
				    "separated (run with --rounds 2 or more).";
		metric_plots(&p, &r);
	} else {
		add(&p, "Comparison", "comparison")->text = "no results: every job failed (see Failures)";
	}
	if ((rc = jank_cdfs(s, &p, err)) || (rc = power_plots(s, &p, o->max_points ? o->max_points : 1000, err)) ||
	    (rc = energy_plots(s, &p, err)) || (rc = rtapp_cdfs(s, &p, err)) || (rc = cpu_plots(s, &p, err)))
		goto out;
	/*
	 * Series and bisect runs (DESIGN.md §10): a plot of kind "along" (plots.js)
	 * of each metric along the commits goes here, once those runs record
	 * their commit per variant.
	 */

	/* "[1,2]" -> "1, 2" for people */
	runs_text = kvb_xstrndup(runs.data + 1, runs.len - 2);
	for (char *c = strchr(runs_text, ','); c; c = strchr(c + 1, ','))
		*c = ' ';
	title = kvb_xasprintf("kvbench report: run%s %s", o->nruns > 1 ? "s" : "", runs_text);
	memset(&doc, 0, sizeof(doc));
	doc.title = title;
	doc.sec = p.sec;
	doc.nsec = p.n;
	if ((rc = write_atomic(fmt, &doc, o->out_path, err)))
		goto out;
	if (!nres)
		rc = kvb_error_set(err, KVB_EJOBS, "run%s %s: no results, %lld of %lld jobs failed (the report shows the failures)",
				   o->nruns > 1 ? "s" : "", runs_text, (long long)nfailed, (long long)njobs);
out:
	if (table) {
		kvb_box_release(table);
		free(table);
	}
	if (loaded)
		kvb_report_release(&r);
	free(legend);
	free(title);
	free(runs_text);
	page_release(&p);
	kvb_buf_release(&runs);
	return rc;
}
