/*
 * `kvbench run` in three files: cmd_run.c (the steps of a run), run_opts.c (its command line),
 * run_resume.c (--resume: the stored run reloaded, -V repairs, the stored stopping rule).
 * For src/cli only.
 */
#ifndef KVB_CLI_RUN_H
#define KVB_CLI_RUN_H

#include "cli/cli.h"
#include "config/agenda.h"
#include "config/platform.h"
#include "engine/decide.h"
#include "kbuild/prepare.h"

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

/* What the steps of a run load, released together at the end of kvb_cmd_run. */
struct run_setup {
	struct kvb_agenda a;
	struct kvb_platform p;
	struct kvb_platform **more;  /* further -p boards (owned) */
	size_t nmore;
	struct kvb_store *st;        /* borrowed from main (KVB_CMD_DB_RW | KVB_CMD_LOCK_RUNS) */
	struct kvb_build_set builds;
	int done;                    /* --resume of a finished run: nothing to do, exit 0 */
};

/* Frees what r and s own (s->st is main's). */
void kvb_run_args_release(struct run_args *r);
void kvb_run_setup_release(struct run_setup *s);
/* The options into r: KVB_OK, or KVB_EUSAGE with the usage message printed. */
int kvb_run_parse_options(struct run_args *r, int argc, char **argv);
/* The operands (AGENDA, or a run id with --resume) after the options: KVB_EUSAGE (printed) on a bad one. */
int kvb_run_check_operands(struct run_args *r, int argc, char **argv);
/* Prints d's warnings and errors to stderr with the error count; KVB_EINPUT when there is an error. */
int kvb_run_print_diag(struct kvb_diag *d);
/*
 * --resume: the stored run's agenda, platform, rounds and stopping rule into s and r; -V repairs
 * a failed variant. s->done when the run is finished. Errors in err (the caller prints them).
 */
int kvb_run_setup_resume(struct kvb_cli *cli, struct run_args *r, struct run_setup *s, struct kvb_error *err);

#endif
