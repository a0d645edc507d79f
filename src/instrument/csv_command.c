/* Implements the csv-command instrument: any host command streaming `time,CHAN,...` CSV power samples. */
#include "instrument/instrument.h"
#include "instrument/probe.h"

#include <signal.h>

static const struct kvb_keydef keys[] = {
	{ "command", KVB_T_STRLIST, NULL, NULL, KVB_KEY_REQUIRED,
	  "host command (argv list, or words) writing `time,CHAN,...` CSV to stdout until SIGTERM" },
	{ "units", KVB_T_STR, "W", "W|mW|uW", 0, "units of value columns that do not name theirs (name(W), name_mW)" },
	{ "time", KVB_T_STR, "auto", "auto|relative|absolute", 0,
	  "timestamps: absolute epoch, or relative (first sample = command start); auto: >= 1e9 s is absolute" },
	{ "channels", KVB_T_MAP, NULL, NULL, 0, "{chan_name: column}: keep and rename only these columns" },
	{ "sums", KVB_T_MAP, NULL, NULL, 0, "{name: [channel, ...]}: platform-defined sums, e.g. total_power" },
	KVB_METER_READY_KEY,
	KVB_METER_STOP_KEYS("TERM"),
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static int csv_command_setup(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct kvb_meter *m = kvb_meter_new(c, "csv", SIGTERM);
	struct kvb_meter_cmd *mc = kvb_meter_add(c, NULL, NULL);
	m->default_units = kvb_get_str(c->conf, "units", "W");
	m->channels = cJSON_GetObjectItemCaseSensitive(c->conf, "channels");
	kvb_meter_time_mode(m, c->conf, KVB_TIME_AUTO);
	if (kvb_conf_argv(cJSON_GetObjectItemCaseSensitive(c->conf, "command"), &mc->argv))
		return kvb_error_set(err, KVB_EINPUT, "command is empty");
	return kvb_sums_check(m->sums, err);
}

extern const struct kvb_instrument_ops kvb_instrument_csv_command;

/* `platform check` (instrument.h kvb_instr_probe): the meter command on this host. */
static void csv_command_probe(struct kvb_instr_probe *p)
{
	kvb_meter_probe(p, &kvb_instrument_csv_command);
}

const struct kvb_instrument_ops kvb_instrument_csv_command = {
	.name = "csv-command",
	.summary = "any host command streaming `time,CHAN,...` power CSV (W by default)",
	.conf_keys = keys,
	.setup = csv_command_setup,
	.start = kvb_meter_start,
	.stop = kvb_meter_stop,
	.collect = kvb_meter_collect,
	.teardown = kvb_meter_teardown,
	.probe = csv_command_probe,
	.metrics = kvb_energy_metric_decls,
};
