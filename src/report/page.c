/* Implements `kvbench report`: the page's sections in order, the per-metric plots, and the atomic write. */
#include "report/page.h"
#include "store/rows.h"
#include "report/page_build.h"
#include "core/outfile.h"
#include "core/util.h"
#include "report/diff.h"
#include "report/format.h"
#include "results/groups.h"
#include "report/page_filters.h"
#include "report/page_views.h"
#include "report/shortlabel.h"
#include "report/verdict_cell.h"
#include "report/sqltable.h"
#include "store/disturbance.h"
#include "store/schema.h"
#include "workload/workload.h"

#include <stdlib.h>
#include <string.h>

/* util_mean and freq_residency are drawn per CPU / per frequency in section "cpu", energy in "energy"
 * (plot_power.c); NULL for a group drawn with the samples per metric. */
static const char *own_section(const struct kvb_group *g)
{
	if (!strcmp(g->metric, "util_mean") || !strcmp(g->metric, "freq_residency"))
		return "cpu";
	return !strcmp(g->metric, "energy") ? "energy" : NULL;
}

static int own_plot(const struct kvb_group *g)
{
	return own_section(g) != NULL;
}

/*
 * A metric plot's hover text (owned), or NULL for none: the whole classifier text when the title
 * shows it shortened, then what the metric is when its workload declares it (workload.h: metrics;
 * the stored name stays the key, imported workloads have no declaration).
 */
static char *metric_tip(const struct kvb_group *g, int shortened)
{
	const struct kvb_workload_ops *w = kvb_workload_find(g->workload);
	const struct kvb_metric_decl *md = w ? kvb_workload_metric(w, g->metric) : NULL;
	if (!md)
		return shortened ? kvb_xstrdup(g->label) : NULL;
	return kvb_xasprintf("%s%s%s %s: %s", shortened ? g->label : "", shortened ? "\n" : "", g->workload, g->metric,
			     md->description);
}

void kvb_page_metric_plots(struct kvb_page *p, const struct kvb_report *r)
{
	size_t n = 0;
	for (size_t gi = 0; gi < r->ngroups; gi++)
		n += !own_plot(&r->groups[gi]);
	if (!n)
		return;
	kvb_page_add(p, "Samples per metric", "samples")->text =
		"Every sample per variant as a dot (colour: boot) over its box (quartiles; whiskers to the furthest "
		"sample within 1.5 IQR). Boot-to-boot spread shows as colour bands.";
	for (size_t gi = 0; gi < r->ngroups; gi++) {
		const struct kvb_group *g = &r->groups[gi];
		if (own_plot(g))
			continue;
		char *shortl = kvb_short_label(g->label);
		char *title = kvb_xasprintf("%s %s%s%s%s%s%s", g->workload, g->metric, *g->units ? " (" : "", g->units,
					    *g->units ? ")" : "", *shortl ? " " : "", shortl);
		cJSON *pl = kvb_plot_new("dotbox", title, "variant", g->units);
		char *tip = metric_tip(g, strcmp(shortl, g->label) != 0);
		if (tip)
			cJSON_AddItemToObject(pl, "tip", cJSON_CreateString(tip));
		free(tip);
		cJSON_AddStringToObject(pl, "workload", g->workload);
		free(shortl);
		cJSON_AddItemToObject(pl, "groups", kvb_plot_group_dots(r, g, NULL, p->nruns, NULL));
		kvb_page_plot(p, pl, g->lower_is_better < 0 ? "no better or worse" : g->lower_is_better ? "lower is better" : "higher is better");
		p->sec[p->n - 1].id = kvb_forest_detail_id(p, gi); /* the summary's rows link here */
		free(title);
	}
}

/* The DB must carry every migration this kvbench knows: a read-only older DB lacks views the page reads. */
static int check_schema(struct kvb_store *s, struct kvb_error *err)
{
	struct kvb_rows *st;
	int have = 0, want = 0;
	while (kvb_migrations[want].name)
		want++;
	if (kvb_rows_open(s, "PRAGMA user_version", &st, NULL, NULL) == KVB_OK && kvb_rows_next(st, NULL) == 1)
		have = (int)kvb_rows_int(st, 0);
	kvb_rows_close(st);
	if (have < want)
		return kvb_error_set(err, KVB_ESTORE,
				     "%s: results schema version %d is older than this kvbench's (%d) and the file is "
				     "read-only; make it writable once (any kvbench command then migrates it) or copy it",
				     s->path, have, want);
	return KVB_OK;
}

