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

/* For a LAVA device type that is flashed a boot image (its template downloads ${boot_image}): built as the
 * fastboot flasher builds it (kvb_fastboot_build_boot_image) when the variant gives a kernel, not a boot image. */
static const struct kvb_keydef lava_flash_keys[] = {
	{ "mkbootimg_args", KVB_T_STRLIST, NULL, NULL, 0,
	  "mkbootimg options for a boot image the LAVA template flashes (load addresses, --pagesize, --header_version)" },
	{ "cmdline", KVB_T_STR, NULL, NULL, 0, "the board's kernel command line in that boot image; the variant's is appended" },
	{ "dtb_mode", KVB_T_STR, "append", "append|header", 0,
	  "dtb appended to the kernel (header v0/v1) or given as mkbootimg --dtb (header v2)" },
	{ "ramdisk", KVB_T_STR, NULL, NULL, 0, "ramdisk for variants without initrd (relative to the platform directory)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

const struct kvb_flasher_ops kvb_flasher_lava = {
	.keys = lava_flash_keys,
	.name = "lava",
	.summary = "the variant is deployed and booted by its LAVA job (connection type lava)",
	/* the job definition deploys the variant's kernel, initrd and dtb; without a kernel there is no
	 * job (target/lava.c: "a LAVA job needs a kernel") */
	.caps = KVB_FLASH_INSTALLS_KERNEL | KVB_FLASH_NEEDS_KERNEL,
	.flash = lava_flash,
};
