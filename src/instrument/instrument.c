/* Implements the instrument registry. */
#include "instrument/instrument.h"

#include <string.h>

const struct kvb_instrument_ops *const kvb_instruments[] = {
	NULL,
};

const struct kvb_instrument_ops *kvb_instrument_find(const char *type)
{
	for (size_t i = 0; kvb_instruments[i]; i++)
		if (!strcmp(kvb_instruments[i]->name, type))
			return kvb_instruments[i];
	return NULL;
}
