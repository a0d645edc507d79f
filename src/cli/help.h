/*
 * Help beyond `help COMMAND` and `help WORKLOAD` (issue 18): instruments and
 * the variant keys as topics, the list of every topic, "no help for X" with
 * a suggestion, and the man page and bash completion, all generated from the
 * command table and option tables (cli/commands.c, cli/options.h) and the key tables of the registries, so they cannot
 * drift from what the code accepts.
 */
#ifndef KVB_CLI_HELP_H
#define KVB_CLI_HELP_H

#include "cli/cli.h"
#include "core/error.h"

#include <stdio.h>

/* `kvbench --help`: usage, the commands, every registry (workloads, targets, flashers, instruments,
 * formats) and the exit statuses. */
void kvb_help_list(FILE *f);
/* `kvbench help NAME` on stdout: a command, workload, connection type, flash method or topic; KVB_OK, or
 * KVB_EUSAGE ("no help for", on stderr). */
int kvb_help(const char *what);
/* Help for an instrument type or "variant"; KVB_OK, or KVB_EUSAGE when what is no such topic. */
enum kvb_err kvb_help_topic(const char *what, FILE *f);
/* A workload's or instrument's declared metrics (NULL or empty: nothing), for `help NAME`: a heading, then
 * one line each: name, units, lower|higher|neither (is better), description. */
struct kvb_metric_decl;
void kvb_help_metrics(FILE *f, const struct kvb_metric_decl *d);
/* One topic name per line (commands, workloads, instruments, variant): for completion. */
void kvb_help_list_topics(FILE *f);
/* "no help for 'x' (did you mean 'y'?)" and every topic; returns KVB_EUSAGE. */
int kvb_help_unknown(const char *what, FILE *f);
/* c's usage made from its option table (options.h) and its text, as `help CMD` shows it. Owned. */
char *kvb_help_usage(const struct kvb_cmd *c);
/* kvbench(1) in roff. */
void kvb_help_man(FILE *f);
/* A bash completion script (commands, their options, option values listed as a|b|c in the usage, topics). */
void kvb_help_bash_completion(FILE *f);

#endif