static int count(struct kvb_store *s, const char *sql, const char *runs_json, int64_t *n, struct kvb_error *err)
{
	struct kvb_rows *st;
	*n = 0;
	if (kvb_rows_open(s, sql, &st, NULL, NULL) != KVB_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, kvb_store_errmsg(s));
	kvb_rows_bind_text(st, 1, runs_json);
	if (kvb_rows_next(st, NULL) == 1)
		*n = kvb_rows_int(st, 0);
	kvb_rows_close(st);
	return KVB_OK;
}

/* The results DB and its journal files: an output path must not be one of them (core/outfile.h). */
struct db_files {
	char *v[4];
};

static void db_files_init(struct db_files *f, const char *db)
{
	f->v[0] = kvb_xstrdup(db);
	f->v[1] = kvb_xasprintf("%s-wal", db);
	f->v[2] = kvb_xasprintf("%s-shm", db);
	f->v[3] = kvb_xasprintf("%s-journal", db);
}

static void db_files_release(struct db_files *f)
{
	for (size_t i = 0; i < KVB_ARRAY_SIZE(f->v); i++)
		free(f->v[i]);
}

/*
 * Renders d to path ("-": stdout) through core/outfile.h: a temporary file
 * renamed into place (never half a page, never over the DB, a device, a link or
 * a directory), or written into a FIFO.
 */
static int write_atomic(const struct kvb_format *fmt, const struct kvb_out *d, const char *path,
			const struct db_files *db, struct kvb_error *err)
{
	struct kvb_outfile of;
	int rc = kvb_outfile_open(&of, path, (const char *const *)db->v, KVB_ARRAY_SIZE(db->v), err);
	if (rc)
		return rc;
	rc = fmt->render(d, of.f, err);
	{
		struct kvb_error e2;
		int crc = kvb_outfile_close(&of, !rc, &e2);
		if (!rc && crc)
			rc = kvb_error_set(err, crc, "%s", e2.msg);
	}
	return rc;
}

/* The page's metadata tables, in order: heading, anchor, SQL over the runs (?2, a JSON list), text when empty. */
static const struct {
	const char *heading, *id, *sql, *empty;
} metadata_tables[] = {
	{ "Runs", "runs",
	  "SELECT r.id AS run, datetime(r.started_ns / 1000000000, 'unixepoch') AS started, r.status,"
	  " r.platform, json_extract(r.platform_json, '$.description') AS platform_description, r.agenda_path AS agenda, r.rounds, r.exec_order AS execution_order,"
	  " r.kvbench_version AS kvbench, r.hostname AS host, r.command_line"
	  " FROM run r WHERE r.id IN (SELECT value FROM json_each(?2)) ORDER BY r.id",
	  "no runs" },
	{ "Variants", "variants",
	  "SELECT v.run_id AS run, v.name AS variant, v.status, v.kernel, v.kernel_sha256 AS sha256,"
	  " v.cmdline, v.expected_release, v.runtime_json AS knobs, v.error"
	  " FROM variant v WHERE v.run_id IN (SELECT value FROM json_each(?2)) ORDER BY v.run_id, v.position",
	  "no variants" },
	/* boot: the boot unit as diff and the results view count it (a row per boot: a round booted again
	 * by --resume has two, the first 'interrupted'); on a run whose rounds shared one boot
	 * (boots_each_round 0, e.g. local) every round's identity check was in boot 1 */
	{ "Boots: the kernel seen after each boot", "boots",
	  "SELECT v.run_id AS run, v.name AS variant, b.round,"
	  " CASE WHEN r.status <> 'imported' AND r.boots_each_round = 0 THEN 1 ELSE b.seq END AS boot, b.status,"
	  " b.running_release AS release, b.running_version AS version, b.running_cmdline AS cmdline, b.error"
	  " FROM boot b JOIN variant v ON v.id = b.variant_id JOIN run r ON r.id = v.run_id"
	  " WHERE v.run_id IN (SELECT value FROM json_each(?2)) ORDER BY v.run_id, v.position, b.seq",
	  "no boots recorded (imported results, or a platform that is not flashed)" },
	{ "Failures", "failures",
	  "SELECT j.job_id AS job, j.run_id AS run, j.variant,"
	  " CASE WHEN r.status <> 'imported' AND r.boots_each_round = 0 THEN 1 ELSE j.boot END AS boot,"
	  " j.workload, j.iteration, j.status, j.attempts, j.error"
	  " FROM jobs j JOIN run r ON r.id = j.run_id WHERE j.run_id IN (SELECT value FROM json_each(?2))"
	  " AND j.status NOT IN ('ok', 'warmup') ORDER BY j.run_id, j.seq",
	  "no failed jobs" },
	{ "Events", "events",
	  "SELECT run_id AS run, datetime(t_ns / 1000000000, 'unixepoch') AS time, level, message FROM event"
	  " WHERE run_id IN (SELECT value FROM json_each(?2)) ORDER BY id",
	  "no events" },
};

