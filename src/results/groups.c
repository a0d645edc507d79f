/* Implements loading results from the store and grouping them for comparison. */
#include "results/groups.h"
#include "store/rows.h"
#include "config/runtime.h"
#include "core/suggest.h"
#include "core/util.h"
#include "results/runstate.h"

#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Classifiers that tell samples apart rather than groups: the variant (a
 * column of its own), the job's iteration, and `rep`, a repetition inside
 * one job (Jankbench runs EXTRA_RUN_COUNT reps per app start; WA3 names it
 * rep too). Values differing only in these pool into one cell.
 */
/* Keys that tell samples apart, not groups; board (a pool's, docs/design.md#pools-and-lava) is a level of the samples too. */
static const char *const sample_keys[] = { "variant", "iteration", "rep", "board", "pload_ns" /* diff warns on a mismatch */ };

static size_t variant_index(struct kvb_report *r, const char *name)
{
	for (size_t i = 0; i < r->variants.n; i++)
		if (!strcmp(r->variants.v[i], name))
			return i;
	kvb_strv_push(&r->variants, name);
	for (size_t g = 0; g < r->ngroups; g++) {
		r->groups[g].cells = kvb_xrealloc(r->groups[g].cells, r->variants.n * sizeof(*r->groups[g].cells));
		memset(&r->groups[g].cells[r->variants.n - 1], 0, sizeof(struct kvb_cell));
	}
	return r->variants.n - 1;
}

static struct kvb_group *group_get(struct kvb_report *r, const char *key, const char *workload, const char *metric,
				   const char *units, int lib, const char *by_value, const char *cls_json)
{
	for (size_t i = 0; i < r->ngroups; i++)
		if (!strcmp(r->groups[i].key, key))
			return &r->groups[i];
	r->groups = kvb_xrealloc(r->groups, (r->ngroups + 1) * sizeof(*r->groups));
	struct kvb_group *g = &r->groups[r->ngroups++];
	memset(g, 0, sizeof(*g));
	g->key = kvb_xstrdup(key);
	g->workload = kvb_xstrdup(workload);
	g->metric = kvb_xstrdup(metric);
	g->units = kvb_xstrdup(units ? units : "");
	g->lower_is_better = lib;
	g->by_value = by_value ? kvb_xstrdup(by_value) : NULL;
	g->cls_json = kvb_xstrdup(cls_json);
	g->cells = kvb_xcalloc(r->variants.n + 1, sizeof(*g->cells));
	return g;
}

static void cell_add(struct kvb_cell *c, double v, int64_t boot, int board, int64_t pair)
{
	c->v = kvb_xrealloc(c->v, (c->n + 1) * sizeof(*c->v));
	c->pair = kvb_xrealloc(c->pair, (c->n + 1) * sizeof(*c->pair));
	c->pair[c->n] = pair;
	c->boot = kvb_xrealloc(c->boot, (c->n + 1) * sizeof(*c->boot));
	c->board = kvb_xrealloc(c->board, (c->n + 1) * sizeof(*c->board));
	c->v[c->n] = v;
	c->boot[c->n] = boot;
	c->board[c->n] = board;
	c->n++;
}

/* Index of a `board` classifier's value in r->boards (added when new); 0 for results without one. */
static int board_index(struct kvb_report *r, const cJSON *v)
{
	size_t i;
	if (!cJSON_IsString(v))
		return 0;
	for (i = 0; i < r->boards.n; i++)
		if (!strcmp(r->boards.v[i], v->valuestring))
			return (int)i + 1;
	kvb_strv_push(&r->boards, v->valuestring);
	return (int)r->boards.n;
}

