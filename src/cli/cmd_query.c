/* Implements `kvbench query`: one read-only SQL statement over the results views. */
#include "cli/cli.h"
#include "report/format.h"
#include "report/sqltable.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

int cmd_query(struct kvb_cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	const char *format = "table";
	struct kvb_store *st = NULL;
	struct kvb_error err;
	size_t rows;
	int c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:", opts, NULL)) != -1) {
		if (c == 'f')
			format = optarg;
		else
			return kvb_cli_bad_option("query", opts, argv);
	}
	if (optind != argc - 1)
		return kvb_cli_usage("query", "expected exactly one SQL statement");
	if (!kvb_format_find(format, &err))
		return kvb_cli_usage("query", "%s", err.msg);
	if ((rc = kvb_cli_store(cli, &st, &err)) ||
	    (rc = kvb_sql_print(st, argv[optind], -1, format, stdout, &rows, &err)))
		kvb_cli_fail(&err);
	return rc;
}
