/*
 * Implements the acme instrument: BayLibre ACME cape probes recorded with
 * BayLibre's iio-capture (`iio-capture -n HOST -b BUF -c -f OUT.csv
 * iio:deviceN`, one process per probe, stopped with SIGTERM), whose CSV
 * (`"power mW", ..., "timestamp ms"`, read by name, units from the header) is parsed. iio-capture uses
 * libiio's network backend to reach the cape's iiod.
 *
 * What is tested: the command, its arguments and the CSV path, against
 * tests/sim/probe_sim acting as iio-capture. Not tested here: real hardware.
 * The cape's clock is not the host's, so timestamps are relative by default
 * (first sample = when iio-capture started).
 */
#include "instrument/instrument.h"
#include "instrument/probe.h"

#include <signal.h>
#include "core/util.h"

#include <stdlib.h>

static const struct kvb_keydef keys[] = {
	{ "host", KVB_T_STR, NULL, NULL, KVB_KEY_REQUIRED, "ACME cape host name or address (iiod)" },
	{ "channels", KVB_T_MAP, NULL, NULL, KVB_KEY_REQUIRED, "{chan_name: iio:deviceN}: one probe per channel" },
	{ "buffer_size", KVB_T_INT, "256", NULL, KVB_KEY_POSITIVE, "iio-capture -b: samples per buffer refill" },
	{ "iio_capture", KVB_T_STR, "iio-capture", NULL, 0, "the iio-capture program" },
	{ "time", KVB_T_STR, "relative", "auto|relative|absolute", 0, "how to read the timestamp column" },
	{ "sums", KVB_T_MAP, NULL, NULL, 0, "{name: [channel, ...]}: e.g. total_power" },
	KVB_METER_READY_KEY,
	KVB_METER_STOP_KEYS("TERM"),
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static int acme_setup(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct kvb_meter *m = kvb_meter_new(c, "acme", SIGTERM);
	const cJSON *chans = cJSON_GetObjectItemCaseSensitive(c->conf, "channels");
	const char *host = kvb_get_str(c->conf, "host", NULL);
	const char *prog = kvb_get_str(c->conf, "iio_capture", "iio-capture");
	long long buf = kvb_get_int(c->conf, "buffer_size", 256);
	kvb_meter_time_mode(m, c->conf, KVB_TIME_RELATIVE);
	if (!host)
		return kvb_error_set(err, KVB_EINPUT, "acme needs `host`");
	if (!chans || !chans->child)
		return kvb_error_set(err, KVB_EINPUT, "acme needs `channels: {name: iio:deviceN}`");
	for (const cJSON *kv = chans->child; kv; kv = kv->next) {
		struct kvb_meter_cmd *mc;
		if (!cJSON_IsString(kv))
			return kvb_error_set(err, KVB_EINPUT, "channels.%s must name an iio device", kv->string);
		mc = kvb_meter_add(c, kv->string, ".csv");
		kvb_strv_push(&mc->argv, prog);
		kvb_strv_push(&mc->argv, "-n");
		kvb_strv_push(&mc->argv, host);
		kvb_strv_push(&mc->argv, "-b");
		kvb_strv_pushf(&mc->argv, "%lld", buf);
		kvb_strv_push(&mc->argv, "-c");
		kvb_strv_push(&mc->argv, "-f");
		kvb_strv_push(&mc->argv, mc->data_path);
		kvb_strv_push(&mc->argv, kv->valuestring);
	}
	return kvb_sums_check(m->sums, err);
}

extern const struct kvb_instrument_ops kvb_instrument_acme;

/* `platform check` (instrument.h kvb_instr_probe): iio-capture on this host. */
static void acme_probe(struct kvb_instr_probe *p)
{
	kvb_meter_probe(p, &kvb_instrument_acme);
}

const struct kvb_instrument_ops kvb_instrument_acme = {
	.name = "acme",
	.summary = "BayLibre ACME cape via iio-capture (libiio network backend), one probe per channel",
	.conf_keys = keys,
	.setup = acme_setup,
	.start = kvb_meter_start,
	.stop = kvb_meter_stop,
	.collect = kvb_meter_collect,
	.teardown = kvb_meter_teardown,
	.probe = acme_probe,
	.metrics = kvb_energy_metric_decls,
};
