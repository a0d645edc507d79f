/* Implements getopt_long's inputs built from an option table and the usage errors of a bad option (options.h). */
#include "cli/options.h"
#include "cli/cli.h"
#include "core/error.h"
#include "core/suggest.h"
#include "core/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kvb_getopt_init(struct kvb_getopt *g, const char *cmd, const struct kvb_cmd_usage *u, const char *group)
{
	const struct kvb_option *o = u ? u->options : NULL;
	size_t n = 0, s = 0;
	int in = 1, found = !group;
	memset(g, 0, sizeof(*g));
	g->cmd = cmd;
	g->usage = u;
	g->group = group;
	optind = 1;
	for (; o && o->kind != KVB_OPTK_END; o++) {
		if (o->kind == KVB_OPTK_GROUP) {
			in = !group || !strcmp(o->name, group);
			found |= in && group;
			continue;
		}
		if (!in)
			continue;
		if (n == KVB_OPT_MAX)
			return KVB_EINTERNAL;
		g->longopts[n++] = (struct option){ o->name,
						    o->kind == KVB_OPTK_FLAG	 ? no_argument
						    : o->kind == KVB_OPTK_VALUE ? required_argument
										: optional_argument,
						    NULL, o->val };
		if (o->has_short) {
			g->shortopts[s++] = (char)o->val;
			if (o->kind != KVB_OPTK_FLAG)
				g->shortopts[s++] = ':';
			if (o->kind == KVB_OPTK_OPTIONAL)
				g->shortopts[s++] = ':';
		}
	}
	return found ? KVB_OK : KVB_EINTERNAL;
}

int kvb_getopt_next(struct kvb_getopt *g, int argc, char **argv)
{
	return getopt_long(argc, argv, g->shortopts, g->longopts, NULL);
}

const struct kvb_option *kvb_option_find(const struct kvb_option *table, int val)
{
	for (const struct kvb_option *o = table; o && o->kind != KVB_OPTK_END; o++)
		if (o->kind != KVB_OPTK_GROUP && o->val == val)
			return o;
	return NULL;
}

char *kvb_option_values(const struct kvb_option *o, const char *sep, const char *last)
{
	struct kvb_strv v = KVB_STRV_INIT;
	struct kvb_buf b = KVB_BUF_INIT;
	if (o->values)
		o->values(&v);
	for (size_t i = 0; i < v.n; i++)
		kvb_buf_addf(&b, "%s%s", i ? (i + 1 == v.n && last ? last : sep) : "", v.v[i]);
	kvb_strv_release(&v);
	return kvb_buf_detach(&b);
}

/* The message, then the usage (synopsis and options) and where the rest is; KVB_EUSAGE. */
static int usage_error(const struct kvb_getopt *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage_error(const struct kvb_getopt *g, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "kvbench %s: ", g->cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n\n", stderr);
	if (g->usage)
		kvb_usage_print_options(stderr, g->usage);
	fprintf(stderr, "\n(`kvbench help %s` says more)\n", g->cmd);
	return KVB_EUSAGE;
}

int kvb_getopt_bad(const struct kvb_getopt *g, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	struct kvb_strv names = KVB_STRV_INIT;
	char dym[160];
	int rc;
	if (optopt && !strncmp(arg, "--", 2)) {
		/* a known long option: a flag given a value, or one that needs a value without it */
		for (const struct option *o = g->longopts; o->name; o++)
			if (o->val == optopt)
				return o->has_arg == no_argument ? usage_error(g, "option '--%s' takes no value", o->name)
								 : usage_error(g, "option '%s' needs a value", arg);
	}
	if (optopt) {
		/* a short option: one of ours without its value, or unknown; a long-only option's val is
		 * often its initial (--baseline's is 'b'), which makes `diff -b` worth a suggestion */
		if (optopt != ':' && strchr(g->shortopts, optopt))
			return usage_error(g, "option '-%c' needs a value", optopt);
		for (const struct option *o = g->longopts; o->name; o++)
			if (o->val == optopt && o->name[0] == optopt)
				return usage_error(g, "unknown option '-%c' (did you mean '--%s'?)", optopt, o->name);
		return usage_error(g, "unknown option '-%c'", optopt);
	}
	{
		/* "--metrics=x": suggest on the name alone; getopt_long takes a unique abbreviation, so a
		 * name that begins two options was ambiguous, not unknown */
		char *name = kvb_xstrndup(arg, strcspn(arg, "="));
		struct kvb_buf amb = KVB_BUF_INIT;
		size_t nprefix = 0;
		for (const struct option *o = g->longopts; o->name; o++) {
			kvb_strv_pushf(&names, "--%s", o->name);
			if (strlen(name) > 2 && !strncmp(o->name, name + 2, strlen(name) - 2)) {
				kvb_buf_addf(&amb, "%s--%s", nprefix++ ? ", " : "", o->name);
			}
		}
		if (nprefix > 1)
			rc = usage_error(g, "option '%s' is ambiguous (%s)", name, amb.data);
		else
			rc = usage_error(g, "unknown option '%s'%s", name,
					 kvb_did_you_mean(dym, sizeof(dym), name, (const char *const *)names.v, names.n));
		kvb_buf_release(&amb);
		free(name);
	}
	kvb_strv_release(&names);
	return rc;
}

int kvb_getopt_bad_value(const struct kvb_getopt *g, int val, const char *value)
{
	const struct kvb_option *o = kvb_option_find(g->usage ? g->usage->options : NULL, val);
	char *set = o ? kvb_option_values(o, ", ", " or ") : NULL;
	int rc = kvb_cli_usage(g->cmd, "--%s '%s': expected %s", o ? o->name : "?", value, set && *set ? set : "?");
	free(set);
	return rc;
}
