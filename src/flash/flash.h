/*
 * Flashers: put a variant on the board and bring it up (docs/design.md#the-job-lifecycle, docs/design.md#backends-and-capabilities).
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

/*
 * What a flasher can do. The engine and commands ask these, never the
 * flasher's name (docs/design.md#backends-and-capabilities), so a new flasher is one file plus one
 * registry line.
 */
enum kvb_flash_caps {
	/* installs a variant's kernel (or boot image); without it, variants that give a
	 * kernel are refused before the run starts */
	KVB_FLASH_INSTALLS_KERNEL = 1u << 0,
	/* flashes a variant's boot_image as given, so the kernel inside it is the one that
	 * boots even when the variant also names a kernel (the identity check expects it) */
	KVB_FLASH_WHOLE_BOOT_IMAGE = 1u << 1,
	/* boots each variant's own kernel and has nothing to boot without one: a variant
	 * must give a kernel (or a boot_image, with KVB_FLASH_WHOLE_BOOT_IMAGE) or a git
	 * revision kvbench builds; one that gives none is refused before the run starts.
	 * A flasher whose need depends on its platform keys says so with needs_kernel. */
	KVB_FLASH_NEEDS_KERNEL = 1u << 2,
	/* kvbench itself boots the variant's kernel or boot_image as one (qemu -kernel, mkbootimg and
	 * fastboot): a file that is not one (flash/kimage.h kvb_kimage_check) is refused before the run
	 * starts. On flashers that pass it on to a hook or the board's bootloader (command, ssh-copy,
	 * lava) the preflight only notes it: the engine's same check before flash() fails that variant. */
	KVB_FLASH_READS_IMAGE = 1u << 3,
};

struct kvb_flasher_ops {
	const char *name;     /* flash.method */
	const char *summary;
	const struct kvb_keydef *keys; /* keys allowed under flash: besides method (NULL: none) */
	unsigned caps;        /* enum kvb_flash_caps */
	/* enum kvb_target_caps the platform's connection must have (0: any); checked when the
	 * platform loads, so `platform check` says it before a run boots anything */
	unsigned target_caps;
	/* Boots per variant when neither the agenda nor --rounds says (each round is a
	 * boot, docs/design.md#statistics); 0: 2 when no variant gives a kernel, else 1. */
	int default_rounds;
	/* Checks beyond the key table (a hook that must be executable ...), errors to d;
	 * p->flash holds the flash: map. May be NULL. */
	void (*check)(const struct kvb_platform *p, struct kvb_diag *d);
	/* 1 when, with p's flash: keys, a variant must give a kernel (KVB_FLASH_NEEDS_KERNEL for
	 * this platform). May be NULL: the caps bit alone decides. */
	int (*needs_kernel)(const struct kvb_platform *p);
	/* Installs the variant, reboots and waits until the target answers. KVB_ETARGET on failure. */
	int (*flash)(struct kvb_flash_ctx *ctx, struct kvb_error *err);
};

/*
 * Builds dir/boot.img with Debian's mkbootimg from v's kernel (local file), its dtb
 * (appended to the kernel, or --dtb in a header-v2 image: plat->flash's dtb_mode),
 * its initrd (else plat->flash's ramdisk), plat->flash's cmdline followed by v's, and
 * plat->flash's mkbootimg_args (flash/fastboot.c; the lava flasher takes the same keys
 * for a LAVA device type that is flashed a boot image). *out owned. KVB_EINPUT without a
 * kernel, KVB_ETARGET when mkbootimg fails (its last line quoted).
 */
int kvb_fastboot_build_boot_image(const struct kvb_platform *plat, const struct kvb_variant *v, const char *dir,
				  volatile int *cancel, char **out, struct kvb_error *err);

extern const struct kvb_flasher_ops *const kvb_flashers[];
const struct kvb_flasher_ops *kvb_flasher_find(const char *name);
/*
 * 1 when every round is a fresh boot of the board: a flasher that installs the variant's
 * kernel boots it each round; one that installs nothing (none), or NULL, leaves the board in
 * the one boot for every round. Stored with the run (run.boots_each_round): the results
 * view's boot unit (docs/design.md#statistics).
 */
int kvb_flasher_boots_each_round(const struct kvb_flasher_ops *f);

#endif
