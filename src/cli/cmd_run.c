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

/* Loads a stored run's agenda and platform for --resume. */
static int load_stored(struct kvb_store *st, int64_t run, const char *plat_override, struct kvb_agenda *a,
		       struct kvb_platform *p, int *rounds, struct kvb_error *err)
{
	sqlite3_stmt *q;
	char *aj = NULL, *path = NULL, *plat = NULL, *status = NULL;
	struct kvb_doc doc;
	struct kvb_diag d;
	int rc = KVB_OK;
	if (sqlite3_prepare_v2(st->db, "SELECT agenda_json, agenda_path, platform, status, rounds FROM run WHERE id = ?",
			       -1, &q, NULL) != SQLITE_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", st->path, sqlite3_errmsg(st->db));
	sqlite3_bind_int64(q, 1, run);
	if (sqlite3_step(q) == SQLITE_ROW) {
		aj = kvb_xstrdup((const char *)sqlite3_column_text(q, 0) ? (const char *)sqlite3_column_text(q, 0) : "{}");
		path = kvb_xstrdup(sqlite3_column_text(q, 1) ? (const char *)sqlite3_column_text(q, 1) : "agenda");
		plat = kvb_xstrdup(sqlite3_column_text(q, 2) ? (const char *)sqlite3_column_text(q, 2) : "local");
		status = kvb_xstrdup((const char *)sqlite3_column_text(q, 3));
		*rounds = sqlite3_column_int(q, 4); /* the plan is rebuilt exactly as it was stored */
	}
	sqlite3_finalize(q);
	if (!aj)
		return kvb_error_set(err, KVB_EINPUT, "%s: no run %lld to resume", st->path, (long long)run);
	if (!strcmp(status, "ok") || !strcmp(status, "imported")) {
		rc = kvb_error_set(err, KVB_EINPUT, "run %lld is %s: nothing to resume", (long long)run, status);
		goto out;
	}
	kvb_diag_init(&d, NULL);
	char *name = kvb_xasprintf("%s (stored in run %lld)", path, (long long)run);
	rc = kvb_doc_parse(&doc, name, aj, strlen(aj), &d);
	if (!rc)
		rc = kvb_agenda_from_doc(a, &doc, &d);
	kvb_doc_release(&doc);
	d.doc = NULL;
	if (!rc)
		rc = kvb_platform_load(p, plat_override ? plat_override : plat, &d);
	if (rc && !plat_override && p->name == NULL && d.msgs.n)
		kvb_strv_pushf(&d.msgs, "run %lld was made on platform '%s': give its name or path with `--resume -p`",
			       (long long)run, plat);
	if (rc)
		print_diag(&d);
	kvb_diag_release(&d);
	free(name);
	if (rc)
		kvb_error_set(err, KVB_EINPUT, "cannot reload run %lld", (long long)run);
out:
	free(aj);
	free(path);
	free(plat);
	free(status);
	return rc;
}

int cmd_run(struct kvb_cli *cli, int argc, char **argv)
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
		{ NULL, 0, NULL, 0 },
	};
	const char *plat_name = NULL, *db = cli->db_opt, *agenda_file = NULL;
	struct kvb_strv variants = KVB_STRV_INIT, plats = KVB_STRV_INIT;
	struct kvb_platform **more = NULL;
	size_t nmore = 0;
	int rounds = 0, resume = 0, dry = 0, nodiff = 0, max_jobs = 0, unverified = 0, keep_going = 0, pre_rc = 0, c, rc;
	int64_t resume_run = 0, run_id = 0;
	struct kvb_agenda a;
	struct kvb_platform p;
	struct kvb_store *st = NULL;
	struct kvb_error err;
	struct kvb_buf cmdline = KVB_BUF_INIT;
	struct kvb_decide_opts dec = { .margin = KVB_VERDICT_MARGIN, .alpha = KVB_STATS_ALPHA, .max_rounds = 10 };
	int until = 0, dec_found = 0;
	struct kvb_prepare_opts prep = { 0 };
	struct kvb_build_set builds;

	memset(&builds, 0, sizeof(builds));
	memset(&a, 0, sizeof(a));
	memset(&p, 0, sizeof(p));
	kvb_error_clear(&err);
	for (int i = 0; i < cli->argc_given; i++) /* as typed, with -d */
		kvb_buf_addf(&cmdline, "%s%s", i ? " " : "kvbench ", cli->argv_given[i]);
	optind = 1;
	while ((c = getopt_long(argc, argv, "p:V:", opts, NULL)) != -1) {
		int64_t v;
		switch (c) {
		case 'p': /* more than once: a pool of boards of one kind (DESIGN.md §13) */
			if (plat_name)
				kvb_strv_push(&plats, optarg);
			else
				plat_name = optarg;
			break;
		case 'V': kvb_strv_push(&variants, optarg); break;
		case 'r':
			if (kvb_parse_i64(optarg, &v) || v < 1 || v > 1000)
				{
					rc = kvb_cli_usage("run", "--rounds '%s': expected a number from 1 to 1000", optarg);
					goto out; /* usage errors free like any other exit */
				}
			rounds = (int)v;
			break;
		case 'M':
			if (kvb_parse_i64(optarg, &v) || v < 1)
				{
					rc = kvb_cli_usage("run", "--max-jobs '%s': expected a positive number", optarg);
					goto out; /* usage errors free like any other exit */
				}
			max_jobs = (int)v;
			break;
		case 'R': resume = 1; break;
		case 'n': dry = 1; break;
		case 'N': nodiff = 1; break;
		case 'U': unverified = 1; break;
		case 'S': prep.series = optarg; break;
		case 'F': prep.series_file = optarg; break;
		case 'G': prep.repo = optarg; break;
		case 'D': prep.allow_dirty = 1; break;
		case 'u': until = 1; break;
		case 'g':
			if (kvb_parse_double(optarg, &dec.margin) || !(dec.margin > 0 && dec.margin < 100))
				{
					rc = kvb_cli_usage("run", "--margin '%s': expected a percentage between 0 and 100", optarg);
					goto out; /* usage errors free like any other exit */
				}
			dec.margin /= 100;
			break;
		case 'x':
			if (kvb_parse_i64(optarg, &v) || v < 2 || v > 1000)
				{
					rc = kvb_cli_usage("run", "--max-rounds '%s': expected a number from 2 to 1000", optarg);
					goto out; /* usage errors free like any other exit */
				}
			dec.max_rounds = (int)v;
			break;
		case 't':
			if (kvb_decide_parse_duration(optarg, &dec.max_time_s))
				{
					rc = kvb_cli_usage("run", "--max-time '%s': expected a duration (90, 90s, 30m, 2h)", optarg);
					goto out; /* usage errors free like any other exit */
				}
			break;
		case 'm': kvb_strv_push(&dec.metrics, optarg); break;
		case 'K': keep_going = 1; break;
		default:
			kvb_buf_release(&cmdline); /* a usage error frees like any other exit (ASan) */
			kvb_strv_release(&variants);
			kvb_strv_release(&plats);
			kvb_decide_opts_release(&dec);
			return kvb_cli_bad_option("run", opts, argv);
		}
	}
	for (int i = optind; i < argc; i++) {
		int64_t v;
		if (resume && !resume_run && !kvb_parse_i64(argv[i], &v) && v > 0)
			resume_run = v;
		else if (!agenda_file)
			agenda_file = argv[i];
		else
			{
				rc = kvb_cli_usage("run", "unexpected argument '%s'", argv[i]);
				goto out; /* usage errors free like any other exit */
			}
	}
	if (until && rounds)
		{
			rc = kvb_cli_usage("run", "--until-decided plans --max-rounds rounds: drop --rounds");
			goto out; /* usage errors free like any other exit */
		}
	if (!until && (dec.metrics.n || dec.max_time_s > 0))
		{
			rc = kvb_cli_usage("run", "--metric and --max-time go with --until-decided");
			goto out; /* usage errors free like any other exit */
		}
	if (!resume && !agenda_file)
		{
			rc = kvb_cli_usage("run", "missing AGENDA");
			goto out; /* usage errors free like any other exit */
		}
	if (prep.series && prep.series_file)
		{
			rc = kvb_cli_usage("run", "--series and --series-file exclude each other");
			goto out; /* usage errors free like any other exit */
		}
	if (!resume && !plat_name)
		{
			rc = kvb_cli_usage("run", "missing -p PLATFORM (`kvbench platform list` shows them)");
			goto out; /* usage errors free like any other exit */
		}

	if (resume) {
		if (access(kvb_cli_db(db), F_OK)) {
			/* opening it read-write would create an empty database just to find nothing in it */
			rc = kvb_error_set(&err, KVB_EINPUT, "%s: no such results database, so no run to resume%s",
					   kvb_cli_db(db), db ? "" : " (give it with -d DB or $KVB_DB)");
			goto fail;
		}
		if ((rc = kvb_cli_store(cli, &st, &err)))
			goto fail;
		if (!resume_run && (rc = kvb_store_latest_run(st, &resume_run, &err)))
			goto fail;
		if (!resume_run) {
			rc = kvb_error_set(&err, KVB_EINPUT, "%s has no run to resume (start one with `kvbench run AGENDA -p "
					   "PLATFORM -d %s`)", st->path, st->path);
			goto fail;
		}
		if (rounds)
			kvb_warn("--rounds is ignored with --resume: the run keeps the rounds it was planned with");
		if ((rc = load_stored(st, resume_run, plat_name, &a, &p, &rounds, &err)))
			goto fail;
		/* -V on resume: new files for a variant that failed (refused for one with results) */
		for (size_t i = 0; i < variants.n; i++)
			if ((rc = kvb_repair_variant(st, resume_run, &a, variants.v[i], unverified, &err)))
				goto fail;
		/* a run started --until-decided goes on with its stored rule */
		if (until)
			kvb_warn("--until-decided options are ignored with --resume: the run keeps the rule it was started with");
		kvb_decide_opts_release(&dec);
		if ((rc = kvb_decide_load(st, resume_run, &dec, &dec_found, &err)))
			goto fail;
		until = dec_found;
		/* --resume -p X: X is the stored platform (found by path); a further -p joins its pool */
	} else {
		struct kvb_diag d;
		kvb_diag_init(&d, NULL);
		rc = kvb_agenda_load(&a, agenda_file, &d);
		{
			struct kvb_diag pd;
			kvb_diag_init(&pd, NULL);
			int prc = kvb_platform_load(&p, plat_name, &pd);
			for (size_t i = 0; i < pd.msgs.n; i++)
				kvb_strv_push(&d.msgs, pd.msgs.v[i]);
			for (size_t i = 0; i < pd.warnings.n; i++)
				kvb_strv_push(&d.warnings, pd.warnings.v[i]);
			kvb_diag_release(&pd);
			if (!rc)
				rc = prc;
		}
		print_diag(&d);
		kvb_diag_release(&d);
		if (rc) {
			rc = KVB_EINPUT;
			goto out;
		}
		for (size_t i = 0; i < variants.n; i++)
			if ((rc = kvb_agenda_add_variant_arg(&a, variants.v[i], &err)))
				goto fail;
		kvb_agenda_default_variant(&a);
		{
			/* before the first flash: a missing kernel costs seconds here, hours of boots later */
			struct kvb_preflight pf = { KVB_STRV_INIT, KVB_STRV_INIT };
			kvb_preflight_run(&a, &p, unverified, 1, &pf);
			rc = kvb_preflight_report(&pf, stderr);
			kvb_preflight_release(&pf);
			if (rc && dry) {
				pre_rc = rc;
			} else if (rc && !keep_going) {
				fprintf(stderr, "kvbench: nothing was run; fix the above, or `--keep-going` to run what can run\n");
				goto out;
			}
			rc = KVB_OK;
		}
		if (!dry && (rc = kvb_cli_store(cli, &st, &err)))
			goto fail;
	}
	if (resume && (prep.series || prep.series_file))
		kvb_warn("--series is ignored with --resume: the run keeps the commits it was planned with");
	if (resume)
		prep.series = prep.series_file = NULL;
	/* git variants (and --series) are built before the engine sees them: DESIGN.md §10 */
	prep.platform_build = p.doc.root ? cJSON_GetObjectItemCaseSensitive(p.doc.root, "build") : NULL;
	prep.platform_file = p.file;
	if (!dry && (rc = kvb_build_prepare(&a, &prep, &builds, &err)))
		goto fail;
	if (plats.n) {
		struct kvb_diag d;
		kvb_diag_init(&d, NULL);
		more = kvb_xcalloc(plats.n, sizeof(*more));
		for (size_t i = 0; i < plats.n && !rc; i++) {
			more[nmore] = kvb_xcalloc(1, sizeof(**more));
			rc = kvb_platform_load(more[nmore++], plats.v[i], &d);
		}
		print_diag(&d);
		kvb_diag_release(&d);
		if (rc) {
			rc = KVB_EINPUT;
			goto out;
		}
	}
	{
		struct kvb_run_opts ro = {
			.agenda = &a, .plat = &p, .store = st, .rounds = rounds, .resume_run = resume_run,
			.dry_run = dry, .command_line = cmdline.data, .max_jobs = max_jobs,
			.allow_unverified = unverified, .decide = until ? &dec : NULL,
			.on_variants = kvb_build_record, .on_variants_arg = &builds,
			.more_plats = more, .nmore_plats = nmore,
		};
		/* one look after every round: the rounds are the looks (iterations split over them as --rounds) */
		if (until && !resume)
			ro.rounds = dec.max_rounds;
		rc = kvb_engine_run(&ro, &run_id, &err);
	}
	if (dry) {
		if (!rc)
			rc = pre_rc;
		goto out;
	}
	if (rc && rc != KVB_EJOBS)
		goto fail;
	if (rc == KVB_EJOBS)
		kvb_err("%s", err.msg);
	if (!nodiff && run_id && a.nvariants > 0) {
		struct kvb_diff_opts d = { .format = "table", .alpha = KVB_STATS_ALPHA, .margin = until ? dec.margin : 0 };
		struct kvb_error e2;
		d.sel.runs = &run_id;
		d.sel.nruns = 1;
		if (kvb_diff_print(st, &d, stdout, &e2))
			kvb_warn("no table: %s", e2.msg);
	}
	goto out;
fail:
	kvb_cli_fail(&err);
out:
	kvb_build_set_release(&builds);
	kvb_agenda_release(&a);
	if (p.file || p.name)
		kvb_platform_release(&p);
	for (size_t i = 0; i < nmore; i++) {
		kvb_platform_release(more[i]);
		free(more[i]);
	}
	free(more);
	kvb_strv_release(&plats);
	kvb_strv_release(&variants);
	kvb_buf_release(&cmdline);
	kvb_decide_opts_release(&dec);
	return rc;
}
