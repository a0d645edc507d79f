/*
 * Tests for the option tables (cli/options.h): every command's table is well-formed and fits
 * getopt, its `--help` lists every row with a help text, a bad option's message names the command
 * and prints its usage, the value sets come from their owners, and no command parses options
 * around the tables.
 */
#include "cli/cli.h"
#include "cli/help.h"
#include "cli/options.h"
#include "report/diff.h"
#include "report/format.h"
#include "results/cell_stats.h"
#include "instrument/probe.h"
#include "test.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

/* Rows of c's table (not headings). */
#define EACH_ROW(c, o)                                                                                 \
	for (const struct kvb_option *o = (c)->usage->options; o && o->kind != KVB_OPTK_END; o++)    \
		if (o->kind != KVB_OPTK_GROUP)

static void test_cli_options__every_table_is_well_formed_and_fits_getopt(void)
{
	size_t ncmds = 0, nrows = 0;
	for (const struct kvb_cmd *c = kvb_commands; c->name; c++, ncmds++) {
		struct kvb_getopt g;
		int has_db = 0;
		CHECK(c->usage && c->usage->synopsis && c->usage->synopsis[0]);
		for (size_t i = 0; c->usage->synopsis[i]; i++)
			CHECK(!strncmp(c->usage->synopsis[i], c->name, strlen(c->name))); /* "diff [<options>]" */
		CHECK(kvb_getopt_init(&g, c->name, c->usage, NULL) == KVB_OK);
		EACH_ROW(c, o) {
			nrows++;
			CHECK(o->name && *o->name && o->help && *o->help);
			CHECK((o->kind == KVB_OPTK_FLAG) == (o->argh == NULL));
			CHECK(!o->has_short || isalnum(o->val));
			if (!strcmp(o->name, "db"))
				has_db = o->has_short && o->val == 'd';
			/* each getopt val and long name once: getopt would return the first for both */
			for (const struct kvb_option *p = o + 1; p->kind != KVB_OPTK_END; p++)
				if (p->kind != KVB_OPTK_GROUP) {
					CHECK(p->val != o->val);
					CHECK(strcmp(p->name, o->name));
				}
			if (o->values) {
				char *v = kvb_option_values(o, "|", NULL);
				CHECK(strchr(v, '|')); /* a set: at least two */
				free(v);
			}
		}
		/* main takes -d out for a command with a DB: its row says so in help, and only there */
		CHECK(has_db == !!(c->flags & (KVB_CMD_DB_RO | KVB_CMD_DB_RW)));
		for (const struct kvb_option *o = c->usage->options; o && o->kind != KVB_OPTK_END; o++)
			if (o->kind == KVB_OPTK_GROUP)
				CHECK(kvb_getopt_init(&g, c->name, c->usage, o->name) == KVB_OK);
	}
	CHECK(ncmds >= 11);
	CHECK(nrows >= 60);
}

static void test_cli_options__getopt_gets_the_rows_with_their_kinds(void)
{
	const struct kvb_cmd *run = kvb_cmd_find("run");
	struct kvb_getopt g;
	int seen_quiet = 0, seen_dry = 0;
	CHECK(run && kvb_getopt_init(&g, "run", run->usage, NULL) == KVB_OK);
	/* -p and -V take values; the long-only rows add no short letter */
	CHECK_CONTAINS(g.shortopts, "p:");
	CHECK_CONTAINS(g.shortopts, "V:");
	CHECK(!strchr(g.shortopts, 'R'));
	for (const struct option *o = g.longopts; o->name; o++) {
		if (!strcmp(o->name, "quiet-host"))
			seen_quiet = o->has_arg == optional_argument;
		if (!strcmp(o->name, "dry-run"))
			seen_dry = o->has_arg == no_argument;
	}
	CHECK(seen_quiet && seen_dry);
	/* a group: import energy's rows and the common ones, not import csv's */
	const struct kvb_cmd *imp = kvb_cmd_find("import");
	CHECK(kvb_getopt_init(&g, "import", imp->usage, "import energy:") == KVB_OK);
	int job = 0, variant = 0, db = 0;
	for (const struct option *o = g.longopts; o->name; o++) {
		job |= !strcmp(o->name, "job");
		variant |= !strcmp(o->name, "variant");
		db |= !strcmp(o->name, "db");
	}
	CHECK(job && !variant && db);
	CHECK(kvb_getopt_init(&g, "import", imp->usage, "no such group") == KVB_EINTERNAL);
}

static void test_cli_options__help_lists_every_option_with_its_help(void)
{
	for (const struct kvb_cmd *c = kvb_commands; c->name; c++) {
		char *u = kvb_help_usage(c), *want = kvb_xasprintf("usage: kvbench %s", c->name);
		CHECK_CONTAINS(u, want);
		EACH_ROW(c, o) {
			char *sp = kvb_option_spelling(o), *help = kvb_option_help(o);
			char *first = kvb_xstrndup(help, strcspn(help, "\n"));
			CHECK_CONTAINS(u, sp);
			CHECK_CONTAINS(u, first);
			free(sp);
			free(help);
			free(first);
		}
		free(want);
		free(u);
	}
}

