/* Implements the command line of `kvbench run` (cli/run.h). */
#include "cli/run.h"
#include "core/log.h"
#include "core/util.h"
#include "engine/hostwatch.h"
#include "stats/verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kvb_run_args_release(struct run_args *r)
{
	kvb_strv_release(&r->plats);
	kvb_strv_release(&r->variants);
	kvb_decide_opts_release(&r->dec);
}

void kvb_run_setup_release(struct run_setup *s)
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

static const char *const synopsis[] = { "run <agenda> -p <platform> [-V <name>=<kernel>[,<key>=<value>...]]... [<options>]",
					 "run --resume [<run>] [-d <db>] [-p <platform>] [-V <name>=<kernel>[,...]]...", NULL };

static const struct kvb_option options[] = {
	KVB_OPT_SHORT('p', "platform", "platform", "platform name or path to platform.yaml (again: a pool of boards\n"
						   "of one kind)"),
	KVB_OPT_SHORT('V', "variant", "spec", "add a variant (repeatable; keys: cmdline, dtb, initrd, sha256,\n"
					      "`kvbench help variant`); overrides an agenda variant of that name"),
	KVB_OPT_DB(),
	KVB_OPT_VALUE('r', "rounds", "n", "split iterations into N rounds run A B A B (each round is a boot)"),
	KVB_OPT_FLAG('R', "resume", "continue an interrupted or incomplete run (default: the latest):\n"
				    "jobs left, failed or skipped run again; with -V NAME=KERNEL a\n"
				    "variant that failed gets new files first (refused for a variant\n"
				    "that has results); -p when the platform moved. A run or variant is\n"
				    "ok only when every planned job is ok (exit 1 otherwise)"),
	KVB_OPT_FLAG('n', "dry-run", "check and print the plan, run nothing"),
	KVB_OPT_FLAG('N', "no-diff", "do not print the diff table at the end"),
	KVB_OPT_VALUE('M', "max-jobs", "n", "stop after N jobs as if interrupted (for testing resume)"),
	KVB_OPT_FLAG('U', "allow-unverified", "accept artifact URLs that come without a sha256"),
	KVB_OPT_FLAG('K', "keep-going", "run even when the preflight found problems (missing kernel file,\n"
					"tool not on the board ...): the variants that can run, run"),
	KVB_OPT_GROUP("until decided (alpha spending: Lan-DeMets O'Brien-Fleming type):"),
	KVB_OPT_FLAG('u', "until-decided", "after every round re-judge and stop when every comparison is\n"
					   "better, worse or same; where every job shares one boot (local)\n"
					   "each round runs the agenda's iterations again"),
	KVB_OPT_VALUE('x', "max-rounds", "n", "at most N rounds, a look after each (default 10); on a board\n"
					      "that reboots the iterations are split over them"),
	KVB_OPT_VALUE('g', "margin", "pct", "\"same\" within +-PCT % (default 1)"),
	KVB_OPT_VALUE('t', "max-time", "dur", "stop deciding after DUR (90s, 30m, 2h): no round is started\n"
					      "that would end past it (by the rounds so far)"),
	KVB_OPT_VALUE('m', "metric", "workload/metric", "decide on this metric (repeatable; default every metric)"),
	KVB_OPT_VALUE('X', "max-disturbed", "n", "a round with a job the host disturbed is not counted: up to N\n"
						 "(default 3) spare rounds run in its place"),
	KVB_OPT_GROUP("the host (a board on this host: QEMU, local):"),
	KVB_OPT_VALUE('H', "host-limit", "pct", "a job during which the host's CPU pressure (PSI some), steal or\n"
						"the board process's wait for a CPU was above PCT % of its time\n"
						"is stored as disturbed (default 10)"),
	KVB_OPT_OPTARG('Q', "quiet-host", "dur", "before the run, refuse (exit 4) when the host's CPU pressure\n"
						 "(avg10) is above --host-limit, or wait up to DUR (90s, 30m) for\n"
						 "it to drop"),
	KVB_OPT_GROUP("kernels from git:"),
	KVB_OPT_VALUE('S', "series", "a..b", "one variant per commit A, then A..B (built from git)"),
	KVB_OPT_VALUE('F', "series-file", "file", "the same from a file with one revision a line"),
	KVB_OPT_VALUE('G', "repo", "dir", "repository of --series and of git variants without repo:"),
	KVB_OPT_FLAG('D', "allow-dirty", "build although the repository has uncommitted changes"),
	KVB_OPT_END(),
};

const struct kvb_cmd_usage kvb_usage_run = {
	synopsis, options,
	"<agenda> is a file, or a shipped agenda's name (quickstart-local): ./agendas, then the installed\n"
	"share/kvbench/agendas (the source tree's from a build).\n"
	"Before the first flash (and with --dry-run) every variant file is checked (exists, readable,\n"
	"sha256, URL answers), the platform's files (connection.key ...) and, when the board answers,\n"
	"the tools the agenda's workloads need. A problem stops the run (exit 3) unless --keep-going.\n",
	NULL,
};

/* The options, into r. Returns KVB_EUSAGE (printed) on a bad one. */
int kvb_run_parse_options(struct run_args *r, int argc, char **argv)
{
	struct kvb_getopt g;
	int c;
	if (kvb_getopt_init(&g, "run", &kvb_usage_run, NULL))
		return KVB_EINTERNAL;
	while ((c = kvb_getopt_next(&g, argc, argv)) != -1) {
		int64_t v;
		switch (c) {
		case 'p': /* more than once: a pool of boards of one kind (docs/design.md#pools-and-lava) */
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
		default: return kvb_getopt_bad(&g, argv);
		}
	}
	return KVB_OK;
}

/* The operands (AGENDA, or --resume's RUN) and the options that go together. KVB_EUSAGE (printed). */
int kvb_run_check_operands(struct run_args *r, int argc, char **argv)
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
