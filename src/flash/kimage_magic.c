/*
 * Implements kvb_kimage_type_* and kvb_kimage_check: what a variant's file is (a kernel and for
 * which architecture, an Android boot image, or something else), from Debian's libmagic (the
 * library behind file(1): magic_open, magic_load, magic_file/magic_buffer), then, through
 * kimage.c/bootimg.c, the release string inside.
 *
 * libmagic's descriptions read here (its magic files "linux", "elf" and "android", file 5.44):
 *  - "Linux kernel x86 boot executable bzImage, version ..." (x86), "Linux kernel ARM64 boot
 *    executable Image, ..." (arm64), "Linux kernel ARM boot executable zImage ..." (arm), other
 *    "Linux kernel ..." lines (architecture not said);
 *  - "ELF 64-bit LSB executable, x86-64, ..., statically linked" (a vmlinux; the machine names the
 *    architecture: x86-64 / Intel 80386, ARM aarch64, ARM, UCB RISC-V); a dynamically linked ELF or
 *    a relocatable/shared object is a program or an object file, not a kernel;
 *  - "Android bootimg, kernel (0x...), ...";
 *  - with MAGIC_COMPRESS, a compressed file is described by its contents first, the compression in
 *    parentheses: "Linux kernel ARM64 boot executable Image, ... (gzip compressed data, ...)".
 * An EFI zboot image (libmagic: "MS-DOS executable") and any image libmagic does not name is a
 * kernel when kvbench reads a "Linux version" banner from it (kimage.c); its architecture is then
 * unknown and not checked.
 */
#include "flash/kimage.h"
#include "flash/bootimg.h"
#include "core/buf.h"
#include "core/util.h"

#include <errno.h>
#include <magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define KIMAGE_MAX_BYTES (512u << 20) /* no kernel image is this big: a root filesystem or a disk image is */

/* The architecture an ELF description's machine field names, or NULL. */
static const char *elf_arch(const char *d)
{
	if (strstr(d, ", x86-64,") || strstr(d, ", Intel 80386,"))
		return "x86";
	if (strstr(d, ", ARM aarch64,"))
		return "arm64";
	if (strstr(d, ", ARM,"))
		return "arm";
	if (strstr(d, "RISC-V"))
		return "riscv";
	return NULL;
}

/* Fills t from libmagic's description d. */
static void classify(const char *d, struct kvb_kimage_type *t)
{
	char *cut;
	snprintf(t->what, sizeof(t->what), "%s", d);
	/* the part that says what it is: not a program's build id, nor a bzImage's builder and flags */
	if ((cut = strstr(t->what, ", BuildID")))
		*cut = '\0';
	if (!strncmp(d, "Linux kernel x86", 16) && (cut = strstr(t->what, ", version ")) && (cut = strstr(cut, " (")))
		*cut = '\0';
	t->kind = KVB_KIMAGE_OTHER;
	t->arch = NULL;
	if (!strncmp(d, "Linux kernel", 12)) {
		t->kind = KVB_KIMAGE_KERNEL;
		if (strstr(d, " x86 boot executable"))
			t->arch = "x86";
		else if (strstr(d, " ARM64 boot executable"))
			t->arch = "arm64";
		else if (strstr(d, " ARM boot executable"))
			t->arch = "arm";
		else if (strstr(d, "RISC-V"))
			t->arch = "riscv";
	} else if (!strncmp(d, "Android bootimg", 15)) {
		t->kind = KVB_KIMAGE_BOOT_IMAGE;
	} else if (!strncmp(d, "ELF ", 4) && strstr(d, " executable,") && !strstr(d, "dynamically linked") &&
		   !strstr(d, "pie executable")) {
		t->kind = KVB_KIMAGE_KERNEL;
		t->arch = elf_arch(d);
	}
	t->text = strstr(d, " text") != NULL && t->kind == KVB_KIMAGE_OTHER;
}

/* One libmagic handle with the system's magic database: MAGIC_COMPRESS looks inside gzip, xz ... */
static magic_t open_magic(struct kvb_error *err)
{
	magic_t m = magic_open(MAGIC_COMPRESS | MAGIC_ERROR);
	if (!m) {
		kvb_error_set(err, KVB_EINPUT, "cannot start libmagic: %s", strerror(errno));
		return NULL;
	}
	if (magic_load(m, NULL)) {
		kvb_error_set(err, KVB_EINPUT, "libmagic cannot load its database: %s", magic_error(m));
		magic_close(m);
		return NULL;
	}
	return m;
}

int kvb_kimage_type_file(const char *path, struct kvb_kimage_type *t, struct kvb_error *err)
{
	magic_t m = open_magic(err);
	const char *d;
	int rc = KVB_OK;
	memset(t, 0, sizeof(*t));
	if (!m)
		return KVB_EINPUT;
	if ((d = magic_file(m, path)))
		classify(d, t);
	else
		rc = kvb_error_set(err, KVB_EINPUT, "cannot read '%s': %s", path, magic_error(m));
	magic_close(m);
	return rc;
}