/* Labels: per (workload, metric), the classifier keys whose values differ between groups. */
static void make_labels(struct kvb_report *r)
{
	for (size_t i = 0; i < r->ngroups; i++) {
		struct kvb_group *g = &r->groups[i];
		cJSON *mine = cJSON_Parse(g->cls_json);
		struct kvb_buf lab = KVB_BUF_INIT;
		for (cJSON *kv = mine ? mine->child : NULL; kv; kv = kv->next) {
			int varies = 0;
			for (size_t j = 0; j < r->ngroups && !varies; j++) {
				struct kvb_group *h = &r->groups[j];
				if (j == i || strcmp(h->workload, g->workload) || strcmp(h->metric, g->metric))
					continue;
				cJSON *other = cJSON_Parse(h->cls_json);
				cJSON *ov = cJSON_GetObjectItemCaseSensitive(other, kv->string);
				varies = !cJSON_IsString(ov) || strcmp(ov->valuestring, kv->valuestring);
				cJSON_Delete(other);
			}
			/* channel, task and test names always show: a power or rt-app table is read by them */
			if (!strcmp(kv->string, "chan_name") || !strcmp(kv->string, "task") ||
			    !strcmp(kv->string, "test_name"))
				varies = 1;
			if (!strcmp(kv->string, "estimated"))
				varies = 0; /* shown in the metric title instead */
			if (varies)
				kvb_buf_addf(&lab, "%s%s=%s", lab.len ? " " : "", kv->string,
					     cJSON_IsString(kv) ? kv->valuestring : "?");
		}
		cJSON_Delete(mine);
		g->label = kvb_buf_detach(&lab);
	}
}

int kvb_report_metric_wanted(const struct kvb_report_opts *o, const char *metric)
{
	if (!o->metric_glob && !o->nmetric_globs)
		return 1;
	if (o->metric_glob && !fnmatch(o->metric_glob, metric, 0))
		return 1;
	for (size_t i = 0; i < o->nmetric_globs; i++)
		if (!fnmatch(o->metric_globs[i], metric, 0))
			return 1;
	return 0;
}

/* The runs asked for, or the latest. */
static int select_runs(struct kvb_store *s, const struct kvb_report_opts *o, struct kvb_report *r,
		       struct kvb_error *err)
{
	int64_t latest;
	int rc;
	if (o->nruns) {
		r->runs = kvb_xcalloc(o->nruns, sizeof(*r->runs));
		memcpy(r->runs, o->runs, o->nruns * sizeof(*r->runs));
		r->nruns = o->nruns;
		return KVB_OK;
	}
	if ((rc = kvb_store_latest_run(s, &latest, err)))
		return rc;
	if (!latest)
		return kvb_error_set(err, KVB_EINPUT, "%s: no runs yet", s->path);
	r->runs = kvb_xcalloc(1, sizeof(*r->runs));
	r->runs[0] = latest;
	r->nruns = 1;
	return KVB_OK;
}

/* variants in agenda order, run by run, and the classifier keys of their knobs */
static int load_run_variants(struct kvb_store *s, struct kvb_report *r, struct kvb_error *err)
{
	struct kvb_rows *st = NULL;
	if (kvb_rows_open(s, "SELECT name, runtime_json FROM variant WHERE run_id = ? ORDER BY position", &st, NULL, NULL) != KVB_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, kvb_store_errmsg(s));
	for (size_t i = 0; i < r->nruns; i++) {
		int found = 0;
		kvb_rows_reset(st);
		kvb_rows_bind_int(st, 1, r->runs[i]);
		while (kvb_rows_next(st, NULL) == 1) {
			cJSON *knobs = cJSON_Parse((const char *)kvb_rows_text(st, 1));
			variant_index(r, (const char *)kvb_rows_text(st, 0));
			kvb_runtime_json_classifier_keys(knobs, &r->variant_knobs);
			cJSON_Delete(knobs);
			found = 1;
		}
		if (!found) {
			kvb_rows_close(st);
			return kvb_error_set(err, KVB_EINPUT, "%s: run %lld not found (or has no variants)", s->path,
					     (long long)r->runs[i]);
		}
	}
	kvb_rows_close(st);
	return KVB_OK;
}

