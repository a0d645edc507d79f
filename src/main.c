/* Implements kvbench's entry point: the command table, help, and the only exit. */
#include "cli/cli.h"
#include "cli/help.h"
#include "core/outfile.h"
#include "core/suggest.h"
#include "core/log.h"
#include "flash/flash.h"
#include "instrument/instrument.h"
#include "report/format.h"
#include "store/store.h"
#include "target/target.h"
#include "workload/workload.h"

#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The commit this binary was built from: 12 hex digits, "-modified" when the tree had uncommitted
 * changes, or "unknown" (cmake/gen_commit.cmake writes it into the executable, not the library). */
extern const char kvb_build_commit[];

const struct kvb_cmd kvb_commands[] = {
	{ "run", cmd_run, KVB_CMD_DB_RW | KVB_CMD_LOCK_RUNS, "run an agenda on a platform and store the results",
	  "usage: kvbench run AGENDA -p PLATFORM [-V NAME=KERNEL[,cmdline=..,dtb=..,initrd=..,sha256=..]]...\n"
	  "                   [-d DB] [--rounds N] [--dry-run] [--no-diff] [--keep-going]\n"
	  "                   [--until-decided [--margin PCT] [--max-rounds N] [--max-time DUR] [--metric W/M]...\n"
	  "                    [--max-disturbed N]] [--host-limit PCT] [--quiet-host[=DUR]]\n"
	  "       kvbench run --resume [RUN] [-d DB] [-p PLATFORM] [-V NAME=KERNEL[,...]]...\n\n"
	  "  AGENDA                a file, or a shipped agenda's name (quickstart-local): ./agendas, then\n"
	  "                        the installed share/kvbench/agendas (the source tree's from a build)\n"
	  "  -p, --platform NAME   platform name or path to platform.yaml\n"
	  "  -V, --variant SPEC    add a variant (repeatable); overrides an agenda variant of that name\n"
	  "  -d, --db PATH         results database (default $KVB_DB or ./kvbench.db)\n"
	  "      --rounds N        split iterations into N rounds run A B A B (each round is a boot)\n"
	  "      --resume [RUN]    continue an interrupted or incomplete run (default: the latest): jobs left,\n"
	  "                        failed or skipped run again; with -V NAME=KERNEL a variant that failed\n"
	  "                        gets new files first (refused for a variant that has results); -p when\n"
	  "                        the platform moved. A run or variant is ok only when every planned job is\n"	  "                        ok (exit 1 otherwise)\n"
	  "      --dry-run         print the plan and exit\n"
	  "      --no-diff         do not print the diff table at the end\n"
	  "      --max-jobs N      stop after N jobs as if interrupted (for testing resume)\n"
	  "      --allow-unverified  accept artifact URLs that come without a sha256\n"
	  "      --keep-going      run even when the preflight found problems (missing kernel file, tool\n"
	  "                        not on the board ...): the variants that can run, run\n\n"
	  "  Before the first flash (and with --dry-run) every variant file is checked (exists, readable,\n"
	  "  sha256, URL answers), the platform's files (connection.key ...) and, when the board answers,\n"
	  "  the tools the agenda's workloads need. A problem stops the run (exit 3) unless --keep-going.\n"
	  "      --until-decided   after every round re-judge and stop when every comparison is better,\n"
	  "                        worse or same (alpha spending: Lan-DeMets O'Brien-Fleming type);\n"
	  "                        iterations are split over --max-rounds N rounds (default 10);\n"
	  "                        --margin PCT (default 1), --max-time DUR (90s, 30m, 2h),\n"
	  "                        --metric WORKLOAD/METRIC (repeatable; default every metric);\n"
	  "                        a round with a job the host disturbed is not counted: up to\n"
	  "                        --max-disturbed N (default 3) spare rounds run in its place\n"
	  "      --host-limit PCT  on a board on this host (QEMU, local): a job during which the host's CPU\n"
	  "                        pressure (PSI some), steal or the board process's wait for a CPU was\n"
	  "                        above PCT % of its time is stored as disturbed (default 10)\n"
	  "      --quiet-host[=DUR]  before the run, refuse (exit 4) when the host's CPU pressure (avg10)\n"
	  "                        is above --host-limit, or wait up to DUR (90s, 30m) for it to drop\n"
	  "      --series A..B     one variant per commit A, then A..B (built from git)\n"
	  "      --series-file F   the same from a file with one revision a line\n"
	  "      --repo DIR        repository of --series and of git variants without repo:\n"
	  "      --allow-dirty     build although the repository has uncommitted changes\n" },
	{ "bisect", cmd_bisect, KVB_CMD_DB_RW | KVB_CMD_LOCK_RUNS, "find the commit that made a metric worse: git bisect driven by measured runs",
	  "usage: kvbench bisect AGENDA -p PLATFORM --repo DIR --good REV --bad REV --metric WORKLOAD/METRIC\n"
	  "                      [--threshold PCT] [--rounds N] [--max-rounds N] [-d DB] [--allow-dirty]\n"
	  "       kvbench bisect --resume [ID] [-d DB]\n\n"
	  "  -p, --platform NAME   platform name or path to platform.yaml\n"
	  "  Measures good and bad (bad must be worse by >= --threshold %, default 5; undecided\n"
	  "  endpoints get one more boot up to --max-rounds; a good worse than bad: exit 3), then lets\n"
	  "  git bisect pick commits; each is built (the agenda's build: block), booted and measured\n"
	  "  (a stored run) and judged against both endpoints with the boot-aware verdict: good,\n"
	  "  bad, skip (build/flash/boot/identity failed) or abort (board unusable). An undecided\n"
	  "  step gets more rounds up to --max-rounds boots (default 6); a commit's first run has\n"
	  "  --rounds boots (default 2: two boots a side that decide are enough). Jobs the host\n"
	  "  disturbed in every attempt are never judged; a step whose runs keep losing jobs to the\n"
	  "  host stops the bisect after 3 spare runs (exit 1: the host was too busy to decide it).\n"
	  "  The end prints the first bad commit, its change against good and the steps; `git bisect\n"
	  "  log` is stored.\n"
	  "  The repository is left as it was (git bisect reset), also after Ctrl-C; --resume goes on.\n" },
	{ "diff", cmd_diff, KVB_CMD_DB_RO, "compare variants: statistics, % diff and significance",
	  "usage: kvbench diff [-d DB] [--run ID]... [--baseline VARIANT] [--by KEY] [--metric GLOB]\n"
	  "                    [--workload NAME] [--stat mean|median|max|min|p95] [--alpha A] [--margin PCT]\n"
	  "                    [--format @formats@] [--layout long|wide|mail] [--all]\n"
	  "       kvbench diff --series [-d DB] [--run ID] [--metric GLOB]... [--workload NAME] [--stat S] [--alpha A]\n"
	  "                             [--format F]\n\n"
	  "  Columns: n values, boots they came from, the statistic (--stat), stdev (n-1), CoV,\n"
	  "  perc_diff = (variant - baseline) / |baseline| x 100 (its sign is the direction, also for a\n"
	  "  negative baseline), p and verdict. With >= 2 boots per variant, p is Welch's on the boot\n"
	  "  means and a change is significant (*) when that p < alpha AND the hierarchical-bootstrap\n"
	  "  95% CI of the change excludes none (of the ratio where both sides stay positive, else of the\n"
	  "  difference). With one boot, p is the larger of Welch's and Mann-Whitney's (both must be\n"
	  "  < alpha); \"(1 boot)\" marks it when the variants ran in different boots. verdict: better /\n"
	  "  worse (significant; the direction from the difference's sign and lower_is_better), same (the\n"
	  "  95% CI of the change within +-margin: --margin PCT, else the agenda's config.margins, else\n"
	  "  1%), undecided (~N boots: the boots per variant estimated to decide it). cliff: Cliff's\n"
	  "  delta; a dagger marks multimodal runs.\n"
	  "  --stat median|p95: p and verdict test that statistic (a bootstrap of it over boots, then runs,\n"
	  "  and Welch on each boot's value; p95 from 20 runs a side); --stat min|max: untested, no p\n"
	  "  and no verdict (a bootstrap cannot test an extreme).\n"
	  "  --by KEY spreads a classifier into columns (cgroup_depth -> root, level1, ...).\n"
	  "  --layout wide --by KEY: the mailing-list table, one per metric: rows are KEY's values (root,\n"
	  "  level1, ...), columns `mean(±cov%)` per variant and the diff per variant (* significant).\n"
	  "  --layout mail: a table to paste into a mail, one per metric: n once in its title, per variant\n"
	  "  `mean (±cov%)`, per compared variant the % diff (* significant) and the verdict word, the\n"
	  "  legend once at the end; two variants fit 80 columns (--format table or markdown).\n"
	  "  For people (table, markdown) rows come in the order of what changed: decided changes first,\n"
	  "  then undecided, then same; csv, tsv and json keep the order of the results.\n"
	  "  For people, without --metric or --workload, the table is a front page: the workloads' own\n"
	  "  metrics and energy, and one line counting the instruments' rows left out; --all shows them.\n"
	  "  --metric GLOB is repeatable (`--metric ops_per_sec --metric time`: pipe and hackbench together).\n"
	  "  --format json carries every statistic, p-value, CI and the raw values.\n"
	  "  --series (a run made with run --series): each commit against the first and against its\n"
	  "  parent with the same verdict, and the commits where a metric shifts (E-Divisive, Matteson &\n"
	  "  James 2014; a permutation test at --alpha, default 0.05); --format table or json.\n" },
	{ "report", cmd_report, KVB_CMD_DB_RO, "write one self-contained HTML page: metadata, failures, diff tables and plots",
	  "usage: kvbench report [-d DB] [--run ID]... [--baseline VARIANT] -o FILE.html [--max-points N]\n"
	  "       kvbench report [-d DB] [--run ID]... [--baseline VARIANT] --format markdown|table|json [-o FILE]\n"
	  "                      [--metric GLOB]... [--workload GLOB]... [--variant GLOB]...\n\n"
	  "  -o, --output FILE     where the page goes (- for stdout); required for html, the text\n"
	  "                        formats go to stdout without it, with no plot and no text about plots\n"
	  "  --metric GLOB, --workload GLOB, --variant GLOB: show only what passes (fnmatch globs as diff's\n"
	  "  --metric; each repeatable, a name passing any pattern passes; the baseline always shows).\n"
	  "  The page opens with a summary: every compared cell's change against the baseline with the\n"
	  "  95 % CI of that change (the numbers of diff --format json), coloured by verdict, the \"same\"\n"
	  "  margin shaded; a row links to its samples. Then the diff table, mmtests-style quantile rows per\n"
	  "  variant, a metric against a swept classifier, energy against performance, and for --series\n"
	  "  and bisect DBs the metric along the commits with its change points; per-job plots are folded.\n"
	  "  Run metadata (platform, agenda, kernels with sha256, the identity seen after each boot, cmdline,\n"
	  "  knobs), failures and events, the diff table with verdicts, and plots drawn with d3 (Debian\n"
	  "  node-d3, inlined): samples per metric as dots over a box coloured by boot, Jankbench\n"
	  "  frame-duration CDFs (keep_frames), power over time per channel per job (decimated to N points,\n"
	  "  default 1000) and energy per job, rt-app slack and wake-up latency CDFs per task, per-CPU\n"
	  "  utilisation and frequency residency where the util and cpufreq instruments ran.\n"
	  "  The page needs no network. It is written to a temporary file renamed to FILE. -o - writes stdout.\n"
	  "  FILE must be new or a regular file (renamed over) or a FIFO (written into); the results DB\n"
	  "  itself (same device and inode), a symlink, a directory or a device is refused (exit 3).\n"
	  "  --format: html (default), table, markdown or json (the same sections, without plots in text).\n"
	  "  Exit 1 (page still written) when the runs have no result at all.\n" },
	{ "plan", cmd_plan, KVB_CMD_DB_RO, "runs per boot and boots needed, from the variance in a DB",
	  "usage: kvbench plan [-d DB] [--run ID] [--metric GLOB] [--workload NAME] [--detect PCT] [--alpha A]\n"
	  "                    [--boot-cost S] [--run-cost S]\n\n"
	  "  Per metric and variant with >= 2 boots: boot-to-boot and run-to-run variance components,\n"
	  "  the boot and job times measured in the DB, Kalibera & Jones' optimal runs per boot and the\n"
	  "  boots per variant that detect a --detect PCT change (default 5) with 80% power.\n"
	  "  --boot-cost/--run-cost give the costs in seconds where the DB has none (imported results).\n" },
	{ "show", cmd_show, KVB_CMD_DB_RO, "list runs, variants, jobs, metrics, witnesses or events",
	  "usage: kvbench show runs|variants|jobs|metrics|witnesses|events [-d DB] [--run ID] [--status S] [--format F]\n\n"
	  "  witnesses    what was checked to believe each job's numbers (knobs read back, meter coverage, ...)\n"
	  "  --status S   jobs/variants/runs with this status (ok, failed, skipped, instrument-failed, ...)\n"
	  "  --format F   @formats@ (default table; json: rows as objects)\n" },
	{ "query", cmd_query, KVB_CMD_DB_RO, "read-only SQL over the results views",
	  "usage: kvbench query [-d DB] [--format @formats@] \"SQL\"\n\n"
	  "  Views: results (one row per metric, classifiers as JSON), jobs, comparison, witnesses.\n"
	  "  The database is opened read-only: statements that write are refused.\n" },
	{ "platform", cmd_platform, 0, "list, show, check or create platforms",
	  "usage: kvbench platform list\n"
	  "       kvbench platform show NAME|PATH\n"
	  "       kvbench platform check NAME|PATH\n"
	  "       kvbench platform new NAME --from BASE [--dir DIR]\n\n"
	  "  NAME is looked up in $KVB_PLATFORM_PATH, ./platforms, ~/.config/kvbench/platforms\n"
	  "  ($XDG_CONFIG_HOME/kvbench/platforms) and the source tree's platforms/; a PATH (with '/')\n"
	  "  names a platform.yaml or its directory anywhere.\n"
	  "  check: the file, its instruments' programs on this host and, when the board answers, its\n"
	  "         kernel, CPUs, tools and the instruments' files there; exit 3 for a problem, 4 when\n"
	  "         the board does not answer.\n"
	  "  new:   writes DIR/NAME/platform.yaml (default: the first $KVB_PLATFORM_PATH entry, else\n"
	  "         ~/.config/kvbench/platforms, searched from any directory) and says how to name it.\n" },
	{ "agenda", cmd_agenda, 0, "validate an agenda and print its jobs",
	  "usage: kvbench agenda check FILE [-p PLATFORM] [-V NAME=KERNEL[,...]]... [--rounds N]\n\n"
	  "  -p, --platform NAME   plan as `run -p NAME` would (its default rounds) and run the preflight:\n"
	  "                        variant files, the platform's files, the tools on the board and its online\n"
	  "                        CPUs against the cpus knobs (exit 3 on a problem)\n"
	  "  -V, --variant SPEC    add a variant as `run -V` does\n"
	  "      --rounds N        plan with N rounds\n" },
	{ "import", cmd_import, KVB_CMD_DB_RW, "bring outside results in (long-format CSV, WA3 results)",
	  "usage: kvbench import csv FILE [-d DB]\n\n"
	  "  Columns: variant, workload, metric, value [, units, lower_is_better, iteration, boot|round, section,\n"
	  "  warmup]; any other column is a classifier. A row with iteration 0 or warmup 1/true is a warm-up run:\n"
	  "  stored (status warmup, `show jobs`), never compared. Bad rows are reported with their line; nothing\n"
	  "  is imported then.\n"
	  "usage: kvbench import csv results.csv --variant NAME [-d DB]\n"
	  "       kvbench import wa3 DIR --variant NAME [-d DB]\n\n"
	  "  WA3's results.csv or output directory (which name no kernel) as variant NAME: one job per WA3 job id\n"
	  "  and iteration with all its metrics; the directory also gives status, retries, classifiers and\n"
	  "  lower_is_better.\n"
	  "      --lower-is-better GLOB  the metrics whose name matches GLOB (sqlite GLOB: *, ?, [...]) are\n"
	  "                        lower is better (results.csv does not say; a result.json may say it wrong:\n"
	  "                        WA3's hackbench test_time); repeatable, for csv and wa3\n"
	  "usage: kvbench import energy FILE --job ID [-d DB] [--format csv|aep|acme|monsoon|devlib] [--units W|mW|uW]\n"
	  "                             [--rate HZ] [--channel NAME] [--cut]\n\n"
	  "  Attaches a probe recording to a stored job (streamed; any size). csv: a header naming a time column\n"
	  "  (time, time_ms/_us/_ns, timestamp...) in s unless named, values in W unless the column says name(mW);\n"
	  "  acme: iio-capture's own CSV or devlib's post-processed one. monsoon: monsoon.py's stdout; devlib:\n"
	  "  a devlib CSV without time (its monsoon and energy probe CSVs, power columns kept); both need --rate.\n"
	  "  Relative times start at the\n"
	  "  job's start; --cut keeps only samples within the job. Channels of the same name are replaced.\n" },
	{ "export", cmd_export, KVB_CMD_DB_RO, "take results out (long-format CSV, the import format; KCIDB JSON)",
	  "usage: kvbench export csv [-d DB] [--run ID]\n"
	  "       kvbench export kcidb [-d DB] [--run ID] [--origin NAME]\n"
	  "       kvbench export samples --job ID [--channel NAME] [-d DB]\n\n"
	  "  kcidb: the run (every run without --run) as a KCIDB report, schema v5.3 (KernelCI's common\n"
	  "  database; submit it with kcidb-submit): a checkout and a build per variant, a test per job\n"
	  "  (kvbench.WORKLOAD: PASS, ERROR when it failed, SKIP) and per metric of a job that measured\n"
	  "  (kvbench.WORKLOAD.METRIC: DONE with its value and unit). --origin: the CI system's name\n"
	  "  KCIDB knows you by ([a-z0-9_]+, default kvbench).\n"
	  "  samples: every stored energy sample of the job as CSV t_ns,chan_name,value,units.\n" },
	{ NULL, NULL, 0, NULL, NULL },
};