int kvb_kimage_type_mem(const void *data, size_t n, struct kvb_kimage_type *t, struct kvb_error *err)
{
	magic_t m = open_magic(err);
	const char *d;
	int rc = KVB_OK;
	memset(t, 0, sizeof(*t));
	if (!m)
		return KVB_EINPUT;
	if ((d = magic_buffer(m, data, n)))
		classify(d, t);
	else
		rc = kvb_error_set(err, KVB_EINPUT, "libmagic: %s", magic_error(m));
	magic_close(m);
	return rc;
}

/* KVB_EINPUT when the kernel t is of another architecture than arch (NULL: not said). */
static int check_arch(const char *path, const struct kvb_kimage_type *t, const char *arch, const char *inside,
		      struct kvb_error *err)
{
	if (!arch || !t->arch || !strcmp(arch, t->arch))
		return KVB_OK;
	return kvb_error_set(err, KVB_EINPUT, "'%s'%s is a kernel for %s (%s), but the platform's arch is %s", path, inside,
			     t->arch, t->what, arch);
}

/* A boot_image: libmagic's "Android bootimg", the kernel inside of arch, its release read. */
static int check_boot_image(const char *path, const struct kvb_kimage_type *t, const char *arch, char **note,
			    struct kvb_error *err)
{
	struct kvb_buf b = KVB_BUF_INIT;
	struct kvb_kimage_type kt;
	struct kvb_kimage_id id;
	struct kvb_bootimg bi;
	struct kvb_error e2;
	int rc;
	if (t->kind != KVB_KIMAGE_BOOT_IMAGE)
		return kvb_error_set(err, KVB_EINPUT, "'%s' is not an Android boot image: it is %s%s", path, t->what,
				     t->kind == KVB_KIMAGE_KERNEL ? ": give a kernel as kernel:, not boot_image:" : "");
	if (kvb_buf_read_file(&b, path))
		return kvb_error_set(err, KVB_EINPUT, "cannot read '%s': %s", path, strerror(errno));
	rc = kvb_bootimg_parse((const unsigned char *)b.data, b.len, path, &bi, err);
	if (!rc && !kvb_kimage_type_mem(b.data + bi.kernel_off, bi.kernel_size, &kt, &e2))
		rc = check_arch(path, &kt, arch, "'s kernel", err);
	kvb_buf_release(&b);
	if (rc)
		return rc;
	rc = kvb_bootimg_identify(path, &id, NULL, &e2);
	if (rc && strstr(e2.msg, "no kernel version"))
		*note = kvb_xasprintf("'%s': boot image whose kernel's release kvbench cannot read: the identity check "
				      "after boot compares the cmdline only", path);
	else if (rc)
		return kvb_error_set(err, KVB_EINPUT, "%s", e2.msg);
	kvb_kimage_id_release(&id);
	return KVB_OK;
}

int kvb_kimage_check(const char *path, int boot_image, const char *arch, char **note, struct kvb_error *err)
{
	struct kvb_kimage_type t;
	struct kvb_kimage_id id;
	struct kvb_error e2;
	struct stat st;
	int rc;
	*note = NULL;
	if (stat(path, &st))
		return kvb_error_set(err, KVB_EINPUT, "cannot read '%s': %s", path, strerror(errno));
	if (kvb_kimage_type_file(path, &t, err))
		return KVB_EINPUT;
	if (boot_image)
		return check_boot_image(path, &t, arch, note, err);
	if (t.kind == KVB_KIMAGE_BOOT_IMAGE)
		return kvb_error_set(err, KVB_EINPUT,
				     "'%s' is an Android boot image, not a kernel: give it as boot_image: (-V NAME=,boot_image=%s)",
				     path, path);
	if ((uint64_t)st.st_size > KIMAGE_MAX_BYTES)
		return kvb_error_set(err, KVB_EINPUT, "'%s' is %lld MiB: too big for a kernel image (a root filesystem or disk "
						      "image?)", path, (long long)(st.st_size >> 20));
	if (t.text)
		return kvb_error_set(err, KVB_EINPUT, "'%s' is not a kernel image: it is %s", path, t.what);
	if ((rc = check_arch(path, &t, arch, "", err)))
		return rc;
	rc = kvb_kimage_identify(path, &id, &e2);
	kvb_kimage_id_release(&id);
	if (!rc)
		return KVB_OK;
	if (t.kind == KVB_KIMAGE_KERNEL) /* a kernel kvbench cannot read the release of (zImage, xz, stripped vmlinux) */
		*note = kvb_xasprintf("'%s' is a kernel (%s) whose release kvbench cannot read: the identity check after "
				      "boot compares the cmdline only", path, t.what);
	else
		return kvb_error_set(err, KVB_EINPUT,
				     "'%s' is not a kernel image: it is %s (neither an x86 bzImage, arm64 Image, arm zImage, "
				     "Image.gz, EFI zboot image nor vmlinux), and it holds no \"Linux version\" string",
				     path, t.what);
	return KVB_OK;
}
