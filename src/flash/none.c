/* Implements the `none` flasher: variants differ only in runtime knobs; nothing is installed. */
#include "flash/flash.h"

static int none_flash(struct kvb_flash_ctx *ctx, struct kvb_error *err)
{
	(void)ctx;
	(void)err;
	return KVB_OK;
}

const struct kvb_flasher_ops kvb_flasher_none = {
	.name = "none",
	.summary = "nothing to install: variants differ only in runtime knobs",
	/* two boots of the same kernel still tell a real change from boot-to-boot noise */
	.default_rounds = 2,
	.flash = none_flash,
};
