/*
 * Unit tests: behaviour chosen by what a backend can do (its ops table), never
 * by its name (docs/design.md#backends-and-capabilities): default rounds, per-flasher key tables, the
 * flash method choices listed from the registry, target capabilities.
 */
#include "test.h"
#include "test_platform.h"

#include "config/agenda.h"
#include "config/platform.h"
#include "core/buf.h"
#include "core/spawn.h"
#include "core/util.h"
#include "engine/engine.h"
#include "flash/flash.h"
#include "target/target.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Every diagnostic, one a line. Owned. */
static char *diag_text(const struct kvb_diag *d)
{
	struct kvb_buf b = KVB_BUF_INIT;
	for (size_t i = 0; i < d->msgs.n; i++)
		kvb_buf_addf(&b, "%s\n", d->msgs.v[i]);
	return kvb_buf_detach(&b);
}

/* Default rounds of a platform for an agenda whose one variant gives a kernel or not. */
static int rounds_for(const char *yaml, int with_kernel)
{
	struct kvb_platform p;
	struct kvb_diag d;
	struct kvb_agenda a;
	struct kvb_variant v;
	int r;
	memset(&a, 0, sizeof(a));
	memset(&v, 0, sizeof(v));
	v.kernel = with_kernel ? "vmlinuz" : NULL;
	a.variants = &v;
	a.nvariants = 1;
	if (load_text(&p, &d, yaml) != KVB_OK) {
		char *t = diag_text(&d);
		fprintf(stderr, "%s", t);
		free(t);
		r = -1;
	} else {
		r = kvb_engine_default_rounds(&p, &a);
	}
	kvb_diag_release(&d);
	kvb_platform_release(&p);
	return r;
}

static void test_capabilities__default_rounds_come_from_the_flasher(void)
{
	const char *none = "name: x\nconnection: {type: local}\nflash: {method: none}\n";
	const char *qemu = "name: x\nconnection: {type: qemu}\nflash: {method: qemu}\n";
	const char *copy = "name: x\nconnection: {type: ssh, host: h}\nflash: {method: ssh-copy, boot_path: /boot}\n";
	CHECK(rounds_for(none, 0) == 2);
	CHECK(rounds_for(qemu, 1) == 3);
	CHECK(rounds_for(qemu, 0) == 3);
	/* a flasher without its own default: one boot per kernel variant, two when only knobs differ */
	CHECK(rounds_for(copy, 1) == 1);
	CHECK(rounds_for(copy, 0) == 2);
}

static void test_capabilities__a_flashers_key_is_refused_under_another_method(void)
{
	struct kvb_platform p;
	struct kvb_diag d;
	char *t;
	CHECK(load_text(&p, &d, "name: x\nconnection: {type: adb, serial: s}\n"
				"flash: {method: fastboot, boot_path: /boot, dtb_mode: header}\n") == KVB_EINPUT);
	t = diag_text(&d);
	CHECK_CONTAINS(t, "flash.boot_path: unknown key 'boot_path' for flash method fastboot");
	CHECK(!strstr(t, "dtb_mode")); /* fastboot's own key passes */
	free(t);
	kvb_diag_release(&d);
	kvb_platform_release(&p);

	CHECK(load_text(&p, &d, "name: x\nconnection: {type: local}\nflash: {method: none, command: hook.sh}\n") ==
	      KVB_EINPUT);
	t = diag_text(&d);
	CHECK_CONTAINS(t, "flash.command: unknown key 'command' for flash method none");
	free(t);
	kvb_diag_release(&d);
	kvb_platform_release(&p);
}

static void test_capabilities__fastboot_partitions_must_name_variant_files(void)
{
	struct kvb_platform p;
	struct kvb_diag d;
	char *t;
	CHECK(load_text(&p, &d, "name: x\nconnection: {type: adb, serial: s}\n"
				"flash: {method: fastboot, partitions: {boot: boot_image, dtbo: dtbo_image}}\n") ==
	      KVB_EINPUT);
	t = diag_text(&d);
	CHECK_CONTAINS(t, "flash.partitions.dtbo: must name a variant file");
	CHECK(!strstr(t, "partitions.boot:"));
	CHECK_STR(p.flash_method, "fastboot");
	free(t);
	kvb_diag_release(&d);
	kvb_platform_release(&p);
}

static void test_capabilities__flash_method_choices_are_the_registry(void)
{
	struct kvb_platform p;
	struct kvb_diag d;
	struct kvb_buf want = KVB_BUF_INIT;
	char *t;
	size_t n = 0;
	kvb_buf_addf(&want, "flash.method: expected one of ");
	for (; kvb_flashers[n]; n++)
		kvb_buf_addf(&want, "%s%s", n ? "|" : "", kvb_flashers[n]->name);
	kvb_buf_addf(&want, ", got \"dd\"");
	CHECK(n >= 5);
	CHECK(load_text(&p, &d, "name: x\nconnection: {type: local}\nflash: {method: dd}\n") == KVB_EINPUT);
	t = diag_text(&d);
	CHECK_CONTAINS(t, want.data);
	CHECK_STR(p.flash_method, "none");
	free(t);
	kvb_buf_release(&want);
	kvb_diag_release(&d);
	kvb_platform_release(&p);
}

