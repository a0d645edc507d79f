/* Implements `kvbench run`: load agenda and platform, run (or resume), print the diff. */
#include "cli/cli.h"
#include "engine/decide.h"
#include "stats/verdict.h"
#include "config/agenda.h"
#include "config/platform.h"
#include "core/log.h"
#include "core/util.h"
#include "kbuild/prepare.h"
#include "engine/engine.h"
#include "engine/hostwatch.h"
#include "target/target.h"
#include "engine/preflight.h"
#include "engine/repair.h"
#include "report/diff.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int print_diag(struct kvb_diag *d)
{
	for (size_t i = 0; i < d->warnings.n; i++)
		fprintf(stderr, "%s (warning)\n", d->warnings.v[i]);
	for (size_t i = 0; i < d->msgs.n; i++)
		fprintf(stderr, "%s\n", d->msgs.v[i]);
	if (d->msgs.n)
		fprintf(stderr, "kvbench: %zu error%s\n", d->msgs.n, d->msgs.n == 1 ? "" : "s");
	return d->msgs.n ? KVB_EINPUT : KVB_OK;
}

/* Loads a stored run's agenda and platform for --resume; a finished run (status ok) loads nothing and sets *done
 * (the caller says so). */
static int load_stored(struct kvb_store *st, int64_t run, const char *plat_override, struct kvb_agenda *a,
		       struct kvb_platform *p, int *rounds, int *done, struct kvb_error *err)
{
	struct kvb_run_stored r;
	struct kvb_doc doc;
	struct kvb_diag d;
	int rc = kvb_store_run_load(st, run, &r, err);
	if (rc)
		return rc;
	*rounds = r.rounds; /* the plan is rebuilt exactly as it was stored */
	if (!strcmp(r.status, "ok")) {
		*done = 1;
		goto out;
	}
	if (!strcmp(r.status, "imported")) {
		rc = kvb_error_set(err, KVB_EINPUT, "run %lld is %s: nothing to resume", (long long)run, r.status);
		goto out;
	}
	kvb_diag_init(&d, NULL);
	char *name = kvb_xasprintf("%s (stored in run %lld)", r.agenda_path, (long long)run);
	rc = kvb_doc_parse(&doc, name, r.agenda_json, strlen(r.agenda_json), &d);
	if (!rc)
		rc = kvb_agenda_from_doc(a, &doc, &d);
	kvb_doc_release(&doc);
	d.doc = NULL;
	/* the file the run was started with, when it is still there: a platform given as a path
	 * is not in the search path under its name */
	if (!rc)
		rc = kvb_platform_load(p, plat_override ? plat_override
						       : r.platform_path && kvb_is_file(r.platform_path) ? r.platform_path
						       : r.platform, &d);
	if (rc && !plat_override && p->name == NULL && d.msgs.n)
		kvb_strv_pushf(&d.msgs, "run %lld was made on platform '%s': give its name or path with `--resume -p`",
			       (long long)run, r.platform);
	if (rc)
		print_diag(&d);
	kvb_diag_release(&d);
	free(name);
	if (rc)
		kvb_error_set(err, KVB_EINPUT, "cannot reload run %lld", (long long)run);
out:
	kvb_store_run_stored_release(&r);
	return rc;
}

/* What `kvbench run` was asked, from its command line (run_args_release frees it). */
struct run_args {
	const char *plat_name, *agenda_file;
	struct kvb_strv variants, plats;  /* -V specs; the -p after the first (a pool of boards) */
	int rounds, resume, dry, nodiff, max_jobs, unverified, keep_going, until;
	double host_limit_pct;        /* --host-limit, percent; 0 = KVB_HOST_LIMIT_PCT */
	int quiet_host;               /* --quiet-host given */
	double quiet_wait_s;          /* --quiet-host=DUR: how long to wait for a quiet host (0: refuse at once) */
	int64_t resume_run;
	struct kvb_decide_opts dec;
	struct kvb_prepare_opts prep;
};