static void list_help(FILE *f)
{
	fprintf(f, "usage: kvbench <command> [options]\n\n"
		   "Is kernel B better or worse than kernel A, on this board, in performance and energy,\n"
		   "and is the difference real?\n\ncommands:\n");
	for (const struct kvb_cmd *c = kvb_commands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f, "\nworkloads:\n");
	for (size_t i = 0; kvb_workloads[i]; i++)
		fprintf(f, "  %-16s %s\n", kvb_workloads[i]->name, kvb_workloads[i]->summary);
	fprintf(f, "\ntargets (platform connection.type):\n");
	for (size_t i = 0; kvb_targets[i]; i++)
		fprintf(f, "  %-16s %s\n", kvb_targets[i]->name, kvb_targets[i]->summary);
	fprintf(f, "\nflashers (platform flash.method):\n");
	for (size_t i = 0; kvb_flashers[i]; i++)
		fprintf(f, "  %-16s %s\n", kvb_flashers[i]->name, kvb_flashers[i]->summary);
	if (kvb_instruments[0]) {
		fprintf(f, "\ninstruments (platform instruments.<name>.type):\n");
		for (size_t i = 0; kvb_instruments[i]; i++)
			fprintf(f, "  %-16s %s\n", kvb_instruments[i]->name, kvb_instruments[i]->summary);
	}
	fprintf(f, "\noutput formats (diff, show, query, report --format):\n");
	for (size_t i = 0; kvb_formats[i]; i++)
		fprintf(f, "  %-16s %s\n", kvb_formats[i]->name, kvb_formats[i]->summary);
	fprintf(f, "\nexit status:\n");
	for (int e = KVB_OK; e <= KVB_EXIT_LAST; e++)
		fprintf(f, "  %d %s\n", e, kvb_strerror((enum kvb_err)e));
	fprintf(f, "\n`kvbench help COMMAND`, `kvbench help WORKLOAD`, `kvbench help TYPE` (connection type) or\n"
		   "`kvbench help METHOD` (flash method), `kvbench help INSTRUMENT` or `kvbench help variant`\n"
		   "for details; `man kvbench` has all of them.\n");
}

