/*
 * Implements the help topics beyond commands and workloads (instruments, variant keys),
 * the topic list, and the man page and bash completion generated from the same tables
 * (`kvbench help --man`, `kvbench help --bash-completion`; CMake writes both at build time).
 */
#include "cli/help.h"
#include "cli/cli.h"
#include "config/agenda.h"
#include "config/platform.h"
#include "core/suggest.h"
#include "core/util.h"
#include "core/buf.h"
#include "instrument/instrument.h"
#include "instrument/probe.h"
#include "report/format.h"
#include "workload/workload.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Topics other than commands, each with the table its help comes from. */
static const char *const extra_topics[] = { "variant", "platform.yaml" };

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
	for (; d->name; d++)
		fprintf(f, "  %-20s %-6s %-7s %s\n", d->name, d->units, kvb_direction_word(d->lower_is_better),
			d->description);
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
			   "(WA3's `augmentations:` is the same list).\n",
			in->name, in->name);
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

/* roff text: a leading . or ' would be a request, a backslash an escape. */
static void roff(FILE *f, const char *s)
{
	int bol = 1;
	for (; *s; s++) {
		if (bol && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
		bol = *s == '\n';
	}
}

/* What a usage token stands for, from its registry; owned. */
static char *usage_token(const char *tok)
{
	struct kvb_buf b = KVB_BUF_INIT;
	if (!strcmp(tok, "@formats@"))
		return kvb_xstrdup(kvb_format_names());
	if (!strcmp(tok, "@probe-formats@"))
		return kvb_probe_format_names("|", "|");
	for (const struct kvb_probe_format *f = kvb_probe_formats; f->name; f++) /* @probe-format-help@ */
		kvb_buf_addf(&b, "    %-8s %s\n", f->name, f->summary);
	return kvb_buf_detach(&b);
}

char *kvb_help_usage(const struct kvb_cmd *c)
{
	static const char *const toks[] = { "@formats@", "@probe-formats@", "@probe-format-help@" };
	struct kvb_buf b = KVB_BUF_INIT;
	const char *s = c->usage;
	for (;;) {
		const char *at = NULL;
		size_t k = 0;
		for (size_t i = 0; i < KVB_ARRAY_SIZE(toks); i++) {
			const char *x = strstr(s, toks[i]);
			if (x && (!at || x < at)) {
				at = x;
				k = i;
			}
		}
		if (!at)
			break;
		kvb_buf_add(&b, s, (size_t)(at - s));
		char *v = usage_token(toks[k]);
		kvb_buf_addf(&b, "%s", v);
		free(v);
		s = at + strlen(toks[k]);
	}
	kvb_buf_addf(&b, "%s", s);
	return kvb_buf_detach(&b);
}

/* A text block as-is (usage texts are laid out by hand). */
static void roff_pre(FILE *f, const char *s)
{
	fputs(".nf\n", f);
	roff(f, s);
	if (*s && s[strlen(s) - 1] != '\n')
		fputc('\n', f);
	fputs(".fi\n", f);
}

/* Declared metrics as man page paragraphs: "UNITS, lower|higher|neither is better: DESCRIPTION". */
static void roff_metrics(FILE *f, const struct kvb_metric_decl *d)
{
	if (!d || !d->name)
		return;
	fputs(".PP\nMetrics:\n", f);
	for (; d->name; d++) {
		char *line = kvb_xasprintf("%s, %s is better: %s", d->units, kvb_direction_word(d->lower_is_better),
					   d->description);
		fprintf(f, ".TP\n.B %s\n", d->name);
		roff(f, line);
		fputs("\n", f);
		free(line);
	}
}

static void roff_keys(FILE *f, const struct kvb_keydef *defs)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	if (!m)
		return;
	kvb_keys_print(m, defs, "  ");
	fclose(m);
	roff_pre(f, buf);
	free(buf);
}