static void test_cli_options__spelling_and_values_render_as_git_does(void)
{
	const struct kvb_cmd *diff = kvb_cmd_find("diff"), *run = kvb_cmd_find("run");
	char *s = kvb_option_spelling(kvb_option_find(diff->usage->options, 'd'));
	CHECK_STR(s, "-d, --db <db>");
	free(s);
	s = kvb_option_spelling(kvb_option_find(run->usage->options, 'Q'));
	CHECK_STR(s, "--quiet-host[=<dur>]");
	free(s);
	/* the stat names from the registry, in its order, into the help */
	s = kvb_option_help(kvb_option_find(diff->usage->options, 's'));
	CHECK_CONTAINS(s, "mean|median|max|min|p95");
	free(s);
	s = kvb_help_usage(diff);
	/* a short spelling's help starts at the help column (4 + 24) */
	CHECK_CONTAINS(s, "\n    -d, --db <db>           the results database");
	free(s);
}

/* Runs kvb_getopt_bad for `kvbench CMD ARGS` with stderr captured; returns what it printed (owned). */
static char *bad_option_text(const struct kvb_cmd *c, char **argv, int argc, int *rc)
{
	struct kvb_getopt g;
	char path[] = "/tmp/kvb-test-cli-XXXXXX";
	int fd = mkstemp(path), saved = dup(2), r;
	struct kvb_buf b = KVB_BUF_INIT;
	fflush(stderr);
	dup2(fd, 2);
	opterr = 0;
	kvb_getopt_init(&g, c->name, c->usage, NULL);
	while ((r = kvb_getopt_next(&g, argc, argv)) != -1 && r != '?')
		;
	*rc = r == '?' ? kvb_getopt_bad(&g, argv) : -1;
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	kvb_buf_read_file(&b, path);
	unlink(path);
	return kvb_buf_detach(&b);
}

static void test_cli_options__a_bad_option_names_the_command_and_prints_its_usage(void)
{
	for (const struct kvb_cmd *c = kvb_commands; c->name; c++) {
		char *argv[] = { (char *)c->name, "--no-such-option", NULL };
		int rc;
		char *out = bad_option_text(c, argv, 2, &rc), *head = kvb_xasprintf("kvbench %s: unknown option '--no-such-option'\n", c->name),
		     *usage = kvb_xasprintf("\nusage: kvbench %s", c->name);
		CHECK(rc == KVB_EUSAGE);
		CHECK(!strncmp(out, head, strlen(head)));
		CHECK_CONTAINS(out, usage);
		free(out);
		free(head);
		free(usage);
	}
	/* a near miss is named; a long-only option typed as a short one too */
	char *a1[] = { "diff", "--metrics", "x", NULL }, *a2[] = { "diff", "-b", "c0", NULL }, *a3[] = { "run", "x.yaml", "-p", NULL };
	int rc;
	char *out = bad_option_text(kvb_cmd_find("diff"), a1, 3, &rc);
	CHECK_CONTAINS(out, "kvbench diff: unknown option '--metrics' (did you mean '--metric'?)");
	free(out);
	out = bad_option_text(kvb_cmd_find("diff"), a2, 3, &rc);
	CHECK_CONTAINS(out, "kvbench diff: unknown option '-b' (did you mean '--baseline'?)");
	free(out);
	out = bad_option_text(kvb_cmd_find("run"), a3, 3, &rc);
	CHECK_CONTAINS(out, "kvbench run: option '-p' needs a value");
	free(out);
	/* getopt_long takes --max-j for --max-jobs; --max begins four options */
	char *a4[] = { "run", "--max", "3", NULL }, *a5[] = { "run", "-x", NULL }, *a6[] = { "run", "--dry-run=1", NULL };
	out = bad_option_text(kvb_cmd_find("run"), a4, 3, &rc);
	CHECK_CONTAINS(out, "kvbench run: option '--max' is ambiguous (--max-jobs, --max-rounds, --max-time, --max-disturbed)");
	free(out);
	/* -x is --max-rounds' getopt val, not a spelling anyone meant */
	out = bad_option_text(kvb_cmd_find("run"), a5, 2, &rc);
	CHECK(!strncmp(out, "kvbench run: unknown option '-x'\n", 33));
	free(out);
	out = bad_option_text(kvb_cmd_find("run"), a6, 2, &rc);
	CHECK_CONTAINS(out, "kvbench run: option '--dry-run' takes no value");
	free(out);
}