/* What kvb_page_write builds and frees at its end. */
struct page_work {
	struct kvb_page p;
	struct kvb_buf runs;     /* the page's runs as a JSON list, "[1,2]" */
	int64_t latest;          /* the run reported when none is named */
	struct kvb_diff_opts d;
	struct kvb_report r;
	int loaded;              /* r holds the runs' results */
	struct kvb_table cells;  /* every cell of r computed once (results/table.h), when loaded */
	struct kvb_event_notes notes; /* the runs' job events: the table's footnote marks */
	struct kvb_box *table;   /* the comparison (owned) */
	char *legend;
	cJSON *diff_json;
};

/* w->runs from o->runs (each must exist) or the latest run; KVB_EINPUT when a run is missing or there is none. */
static int select_runs(struct kvb_store *s, const struct kvb_page_opts *o, struct page_work *w, struct kvb_error *err)
{
	int rc;
	kvb_buf_addf(&w->runs, "[");
	for (size_t i = 0; i < o->nruns; i++) {
		int64_t n;
		char *q = kvb_xasprintf("SELECT count(*) FROM run WHERE id = %lld AND ?1 IS NOT NULL", (long long)o->runs[i]);
		rc = count(s, q, "", &n, err);
		free(q);
		if (rc)
			return rc;
		if (!n)
			return kvb_error_set(err, KVB_EINPUT, "%s: run %lld not found", s->path, (long long)o->runs[i]);
		kvb_buf_addf(&w->runs, "%s%lld", i ? "," : "", (long long)o->runs[i]);
	}
	if (!o->nruns) {
		if ((rc = kvb_store_latest_run(s, &w->latest, err)))
			return rc;
		if (!w->latest)
			return kvb_error_set(err, KVB_EINPUT, "%s: no runs yet: nothing to report", s->path);
		kvb_buf_addf(&w->runs, "%lld", (long long)w->latest);
	}
	kvb_buf_addf(&w->runs, "]");
	return KVB_OK;
}

/*
 * A banner above everything when the host disturbed jobs of the runs (store/disturbance.h's one
 * line): a reader sees at once that some numbers were re-run or left out, and why.
 */
static void disturbance_banner(struct kvb_store *s, const struct kvb_page_opts *o, struct page_work *w)
{
	struct kvb_disturbance d;
	struct kvb_error e2;
	char *line;
	if (kvb_store_disturbance(s, o->nruns ? o->runs : &w->latest, o->nruns ? o->nruns : 1, &d, &e2) ||
	    !(line = kvb_disturbance_line(&d)))
		return;
	kvb_page_add(&w->p, "Host disturbance", "disturbance")->text = kvb_page_keep(&w->p, kvb_xasprintf(
		"The host disturbed jobs of these runs: %s. A job the host disturbed is run again; one disturbed in "
		"every attempt is left out and never compared (`kvbench show witnesses` lists what each witness saw).",
		line));
	free(line);
}

/* The legend under the comparison and the notes of the jobs its footnote marks name (owned). */
static char *footer(const struct kvb_table *t, const struct kvb_diff_opts *d, const struct kvb_event_notes *notes)
{
	char *legend = kvb_diff_legend(t, d), *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return legend;
	fputs(legend, f);
	kvb_event_notes_print(notes, d->fmt, f);
	fclose(f);
	free(legend);
	while (len && text[len - 1] == '\n')
		text[--len] = '\0';
	return text;
}

