/* Implements opening the results database for the commands that read it, with a hint when there is none. */
#include "cli/cli.h"
#include "store/store.h"

#include <stdlib.h>
#include <unistd.h>

int kvb_cli_open_db(struct kvb_store **st, const char *opt, int readonly, struct kvb_error *err)
{
	const char *path = kvb_cli_db(opt);
	int rc = kvb_store_open(st, path, readonly, err);
	if (rc && !opt && access(path, F_OK)) {
		/* the first `kvbench diff` after a run with -d: say where the DB is looked for */
		const char *env = getenv("KVB_DB");
		kvb_error_prefix(err, "no results database given (-d DB, or $KVB_DB%s%s%s)", env && *env ? " = " : " unset",
				 env && *env ? env : "", env && *env ? "" : "; default ./kvbench.db");
	}
	return rc;
}
