/*
 * LAVA job definitions from the platform's `lava:` block (docs/design.md#pools-and-lava):
 * the deploy and boot actions are data, one template per LAVA device type,
 * so a board kvbench has no C for (hi960-hikey by fastboot, juno-uboot by
 * TFTP/NFS and u-boot, a lab's own type) is one platform file:
 *
 *   lava:
 *     priority: medium        # high|medium|low or 0..100
 *     visibility: public      # public|personal|{group: [NAMES]}
 *     device_types:
 *       qemu:
 *         deploy: {to: tmpfs, images: {kernel: {url: "${kernel}", image_arg: "-kernel {kernel} ..."}, ...}}
 *         boot: {method: qemu, media: tmpfs, prompts: ["${prompt}"]}
 *         context: {arch: amd64}
 *
 * `deploy` and `boot` are one action each (a mapping) or a list of them, written
 * as LAVA's job schema has them; kvbench adds the test action (the unit's
 * commands), a timeout to each action that has none, and the job's own keys.
 * LAVA's own placeholders ({kernel} in a qemu image_arg) pass through; kvbench's
 * are ${NAME}, filled per unit:
 *   kernel initrd dtb modules boot_image rootfs   URLs LAVA downloads (the variant's
 *                                                  files, served by kvbench or as given)
 *   initrd_compression modules_compression rootfs_compression   gz|xz|bz2|zstd from the
 *                                                  file name, when compressed
 *   cmdline          connection.kernel_cmdline and the variant's cmdline
 *   prompt           connection.prompt
 *   device_type      connection.device_type
 * ${NAME} whose value the unit does not have drops the mapping holding it from its
 * parent (images: {initrd: {url: "${initrd}", ...}} without an initrd: no initrd
 * image); in the action itself it is an error naming the variable. ${NAME?} drops
 * only the key (or list item) holding it.
 */
#ifndef KVB_LAVA_DEF_H
#define KVB_LAVA_DEF_H

#include "config/doc.h"
#include "config/keys.h"
#include "core/error.h"

#include <cjson/cJSON.h>

enum kvb_lava_var {
	KVB_LV_KERNEL,
	KVB_LV_INITRD,
	KVB_LV_INITRD_COMPRESSION,
	KVB_LV_DTB,
	KVB_LV_MODULES,
	KVB_LV_MODULES_COMPRESSION,
	KVB_LV_BOOT_IMAGE,
	KVB_LV_ROOTFS,
	KVB_LV_ROOTFS_COMPRESSION,
	KVB_LV_CMDLINE,
	KVB_LV_PROMPT,
	KVB_LV_DEVICE_TYPE,
	KVB_LV_N
};

/* The variable's name as templates write it ("kernel"); static. */
const char *kvb_lava_var_name(enum kvb_lava_var v);
/* The compression LAVA names for a file's name ("gz" for x.cpio.gz ...), or NULL. Static. */
const char *kvb_lava_compression(const char *name);

/* Keys of the `lava:` block (for `kvbench help lava` and checks). */
extern const struct kvb_keydef kvb_lava_block_keys[];

/*
 * Checks a platform's lava: block (at `where`, usually "lava") for the device
 * types its connections ask for: known keys, a template with deploy and boot
 * for each, only known ${NAME} variables. Problems go to d.
 */
void kvb_lava_block_check(const cJSON *lava, const char *where, const char *const *device_types, size_t n,
			  struct kvb_diag *d);

/* The template of device_type (NULL when the block has none). */
const cJSON *kvb_lava_template(const cJSON *lava, const char *device_type);
/* 1 when the template refers to variable v (kvbench then prepares that file, e.g. builds a boot image). */
int kvb_lava_template_uses(const cJSON *tmpl, enum kvb_lava_var v);

/*
 * Appends the template's deploy and boot actions, filled with vars (NULL =
 * the unit has no such value), to actions (a cJSON array of {"deploy": ...}
 * / {"boot": ...}). deploy_min and boot_min become the timeout of an action
 * that has none. KVB_EINPUT naming the variable and the device type when a
 * required one is missing.
 */
int kvb_lava_template_actions(const cJSON *tmpl, const char *device_type, const char *const vars[KVB_LV_N],
			      long deploy_min, long boot_min, cJSON *actions, struct kvb_error *err);

#endif
