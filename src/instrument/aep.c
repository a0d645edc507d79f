/*
 * Implements the aep instrument: the Arm Energy Probe through `arm-probe --config CFG` (or a
 * `command:` such as a caiman wrapper), whose stdout is parsed. Stopped with SIGINT by default:
 * caiman, the other host tool of this probe, installs a handler for SIGINT only (caiman/main.cpp)
 * and dies without writing what it holds on SIGTERM, the signal devlib sent it until devlib #47/#48;
 * for a tool that handles neither, SIGINT ends it as SIGTERM would. `stop_signal: TERM` otherwise.
 */
#include "instrument/instrument.h"
#include "instrument/probe.h"

#include <signal.h>

static const struct kvb_keydef keys[] = {
	{ "config", KVB_T_STR, NULL, NULL, 0, "arm-probe configuration file (channels, shunt resistors)" },
	{ "command", KVB_T_STRLIST, "arm-probe --config CONFIG", NULL, 0, "command producing arm-probe output on stdout" },
	{ "channels", KVB_T_MAP, NULL, NULL, 0, "{chan_name: label}: keep and rename these (W) columns" },
	{ "sums", KVB_T_MAP, NULL, NULL, 0, "{name: [channel, ...]}: platform-defined sums" },
	KVB_METER_READY_KEY,
	KVB_METER_STOP_KEYS("INT"),
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static int aep_setup(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct kvb_meter *m = kvb_meter_new(c, "aep", SIGINT);
	struct kvb_meter_cmd *mc = kvb_meter_add(c, NULL, NULL);
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(c->conf, "command");
	const char *cfg = kvb_get_str(c->conf, "config", NULL);
	m->channels = cJSON_GetObjectItemCaseSensitive(c->conf, "channels");
	m->time_mode = KVB_TIME_RELATIVE;  /* arm-probe counts seconds from its start */
	if (cmd) {
		if (kvb_conf_argv(cmd, &mc->argv))
			return kvb_error_set(err, KVB_EINPUT, "command is empty");
	} else if (cfg) {
		kvb_strv_push(&mc->argv, "arm-probe");
		kvb_strv_push(&mc->argv, "--config");
		kvb_strv_push(&mc->argv, cfg);
	} else {
		return kvb_error_set(err, KVB_EINPUT, "aep needs `config` (or `command`)");
	}
	return kvb_sums_check(m->sums, err);
}

extern const struct kvb_instrument_ops kvb_instrument_aep;

/* `platform check` (instrument.h kvb_instr_probe): arm-probe (or the command) on this host. */
static void aep_probe(struct kvb_instr_probe *p)
{
	kvb_meter_probe(p, &kvb_instrument_aep);
}

const struct kvb_instrument_ops kvb_instrument_aep = {
	.name = "aep",
	.summary = "Arm Energy Probe via arm-probe (up to 3 channels per probe, 10 kHz)",
	.conf_keys = keys,
	.setup = aep_setup,
	.start = kvb_meter_start,
	.stop = kvb_meter_stop,
	.collect = kvb_meter_collect,
	.teardown = kvb_meter_teardown,
	.probe = aep_probe,
	.metrics = kvb_energy_metric_decls,
};
