/* Opening the results store as README's commands do it (`-d out/results.db` in a fresh checkout). */
#include "store/store.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

/* README: `kvbench run agendas/quickstart-local.yaml -p local -d out/results.db` with no out/ yet. */
static void test_store_open__makes_a_missing_directory_for_a_new_db(void)
{
	char root[] = "/tmp/kvb-test-store-XXXXXX", path[256], dir[128];
	struct kvb_store *st = NULL;
	struct kvb_error err;
	struct stat sb;
	CHECK(mkdtemp(root) != NULL);
	snprintf(dir, sizeof(dir), "%s/out/sub", root);
	snprintf(path, sizeof(path), "%s/results.db", dir);
	if (kvb_store_open(&st, path, 0, &err))
		fprintf(stderr, "%s\n", err.msg);
	CHECK(st != NULL);
	CHECK(!stat(dir, &sb) && S_ISDIR(sb.st_mode));
	kvb_store_close(st);
	/* read-only opens (diff, show, query) create nothing and name the missing file */
	snprintf(path, sizeof(path), "%s/nothere/results.db", root);
	st = NULL;
	CHECK(kvb_store_open(&st, path, 1, &err) == KVB_ESTORE && !st);
	CHECK_CONTAINS(err.msg, "nothere/results.db: cannot open results database");
	snprintf(dir, sizeof(dir), "%s/nothere", root);
	CHECK(access(dir, F_OK) != 0);
	/* a directory that cannot be made: the reason, exit 5 */
	snprintf(path, sizeof(path), "%s/out/sub/results.db/x/y.db", root);
	CHECK(kvb_store_open(&st, path, 0, &err) == KVB_ESTORE && !st);
	CHECK_CONTAINS(err.msg, "cannot create the results database's directory");
	snprintf(path, sizeof(path), "%s/out/sub/results.db", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/out/sub/results.db-wal", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/out/sub/results.db-shm", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/out/sub/results.db.lock", root);
	unlink(path);
	snprintf(dir, sizeof(dir), "%s/out/sub", root);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/out", root);
	rmdir(dir);
	rmdir(root);
}


/*
 * Several processes opening one new DB at once (a `kvbench run` creating it while `kvbench query`
 * polls it, as tests/integration/kbuild_bisect.sh does): each migration is applied once, by
 * whichever process holds the write lock, and every open succeeds. Before: a process read the
 * schema version, waited for the lock, and applied a migration another had just committed
 * ("applying 0018_schema_version.sql: view kvbench_schema already exists", exit 5 in CI).
 */
static void test_store_open__concurrent_opens_migrate_once(void)
{
	enum { KIDS = 6, ROUNDS = 4 };
	char root[] = "/tmp/kvb-test-store-XXXXXX", path[256];
	CHECK(mkdtemp(root) != NULL);
	for (int r = 0; r < ROUNDS; r++) {
		int go[2], failed = 0;
		pid_t kid[KIDS];
		snprintf(path, sizeof(path), "%s/r%d.db", root, r);
		CHECK(pipe(go) == 0);
		for (int k = 0; k < KIDS; k++) {
			kid[k] = fork();
			if (kid[k] == 0) {
				struct kvb_store *st = NULL;
				struct kvb_error err;
				char c;
				close(go[1]);
				if (read(go[0], &c, 1) < 0)
					_exit(3);
				/* half open read-write, half read-only after a pause (they migrate a DB with a version) */
				if (k % 2 && usleep(2000 * (unsigned)k))
					_exit(3);
				if (kvb_store_open(&st, path, k % 2 ? KVB_STORE_RO : KVB_STORE_RW, &err)) {
					fprintf(stderr, "kid %d: %s\n", k, err.msg);
					/* a read-only open may find no schema yet: only a failed migration counts */
					_exit(k % 2 && !strstr(err.msg, "applying") ? 0 : 1);
				}
				kvb_store_close(st);
				_exit(0);
			}
		}
		close(go[0]);
		close(go[1]); /* EOF: every child goes at once */
		for (int k = 0; k < KIDS; k++) {
			int status = 0;
			waitpid(kid[k], &status, 0);
			failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
		}
		CHECK(failed == 0);
		struct kvb_store *st = NULL;
		struct kvb_error err;
		CHECK(kvb_store_open(&st, path, KVB_STORE_RO, &err) == KVB_OK);
		kvb_store_close(st);
	}
	for (int r = 0; r < ROUNDS; r++) {
		const char *ext[] = { "", "-wal", "-shm" };
		for (int e = 0; e < 3; e++) {
			snprintf(path, sizeof(path), "%s/r%d.db%s", root, r, ext[e]);
			unlink(path);
		}
	}
	rmdir(root);
}

#define TESTS T(test_store_open__makes_a_missing_directory_for_a_new_db) T(test_store_open__concurrent_opens_migrate_once)
#include "test_main.h"
