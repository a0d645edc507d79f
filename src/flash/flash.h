/*
 * Flashers: put a variant on the board and bring it up (DESIGN.md §3, §5).
 * One backend per file, chosen by the platform's flash.method, listed in
 * kvb_flashers[] (flash.c). The engine verifies the running kernel's
 * identity after flash() returns (engine/identity.c), whatever the flasher.
 */
#ifndef KVB_FLASH_H
#define KVB_FLASH_H

#include "config/agenda.h"
#include "config/platform.h"
#include "target/target.h"

struct kvb_flash_ctx {
	struct kvb_target *target;          /* open (or to be opened) target of the platform */
	const struct kvb_platform *plat;
	const struct kvb_variant *variant;  /* kernel fields are local paths after fetching */
	const char *artifact_dir;           /* where to keep console logs etc. (exists) */
	int round;                          /* 1-based boot number of this variant */
	uint64_t timeout_ms;                /* boot budget (platform boot.timeout_s) */
	char *console_log;                  /* set by the flasher when it has one (owned by ctx user) */
};

struct kvb_flasher_ops {
	const char *name;     /* flash.method */
	const char *summary;
	/* Installs the variant, reboots and waits until the target answers. KVB_ETARGET on failure. */
	int (*flash)(struct kvb_flash_ctx *ctx, struct kvb_error *err);
};

extern const struct kvb_flasher_ops *const kvb_flashers[];
const struct kvb_flasher_ops *kvb_flasher_find(const char *name);

#endif
