/* Implements the `lava` flasher: the variant is deployed and booted by its LAVA job (connection type lava). */
#include "flash/flash.h"
#include "target/target.h"

static int lava_flash(struct kvb_flash_ctx *ctx, struct kvb_error *err)
{
	/* the boot already happened inside the LAVA job (target/lava.c); only a batch target can have run it */
	if (!ctx->target->ops->batch)
		return kvb_error_set(err, KVB_EINPUT, "flash method lava needs connection type lava");
	return KVB_OK;
}

const struct kvb_flasher_ops kvb_flasher_lava = {
	.name = "lava",
	.summary = "the variant is deployed and booted by its LAVA job (connection type lava)",
	/* the job definition deploys the variant's kernel, initrd and dtb; without a kernel there is no
	 * job (target/lava.c: "a LAVA job needs a kernel") */
	.caps = KVB_FLASH_INSTALLS_KERNEL | KVB_FLASH_NEEDS_KERNEL,
	.flash = lava_flash,
};
