/* Tests for the warning that a variant ran on one board only while the run used several (store/spread.c). */
#include "store/spread.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void exec_sql(struct kvb_store *st, const char *sql)
{
	struct kvb_error err;
	if (kvb_store_exec(st, sql, &err))
		fprintf(stderr, "%s\n", err.msg);
}

static void test_spread__a_variant_on_one_device_of_two_is_named(void)
{
	char dir[] = "/tmp/kvb-test-spread-XXXXXX", path[128];
	struct kvb_store *st = NULL;
	struct kvb_strv msgs = KVB_STRV_INIT;
	struct kvb_error err;
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/r.db", dir);
	CHECK(kvb_store_open(&st, path, 0, &err) == KVB_OK);
	if (!st)
		return;
	exec_sql(st, "INSERT INTO run(id, started_ns, status) VALUES (1, 0, 'ok');"
		     "INSERT INTO variant(id, run_id, name, position) VALUES (1, 1, 'cloud', 0), (2, 1, 'generic', 1),"
		     " (3, 1, 'mixed', 2), (4, 1, 'once', 3);"
		     /* LAVA put every round of cloud on device 01 and of generic on device 02 (issue 28) */
		     "INSERT INTO boot(variant_id, round, seq, status, board) VALUES (1, 1, 1, 'ok', 'kvb-qemu-01'),"
		     " (1, 2, 2, 'ok', 'kvb-qemu-01'), (2, 1, 1, 'ok', 'kvb-qemu-02'), (2, 2, 2, 'ok', 'kvb-qemu-02'),"
		     " (3, 1, 1, 'ok', 'kvb-qemu-01'), (3, 2, 2, 'ok', 'kvb-qemu-02'), (4, 1, 1, 'ok', 'kvb-qemu-02'),"
		     " (3, 3, 3, 'failed', 'kvb-qemu-02');");
	CHECK(kvb_store_unspread_variants(st, 1, &msgs, &err) == KVB_OK);
	/* cloud and generic are named; mixed met both devices; once has one boot (nothing to cross) */
	CHECK(msgs.n == 2);
	if (msgs.n == 2) {
		CHECK_CONTAINS(msgs.v[0], "variant cloud ran all 2 of its boots on board kvb-qemu-01, while the run used 2 boards");
		CHECK_CONTAINS(msgs.v[1], "variant generic ran all 2 of its boots on board kvb-qemu-02");
	}
	kvb_strv_release(&msgs);
	/* one board for the whole run: nothing to cross, nothing said */
	exec_sql(st, "UPDATE boot SET board = 'only'");
	CHECK(kvb_store_unspread_variants(st, 1, &msgs, &err) == KVB_OK && msgs.n == 0);
	kvb_strv_release(&msgs);
	kvb_store_close(st);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	CHECK(system(path) == 0);
}

#define TESTS T(test_spread__a_variant_on_one_device_of_two_is_named)
#include "test_main.h"
