/*
 * Implements the `ssh-copy` flasher (Juno-style boards whose bootloader loads
 * the kernel and dtb from a file system): copy the variant's kernel, dtb and
 * initrd into flash.boot_path over the target's push (SFTP on ssh), check
 * each copy's sha256 on the board, move them into place, `sync`, reboot and
 * wait for a new boot.
 *
 * Files go to a temporary name beside their final one and are renamed only
 * after every copy checked out, so a cut connection never leaves a half
 * kernel where the bootloader looks. The cmdline is not installed (it comes
 * from the board's bootloader configuration); the identity check still
 * verifies it.
 */
#include "flash/flash.h"
#include "config/keys.h"
#include "core/log.h"
#include "core/sha256.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SC_CMD_MS 120000ull /* sha256sum of a kernel on a slow SD card, mv, sync */

/* Last path element of a path or URL (query and fragment dropped). Owned. */
static char *source_name(const char *src)
{
	size_t end = strcspn(src, "?#"), start = end;
	while (start && src[start - 1] != '/')
		start--;
	return kvb_xstrndup(src + start, end - start);
}

struct copy {
	int field;          /* enum kvb_vfile */
	char *name;         /* file name in boot_path */
	char *tmp, *final;  /* remote paths */
};

/* Compares the board's sha256 of remote with the local file's. */
static int check_copy(struct kvb_flash_ctx *ctx, const struct copy *c, struct kvb_error *err)
{
	const struct kvb_variant *v = ctx->variant;
	const char *argv[] = { "sha256sum", c->tmp, NULL };
	struct kvb_exec_result r;
	char local[65];
	int rc;
	if (v->local_sha256[c->field][0])
		memcpy(local, v->local_sha256[c->field], sizeof(local));
	else if (kvb_sha256_file(v->local[c->field], local, NULL))
		return kvb_error_set(err, KVB_EINPUT, "cannot read '%s'", v->local[c->field]);
	kvb_exec_result_init(&r);
	rc = kvb_target_exec(ctx->target, argv, SC_CMD_MS, &r, err);
	if (!rc && r.exit_code == 127) {
		kvb_warn("ssh-copy: the board has no sha256sum: copies of variant '%s' are not verified", v->name);
	} else if (!rc && (r.exit_code != 0 || r.out.len < 64 || memcmp(r.out.data, local, 64))) {
		rc = kvb_error_set(err, KVB_ETARGET, "the copy of '%s' at '%s' has sha256 %.64s, expected %s",
				   v->local[c->field], c->tmp, r.out.len >= 64 ? r.out.data : "(none)", local);
	}
	kvb_exec_result_release(&r);
	return rc;
}