void kvb_help_man(FILE *f)
{
	fprintf(f, ".\\\" Generated by `kvbench help --man` from the command and key tables; do not edit.\n"
		   ".TH KVBENCH 1 \"\" \"kvbench %s\" \"User Commands\"\n.SH NAME\nkvbench \\- compare Linux kernels on a "
		   "board: performance, energy and whether the difference is real\n.SH SYNOPSIS\n.B kvbench\n"
		   "\\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n.SH DESCRIPTION\n",
		KVB_VERSION);
	roff(f, "kvbench runs a WA3-style agenda of scheduler benchmarks on a platform for each variant (a kernel, "
		"or a set of runtime knobs), stores every job in SQLite, and prints the comparison tables posted on "
		"the kernel mailing lists.\n");
	fputs(".SH COMMANDS\n", f);
	for (const struct kvb_cmd *c = kvb_commands; c->name; c++) {
		fprintf(f, ".SS %s\n", c->name);
		roff(f, c->summary);
		fputs("\n", f);
		char *u = kvb_help_usage(c);
		roff_pre(f, u);
		free(u);
	}
	fputs(".SH WORKLOADS\nParameters go under a workload entry's \\fBparams:\\fR.\n", f);
	for (size_t i = 0; kvb_workloads[i]; i++) {
		fprintf(f, ".SS %s\n", kvb_workloads[i]->name);
		roff(f, kvb_workloads[i]->summary);
		fputs("\n", f);
		roff_keys(f, kvb_workloads[i]->params);
		roff_metrics(f, kvb_workloads[i]->metrics);
	}
	fputs(".SH INSTRUMENTS\nConfigured in a platform's \\fBinstruments:\\fR mapping.\n", f);
	for (size_t i = 0; kvb_instruments[i]; i++) {
		fprintf(f, ".SS %s\n", kvb_instruments[i]->name);
		roff(f, kvb_instruments[i]->summary);
		fputs("\n", f);
		if (kvb_instruments[i]->conf_keys && kvb_instruments[i]->conf_keys->key)
			roff_keys(f, kvb_instruments[i]->conf_keys);
		roff_metrics(f, kvb_instruments[i]->metrics);
	}
	fputs(".SH VARIANTS\nAn agenda's \\fBvariants:\\fR entries and \\fB\\-V\\fR arguments take:\n", f);
	roff_keys(f, kvb_variant_keys);
	fputs(".SH ENVIRONMENT\n.TP\n.B KVB_DB\nresults database when \\fB\\-d\\fR is not given (default "
	      "\\fI./kvbench.db\\fR)\n.TP\n.B KVB_PLATFORM_PATH\ncolon-separated directories searched for platforms "
	      "before \\fI./platforms\\fR and the shipped ones\n.TP\n.B KVB_CACHE_DIR\ncache of fetched variant files\n"
	      ".SH FILES\n.TP\n.I PREFIX/share/kvbench/platforms\nthe shipped platforms (local, qemu-x86_64, hikey960, ...)\n"
	      ".TP\n.I PREFIX/share/kvbench/agendas\nthe shipped agendas, also found by name "
	      "(\\fBkvbench run quickstart-local -p local\\fR)\n"
	      ".TP\n.I PREFIX/share/kvbench/results-schema\nthe results database's migrations and the JSON outputs' "
	      "schema (kvbench-json.schema.json)\n"
	      ".TP\n.I PREFIX/share/kvbench/scripts\nqemu-board, qemu-boot, get-kernels: the QEMU board's scripts\n"
	      ".TP\n.I PREFIX/share/doc/kvbench\nthe manual: README.md and docs/ (one page a topic; "
	      "docs/design.md for the code)\n",
	      f);
	/* the exit statuses from the table `kvbench --help` prints them from (core/error.c), not typed twice */
	fputs(".SH EXIT STATUS\n", f);
	for (int e = KVB_OK; e <= KVB_EXIT_LAST; e++) {
		fprintf(f, ".TP\n.B %d\n", e);
		roff(f, kvb_strerror((enum kvb_err)e));
		fputc('\n', f);
	}
	fputs(".SH SEE ALSO\n\\fBkvbench help\\fR \\fITOPIC\\fR, and the manual in \\fIPREFIX/share/doc/kvbench\\fR\n", f);
}

