/*
 * Command-line layer: one cmd_<verb>() per command, registered in the
 * kvb_commands[] table (cli/commands.c); its usage is made from its option
 * table (cli/options.h) for `kvbench help <command>`, `kvbench <command> -h`,
 * the man page and the completion. Commands return an enum kvb_err (the exit status);
 * only main() exits. Results go to stdout, diagnostics to stderr.
 */
#ifndef KVB_CLI_H
#define KVB_CLI_H

#include "cli/options.h"
#include "core/error.h"

struct kvb_store;

/*
 * What main sets up for a command, from its flags (git's RUN_SETUP idea):
 * KVB_CMD_DB_RO / KVB_CMD_DB_RW: main takes -d/--db PATH (and -dPATH,
 * --db=PATH) out of argv before the command parses its own options, and the
 * command gets its store from kvb_cli_store(), read-only or read-write as the
 * flag says; KVB_CMD_LOCK_RUNS (with DB_RW): the store also holds the runs
 * lock (one `run`/`bisect` per DB). The store is opened on the command's first
 * kvb_cli_store() call, after it has checked its options (a usage error never
 * needs a DB), and main closes it after the command returns.
 */
enum kvb_cmd_flags {
	KVB_CMD_DB_RO = 1 << 0,
	KVB_CMD_DB_RW = 1 << 1,
	KVB_CMD_LOCK_RUNS = 1 << 2,
};

/* One command's setup state; owned by main, passed to the command. */
struct kvb_cli {
	const struct kvb_cmd *cmd;
	const char *db_opt;    /* -d/--db value, NULL when not given (then $KVB_DB or ./kvbench.db) */
	struct kvb_store *st;  /* NULL until kvb_cli_store(); closed by kvb_cli_release() */
	int argc_given;        /* the command's words as typed (with -d), for a run's stored command line */
	char **argv_given;
	char **argv;           /* argv_given without -d (owned, NULL-terminated); what the command parses */
};

struct kvb_cmd {
	const char *name;
	int (*fn)(struct kvb_cli *cli, int argc, char **argv);
	unsigned flags;     /* enum kvb_cmd_flags */
	const char *summary;
	const struct kvb_cmd_usage *usage;  /* synopsis, option table and text (cmd_NAME.c) */
};

/* Every command, in the order `kvbench --help` lists them; ends with a NULL name. */
extern const struct kvb_cmd kvb_commands[];
/* The command called name, or NULL. */
const struct kvb_cmd *kvb_cmd_find(const char *name);

int kvb_cmd_run(struct kvb_cli *cli, int argc, char **argv);
int kvb_cmd_diff(struct kvb_cli *cli, int argc, char **argv);
int kvb_cmd_bisect(struct kvb_cli *cli, int argc, char **argv);
int kvb_cmd_show(struct kvb_cli *cli, int argc, char **argv);
int kvb_cmd_query(struct kvb_cli *cli, int argc, char **argv);
int kvb_cmd_platform(struct kvb_cli *cli, int argc, char **argv);
int kvb_cmd_agenda(struct kvb_cli *cli, int argc, char **argv);
int kvb_cmd_import(struct kvb_cli *cli, int argc, char **argv);
int kvb_cmd_export(struct kvb_cli *cli, int argc, char **argv);
int kvb_cmd_report(struct kvb_cli *cli, int argc, char **argv);
int kvb_cmd_plan(struct kvb_cli *cli, int argc, char **argv);
int kvb_cmd_profile(struct kvb_cli *cli, int argc, char **argv);

/* Each command's usage, beside its parser in cmd_NAME.c (run's in run_opts.c). */
extern const struct kvb_cmd_usage kvb_usage_run, kvb_usage_bisect, kvb_usage_diff, kvb_usage_report, kvb_usage_plan,
	kvb_usage_show, kvb_usage_query, kvb_usage_platform, kvb_usage_agenda, kvb_usage_import, kvb_usage_export,
	kvb_usage_profile;

/* The results DB path: -d value, else $KVB_DB, else ./kvbench.db. */
const char *kvb_cli_db(const char *opt);
/*
 * Sets cli->argv to cli->argv_given without -d/--db (up to a "--"), whose value goes to
 * cli->db_opt, for a command flagged KVB_CMD_DB_*; *argc is cli->argv's length. Returns
 * KVB_EUSAGE (message printed) when -d has no value.
 */
enum kvb_err kvb_cli_take_db(struct kvb_cli *cli, int *argc);
/*
 * The command's store (*st borrowed, main closes it), opened on first use as its
 * flags ask: read-only or read-write, with the runs lock. When no -d was given
 * and the file is not there, the message says how to name one.
 */
enum kvb_err kvb_cli_store(struct kvb_cli *cli, struct kvb_store **st, struct kvb_error *err);
/* Closes what kvb_cli_store() opened and frees cli->argv. */
void kvb_cli_release(struct kvb_cli *cli);
/* Prints "kvbench: error: msg" and returns code. */
int kvb_cli_fail(const struct kvb_error *err);
/* Usage error for a command: prints the message and a pointer to `kvbench help NAME`. */
int kvb_cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