static int ssh_copy_flash(struct kvb_flash_ctx *ctx, struct kvb_error *err)
{
	const struct kvb_variant *v = ctx->variant;
	const struct kvb_platform *p = ctx->plat;
	const char *dir = kvb_get_str(p->flash, "boot_path", NULL);
	const char *src[KVB_VF_N] = { v->kernel, v->dtb, v->initrd, NULL, NULL };
	const char *keys[KVB_VF_N] = { "kernel_name", "dtb_name", "initrd_name", NULL, NULL };
	struct copy c[3];
	size_t n = 0;
	int rc = KVB_OK, pushed = 0;

	memset(c, 0, sizeof(c));
	if (!dir)
		return kvb_error_set(err, KVB_EINPUT, "%s: flash method ssh-copy needs flash.boot_path", p->file);
	if (!v->local[KVB_VF_KERNEL])
		return kvb_error_set(err, KVB_EINPUT, "variant '%s' has no kernel to copy (flash method ssh-copy)", v->name);
	if (v->local[KVB_VF_BOOT_IMAGE] || v->local[KVB_VF_MODULES])
		kvb_warn("variant '%s': flash method ssh-copy installs kernel, dtb and initrd only", v->name);
	for (int f = KVB_VF_KERNEL; f <= KVB_VF_INITRD; f++) {
		const char *name;
		if (!v->local[f])
			continue;
		name = kvb_get_str(p->flash, keys[f], f == KVB_VF_KERNEL ? "Image" : NULL);
		c[n].field = f;
		c[n].name = name ? kvb_xstrdup(name) : source_name(src[f] ? src[f] : v->local[f]);
		if (!*c[n].name || strchr(c[n].name, '/')) {
			rc = kvb_error_set(err, KVB_EINPUT, "%s: flash.%s '%s' must be a plain file name", p->file, keys[f],
					   c[n].name);
			n++;
			goto out;
		}
		c[n].final = kvb_xasprintf("%s/%s", dir, c[n].name);
		c[n].tmp = kvb_xasprintf("%s/.%s.kvbench-new", dir, c[n].name);
		n++;
	}
	for (size_t i = 0; i < n; i++) {
		pushed = 1;
		if ((rc = kvb_target_push(ctx->target, v->local[c[i].field], c[i].tmp, err))) {
			kvb_error_prefix(err, "copying variant '%s' to the board", v->name);
			goto out;
		}
		if ((rc = check_copy(ctx, &c[i], err)))
			goto out;
	}
	pushed = 0; /* every copy checked: from here on they are moved into place */
	for (size_t i = 0; i < n; i++) {
		const char *mv[] = { "mv", "-f", c[i].tmp, c[i].final, NULL };
		struct kvb_exec_result r;
		kvb_exec_result_init(&r);
		rc = kvb_target_run_ok(ctx->target, mv, SC_CMD_MS, &r, err);
		kvb_exec_result_release(&r);
		if (rc)
			goto out;
		kvb_info("ssh-copy: variant '%s' %s -> %s", v->name, v->local[c[i].field], c[i].final);
	}
	{
		const char *sync[] = { "sync", NULL };
		struct kvb_exec_result r;
		kvb_exec_result_init(&r);
		rc = kvb_target_run_ok(ctx->target, sync, SC_CMD_MS, &r, err);
		kvb_exec_result_release(&r);
		if (rc)
			goto out;
	}
	if ((rc = kvb_target_reboot(ctx->target, NULL, err)))
		goto out;
	if ((rc = kvb_target_wait_ready(ctx->target, ctx->timeout_ms, err)))
		kvb_error_prefix(err, "after installing variant '%s'", v->name);
out:
	if (rc && pushed) {
		/* best effort: no half-copied file stays beside the board's kernel */
		struct kvb_strv rm = KVB_STRV_INIT;
		struct kvb_exec_result r;
		struct kvb_error e2;
		kvb_strv_push(&rm, "rm");
		kvb_strv_push(&rm, "-f");
		for (size_t i = 0; i < n; i++)
			kvb_strv_push(&rm, c[i].tmp);
		kvb_exec_result_init(&r);
		kvb_target_exec(ctx->target, kvb_strv_argv(&rm), SC_CMD_MS, &r, &e2);
		kvb_exec_result_release(&r);
		kvb_strv_release(&rm);
	}
	for (size_t i = 0; i < n; i++) {
		free(c[i].name);
		free(c[i].tmp);
		free(c[i].final);
	}
	return rc;
}

static const struct kvb_keydef ssh_copy_keys[] = {
	{ "boot_path", KVB_T_STR, NULL, NULL, 0, "directory on the board for kernel and dtb (required)" },
	{ "kernel_name", KVB_T_STR, "Image", NULL, 0, "file name of the kernel in boot_path" },
	{ "dtb_name", KVB_T_STR, NULL, NULL, 0, "file name of the dtb in boot_path (default: the variant's dtb file name)" },
	{ "initrd_name", KVB_T_STR, NULL, NULL, 0, "file name of the initrd in boot_path (default: the variant's initrd file name)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static void ssh_copy_check(const struct kvb_platform *p, struct kvb_diag *d)
{
	if (!kvb_get_str(p->flash, "boot_path", NULL))
		kvb_diag_at(d, "flash", "method ssh-copy needs boot_path (the board's directory for kernel and dtb)");
}

const struct kvb_flasher_ops kvb_flasher_ssh_copy = {
	.name = "ssh-copy",
	.summary = "copy kernel/dtb/initrd to flash.boot_path over the target (sha256 checked), sync, reboot",
	.keys = ssh_copy_keys,
	.caps = KVB_FLASH_INSTALLS_KERNEL | KVB_FLASH_NEEDS_KERNEL,
	.check = ssh_copy_check,
	.flash = ssh_copy_flash,
};
