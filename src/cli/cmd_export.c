/* Implements `kvbench export csv` (a run's results as long-format CSV), `export kcidb` (KCIDB JSON) and
 * `export samples --job ID` on stdout. */
#include "cli/cli.h"
#include "core/util.h"
#include "store/csvio.h"
#include "store/energy.h"
#include "store/kcidb.h"

#include <stdio.h>
#include <string.h>

static const char *const synopsis[] = { "export csv [-d <db>] [--run <id>]",
					 "export kcidb [-d <db>] [--run <id>] [--origin <name>]",
					 "export samples --job <id> [--channel <name>] [-d <db>]", NULL };

static const struct kvb_option options[] = {
	KVB_OPT_DB(),
	KVB_OPT_VALUE('r', "run", "id", "csv, kcidb: only this run (default every run)"),
	KVB_OPT_VALUE('o', "origin", "name", "kcidb: the CI system's name KCIDB knows you by ([a-z0-9_]+,\n"
					     "default kvbench)"),
	KVB_OPT_VALUE('j', "job", "id", "samples: the job whose energy samples are written"),
	KVB_OPT_VALUE('c', "channel", "name", "samples: only this channel"),
	KVB_OPT_END(),
};

const struct kvb_cmd_usage kvb_usage_export = {
	synopsis, options,
	"csv: the long format `import csv` reads.\n"
	"kcidb: the run (every run without --run) as a KCIDB report, schema v5.3 (KernelCI's common\n"
	"database; submit it with kcidb-submit): a checkout and a build per variant, a test per job\n"
	"(kvbench.WORKLOAD: PASS, ERROR when it failed, SKIP) and per metric of a job that measured\n"
	"(kvbench.WORKLOAD.METRIC: DONE with its value and unit).\n"
	"samples: every stored energy sample of the job as CSV t_ns,chan_name,value,units.\n",
	NULL,
};

int kvb_cmd_export(struct kvb_cli *cli, int argc, char **argv)
{
	struct kvb_getopt g;
	const char *channel = NULL, *origin = "kvbench";
	int64_t job = 0;
	struct kvb_store *st = NULL;
	struct kvb_error err;
	int64_t run = 0;
	int c, rc;
	if (kvb_getopt_init(&g, "export", &kvb_usage_export, NULL))
		return KVB_EINTERNAL;
	while ((c = kvb_getopt_next(&g, argc, argv)) != -1) {
		if (c == 'r') {
			if (kvb_parse_i64(optarg, &run) || run < 1)
				return kvb_cli_usage("export", "--run '%s': expected a run id", optarg);
		} else if (c == 'j') {
			if (kvb_parse_i64(optarg, &job) || job < 1)
				return kvb_cli_usage("export", "--job '%s': expected a job id", optarg);
		} else if (c == 'c') {
			channel = optarg;
		} else if (c == 'o') {
			origin = optarg;
		} else
			return kvb_getopt_bad(&g, argv);
	}
	if (optind + 1 == argc && !strcmp(argv[optind], "samples")) {
		if (!job)
			return kvb_cli_usage("export", "export samples needs --job ID");
		if ((rc = kvb_cli_store(cli, &st, &err)) ||
		    (rc = kvb_store_samples_export_csv(st, job, channel, stdout, NULL, &err)))
			kvb_cli_fail(&err);
		return rc;
	}
	if (optind + 1 == argc && !strcmp(argv[optind], "kcidb")) {
		/* KernelCI's common database (store/kcidb.h): kcidb-submit takes it as it is */
		if ((rc = kvb_cli_store(cli, &st, &err)) || (rc = kvb_kcidb_export(st, run, origin, stdout, &err)))
			kvb_cli_fail(&err);
		return rc;
	}
	if (optind + 1 != argc || strcmp(argv[optind], "csv"))
		return kvb_cli_usage("export", "expected `export csv`, `export kcidb` or `export samples --job ID`");
	if ((rc = kvb_cli_store(cli, &st, &err)) || (rc = kvb_csv_export(st, run, stdout, &err)))
		kvb_cli_fail(&err);
	return rc;
}
