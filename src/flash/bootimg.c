/* Implements reading Android boot image headers (v0 to v4) and the identity of the kernel inside. */
#include "flash/bootimg.h"
#include "core/buf.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

/* Places a part of size bytes at *at (page aligned) and moves *at past it. Returns -1 past the end. */
static enum kvb_err place(size_t *at, size_t size, size_t page, size_t n, size_t *off_out, size_t *size_out)
{
	*off_out = size ? *at : 0;
	*size_out = size;
	if (size > n || *at > n - size)
		return KVB_EINPUT;
	*at = align_up(*at + size, page);
	return KVB_OK;
}

int kvb_bootimg_parse(const unsigned char *d, size_t n, const char *name, struct kvb_bootimg *bi,
		      struct kvb_error *err)
{
	size_t at, skip_off, skip_size;
	const char *part = "kernel";
	memset(bi, 0, sizeof(*bi));
	if (n < 1660 || memcmp(d, "ANDROID!", 8))
		return kvb_error_set(err, KVB_EINPUT, "'%s' is not an Android boot image (no \"ANDROID!\" magic)", name);
	bi->header_version = le32(d + 40);
	if (bi->header_version == 3 || bi->header_version == 4) {
		bi->page_size = 4096;
		memcpy(bi->cmdline, d + 44, KVB_BOOTIMG_CMDLINE_MAX);
		at = 4096;
		if (place(&at, le32(d + 8), 4096, n, &bi->kernel_off, &bi->kernel_size) ||
		    (part = "ramdisk", place(&at, le32(d + 12), 4096, n, &bi->ramdisk_off, &bi->ramdisk_size)))
			goto truncated;
		return KVB_OK;
	}
	if (bi->header_version > 4)
		bi->header_version = 0; /* a dt_size on some v0 boards */
	bi->page_size = le32(d + 36);
	if (bi->page_size < 2048 || bi->page_size > 65536 || (bi->page_size & (bi->page_size - 1)))
		return kvb_error_set(err, KVB_EINPUT, "boot image '%s' has page size %u (expected a power of two, 2048..65536)",
				     name, bi->page_size);
	memcpy(bi->name, d + 48, 16);
	memcpy(bi->cmdline, d + 64, 512);
	if (memchr(d + 64, '\0', 512) == NULL) {
		/* mkbootimg writes characters 512 and on into extra_cmdline[], unseparated */
		memcpy(bi->cmdline + 512, d + 608, 1024);
	}
	bi->cmdline[KVB_BOOTIMG_CMDLINE_MAX] = '\0';
	at = bi->page_size;
	if (place(&at, le32(d + 8), bi->page_size, n, &bi->kernel_off, &bi->kernel_size) ||
	    (part = "ramdisk", place(&at, le32(d + 16), bi->page_size, n, &bi->ramdisk_off, &bi->ramdisk_size)) ||
	    (part = "second stage", place(&at, le32(d + 24), bi->page_size, n, &bi->second_off, &bi->second_size)))
		goto truncated;
	if (bi->header_version >= 1 &&
	    (part = "recovery dtbo", place(&at, le32(d + 1632), bi->page_size, n, &skip_off, &skip_size)))
		goto truncated;
	if (bi->header_version == 2 && (part = "dtb", place(&at, le32(d + 1648), bi->page_size, n, &bi->dtb_off, &bi->dtb_size)))
		goto truncated;
	return KVB_OK;
truncated:
	return kvb_error_set(err, KVB_EINPUT, "boot image '%s' (header v%u) is truncated: its %s runs past the end of the "
					      "file (%zu bytes)", name, bi->header_version, part, n);
}

int kvb_bootimg_identify(const char *path, struct kvb_kimage_id *id, char **cmdline_out, struct kvb_error *err)
{
	struct kvb_buf b = KVB_BUF_INIT;
	struct kvb_bootimg bi;
	int rc;
	memset(id, 0, sizeof(*id));
	if (cmdline_out)
		*cmdline_out = NULL;
	if (kvb_buf_read_file(&b, path))
		return kvb_error_set(err, KVB_EINPUT, "cannot read boot image '%s'", path);
	rc = kvb_bootimg_parse((const unsigned char *)b.data, b.len, path, &bi, err);
	if (!rc && !bi.kernel_size)
		rc = kvb_error_set(err, KVB_EINPUT, "boot image '%s' holds no kernel", path);
	if (!rc) {
		char *what = kvb_xasprintf("kernel in boot image %s", path);
		rc = kvb_kimage_identify_mem((const unsigned char *)b.data + bi.kernel_off, bi.kernel_size, what, id, err);
		free(what);
	}
	if (!rc && cmdline_out)
		*cmdline_out = kvb_xstrdup(bi.cmdline);
	kvb_buf_release(&b);
	return rc;
}