/* What the steps of a run load, released together at the end of cmd_run. */
struct run_setup {
	struct kvb_agenda a;
	struct kvb_platform p;
	struct kvb_platform **more;  /* further -p boards (owned) */
	size_t nmore;
	struct kvb_store *st;        /* borrowed from main (KVB_CMD_DB_RW | KVB_CMD_LOCK_RUNS) */
	struct kvb_build_set builds;
	int done;                    /* --resume of a finished run: nothing to do, exit 0 */
};

static void run_args_release(struct run_args *r)
{
	kvb_strv_release(&r->plats);
	kvb_strv_release(&r->variants);
	kvb_decide_opts_release(&r->dec);
}

static void run_setup_release(struct run_setup *s)
{
	kvb_build_set_release(&s->builds);
	kvb_agenda_release(&s->a);
	if (s->p.file || s->p.name)
		kvb_platform_release(&s->p);
	for (size_t i = 0; i < s->nmore; i++) {
		kvb_platform_release(s->more[i]);
		free(s->more[i]);
	}
	free(s->more);
}

/* The options, into r. Returns KVB_EUSAGE (printed) on a bad one. */
static int parse_options(struct run_args *r, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "platform", required_argument, NULL, 'p' }, { "variant", required_argument, NULL, 'V' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "resume", no_argument, NULL, 'R' },         { "dry-run", no_argument, NULL, 'n' },
		{ "no-diff", no_argument, NULL, 'N' },        { "max-jobs", required_argument, NULL, 'M' },
		{ "allow-unverified", no_argument, NULL, 'U' }, { "keep-going", no_argument, NULL, 'K' },
		{ "until-decided", no_argument, NULL, 'u' },  { "margin", required_argument, NULL, 'g' },
		{ "max-rounds", required_argument, NULL, 'x' }, { "max-time", required_argument, NULL, 't' },
		{ "metric", required_argument, NULL, 'm' },
		{ "series", required_argument, NULL, 'S' },   { "series-file", required_argument, NULL, 'F' },
		{ "repo", required_argument, NULL, 'G' },     { "allow-dirty", no_argument, NULL, 'D' },
		{ "host-limit", required_argument, NULL, 'H' }, { "quiet-host", optional_argument, NULL, 'Q' },
		{ "max-disturbed", required_argument, NULL, 'X' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "p:V:", opts, NULL)) != -1) {
		int64_t v;
		switch (c) {
		case 'p': /* more than once: a pool of boards of one kind (DESIGN.md §13) */
			if (r->plat_name)
				kvb_strv_push(&r->plats, optarg);
			else
				r->plat_name = optarg;
			break;
		case 'V': kvb_strv_push(&r->variants, optarg); break;
		case 'r':
			if (kvb_parse_i64(optarg, &v) || v < 1 || v > 1000)
				return kvb_cli_usage("run", "--rounds '%s': expected a number from 1 to 1000", optarg);
			r->rounds = (int)v;
			break;
		case 'M':
			if (kvb_parse_i64(optarg, &v) || v < 1)
				return kvb_cli_usage("run", "--max-jobs '%s': expected a positive number", optarg);
			r->max_jobs = (int)v;
			break;
		case 'R': r->resume = 1; break;
		case 'n': r->dry = 1; break;
		case 'N': r->nodiff = 1; break;
		case 'U': r->unverified = 1; break;
		case 'S': r->prep.series = optarg; break;
		case 'F': r->prep.series_file = optarg; break;
		case 'G': r->prep.repo = optarg; break;
		case 'D': r->prep.allow_dirty = 1; break;
		case 'u': r->until = 1; break;
		case 'g':
			if (kvb_parse_double(optarg, &r->dec.margin) || !(r->dec.margin > 0 && r->dec.margin < 100))
				return kvb_cli_usage("run", "--margin '%s': expected a percentage between 0 and 100", optarg);
			r->dec.margin /= 100;
			break;
		case 'x':
			if (kvb_parse_i64(optarg, &v) || v < 2 || v > 1000)
				return kvb_cli_usage("run", "--max-rounds '%s': expected a number from 2 to 1000", optarg);
			r->dec.max_rounds = (int)v;
			break;
		case 't':
			if (kvb_decide_parse_duration(optarg, &r->dec.max_time_s))
				return kvb_cli_usage("run", "--max-time '%s': expected a duration (90, 90s, 30m, 2h)", optarg);
			break;
		case 'm': kvb_strv_push(&r->dec.metrics, optarg); break;
		case 'K': r->keep_going = 1; break;
		case 'H':
			if (kvb_parse_double(optarg, &r->host_limit_pct) || !(r->host_limit_pct > 0 && r->host_limit_pct <= 100))
				return kvb_cli_usage("run", "--host-limit '%s': expected a percentage in (0, 100]", optarg);
			break;
		case 'Q':
			r->quiet_host = 1;
			if (optarg && strcmp(optarg, "0") && kvb_decide_parse_duration(optarg, &r->quiet_wait_s))
				return kvb_cli_usage("run", "--quiet-host='%s': expected how long to wait (0, 90s, 30m, 2h)", optarg);
			break;
		case 'X':
			if (kvb_parse_i64(optarg, &v) || v < 0 || v > 1000)
				return kvb_cli_usage("run", "--max-disturbed '%s': expected a number from 0 to 1000", optarg);
			r->dec.spare_rounds = (int)v;
			break;
		default: return kvb_cli_bad_option("run", opts, argv);
		}
	}
	return KVB_OK;
}

