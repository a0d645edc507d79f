/*
 * Unit tests: enum kvb_err's fixed numbers and words (they are kvbench's exit
 * statuses), the exit-status list `kvbench --help` prints from them, and the
 * debug-build check that an error always carries a code.
 */
#include "test.h"

#include "core/error.h"
#include "core/spawn.h"
#include "core/util.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_error__codes_are_the_documented_exit_statuses(void)
{
	/* DESIGN.md §2 and README: scripts test these numbers */
	CHECK(KVB_OK == 0 && KVB_EJOBS == 1 && KVB_EUSAGE == 2 && KVB_EINPUT == 3 && KVB_ETARGET == 4 &&
	      KVB_ESTORE == 5 && KVB_EOUTPUT == 6 && KVB_ERR_LAST == KVB_EOUTPUT);
	CHECK_STR(kvb_strerror(KVB_EINPUT), "bad input file");
	CHECK_STR(kvb_strerror(KVB_ESTORE), "results database");
	CHECK_STR(kvb_strerror(KVB_EOUTPUT), "writing the output failed");
	CHECK_STR(kvb_strerror((enum kvb_err)7), "unknown error");
	CHECK_STR(kvb_strerror((enum kvb_err)-1), "unknown error");
	for (int i = KVB_OK; i <= KVB_ERR_LAST; i++)
		for (int j = KVB_OK; j < i; j++)
			CHECK(strcmp(kvb_strerror((enum kvb_err)i), kvb_strerror((enum kvb_err)j)));
}

static void test_error__help_lists_every_exit_status_from_strerror(void)
{
	const char *bd = getenv("KVB_BUILD_DIR");
	char *bin = kvb_xasprintf("%s/kvbench", bd ? bd : ".");
	const char *argv[] = { bin, "--help", NULL };
	struct kvb_spawn_opts o = { .argv = argv, .timeout_ms = 60000 };
	struct kvb_exec_result r;
	struct kvb_error err;
	kvb_exec_result_init(&r);
	CHECK(kvb_spawn_run(&o, &r, &err) == KVB_OK);
	CHECK(r.exit_code == 0);
	for (int i = KVB_OK; i <= KVB_ERR_LAST; i++) {
		char *line = kvb_xasprintf("\n  %d %s\n", i, kvb_strerror((enum kvb_err)i));
		CHECK_CONTAINS(r.out.data, line);
		free(line);
	}
	kvb_exec_result_release(&r);
	free(bin);
}

static void test_error__an_error_without_a_code_is_caught_in_debug_builds(void)
{
	struct kvb_error e;
	int status = 0;
	pid_t pid = fork();
	if (pid == 0) {
		/* stderr quiet: the assertion message is expected */
		if (!freopen("/dev/null", "w", stderr))
			_exit(3);
		kvb_error_set(&e, KVB_OK, "forgot the code");
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
#ifdef NDEBUG
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
#else
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
#endif
	CHECK(kvb_error_set(&e, KVB_ETARGET, "board %s gone", "x") == KVB_ETARGET);
	CHECK(e.code == KVB_ETARGET);
	CHECK_STR(e.msg, "board x gone");
}

#define TESTS                                                                                          \
	T(test_error__codes_are_the_documented_exit_statuses)                                          \
	T(test_error__help_lists_every_exit_status_from_strerror)                                      \
	T(test_error__an_error_without_a_code_is_caught_in_debug_builds)
#include "test_main.h"