/* --baseline first among the variants; a name that is none of them is a usage error naming them. */
static int baseline_first(const struct kvb_report_opts *o, struct kvb_report *r, struct kvb_error *err)
{
	size_t b;
	int rc;
	if (!o->baseline)
		return KVB_OK;
	for (b = 0; b < r->variants.n; b++)
		if (!strcmp(r->variants.v[b], o->baseline))
			break;
	if (b == r->variants.n) {
		struct kvb_buf names = KVB_BUF_INIT;
		for (size_t i = 0; i < r->variants.n; i++)
			kvb_buf_addf(&names, "%s%s", i ? ", " : "", r->variants.v[i]);
		char dym[160];
		rc = kvb_error_set(err, KVB_EUSAGE, "--baseline '%s': no such variant%s (variants: %s)", o->baseline,
				   kvb_did_you_mean(dym, sizeof(dym), o->baseline, (const char *const *)r->variants.v,
						    r->variants.n),
				   names.data);
		kvb_buf_release(&names);
		return rc;
	}
	char *tmp = r->variants.v[b];
	memmove(&r->variants.v[1], &r->variants.v[0], b * sizeof(char *));
	r->variants.v[0] = tmp;
	return KVB_OK;
}

/*
 * One row of the results view into its group's cell (skipped when --workload/--metric leave it
 * out); left_out: a row of results_left_out, only counted in its cell.
 */
static void add_result(struct kvb_report *r, const struct kvb_report_opts *o, struct kvb_rows *st, int left_out)
{
	const char *variant = (const char *)kvb_rows_text(st, 0);
	const char *workload = (const char *)kvb_rows_text(st, 1);
	const char *metric = (const char *)kvb_rows_text(st, 2);
	const char *units = (const char *)kvb_rows_text(st, 3);
	int lib = (int)kvb_rows_int(st, 4);
	const char *cls = (const char *)kvb_rows_text(st, 5);
	int64_t boot = kvb_rows_int(st, 8) * 100000 + kvb_rows_int(st, 6);
	double value = kvb_rows_double(st, 7);
	cJSON *c, *key_cls;
	int board;
	char *by_value = NULL, *kc;
	struct kvb_buf key = KVB_BUF_INIT;

	if (o->workload && strcmp(o->workload, workload))
		return;
	if (o->max_round > 0 && (int)kvb_rows_int(st, 9) > o->max_round)
		return;
	for (size_t k = 0; k < o->nskip_rounds; k++)
		if ((int)kvb_rows_int(st, 9) == o->skip_rounds[k])
			return;
	if (!kvb_report_metric_wanted(o, metric))
		return;
	c = cJSON_Parse(cls ? cls : "{}");
	if (!c)
		c = cJSON_CreateObject();
	board = board_index(r, cJSON_GetObjectItemCaseSensitive(c, "board"));
	if (board) /* boots of different boards are different boots, even in the same round */
		boot += (int64_t)board * 1000000000000LL;
	for (size_t k = 0; k < KVB_ARRAY_SIZE(sample_keys); k++)
		if (!(o->by && !strcmp(o->by, "board") && !strcmp(sample_keys[k], "board")))
			cJSON_DeleteItemFromObjectCaseSensitive(c, sample_keys[k]); /* --by board spreads it */
	for (size_t k = 0; k < r->variant_knobs.n; k++)
		cJSON_DeleteItemFromObjectCaseSensitive(c, r->variant_knobs.v[k]);
	key_cls = cJSON_Duplicate(c, 1);
	if (o->by) {
		cJSON *bv = cJSON_GetObjectItemCaseSensitive(c, o->by);
		if (cJSON_IsString(bv))
			by_value = kvb_xstrdup(bv->valuestring);
		cJSON_DeleteItemFromObjectCaseSensitive(key_cls, o->by);
	}
	kc = cJSON_PrintUnformatted(key_cls);
	kvb_buf_addf(&key, "%s\x1f%s\x1f%s\x1f%d\x1f%s\x1f%s", workload, metric, units ? units : "", lib, kc,
		     by_value ? by_value : "");
	{
		size_t vi = variant_index(r, variant);
		struct kvb_group *g = group_get(r, key.data, workload, metric, units, lib, by_value, kc);
		if (left_out)
			g->cells[vi].left_out++;
		else
			cell_add(&g->cells[vi], value, boot, board, kvb_rows_int(st, 8) * 100000 + kvb_rows_int(st, 9));
	}
	free(kc);
	free(by_value);
	kvb_buf_release(&key);
	cJSON_Delete(key_cls);
	cJSON_Delete(c);
}

