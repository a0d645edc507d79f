/* Implements kvb_catalog: the registries above config/ as config/catalog.h reads them. */
#include "engine/catalog.h"
#include "flash/flash.h"
#include "instrument/instrument.h"
#include "target/target.h"
#include "workload/workload.h"

static int workload_at(size_t i, struct kvb_catalog_workload *out)
{
	const struct kvb_workload_ops *w;
	for (size_t j = 0; j <= i; j++) /* NULL-terminated: read no further than its end */
		if (!kvb_workloads[j])
			return -1;
	w = kvb_workloads[i];
	*out = (struct kvb_catalog_workload){ w->name, w->params, w->validate, w->default_timeout_s, w->wa3_params, w };
	return 0;
}

static int target_at(size_t i, struct kvb_catalog_backend *out)
{
	const struct kvb_target_ops *t;
	for (size_t j = 0; j <= i; j++) /* NULL-terminated: read no further than its end */
		if (!kvb_targets[j])
			return -1;
	t = kvb_targets[i];
	*out = (struct kvb_catalog_backend){ t->name, t->conn_keys, t->caps, t->check };
	return 0;
}

static int flasher_at(size_t i, struct kvb_catalog_backend *out)
{
	const struct kvb_flasher_ops *f;
	for (size_t j = 0; j <= i; j++) /* NULL-terminated: read no further than its end */
		if (!kvb_flashers[j])
			return -1;
	f = kvb_flashers[i];
	*out = (struct kvb_catalog_backend){ f->name, f->keys, f->target_caps, f->check };
	return 0;
}

static int instrument_at(size_t i, struct kvb_catalog_backend *out)
{
	const struct kvb_instrument_ops *in;
	for (size_t j = 0; j <= i; j++) /* NULL-terminated: read no further than its end */
		if (!kvb_instruments[j])
			return -1;
	in = kvb_instruments[i];
	*out = (struct kvb_catalog_backend){ in->name, in->conf_keys, 0, NULL };
	return 0;
}

const struct kvb_catalog kvb_catalog = {
	.workload = workload_at,
	.target = target_at,
	.flasher = flasher_at,
	.instrument = instrument_at,
	.target_caps_describe = kvb_target_caps_describe,
	.check_instruments = kvb_instr_check_platform,
};
