/* Tests reading Android boot images made by Debian's mkbootimg (header v0, v2, v3): parts, cmdline, kernel identity. */
#include "test.h"
#include "core/buf.h"
#include "core/spawn.h"
#include "core/util.h"
#include "flash/bootimg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_dir[] = "/tmp/kvb-bootimg-XXXXXX";

static char *path_of(const char *name)
{
	return kvb_xasprintf("%s/%s", g_dir, name);
}

static void put(const char *name, const void *data, size_t n)
{
	char *p = path_of(name);
	FILE *f = fopen(p, "wb");
	CHECK(f != NULL);
	if (f) {
		fwrite(data, 1, n, f);
		fclose(f);
	}
	free(p);
}

/* Runs mkbootimg with args (relative names resolved in g_dir by cwd). */
static int mkbootimg(const char *const *args)
{
	struct kvb_strv v = KVB_STRV_INIT;
	struct kvb_spawn_opts o = { .cwd = g_dir, .timeout_ms = 30000 };
	struct kvb_exec_result r;
	struct kvb_error e;
	int rc;
	kvb_strv_push(&v, "mkbootimg");
	for (size_t i = 0; args[i]; i++)
		kvb_strv_push(&v, args[i]);
	o.argv = kvb_strv_argv(&v);
	kvb_exec_result_init(&r);
	rc = kvb_spawn_run(&o, &r, &e);
	if (!rc && r.exit_code)
		fprintf(stderr, "mkbootimg: %s\n", r.err.data);
	rc = rc ? -1 : r.exit_code;
	kvb_exec_result_release(&r);
	kvb_strv_release(&v);
	return rc;
}

static struct kvb_buf g_img;

static int parse(const char *name, struct kvb_bootimg *bi, struct kvb_error *err)
{
	char *p = path_of(name);
	kvb_buf_reset(&g_img);
	CHECK(kvb_buf_read_file(&g_img, p) == 0);
	free(p);
	return kvb_bootimg_parse((const unsigned char *)g_img.data, g_img.len, name, bi, err);
}

static void kernel_bytes(struct kvb_buf *b, const char *release)
{
	kvb_buf_reset(b);
	for (int i = 0; i < 5000; i++)
		kvb_buf_addc(b, (char)(i * 13));
	kvb_buf_addf(b, "Linux version %s (kvb@host) (gcc 12) #4 SMP PREEMPT test build", release);
	kvb_buf_addc(b, '\0');
	for (int i = 0; i < 777; i++)
		kvb_buf_addc(b, 'k');
}

static void test_bootimg__v0_parts_and_long_cmdline_across_extra_field(void)
{
	struct kvb_buf k = KVB_BUF_INIT, cmd = KVB_BUF_INIT;
	struct kvb_bootimg bi;
	struct kvb_error err = { 0 };
	kernel_bytes(&k, "5.10.0-v0");
	put("kernel", k.data, k.len);
	put("ramdisk", "RAMDISK-0123456789", 18);
	/* 700 characters: 512 in cmdline[], the rest in extra_cmdline[] */
	while (cmd.len < 700)
		kvb_buf_addf(&cmd, "opt%zu=%zu ", cmd.len, cmd.len);
	kvb_buf_adds(&cmd, "last");
	const char *args[] = { "--kernel", "kernel", "--ramdisk", "ramdisk", "--cmdline", cmd.data, "--board", "hikey960",
			       "--pagesize", "4096", "-o", "v0.img", NULL };
	CHECK(mkbootimg(args) == 0);
	CHECK(parse("v0.img", &bi, &err) == KVB_OK);
	CHECK(bi.header_version == 0);
	CHECK(bi.page_size == 4096);
	CHECK(bi.kernel_off == 4096);
	CHECK(bi.kernel_size == k.len);
	CHECK(!memcmp(g_img.data + bi.kernel_off, k.data, k.len));
	CHECK(bi.ramdisk_off == 4096 + (k.len + 4095) / 4096 * 4096);
	CHECK(bi.ramdisk_size == 18);
	CHECK(!memcmp(g_img.data + bi.ramdisk_off, "RAMDISK-0123456789", 18));
	CHECK_STR(bi.name, "hikey960");
	CHECK_STR(bi.cmdline, cmd.data);
	/* cut the ramdisk short: the reader says which part is missing */
	CHECK(kvb_bootimg_parse((const unsigned char *)g_img.data, bi.ramdisk_off + 5, "cut.img", &bi, &err) ==
	      KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "boot image 'cut.img' (header v0) is truncated: its ramdisk runs past the end");
	kvb_buf_release(&k);
	kvb_buf_release(&cmd);
}