/* `kvbench help TYPE|METHOD`: a connection type's and/or a flash method's keys (qemu is both).
 * Returns 1 when something was printed. */
static int help_backend(const char *what)
{
	const struct kvb_target_ops *t = kvb_target_find(what);
	const struct kvb_flasher_ops *fl = kvb_flasher_find(what);
	if (t) {
		printf("connection type %s: %s\n\nkeys (connection:, besides type):\n", t->name, t->summary);
		if (t->conn_keys)
			kvb_keys_print(stdout, t->conn_keys, "  ");
		else
			printf("  (none)\n");
		if (t->block && t->block_keys) {
			printf("\nkeys of the platform's %s: block:\n", t->block);
			kvb_keys_print(stdout, t->block_keys, "  ");
		}
	}
	if (fl) {
		printf("%sflash method %s: %s\n\nkeys (flash:, besides method):\n", t ? "\n" : "", fl->name, fl->summary);
		if (fl->keys)
			kvb_keys_print(stdout, fl->keys, "  ");
		else
			printf("  (none)\n");
	}
	return t || fl;
}

static int help(const char *what)
{
	for (const struct kvb_cmd *c = kvb_commands; c->name; c++)
		if (!strcmp(c->name, what)) {
			char *u = kvb_help_usage(c);
			printf("kvbench %s: %s\n\n%s", c->name, c->summary, u);
			free(u);
			return KVB_OK;
		}
	const struct kvb_workload_ops *w = kvb_workload_find(what);
	if (w) {
		printf("workload %s: %s\n\nparameters (params:):\n", w->name, w->summary);
		kvb_keys_print(stdout, w->params, "  ");
		kvb_help_metrics(stdout, w->metrics);
		return KVB_OK;
	}
	if (help_backend(what))
		return KVB_OK;
	if (kvb_help_topic(what, stdout) == KVB_OK)
		return KVB_OK;
	return kvb_help_unknown(what, stderr);
}

