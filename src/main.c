/* Implements kvbench's entry point: the command table, help, and the only exit. */
#include "cli/cli.h"
#include "core/log.h"
#include "flash/flash.h"
#include "instrument/instrument.h"
#include "target/target.h"
#include "workload/workload.h"

#include <errno.h>
#include <gsl/gsl_errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct kvb_cmd kvb_commands[] = {
	{ "run", cmd_run, "run an agenda on a platform and store the results",
	  "usage: kvbench run AGENDA -p PLATFORM [-V NAME=KERNEL[,cmdline=..,dtb=..,initrd=..,sha256=..]]...\n"
	  "                   [-d DB] [--rounds N] [--dry-run] [--no-diff]\n"
	  "       kvbench run --resume [RUN] [-d DB]\n\n"
	  "  -p, --platform NAME   platform name or path to platform.yaml\n"
	  "  -V, --variant SPEC    add a variant (repeatable); overrides an agenda variant of that name\n"
	  "  -d, --db PATH         results database (default $KVB_DB or ./kvbench.db)\n"
	  "      --rounds N        split iterations into N rounds run A B A B (each round is a boot)\n"
	  "      --resume [RUN]    continue an interrupted run (default: the latest)\n"
	  "      --dry-run         print the plan and exit\n"
	  "      --no-diff         do not print the diff table at the end\n"
	  "      --max-jobs N      stop after N jobs as if interrupted (for testing resume)\n"
	  "      --allow-unverified  accept artifact URLs that come without a sha256\n"
	  "      --series A..B     one variant per commit A, then A..B (built from git; DESIGN.md 10)\n"
	  "      --series-file F   the same from a file with one revision a line\n"
	  "      --repo DIR        repository of --series and of git variants without repo:\n"
	  "      --allow-dirty     build although the repository has uncommitted changes\n" },
	{ "bisect", cmd_bisect, "find the commit that made a metric worse: git bisect driven by measured runs",
	  "usage: kvbench bisect AGENDA -p PLATFORM --repo DIR --good REV --bad REV --metric WORKLOAD/METRIC\n"
	  "                      [--threshold PCT] [--rounds N] [--max-rounds N] [-d DB] [--allow-dirty]\n"
	  "       kvbench bisect --resume [ID] [-d DB]\n\n"
	  "  Measures good and bad (bad must be worse by >= --threshold %, default 5), then lets\n"
	  "  git bisect pick commits; each is built (the agenda's build: block), booted and measured\n"
	  "  (a stored run) and judged against both endpoints with the boot-aware verdict: good,\n"
	  "  bad, skip (build/flash/boot/identity failed) or abort (board unusable). An undecided\n"
	  "  step gets more rounds up to --max-rounds boots (default 6). The end prints the first\n"
	  "  bad commit, its change against good and the steps; `git bisect log` is stored.\n"
	  "  The repository is left as it was (git bisect reset), also after Ctrl-C; --resume goes on.\n" },
	{ "diff", cmd_diff, "compare variants: statistics, % diff and significance",
	  "usage: kvbench diff [-d DB] [--run ID]... [--baseline VARIANT] [--by KEY] [--metric GLOB]\n"
	  "                    [--workload NAME] [--stat mean|median|max|min|p95] [--alpha A]\n"
	  "                    [--format table|markdown|csv|json] [--layout long|wide]\n\n"
	  "  Columns: n values, boots they came from, the statistic (--stat), stdev (n-1), CoV,\n"
	  "  perc_diff = (variant - baseline) / baseline x 100 (raw sign: read it with lower_is_better),\n"
	  "  p and verdict. With >= 2 boots per variant, p is Welch's on the boot means and a change is\n"
	  "  significant (*) when that p < alpha AND the hierarchical-bootstrap 95% CI of the ratio\n"
	  "  excludes 1. With one boot, p is the larger of Welch's and Mann-Whitney's (both must be\n"
	  "  < alpha); \"(1 boot)\" marks it when the variants ran in different boots. verdict: better /\n"
	  "  worse (significant, from lower_is_better), ~ (no significant change).\n"
	  "  --by KEY spreads a classifier into columns (cgroup_depth -> root, level1, ...).\n"
	  "  --format json carries every statistic, p-value, CI and the raw values.\n" },
	{ "show", cmd_show, "list runs, variants, jobs or metrics",
	  "usage: kvbench show runs|variants|jobs|metrics|events [-d DB] [--run ID] [--status S] [--format F]\n\n"
	  "  --status S   jobs/variants/runs with this status (ok, failed, skipped, instrument-failed, ...)\n" },
	{ "query", cmd_query, "read-only SQL over the results views",
	  "usage: kvbench query [-d DB] \"SQL\"\n\n"
	  "  Views: results (one row per metric, classifiers as JSON), jobs, comparison.\n"
	  "  The database is opened read-only: statements that write are refused.\n" },
	{ "platform", cmd_platform, "list, show, check or create platforms",
	  "usage: kvbench platform list\n"
	  "       kvbench platform show NAME\n"
	  "       kvbench platform check NAME\n"
	  "       kvbench platform new NAME --from BASE [--dir DIR]\n" },
	{ "agenda", cmd_agenda, "validate an agenda and print its jobs",
	  "usage: kvbench agenda check FILE [-p PLATFORM] [--rounds N]\n\n"
	  "  -p, --platform NAME   plan as `run -p NAME` would (its default rounds)\n"
	  "      --rounds N        plan with N rounds\n" },
	{ "import", cmd_import, "bring outside results in (long-format CSV)",
	  "usage: kvbench import csv FILE [-d DB]\n\n"
	  "  Columns: variant, workload, metric, value [, units, lower_is_better, iteration, boot|round, section];\n"
	  "  any other column is a classifier. Bad rows are reported with their line; nothing is imported then.\n"
	  "usage: kvbench import energy FILE --job ID [-d DB] [--format csv|aep|acme|monsoon] [--units W|mW|uW]\n"
	  "                             [--rate HZ] [--channel NAME] [--cut]\n\n"
	  "  Attaches a probe recording to a stored job (streamed; any size). csv: `time,CHAN,...` header, time in s\n"
	  "  (time_ms/_us/_ns suffixes), values in W unless the column says name(mW). Relative times start at the\n"
	  "  job's start; --cut keeps only samples within the job. Channels of the same name are replaced.\n" },
	{ "export", cmd_export, "take results out (long-format CSV, the import format)",
	  "usage: kvbench export csv [-d DB] [--run ID]\n"
	  "       kvbench export samples --job ID [--channel NAME] [-d DB]\n\n"
	  "  samples: every stored energy sample of the job as CSV t_ns,chan_name,value,units.\n" },
	{ NULL, NULL, NULL, NULL },
};