/* The comparison, its summary first, and the anchors' views (the runs have results). */
static int comparison_sections(struct kvb_store *s, const struct kvb_page_opts *o, const struct kvb_format *fmt,
			       struct page_work *w, struct kvb_error *err)
{
	struct kvb_out_section *sec;
	int rc;
	memset(&w->d, 0, sizeof(w->d));
	w->d.sel.runs = o->nruns ? o->runs : &w->latest;
	w->d.sel.nruns = o->nruns ? o->nruns : 1;
	w->d.sel.baseline = o->baseline;
	w->d.alpha = KVB_STATS_ALPHA;
	w->d.fmt = fmt;
	if ((rc = kvb_report_load(s, &w->d.sel, &w->r, err)))
		return rc;
	if ((rc = kvb_report_set_margins(s, &w->r, 0, err))) {
		kvb_report_release(&w->r);
		return rc;
	}
	kvb_report_set_steps(&w->r, kvb_workload_metric_decl);
	w->loaded = 1;
	kvb_table_compute(&w->r, w->d.stat, w->d.alpha, NULL, &w->cells);
	kvb_event_notes_load(s, w->r.runs, w->r.nruns, &w->notes, err);
	w->table = kvb_xcalloc(1, sizeof(*w->table));
	kvb_diff_table(&w->cells, &w->d, &w->notes, w->table);
	w->legend = footer(&w->cells, &w->d, &w->notes);
	w->diff_json = kvb_diff_json(&w->cells);
	kvb_page_forest(&w->p, &w->cells, w->diff_json, own_section);
	sec = kvb_page_add(&w->p, "Comparison", "comparison");
	sec->table = w->table;
	sec->footer = w->legend;
	if (w->cells.one_boot)
		sec->text = "Some comparisons have a single boot per variant: kernel and boot effects cannot be "
			    "separated (run with --rounds 2 or more).";
	kvb_page_quantiles(&w->p, &w->r);
	kvb_page_sweeps(&w->p, &w->r);
	kvb_page_energy_perf(&w->p, &w->r);
	return kvb_page_series(s, &w->p, &w->r, w->d.alpha, err);
}

/* Marks the plots of sections [from, to) as the workloads declare them (workload.h: plots). */
static void mark_workload_plots(struct kvb_page *p, size_t from, size_t to)
{
	for (size_t i = 0; kvb_workloads[i]; i++)
		for (const struct kvb_plot_decl *d = kvb_workloads[i]->plots; d && d->title; d++)
			kvb_page_mark_plots(p, from, to, d->title, d->marker_x, d->marker_label, d->xlog);
}

/* Details: per metric, per job and per task, folded per workload or kind. */
static int detail_sections(struct kvb_store *s, const struct kvb_page_opts *o, struct page_work *w, int64_t nres,
			   struct kvb_error *err)
{
	struct kvb_page *p = &w->p;
	const struct kvb_report *r = w->loaded ? &w->r : NULL;
	size_t a = p->n;
	int rc;
	if (nres) {
		kvb_page_metric_plots(p, &w->r);
		if ((rc = kvb_page_fold_workloads(s, p, a, p->n, "metric", err)))
			return rc;
	}
	/* the CDFs each workload draws from its artifacts (workload.h: artifact_plots) */
	for (size_t i = 0; kvb_workloads[i]; i++)
		for (const struct kvb_artifact_plot *ap = kvb_workloads[i]->artifact_plots; ap && ap->kind; ap++) {
			a = p->n;
			if ((rc = kvb_page_workload_cdfs(s, p, ap, err)))
				return rc;
			mark_workload_plots(p, a, p->n);
			kvb_page_fold_cdfs(p, a, p->n, ap->fold_units);
		}
	a = p->n;
	if ((rc = kvb_page_power_plots(s, p, o->max_points ? o->max_points : 1000, err)) ||
	    (rc = kvb_page_fold_workloads(s, p, a, p->n, "power", err)))
		return rc;
	/* energy, utilisation and frequency: the diff's groups, so no plot pools what diff keeps apart */
	kvb_page_energy_plots(p, r);
	kvb_page_cpu_plots(p, r);
	return KVB_OK;
}

/*
 * The sections a text format that draws no plot shows (markdown, table): none that is a plot, and
 * no heading or text whose part of the page holds plots alone (it describes dots, whiskers and
 * what hovering shows, none of which is there). Returns how many; *kept (caller frees) borrows p's.
 */
static size_t without_plots(const struct kvb_page *p, struct kvb_out_section **kept)
{
	size_t n = 0;
	*kept = kvb_xcalloc(p->n + 1, sizeof(**kept));
	for (size_t i = 0; i < p->n; i++) {
		const struct kvb_out_section *sec = &p->sec[i];
		size_t j, plots = 0, other = 0;
		if (sec->plot)
			continue;
		if (sec->heading && !sec->table) {
			for (j = i + 1; j < p->n && !p->sec[j].heading; j++) {
				plots += p->sec[j].plot != NULL;
				other += !p->sec[j].plot;
			}
			if (plots && !other)
				continue;
		}
		(*kept)[n++] = *sec;
	}
	return n;
}

/* The filter of o's --metric/--workload/--variant/--baseline. */
static void filter_from(struct kvb_page_filter *f, const struct kvb_page_opts *o)
{
	memset(f, 0, sizeof(*f));
	f->metric = o->metrics;
	f->nmetric = o->nmetrics;
	f->workload = o->workloads;
	f->nworkload = o->nworkloads;
	f->variant = o->variants;
	f->nvariant = o->nvariants;
	f->baseline = o->baseline;
}