static void test_capabilities__flashers_say_whether_they_install_kernels(void)
{
	CHECK(!(kvb_flasher_find("none")->caps & KVB_FLASH_INSTALLS_KERNEL));
	for (size_t i = 0; kvb_flashers[i]; i++)
		if (strcmp(kvb_flashers[i]->name, "none"))
			CHECK(kvb_flashers[i]->caps & KVB_FLASH_INSTALLS_KERNEL);
	/* only fastboot flashes a boot image whole, so its kernel is the one to expect */
	CHECK(kvb_flasher_find("fastboot")->caps & KVB_FLASH_WHOLE_BOOT_IMAGE);
	CHECK(!(kvb_flasher_find("ssh-copy")->caps & KVB_FLASH_WHOLE_BOOT_IMAGE));
	/* a flasher that fails without the variant's kernel says so (preflight asks it); a hook
	 * may boot what the board has, and none installs nothing */
	CHECK(kvb_flasher_find("qemu")->caps & KVB_FLASH_NEEDS_KERNEL);
	CHECK(kvb_flasher_find("ssh-copy")->caps & KVB_FLASH_NEEDS_KERNEL);
	CHECK(kvb_flasher_find("fastboot")->caps & KVB_FLASH_NEEDS_KERNEL);
	CHECK(!(kvb_flasher_find("command")->caps & KVB_FLASH_NEEDS_KERNEL));
	CHECK(kvb_flasher_find("lava")->caps & KVB_FLASH_NEEDS_KERNEL);
	CHECK(!(kvb_flasher_find("none")->caps & KVB_FLASH_NEEDS_KERNEL));
}

static void test_capabilities__qemu_flasher_needs_a_connection_that_owns_the_board(void)
{
	struct kvb_platform p;
	struct kvb_diag d;
	char *t;
	CHECK(load_text(&p, &d, "name: x\nconnection: {type: local}\nflash: {method: qemu}\n") == KVB_EINPUT);
	t = diag_text(&d);
	CHECK_CONTAINS(t, "flash.method: method qemu needs a connection that owns the board (kvbench starts it); "
			  "connection type local does not");
	free(t);
	kvb_diag_release(&d);
	kvb_platform_release(&p);
	CHECK(load_text(&p, &d, "name: x\nconnection: {type: qemu}\nflash: {method: qemu}\n") == KVB_OK);
	kvb_diag_release(&d);
	kvb_platform_release(&p);
}

static void test_capabilities__targets_say_what_they_are(void)
{
	for (size_t i = 0; kvb_targets[i]; i++) {
		const struct kvb_target_ops *t = kvb_targets[i];
		CHECK(!!(t->caps & KVB_TARGET_OWNS_BOARD) == !strcmp(t->name, "qemu"));
		CHECK(!!(t->caps & KVB_TARGET_ANDROID) == !strcmp(t->name, "adb"));
	}
}

/* stdout of `kvbench help WHAT` (exit status in *rc). Owned. */
static char *help_of(const char *what, int *rc)
{
	const char *bd = getenv("KVB_BUILD_DIR");
	char *bin = kvb_xasprintf("%s/kvbench", bd ? bd : ".");
	const char *argv[] = { bin, "help", what, NULL };
	struct kvb_spawn_opts o = { .argv = argv, .timeout_ms = 60000 };
	struct kvb_exec_result r;
	struct kvb_error err;
	char *out;
	kvb_exec_result_init(&r);
	*rc = kvb_spawn_run(&o, &r, &err) ? -1 : r.exit_code;
	out = kvb_buf_detach(&r.out);
	kvb_exec_result_release(&r);
	free(bin);
	return out;
}

static void test_capabilities__help_lists_a_backends_own_keys(void)
{
	int rc;
	char *h = help_of("ssh-copy", &rc);
	CHECK(rc == 0);
	CHECK_CONTAINS(h, "flash method ssh-copy: ");
	CHECK_CONTAINS(h, "  boot_path ");
	CHECK(!strstr(h, "partitions")); /* fastboot's key is not listed under ssh-copy */
	free(h);
	/* qemu is a connection type and a flash method: both are listed */
	h = help_of("qemu", &rc);
	CHECK(rc == 0);
	CHECK_CONTAINS(h, "connection type qemu: ");
	CHECK_CONTAINS(h, "  memory_mb ");
	CHECK_CONTAINS(h, "flash method qemu: ");
	free(h);
	h = help_of("no-such-backend", &rc);
	CHECK(rc == KVB_EUSAGE);
	free(h);
}

#define TESTS                                                                                          \
	T(test_capabilities__default_rounds_come_from_the_flasher)                                     \
	T(test_capabilities__a_flashers_key_is_refused_under_another_method)                           \
	T(test_capabilities__fastboot_partitions_must_name_variant_files)                              \
	T(test_capabilities__flash_method_choices_are_the_registry)                                    \
	T(test_capabilities__flashers_say_whether_they_install_kernels)                                \
	T(test_capabilities__qemu_flasher_needs_a_connection_that_owns_the_board)                      \
	T(test_capabilities__targets_say_what_they_are)                                                \
	T(test_capabilities__help_lists_a_backends_own_keys)
#include "test_main.h"
