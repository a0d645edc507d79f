/*
 * Unit test: every long option a command parses is named in `kvbench help COMMAND`.
 * The man page and bash completion are generated from the same usage texts, so an
 * option missing there is missing from all three (`diff --series` was). Reads the
 * getopt tables of src/cli/cmd_*.c as text and runs the built kvbench.
 */
#include "test.h"

#include "core/spawn.h"
#include "core/util.h"

#include <ctype.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole file at path, NUL-terminated; NULL when it cannot be read. Owned. */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	long n;
	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET)) {
		s = kvb_xmalloc((size_t)n + 1);
		s[fread(s, 1, (size_t)n, f)] = '\0';
	}
	fclose(f);
	return s;
}

/* stdout of `kvbench help cmd`; NULL when it does not exit 0. Owned. */
static char *help_of(const char *cmd)
{
	const char *bd = getenv("KVB_BUILD_DIR");
	char *bin = kvb_xasprintf("%s/kvbench", bd ? bd : ".");
	const char *argv[] = { bin, "help", cmd, NULL };
	struct kvb_spawn_opts o = { .argv = argv, .timeout_ms = 60000 };
	struct kvb_exec_result r;
	struct kvb_error err;
	char *out = NULL;
	kvb_exec_result_init(&r);
	if (!kvb_spawn_run(&o, &r, &err) && r.exit_code == 0)
		out = kvb_buf_detach(&r.out);
	kvb_exec_result_release(&r);
	free(bin);
	return out;
}

/* 1 when text names "--opt" as a whole option ("--series" is not found in "--series-file"). */
static int names_option(const char *text, const char *opt)
{
	size_t n = strlen(opt);
	for (const char *s = strstr(text, "--"); s; s = strstr(s + 2, "--"))
		if (!strncmp(s + 2, opt, n) && !isalnum((unsigned char)s[2 + n]) && s[2 + n] != '-')
			return 1;
	return 0;
}

/* Checks each { "name", x_argument, ... } entry of one cmd_*.c file; returns how many. */
static size_t check_file(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *cmd = kvb_xstrndup(base + 4, strlen(base) - 6); /* cmd_diff.c -> diff */
	char *src = read_text(path), *help = help_of(cmd);
	size_t checked = 0;
	CHECK(src && help);
	for (const char *s = src ? strstr(src, "{ \"") : NULL; s && help; s = strstr(s + 3, "{ \"")) {
		const char *name = s + 3, *q = strchr(name, '"');
		char *opt;
		if (!q || strncmp(q, "\", ", 3) || !strstr(q, "_argument") || strstr(q, "_argument") - q > 24)
			continue;
		opt = kvb_xstrndup(name, (size_t)(q - name));
		if (!names_option(help, opt)) {
			fprintf(stderr, "`kvbench help %s` does not name --%s (%s)\n", cmd, opt, path);
			kvb_test_failures++;
		}
		checked++;
		free(opt);
	}
	free(help);
	free(src);
	free(cmd);
	return checked;
}

static void test_help_options__every_parsed_option_is_in_the_help(void)
{
	const char *sd = getenv("KVB_SOURCE_DIR");
	char *pattern = kvb_xasprintf("%s/src/cli/cmd_*.c", sd ? sd : ".");
	glob_t g;
	size_t files = 0, checked = 0;
	CHECK(glob(pattern, 0, NULL, &g) == 0);
	for (size_t i = 0; i < g.gl_pathc; i++, files++)
		checked += check_file(g.gl_pathv[i]);
	/* the tables were read: run alone parses more than ten long options */
	CHECK(files >= 10);
	CHECK(checked >= 40);
	globfree(&g);
	free(pattern);
}

static void test_help_options__whole_option_names_only(void)
{
	CHECK(names_option("  --series A..B", "series"));
	CHECK(!names_option("  --series-file F", "series"));
	CHECK(!names_option("  --runs", "run"));
	CHECK(names_option("[--run ID]", "run"));
}

#define TESTS                                                                                          \
	T(test_help_options__every_parsed_option_is_in_the_help)                                       \
	T(test_help_options__whole_option_names_only)
#include "test_main.h"
