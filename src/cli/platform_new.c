/* Implements `kvbench platform new` and the platform loading `platform` shares (platform_new.h). */
#include "cli/platform_new.h"
#include "engine/catalog.h"
#include "instrument/instrument.h"
#include "cli/cli.h"
#include "config/platform.h"
#include "core/buf.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int kvb_cli_platform_load(struct kvb_platform *p, const char *name)
{
	struct kvb_diag d;
	int rc;
	kvb_diag_init(&d, NULL);
	rc = kvb_platform_load(p, name, &kvb_catalog, &d);
	for (size_t i = 0; i < d.warnings.n; i++)
		fprintf(stderr, "%s (warning)\n", d.warnings.v[i]);
	for (size_t i = 0; i < d.msgs.n; i++)
		fprintf(stderr, "%s\n", d.msgs.v[i]);
	if (d.msgs.n > 1 && p->file) /* every problem counted, as `platform check` counts the board's */
		fprintf(stderr, "%s: %zu problems\n", p->file, d.msgs.n);
	kvb_diag_release(&d);
	return rc;
}

/* `platform new`'s arguments (argv[1] "new"): NAME, --from BASE, --dir DIR; KVB_EUSAGE (printed) when they are wrong. */
static int new_args(int argc, char **argv, const char **name, const char **from, const char **dir)
{
	struct kvb_getopt g;
	int c;
	if (kvb_getopt_init(&g, "platform", &kvb_usage_platform, KVB_PLATFORM_NEW_GROUP))
		return KVB_EINTERNAL;
	while ((c = kvb_getopt_next(&g, argc - 1, argv + 1)) != -1) {
		if (c == 'F')
			*from = optarg;
		else if (c == 'D')
			*dir = optarg;
		else
			return kvb_getopt_bad(&g, argv + 1);
	}
	for (int i = optind + 1; i < argc; i++) {
		if (*name)
			return kvb_cli_usage("platform", "unexpected argument '%s'", argv[i]);
		*name = argv[i];
	}
	if (!*name || !*from)
		return kvb_cli_usage("platform", "expected `platform new NAME --from BASE [--dir DIR]`");
	if (!**name || strchr(*name, '/') || (*name)[0] == '.')
		return kvb_cli_usage("platform", "'%s' is not a valid platform name", *name);
	return KVB_OK;
}

/* outfile, made new: O_EXCL, never through a symlink left there (a dangling one passes access()), never over a file. */
static FILE *create_new(const char *outfile)
{
	int fd = open(outfile, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (fd >= 0 && !f)
		close(fd);
	return f;
}

/* 1 when line's value (after its first ':') names the base board: its name, or the name's first word
 * ("juno" of juno-r2, as in juno.local) when that word is 4 characters or more. */
static int names_base(const char *line, const char *base)
{
	const char *v = strchr(line, ':');
	size_t stem = strcspn(base, "-_.");
	char *word, *val;
	int hit;
	if (!v)
		return 0;
	if (strstr(v, base))
		return 1;
	if (stem < 4 || stem == strlen(base))
		return 0;
	/* kvbench's own names (instrument type juno-hwmon) are not the board's */
	val = kvb_xstrdup(v);
	for (size_t i = 0; kvb_instruments[i]; i++)
		for (char *at; (at = strstr(val, kvb_instruments[i]->name));)
			memset(at, ' ', strlen(kvb_instruments[i]->name));
	word = kvb_xstrndup(base, stem);
	hit = strstr(val, word) != NULL;
	free(word);
	free(val);
	return hit;
}

/*
 * The base's platform.yaml (text, changed in place) to f as platform name: the top-level
 * `name:` line replaced, the top-level `description:` (shown by `platform list`) left out. The
 * base's comments are kept (its header says what to set up before the first run, and how its
 * files were made; a comment above or after a key explains it), under a line that says they
 * are the base's. A value named after the base board (its address juno.local, its dtb
 * juno-r2.dtb: issue 41) is kept but marked "FILL IN" in the file, and listed in marked (line
 * number and line) for the user.
 */
static void copy_platform(FILE *f, char *text, const char *name, const char *from, const char *base,
			  struct kvb_strv *marked)
{
	int out_line = 2;
	fprintf(f, "# Made by `kvbench platform new %s --from %s`; edit connection, flash and topology.\n", name, from);
	fprintf(f, "# The comments below are %s's: they describe that board; make them this one's.\n", base);
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, "name:", 5)) {
			fprintf(f, "name: %s\n", name);
		} else if (!strncmp(line, "description:", 12)) {
			continue;
		} else if (line[strspn(line, " \t")] != '#' && names_base(line, base)) {
			fprintf(f, "%s  # FILL IN: %s's value; give this board's\n", line, base);
			kvb_strv_pushf(marked, "line %d: %s", out_line + 1, line + strspn(line, " \t"));
		} else {
			fprintf(f, "%s\n", line);
		}
		out_line++;
	}
}

