/* Implements the instrument registry. */
#include "instrument/instrument.h"

#include <string.h>

extern const struct kvb_instrument_ops kvb_instrument_acme, kvb_instrument_aep, kvb_instrument_monsoon,
	kvb_instrument_juno_hwmon, kvb_instrument_csv_command, kvb_instrument_model, kvb_instrument_cpufreq,
	kvb_instrument_util, kvb_instrument_ftrace, kvb_instrument_dmesg, kvb_instrument_rapl,
	kvb_instrument_profile;

const struct kvb_instrument_ops *const kvb_instruments[] = {
	&kvb_instrument_acme,
	&kvb_instrument_aep,
	&kvb_instrument_monsoon,
	&kvb_instrument_juno_hwmon,
	&kvb_instrument_rapl,
	&kvb_instrument_csv_command,
	&kvb_instrument_model,
	&kvb_instrument_cpufreq,
	&kvb_instrument_util,
	&kvb_instrument_ftrace,
	&kvb_instrument_dmesg,
	&kvb_instrument_profile,
	NULL,
};

const struct kvb_instrument_ops *kvb_instrument_find(const char *type)
{
	for (size_t i = 0; kvb_instruments[i]; i++)
		if (!strcmp(kvb_instruments[i]->name, type))
			return kvb_instruments[i];
	return NULL;
}

const char *kvb_instr_sysfs_root(const struct kvb_platform *plat)
{
	return plat && plat->sysfs_root ? plat->sysfs_root : "";
}

int kvb_instr_board_counts_instructions(struct kvb_target *t)
{
	struct kvb_target_host h;
	memset(&h, 0, sizeof(h));
	return t && t->ops && t->ops->host && t->ops->host(t, &h) && h.virtual_clock;
}
