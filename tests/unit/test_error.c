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
	/* docs/design.md#commands and README: scripts test these numbers */
	CHECK(KVB_OK == 0 && KVB_EJOBS == 1 && KVB_EUSAGE == 2 && KVB_EINPUT == 3 && KVB_ETARGET == 4 &&
	      KVB_ESTORE == 5 && KVB_EOUTPUT == 6 && KVB_EINTR == 7 && KVB_EBUG == 8 && KVB_EXIT_LAST == KVB_EBUG);
	CHECK_STR(kvb_strerror(KVB_EINPUT), "bad input file (or what it names does not exist)");
	CHECK_STR(kvb_strerror(KVB_ESTORE), "results database");
	CHECK_STR(kvb_strerror(KVB_EOUTPUT), "writing the output failed");
	CHECK_STR(kvb_strerror(KVB_EINTR), "interrupted (continue with --resume)");
	CHECK_STR(kvb_strerror(KVB_EBOARD), "the board stopped answering");
	CHECK_STR(kvb_strerror((enum kvb_err)(KVB_EXIT_LAST + 1)), "unknown error");
	CHECK_STR(kvb_strerror((enum kvb_err)(KVB_ERR_FIRST - 1)), "unknown error");
	for (int i = KVB_ERR_FIRST; i <= KVB_EXIT_LAST; i++)
		for (int j = KVB_ERR_FIRST; j < i; j++)
			CHECK(strcmp(kvb_strerror((enum kvb_err)i), kvb_strerror((enum kvb_err)j)));
}

static void test_error__internal_codes_map_onto_the_exit_statuses(void)
{
	/* the exit statuses are themselves */
	for (int i = KVB_OK; i <= KVB_EXIT_LAST; i++)
		CHECK(kvb_exit_status((enum kvb_err)i) == i);
	/* every internal code is negative and maps onto a documented status other than ok */
	for (int i = KVB_ERR_FIRST; i < KVB_OK; i++)
		CHECK(kvb_exit_status((enum kvb_err)i) > KVB_OK && kvb_exit_status((enum kvb_err)i) <= KVB_EXIT_LAST);
	CHECK(kvb_exit_status(KVB_EBOARD) == KVB_ETARGET);
	CHECK(kvb_exit_status(KVB_ENOTFOUND) == KVB_EINPUT);
	CHECK(kvb_exit_status(KVB_ECANCELLED) == KVB_EJOBS);
	CHECK(kvb_exit_status(KVB_EUNDECIDED) == KVB_EJOBS);
	CHECK(kvb_exit_status(KVB_ENORESULTS) == KVB_EJOBS);
	CHECK(kvb_exit_status(KVB_EINTERNAL) == KVB_EBUG);
	/* a number outside the enum is a bug, never success */
	CHECK(kvb_exit_status((enum kvb_err)(KVB_EXIT_LAST + 1)) == KVB_EBUG);
	CHECK(kvb_exit_status((enum kvb_err)(KVB_ERR_FIRST - 1)) == KVB_EBUG);
}

static void test_error__prefix_never_turns_a_failure_into_success(void)
{
	struct kvb_error e;
	CHECK(kvb_error_prefix(NULL, "ctx") == KVB_EINTERNAL);
	kvb_error_set(&e, KVB_ESTORE, "locked");
	CHECK(kvb_error_prefix(&e, "run %d", 3) == KVB_ESTORE);
	CHECK_STR(e.msg, "run 3: locked");
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
	for (int i = KVB_OK; i <= KVB_EXIT_LAST; i++) {
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
	T(test_error__internal_codes_map_onto_the_exit_statuses)                                       \
	T(test_error__prefix_never_turns_a_failure_into_success)                                       \
	T(test_error__help_lists_every_exit_status_from_strerror)                                      \
	T(test_error__an_error_without_a_code_is_caught_in_debug_builds)
#include "test_main.h"