const char *kvb_cli_db(const char *opt)
{
	const char *env = getenv("KVB_DB");
	return opt ? opt : (env && *env ? env : "kvbench.db");
}

int kvb_cli_fail(const struct kvb_error *err)
{
	fprintf(stderr, "kvbench: error: %s\n", err->msg);
	return err->code ? err->code : 1;
}

int kvb_cli_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "kvbench %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see `kvbench help %s`)\n", cmd);
	return KVB_EUSAGE;
}

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
	fprintf(f, "\nexit status: 0 ok, 1 run had failed jobs, 2 usage, 3 bad input file,\n"
		   "             4 target/connection, 5 results database\n"
		   "\n`kvbench help COMMAND` or `kvbench help WORKLOAD` for details.\n");
}

static int help(const char *what)
{
	for (const struct kvb_cmd *c = kvb_commands; c->name; c++)
		if (!strcmp(c->name, what)) {
			printf("kvbench %s: %s\n\n%s", c->name, c->summary, c->usage);
			return KVB_OK;
		}
	const struct kvb_workload_ops *w = kvb_workload_find(what);
	if (w) {
		printf("workload %s: %s\n\nparameters (params:):\n", w->name, w->summary);
		kvb_keys_print(stdout, w->params, "  ");
		return KVB_OK;
	}
	fprintf(stderr, "kvbench: no help for '%s'\n", what);
	return KVB_EUSAGE;
}

int main(int argc, char **argv)
{
	int rc = KVB_EUSAGE;
	/* GSL must report, not abort: our code checks inputs first, this is the safety net. */
	gsl_set_error_handler_off();
	/* A closed stdout (`kvbench diff | head`) must be a write error we handle, not a death
	 * that leaves a run 'running' with its knobs applied. */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		list_help(stderr);
		return KVB_EUSAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		list_help(stdout);
		rc = KVB_OK;
	} else if (!strcmp(argv[1], "--version")) {
		printf("kvbench %s\n", KVB_VERSION);
		rc = KVB_OK;
	} else if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			list_help(stdout);
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
			fprintf(stderr, "kvbench: '%s' is not a command (see `kvbench --help`)\n", argv[1]);
			return KVB_EUSAGE;
		}
		/* `kvbench CMD --help` is `kvbench help CMD` */
		for (int i = 2; i < argc; i++)
			if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
				return help(c->name);
		rc = c->fn(argc - 1, argv + 1);
	}
	if (fflush(stdout) || ferror(stdout) || fclose(stdout)) {
		/* like git: a reader that went away (`| head`) is not an error worth a message */
		if (errno == EPIPE)
			return rc ? rc : KVB_OK;
		fprintf(stderr, "kvbench: error: writing to stdout: %s\n", strerror(errno));
		if (!rc)
			rc = KVB_EUSAGE;
	}
	return rc;
}
