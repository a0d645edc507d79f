/* Implements the usage error for an option getopt_long refused: which one, and the option meant. */
#include "cli/cli.h"
#include "core/suggest.h"
#include "core/util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

int kvb_cli_bad_option(const char *cmd, const struct option *opts, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	struct kvb_strv names = KVB_STRV_INIT;
	char dym[160];
	int rc;
	if (optopt) {
		/* a known option without its value, or an unknown short one: a long option's val is its
		 * short letter here, so `diff -b c0` (no -b, --baseline's val is 'b') looked like the
		 * first; a short option with a word after it had its value, so it was unknown */
		int short_with_value = strncmp(arg, "--", 2) && argv[optind];
		for (const struct option *o = opts; o->name && !short_with_value; o++)
			if (o->val == optopt && o->has_arg == required_argument)
				return kvb_cli_usage(cmd, "option '%s' needs a value", arg);
		for (const struct option *o = opts; o->name; o++)
			if (o->val == optopt)
				return kvb_cli_usage(cmd, "unknown option '-%c' (did you mean '--%s'?)", optopt, o->name);
		return kvb_cli_usage(cmd, "unknown option '-%c'", optopt);
	}
	for (const struct option *o = opts; o->name; o++)
		kvb_strv_pushf(&names, "--%s", o->name);
	/* main took -d/--db out of argv for a command with a DB flag: it is still an option to suggest */
	for (const struct kvb_cmd *c = kvb_commands; c->name; c++)
		if (!strcmp(c->name, cmd) && (c->flags & (KVB_CMD_DB_RO | KVB_CMD_DB_RW)))
			kvb_strv_push(&names, "--db");
	{
		/* "--metrics=x": suggest on the name alone */
		char *name = kvb_xstrndup(arg, strcspn(arg, "="));
		rc = kvb_cli_usage(cmd, "unknown option '%s'%s", name,
				   kvb_did_you_mean(dym, sizeof(dym), name, (const char *const *)names.v, names.n));
		free(name);
	}
	kvb_strv_release(&names);
	return rc;
}
