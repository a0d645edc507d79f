/* Implements `kvbench run`: load agenda and platform, run (or resume), print the diff. */
#include "cli/run.h"
#include "engine/catalog.h"
#include "engine/decide.h"
#include "stats/verdict.h"
#include "config/agenda.h"
#include "config/platform.h"
#include "core/log.h"
#include "core/util.h"
#include "kbuild/prepare.h"
#include "engine/engine.h"
#include "engine/hostwatch.h"
#include "flash/flash.h"
#include "target/target.h"
#include "engine/preflight.h"
#include "engine/repair.h"
#include "report/diff.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* AGENDA and -p PLATFORM, their problems printed together. KVB_EINPUT (printed) on any. */
static int load_agenda_and_platform(struct run_args *r, struct run_setup *s)
{
	struct kvb_diag d, pd;
	int rc, prc;
	kvb_diag_init(&d, NULL);
	rc = kvb_agenda_load(&s->a, r->agenda_file, &kvb_catalog, &d);
	kvb_diag_init(&pd, NULL);
	prc = kvb_platform_load(&s->p, r->plat_name, &kvb_catalog, &pd);
	for (size_t i = 0; i < pd.msgs.n; i++)
		kvb_strv_push(&d.msgs, pd.msgs.v[i]);
	for (size_t i = 0; i < pd.warnings.n; i++)
		kvb_strv_push(&d.warnings, pd.warnings.v[i]);
	kvb_diag_release(&pd);
	if (!rc)
		rc = prc;
	kvb_run_print_diag(&d);
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
		rc = kvb_platform_load(s->more[s->nmore++], r->plats.v[i], &kvb_catalog, &d);
	}
	kvb_run_print_diag(&d);
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
	/* one look after every round: the rounds are the looks and, on a board on this host (the only
	 * one the host can disturb), a spare round for each disturbed one the look will not count. On
	 * a board that reboots the iterations are split over the rounds (each adds a boot, the unit);
	 * where every job shares one boot the runs are the units and each round runs the agenda's
	 * iterations again (decide.h) */
	if (r->until && !r->resume) {
		const struct kvb_target_ops *t = kvb_target_find(s->p.conn_type);
		if (!t || !t->host)
			r->dec.spare_rounds = 0;
		/* a pool of boards that is no duet runs its rounds without looks (engine/pool.h): no rounds to add */
		r->dec.add_rounds = !kvb_flasher_boots_each_round(kvb_flasher_find(s->p.flash_method)) &&
				    (!r->plats.n || s->a.order == KVB_ORDER_DUET);
		ro.rounds = r->dec.max_rounds + r->dec.spare_rounds;
	}
	rc = kvb_engine_run(&ro, run_id, err);
	free(dry_dir);
	return rc;
}

static void print_run_diff(struct run_args *r, struct run_setup *s, int64_t run_id)
{
	struct kvb_diff_opts d = { .fmt = &kvb_format_table, .alpha = KVB_STATS_ALPHA, .margin = r->until ? r->dec.margin : 0 };
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
int kvb_cmd_run(struct kvb_cli *cli, int argc, char **argv)
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
	if ((rc = kvb_run_parse_options(&r, argc, argv)) || (rc = kvb_run_check_operands(&r, argc, argv)))
		goto out; /* usage errors free like any other exit */
	if (r.resume) {
		if ((rc = kvb_run_setup_resume(cli, &r, &s, &err)))
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
	/* git variants (and --series) are built before the engine sees them: docs/design.md#kernels-from-git */
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
	if (rc == KVB_EJOBS) /* an interrupt (exit 7) was said by the run's last lines, not as an error */
		kvb_err("%s", err.msg);
	if (!r.nodiff && run_id && s.a.nvariants > 0)
		print_run_diff(&r, &s, run_id);
	goto out;
fail:
	kvb_cli_fail(&err);
out:
	kvb_run_setup_release(&s);
	kvb_run_args_release(&r);
	kvb_buf_release(&cmdline);
	return rc;
}
