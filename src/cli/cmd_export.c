/* Implements `kvbench export csv` (a run's results as long-format CSV), `export kcidb` (KCIDB JSON) and
 * `export samples --job ID` on stdout. */
#include "cli/cli.h"
#include "core/util.h"
#include "store/csvio.h"
#include "store/energy.h"
#include "store/kcidb.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

int cmd_export(struct kvb_cli *cli, int argc, char **argv)
{
	static const struct option opts[] = { { "run", required_argument, NULL, 'r' },
					      { "job", required_argument, NULL, 'j' },
					      { "channel", required_argument, NULL, 'c' },
					      { "origin", required_argument, NULL, 'o' },
					      { NULL, 0, NULL, 0 } };
	const char *channel = NULL, *origin = "kvbench";
	int64_t job = 0;
	struct kvb_store *st = NULL;
	struct kvb_error err;
	int64_t run = 0;
	int c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
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
			return kvb_cli_bad_option("export", opts, argv);
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
