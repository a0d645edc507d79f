/*
 * Kernel image identity: the release and version strings a kernel image
 * carries, read without booting it, so a flasher can check that the board
 * runs the kernel it was given (`uname -r` == release, `uname -v` == version).
 *
 * Formats understood:
 *  - x86 bzImage: the setup header's kernel_version field (offset 0x20E, a
 *    pointer minus 0x200) names "RELEASE (builder) VERSION"
 *    (Documentation/arch/x86/boot.rst, "kernel_version").
 *  - any image holding the kernel's banner "Linux version RELEASE (builder)
 *    (compiler) VERSION" (init/version.c linux_banner) uncompressed: vmlinux,
 *    arm64/riscv Image;
 *  - the same, gzip-compressed as a whole (Image.gz, Debian's arm64 vmlinuz)
 *    or inside an EFI zboot image ("zimg" at offset 4, payload offset and
 *    size at 8 and 12, compression name at 24; drivers/firmware/efi/libstub/
 *    zboot-header.S) whose payload is gzip.
 */
#ifndef KVB_KIMAGE_H
#define KVB_KIMAGE_H

#include "core/error.h"

#include <stddef.h>

struct kvb_kimage_id {
	char *release;  /* "6.1.0-57-cloud-amd64": what `uname -r` prints on that kernel */
	char *version;  /* "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2025-11-26)": what `uname -v` prints */
	char *banner;   /* the whole string the two came from */
	const char *format; /* static: "bzImage", "raw", "gzip" or "zboot" */
};

/*
 * Reads the image at path and fills id (owned strings; release with
 * kvb_kimage_id_release). Returns KVB_EINPUT when the file cannot be read or
 * holds no version string (the message quotes path), KVB_OK otherwise.
 */
int kvb_kimage_identify(const char *path, struct kvb_kimage_id *id, struct kvb_error *err);

/* Same on an image already in memory; name is used in messages only. */
int kvb_kimage_identify_mem(const unsigned char *data, size_t n, const char *name, struct kvb_kimage_id *id,
			    struct kvb_error *err);

/*
 * Splits "RELEASE (builder) [(compiler)] VERSION" (the bzImage string, or the
 * banner after "Linux version ") into release and version: the release is the
 * first word, then each parenthesised group (nested parentheses allowed) is
 * skipped, and the rest of the line is the version. Returns KVB_EINPUT on a
 * string with no release or no version.
 */
int kvb_kimage_parse_version(const char *s, struct kvb_kimage_id *id, struct kvb_error *err);

void kvb_kimage_id_release(struct kvb_kimage_id *id);

/* What a file is, in kvbench's terms, from Debian's libmagic (kimage_magic.c lists the
 * descriptions read and where they come from). */
enum kvb_kimage_kind { KVB_KIMAGE_OTHER, KVB_KIMAGE_KERNEL, KVB_KIMAGE_BOOT_IMAGE };
struct kvb_kimage_type {
	enum kvb_kimage_kind kind;
	const char *arch; /* static, a kernel's: "x86", "arm64", "arm", "riscv" (make ARCH=), NULL when not said */
	int text;         /* libmagic calls it text (and it is no kernel): never a kernel image */
	char what[256];   /* libmagic's description ("Linux kernel ARM64 boot executable Image, ..."), cut */
};

/* t for the file at path (compressed files are described by their contents). KVB_EINPUT when the
 * file cannot be read or libmagic cannot start (message says which). */
int kvb_kimage_type_file(const char *path, struct kvb_kimage_type *t, struct kvb_error *err);
/* The same for n bytes in memory (a boot image's kernel part). */
int kvb_kimage_type_mem(const void *data, size_t n, struct kvb_kimage_type *t, struct kvb_error *err);

/*
 * Is the file at path a variant's kernel (boot_image 0) or Android boot image (1) for a board of
 * arch ("x86", "arm64", "arm", "riscv"; NULL: any), before anything is flashed or copied: its
 * type from libmagic, then its release string (kvb_kimage_identify / kvb_bootimg_identify). The
 * one check every flasher's variant goes through (engine/run_board.c before flash, and the
 * preflight). KVB_EINPUT with a message naming path and what it is when it is not (a text file, a
 * program, a boot image given as kernel, a 2 GiB disk image, an arm64 Image for an x86 board);
 * KVB_OK otherwise, with *note (owned, else NULL) when it is a kernel whose release cannot be read
 * (the identity check then compares the cmdline). A file libmagic does not name (an EFI zboot
 * image) is a kernel when it holds a "Linux version" banner; its architecture is not checked.
 */
int kvb_kimage_check(const char *path, int boot_image, const char *arch, char **note, struct kvb_error *err);

#endif
