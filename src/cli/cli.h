/*
 * Command-line layer: one cmd_<verb>() per command, registered in the
 * commands[] table of main.c, which also prints `kvbench --help` and
 * `kvbench help <command>`. Commands return an enum kvb_err (the exit status);
 * only main() exits. Results go to stdout, diagnostics to stderr.
 */
#ifndef KVB_CLI_H
#define KVB_CLI_H

#include "core/error.h"

struct kvb_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	const char *usage;  /* full option text for `kvbench help NAME` */
};

extern const struct kvb_cmd kvb_commands[];

int cmd_run(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_platform(int argc, char **argv);
int cmd_agenda(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_plan(int argc, char **argv);

/* The results DB path: -d value, else $KVB_DB, else ./kvbench.db. */
const char *kvb_cli_db(const char *opt);
struct kvb_store;
/* kvb_store_open(kvb_cli_db(opt)); when no -d was given and the file is not there, the message says how to name one. */
int kvb_cli_open_db(struct kvb_store **st, const char *opt, int readonly, struct kvb_error *err);
struct option;
/* After getopt_long returned '?' (main sets opterr = 0): "unknown option '--metrics' (did you mean
 * '--metric'?)" or "option '--db' needs a value", as a usage error (KVB_EUSAGE). */
int kvb_cli_bad_option(const char *cmd, const struct option *opts, char **argv);
/* Prints "kvbench: error: msg" and returns code. */
int kvb_cli_fail(const struct kvb_error *err);
/* Usage error for a command: prints the message and a pointer to `kvbench help NAME`. */
int kvb_cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