/* Where it wrote (outdir in dir) and how `-p` names it from there: by name when dir is searched, else by path. */
static void say_where(const char *outdir, const char *dir, const char *name)
{
	char *abs = realpath(outdir, NULL), *absdir = realpath(dir, NULL);
	const char *a = abs ? abs : outdir, *ad = absdir ? absdir : dir;
	int searched = kvb_platform_dir_searched(dir);
	printf("wrote %s/platform.yaml\n", a);
	if (searched == 1)
		printf("name it `-p %s` from any directory (%s is on the platform search path): `kvbench platform "
		       "check %s`\n", name, ad, name);
	else if (searched == 2)
		printf("name it `-p %s` from this directory (./platforms is searched where kvbench runs) or `-p %s` "
		       "from anywhere (or add %s to $KVB_PLATFORM_PATH)\n", name, a, ad);
	else
		printf("%s is not on the platform search path: name it by its path, `-p %s` (`kvbench platform check "
		       "%s`), or add %s to $KVB_PLATFORM_PATH\n", ad, a, a, ad);
	free(abs);
	free(absdir);
}

/*
 * platform new NAME --from BASE [--dir DIR]: copies BASE's platform.yaml with the name replaced,
 * into DIR/NAME/, by default where `-p NAME` finds it from any directory: the first entry of
 * $KVB_PLATFORM_PATH, else the user's platform directory (kvb_platform_user_dir). Says where it
 * wrote and how to name it; a --dir the search path does not cover is named by its path.
 */
int kvb_platform_new_cmd(int argc, char **argv)
{
	const char *name = NULL, *from = NULL, *dir = NULL;
	char *defdir = NULL;
	struct kvb_platform base, p;
	struct kvb_buf text = KVB_BUF_INIT;
	struct kvb_strv marked = KVB_STRV_INIT;
	char *outdir, *outfile;
	FILE *f;
	int rc;
	if ((rc = new_args(argc, argv, &name, &from, &dir)))
		return rc;
	if (kvb_cli_platform_load(&base, from))
		return KVB_EINPUT;
	if (!dir) {
		const char *env = getenv("KVB_PLATFORM_PATH");
		defdir = env && *env ? kvb_xstrndup(env, strcspn(env, ":")) : kvb_platform_user_dir();
		dir = defdir;
	}
	outdir = kvb_xasprintf("%s/%s", dir, name);
	outfile = kvb_xasprintf("%s/platform.yaml", outdir);
	rc = KVB_EINPUT;
	if (!access(outfile, F_OK)) {
		fprintf(stderr, "kvbench: error: %s already exists\n", outfile);
		goto out;
	}
	kvb_buf_read_file(&text, base.file);
	kvb_mkdir_p(outdir, 0755);
	if (!(f = create_new(outfile))) {
		fprintf(stderr, "kvbench: error: cannot write %s: %s\n", outfile, strerror(errno));
		goto out;
	}
	copy_platform(f, text.data, name, from, base.name, &marked);
	if (fclose(f)) {
		fprintf(stderr, "kvbench: error: cannot write %s: %s\n", outfile, strerror(errno));
		goto out;
	}
	say_where(outdir, dir, name);
	if (marked.n) {
		printf("left to fill in (named after %s, marked FILL IN in the file):\n", base.name);
		for (size_t i = 0; i < marked.n; i++)
			printf("  %s\n", marked.v[i]);
	}
	/* what it wrote loads as a platform */
	if (!kvb_cli_platform_load(&p, outfile)) {
		kvb_platform_release(&p);
		rc = KVB_OK;
	}
out:
	kvb_strv_release(&marked);
	kvb_buf_release(&text);
	kvb_platform_release(&base);
	free(defdir);
	free(outdir);
	free(outfile);
	return rc;
}
