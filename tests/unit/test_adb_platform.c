/* Unit tests: the shipped hikey960 platform and the adb target's connection keys. */
#include "test.h"
#include "engine/catalog.h"
#include "test_platform.h"

#include "config/platform.h"
#include "core/util.h"
#include "target/target.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char *platform_path(const char *name)
{
	const char *src = getenv("KVB_SOURCE_DIR");
	return kvb_xasprintf("%s/platforms/%s/platform.yaml", src ? src : ".", name);
}

static int diag_has(const struct kvb_diag *d, const char *needle)
{
	for (size_t i = 0; i < d->msgs.n; i++)
		if (strstr(d->msgs.v[i], needle))
			return 1;
	return 0;
}

static void test_adb_platform__hikey960_uses_adb_fastboot_and_two_clusters(void)
{
	struct kvb_platform p;
	struct kvb_diag d;
	char *path = platform_path("hikey960");
	kvb_diag_init(&d, NULL);
	CHECK(kvb_platform_load(&p, path, &kvb_catalog, &d) == KVB_OK);
	for (size_t i = 0; i < d.msgs.n; i++)
		fprintf(stderr, "%s\n", d.msgs.v[i]);
	CHECK_STR(p.name, "hikey960");
	CHECK_STR(p.conn_type, "adb");
	CHECK_STR(p.flash_method, "fastboot");
	CHECK_STR(kvb_get_str(cJSON_GetObjectItemCaseSensitive(p.flash, "partitions"), "boot", NULL), "boot_image");
	CHECK(p.boot_timeout_s == 180);
	CHECK_STR(p.boot_ready, "getprop sys.boot_completed");
	CHECK_STR(p.boot_expect, "1");
	CHECK(p.nclusters == 2);
	if (p.nclusters == 2) {
		CHECK_STR(p.clusters[0].name, "little");
		CHECK_STR(p.clusters[0].cpus, "0-3");
		CHECK_STR(p.clusters[1].name, "big");
		CHECK_STR(p.clusters[1].cpus, "4-7");
	}
	CHECK(kvb_target_find("adb") != NULL);
	kvb_platform_release(&p);
	kvb_diag_release(&d);
	free(path);
}

static void test_adb_platform__rejects_missing_serial_and_unknown_key(void)
{
	struct kvb_platform p;
	struct kvb_diag d;
	CHECK(load_text(&p, &d, "name: x\nconnection: {type: adb, adb_server_port: 5038, usb: 1}\n") == KVB_EINPUT);
	CHECK(diag_has(&d, "missing required key 'serial' for connection type adb"));
	CHECK(diag_has(&d, "unknown key 'usb' for connection type adb"));
	kvb_platform_release(&p);
	kvb_diag_release(&d);
	CHECK(load_text(&p, &d, "name: x\nconnection: {type: adb, serial: s, adb_server_port: -1}\n") == KVB_EINPUT);
	CHECK(diag_has(&d, "connection.adb_server_port"));
	kvb_platform_release(&p);
	kvb_diag_release(&d);
	CHECK(load_text(&p, &d, "name: x\nconnection: {type: adb, serial: \"h:5555\", connect: false, adb: /usr/bin/adb}\n") ==
	      KVB_OK);
	kvb_platform_release(&p);
	kvb_diag_release(&d);
}

#define TESTS                                                              \
	T(test_adb_platform__hikey960_uses_adb_fastboot_and_two_clusters)    \
	T(test_adb_platform__rejects_missing_serial_and_unknown_key)
#include "test_main.h"