/* One view's rows of every run into the groups (results.boot is the boot unit: results-schema/). */
static int load_view(struct kvb_store *s, const struct kvb_report_opts *o, struct kvb_report *r, const char *sql,
		     int left_out, struct kvb_error *err)
{
	struct kvb_rows *st = NULL;
	if (kvb_rows_open(s, sql, &st, NULL, NULL) != KVB_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, kvb_store_errmsg(s));
	for (size_t i = 0; i < r->nruns; i++) {
		kvb_rows_reset(st);
		kvb_rows_bind_int(st, 1, r->runs[i]);
		while (kvb_rows_next(st, NULL) == 1)
			add_result(r, o, st, left_out);
	}
	kvb_rows_close(st);
	return KVB_OK;
}

/* The compared values (results), then the jobs the host left out (counted per cell). */
static int load_results(struct kvb_store *s, const struct kvb_report_opts *o, struct kvb_report *r,
			struct kvb_error *err)
{
	int rc = load_view(s, o, r,
			   "SELECT variant, workload, metric, units, lower_is_better, classifiers, boot, value, run_id,"
			   " round FROM results WHERE run_id = ? ORDER BY metric_id",
			   0, err);
	if (!rc)
		rc = load_view(s, o, r,
			       "SELECT variant, workload, metric, units, lower_is_better, classifiers, boot, value, run_id,"
			       " round FROM results_left_out WHERE run_id = ? ORDER BY metric_id",
			       1, err);
	return rc;
}

/* Mean of the values of c whose pair key is key, or NAN. */
static double pair_mean(const struct kvb_cell *c, int64_t key)
{
	double sum = 0;
	size_t n = 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->pair[i] == key)
			sum += c->v[i], n++;
	return n ? sum / (double)n : NAN;
}

int kvb_cell_paired(const struct kvb_cell *b, const struct kvb_cell *c, double alpha, struct kvb_paired *out)
{
	if (!b->pair || !c->pair)
		return KVB_EINPUT;
	double *mb = kvb_xcalloc(b->n + 1, sizeof(double)), *mv = kvb_xcalloc(b->n + 1, sizeof(double));
	int64_t *keys = kvb_xcalloc(b->n + 1, sizeof(int64_t));
	size_t nk = 0, n = 0;
	for (size_t i = 0; i < b->n; i++) {
		size_t j;
		for (j = 0; j < nk && keys[j] != b->pair[i]; j++)
			;
		if (j < nk)
			continue;
		keys[nk++] = b->pair[i];
		double x = pair_mean(c, b->pair[i]);
		if (isnan(x))
			continue; /* the variant's side of this round failed: no pair */
		mb[n] = pair_mean(b, b->pair[i]);
		mv[n++] = x;
	}
	int rc = kvb_stats_paired(mb, mv, n, alpha, out, NULL);
	free(mb);
	free(mv);
	free(keys);
	return rc;
}

/* r->paired: every run of the report ran its variants as a duet (engine/duet.c) */
static int load_paired(struct kvb_store *s, struct kvb_report *r, struct kvb_error *err)
{
	struct kvb_rows *st = NULL;
	size_t duets = 0;
	if (kvb_rows_open(s, "SELECT exec_order = 'duet' FROM run WHERE id = ?", &st, NULL, NULL) != KVB_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, kvb_store_errmsg(s));
	for (size_t i = 0; i < r->nruns; i++) {
		kvb_rows_reset(st);
		kvb_rows_bind_int(st, 1, r->runs[i]);
		if (kvb_rows_next(st, NULL) == 1 && kvb_rows_int(st, 0) == 1)
			duets++;
	}
	kvb_rows_close(st);
	r->paired = r->nruns && duets == r->nruns;
	return KVB_OK;
}