/* The operands (AGENDA, or --resume's RUN) and the options that go together. KVB_EUSAGE (printed). */
static int check_operands(struct run_args *r, int argc, char **argv)
{
	for (int i = optind; i < argc; i++) {
		int64_t v;
		if (r->resume && !r->resume_run && !kvb_parse_i64(argv[i], &v) && v > 0)
			r->resume_run = v;
		else if (!r->agenda_file)
			r->agenda_file = argv[i];
		else
			return kvb_cli_usage("run", "unexpected argument '%s'", argv[i]);
	}
	if (r->until && r->rounds)
		return kvb_cli_usage("run", "--until-decided plans --max-rounds rounds: drop --rounds");
	if (!r->until && (r->dec.metrics.n || r->dec.max_time_s > 0))
		return kvb_cli_usage("run", "--metric and --max-time go with --until-decided");
	if (!r->resume && !r->agenda_file)
		return kvb_cli_usage("run", "missing AGENDA");
	if (r->prep.series && r->prep.series_file)
		return kvb_cli_usage("run", "--series and --series-file exclude each other");
	if (!r->resume && !r->plat_name)
		return kvb_cli_usage("run", "missing -p PLATFORM (`kvbench platform list` shows them)");
	return KVB_OK;
}

/* --resume: the stored run's agenda, platform, rounds and stopping rule; -V repairs a failed variant.
 * Errors in err (the caller prints them). */
