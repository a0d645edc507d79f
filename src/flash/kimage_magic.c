/*
 * Implements kvb_kimage_check: is a variant's file a kernel (or boot image) at all, read from its
 * magic numbers and, through kimage.c/bootimg.c, the release string inside.
 *
 * Magic numbers and where they sit:
 *  - x86 bzImage: "HdrS" at 0x202 (Documentation/arch/x86/boot.rst, "header");
 *  - arm64 Image: "ARM\x64" at 56 (Documentation/arch/arm64/booting.rst, "magic");
 *  - RISC-V Image: "RSC\x05" at 56 (Documentation/arch/riscv/boot-image-header.rst, "magic2");
 *  - 32-bit arm zImage: 0x016f2818 little-endian at 0x24 (arch/arm/boot/compressed/head.S);
 *  - EFI zboot: "MZ" at 0 and "zimg" at 4 (drivers/firmware/efi/libstub/zboot-header.S);
 *  - ELF (vmlinux): "\x7fELF" at 0;
 *  - compressed streams: gzip 1f 8b (RFC 1952), xz fd "7zXZ" 00, zstd 28 b5 2f fd (RFC 8878),
 *    lz4 legacy 02 21 4c 18 (lz4 frame format doc), bzip2 "BZh";
 *  - Android boot image: "ANDROID!" at 0 (AOSP bootimg.h), vendor_boot "VNDRBOOT".
 */
#include "flash/kimage.h"
#include "flash/bootimg.h"
#include "core/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define KIMAGE_MAX_BYTES (512u << 20) /* no kernel image is this big: a root filesystem or a disk image is */

const char *kvb_kimage_magic(const unsigned char *d, size_t n)
{
	if (n >= 8 && !memcmp(d, "ANDROID!", 8))
		return "an Android boot image";
	if (n >= 8 && !memcmp(d, "VNDRBOOT", 8))
		return "an Android vendor_boot image";
	if (n >= 0x206 && !memcmp(d + 0x202, "HdrS", 4))
		return "an x86 bzImage";
	if (n >= 64 && !memcmp(d, "MZ", 2) && !memcmp(d + 4, "zimg", 4))
		return "an EFI zboot image";
	if (n >= 60 && !memcmp(d + 56, "ARM\x64", 4))
		return "an arm64 Image";
	if (n >= 60 && !memcmp(d + 56, "RSC\x05", 4))
		return "a RISC-V Image";
	if (n >= 0x28 && d[0x24] == 0x18 && d[0x25] == 0x28 && d[0x26] == 0x6f && d[0x27] == 0x01)
		return "an arm zImage";
	if (n >= 4 && !memcmp(d, "\x7f" "ELF", 4))
		return "an ELF file (vmlinux)";
	if (n >= 2 && d[0] == 0x1f && d[1] == 0x8b)
		return "a gzip file";
	if (n >= 6 && !memcmp(d, "\xfd" "7zXZ\0", 6))
		return "an xz file";
	if (n >= 4 && !memcmp(d, "\x28\xb5\x2f\xfd", 4))
		return "a zstd file";
	if (n >= 4 && !memcmp(d, "\x02\x21\x4c\x18", 4))
		return "an lz4 file";
	if (n >= 3 && !memcmp(d, "BZh", 3))
		return "a bzip2 file";
	return NULL;
}

int kvb_kimage_check(const char *path, int boot_image, char **note, struct kvb_error *err)
{
	unsigned char head[4096];
	struct kvb_kimage_id id;
	struct kvb_error e2;
	struct stat st;
	const char *kind;
	size_t n;
	FILE *f;
	int rc;
	*note = NULL;
	if (stat(path, &st) || !(f = fopen(path, "rb")))
		return kvb_error_set(err, KVB_EINPUT, "cannot read '%s': %s", path, strerror(errno));
	n = fread(head, 1, sizeof(head), f);
	fclose(f);
	kind = kvb_kimage_magic(head, n);
	if (boot_image) {
		if (!kind || strcmp(kind, "an Android boot image"))
			return kvb_error_set(err, KVB_EINPUT,
					     "'%s' is not an Android boot image (no \"ANDROID!\" at its start; it looks like %s)%s",
					     path, kind ? kind : "no format kvbench knows",
					     kind && strstr(kind, "Image") ? ": give a kernel as kernel:, not boot_image:" : "");
		rc = kvb_bootimg_identify(path, &id, NULL, &e2);
		if (rc && strstr(e2.msg, "no kernel version"))
			*note = kvb_xasprintf("'%s': boot image whose kernel's release kvbench cannot read: the identity check "
					      "after boot compares the cmdline only", path);
		else if (rc)
			return kvb_error_set(err, KVB_EINPUT, "%s", e2.msg);
		kvb_kimage_id_release(&id);
		return KVB_OK;
	}
	if (kind && strstr(kind, "Android"))
		return kvb_error_set(err, KVB_EINPUT, "'%s' is %s, not a kernel: give it as boot_image: (-V NAME=,boot_image=%s)",
				     path, kind, path);
	if ((uint64_t)st.st_size > KIMAGE_MAX_BYTES)
		return kvb_error_set(err, KVB_EINPUT, "'%s' is %lld MiB: too big for a kernel image (a root filesystem or disk "
						      "image?)", path, (long long)(st.st_size >> 20));
	rc = kvb_kimage_identify(path, &id, &e2);
	kvb_kimage_id_release(&id);
	if (!rc)
		return KVB_OK;
	if (kind) /* a kernel kvbench cannot read the release of (arm zImage, xz, a stripped vmlinux): boot it, say so */
		*note = kvb_xasprintf("'%s' is %s whose release kvbench cannot read: the identity check after boot "
				      "compares the cmdline only", path, kind);
	else
		return kvb_error_set(err, KVB_EINPUT,
				     "'%s' is not a kernel image: neither an x86 bzImage, arm64 or RISC-V Image, Image.gz, "
				     "EFI zboot image nor vmlinux, and it holds no \"Linux version\" string",
				     path);
	return KVB_OK;
}
