/*
 * Unit test: a global ignore file with the unanchored `target` line of the Rust and
 * Maven templates does not hide new files under src/target/ (the repository's
 * .gitignore re-includes the folder), while it still hides other `target` folders,
 * so the check can tell. Runs the real git against the source tree.
 */
#include "test.h"

#include "core/spawn.h"
#include "core/util.h"

#include <stdlib.h>
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

#define TESTS T(test_repo_layout__global_target_ignore_does_not_hide_src_target)
#include "test_main.h"
