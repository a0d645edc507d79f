/*
 * Fuzzes the readers of kernel files fetched from anywhere (a variant's
 * `kernel:` or `boot_image:` URL): kvb_kimage_identify_mem (bzImage header,
 * raw banner, gzip, EFI zboot) and kvb_bootimg_parse (Android boot image
 * header), then the kernel part of a boot image as kvb_bootimg_identify does.
 */
#include "flash/bootimg.h"
#include "flash/kimage.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kvb_kimage_id id;
	struct kvb_bootimg bi;
	struct kvb_error err;

	if (!kvb_kimage_identify_mem(data, size, "fuzz", &id, &err))
		kvb_kimage_id_release(&id);
	if (!kvb_bootimg_parse(data, size, "fuzz", &bi, &err) && bi.kernel_size &&
	    !kvb_kimage_identify_mem(data + bi.kernel_off, bi.kernel_size, "fuzz kernel", &id, &err))
		kvb_kimage_id_release(&id);
	return 0;
}