int kvb_page_write(struct kvb_store *s, const struct kvb_page_opts *o, struct kvb_error *err)
{
	const struct kvb_format *fmt = kvb_format_find(o->format ? o->format : "html", err);
	struct page_work w;
	struct kvb_out doc;
	int64_t nres = 0, njobs = 0, nfailed = 0;
	char *title = NULL, *runs_text = NULL;
	int rc, filtered = 0;
	struct db_files dbf;
	struct kvb_page_filter filt;
	struct kvb_out_section *prose = NULL;

	if (!fmt)
		return KVB_EUSAGE;
	memset(&w, 0, sizeof(w));
	w.runs = (struct kvb_buf)KVB_BUF_INIT;
	filter_from(&filt, o);
	db_files_init(&dbf, s->path);
	/* a path that would be refused is refused before the work */
	if ((rc = kvb_outfile_check(o->out_path, (const char *const *)dbf.v, KVB_ARRAY_SIZE(dbf.v), err)) ||
	    (rc = check_schema(s, err))) {
		db_files_release(&dbf);
		return rc;
	}
	if ((rc = select_runs(s, o, &w, err)))
		goto out;
	w.p.runs_json = w.runs.data;
	if ((rc = kvb_page_filter_apply(s, &filt, w.runs.data, err)))
		goto out;
	filtered = 1;
	w.p.nruns = o->nruns ? (int)o->nruns : 1;
	if ((rc = count(s, "SELECT count(*) FROM results WHERE run_id IN (SELECT value FROM json_each(?1))", w.runs.data,
			&nres, err)) ||
	    (rc = count(s, "SELECT count(*) FROM job WHERE run_id IN (SELECT value FROM json_each(?1))", w.runs.data,
			&njobs, err)) ||
	    (rc = count(s, "SELECT count(*) FROM job WHERE run_id IN (SELECT value FROM json_each(?1))"
			" AND status NOT IN ('ok', 'warmup')",
			w.runs.data, &nfailed, err)))
		goto out;

	if (!nres && kvb_page_filter_any(&filt)) {
		rc = kvb_error_set(err, KVB_EINPUT, "%s: no result passes --metric/--workload/--variant", s->path);
		goto out;
	}
	disturbance_banner(s, o, &w);
	if (nres && (rc = comparison_sections(s, o, fmt, &w, err)))
		goto out;
	if (!nres)
		kvb_page_add(&w.p, "Comparison", "comparison")->text = "no results: every job failed (see Failures)";

	/* metadata */
	for (size_t i = 0; i < KVB_ARRAY_SIZE(metadata_tables); i++)
		if ((rc = kvb_page_sql(&w.p, s, metadata_tables[i].heading, metadata_tables[i].id, metadata_tables[i].sql,
				       metadata_tables[i].empty, NULL, err)))
			goto out;
	if ((rc = detail_sections(s, o, &w, nres, err)))
		goto out;

	/* "[1,2]" -> "1, 2" for people */
	runs_text = kvb_xstrndup(w.runs.data + 1, w.runs.len - 2);
	for (char *c = strchr(runs_text, ','); c; c = strchr(c + 1, ','))
		*c = ' ';
	title = kvb_xasprintf("kvbench report: run%s %s", o->nruns > 1 ? "s" : "", runs_text);
	memset(&doc, 0, sizeof(doc));
	doc.title = title;
	if ((fmt->caps & KVB_FMT_PLOTS) || !(fmt->caps & KVB_FMT_PROSE)) {
		/* html draws the plots; json carries their specs as data */
		doc.sec = w.p.sec;
		doc.nsec = w.p.n;
	} else {
		doc.nsec = without_plots(&w.p, &prose);
		doc.sec = prose;
	}
	if ((rc = write_atomic(fmt, &doc, o->out_path, &dbf, err)))
		goto out;
	if (!nres)
		rc = kvb_error_set(err, KVB_ENORESULTS, "run%s %s: no results, %lld of %lld jobs failed (the report shows the failures)",
				   o->nruns > 1 ? "s" : "", runs_text, (long long)nfailed, (long long)njobs);
out:
	if (filtered)
		kvb_page_filter_drop(s, &filt);
	cJSON_Delete(w.diff_json);
	if (w.table) {
		kvb_box_release(w.table);
		free(w.table);
	}
	if (w.loaded) {
		kvb_table_release(&w.cells);
		kvb_report_release(&w.r);
	}
	kvb_event_notes_release(&w.notes);
	free(w.legend);
	free(prose);
	free(title);
	free(runs_text);
	kvb_page_release(&w.p);
	kvb_buf_release(&w.runs);
	db_files_release(&dbf);
	return rc;
}
