/* Implements the help topics beyond commands and workloads (instruments, variant keys), the topic list
 * and a command's usage from its option table (help.h). */
#include "cli/help.h"
#include "cli/cli.h"
#include "config/agenda.h"
#include "config/platform.h"
#include "core/suggest.h"
#include "core/util.h"
#include "core/buf.h"
#include "instrument/instrument.h"
#include "report/format.h"
#include "workload/workload.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Topics other than commands, each with the table its help comes from. */
static const char *const extra_topics[] = { "variant", "agenda.yaml", "platform.yaml" };

/* Every topic name, in the order `kvbench help` lists them. */
static void topics(struct kvb_strv *out)
{
	for (const struct kvb_cmd *c = kvb_commands; c->name; c++)
		kvb_strv_push(out, c->name);
	for (size_t i = 0; kvb_workloads[i]; i++)
		kvb_strv_push(out, kvb_workloads[i]->name);
	for (size_t i = 0; kvb_instruments[i]; i++)
		kvb_strv_push(out, kvb_instruments[i]->name);
	for (size_t i = 0; i < KVB_ARRAY_SIZE(extra_topics); i++)
		kvb_strv_push(out, extra_topics[i]);
}

void kvb_help_list_topics(FILE *f)
{
	struct kvb_strv t = KVB_STRV_INIT;
	topics(&t);
	for (size_t i = 0; i < t.n; i++)
		fprintf(f, "%s\n", t.v[i]);
	kvb_strv_release(&t);
}

void kvb_help_metrics(FILE *f, const struct kvb_metric_decl *d)
{
	if (!d || !d->name)
		return;
	fprintf(f, "\nmetrics (units, lower or higher is better; neither: no better or worse, a real change is "
		   "\"changed\"):\n");
	for (; d->name; d++) {
		fprintf(f, "  %-20s %-6s %-7s %s", d->name, d->units, kvb_direction_word(d->lower_is_better),
			d->description);
		if (d->resolution > 0) /* why a small change of it stays undecided (results/cell_stats.c) */
			fprintf(f, " (printed in %g %s steps%s%s)", d->resolution, d->units, d->finer ? "; finer: " : "",
				d->finer ? d->finer : "");
		fputc('\n', f);
	}
}

enum kvb_err kvb_help_topic(const char *what, FILE *f)
{
	const struct kvb_instrument_ops *in = kvb_instrument_find(what);
	if (in) {
		fprintf(f, "instrument %s: %s\n\nkeys (platform.yaml instruments.NAME: {type: %s, ...}):\n", in->name,
			in->summary, in->name);
		if (in->conf_keys && in->conf_keys->key)
			kvb_keys_print(f, in->conf_keys, "  ");
		else
			fprintf(f, "  (none besides type)\n");
		fprintf(f, "\nAn agenda turns it on or off with `instruments: [%s]` or `[~%s]` under config:\n"
			   "(WA3's `augmentations:` is the same list), and sets its keys for the run with\n"
			   "`%s: {KEY: VALUE}` under config: (over the platform's, for every instance of the type).\n",
			in->name, in->name, in->name);
		kvb_help_metrics(f, in->metrics);
		return KVB_OK;
	}
	if (!strcmp(what, "platform.yaml") || !strcmp(what, "platform-file")) {
		fprintf(f, "platform.yaml: one board kind (`kvbench platform check NAME` checks a file against these "
			   "tables)\n\n");
		kvb_platform_keys_print(f);
		fprintf(f, "\n`kvbench help TYPE` lists a connection type's keys, `kvbench help METHOD` a flash "
			   "method's,\n`kvbench help INSTRUMENT` an instrument type's.\n");
		return KVB_OK;
	}
	if (!strcmp(what, "agenda.yaml") || !strcmp(what, "agenda-file")) {
		fprintf(f, "agenda.yaml: what to run, WA3's agenda format (`kvbench agenda check FILE` checks a file "
			   "against these tables)\n\n");
		kvb_agenda_keys_print(f);
		fprintf(f, "\n`kvbench help WORKLOAD` lists a workload's params, `kvbench help variant` the variant "
			   "keys,\n`kvbench help INSTRUMENT` an instrument's; docs/agendas.md and docs/field-files.md "
			   "(WA3 spellings).\n");
		return KVB_OK;
	}
	if (!strcmp(what, "variant") || !strcmp(what, "variants")) {
		fprintf(f, "variant: a kernel under test (agenda `variants:` entries, or -V NAME=KERNEL[,key=value...])\n\n"
			   "keys:\n");
		kvb_keys_print(f, kvb_variant_keys, "  ");
		fprintf(f, "\nAny runtime knob (cpus, cgroup_depth, sysctl, sysfs, governor) may be given too: a\n"
			   "variant's knobs win over the agenda's.\n");
		return KVB_OK;
	}
	return KVB_EUSAGE;
}

int kvb_help_unknown(const char *what, FILE *f)
{
	struct kvb_strv t = KVB_STRV_INIT;
	char dym[160];
	topics(&t);
	fprintf(f, "kvbench: no help for '%s'%s\ntopics:", what,
		kvb_did_you_mean(dym, sizeof(dym), what, (const char *const *)t.v, t.n));
	for (size_t i = 0; i < t.n; i++)
		fprintf(f, "%s%s", i % 8 ? " " : "\n  ", t.v[i]);
	fprintf(f, "\n");
	kvb_strv_release(&t);
	return KVB_EUSAGE;
}

char *kvb_help_usage(const struct kvb_cmd *c)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	if (!m)
		return kvb_xstrdup("");
	char *text = kvb_usage_text(c->usage);
	kvb_usage_print_options(m, c->usage);
	if (text)
		fprintf(m, "\n%s", text);
	free(text);
	fclose(m);
	return buf;
}