/* Sets up what the command's flags ask for, runs it, and releases it. */
static int dispatch(const struct kvb_cmd *c, int argc, char **argv)
{
	struct kvb_cli cli = { .cmd = c, .argc_given = argc, .argv_given = argv };
	int rc;
	if (c->flags & (KVB_CMD_DB_RO | KVB_CMD_DB_RW)) {
		if ((rc = kvb_cli_take_db(&cli, &argc))) {
			kvb_cli_release(&cli);
			return rc;
		}
		argv = cli.argv;
	}
	rc = c->fn(&cli, argc, argv);
	kvb_cli_release(&cli);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = KVB_EUSAGE;
	/* GSL must report, not abort: our code checks inputs first, this is the safety net. */
	gsl_set_error_handler_off();
	/* A closed stdout (`kvbench diff | head`) must be a write error we handle, not a death
	 * that leaves a run 'running' with its knobs applied. */
	signal(SIGPIPE, SIG_IGN);
	/* getopt's own "unrecognized option" would come before ours, which names the option meant */
	opterr = 0;
	if (argc < 2) {
		list_help(stderr);
		return KVB_EUSAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		list_help(stdout);
		rc = KVB_OK;
	} else if (!strcmp(argv[1], "--version")) {
		/* the versions of what it writes: scripts check them (docs/outputs.md) */
		printf("kvbench %s (commit %s)\nresults database schema %d, JSON schema_version %d\n", KVB_VERSION,
		       kvb_build_commit, kvb_store_schema_known(), KVB_JSON_SCHEMA_VERSION);
		rc = KVB_OK;
	} else if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			list_help(stdout);
			rc = KVB_OK;
		} else if (!strcmp(argv[2], "--man") || !strcmp(argv[2], "--bash-completion") ||
			   !strcmp(argv[2], "--topics")) {
			/* generated at build time (CMakeLists.txt) and installed by scripts/setup */
			if (argv[2][2] == 'm')
				kvb_help_man(stdout);
			else if (argv[2][2] == 'b')
				kvb_help_bash_completion(stdout);
			else
				kvb_help_list_topics(stdout);
			rc = KVB_OK;
		} else {
			rc = help(argv[2]);
		}
	} else {
		const struct kvb_cmd *c;
		for (c = kvb_commands; c->name; c++)
			if (!strcmp(c->name, argv[1]))
				break;
		if (!c->name) {
			const char *names[32];
			size_t n = 0;
			char dym[128];
			for (c = kvb_commands; c->name && n < 32; c++)
				names[n++] = c->name;
			fprintf(stderr, "kvbench: '%s' is not a command%s (see `kvbench --help`)\n", argv[1],
				kvb_did_you_mean(dym, sizeof(dym), argv[1], names, n));
			return KVB_EUSAGE;
		}
		/* `kvbench CMD --help` is `kvbench help CMD` */
		for (int i = 2; i < argc; i++)
			if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
				return help(c->name);
		/* the command's code says what went wrong; the exit status is its mapping (error.h) */
		rc = kvb_exit_status(dispatch(c, argc - 1, argv + 1));
	}
	if (fflush(stdout) || ferror(stdout) || fclose(stdout)) {
		/* like git: a reader that went away (`| head`) is not an error worth a message */
		if (errno == EPIPE || kvb_reader_gone(STDOUT_FILENO))
			return rc ? rc : KVB_OK;
		fprintf(stderr, "kvbench: error: writing to stdout: %s\n", strerror(errno));
		/* not a usage error: the command line was right, the output (a full disk) was lost */
		if (!rc)
			rc = KVB_EOUTPUT;
	}
	return rc;
}
