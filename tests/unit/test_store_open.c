/* Opening the results store as README's commands do it (`-d out/results.db` in a fresh checkout). */
#include "store/store.h"
#include "test.h"

#include <stdlib.h>
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

#define TESTS T(test_store_open__makes_a_missing_directory_for_a_new_db)
#include "test_main.h"