/* Each value set is its owner's list: every name it shows is one the owner accepts, in its order. */
static void test_cli_options__value_sets_are_the_owners_lists(void)
{
	struct kvb_strv v = KVB_STRV_INIT;
	struct kvb_error err;
	enum kvb_stat st;
	enum kvb_layout lay;
	kvb_values_stats(&v);
	CHECK(v.n == 5);
	for (size_t i = 0; i < v.n; i++)
		CHECK(kvb_stat_parse(v.v[i], &st) == KVB_OK && !strcmp(kvb_stat_name(st), v.v[i]) && (size_t)st == i);
	kvb_strv_release(&v);
	kvb_values_layouts(&v);
	CHECK(v.n == 3);
	for (size_t i = 0; i < v.n; i++)
		CHECK(kvb_layout_parse(v.v[i], &lay) == KVB_OK && (size_t)lay == i);
	CHECK(kvb_layout_parse("tall", &lay) == KVB_EINPUT);
	kvb_strv_release(&v);
	kvb_values_formats(&v);
	for (size_t i = 0; i < v.n; i++)
		CHECK(kvb_format_find(v.v[i], &err) == kvb_formats[i]);
	kvb_strv_release(&v);
	kvb_values_probe_formats(&v);
	CHECK(v.n >= 5);
	for (size_t i = 0; i < v.n; i++)
		CHECK(kvb_probe_format_find(v.v[i]) != NULL);
	kvb_strv_release(&v);
}

/* import's usage, help and man page list the probe formats from their registry, each with its
 * summary and what its caps ask (--rate, --channel); the typed text names none of them. */
static void test_cli_options__import_help_lists_the_probe_formats_from_their_registry(void)
{
	const struct kvb_cmd *imp = kvb_cmd_find("import");
	char *u = kvb_help_usage(imp), *man = NULL, *text = kvb_usage_text(imp->usage);
	size_t n = 0, rows = 0;
	FILE *f = open_memstream(&man, &n);
	CHECK(f != NULL);
	if (f) {
		kvb_help_man(f);
		fclose(f);
	}
	for (const struct kvb_probe_format *p = kvb_probe_formats; p->name; p++, rows++) {
		char *row = kvb_xasprintf("\n  %-9s", p->name), *head = kvb_xstrndup(p->summary, 30);
		char *word = kvb_xstrndup(p->summary, strcspn(p->summary, " -'")); /* roff escapes - and ' */
		const char *at = strstr(u, row);
		CHECK(at != NULL);
		CHECK(at && !strncmp(at + strlen(row), head, strlen(head)));
		CHECK(man && strstr(man, row) && strstr(strstr(man, row), word));
		CHECK(text && strstr(text, head));
		if (at && (p->caps & KVB_PROBE_NEEDS_RATE)) {
			char *nrow = p[1].name ? kvb_xasprintf("\n  %-9s", p[1].name) : NULL;
			const char *next = nrow ? strstr(at, nrow) : NULL, *rate = strstr(at, "give --rate");
			CHECK(rate && (!next || rate < next));
			free(nrow);
		}
		/* the typed text names no format but csv (also a subcommand): the registry says them */
		if (strcmp(p->name, "csv") && imp->usage->text)
			CHECK(!strstr(imp->usage->text, p->name));
		free(row);
		free(head);
		free(word);
	}
	CHECK(rows >= 5);
	free(u);
	free(man);
	free(text);
}

/* Every parser goes through the tables: a struct option array or a getopt_long call beside them
 * would be an option the help does not know. */
static void test_cli_options__no_command_parses_around_the_tables(void)
{
	char *dir = kvb_xasprintf("%s/src/cli", KVB_SOURCE_DIR);
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t files = 0;
	CHECK(d != NULL);
	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 3 || strcmp(e->d_name + n - 2, ".c") || !strcmp(e->d_name, "options.c"))
			continue;
		char *p = kvb_xasprintf("%s/%s", dir, e->d_name);
		struct kvb_buf b = KVB_BUF_INIT;
		CHECK(kvb_buf_read_file(&b, p) == 0);
		files++;
		if (b.data && (strstr(b.data, "getopt_long(") || strstr(b.data, "struct option ")))
			fprintf(stderr, "%s parses options around its table\n", p), kvb_test_failures++;
		kvb_buf_release(&b);
		free(p);
	}
	if (d)
		closedir(d);
	CHECK(files >= 11);
	free(dir);
}

#define TESTS                                                                                          \
	T(test_cli_options__every_table_is_well_formed_and_fits_getopt)                                \
	T(test_cli_options__getopt_gets_the_rows_with_their_kinds)                                     \
	T(test_cli_options__help_lists_every_option_with_its_help)                                     \
	T(test_cli_options__spelling_and_values_render_as_git_does)                                    \
	T(test_cli_options__a_bad_option_names_the_command_and_prints_its_usage)                       \
	T(test_cli_options__value_sets_are_the_owners_lists)                                           \
	T(test_cli_options__import_help_lists_the_probe_formats_from_their_registry)                   \
	T(test_cli_options__no_command_parses_around_the_tables)
#include "test_main.h"
