/*
 * Implements `kvbench bisect`: git's own bisect (start --no-checkout, good,
 * bad, skip, log, reset, all argv spawns) driven by measured runs, DESIGN.md §10.
 *
 * The good and bad endpoints are measured first (one run each) and must
 * differ: bad significantly worse than good by at least --threshold %. While
 * they are not decided against each other (no significant difference yet) each
 * gets one more boot (a run stored in bisect_endpoint_run) up to --max-rounds
 * boots; a "good" significantly worse than "bad" is refused (exit 3). Each
 * step builds BISECT_HEAD, runs the agenda on it (a stored run), and compares
 * the step with both endpoints using the boot-aware verdict of `kvbench diff`:
 *   bad   worse than good by >= threshold and not different from bad
 *   good  not worse than good by >= threshold and significantly better than bad
 * otherwise it gets another run (more boots) up to --max-rounds boots, then
 * the nearer endpoint mean decides (the reason says so). A step whose build,
 * flash, boot or identity check fails is `skip`ped; two such failures in a row
 * where the board never came up, or an engine error, `abort` (everything is
 * kept; --resume continues). The repository's bisect state exists only while
 * kvbench runs: `git bisect reset` after success, failure and Ctrl-C;
 * --resume starts git's bisect again and replays the stored steps.
 */
#include "cli/cli.h"
#include "config/agenda.h"
#include "config/platform.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/util.h"
#include "engine/engine.h"
#include "kbuild/git.h"
#include "kbuild/prepare.h"
#include "report/series.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growable list of run ids (v owned; runs_release frees it). Bounded by --max-rounds, never
 * truncated. */
struct runs {
	int64_t *v;
	size_t n, alloc;
};

static void runs_add(struct runs *r, int64_t id)
{
	if (r->n == r->alloc) {
		r->alloc = r->alloc ? 2 * r->alloc : 8;
		r->v = kvb_xrealloc(r->v, r->alloc * sizeof(*r->v));
	}
	r->v[r->n++] = id;
}