static int setup_resume(struct kvb_cli *cli, struct run_args *r, struct run_setup *s, struct kvb_error *err)
{
	const char *db = cli->db_opt;
	int found = 0, rc;
	if (access(kvb_cli_db(db), F_OK))
		/* opening it read-write would create an empty database just to find nothing in it */
		return kvb_error_set(err, KVB_ENOTFOUND, "%s: no such results database, so no run to resume%s",
				     kvb_cli_db(db), db ? "" : " (give it with -d DB or $KVB_DB)");
	if ((rc = kvb_cli_store(cli, &s->st, err)))
		return rc;
	if (!r->resume_run && (rc = kvb_store_latest_run(s->st, &r->resume_run, err)))
		return rc;
	if (!r->resume_run)
		return kvb_error_set(err, KVB_EINPUT, "%s has no run to resume (start one with `kvbench run AGENDA -p "
				     "PLATFORM -d %s`)", s->st->path, s->st->path);
	if (r->rounds)
		kvb_warn("--rounds is ignored with --resume: the run keeps the rounds it was planned with");
	if ((rc = load_stored(s->st, r->resume_run, r->plat_name, &s->a, &s->p, &r->rounds, &s->done, err)))
		return rc;
	if (s->done && r->variants.n)
		/* -V repairs a failed variant; a finished run has none, and ignoring it would be silent */
		return kvb_error_set(err, KVB_EUSAGE, "run %lld is finished (status ok): nothing left to run, so -V '%s' "
				     "has no failed variant to apply to (start a new run for another kernel)",
				     (long long)r->resume_run, r->variants.v[0]);
	if (s->done) {
		printf("run %lld finished (status ok): nothing left to run\n", (long long)r->resume_run);
		return KVB_OK;
	}
	/* -V on resume: new files for a variant that failed (refused for one with results) */
	for (size_t i = 0; i < r->variants.n; i++)
		if ((rc = kvb_repair_variant(s->st, r->resume_run, &s->a, r->variants.v[i], r->unverified, err)))
			return rc;
	/* a run started --until-decided goes on with its stored rule */
	if (r->until)
		kvb_warn("--until-decided options are ignored with --resume: the run keeps the rule it was started with");
	kvb_decide_opts_release(&r->dec);
	if ((rc = kvb_decide_load(s->st, r->resume_run, &r->dec, &found, err)))
		return rc;
	r->until = found;
	/* the spare rounds for disturbed ones are the planned rounds beyond the looks */
	if (found && r->rounds > r->dec.max_rounds)
		r->dec.spare_rounds = r->rounds - r->dec.max_rounds;
	/* --resume -p X: X is the stored platform (found by path); a further -p joins its pool */
	return KVB_OK;
}

/* AGENDA and -p PLATFORM, their problems printed together. KVB_EINPUT (printed) on any. */
static int load_agenda_and_platform(struct run_args *r, struct run_setup *s)
{
	struct kvb_diag d, pd;
	int rc, prc;
	kvb_diag_init(&d, NULL);
	rc = kvb_agenda_load(&s->a, r->agenda_file, &d);
	kvb_diag_init(&pd, NULL);
	prc = kvb_platform_load(&s->p, r->plat_name, &pd);
	for (size_t i = 0; i < pd.msgs.n; i++)
		kvb_strv_push(&d.msgs, pd.msgs.v[i]);
	for (size_t i = 0; i < pd.warnings.n; i++)
		kvb_strv_push(&d.warnings, pd.warnings.v[i]);
	kvb_diag_release(&pd);
	if (!rc)
		rc = prc;
	print_diag(&d);
	kvb_diag_release(&d);
	return rc ? KVB_EINPUT : KVB_OK;
}

/*
 * Before the first flash: a missing kernel costs seconds here, hours of boots later.
 * Returns its problems' code (printed) unless --keep-going; with --dry-run the code
 * goes to *pre_rc and the plan is still printed.
 */
static int preflight(struct run_args *r, struct run_setup *s, int *pre_rc)
{
	struct kvb_preflight pf = { KVB_STRV_INIT, KVB_STRV_INIT };
	int rc;
	kvb_preflight_run(&s->a, &s->p, r->unverified, 1, r->prep.series || r->prep.series_file, &pf);
	rc = kvb_preflight_report(&pf, stderr);
	kvb_preflight_release(&pf);
	if (rc && r->dry) {
		*pre_rc = rc;
	} else if (rc && !r->keep_going) {
		fprintf(stderr, "kvbench: nothing was run; fix the above, or `--keep-going` to run what can run\n");
		return rc;
	}
	return KVB_OK;
}

/* A new run: agenda, platform, -V variants, the preflight, then the store (not for --dry-run).
 * Every failure is printed here (err is the buffer for those with a message). */
