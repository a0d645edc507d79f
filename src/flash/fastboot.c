/*
 * Implements the `fastboot` flasher (HiKey960 and other Android boards):
 * build a boot image with Debian's `mkbootimg` (or take the variant's
 * boot_image), `adb reboot bootloader`, wait for the bootloader, `fastboot
 * flash` each partition of flash.partitions, `fastboot reboot`, then wait
 * for the board. Debian's real `mkbootimg` and `fastboot` run with argv.
 *
 * Boot image choice: HiKey960's AOSP build (device/linaro/hikey,
 * hikey960/BoardConfig.mk) makes a header-version-0 image whose kernel is
 * Image.gz with the board's dtb appended ("Image.gz-hikey960") and passes
 * --base 0x0 --kernel_offset 0x00080000 --ramdisk_offset 0x07c00000
 * --tags_offset 0x07a00000; its UEFI loader finds the dtb after the kernel.
 * So by default a variant's dtb is appended to its kernel (dtb_mode: append)
 * and the load addresses come from the platform's flash.mkbootimg_args (the
 * shipped hikey960 platform sets the values above). dtb_mode: header passes
 * the dtb as `mkbootimg --dtb` in a header-version-2 image instead. The
 * command line is flash.cmdline (the board's: androidboot.hardware=... etc.)
 * followed by the variant's cmdline.
 */
#include "flash/flash.h"
#include "config/keys.h"
#include "core/log.h"
#include "core/sha256.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FB_TOOL_MS 120000ull    /* mkbootimg, fastboot reboot */
#define FB_FLASH_MS 900000ull   /* one partition: a few hundred MB over USB 2 */

static const char *const field_names[KVB_VF_N] = { "kernel", "dtb", "initrd", "boot_image", "modules" };

static int field_index(const char *name)
{
	for (int i = 0; i < KVB_VF_N; i++)
		if (!strcmp(field_names[i], name))
			return i;
	return -1;
}

/* The last non-empty line of b (at most n-1 bytes) into buf; "" when none. */
static const char *last_line(const struct kvb_buf *b, char *buf, size_t n)
{
	size_t end = b->len, start;
	while (end && (b->data[end - 1] == '\n' || b->data[end - 1] == '\r' || b->data[end - 1] == ' '))
		end--;
	start = end;
	while (start && b->data[start - 1] != '\n')
		start--;
	snprintf(buf, n, "%.*s", (int)(end - start), b->data + start);
	return buf;
}

/*
 * The line of fastboot's (or mkbootimg's) output that says what went wrong:
 * the device's "FAILED (remote: ...)" first, then a line with "error:",
 * else the last line.
 */
static const char *why_line(const struct kvb_buf *b, char *buf, size_t n)
{
	static const char *const marks[] = { "FAILED", "error:", "Error:" };
	const char *d = b->data ? b->data : "";
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		const char *m = strstr(d, marks[i]);
		if (m) {
			while (m > d && m[-1] != '\n')
				m--;
			snprintf(buf, n, "%.*s", (int)strcspn(m, "\r\n"), m);
			return buf;
		}
	}
	return last_line(b, buf, n);
}

/*
 * Runs argv locally; fails (KVB_ETARGET) unless it exits 0, the message
 * naming what and quoting the tool's last line of stderr (or stdout).
 * r receives the outputs when not NULL.
 */
static int run_tool(const char *const *argv, uint64_t timeout_ms, volatile int *cancel, const char *what,
		    struct kvb_exec_result *out, struct kvb_error *err)
{
	struct kvb_spawn_opts so = { .argv = argv, .timeout_ms = timeout_ms, .cancel = cancel };
	struct kvb_exec_result r;
	char line[600], how[128];
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_spawn_run(&so, &r, err);
	if (rc) {
		kvb_error_prefix(err, "%s", what);
	} else if (r.exit_code != 0) {
		why_line(r.err.len ? &r.err : &r.out, line, sizeof(line));
		rc = kvb_error_set(err, KVB_ETARGET, "%s: `%s` failed (%s)%s%s", what, argv[0],
				   kvb_exec_describe(&r, how, sizeof(how)), *line ? ": " : "", line);
	}
	if (out) {
		kvb_exec_result_release(out);
		*out = r;
	} else {
		kvb_exec_result_release(&r);
	}
	return rc;
}

