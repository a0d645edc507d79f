/* Implements the `qemu` flasher: boot the variant's kernel, initrd and cmdline on the QEMU board. */
#include "flash/flash.h"
#include "core/util.h"
#include "target/qemu.h"

#include <stdlib.h>
#include <string.h>

static int qemu_flash(struct kvb_flash_ctx *ctx, struct kvb_error *err)
{
	const struct kvb_variant *v = ctx->variant;
	char *console;
	int rc;
	if (!(ctx->target->ops->caps & KVB_TARGET_OWNS_BOARD))
		return kvb_error_set(err, KVB_EINPUT, "%s: flash method qemu needs a connection that owns the board (qemu), not %s",
				     ctx->plat->file, ctx->target->ops->name);
	if (!v->local[KVB_VF_KERNEL])
		return kvb_error_set(err, KVB_EINPUT, "variant '%s' has no kernel to boot (give kernel: or -V %s=KERNEL)",
				     v->name, v->name);
	/* the console is always kept beside the boot's other files, so a kernel that does not
	 * boot leaves its log as an artifact */
	console = kvb_xasprintf("%s/console.log", ctx->artifact_dir);
	{
		char *label = kvb_xasprintf("variant '%s', round %d", v->name, ctx->round);
		kvb_qemu_set_label(ctx->target, label);
		free(label);
	}
	free(ctx->console_log);
	ctx->console_log = kvb_xstrdup(console);
	rc = kvb_qemu_boot(ctx->target, v->local[KVB_VF_KERNEL], v->local[KVB_VF_INITRD], v->cmdline, ctx->timeout_ms,
			   console, err);
	free(console);
	return rc;
}

const struct kvb_flasher_ops kvb_flasher_qemu = {
	.name = "qemu",
	.summary = "boot the variant's kernel/initrd/cmdline on the QEMU board (a fresh guest every round)",
	.caps = KVB_FLASH_INSTALLS_KERNEL | KVB_FLASH_NEEDS_KERNEL | KVB_FLASH_READS_IMAGE,
	.target_caps = KVB_TARGET_OWNS_BOARD, /* it hands the kernel to the QEMU process */
	/* boots are cheap and TCG timing varies from boot to boot: more of them */
	.default_rounds = 3,
	.flash = qemu_flash,
};
