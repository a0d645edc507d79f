/* Implements the flasher registry. */
#include "flash/flash.h"

#include <string.h>

extern const struct kvb_flasher_ops kvb_flasher_none;
extern const struct kvb_flasher_ops kvb_flasher_qemu;
extern const struct kvb_flasher_ops kvb_flasher_fastboot;
extern const struct kvb_flasher_ops kvb_flasher_ssh_copy;
extern const struct kvb_flasher_ops kvb_flasher_command;
extern const struct kvb_flasher_ops kvb_flasher_lava;

const struct kvb_flasher_ops *const kvb_flashers[] = {
	&kvb_flasher_none,
	&kvb_flasher_qemu,
	&kvb_flasher_fastboot,
	&kvb_flasher_ssh_copy,
	&kvb_flasher_command,
	&kvb_flasher_lava,
	NULL,
};

const struct kvb_flasher_ops *kvb_flasher_find(const char *name)
{
	for (size_t i = 0; kvb_flashers[i]; i++)
		if (!strcmp(kvb_flashers[i]->name, name))
			return kvb_flashers[i];
	return NULL;
}

int kvb_flasher_boots_each_round(const struct kvb_flasher_ops *f)
{
	return f && (f->caps & KVB_FLASH_INSTALLS_KERNEL);
}
