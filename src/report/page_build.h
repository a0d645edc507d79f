/*
 * Building the report page (page.c): the document under construction and the
 * helpers the section builders share, one file per kind of plot:
 * page_build.c (sections, tables, plot spec helpers), plot_dist.c (Jankbench
 * and rt-app CDFs), plot_power.c (decimated power, energy per job),
 * plot_cpu.c (per-CPU utilisation, frequency residency). Plot specs are the
 * JSON objects src/report/html/plots.js draws.
 */
#ifndef KVB_PAGE_BUILD_H
#define KVB_PAGE_BUILD_H

#include "core/util.h"
#include "report/format.h"
#include "results/groups.h"
#include "store/rows.h"

#include <cjson/cJSON.h>

/* The document being built; owns every section's storage. */
struct kvb_page {
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

/* Takes ownership of s (freed at release); returns the kept copy. */
const char *kvb_page_keep(struct kvb_page *p, char *s);
/* Appends an empty section (heading copied, id static); valid until the next kvb_page_add. */
struct kvb_out_section *kvb_page_add(struct kvb_page *p, const char *heading, const char *id);
/* Appends a plot section; the page owns plot. caption may be NULL. */
void kvb_page_plot(struct kvb_page *p, cJSON *plot, const char *caption);
void kvb_page_release(struct kvb_page *p);
/* A table section from sql over the page's runs (JSON array text bound to ?2); `none` replaces an empty table. */
int kvb_page_sql(struct kvb_page *p, struct kvb_store *s, const char *heading, const char *id, const char *sql,
		 const char *none, size_t *rows, struct kvb_error *err);
/* Prepares sql with the page's runs (a JSON array text) bound to ?1. KVB_ESTORE on a DB error. */
int kvb_page_query(struct kvb_store *s, const struct kvb_page *p, const char *sql, struct kvb_rows **st,
		   struct kvb_error *err);
/* A JSON number of x at 6 significant digits (null when not finite). */
cJSON *kvb_plot_num(double x);
/* {"kind", "title", "x", "y"}: the start of every plot spec. */
cJSON *kvb_plot_new(const char *kind, const char *title, const char *x, const char *y);
/*
 * Adds one sample to a dotbox spec's groups array: to the group called name
 * (appended when new), its value and its boot's label (kvb_plot_boot_label).
 */
void kvb_plot_dot(cJSON *groups, const char *name, double value, int64_t boot, int nruns);
/* Boot label of a model boot id (run_id * 100000 + round): the round, "run.round" when several runs. */
void kvb_plot_boot_label(char *buf, size_t n, int64_t boot, int nruns);

/*
 * The samples of one diff group (groups.c: the one grouping rule of diff, report and the
 * comparison view) as dots: per variant, a dot group named "PREFIX VARIANT" (or the variant
 * when prefix is NULL) with its values and boots. Appends to groups (a new array when NULL);
 * returns it.
 */
cJSON *kvb_plot_group_dots(const struct kvb_report *r, const struct kvb_group *g, const char *prefix, int nruns,
			   cJSON *groups);
/* g->label without the "KEY=value" words of keys (owned; "" when nothing is left). */
char *kvb_group_label_without(const struct kvb_group *g, const char *const *keys, size_t nkeys);
/* g->cls_json without keys, as JSON text (owned): the key of a plot that spreads those keys. */
char *kvb_group_cls_without(const struct kvb_group *g, const char *const *keys, size_t nkeys);

/* Section builders, in page order. Errors: KVB_ESTORE (DB). */
void kvb_page_metric_plots(struct kvb_page *p, const struct kvb_report *r);
int kvb_page_power_plots(struct kvb_store *s, struct kvb_page *p, size_t max_points, struct kvb_error *err);
/* Energy per job: the diff's `energy` groups (one per workload, spec classifiers and channel); r may be NULL. */
void kvb_page_energy_plots(struct kvb_page *p, const struct kvb_report *r);
struct kvb_artifact_plot;
/* The section and CDFs of one workload's artifact plot (workload.h) over the page's runs' artifacts. */
int kvb_page_workload_cdfs(struct kvb_store *s, struct kvb_page *p, const struct kvb_artifact_plot *ap,
			   struct kvb_error *err);
/* util_mean per CPU and freq_residency per cluster, one plot per workload and spec classifiers; r may be NULL. */
void kvb_page_cpu_plots(struct kvb_page *p, const struct kvb_report *r);

#endif
