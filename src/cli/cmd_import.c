/* Implements `kvbench import csv FILE`: long-format results from other tools or posts into a new run. */
#include "cli/cli.h"
#include "store/csvio.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

int cmd_import(int argc, char **argv)
{
	static const struct option opts[] = { { "db", required_argument, NULL, 'd' }, { NULL, 0, NULL, 0 } };
	const char *db = NULL;
	struct kvb_store *st = NULL;
	struct kvb_error err;
	int64_t run = 0;
	int c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:", opts, NULL)) != -1) {
		if (c == 'd')
			db = optarg;
		else
			return kvb_cli_usage("import", "unknown option");
	}
	if (optind + 2 != argc || strcmp(argv[optind], "csv"))
		return kvb_cli_usage("import", "expected `import csv FILE`");
	if ((rc = kvb_store_open(&st, kvb_cli_db(db), 0, &err)) ||
	    (rc = kvb_csv_import(st, argv[optind + 1], &run, &err)))
		kvb_cli_fail(&err);
	else
		printf("imported %s as run %lld\n", argv[optind + 1], (long long)run);
	kvb_store_close(st);
	return rc;
}
