/* Tests reading a `build:` block (src/kbuild/kbuild.c): types, fragments, make args, outputs. */
#include "kbuild/kbuild.h"
#include "kbuild/kbuild_internal.h"
#include "test.h"

#include <stdlib.h>

static int load(const char *json, struct kvb_build_spec *s, struct kvb_diag *d)
{
	cJSON *o = cJSON_Parse(json);
	int rc;
	kvb_diag_init(d, NULL);
	rc = kvb_build_spec_load(s, o, "a.yaml: build", getenv("KVB_SOURCE_DIR") ? getenv("KVB_SOURCE_DIR") : ".", d);
	cJSON_Delete(o);
	return rc;
}

static const char *all(struct kvb_diag *d)
{
	static char buf[4096];
	buf[0] = '\0';
	for (size_t i = 0; i < d->msgs.n; i++) {
		strncat(buf, d->msgs.v[i], sizeof(buf) - strlen(buf) - 2);
		strncat(buf, "\n", sizeof(buf) - strlen(buf) - 1);
	}
	return buf;
}

static void test_kbuild_spec__targets_fragments_and_outputs(void)
{
	struct kvb_build_spec s;
	struct kvb_diag d;
	CHECK(load("{\"config\": [\"tinyconfig\", \"tests/kbuild/qemu-x86_64.config\"], \"make_args\": \"ARCH=x86_64\","
		   "\"outputs\": {\"kernel\": \"arch/x86/boot/bzImage\"}, \"jobs\": 3}", &s, &d) == 0);
	CHECK(s.config.n == 2);
	CHECK_STR(s.config.v[0], "tinyconfig");
	/* fragments become absolute: make runs elsewhere */
	CHECK(s.config.n == 2 && s.config.v[1][0] == '/');
	CHECK(s.config.n == 2 && strstr(s.config.v[1], "tests/kbuild/qemu-x86_64.config") != NULL);
	CHECK(s.make_args.n == 1);
	CHECK_STR(s.outputs[KVB_BOUT_KERNEL], "arch/x86/boot/bzImage");
	CHECK(s.outputs[KVB_BOUT_DTB] == NULL);
	CHECK(s.jobs == 3 && s.timeout_s == 10800);
	kvb_build_spec_release(&s);
	kvb_diag_release(&d);
}

static void test_kbuild_spec__every_mistake_reported(void)
{
	struct kvb_build_spec s;
	struct kvb_diag d;
	CHECK(load("{\"config\": [\"tinyconfig\", \"no/such.config\"], \"make_args\": [\"-j8\", \"V=1\"],"
		   "\"outputs\": {\"kernel\": \"/abs/Image\", \"dtb\": \"../x.dtb\"}, \"bogus\": 1}", &s, &d) == 3);
	CHECK_CONTAINS(all(&d), "bogus");
	kvb_build_spec_release(&s);
	kvb_diag_release(&d);
	CHECK(load("{\"config\": [\"tinyconfig\", \"no/such.config\"], \"make_args\": [\"-j8\", \"V=1\"],"
		   "\"outputs\": {\"kernel\": \"/abs/Image\", \"dtb\": \"../x.dtb\"}}", &s, &d) == 3);
	CHECK_CONTAINS(all(&d), "build.config[1]: no config fragment file");
	CHECK_CONTAINS(all(&d), "build.make_args[0]: '-j8' is not a VAR=value make argument");
	CHECK_CONTAINS(all(&d), "build.outputs.kernel: '/abs/Image' must be relative");
	CHECK_CONTAINS(all(&d), "build.outputs.dtb: '../x.dtb' must be relative");
	kvb_build_spec_release(&s);
	kvb_diag_release(&d);
}

static void test_kbuild_spec__outputs_required_and_command_excludes_config(void)
{
	struct kvb_build_spec s;
	struct kvb_diag d;
	CHECK(load("{\"config\": \"defconfig\"}", &s, &d) == 3);
	CHECK_CONTAINS(all(&d), "missing outputs");
	kvb_build_spec_release(&s);
	kvb_diag_release(&d);
	CHECK(load("{\"command\": \"tests/kbuild/fake/build.sh\", \"config\": \"defconfig\", \"outputs\": {\"kernel\": "
		   "\"Image\"}}", &s, &d) == 3);
	CHECK_CONTAINS(all(&d), "config and command exclude each other");
	kvb_build_spec_release(&s);
	kvb_diag_release(&d);
	CHECK(load("{\"command\": \"tests/kbuild/fake/nothere.sh\", \"outputs\": {\"kernel\": \"Image\"}}", &s, &d) == 3);
	CHECK_CONTAINS(all(&d), "is not an executable file");
	kvb_build_spec_release(&s);
	kvb_diag_release(&d);
}

/* What Linux 6.1's Kconfig made of two fragments (tests/fixtures/field/kconfig/PROVENANCE): "=n" and
 * a CRLF line end are taken by Kconfig, so the check must not call them dropped; the check still
 * refuses what the .config does not hold. */
static const char *fx(const char *name)
{
	static char buf[4][1024];
	static int k;
	const char *src = getenv("KVB_SOURCE_DIR") ? getenv("KVB_SOURCE_DIR") : ".";
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/tests/fixtures/field/kconfig/%s", src, name);
	return buf[k];
}

static void test_kbuild_spec__fragments_read_as_kconfig_reads_them(void)
{
	struct kvb_strv cfg = KVB_STRV_INIT;
	char *bad;
	kvb_strv_push(&cfg, "tinyconfig");
	kvb_strv_push(&cfg, fx("uclamp-n.config"));
	CHECK((bad = kvb_kbuild_config_unmet(&cfg, fx("linux-6.1-after-n.config"))) == NULL);
	free(bad);
	/* the same "=n" against a .config that has the option: unmet */
	bad = kvb_kbuild_config_unmet(&cfg, fx("linux-6.1-after-crlf.config"));
	CHECK(bad && !strcmp(bad, "CONFIG_UCLAMP_TASK=n"));
	free(bad);
	kvb_strv_release(&cfg);
	kvb_strv_push(&cfg, fx("uclamp-crlf.config"));
	CHECK((bad = kvb_kbuild_config_unmet(&cfg, fx("linux-6.1-after-crlf.config"))) == NULL);
	free(bad);
	/* the CRLF fragment against the .config without the option: unmet, named without its '\r' */
	bad = kvb_kbuild_config_unmet(&cfg, fx("linux-6.1-after-n.config"));
	CHECK(bad && !strcmp(bad, "CONFIG_UCLAMP_TASK=y"));
	free(bad);
	kvb_strv_release(&cfg);
}

#define TESTS                                                                                                   \
	T(test_kbuild_spec__targets_fragments_and_outputs)                                                     \
	T(test_kbuild_spec__every_mistake_reported)                                                            \
	T(test_kbuild_spec__outputs_required_and_command_excludes_config)                                      \
	T(test_kbuild_spec__fragments_read_as_kconfig_reads_them)
#include "test_main.h"
