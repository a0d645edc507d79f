/* Implements `kvbench query`: one read-only SQL statement over the results views. */
#include "cli/cli.h"
#include "report/format.h"
#include "report/sqltable.h"

#include <stdio.h>
#include <string.h>

static const char *const synopsis[] = { "query [<options>] \"SQL\"", NULL };

static const struct kvb_option options[] = {
	KVB_OPT_DB(),
	KVB_OPT_SHORT_CHOICE('f', "format", "format", kvb_values_formats, "output format: @values@ (default table)"),
	KVB_OPT_END(),
};

const struct kvb_cmd_usage kvb_usage_query = {
	synopsis, options,
	"Views: results (one row per metric, classifiers as JSON), jobs, comparison, witnesses.\n"
	"The database is opened read-only: statements that write are refused.\n",
	NULL,
};

int kvb_cmd_query(struct kvb_cli *cli, int argc, char **argv)
{
	struct kvb_getopt g;
	const char *format = "table";
	struct kvb_store *st = NULL;
	struct kvb_error err;
	size_t rows;
	int c, rc;
	if (kvb_getopt_init(&g, "query", &kvb_usage_query, NULL))
		return KVB_EINTERNAL;
	while ((c = kvb_getopt_next(&g, argc, argv)) != -1) {
		if (c == 'f')
			format = optarg;
		else
			return kvb_getopt_bad(&g, argv);
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