/* A path from the platform file: absolute, or relative to the platform directory. Owned. */
static char *plat_path(const struct kvb_platform *p, const char *rel)
{
	return rel[0] == '/' ? kvb_xstrdup(rel) : kvb_xasprintf("%s/%s", p->dir, rel);
}

/* Adds flash.mkbootimg_args (a string split on blanks, or a list) to v. */
static void add_mkbootimg_args(struct kvb_strv *v, const cJSON *args)
{
	if (cJSON_IsString(args)) {
		char *copy = kvb_xstrdup(args->valuestring), *save = NULL;
		for (char *w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save))
			kvb_strv_push(v, w);
		free(copy);
	} else if (cJSON_IsArray(args)) {
		for (const cJSON *a = args->child; a; a = a->next) {
			char *s = kvb_node_str(a);
			if (s)
				kvb_strv_push(v, s);
			free(s);
		}
	}
}

static int has_arg(const struct kvb_strv *v, const char *name)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], name) || (!strncmp(v->v[i], name, strlen(name)) && v->v[i][strlen(name)] == '='))
			return 1;
	return 0;
}

/* Writes the concatenation of a and b to out. */
static int concat_files(const char *a, const char *b, const char *out, struct kvb_error *err)
{
	struct kvb_buf x = KVB_BUF_INIT, y = KVB_BUF_INIT;
	FILE *f;
	int rc = KVB_OK;
	if (kvb_buf_read_file(&x, a) || kvb_buf_read_file(&y, b)) {
		rc = kvb_error_set(err, KVB_EINPUT, "cannot read '%s' or '%s'", a, b);
		goto out;
	}
	f = fopen(out, "wb");
	if (!f || fwrite(x.data, 1, x.len, f) != x.len || fwrite(y.data, 1, y.len, f) != y.len) {
		if (f)
			fclose(f);
		rc = kvb_error_set(err, KVB_EINPUT, "cannot write '%s'", out);
		goto out;
	}
	if (fclose(f))
		rc = kvb_error_set(err, KVB_EINPUT, "cannot write '%s'", out);
out:
	kvb_buf_release(&x);
	kvb_buf_release(&y);
	return rc;
}