/* The long and short options a usage text names ("--format", "-p"), each once, space-separated. Owned. */
static char *usage_options(const char *usage)
{
	struct kvb_strv seen = KVB_STRV_INIT;
	struct kvb_buf b = KVB_BUF_INIT;
	for (const char *s = usage; *s; s++) {
		if (*s != '-' || (s > usage && (isalnum((unsigned char)s[-1]) || s[-1] == '-')))
			continue;
		const char *e = s + 1 + (s[1] == '-');
		while (isalnum((unsigned char)*e) || *e == '-')
			e++;
		if (e - s < 2 || (s[1] == '-' && e - s < 4) || (s[1] != '-' && e - s != 2))
			continue;
		char *opt = kvb_xstrndup(s, (size_t)(e - s));
		size_t k;
		for (k = 0; k < seen.n && strcmp(seen.v[k], opt); k++)
			;
		if (k == seen.n) {
			kvb_strv_push(&seen, opt);
			kvb_buf_addf(&b, "%s%s", b.len ? " " : "", opt);
		}
		free(opt);
		s = e - 1;
	}
	kvb_strv_release(&seen);
	return kvb_buf_detach(&b);
}

/* "--format table|markdown|csv|json": an option followed by a|b|c lists its values; one case arm each. */
static void option_values(const char *usage, FILE *f)
{
	for (const char *s = strstr(usage, "--"); s; s = strstr(s + 2, "--")) {
		const char *e = s + 2, *v;
		while (isalnum((unsigned char)*e) || *e == '-')
			e++;
		if (*e != ' ' && *e != '=')
			continue;
		v = e + 1;
		size_t n = strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789_|");
		if (!n || !memchr(v, '|', n))
			continue;
		char *vals = kvb_xstrndup(v, n);
		for (char *p = vals; *p; p++)
			if (*p == '|')
				*p = ' ';
		fprintf(f, "    %.*s) COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return ;;\n", (int)(e - s), s, vals);
		free(vals);
	}
}

void kvb_help_bash_completion(FILE *f)
{
	fprintf(f, "# bash completion for kvbench, generated by `kvbench help --bash-completion` from its command\n"
		   "# table; do not edit.\n_kvbench() {\n  local cur prev cmd\n  cur=${COMP_WORDS[COMP_CWORD]}\n"
		   "  prev=${COMP_WORDS[COMP_CWORD-1]}\n  cmd=${COMP_WORDS[1]}\n  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
		   "    COMPREPLY=($(compgen -W \"help");
	for (const struct kvb_cmd *c = kvb_commands; c->name; c++)
		fprintf(f, " %s", c->name);
	fprintf(f, " --help --version\" -- \"$cur\")); return\n  fi\n  case \"$prev\" in\n"
		   "    -p|--platform) COMPREPLY=($(compgen -W \"$(kvbench platform list 2>/dev/null | cut -d' ' -f1)\" "
		   "-- \"$cur\") $(compgen -d -- \"$cur\")); return ;;\n"
		   "    -d|--db) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n  esac\n  case \"$cmd\" in\n"
		   "  help) COMPREPLY=($(compgen -W \"$(kvbench help --topics 2>/dev/null)\" -- \"$cur\")); return ;;\n");
	for (const struct kvb_cmd *c = kvb_commands; c->name; c++) {
		char *u = kvb_help_usage(c), *opts = usage_options(u);
		fprintf(f, "  %s)\n    case \"$prev\" in\n", c->name);
		option_values(u, f);
		fprintf(f, "    esac\n    if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"));"
			   " else COMPREPLY=($(compgen -f -- \"$cur\")); fi ;;\n",
			opts);
		free(opts);
		free(u);
	}
	fprintf(f, "  esac\n}\ncomplete -o filenames -F _kvbench kvbench\n");
}
