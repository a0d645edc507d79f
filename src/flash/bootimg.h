/*
 * Android boot images (boot.img), read without any Android tool: the header
 * says where the kernel, ramdisk, second stage and dtb sit and carries the
 * kernel command line. kvbench builds boot images with Debian's `mkbootimg`
 * (flash/fastboot.c); this reader lets the engine learn which kernel a given
 * boot_image holds and lets the fastboot simulator "boot" what was flashed.
 *
 * Layout (AOSP system/tools/mkbootimg include/bootimg/bootimg.h; all fields
 * little-endian u32 unless said otherwise):
 *  - every version: magic "ANDROID!" at 0, header_version at 40.
 *  - v0..v2: kernel_size 8, kernel_addr 12, ramdisk_size 16, ramdisk_addr 20,
 *    second_size 24, second_addr 28, tags_addr 32, page_size 36, os_version
 *    44, name[16] 48, cmdline[512] 64, id[32] 576, extra_cmdline[1024] 608;
 *    v1 adds recovery_dtbo_size 1632, recovery_dtbo_offset (u64) 1636,
 *    header_size 1644; v2 adds dtb_size 1648, dtb_addr (u64) 1652. The header
 *    takes one page; then kernel, ramdisk, second, recovery dtbo, dtb, each
 *    starting on a page boundary. On v0 images of some old boards the field
 *    at 40 is a dt_size; values above 4 are read as v0.
 *  - v3/v4: kernel_size 8, ramdisk_size 12, os_version 16, header_size 20,
 *    cmdline[1536] 44; pages are 4096 bytes; kernel then ramdisk (the dtb
 *    moved to vendor_boot).
 */
#ifndef KVB_BOOTIMG_H
#define KVB_BOOTIMG_H

#include "core/error.h"
#include "flash/kimage.h"

#include <stddef.h>
#include <stdint.h>

#define KVB_BOOTIMG_CMDLINE_MAX 1536 /* 512 + 1024 (v0..v2) or 1536 (v3/v4), without the NUL */

/* Where each part of a boot image lies: byte offsets and sizes into the file (0 size = absent). */
struct kvb_bootimg {
	unsigned header_version;
	uint32_t page_size;
	size_t kernel_off, kernel_size;
	size_t ramdisk_off, ramdisk_size;
	size_t second_off, second_size;
	size_t dtb_off, dtb_size;                  /* v2 only */
	char name[17];                              /* product name (v0..v2), NUL-terminated */
	char cmdline[KVB_BOOTIMG_CMDLINE_MAX + 1];  /* cmdline + extra_cmdline joined, NUL-terminated */
};

/*
 * Parses the header of the n-byte image data. name is used in messages.
 * Returns KVB_EINPUT (message quotes name) when the magic is missing, the
 * page size is not a power of two in 2048..65536, or a part runs past the
 * end of the data; KVB_OK otherwise.
 */
int kvb_bootimg_parse(const unsigned char *data, size_t n, const char *name, struct kvb_bootimg *bi,
		      struct kvb_error *err);

/*
 * Reads the boot image at path and the release/version of the kernel inside
 * (kvb_kimage_identify_mem on the kernel part, which may be Image.gz with a
 * dtb appended). cmdline_out, if not NULL, receives the image's command line
 * (owned). Errors: KVB_EINPUT as above or when the kernel has no version
 * string.
 */
int kvb_bootimg_identify(const char *path, struct kvb_kimage_id *id, char **cmdline_out, struct kvb_error *err);

#endif