static int setup_new_run(struct kvb_cli *cli, struct run_args *r, struct run_setup *s, int *pre_rc,
			 struct kvb_error *err)
{
	int rc;
	if ((rc = load_agenda_and_platform(r, s)))
		return rc;
	for (size_t i = 0; i < r->variants.n; i++)
		if ((rc = kvb_agenda_add_variant_arg(&s->a, r->variants.v[i], err))) {
			kvb_cli_fail(err);
			return rc;
		}
	kvb_agenda_default_variant(&s->a);
	/* --series replaces the agenda's variants by the commits, which set no knobs */
	if (!r->prep.series && !r->prep.series_file && (rc = kvb_agenda_check_variant_knobs(&s->a, err))) {
		kvb_cli_fail(err);
		return rc;
	}
	if ((rc = preflight(r, s, pre_rc)))
		return rc;
	if (!r->dry && (rc = kvb_cli_store(cli, &s->st, err))) {
		kvb_cli_fail(err);
		return rc;
	}
	return KVB_OK;
}

/* Further -p boards join the run's pool. KVB_EINPUT (printed) when one does not load. */
static int load_pool(struct run_args *r, struct run_setup *s)
{
	struct kvb_diag d;
	int rc = KVB_OK;
	if (!r->plats.n)
		return KVB_OK;
	kvb_diag_init(&d, NULL);
	s->more = kvb_xcalloc(r->plats.n, sizeof(*s->more));
	for (size_t i = 0; i < r->plats.n && !rc; i++) {
		s->more[s->nmore] = kvb_xcalloc(1, sizeof(**s->more));
		rc = kvb_platform_load(s->more[s->nmore++], r->plats.v[i], &d);
	}
	print_diag(&d);
	kvb_diag_release(&d);
	return rc ? KVB_EINPUT : KVB_OK;
}

/*
 * --quiet-host: before anything boots, the host's CPU pressure (avg10) must be under
 * --host-limit; a busy host is waited for (polled every 5 s) up to --quiet-host=DUR, then
 * the run is refused (KVB_ETARGET: nothing was run, nothing stored).
 */
static int wait_quiet_host(struct run_args *r, struct kvb_error *err)
{
	struct kvb_host_limits lim = { r->host_limit_pct > 0 ? r->host_limit_pct : KVB_HOST_LIMIT_PCT };
	uint64_t t0 = kvb_mono_ns();
	int busy, said = 0;
	for (;;) {
		char *why = NULL;
		double waited = (double)(kvb_mono_ns() - t0) / 1e9;
		kvb_host_quiet_check(kvb_host_proc_root(), &lim, &busy, &why);
		if (!busy) {
			kvb_info("host quiet enough to measure: %s (limit %.3g %%)", why, lim.pct);
			free(why);
			return KVB_OK;
		}
		if (waited >= r->quiet_wait_s) {
			int rc = kvb_error_set(err, KVB_ETARGET,
					       "the host is too busy to measure: %s, above --host-limit %.3g %%%s; nothing was "
					       "run (stop what loads it, or --quiet-host=30m waits for it)",
					       why, lim.pct, r->quiet_wait_s > 0 ? " after waiting" : "");
			free(why);
			return rc;
		}
		if (!said++)
			kvb_warn("the host is busy: %s, above %.3g %%; waiting up to %.0f s for it to calm down", why, lim.pct,
				 r->quiet_wait_s);
		free(why);
		kvb_sleep_ms(5000);
	}
}

static int run_engine(struct kvb_cli *cli, struct run_args *r, struct run_setup *s, const char *cmdline,
		      int64_t *run_id, struct kvb_error *err)
{
	char *dry_dir = r->dry ? kvb_xasprintf("%s.d/dry-run", kvb_cli_db(cli->db_opt)) : NULL;
	int rc;
	struct kvb_run_opts ro = {
		.agenda = &s->a, .plat = &s->p, .store = s->st, .rounds = r->rounds, .resume_run = r->resume_run,
		.dry_run = r->dry, .command_line = cmdline, .max_jobs = r->max_jobs,
		.allow_unverified = r->unverified, .decide = r->until ? &r->dec : NULL,
		.on_variants = kvb_build_record, .on_variants_arg = &s->builds,
		.more_plats = s->more, .nmore_plats = s->nmore, .host_limit_pct = r->host_limit_pct,
		.dry_run_dir = dry_dir,
	};
	/* one look after every round: the rounds are the looks (iterations split over them as --rounds),
	 * and, on a board on this host (the only one the host can disturb), a spare round for each
	 * disturbed one the look will not count (decide.h) */
	if (r->until && !r->resume) {
		const struct kvb_target_ops *t = kvb_target_find(s->p.conn_type);
		if (!t || !t->host)
			r->dec.spare_rounds = 0;
		ro.rounds = r->dec.max_rounds + r->dec.spare_rounds;
	}
	rc = kvb_engine_run(&ro, run_id, err);
	free(dry_dir);
	return rc;
}

