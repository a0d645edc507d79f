/* Implements `kvbench run`: load agenda and platform, run (or resume), print the diff. */
#include "cli/cli.h"
#include "config/agenda.h"
#include "config/platform.h"
#include "core/log.h"
#include "core/util.h"
#include "engine/engine.h"
#include "report/diff.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
static int load_stored(struct kvb_store *st, int64_t run, struct kvb_agenda *a, struct kvb_platform *p, int *rounds,
		       struct kvb_error *err)
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
		rc = kvb_platform_load(p, plat, &d);
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

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "platform", required_argument, NULL, 'p' }, { "variant", required_argument, NULL, 'V' },
		{ "db", required_argument, NULL, 'd' },       { "rounds", required_argument, NULL, 'r' },
		{ "resume", no_argument, NULL, 'R' },         { "dry-run", no_argument, NULL, 'n' },
		{ "no-diff", no_argument, NULL, 'N' },        { "max-jobs", required_argument, NULL, 'M' },
		{ "allow-unverified", no_argument, NULL, 'U' },
		{ NULL, 0, NULL, 0 },
	};
	const char *plat_name = NULL, *db = NULL, *agenda_file = NULL;
	struct kvb_strv variants = KVB_STRV_INIT, plats = KVB_STRV_INIT;
	struct kvb_platform **more = NULL;
	size_t nmore = 0;
	int rounds = 0, resume = 0, dry = 0, nodiff = 0, max_jobs = 0, unverified = 0, c, rc;
	int64_t resume_run = 0, run_id = 0;
	struct kvb_agenda a;
	struct kvb_platform p;
	struct kvb_store *st = NULL;
	struct kvb_error err;
	struct kvb_buf cmdline = KVB_BUF_INIT;

	memset(&a, 0, sizeof(a));
	memset(&p, 0, sizeof(p));
	kvb_error_clear(&err);
	for (int i = 0; i < argc; i++)
		kvb_buf_addf(&cmdline, "%s%s", i ? " " : "kvbench ", argv[i]);
	optind = 1;
	while ((c = getopt_long(argc, argv, "p:V:d:", opts, NULL)) != -1) {
		int64_t v;
		switch (c) {
		case 'p': /* more than once: a pool of boards of one kind (DESIGN.md §13) */
			if (plat_name)
				kvb_strv_push(&plats, optarg);
			else
				plat_name = optarg;
			break;
		case 'V': kvb_strv_push(&variants, optarg); break;
		case 'd': db = optarg; break;
		case 'r':
			if (kvb_parse_i64(optarg, &v) || v < 1 || v > 1000)
				return kvb_cli_usage("run", "--rounds '%s': expected a number from 1 to 1000", optarg);
			rounds = (int)v;
			break;
		case 'M':
			if (kvb_parse_i64(optarg, &v) || v < 1)
				return kvb_cli_usage("run", "--max-jobs '%s': expected a positive number", optarg);
			max_jobs = (int)v;
			break;
		case 'R': resume = 1; break;
		case 'n': dry = 1; break;
		case 'N': nodiff = 1; break;
		case 'U': unverified = 1; break;
		default: return kvb_cli_usage("run", "unknown option");
		}
	}
	for (int i = optind; i < argc; i++) {
		int64_t v;
		if (resume && !resume_run && !kvb_parse_i64(argv[i], &v) && v > 0)
			resume_run = v;
		else if (!agenda_file)
			agenda_file = argv[i];
		else
			return kvb_cli_usage("run", "unexpected argument '%s'", argv[i]);
	}
	if (!resume && !agenda_file)
		return kvb_cli_usage("run", "missing AGENDA");
	if (!resume && !plat_name)
		return kvb_cli_usage("run", "missing -p PLATFORM (`kvbench platform list` shows them)");

	if (resume) {
		if ((rc = kvb_store_open(&st, kvb_cli_db(db), 0, &err)) || (rc = kvb_store_lock_runs(st, &err)))
			goto fail;
		if (!resume_run && (rc = kvb_store_latest_run(st, &resume_run, &err)))
			goto fail;
		if (rounds)
			kvb_warn("--rounds is ignored with --resume: the run keeps the rounds it was planned with");
		if ((rc = load_stored(st, resume_run, &a, &p, &rounds, &err)))
			goto fail;
		if (plat_name) /* --resume -p X: X joins the stored platform's pool */
			kvb_strv_push(&plats, plat_name);
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
		if (!dry && ((rc = kvb_store_open(&st, kvb_cli_db(db), 0, &err)) || (rc = kvb_store_lock_runs(st, &err))))
			goto fail;
	}
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
			.allow_unverified = unverified, .more_plats = more, .nmore_plats = nmore,
		};
		rc = kvb_engine_run(&ro, &run_id, &err);
	}
	if (dry)
		goto out;
	if (rc && rc != KVB_EJOBS)
		goto fail;
	if (rc == KVB_EJOBS)
		kvb_err("%s", err.msg);
	if (!nodiff && run_id && a.nvariants > 0) {
		struct kvb_diff_opts d = { .format = "table", .alpha = KVB_STATS_ALPHA };
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
	kvb_store_close(st);
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
	return rc;
}
