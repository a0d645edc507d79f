/* Implements `kvbench --help` (the list of commands and registries) and `kvbench help NAME` (help.h). */
#include "cli/cli.h"
#include "cli/help.h"
#include "config/keys.h"
#include "flash/flash.h"
#include "instrument/instrument.h"
#include "report/format.h"
#include "target/target.h"
#include "workload/workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kvb_help_list(FILE *f)
{
	fprintf(f, "usage: kvbench <command> [<options>]\n\n"
		   "Is kernel B better or worse than kernel A, on this board, in performance and energy,\n"
		   "and is the difference real?\n\ncommands:\n");
	for (const struct kvb_cmd *c = kvb_commands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f, "\nworkloads:\n");
	for (size_t i = 0; kvb_workloads[i]; i++)
		fprintf(f, "  %-16s %s\n", kvb_workloads[i]->name, kvb_workloads[i]->summary);
	fprintf(f, "\ntargets (platform connection.type):\n");
	for (size_t i = 0; kvb_targets[i]; i++)
		fprintf(f, "  %-16s %s\n", kvb_targets[i]->name, kvb_targets[i]->summary);
	fprintf(f, "\nflashers (platform flash.method):\n");
	for (size_t i = 0; kvb_flashers[i]; i++)
		fprintf(f, "  %-16s %s\n", kvb_flashers[i]->name, kvb_flashers[i]->summary);
	if (kvb_instruments[0]) {
		fprintf(f, "\ninstruments (platform instruments.<name>.type):\n");
		for (size_t i = 0; kvb_instruments[i]; i++)
			fprintf(f, "  %-16s %s\n", kvb_instruments[i]->name, kvb_instruments[i]->summary);
	}
	fprintf(f, "\noutput formats (diff, show, query, report --format):\n");
	for (size_t i = 0; kvb_formats[i]; i++)
		fprintf(f, "  %-16s %s\n", kvb_formats[i]->name, kvb_formats[i]->summary);
	fprintf(f, "\nexit status:\n");
	for (int e = KVB_OK; e <= KVB_EXIT_LAST; e++)
		fprintf(f, "  %d %s\n", e, kvb_strerror((enum kvb_err)e));
	fprintf(f, "\n`kvbench help COMMAND`, `kvbench help WORKLOAD`, `kvbench help TYPE` (connection type) or\n"
		   "`kvbench help METHOD` (flash method), `kvbench help INSTRUMENT` or `kvbench help variant`\n"
		   "for details; `man kvbench` has all of them.\n");
}

/* `kvbench help TYPE|METHOD`: a connection type's and/or a flash method's keys (qemu is both).
 * Returns 1 when something was printed. */
static int help_backend(const char *what)
{
	const struct kvb_target_ops *t = kvb_target_find(what);
	const struct kvb_flasher_ops *fl = kvb_flasher_find(what);
	if (t) {
		printf("connection type %s: %s\n\nkeys (connection:, besides type):\n", t->name, t->summary);
		if (t->conn_keys)
			kvb_keys_print(stdout, t->conn_keys, "  ");
		else
			printf("  (none)\n");
		if (t->block && t->block_keys) {
			printf("\nkeys of the platform's %s: block:\n", t->block);
			kvb_keys_print(stdout, t->block_keys, "  ");
		}
	}
	if (fl) {
		printf("%sflash method %s: %s\n\nkeys (flash:, besides method):\n", t ? "\n" : "", fl->name, fl->summary);
		if (fl->keys)
			kvb_keys_print(stdout, fl->keys, "  ");
		else
			printf("  (none)\n");
	}
	return t || fl;
}

int kvb_help(const char *what)
{
	const struct kvb_cmd *c = kvb_cmd_find(what);
	if (c) {
		char *u = kvb_help_usage(c);
		printf("kvbench %s: %s\n\n%s", c->name, c->summary, u);
		free(u);
		return KVB_OK;
	}
	const struct kvb_workload_ops *w = kvb_workload_find(what);
	if (w) {
		printf("workload %s: %s\n\nparameters (params:):\n", w->name, w->summary);
		kvb_keys_print(stdout, w->params, "  ");
		kvb_help_metrics(stdout, w->metrics);
		return KVB_OK;
	}
	if (help_backend(what))
		return KVB_OK;
	if (kvb_help_topic(what, stdout) == KVB_OK)
		return KVB_OK;
	return kvb_help_unknown(what, stderr);
}