static void test_bootimg__v2_dtb_and_kernel_identity(void)
{
	struct kvb_buf k = KVB_BUF_INIT;
	struct kvb_bootimg bi;
	struct kvb_kimage_id id;
	struct kvb_error err = { 0 };
	char *cmdline = NULL, *p;
	kernel_bytes(&k, "6.1.0-v2-kvb");
	put("kernel", k.data, k.len);
	put("board.dtb", "\xd0\x0d\xfe\xed-dtb", 8);
	const char *args[] = { "--kernel", "kernel", "--dtb", "board.dtb", "--header_version", "2", "--cmdline",
			       "console=ttyFIQ0 kvb=2", "-o", "v2.img", NULL };
	CHECK(mkbootimg(args) == 0);
	CHECK(parse("v2.img", &bi, &err) == KVB_OK);
	CHECK(bi.header_version == 2);
	CHECK(bi.page_size == 2048);
	CHECK(bi.ramdisk_size == 0);
	CHECK(bi.dtb_size == 8);
	CHECK(!memcmp(g_img.data + bi.dtb_off, "\xd0\x0d\xfe\xed-dtb", 8));
	p = path_of("v2.img");
	CHECK(kvb_bootimg_identify(p, &id, &cmdline, &err) == KVB_OK);
	CHECK_STR(id.release, "6.1.0-v2-kvb");
	CHECK_STR(id.version, "#4 SMP PREEMPT test build");
	CHECK_STR(cmdline, "console=ttyFIQ0 kvb=2");
	kvb_kimage_id_release(&id);
	free(cmdline);
	free(p);
	kvb_buf_release(&k);
}

static void test_bootimg__v3_fixed_pages_and_rejects_non_images(void)
{
	struct kvb_buf k = KVB_BUF_INIT;
	struct kvb_bootimg bi;
	struct kvb_error err = { 0 };
	kernel_bytes(&k, "6.6.0-v3");
	put("kernel", k.data, k.len);
	put("ramdisk", "rd", 2);
	const char *args[] = { "--kernel", "kernel", "--ramdisk", "ramdisk", "--header_version", "3", "--cmdline",
			       "androidboot.x=y", "-o", "v3.img", NULL };
	CHECK(mkbootimg(args) == 0);
	CHECK(parse("v3.img", &bi, &err) == KVB_OK);
	CHECK(bi.header_version == 3);
	CHECK(bi.kernel_off == 4096);
	CHECK(bi.kernel_size == k.len);
	CHECK(bi.ramdisk_off == 4096 + (k.len + 4095) / 4096 * 4096);
	CHECK(!memcmp(g_img.data + bi.ramdisk_off, "rd", 2));
	CHECK_STR(bi.cmdline, "androidboot.x=y");
	CHECK(parse("kernel", &bi, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "'kernel' is not an Android boot image");
	kvb_buf_release(&k);
}

static void setup(void) __attribute__((constructor));
static void setup(void)
{
	if (!mkdtemp(g_dir))
		abort();
}

static void cleanup(void) __attribute__((destructor));
static void cleanup(void)
{
	const char *rm[] = { "rm", "-rf", g_dir, NULL };
	struct kvb_spawn_opts o = { .argv = rm, .timeout_ms = 10000 };
	struct kvb_exec_result r;
	struct kvb_error e;
	kvb_exec_result_init(&r);
	kvb_spawn_run(&o, &r, &e);
	kvb_exec_result_release(&r);
	kvb_buf_release(&g_img);
}

#define TESTS                                                          \
	T(test_bootimg__v0_parts_and_long_cmdline_across_extra_field) \
	T(test_bootimg__v2_dtb_and_kernel_identity)                   \
	T(test_bootimg__v3_fixed_pages_and_rejects_non_images)
#include "test_main.h"
