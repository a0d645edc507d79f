/* Implements kvbench's entry point: finds the command (cli/commands.c) or the help asked for, and is the only exit. */
#include "cli/cli.h"
#include "cli/help.h"
#include "core/outfile.h"
#include "core/suggest.h"
#include "core/log.h"
#include "report/format.h"
#include "store/store.h"

#include <errno.h>
#include <gsl/gsl_errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The commit this binary was built from: 12 hex digits, "-modified" when the tree had uncommitted
 * changes, or "unknown" (cmake/gen_commit.cmake writes it into the executable, not the library). */
extern const char kvb_build_commit[];

/* Sets up what the command's flags ask for, runs it, and releases it. */
static int dispatch(const struct kvb_cmd *c, int argc, char **argv)
{
	struct kvb_cli cli = { .cmd = c, .argc_given = argc, .argv_given = argv };
	int rc;
	if (c->flags & (KVB_CMD_DB_RO | KVB_CMD_DB_RW)) {
		if ((rc = kvb_cli_take_db(&cli, &argc))) {
			kvb_cli_release(&cli);
			return rc;
		}
		argv = cli.argv;
	}
	rc = c->fn(&cli, argc, argv);
	kvb_cli_release(&cli);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = KVB_EUSAGE;
	/* GSL must report, not abort: our code checks inputs first, this is the safety net. */
	gsl_set_error_handler_off();
	/* A closed stdout (`kvbench diff | head`) must be a write error we handle, not a death
	 * that leaves a run 'running' with its knobs applied. */
	signal(SIGPIPE, SIG_IGN);
	/* getopt's own "unrecognized option" would come before ours, which names the option meant */
	opterr = 0;
	/* KVB_LOG=debug shows what the backends say they did (ssh's kex, QEMU's pid and port, ...) */
	const char *lvl = getenv("KVB_LOG");
	if (lvl && *lvl) {
		int l = kvb_log_level_parse(lvl);
		if (l < 0) {
			fprintf(stderr, "kvbench: error: KVB_LOG='%s' is not a level (error, warn, info, debug)\n", lvl);
			return KVB_EUSAGE;
		}
		kvb_log_level = l;
	}
	if (argc < 2) {
		kvb_help_list(stderr);
		return KVB_EUSAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		kvb_help_list(stdout);
		rc = KVB_OK;
	} else if (!strcmp(argv[1], "--version")) {
		/* the versions of what it writes: scripts check them (docs/outputs.md) */
		printf("kvbench %s (commit %s)\nresults database schema %d, JSON schema_version %d\n", KVB_VERSION,
		       kvb_build_commit, kvb_store_schema_known(), KVB_JSON_SCHEMA_VERSION);
		rc = KVB_OK;
	} else if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			kvb_help_list(stdout);
			rc = KVB_OK;
		} else if (!strcmp(argv[2], "--man") || !strcmp(argv[2], "--bash-completion") ||
			   !strcmp(argv[2], "--topics")) {
			/* generated at build time (CMakeLists.txt) and installed by scripts/setup */
			if (argv[2][2] == 'm')
				kvb_help_man(stdout);
			else if (argv[2][2] == 'b')
				kvb_help_bash_completion(stdout);
			else
				kvb_help_list_topics(stdout);
			rc = KVB_OK;
		} else {
			rc = kvb_help(argv[2]);
		}
	} else {
		const struct kvb_cmd *c = kvb_cmd_find(argv[1]);
		if (!c) {
			const char *names[32];
			size_t n = 0;
			char dym[128];
			for (c = kvb_commands; c->name && n < 32; c++)
				names[n++] = c->name;
			fprintf(stderr, "kvbench: '%s' is not a command%s (see `kvbench --help`)\n", argv[1],
				kvb_did_you_mean(dym, sizeof(dym), argv[1], names, n));
			return KVB_EUSAGE;
		}
		/* `kvbench CMD --help` is `kvbench help CMD` */
		for (int i = 2; i < argc; i++)
			if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
				return kvb_help(c->name);
		/* the command's code says what went wrong; the exit status is its mapping (error.h) */
		rc = kvb_exit_status(dispatch(c, argc - 1, argv + 1));
	}
	if (fflush(stdout) || ferror(stdout) || fclose(stdout)) {
		/* like git: a reader that went away (`| head`) is not an error worth a message */
		if (errno == EPIPE || kvb_reader_gone(STDOUT_FILENO))
			return rc ? rc : KVB_OK;
		fprintf(stderr, "kvbench: error: writing to stdout: %s\n", strerror(errno));
		/* not a usage error: the command line was right, the output (a full disk) was lost */
		if (!rc)
			rc = KVB_EOUTPUT;
	}
	return rc;
}