int kvb_fastboot_build_boot_image(const struct kvb_platform *plat, const struct kvb_variant *v, const char *dir,
				  volatile int *cancel, char **out, struct kvb_error *err)
{
	const cJSON *fl = plat->flash;
	const char *mode = kvb_get_str(fl, "dtb_mode", "append"), *base = kvb_get_str(fl, "cmdline", NULL);
	const char *ramdisk_key = kvb_get_str(fl, "ramdisk", NULL);
	struct kvb_strv a = KVB_STRV_INIT, extra = KVB_STRV_INIT;
	struct kvb_buf cmdline = KVB_BUF_INIT;
	char *kernel = NULL, *ramdisk = NULL, *img = kvb_xasprintf("%s/boot.img", dir), hex[65];
	int rc = KVB_OK;

	*out = NULL;
	if (!v->local[KVB_VF_KERNEL]) {
		rc = kvb_error_set(err, KVB_EINPUT, "variant '%s' has neither boot_image nor kernel to build one from "
						    "(flash method %s)", v->name, plat->flash_method);
		goto out;
	}
	kernel = kvb_xstrdup(v->local[KVB_VF_KERNEL]);
	if (v->local[KVB_VF_DTB] && !strcmp(mode, "append")) {
		/* HiKey960's Image.gz-hikey960: the dtb right after the (compressed) kernel */
		free(kernel);
		kernel = kvb_xasprintf("%s/kernel-dtb", dir);
		if ((rc = concat_files(v->local[KVB_VF_KERNEL], v->local[KVB_VF_DTB], kernel, err)))
			goto out;
	}
	if (v->local[KVB_VF_INITRD])
		ramdisk = kvb_xstrdup(v->local[KVB_VF_INITRD]);
	else if (ramdisk_key)
		ramdisk = plat_path(plat, ramdisk_key);
	else
		kvb_warn("variant '%s': no initrd and no flash.ramdisk in %s: the boot image has no ramdisk", v->name,
			 plat->file);
	if (base && *base)
		kvb_buf_adds(&cmdline, base);
	if (v->cmdline && *v->cmdline)
		kvb_buf_addf(&cmdline, "%s%s", cmdline.len ? " " : "", v->cmdline);
	add_mkbootimg_args(&extra, cJSON_GetObjectItemCaseSensitive(fl, "mkbootimg_args"));

	kvb_strv_push(&a, "mkbootimg");
	kvb_strv_push(&a, "--kernel");
	kvb_strv_push(&a, kernel);
	if (ramdisk) {
		kvb_strv_push(&a, "--ramdisk");
		kvb_strv_push(&a, ramdisk);
	}
	if (v->local[KVB_VF_DTB] && !strcmp(mode, "header")) {
		if (!has_arg(&extra, "--header_version")) {
			kvb_strv_push(&a, "--header_version");
			kvb_strv_push(&a, "2");
		}
		kvb_strv_push(&a, "--dtb");
		kvb_strv_push(&a, v->local[KVB_VF_DTB]);
	}
	kvb_strv_push(&a, "--cmdline");
	kvb_strv_push(&a, cmdline.len ? cmdline.data : "");
	for (size_t i = 0; i < extra.n; i++)
		kvb_strv_push(&a, extra.v[i]);
	kvb_strv_push(&a, "-o");
	kvb_strv_push(&a, img);
	rc = run_tool(kvb_strv_argv(&a), FB_TOOL_MS, cancel, "building the boot image", NULL, err);
	if (rc)
		goto out;
	if (!kvb_sha256_file(img, hex, NULL))
		kvb_info("variant '%s': built %s (sha256 %.16s...)", v->name, img, hex);
	*out = img;
	img = NULL;
out:
	if (kernel && strcmp(kernel, v->local[KVB_VF_KERNEL] ? v->local[KVB_VF_KERNEL] : ""))
		unlink(kernel);
	free(kernel);
	free(ramdisk);
	free(img);
	kvb_buf_release(&cmdline);
	kvb_strv_release(&a);
	kvb_strv_release(&extra);
	return rc;
}

/* Builds ctx->artifact_dir/boot.img from the variant's kernel, dtb, initrd and cmdline. *out owned. */
static int build_boot_image(struct kvb_flash_ctx *ctx, char **out, struct kvb_error *err)
{
	return kvb_fastboot_build_boot_image(ctx->plat, ctx->variant, ctx->artifact_dir, ctx->target->cancel, out, err);
}

/* Polls `fastboot -s SERIAL getvar product` (fastboot itself retries) until it answers or the budget is gone. */
static int wait_bootloader(struct kvb_flash_ctx *ctx, const char *serial, struct kvb_error *err)
{
	const char *argv[] = { "fastboot", "-s", serial, "getvar", "product", NULL };
	struct kvb_exec_result r;
	char what[256], line[600];
	const char *prod;
	uint64_t t0 = kvb_mono_ns();
	int rc;
	snprintf(what, sizeof(what), "waiting for the bootloader of '%s'", serial);
	kvb_exec_result_init(&r);
	rc = run_tool(argv, ctx->timeout_ms, ctx->target->cancel, what, &r, err);
	if (rc && r.timed_out) {
		/* "error: Failed to connect to HOST:PORT" says more than the "< waiting for ... >" after it */
		why_line(&r.err, line, sizeof(line));
		rc = kvb_error_set(err, KVB_ETARGET, "the bootloader of '%s' did not answer within %.1f s%s%s", serial,
				   (double)ctx->timeout_ms / 1000.0, *line ? ": fastboot says " : "", line);
	}
	if (!rc) {
		/* fastboot prints "product: NAME" on stderr */
		prod = strstr(r.err.data ? r.err.data : "", "product:");
		snprintf(line, sizeof(line), "%s", prod ? prod + 8 + strspn(prod + 8, " ") : "?");
		line[strcspn(line, "\r\n")] = '\0';
		kvb_info("fastboot: '%s' in the bootloader after %.1f s (product %s)", serial,
			 (double)(kvb_mono_ns() - t0) / 1e9, line);
	}
	kvb_exec_result_release(&r);
	return rc;
}

