/* Implements a command's usage made from its option table, laid out as git's parse-options does (options.h). */
#include "cli/options.h"
#include "core/buf.h"

#include <stdlib.h>
#include <string.h>

/* git's parse-options.c: the help column starts at 4 + this, or on the next line when the spelling is longer. */
#define USAGE_OPTS_WIDTH 24
#define USAGE_GAP 2

char *kvb_option_spelling(const struct kvb_option *o)
{
	struct kvb_buf b = KVB_BUF_INIT;
	if (o->has_short)
		kvb_buf_addf(&b, "-%c, ", o->val);
	kvb_buf_addf(&b, "--%s", o->name);
	if (o->kind == KVB_OPTK_VALUE)
		kvb_buf_addf(&b, " <%s>", o->argh);
	else if (o->kind == KVB_OPTK_OPTIONAL)
		kvb_buf_addf(&b, "[=<%s>]", o->argh);
	return kvb_buf_detach(&b);
}

char *kvb_option_help(const struct kvb_option *o)
{
	static const char tok[] = "@values@";
	const char *at = o->help ? strstr(o->help, tok) : NULL;
	char *set;
	if (!o->values)
		return kvb_xstrdup(o->help ? o->help : "");
	set = kvb_option_values(o, "|", NULL);
	char *s = at ? kvb_xasprintf("%.*s%s%s", (int)(at - o->help), o->help, set, at + strlen(tok))
		     : kvb_xasprintf("%s (%s)", o->help ? o->help : "", set);
	free(set);
	return s;
}

/* One row: its spelling, then the help aligned at the help column, its lines under each other. */
static void print_row(FILE *f, const struct kvb_option *o)
{
	char *sp = kvb_option_spelling(o), *help = kvb_option_help(o);
	int pos = fprintf(f, "    %s", sp);
	const char *line = help;
	if (pos > USAGE_OPTS_WIDTH + 4 - USAGE_GAP) {
		fputc('\n', f);
		pos = 0;
	}
	for (;;) {
		const char *nl = strchr(line, '\n');
		int len = nl ? (int)(nl - line) : (int)strlen(line);
		fprintf(f, "%*s%.*s\n", USAGE_OPTS_WIDTH + 4 - pos, "", len, line);
		if (!nl)
			break;
		line = nl + 1;
		pos = 0;
	}
	free(sp);
	free(help);
}

void kvb_usage_print_options(FILE *f, const struct kvb_cmd_usage *u)
{
	for (size_t i = 0; u->synopsis && u->synopsis[i]; i++)
		fprintf(f, "%s kvbench %s\n", i ? "   or:" : "usage:", u->synopsis[i]);
	for (const struct kvb_option *o = u->options; o && o->kind != KVB_OPTK_END; o++) {
		if (o->kind == KVB_OPTK_GROUP)
			fprintf(f, "\n%s\n", o->name);
		else {
			if (o == u->options)
				fputc('\n', f);
			print_row(f, o);
		}
	}
}

char *kvb_usage_text(const struct kvb_cmd_usage *u)
{
	char *more = u->text_from_registry ? u->text_from_registry() : NULL, *s;
	if (!more)
		return u->text ? kvb_xstrdup(u->text) : NULL;
	s = kvb_xasprintf("%s%s", u->text ? u->text : "", more);
	free(more);
	return s;
}
