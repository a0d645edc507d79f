/* Implements the command table: name, function, what main sets up for it, summary and usage (cli.h). */
#include "cli/cli.h"

#include <string.h>

const struct kvb_cmd kvb_commands[] = {
	{ "run", kvb_cmd_run, KVB_CMD_DB_RW | KVB_CMD_LOCK_RUNS, "run an agenda on a platform and store the results",
	  &kvb_usage_run },
	{ "bisect", kvb_cmd_bisect, KVB_CMD_DB_RW | KVB_CMD_LOCK_RUNS,
	  "find the commit that made a metric worse: git bisect driven by measured runs", &kvb_usage_bisect },
	{ "diff", kvb_cmd_diff, KVB_CMD_DB_RO, "compare variants: statistics, % diff and significance", &kvb_usage_diff },
	{ "report", kvb_cmd_report, KVB_CMD_DB_RO,
	  "write one self-contained HTML page: metadata, failures, diff tables and plots", &kvb_usage_report },
	{ "plan", kvb_cmd_plan, KVB_CMD_DB_RO, "runs per boot and boots needed, from the variance in a DB", &kvb_usage_plan },
	{ "profile", kvb_cmd_profile, KVB_CMD_DB_RO, "where the instructions go: two variants' sampling profiles by function, per operation",
	  &kvb_usage_profile },
	{ "show", kvb_cmd_show, KVB_CMD_DB_RO, "list runs, variants, jobs, metrics, witnesses or events", &kvb_usage_show },
	{ "query", kvb_cmd_query, KVB_CMD_DB_RO, "read-only SQL over the results views", &kvb_usage_query },
	{ "platform", kvb_cmd_platform, 0, "list, show, check or create platforms", &kvb_usage_platform },
	{ "agenda", kvb_cmd_agenda, 0, "validate an agenda and print its jobs", &kvb_usage_agenda },
	{ "import", kvb_cmd_import, KVB_CMD_DB_RW, "bring outside results in (long-format CSV, WA3 results)",
	  &kvb_usage_import },
	{ "export", kvb_cmd_export, KVB_CMD_DB_RO, "take results out (long-format CSV, the import format; KCIDB JSON)",
	  &kvb_usage_export },
	{ NULL, NULL, 0, NULL, NULL },
};

const struct kvb_cmd *kvb_cmd_find(const char *name)
{
	for (const struct kvb_cmd *c = kvb_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}