static void runs_release(struct runs *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

struct bisect {
	int64_t id;
	char *repo, *agenda_file, *plat_name, *metric, *workload, *metric_name, *cmdline;
	char good[41], bad[41];
	double threshold;
	int rounds, max_rounds, step, started;
	struct kvb_store *st;
	struct kvb_platform plat;
	int64_t good_run, bad_run;
	struct runs ends;      /* the endpoints' extra runs (one boot each, either endpoint) */
	volatile int cancel;
};

struct step_result {
	const char *outcome;   /* good | bad | skip | abort, or NULL while undecided */
	double value, vs_good, vs_bad;
	int boots, good_boots, bad_boots; /* the step's boots and the endpoints' */
	char reason[512];
};

static int split_metric(struct bisect *b, struct kvb_error *err)
{
	const char *slash = strchr(b->metric, '/');
	if (!slash || slash == b->metric || !slash[1] || strchr(slash + 1, '/'))
		return kvb_error_set(err, KVB_EUSAGE, "--metric '%s': expected WORKLOAD/METRIC (e.g. sched_pipe/usecs_per_op)",
				     b->metric);
	b->workload = kvb_xstrndup(b->metric, (size_t)(slash - b->metric));
	b->metric_name = kvb_xstrdup(slash + 1);
	return KVB_OK;
}

static int sql(struct bisect *b, struct kvb_error *err, const char *q, const char *types, ...)
{
	sqlite3_stmt *s;
	va_list ap;
	int rc = KVB_OK;
	if (sqlite3_prepare_v2(b->st->db, q, -1, &s, NULL) != SQLITE_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", b->st->path, sqlite3_errmsg(b->st->db));
	va_start(ap, types);
	for (int i = 0; types[i]; i++) {
		switch (types[i]) {
		case 'i': sqlite3_bind_int64(s, i + 1, va_arg(ap, int64_t)); break;
		case 'd': {
			double d = va_arg(ap, double);
			if (isnan(d))
				sqlite3_bind_null(s, i + 1);
			else
				sqlite3_bind_double(s, i + 1, d);
			break;
		}
		default: {
			const char *t = va_arg(ap, const char *);
			if (t)
				sqlite3_bind_text(s, i + 1, t, -1, SQLITE_TRANSIENT);
			else
				sqlite3_bind_null(s, i + 1);
		}
		}
	}
	va_end(ap);
	if (sqlite3_step(s) != SQLITE_DONE)
		rc = kvb_error_set(err, KVB_ESTORE, "%s: %s", b->st->path, sqlite3_errmsg(b->st->db));
	sqlite3_finalize(s);
	return rc;
}

/* `git bisect ARGS...` in the repository; *out gets stdout (owned) when out != NULL. */
static int git_bisect(struct bisect *b, const char *const *args, char **out, struct kvb_error *err)
{
	const char *argv[8] = { "bisect" };
	size_t n = 1;
	struct kvb_exec_result r;
	int rc;
	for (size_t i = 0; args[i] && n < 7; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	kvb_exec_result_init(&r);
	rc = kvb_git(b->repo, argv, &r, NULL, err);
	if (!rc && out)
		*out = kvb_xstrdup(r.out.data ? r.out.data : "");
	kvb_exec_result_release(&r);
	return rc;
}

static void save_log(struct bisect *b)
{
	static const char *const args[] = { "log", NULL };
	char *log = NULL;
	struct kvb_error e2;
	if (!git_bisect(b, args, &log, &e2))
		sql(b, &e2, "UPDATE bisect SET git_log = ? WHERE id = ?", "ti", log, b->id);
	free(log);
}

static void bisect_reset(struct bisect *b)
{
	static const char *const args[] = { "reset", NULL };
	struct kvb_error e2;
	if (b->started && git_bisect(b, args, NULL, &e2))
		kvb_warn("git bisect reset in %s: %s", b->repo, e2.msg);
	b->started = 0;
}

/*
 * One measurement of commit sha: build, run the agenda on it (a stored run).
 * Returns KVB_OK with *why NULL (measured), KVB_OK with *why set (the variant
 * failed: build/flash/boot/identity), or an error (agenda, engine, store,
 * interrupted: b->cancel).
 */
static int measure(struct bisect *b, const char *sha, int rounds, int64_t *run_id, char **why, int *booted,
		   struct kvb_error *err) /* *booted: 1 a boot happened, 0 none, -1 the build failed */
{
	struct kvb_agenda a;
	struct kvb_diag d;
	struct kvb_build_set set;
	struct kvb_prepare_opts po = { .allow_dirty = 1, .repo = b->repo, .cancel = &b->cancel, .platform_file = b->plat.file };
	const char *const shas[] = { sha };
	int rc;
	sqlite3_stmt *q;
	char *cmd = kvb_xasprintf("%s (step %d, %.12s)", b->cmdline, b->step, sha);

	*why = NULL;
	*run_id = 0;
	*booted = 0;
	if (b->cancel) { /* Ctrl-C between runs (git, a cached image): our handler, not the engine's, caught it */
		free(cmd);
		return kvb_error_set(err, KVB_EINTR, "interrupted before measuring %.12s", sha);
	}
	memset(&a, 0, sizeof(a));
	memset(&set, 0, sizeof(set));
	kvb_diag_init(&d, NULL);
	rc = kvb_agenda_load(&a, b->agenda_file, &d);
	if (rc) {
		rc = kvb_error_set(err, KVB_EINPUT, "%s", d.msgs.n ? d.msgs.v[0] : "cannot load the agenda");
		goto out;
	}
	kvb_build_set_variants(&a, b->repo, shas, 1);
	po.platform_build = b->plat.doc.root ? cJSON_GetObjectItemCaseSensitive(b->plat.doc.root, "build") : NULL;
	if ((rc = kvb_build_prepare(&a, &po, &set, err)))
		goto out;
	/* a commit that does not build says nothing about the board */
	if (set.n && set.items[0].res.error)
		*booted = -1;
	if (b->cancel) {
		rc = kvb_error_set(err, KVB_EINTR, "interrupted before measuring %.12s", sha);
		goto out;
	}
	{
		struct kvb_run_opts ro = {
			.agenda = &a, .plat = &b->plat, .store = b->st, .rounds = rounds, .command_line = cmd,
			.on_variants = kvb_build_record, .on_variants_arg = &set,
		};
		rc = kvb_engine_run(&ro, run_id, err);
	}
	/* failed jobs or an interrupted run: the run's and the variant's status below say which */
	if (rc && rc != KVB_EJOBS && rc != KVB_EINTR)
		goto out;
	rc = KVB_OK;
	if (sqlite3_prepare_v2(b->st->db,
			       "SELECT r.status, v.status, v.error, (SELECT count(*) FROM boot WHERE variant_id = v.id) "
			       "FROM run r JOIN variant v ON v.run_id = r.id WHERE r.id = ?",
			       -1, &q, NULL) != SQLITE_OK) {
		rc = kvb_error_set(err, KVB_ESTORE, "%s: %s", b->st->path, sqlite3_errmsg(b->st->db));
		goto out;
	}
	sqlite3_bind_int64(q, 1, *run_id);
	if (sqlite3_step(q) == SQLITE_ROW) {
		const char *rs = (const char *)sqlite3_column_text(q, 0), *vs = (const char *)sqlite3_column_text(q, 1);
		const char *ve = (const char *)sqlite3_column_text(q, 2);
		if (*booted == 0)
			*booted = sqlite3_column_int(q, 3) > 0;
		if (rs && !strcmp(rs, "interrupted")) {
			b->cancel = 1;
			rc = kvb_error_set(err, KVB_EINTR, "run %lld interrupted", (long long)*run_id);
		} else if (vs && !strcmp(vs, "failed")) {
			*why = kvb_xstrdup(ve ? ve : "variant failed");
		}
	}
	sqlite3_finalize(q);
out:
	kvb_diag_release(&d);
	kvb_build_set_release(&set);
	kvb_agenda_release(&a);
	free(cmd);
	return rc;
}

/*
 * A difference bisect may act on: significant by the boot-aware test. A
 * verdict from one boot a side (the naive test over runs, DESIGN.md §8) cannot
 * tell a change from boot-to-boot noise: the commit gets another boot.
 */
static int decided(const struct kvb_cell_stats *c)
{
	return c->significant && !c->one_boot;
}

/* Runs of a commit in this bisect so far (the endpoints' and a step's extra rounds). */
/*
 * Compares commit `sha` (its runs) with the good and bad endpoints. Fills
 * r (value, vs_good, vs_bad, boots, and outcome when decided; once it has max_boots boots the
 * nearer endpoint decides; 0 = never). KVB_EINPUT when the metric is not in the results.
 */
static int judge(struct bisect *b, const char *sha, const struct runs *mine, int max_boots, struct step_result *res,
		 struct kvb_error *err)
{
	int final;
	struct kvb_report r;
	struct kvb_report_opts o = { 0 };
	struct runs all = { 0 };
	size_t ig = (size_t)-1, ib = (size_t)-1, is = (size_t)-1;
	char gname[11], bname[11], sname[11];
	struct kvb_cell_stats cg, cb;
	int rc;
	runs_add(&all, b->good_run);
	runs_add(&all, b->bad_run);
	for (size_t i = 0; i < b->ends.n; i++)
		runs_add(&all, b->ends.v[i]);
	for (size_t i = 0; i < mine->n; i++)
		runs_add(&all, mine->v[i]);
	o.runs = all.v;
	o.nruns = all.n;
	o.workload = b->workload;
	o.metric_glob = b->metric_name;
	memset(&r, 0, sizeof(r));
	rc = kvb_report_load(b->st, &o, &r, err);
	runs_release(&all);
	if (rc)
		return rc;
	if (!r.ngroups) {
		kvb_report_release(&r);
		return kvb_error_set(err, KVB_EINPUT, "--metric %s: not in the results", b->metric);
	}
	snprintf(gname, sizeof(gname), "%.10s", b->good);
	snprintf(bname, sizeof(bname), "%.10s", b->bad);
	snprintf(sname, sizeof(sname), "%.10s", sha);
	for (size_t v = 0; v < r.variants.n; v++) {
		if (!strcmp(r.variants.v[v], gname))
			ig = v;
		if (!strcmp(r.variants.v[v], bname))
			ib = v;
		if (!strcmp(r.variants.v[v], sname))
			is = v;
	}
	if (ig == (size_t)-1 || ib == (size_t)-1 || is == (size_t)-1) {
		kvb_report_release(&r);
		return kvb_error_set(err, KVB_ESTORE, "bisect %lld: the endpoint or step results are missing", (long long)b->id);
	}
	if (r.ngroups > 1)
		kvb_warn("--metric %s matches %zu classifier groups; bisect judges the first (%s)", b->metric, r.ngroups,
			 r.groups[0].label ? r.groups[0].label : "");
	kvb_series_compare(&r, &r.groups[0], ig, ig, KVB_STAT_MEAN, KVB_STATS_ALPHA, &cg);
	res->good_boots = (int)cg.boots;
	kvb_series_compare(&r, &r.groups[0], ib, ib, KVB_STAT_MEAN, KVB_STATS_ALPHA, &cb);
	res->bad_boots = (int)cb.boots;
	kvb_series_compare(&r, &r.groups[0], ig, is, KVB_STAT_MEAN, KVB_STATS_ALPHA, &cg);
	kvb_series_compare(&r, &r.groups[0], ib, is, KVB_STAT_MEAN, KVB_STATS_ALPHA, &cb);
	res->value = cg.ok ? cg.value : NAN;
	res->vs_good = cg.has_cmp ? cg.diff_pct : (is == ig ? 0 : NAN);
	res->vs_bad = cb.has_cmp ? cb.diff_pct : (is == ib ? 0 : NAN);
	res->boots = (int)cg.boots;
	res->outcome = NULL;
	final = max_boots > 0 && res->boots >= max_boots;
	if (!cg.ok) {
		kvb_report_release(&r);
		return kvb_error_set(err, KVB_EINPUT, "commit %.12s has no %s results", sha, b->metric);
	}
	{
		int worse_than_good = decided(&cg) && !strcmp(cg.verdict, "worse") && fabs(cg.diff_pct) >= b->threshold;
		int like_good = !cg.significant || fabs(cg.diff_pct) < b->threshold || !strcmp(cg.verdict, "better");
		int like_bad = !cb.significant;
		int better_than_bad = decided(&cb) && !strcmp(cb.verdict, "better");
		if (worse_than_good && like_bad) {
			res->outcome = "bad";
			snprintf(res->reason, sizeof(res->reason), "%+.1f%% vs good (worse*), %+.1f%% vs bad (~)", res->vs_good,
				 res->vs_bad);
		} else if (like_good && better_than_bad) {
			res->outcome = "good";
			snprintf(res->reason, sizeof(res->reason), "%+.1f%% vs good (~), %+.1f%% vs bad (better*)",
				 res->vs_good, res->vs_bad);
		} else if (final) {
			double dg = fabs(cg.value - cg.c.mean_b), db = fabs(cb.value - cb.c.mean_b);
			res->outcome = dg <= db ? "good" : "bad";
			snprintf(res->reason, sizeof(res->reason),
				 "undecided after %d boots (%+.1f%% vs good %s, %+.1f%% vs bad %s): nearer to %s", res->boots,
				 res->vs_good, cg.verdict, res->vs_bad, cb.verdict, res->outcome);
		} else {
			snprintf(res->reason, sizeof(res->reason), "%+.1f%% vs good %s, %+.1f%% vs bad %s: undecided",
				 res->vs_good, cg.verdict, res->vs_bad, cb.verdict);
		}
	}
	kvb_report_release(&r);
	return KVB_OK;
}

/*
 * The endpoints must differ: bad worse than good by >= threshold. *more = 1
 * (KVB_OK) while they are not decided against each other and have fewer than
 * --max-rounds boots: the caller measures each once more.
 */
static int check_endpoints(struct bisect *b, double *change, int *more, struct kvb_error *err)
{
	struct runs none = { 0 };
	struct step_result r;
	int rc;
	*more = 0;
	memset(&r, 0, sizeof(r));
	/* judging bad itself: its vs_good is the measured change of the whole range */
	if ((rc = judge(b, b->bad, &none, 0, &r, err)))
		return rc;
	*change = r.vs_good;
	if (r.outcome && !strcmp(r.outcome, "bad"))
		return KVB_OK;
	{
		struct kvb_report rep;
		struct kvb_report_opts o = { 0 };
		struct runs runs = { 0 };
		struct kvb_cell_stats c;
		char gname[11];
		size_t ig = 0, ib = 1;
		runs_add(&runs, b->good_run);
		runs_add(&runs, b->bad_run);
		for (size_t i = 0; i < b->ends.n; i++)
			runs_add(&runs, b->ends.v[i]);
		o.runs = runs.v;
		o.nruns = runs.n;
		o.workload = b->workload;
		o.metric_glob = b->metric_name;
		memset(&rep, 0, sizeof(rep));
		rc = kvb_report_load(b->st, &o, &rep, err);
		runs_release(&runs);
		if (rc)
			return rc;
		snprintf(gname, sizeof(gname), "%.10s", b->good);
		if (rep.variants.n == 2 && strcmp(rep.variants.v[0], gname)) {
			ig = 1;
			ib = 0;
		}
		kvb_series_compare(&rep, &rep.groups[0], ig, ib, KVB_STAT_MEAN, KVB_STATS_ALPHA, &c);
		if (decided(&c) && !strcmp(c.verdict, "better"))
			rc = kvb_error_set(err, KVB_EINPUT,
					   "the \"good\" %.12s measures worse than the \"bad\" %.12s (%s: bad is %+.1f%%, better): "
					   "swap --good and --bad, or check the metric",
					   b->good, b->bad, b->metric, c.diff_pct);
		else if (decided(&c) && fabs(c.diff_pct) < b->threshold)
			rc = kvb_error_set(err, KVB_EINPUT,
					   "good %.12s and bad %.12s differ by %+.1f%% on %s, less than --threshold %.1f%%: "
					   "nothing to bisect",
					   b->good, b->bad, c.diff_pct, b->metric, b->threshold);
		else if (!decided(&c) && c.boots < (size_t)b->max_rounds)
			*more = 1;
		else
			rc = kvb_error_set(err, KVB_EINPUT,
					   "good %.12s and bad %.12s do not differ significantly on %s (%+.1f%%, %zu boots "
					   "each): nothing to bisect (more --rounds?)",
					   b->good, b->bad, b->metric, c.diff_pct, c.boots);
		kvb_report_release(&rep);
	}
	return rc;
}

/*
 * Measures endpoint `which` (good | bad): its first run (--rounds boots, into
 * *run, nothing when *run is set) or, extra != 0, one more boot whose run goes
 * to b->ends and bisect_endpoint_run: while the endpoints are undecided against
 * each other, and while a step is undecided and has more boots than the endpoint.
 */
static int measure_endpoint(struct bisect *b, const char *which, const char *sha, int64_t *run, int extra,
			    struct kvb_error *err)
{
	char *why = NULL;
	int booted, rc;
	int64_t more = 0;
	if (*run && !extra)
		return KVB_OK; /* measured */
	kvb_info("bisect: measuring the %s endpoint %.12s%s", which, sha, extra ? " once more" : "");
	rc = measure(b, sha, extra ? 1 : b->rounds, extra ? &more : run, &why, &booted, err);
	if (!rc && why) {
		rc = kvb_error_set(err, KVB_ETARGET, "the %s endpoint %.12s cannot be measured: %s", which, sha, why);
		free(why);
	}
	if (!rc && extra) {
		rc = sql(b, err, "INSERT INTO bisect_endpoint_run(bisect_id, endpoint, run_id) VALUES(?,?,?)", "iti", b->id,
			 which, more);
		if (!rc)
			runs_add(&b->ends, more);
	} else if (!rc) {
		rc = sql(b, err, !strcmp(which, "good") ? "UPDATE bisect SET good_run_id = ? WHERE id = ?"
						      : "UPDATE bisect SET bad_run_id = ? WHERE id = ?",
			 "ii", *run, b->id);
	}
	return rc;
}

static void print_summary(struct bisect *b, FILE *out)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(b->st->db,
			       "SELECT s.step, s.commit_sha, coalesce(vb.subject, ''), s.outcome, s.value, s.vs_good_pct, "
			       "s.vs_bad_pct, s.rounds, coalesce(s.reason, ''), s.run_id FROM bisect_step s "
			       "LEFT JOIN variant v ON v.run_id = s.run_id LEFT JOIN variant_build vb ON vb.variant_id = v.id "
			       "WHERE s.bisect_id = ? ORDER BY s.step",
			       -1, &q, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(q, 1, b->id);
	fprintf(out, "%-4s %-12s %-36s %-7s %10s %9s %9s %5s %5s  %s\n", "step", "commit", "subject", "outcome", b->metric_name,
		"vs good", "vs bad", "boots", "run", "reason");
	while (sqlite3_step(q) == SQLITE_ROW) {
		char v[32] = "-", g[32] = "-", bd[32] = "-";
		if (sqlite3_column_type(q, 4) != SQLITE_NULL)
			kvb_fmt_num(sqlite3_column_double(q, 4), v, sizeof(v));
		if (sqlite3_column_type(q, 5) != SQLITE_NULL)
			snprintf(g, sizeof(g), "%+.1f%%", sqlite3_column_double(q, 5));
		if (sqlite3_column_type(q, 6) != SQLITE_NULL)
			snprintf(bd, sizeof(bd), "%+.1f%%", sqlite3_column_double(q, 6));
		fprintf(out, "%-4d %-12.12s %-36.36s %-7s %10s %9s %9s %5d %5lld  %.160s\n", sqlite3_column_int(q, 0),
			(const char *)sqlite3_column_text(q, 1), (const char *)sqlite3_column_text(q, 2),
			(const char *)sqlite3_column_text(q, 3), v, g, bd, sqlite3_column_int(q, 7),
			(long long)sqlite3_column_int64(q, 9), (const char *)sqlite3_column_text(q, 8));
	}
	sqlite3_finalize(q);
}

/* Marks sha in git's bisect; *out gets git's answer. */
static int mark(struct bisect *b, const char *outcome, const char *sha, char **out, struct kvb_error *err)
{
	const char *args[] = { outcome, sha, NULL };
	return git_bisect(b, args, out, err);
}

/* First 40-hex word of git's "SHA is the first bad commit" answer, or 0. */
static int first_bad_of(const char *out, char sha[41])
{
	const char *p = strstr(out, " is the first bad commit");
	const char *s;
	if (!p)
		return 0;
	for (s = p; s > out && s[-1] != '\n'; s--)
		;
	if (p - s != 40)
		return 0;
	memcpy(sha, s, 40);
	sha[40] = '\0';
	return 1;
}

static int do_bisect(struct bisect *b, FILE *out, struct kvb_error *err)
{
	char *ans = NULL, first[41] = "";
	double range_change = NAN;
	int rc, fails_in_a_row = 0, more = 0;
	sqlite3_stmt *q;

	if ((rc = measure_endpoint(b, "good", b->good, &b->good_run, 0, err)) ||
	    (rc = measure_endpoint(b, "bad", b->bad, &b->bad_run, 0, err)) ||
	    (rc = check_endpoints(b, &range_change, &more, err)))
		return rc;
	/* endpoints not decided against each other: one more boot each, up to --max-rounds */
	while (more) {
		kvb_info("bisect: good and bad not decided yet (%+.1f%% on %s): one more boot of each", range_change,
			 b->metric);
		if ((rc = measure_endpoint(b, "good", b->good, &b->good_run, 1, err)) ||
		    (rc = measure_endpoint(b, "bad", b->bad, &b->bad_run, 1, err)) ||
		    (rc = check_endpoints(b, &range_change, &more, err)))
			return rc;
	}
	kvb_info("bisect: bad is %+.1f%% on %s against good; bisecting", range_change, b->metric);
	{
		const char *args[] = { "start", "--no-checkout", b->bad, b->good, NULL };
		if ((rc = git_bisect(b, args, &ans, err)))
			return rc;
		b->started = 1;
	}
	/* --resume: replay the stored steps through git's own bisect */
	if (sqlite3_prepare_v2(b->st->db, "SELECT commit_sha, outcome FROM bisect_step WHERE bisect_id = ? ORDER BY step",
			       -1, &q, NULL) != SQLITE_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", b->st->path, sqlite3_errmsg(b->st->db));
	sqlite3_bind_int64(q, 1, b->id);
	while (!rc && sqlite3_step(q) == SQLITE_ROW) {
		const char *o = (const char *)sqlite3_column_text(q, 1);
		b->step++;
		if (strcmp(o, "abort")) {
			free(ans);
			ans = NULL;
			rc = mark(b, o, (const char *)sqlite3_column_text(q, 0), &ans, err);
		}
	}
	sqlite3_finalize(q);
	struct runs mine = { 0 }; /* the current step's runs */
	while (!rc && !first_bad_of(ans, first)) {
		char next[41], *line = NULL, *why = NULL;
		static const char *const head[] = { "rev-parse", "--verify", "BISECT_HEAD", NULL };
		struct step_result res;
		int booted = 0;
		if (strstr(ans, "only 'skip'ped commits left")) {
			rc = kvb_error_set(err, KVB_EUNDECIDED, "bisect cannot decide: only skipped (untestable) commits are left:\n%s",
					   ans);
			sql(b, err, "UPDATE bisect SET status = 'done', error = ?, finished_ns = ? WHERE id = ?", "tii", ans,
			    kvb_wall_ns(), b->id);
			break;
		}
		if ((rc = kvb_git_line(b->repo, head, &line, NULL, err)))
			break;
		snprintf(next, sizeof(next), "%s", line);
		free(line);
		b->step++;
		memset(&res, 0, sizeof(res));
		res.value = res.vs_good = res.vs_bad = NAN; /* stored as NULL for a step never measured */
		mine.n = 0;
		kvb_info("bisect step %d: %.12s %s", b->step, next, strchr(ans, '\n') ? strchr(ans, '\n') + 1 : "");
		for (;;) {
			int64_t run = 0;
			rc = measure(b, next, mine.n ? 1 : b->rounds, &run, &why, &booted, err);
			if (run)
				runs_add(&mine, run);
			if (rc)
				break;
			if (why) {
				/* untestable: build, flash, boot or identity failed */
				res.outcome = "skip";
				snprintf(res.reason, sizeof(res.reason), "%.500s", why);
				/* a boot that never happened twice in a row: the board; a failed build says nothing */
				fails_in_a_row = booted > 0 ? 0 : booted == 0 ? fails_in_a_row + 1 : fails_in_a_row;
				break;
			}
			fails_in_a_row = 0;
			if ((rc = judge(b, next, &mine, b->max_rounds, &res, err)))
				break;
			if (res.outcome)
				break;
			kvb_info("bisect step %d: %s; one more round", b->step, res.reason);
			/* an endpoint with fewer boots than the step limits the verdict: it gets one more too */
			if (res.good_boots < res.boots &&
			    (rc = measure_endpoint(b, "good", b->good, &b->good_run, 1, err)))
				break;
			if (res.bad_boots < res.boots && (rc = measure_endpoint(b, "bad", b->bad, &b->bad_run, 1, err)))
				break;
		}
		free(why);
		why = NULL;
		if (rc) {
			/* the board or the store failed mid-step: keep what we have */
			if (!b->cancel)
				sql(b, err, "INSERT INTO bisect_step(bisect_id, step, commit_sha, run_id, outcome, reason) "
					    "VALUES(?,?,?,?,'abort',?)",
				    "iitit", b->id, (int64_t)b->step, next, mine.n ? mine.v[mine.n - 1] : (int64_t)0, err->msg);
			break;
		}
		if (!strcmp(res.outcome, "skip") && fails_in_a_row >= 2) {
			res.outcome = "abort";
			snprintf(res.reason + strlen(res.reason), sizeof(res.reason) - strlen(res.reason),
				 " (second step in a row whose kernel never came up: the board looks unusable)");
		}
		if ((rc = sql(b, err,
			      "INSERT INTO bisect_step(bisect_id, step, commit_sha, run_id, outcome, value, vs_good_pct, "
			      "vs_bad_pct, rounds, reason) VALUES(?,?,?,?,?,?,?,?,?,?)",
			      "iititdddit", b->id, (int64_t)b->step, next, mine.n ? mine.v[mine.n - 1] : (int64_t)0,
			      res.outcome, res.value, res.vs_good, res.vs_bad, (int64_t)res.boots, res.reason)))
			break;
		kvb_info("bisect step %d: %.12s is %s: %s", b->step, next, res.outcome, res.reason);
		if (!strcmp(res.outcome, "abort")) {
			rc = kvb_error_set(err, KVB_ETARGET, "bisect aborted at step %d: %s", b->step, res.reason);
			break;
		}
		free(ans);
		ans = NULL;
		rc = mark(b, res.outcome, next, &ans, err);
		save_log(b);
	}
	runs_release(&mine);
	save_log(b);
	if (!rc && first[0]) {
		double change = range_change;
		char *subject = kvb_git_subject(b->repo, first);
		if (sqlite3_prepare_v2(b->st->db, "SELECT vs_good_pct FROM bisect_step WHERE bisect_id = ? AND commit_sha = ? "
						  "AND vs_good_pct IS NOT NULL ORDER BY step DESC LIMIT 1",
				       -1, &q, NULL) == SQLITE_OK) {
			sqlite3_bind_int64(q, 1, b->id);
			sqlite3_bind_text(q, 2, first, -1, SQLITE_TRANSIENT);
			if (sqlite3_step(q) == SQLITE_ROW)
				change = sqlite3_column_double(q, 0);
			sqlite3_finalize(q);
		}
		rc = sql(b, err, "UPDATE bisect SET status = 'done', first_bad_sha = ?, change_pct = ?, finished_ns = ? WHERE id = ?",
			 "tdii", first, change, kvb_wall_ns(), b->id);
		fprintf(out, "first bad commit: %s %s\n", first, subject);
		fprintf(out, "measured change against good %.12s: %+.2f%% on %s\n\n", b->good, change, b->metric);
		free(subject);
	}
	print_summary(b, out);
	free(ans);
	return rc;
}

/* Loads a stored bisect for --resume. */
static int load_bisect(struct bisect *b, int64_t id, struct kvb_error *err)
{
	sqlite3_stmt *q;
	int rc = KVB_OK;
	if (sqlite3_prepare_v2(b->st->db,
			       id ? "SELECT id, repo, good_sha, bad_sha, metric, threshold_pct, agenda_path, platform, status, "
				    "good_run_id, bad_run_id, command_line, rounds, max_rounds FROM bisect WHERE id = ?"
				  : "SELECT id, repo, good_sha, bad_sha, metric, threshold_pct, agenda_path, platform, status, "
				    "good_run_id, bad_run_id, command_line, rounds, max_rounds FROM bisect WHERE ? = 0 ORDER BY id DESC "
				    "LIMIT 1",
			       -1, &q, NULL) != SQLITE_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", b->st->path, sqlite3_errmsg(b->st->db));
	sqlite3_bind_int64(q, 1, id);
	if (sqlite3_step(q) != SQLITE_ROW) {
		rc = kvb_error_set(err, KVB_EINPUT, "%s: no bisect%s to resume", b->st->path, id ? " with that id" : "");
	} else if (!strcmp((const char *)sqlite3_column_text(q, 8), "done")) {
		rc = kvb_error_set(err, KVB_EINPUT, "bisect %lld is done: nothing to resume", (long long)sqlite3_column_int64(q, 0));
	} else {
		b->id = sqlite3_column_int64(q, 0);
		b->repo = kvb_xstrdup((const char *)sqlite3_column_text(q, 1));
		snprintf(b->good, sizeof(b->good), "%s", (const char *)sqlite3_column_text(q, 2));
		snprintf(b->bad, sizeof(b->bad), "%s", (const char *)sqlite3_column_text(q, 3));
		b->metric = kvb_xstrdup((const char *)sqlite3_column_text(q, 4));
		b->threshold = sqlite3_column_double(q, 5);
		b->agenda_file = kvb_xstrdup((const char *)sqlite3_column_text(q, 6));
		b->plat_name = kvb_xstrdup((const char *)sqlite3_column_text(q, 7));
		b->good_run = sqlite3_column_int64(q, 9);
		b->bad_run = sqlite3_column_int64(q, 10);
		free(b->cmdline);
		b->cmdline = kvb_xstrdup(sqlite3_column_text(q, 11) ? (const char *)sqlite3_column_text(q, 11) : "kvbench bisect");
		b->rounds = sqlite3_column_int(q, 12);
		b->max_rounds = sqlite3_column_int(q, 13);
	}
	sqlite3_finalize(q);
	if (!rc && sqlite3_prepare_v2(b->st->db, "SELECT run_id FROM bisect_endpoint_run WHERE bisect_id = ? ORDER BY rowid",
				      -1, &q, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(q, 1, b->id);
		while (sqlite3_step(q) == SQLITE_ROW)
			runs_add(&b->ends, sqlite3_column_int64(q, 0));
		sqlite3_finalize(q);
	}
	return rc;
}

/* What the command line asked for besides what struct bisect keeps. */
struct bisect_args {
	const char *repo, *good, *bad; /* as given: a directory and two revisions */
	int resume, allow_dirty;
	int64_t resume_id;             /* 0: the latest bisect */
};

/* Reads the options and operands into b and a. Returns KVB_OK, or KVB_EUSAGE
 * with the message printed. */
static int parse_args(int argc, char **argv, struct bisect *b, struct bisect_args *a)
{
	static const struct option opts[] = {
		{ "platform", required_argument, NULL, 'p' },
		{ "repo", required_argument, NULL, 'G' },     { "good", required_argument, NULL, 'g' },
		{ "bad", required_argument, NULL, 'b' },      { "metric", required_argument, NULL, 'm' },
		{ "threshold", required_argument, NULL, 't' }, { "rounds", required_argument, NULL, 'r' },
		{ "max-rounds", required_argument, NULL, 'M' }, { "allow-dirty", no_argument, NULL, 'D' },
		{ "resume", no_argument, NULL, 'R' },          { NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "p:", opts, NULL)) != -1) {
		int64_t v;
		switch (c) {
		case 'p': b->plat_name = kvb_xstrdup(optarg); break;
		case 'G': a->repo = optarg; break;
		case 'g': a->good = optarg; break;
		case 'b': a->bad = optarg; break;
		case 'm': b->metric = kvb_xstrdup(optarg); break;
		case 't':
			if (kvb_parse_double(optarg, &b->threshold) || !(b->threshold >= 0 && b->threshold < 1000))
				return kvb_cli_usage("bisect", "--threshold '%s': expected a percentage", optarg);
			break;
		case 'r':
		case 'M':
			if (kvb_parse_i64(optarg, &v) || v < 1 || v > 100)
				return kvb_cli_usage("bisect", "--%s '%s': expected a number from 1 to 100",
						     c == 'r' ? "rounds" : "max-rounds", optarg);
			if (c == 'r')
				b->rounds = (int)v;
			else
				b->max_rounds = (int)v;
			break;
		case 'D': a->allow_dirty = 1; break;
		case 'R': a->resume = 1; break;
		default: return kvb_cli_bad_option("bisect", opts, argv);
		}
	}
	for (int i = optind; i < argc; i++) {
		int64_t v;
		if (a->resume && !a->resume_id && !kvb_parse_i64(argv[i], &v) && v > 0)
			a->resume_id = v;
		else if (!a->resume && !b->agenda_file)
			b->agenda_file = kvb_xstrdup(argv[i]);
		else
			return kvb_cli_usage("bisect", "unexpected argument '%s'", argv[i]);
	}
	if (!a->resume && (!b->agenda_file || !b->plat_name || !a->repo || !a->good || !a->bad || !b->metric))
		return kvb_cli_usage("bisect", "needs AGENDA -p PLATFORM --repo DIR --good REV --bad REV --metric W/M");
	return KVB_OK;
}

/* A new bisect: the agenda's absolute path (stored for --resume, which may start
 * elsewhere), a clean repository, two distinct commits, good an ancestor of bad. */
static int check_range(struct bisect *b, const struct bisect_args *a, struct kvb_error *err)
{
	char *top = NULL, *abs = realpath(b->agenda_file, NULL);
	int rc;
	if (abs) {
		free(b->agenda_file);
		b->agenda_file = abs;
	}
	if ((rc = kvb_build_check_repo(a->repo, a->allow_dirty, &top, err)))
		return rc;
	b->repo = top;
	if ((rc = kvb_git_commit(b->repo, a->good, b->good, err)) || (rc = kvb_git_commit(b->repo, a->bad, b->bad, err)))
		return rc;
	if (!strcmp(b->good, b->bad))
		return kvb_error_set(err, KVB_EINPUT, "--good and --bad are the same commit %.12s", b->good);
	rc = kvb_git_is_ancestor(b->repo, b->good, b->bad, err);
	if (rc == 1)
		return KVB_OK;
	if (rc == 0)
		kvb_error_set(err, KVB_EINPUT, "--good %s (%.12s) is not an ancestor of --bad %s (%.12s) in %s", a->good,
			      b->good, a->bad, b->bad, b->repo);
	return KVB_EINPUT;
}

/* Refuses a repository that someone else is bisecting (we would end their session). */
static int refuse_foreign_bisect(const struct bisect *b, struct kvb_error *err)
{
	static const char *const args[] = { "rev-parse", "--git-path", "BISECT_START", NULL };
	char *path = NULL;
	int rc;
	if ((rc = kvb_git_line(b->repo, args, &path, NULL, err)))
		return rc;
	if (path[0] != '/') {
		char *abs = kvb_xasprintf("%s/%s", b->repo, path);
		free(path);
		path = abs;
	}
	if (kvb_is_file(path))
		rc = kvb_error_set(err, KVB_EINPUT,
				   "%s is already being bisected (%s exists): finish it with `git bisect reset` first", b->repo,
				   path);
	free(path);
	return rc;
}

/* Loads the platform and checks the agenda before anything is built; prints their
 * messages. Returns KVB_OK or KVB_EINPUT. */
static int load_platform_and_check_agenda(struct bisect *b)
{
	struct kvb_diag d;
	int rc;
	kvb_diag_init(&d, NULL);
	rc = kvb_platform_load(&b->plat, b->plat_name, &d);
	if (!rc) {
		struct kvb_agenda a;
		memset(&a, 0, sizeof(a));
		rc = kvb_agenda_load(&a, b->agenda_file, &d);
		kvb_agenda_release(&a);
	}
	for (size_t i = 0; i < d.msgs.n; i++)
		fprintf(stderr, "%s\n", d.msgs.v[i]);
	kvb_diag_release(&d);
	return rc ? KVB_EINPUT : KVB_OK;
}

/* Stores a new bisect (b->id), or marks a resumed one running again. */
static int record_start(struct bisect *b, int resume, struct kvb_error *err)
{
	int rc;
	if (resume)
		return sql(b, err, "UPDATE bisect SET status = 'running', error = NULL WHERE id = ?", "i", b->id);
	rc = sql(b, err,
		 "INSERT INTO bisect(repo, good_sha, bad_sha, metric, threshold_pct, agenda_path, platform, command_line, "
		 "started_ns, rounds, max_rounds) VALUES(?,?,?,?,?,?,?,?,?,nullif(?, 0),?)",
		 "ttttdttti" "ii", b->repo, b->good, b->bad, b->metric, b->threshold, b->agenda_file, b->plat_name,
		 b->cmdline, kvb_wall_ns(), (int64_t)b->rounds, (int64_t)b->max_rounds);
	if (!rc)
		b->id = sqlite3_last_insert_rowid(b->st->db);
	return rc;
}

/* Runs the bisect with Ctrl-C caught; a failure is stored as the bisect's status
 * (interrupted, aborted or failed) with its message. */
static int run_bisect(struct bisect *b, struct kvb_error *err)
{
	int rc;
	kvb_info("bisect %lld: %.12s (good) .. %.12s (bad) in %s on %s, threshold %.1f%%", (long long)b->id, b->good,
		 b->bad, b->repo, b->metric, b->threshold);
	kvb_build_signals_catch(&b->cancel);
	rc = do_bisect(b, stdout, err);
	bisect_reset(b);
	kvb_build_signals_restore();
	if (rc && b->cancel && rc != KVB_ESTORE)
		rc = err->code = KVB_EINTR; /* interrupted, whatever else the step met: as a run */
	if (rc) {
		struct kvb_error e2;
		const char *status = b->cancel ? "interrupted" : rc == KVB_ETARGET ? "aborted" : "failed";
		sql(b, &e2, "UPDATE bisect SET status = ?, error = ?, finished_ns = ? WHERE id = ? AND status != 'done'",
		    "ttii", status, err->msg, kvb_wall_ns(), b->id);
		if (b->cancel)
			kvb_info("bisect %lld interrupted; continue with `kvbench bisect --resume %lld`", (long long)b->id,
				 (long long)b->id);
	}
	return rc;
}

static void bisect_release(struct bisect *b)
{
	/* b->st is main's (kvb_cli_store), closed after the command returns */
	if (b->plat.file || b->plat.name)
		kvb_platform_release(&b->plat);
	free(b->repo);
	free(b->agenda_file);
	free(b->plat_name);
	free(b->metric);
	free(b->workload);
	free(b->metric_name);
	free(b->cmdline);
	runs_release(&b->ends);
}

int cmd_bisect(struct kvb_cli *cli, int argc, char **argv)
{
	struct bisect b;
	struct bisect_args a = { 0 };
	struct kvb_error err;
	struct kvb_buf cmdline = KVB_BUF_INIT;
	int rc;

	memset(&b, 0, sizeof(b));
	kvb_error_clear(&err);
	b.threshold = 5.0;
	b.max_rounds = 6;
	if ((rc = parse_args(argc, argv, &b, &a)))
		goto out; /* the usage message is printed */
	if (!a.resume && (rc = split_metric(&b, &err)))
		goto fail;
	for (int i = 0; i < cli->argc_given; i++) /* as typed, with -d */
		kvb_buf_addf(&cmdline, "%s%s", i ? " " : "kvbench ", cli->argv_given[i]);
	b.cmdline = kvb_xstrdup(cmdline.data);
	if ((rc = kvb_cli_store(cli, &b.st, &err)))
		goto fail;
	if (a.resume) {
		if ((rc = load_bisect(&b, a.resume_id, &err)) || (rc = split_metric(&b, &err)))
			goto fail;
		kvb_info("bisect %lld: resuming (%s..%s in %s)", (long long)b.id, b.good, b.bad, b.repo);
	} else if ((rc = check_range(&b, &a, &err))) {
		goto fail;
	}
	if ((rc = refuse_foreign_bisect(&b, &err)))
		goto fail;
	if ((rc = load_platform_and_check_agenda(&b)))
		goto out; /* its messages are printed */
	if ((rc = record_start(&b, a.resume, &err)) || (rc = run_bisect(&b, &err)))
		goto fail;
	goto out;
fail:
	bisect_reset(&b);
	kvb_cli_fail(&err);
out:
	bisect_release(&b);
	kvb_buf_release(&cmdline);
	return rc;
}