static void print_run_diff(struct run_args *r, struct run_setup *s, int64_t run_id)
{
	struct kvb_diff_opts d = { .format = "table", .alpha = KVB_STATS_ALPHA, .margin = r->until ? r->dec.margin : 0 };
	struct kvb_error e2;
	d.sel.runs = &run_id;
	d.sel.nruns = 1;
	if (kvb_diff_print(s->st, &d, stdout, &e2))
		kvb_warn("no table: %s", e2.msg);
}

/*
 * `kvbench run`: parse, set up a new run or a resumed one, build git variants, add
 * pool boards, run the engine, print the diff. Each step prints its own failure.
 */
int cmd_run(struct kvb_cli *cli, int argc, char **argv)
{
	struct run_args r = { .variants = KVB_STRV_INIT, .plats = KVB_STRV_INIT,
			      .dec = { .margin = KVB_VERDICT_MARGIN, .alpha = KVB_STATS_ALPHA, .max_rounds = 10,
				       .spare_rounds = 3 } };
	struct run_setup s;
	struct kvb_error err;
	struct kvb_buf cmdline = KVB_BUF_INIT;
	int64_t run_id = 0;
	int pre_rc = 0, rc;

	memset(&s, 0, sizeof(s));
	kvb_error_clear(&err);
	for (int i = 0; i < cli->argc_given; i++) /* as typed, with -d */
		kvb_buf_addf(&cmdline, "%s%s", i ? " " : "kvbench ", cli->argv_given[i]);
	if ((rc = parse_options(&r, argc, argv)) || (rc = check_operands(&r, argc, argv)))
		goto out; /* usage errors free like any other exit */
	if (r.resume) {
		if ((rc = setup_resume(cli, &r, &s, &err)))
			goto fail;
		if (s.done)
			goto out;
	} else if ((rc = setup_new_run(cli, &r, &s, &pre_rc, &err))) {
		goto out;
	}
	if (r.resume && (r.prep.series || r.prep.series_file))
		kvb_warn("--series is ignored with --resume: the run keeps the commits it was planned with");
	if (r.resume)
		r.prep.series = r.prep.series_file = NULL;
	/* git variants (and --series) are built before the engine sees them: DESIGN.md §10 */
	r.prep.platform_build = s.p.doc.root ? cJSON_GetObjectItemCaseSensitive(s.p.doc.root, "build") : NULL;
	r.prep.platform_file = s.p.file;
	if (!r.dry && (rc = kvb_build_prepare(&s.a, &r.prep, &s.builds, &err)))
		goto fail;
	if ((rc = load_pool(&r, &s)))
		goto out;
	if (r.quiet_host && !r.dry && (rc = wait_quiet_host(&r, &err)))
		goto fail;
	rc = run_engine(cli, &r, &s, cmdline.data, &run_id, &err);
	if (r.dry) {
		if (rc)
			kvb_cli_fail(&err);
		else
			rc = pre_rc;
		goto out;
	}
	if (rc && rc != KVB_EJOBS && rc != KVB_EINTR)
		goto fail;
	if (rc)
		kvb_err("%s", err.msg);
	if (!r.nodiff && run_id && s.a.nvariants > 0)
		print_run_diff(&r, &s, run_id);
	goto out;
fail:
	kvb_cli_fail(&err);
out:
	run_setup_release(&s);
	run_args_release(&r);
	kvb_buf_release(&cmdline);
	return rc;
}
