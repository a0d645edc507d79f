/*
 * Option tables (git's parse-options idea over glibc's getopt_long; docs/design.md#commands).
 *
 * Each command has one table of struct kvb_option rows (in its src/cli/cmd_VERB.c): long name,
 * short letter, the argument's kind and placeholder, the help line and, for an option that takes
 * one of a fixed set of values, the function that lists that set from the code that owns it. The
 * getopt_long `struct option` array and short-option string are built from the table (never typed
 * beside it), and so are `kvbench CMD --help`, the usage a bad option prints, the man page's
 * option lists and the bash completion: an option cannot be parsed and left out of its help.
 *
 * A table ends with KVB_OPT_END(). KVB_OPT_GROUP("title") rows head groups; a command whose
 * sub-commands take different options (import csv / import energy) parses one group at a time.
 */
#ifndef KVB_CLI_OPTIONS_H
#define KVB_CLI_OPTIONS_H

#include "core/util.h"

#include <getopt.h>
#include <stdio.h>

enum kvb_opt_kind {
	KVB_OPTK_END = 0,  /* ends a table */
	KVB_OPTK_GROUP,    /* a heading: the rows up to the next heading are its group */
	KVB_OPTK_FLAG,     /* no argument */
	KVB_OPTK_VALUE,    /* a required argument: --name VALUE or --name=VALUE */
	KVB_OPTK_OPTIONAL, /* an optional argument, only as --name=VALUE */
};

/* Pushes the names of a fixed value set onto out, in the order their owner keeps them. */
typedef void kvb_opt_values_fn(struct kvb_strv *out);

struct kvb_option {
	enum kvb_opt_kind kind;
	int val;                   /* what getopt_long returns for it (unique in its table) */
	int has_short;             /* 1: val is also its short spelling (-p) */
	const char *name;          /* long name without "--"; a GROUP row's title */
	const char *argh;          /* the value's placeholder without <> ("db", "name"); NULL for a flag */
	const char *help;          /* one line, more with '\n' (shown aligned); "@values@" is replaced by the
				    * value set as a|b|c (appended in parentheses when the help does not say it) */
	kvb_opt_values_fn *values; /* the fixed set the value is one of, or NULL */
};

#define KVB_OPT_VALUE(v, n, a, h) { KVB_OPTK_VALUE, v, 0, n, a, h, NULL }
#define KVB_OPT_SHORT(c, n, a, h) { KVB_OPTK_VALUE, c, 1, n, a, h, NULL }
#define KVB_OPT_CHOICE(v, n, a, fn, h) { KVB_OPTK_VALUE, v, 0, n, a, h, fn }
#define KVB_OPT_SHORT_CHOICE(c, n, a, fn, h) { KVB_OPTK_VALUE, c, 1, n, a, h, fn }
#define KVB_OPT_FLAG(v, n, h) { KVB_OPTK_FLAG, v, 0, n, NULL, h, NULL }
#define KVB_OPT_OPTARG(v, n, a, h) { KVB_OPTK_OPTIONAL, v, 0, n, a, h, NULL }
#define KVB_OPT_GROUP(t) { KVB_OPTK_GROUP, 0, 0, t, NULL, NULL, NULL }
#define KVB_OPT_END() { KVB_OPTK_END, 0, 0, NULL, NULL, NULL, NULL }
/* -d/--db: main takes it out of argv for a command flagged KVB_CMD_DB_* (cli.h); its row is for help. */
#define KVB_OPT_DB() KVB_OPT_SHORT('d', "db", "db", "the results database (default $KVB_DB, else ./kvbench.db)")

/* The most rows a table (one group and its common rows) may give getopt; tests/unit/test_cli_options.c checks. */
#define KVB_OPT_MAX 40

/* What a command's help is made of; each cmd_VERB.c defines one (cli.h lists them). */
struct kvb_cmd_usage {
	const char *const *synopsis;      /* NULL-terminated; each line follows "kvbench " */
	const struct kvb_option *options; /* the command's table, or NULL (no options) */
	const char *text;                 /* what rows cannot say (operands, how it decides, exits), or NULL */
	/* text made from a registry, printed after text (owned by the caller: free()), or NULL: lists
	 * that must not be typed a second time (import's probe formats) */
	char *(*text_from_registry)(void);
};

/* u's text then its registry text (owned: free()), or NULL when it has neither. */
char *kvb_usage_text(const struct kvb_cmd_usage *u);

/* getopt_long's inputs built from a table (no allocation: lives on the caller's stack). */
struct kvb_getopt {
	const char *cmd;                  /* "diff": the usage error names it */
	const struct kvb_cmd_usage *usage;
	const char *group;                /* the group parsed, or NULL for every row */
	struct option longopts[KVB_OPT_MAX + 1];
	char shortopts[3 * KVB_OPT_MAX + 2];
};

/*
 * Builds g for command cmd from u->options: the rows before the first heading and, when group is
 * not NULL, those under the heading titled group (NULL: every row). Resets optind. Returns KVB_OK,
 * or KVB_EINTERNAL when the table holds more than KVB_OPT_MAX rows or no such group (a bug the unit
 * test catches).
 */
int kvb_getopt_init(struct kvb_getopt *g, const char *cmd, const struct kvb_cmd_usage *u, const char *group);
/* getopt_long over g's table: a row's val, -1 after the last option, '?' for a bad one. */
int kvb_getopt_next(struct kvb_getopt *g, int argc, char **argv);
/*
 * After kvb_getopt_next returned '?' (main sets opterr = 0): "kvbench CMD: unknown option
 * '--metrics' (did you mean '--metric'?)" or "option '--db' needs a value", then the command's
 * usage (synopsis and options) on stderr. Returns KVB_EUSAGE.
 */
int kvb_getopt_bad(const struct kvb_getopt *g, char **argv);
/* A value not in option val's set: "--stat 'x': expected mean, median, max, min or p95" (usage error). */
int kvb_getopt_bad_value(const struct kvb_getopt *g, int val, const char *value);

/* The row of table whose getopt val is val, or NULL. */
const struct kvb_option *kvb_option_find(const struct kvb_option *table, int val);
/* o's value set as names joined by sep ("|" or ", "), the last by last (NULL: sep). Owned. */
char *kvb_option_values(const struct kvb_option *o, const char *sep, const char *last);

/* "usage: kvbench diff [<options>]\n   or: ...\n\n" then the option rows, aligned as git does. */
void kvb_usage_print_options(FILE *f, const struct kvb_cmd_usage *u);
/* The first part of an option's line: "-d, --db <db>", "--quiet-host[=<dur>]". Owned. */
char *kvb_option_spelling(const struct kvb_option *o);
/* o's help with "@values@" filled in (or the values appended). Owned. */
char *kvb_option_help(const struct kvb_option *o);

/* The value sets that owners keep (cli/option_values.c adapts each registry to kvb_opt_values_fn). */
kvb_opt_values_fn kvb_values_formats;       /* report/format.h kvb_formats[] */
kvb_opt_values_fn kvb_values_stats;         /* results/cell_stats.h kvb_stat_names[] */
kvb_opt_values_fn kvb_values_layouts;       /* report/diff.h kvb_layout_names[] */
kvb_opt_values_fn kvb_values_probe_formats; /* instrument/probe.h kvb_probe_formats[] */

#endif
