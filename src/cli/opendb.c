/* Implements the setup main does for a command from its flags: taking -d/--db, opening and closing the results database. */
#include "cli/cli.h"
#include "core/util.h"
#include "store/store.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *kvb_cli_db(const char *opt)
{
	const char *env = getenv("KVB_DB");
	return opt ? opt : (env && *env ? env : "kvbench.db");
}

/* -d PATH, -dPATH, --db PATH, --db=PATH: how many argv slots it takes (0: not -d), its value in *val. */
static int db_option(char **argv, int i, int argc, const char **val)
{
	const char *a = argv[i];
	if (!strcmp(a, "-d") || !strcmp(a, "--db")) {
		*val = i + 1 < argc ? argv[i + 1] : NULL;
		return 2;
	}
	if (!strncmp(a, "--db=", 5)) {
		*val = a + 5;
		return 1;
	}
	if (!strncmp(a, "-d", 2) && a[2]) {
		*val = a + 2;
		return 1;
	}
	return 0;
}

enum kvb_err kvb_cli_take_db(struct kvb_cli *cli, int *argc)
{
	char **in = cli->argv_given, **argv = cli->argv = kvb_xcalloc((size_t)cli->argc_given + 1, sizeof(*argv));
	int out = 1;
	argv[0] = in[0];
	*argc = cli->argc_given;
	for (int i = 1; i < *argc;) {
		const char *val = NULL;
		int n = strcmp(in[i], "--") ? db_option(in, i, *argc, &val) : 0;
		if (!strcmp(in[i], "--")) {
			/* everything after "--" is the command's operands */
			while (i < *argc)
				argv[out++] = in[i++];
			break;
		}
		if (!n) {
			argv[out++] = in[i++];
			continue;
		}
		if (!val)
			return (enum kvb_err)kvb_cli_usage(cli->cmd->name, "option '%s' needs a value", in[i]);
		cli->db_opt = val;  /* the last -d wins, as with getopt */
		i += n;
	}
	argv[out] = NULL;
	*argc = out;
	return KVB_OK;
}

enum kvb_err kvb_cli_store(struct kvb_cli *cli, struct kvb_store **st, struct kvb_error *err)
{
	const char *path = kvb_cli_db(cli->db_opt);
	unsigned flags = cli->cmd->flags;
	int rc;
	if (cli->st) {
		*st = cli->st;
		return KVB_OK;
	}
	rc = kvb_store_open(&cli->st, path, flags & KVB_CMD_DB_RW ? KVB_STORE_RW : KVB_STORE_RO, err);
	if (rc && !cli->db_opt && access(path, F_OK)) {
		/* the first `kvbench diff` after a run with -d: say where the DB is looked for */
		const char *env = getenv("KVB_DB");
		kvb_error_prefix(err, "no results database given (-d DB, or $KVB_DB%s%s%s)", env && *env ? " = " : " unset",
				 env && *env ? env : "", env && *env ? "" : "; default ./kvbench.db");
	}
	if (!rc && (flags & KVB_CMD_LOCK_RUNS))
		rc = kvb_store_lock_runs(cli->st, err);
	*st = cli->st;
	return (enum kvb_err)rc;
}

void kvb_cli_release(struct kvb_cli *cli)
{
	kvb_store_close(cli->st);
	cli->st = NULL;
	free(cli->argv);
	cli->argv = NULL;
}
