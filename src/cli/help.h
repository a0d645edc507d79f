/*
 * Help beyond `help COMMAND` and `help WORKLOAD` (issue 18): instruments and
 * the variant keys as topics, the list of every topic, "no help for X" with
 * a suggestion, and the man page and bash completion, all generated from the
 * command table (main.c) and the key tables of the registries, so they cannot
 * drift from what the code accepts.
 */
#ifndef KVB_CLI_HELP_H
#define KVB_CLI_HELP_H

#include "cli/cli.h"
#include "core/error.h"

#include <stdio.h>

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
/*
 * c's usage text with every "@formats@" replaced by the output formats' names ("table|markdown|...",
 * report/format.h's registry), as `help`, the man page and the completion show it. Owned.
 */
char *kvb_help_usage(const struct kvb_cmd *c);
/* kvbench(1) in roff. */
void kvb_help_man(FILE *f);
/* A bash completion script (commands, their options, option values listed as a|b|c in the usage, topics). */
void kvb_help_bash_completion(FILE *f);

#endif
