/*
 * Unit test: a global ignore file with the unanchored `target` line of the Rust and
 * Maven templates does not hide new files under src/target/ (the repository's
 * .gitignore re-includes the folder), while it still hides other `target` folders,
 * so the check can tell; and no source file of src/ is over 800 lines (the project's room
 * size, issue 42). Runs the real git against the source tree.
 */
#include "test.h"

#include "core/spawn.h"
#include "core/util.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Exit status of `git -c core.excludesFile=EXCLUDES check-ignore --no-index -q PATH` in the
 * source tree: 0 ignored, 1 not ignored, other: git failed. */
static int check_ignore(const char *excludes, const char *path)
{
	const char *src = getenv("KVB_SOURCE_DIR") ? getenv("KVB_SOURCE_DIR") : ".";
	char *opt = kvb_xasprintf("core.excludesFile=%s", excludes);
	const char *argv[] = { "git", "-c", opt, "check-ignore", "--no-index", "-q", path, NULL };
	struct kvb_spawn_opts o = { .argv = argv, .cwd = src, .timeout_ms = 60000 };
	struct kvb_exec_result r;
	struct kvb_error err;
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_spawn_run(&o, &r, &err) ? -1 : r.exit_code;
	if (rc != 0 && rc != 1)
		fprintf(stderr, "git check-ignore %s: %d %s%s\n", path, rc, r.err.data, rc < 0 ? err.msg : "");
	kvb_exec_result_release(&r);
	free(opt);
	return rc;
}

static void test_repo_layout__global_target_ignore_does_not_hide_src_target(void)
{
	char excludes[] = "/tmp/kvb-excludes-XXXXXX";
	int fd = mkstemp(excludes);
	CHECK(fd >= 0 && write(fd, "target\n", 7) == 7);
	close(fd);
	CHECK(check_ignore(excludes, "src/target/new_backend.c") == 1);
	CHECK(check_ignore(excludes, "src/target/new_backend.h") == 1);
	/* the excludes file is in force: a build tree's target/ is still ignored */
	CHECK(check_ignore(excludes, "rust/target/debug/out.o") == 0);
	unlink(excludes);
}

/* Lines of a .c or .h file under src/ past 800, each printed with its path; counted into g_big. */
static int g_big, g_seen;

static int count_lines(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	const char *dot = strrchr(path, '.');
	FILE *f;
	int c, n = 0;
	(void)sb;
	(void)ftw;
	if (type != FTW_F || !dot || (strcmp(dot, ".c") && strcmp(dot, ".h")))
		return 0;
	f = fopen(path, "r");
	if (!f)
		return 0;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	g_seen++;
	if (n > 800) {
		fprintf(stderr, "%s: %d lines (at most 800: split it by what it does)\n", path, n);
		g_big++;
	}
	return 0;
}

static void test_repo_layout__no_source_file_over_800_lines(void)
{
	const char *src = getenv("KVB_SOURCE_DIR") ? getenv("KVB_SOURCE_DIR") : ".";
	char *dir = kvb_xasprintf("%s/src", src);
	CHECK(nftw(dir, count_lines, 16, FTW_PHYS) == 0);
	CHECK(g_seen > 100); /* the tree was found */
	CHECK(g_big == 0);
	free(dir);
}

#define TESTS                                                                                                  \
	T(test_repo_layout__global_target_ignore_does_not_hide_src_target)                                     \
	T(test_repo_layout__no_source_file_over_800_lines)
#include "test_main.h"