static int fastboot_flash(struct kvb_flash_ctx *ctx, struct kvb_error *err)
{
	const struct kvb_variant *v = ctx->variant;
	const struct kvb_platform *p = ctx->plat;
	const cJSON *parts = cJSON_GetObjectItemCaseSensitive(p->flash, "partitions");
	const char *serial = kvb_get_str(p->flash, "fastboot_serial", NULL);
	struct kvb_strv names = KVB_STRV_INIT, files = KVB_STRV_INIT;
	char *built = NULL;
	int rc = KVB_OK, in_bootloader = 0;

	if (!serial)
		serial = kvb_get_str(p->conn, "serial", NULL);
	if (!serial) {
		rc = kvb_error_set(err, KVB_EINPUT, "%s: flash method fastboot needs flash.fastboot_serial (or an adb "
						    "connection.serial)", p->file);
		goto out;
	}
	/* partition -> file, in the order of the platform file */
	if (!parts || !parts->child) {
		kvb_strv_push(&names, "boot");
		kvb_strv_push(&files, "boot_image");
	} else {
		for (const cJSON *e = parts->child; e; e = e->next) {
			if (!cJSON_IsString(e) || field_index(e->valuestring) < 0) {
				rc = kvb_error_set(err, KVB_EINPUT, "%s: flash.partitions.%s must name a variant file "
								    "(kernel, dtb, initrd, boot_image or modules)", p->file, e->string);
				goto out;
			}
			kvb_strv_push(&names, e->string);
			kvb_strv_push(&files, e->valuestring);
		}
	}
	for (size_t i = 0; i < names.n; i++) {
		int f = field_index(files.v[i]);
		const char *path = v->local[f];
		if (f == KVB_VF_BOOT_IMAGE && !path) {
			if (!built && (rc = build_boot_image(ctx, &built, err)))
				goto out;
			path = built;
		}
		if (!path) {
			kvb_warn("variant '%s' has no %s: partition '%s' keeps what the board has", v->name, files.v[i],
				 names.v[i]);
			free(files.v[i]);
			files.v[i] = NULL;
			continue;
		}
		free(files.v[i]);
		files.v[i] = kvb_xstrdup(path);
	}
	if (v->local[KVB_VF_MODULES])
		kvb_warn("variant '%s': flash method fastboot does not install modules", v->name);

	if ((rc = kvb_target_reboot(ctx->target, "bootloader", err)) || (rc = wait_bootloader(ctx, serial, err)))
		goto out;
	in_bootloader = 1;
	for (size_t i = 0; i < names.n; i++) {
		const char *argv[] = { "fastboot", "-s", serial, "flash", names.v[i], files.v[i], NULL };
		char what[300];
		if (!files.v[i])
			continue;
		snprintf(what, sizeof(what), "flashing partition '%s' of '%s'", names.v[i], serial);
		if ((rc = run_tool(argv, FB_FLASH_MS, ctx->target->cancel, what, NULL, err)))
			goto out;
		kvb_info("fastboot: flashed %s of '%s' with %s", names.v[i], serial, files.v[i]);
	}
	{
		const char *argv[] = { "fastboot", "-s", serial, "reboot", NULL };
		in_bootloader = 0;
		if ((rc = run_tool(argv, FB_TOOL_MS, ctx->target->cancel, "rebooting out of the bootloader", NULL, err)))
			goto out;
	}
	rc = kvb_target_wait_ready(ctx->target, ctx->timeout_ms, err);
	if (rc)
		kvb_error_prefix(err, "after flashing variant '%s'", v->name);
out:
	if (rc && in_bootloader) {
		/* a failed flash leaves the board in its bootloader: send it back to what it had, so the
		 * next variant finds it (best effort; this variant has failed either way) */
		const char *argv[] = { "fastboot", "-s", serial, "reboot", NULL };
		struct kvb_error e2;
		if (run_tool(argv, FB_TOOL_MS, ctx->target->cancel, "rebooting out of the bootloader", NULL, &e2) ||
		    kvb_target_wait_ready(ctx->target, ctx->timeout_ms, &e2))
			kvb_warn("after the failed flash: %s", e2.msg);
	}
	if (built)
		unlink(built); /* rebuilt from cached inputs each round; its sha256 is in the log */
	free(built);
	kvb_strv_release(&names);
	kvb_strv_release(&files);
	return rc;
}