/* --by a classifier no group has is a typo, not a table with one "-" column */
static int check_by_key(const struct kvb_report_opts *o, const struct kvb_report *r, struct kvb_error *err)
{
	int seen = 0;
	if (!o->by)
		return KVB_OK;
	for (size_t i = 0; i < r->ngroups && !seen; i++)
		seen = r->groups[i].by_value != NULL;
	if (seen)
		return KVB_OK;
	struct kvb_strv keys = KVB_STRV_INIT;
	struct kvb_buf names = KVB_BUF_INIT;
	for (size_t i = 0; i < r->ngroups; i++) {
		cJSON *c = cJSON_Parse(r->groups[i].cls_json);
		for (cJSON *kv = c ? c->child : NULL; kv; kv = kv->next) {
			size_t k;
			for (k = 0; k < keys.n && strcmp(keys.v[k], kv->string); k++)
				;
			if (k == keys.n)
				kvb_strv_push(&keys, kv->string);
		}
		cJSON_Delete(c);
	}
	for (size_t k = 0; k < keys.n; k++)
		kvb_buf_addf(&names, "%s%s", k ? ", " : "", keys.v[k]);
	char dym[160];
	kvb_error_set(err, KVB_EUSAGE, "--by '%s': no result has that classifier%s (classifiers: %s)", o->by,
		      kvb_did_you_mean(dym, sizeof(dym), o->by, (const char *const *)keys.v, keys.n),
		      names.len ? names.data : "none");
	kvb_buf_release(&names);
	kvb_strv_release(&keys);
	return KVB_EUSAGE;
}

int kvb_report_load(struct kvb_store *s, const struct kvb_report_opts *o, struct kvb_report *r, struct kvb_error *err)
{
	int rc;
	memset(r, 0, sizeof(*r));
	if ((rc = select_runs(s, o, r, err)) || (rc = load_run_variants(s, r, err)) || (rc = baseline_first(o, r, err)) ||
	    (rc = load_results(s, o, r, err)) || (rc = load_paired(s, r, err)))
		return rc;
	if (!r->ngroups)
		return kvb_run_state_explain_empty(s, o, r, err);
	if ((rc = check_by_key(o, r, err)))
		return rc;
	make_labels(r);
	return KVB_OK;
}

void kvb_group_release(struct kvb_group *g, size_t nvariants)
{
	for (size_t v = 0; v < nvariants; v++) {
		free(g->cells[v].v);
		free(g->cells[v].boot);
		free(g->cells[v].pair);
		free(g->cells[v].board);
	}
	free(g->cells);
	free(g->key);
	free(g->workload);
	free(g->metric);
	free(g->units);
	free(g->label);
	free(g->by_value);
	free(g->cls_json);
}

void kvb_report_release(struct kvb_report *r)
{
	for (size_t i = 0; i < r->ngroups; i++)
		kvb_group_release(&r->groups[i], r->variants.n);
	free(r->groups);
	free(r->runs);
	kvb_strv_release(&r->variants);
	kvb_strv_release(&r->boards);
	kvb_strv_release(&r->variant_knobs);
	memset(r, 0, sizeof(*r));
}

const char *kvb_by_label(const char *key, const char *value, char *buf, size_t n)
{
	int64_t d;
	if (key && !strcmp(key, "cgroup_depth") && value && !kvb_parse_i64(value, &d) && d >= 0) {
		if (d == 0)
			snprintf(buf, n, "root");
		else
			snprintf(buf, n, "level%lld", (long long)d);
		return buf;
	}
	snprintf(buf, n, "%s", value ? value : "-");
	return buf;
}
