/*
 * Fuzzes the energy meter output parser (kvb_probe_parse_file) and the energy
 * metrics computed from what it accepts. The first input byte picks the
 * format ('0' CSV, '1' ACME iio-capture, '2' arm-probe AEP, '3' Monsoon;
 * any byte, modulo 4); the rest is written to a temp file and parsed.
 */
#include "fuzz.h"
#include "instrument/probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const formats[] = { "csv", "acme", "aep", "monsoon" };
	struct kvb_probe_parse p;
	struct kvb_samples *s;
	struct kvb_error err;
	struct kvb_metrics m;

	if (!size)
		return 0;
	memset(&p, 0, sizeof(p));
	p.format = kvb_probe_format_find(formats[data[0] % 4]);
	p.path = kvb_fuzz_file("meter.txt", data + 1, size - 1);
	p.instrument = "fuzz";
	p.chan_name = "total";
	p.rate_hz = 1000;
	p.base_ns = 1000000000;
	p.allow_empty = data[0] >= 0x80;
	s = kvb_samples_new();
	kvb_metrics_init(&m);
	if (!kvb_probe_parse_file(&p, s, NULL, &err) && !kvb_samples_finish(s))
		kvb_energy_metrics(&m, s, NULL, &err);
	kvb_metrics_release(&m);
	kvb_samples_free(s);
	return 0;
}
