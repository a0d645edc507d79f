/*
 * Implements the monsoon instrument: a host command printing Monsoon samples in W, one line each,
 * no timestamps. Stopped with SIGINT by default, as devlib's monsoon instrument stops AOSP's
 * monsoon.py (a Python script: SIGINT is its KeyboardInterrupt, SIGTERM kills it with its stdout
 * buffer unwritten).
 */
#include "instrument/instrument.h"
#include "instrument/probe.h"

#include <signal.h>

static const struct kvb_keydef keys[] = {
	{ "command", KVB_T_STRLIST, NULL, NULL, KVB_KEY_REQUIRED, "host command printing samples (W) until stopped (stop_signal)" },
	{ "rate_hz", KVB_T_NUM, NULL, NULL, KVB_KEY_REQUIRED | KVB_KEY_POSITIVE,
	  "samples per second; sample i is at i / rate_hz after the command started" },
	{ "channels", KVB_T_MAP, NULL, NULL, 0,
	  "{chan_name: column}: columns are output_power, usb_power (or the names of a header line)" },
	{ "sums", KVB_T_MAP, NULL, NULL, 0, "{name: [channel, ...]}: platform-defined sums" },
	KVB_METER_READY_KEY,
	KVB_METER_STOP_KEYS("INT"),
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static int monsoon_setup(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct kvb_meter *m = kvb_meter_new(c, "monsoon", SIGINT);
	struct kvb_meter_cmd *mc = kvb_meter_add(c, NULL, NULL);
	m->channels = cJSON_GetObjectItemCaseSensitive(c->conf, "channels");
	m->rate_hz = kvb_get_num(c->conf, "rate_hz", 0);
	m->time_mode = KVB_TIME_RELATIVE;
	if (m->rate_hz <= 0)
		return kvb_error_set(err, KVB_EINPUT, "rate_hz must be > 0");
	if (kvb_conf_argv(cJSON_GetObjectItemCaseSensitive(c->conf, "command"), &mc->argv))
		return kvb_error_set(err, KVB_EINPUT, "command is empty");
	return kvb_sums_check(m->sums, err);
}

extern const struct kvb_instrument_ops kvb_instrument_monsoon;

/* `platform check` (instrument.h kvb_instr_probe): the meter command on this host. */
static void monsoon_probe(struct kvb_instr_probe *p)
{
	kvb_meter_probe(p, &kvb_instrument_monsoon);
}

const struct kvb_instrument_ops kvb_instrument_monsoon = {
	.name = "monsoon",
	.summary = "Monsoon power monitor via a host command printing W samples (time = index / rate_hz)",
	.conf_keys = keys,
	.setup = monsoon_setup,
	.start = kvb_meter_start,
	.stop = kvb_meter_stop,
	.collect = kvb_meter_collect,
	.teardown = kvb_meter_teardown,
	.probe = monsoon_probe,
	.metrics = kvb_energy_metric_decls,
};
