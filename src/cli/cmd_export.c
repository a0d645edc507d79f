/* Implements `kvbench export csv`: a run's results as long-format CSV on stdout. */
#include "cli/cli.h"
#include "core/util.h"
#include "store/csvio.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = { { "db", required_argument, NULL, 'd' },
					      { "run", required_argument, NULL, 'r' },
					      { NULL, 0, NULL, 0 } };
	const char *db = NULL;
	struct kvb_store *st = NULL;
	struct kvb_error err;
	int64_t run = 0;
	int c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:", opts, NULL)) != -1) {
		if (c == 'd')
			db = optarg;
		else if (c == 'r') {
			if (kvb_parse_i64(optarg, &run) || run < 1)
				return kvb_cli_usage("export", "--run '%s': expected a run id", optarg);
		} else
			return kvb_cli_usage("export", "unknown option");
	}
	if (optind + 1 != argc || strcmp(argv[optind], "csv"))
		return kvb_cli_usage("export", "expected `export csv`");
	if ((rc = kvb_store_open(&st, kvb_cli_db(db), 1, &err)) || (rc = kvb_csv_export(st, run, stdout, &err)))
		kvb_cli_fail(&err);
	kvb_store_close(st);
	return rc;
}