static const struct kvb_keydef fastboot_keys[] = {
	{ "partitions", KVB_T_MAP, "{boot: boot_image}", NULL, 0,
	  "{partition: kernel|dtb|initrd|boot_image|modules}, flashed in this order" },
	{ "fastboot_serial", KVB_T_STR, NULL, NULL, 0,
	  "`fastboot -s` serial (default connection.serial; tcp:HOST:PORT for fastboot over TCP)" },
	{ "mkbootimg_args", KVB_T_STRLIST, NULL, NULL, 0, "extra mkbootimg options (load addresses, --pagesize, --header_version)" },
	{ "cmdline", KVB_T_STR, NULL, NULL, 0, "the board's kernel command line; the variant's is appended" },
	{ "dtb_mode", KVB_T_STR, "append", "append|header", 0,
	  "dtb appended to the kernel (header v0/v1) or given as mkbootimg --dtb (header v2)" },
	{ "ramdisk", KVB_T_STR, NULL, NULL, 0, "ramdisk for variants without initrd (relative to the platform directory)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

/* Each partition must name one of the variant's files. */
static void fastboot_check(const struct kvb_platform *p, struct kvb_diag *d)
{
	static const char *const fields[] = { "kernel", "dtb", "initrd", "boot_image", "modules" };
	const cJSON *parts = cJSON_GetObjectItemCaseSensitive(p->flash, "partitions");
	for (const cJSON *e = cJSON_IsObject(parts) ? parts->child : NULL; e; e = e->next) {
		int ok = 0;
		for (size_t i = 0; i < KVB_ARRAY_SIZE(fields) && cJSON_IsString(e); i++)
			ok |= !strcmp(e->valuestring, fields[i]);
		if (!ok) {
			char *path = kvb_path_key("flash.partitions", e->string);
			kvb_diag_at(d, path, "must name a variant file: kernel, dtb, initrd, boot_image or modules");
			free(path);
		}
	}
}

/* The default partitions ({boot: boot_image}) and any that take boot_image or kernel need one
 * from the variant (a boot_image, or a kernel to build one from); {dtbo: dtb} alone does not. */
static int fastboot_needs_kernel(const struct kvb_platform *p)
{
	const cJSON *parts = cJSON_GetObjectItemCaseSensitive(p->flash, "partitions");
	if (!parts || !parts->child)
		return 1;
	for (const cJSON *e = parts->child; e; e = e->next)
		if (cJSON_IsString(e) && (!strcmp(e->valuestring, "boot_image") || !strcmp(e->valuestring, "kernel")))
			return 1;
	return 0;
}

const struct kvb_flasher_ops kvb_flasher_fastboot = {
	.name = "fastboot",
	.summary = "build boot.img with mkbootimg (or take boot_image), adb reboot bootloader, fastboot flash, reboot",
	.keys = fastboot_keys,
	.caps = KVB_FLASH_INSTALLS_KERNEL | KVB_FLASH_WHOLE_BOOT_IMAGE | KVB_FLASH_NEEDS_KERNEL |
		KVB_FLASH_READS_IMAGE,
	.check = fastboot_check,
	.needs_kernel = fastboot_needs_kernel,
	.flash = fastboot_flash,
};
