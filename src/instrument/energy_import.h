/*
 * `kvbench import energy CSV --job ID`: attaches an externally recorded
 * probe file to a stored job. The file is streamed (1 MiB buffer, one
 * 4096-sample chunk per channel in memory), so any size imports in constant
 * memory, all in one transaction: channels of the same name already on the
 * job are replaced, with their `energy`/`power_mean` metrics.
 */
#ifndef KVB_ENERGY_IMPORT_H
#define KVB_ENERGY_IMPORT_H

#include "instrument/probe.h"
#include "store/store.h"

struct kvb_energy_import_opts {
	const struct kvb_probe_format *format; /* a row of kvb_probe_formats[]; NULL: csv */
	const char *default_units;    /* CSV value columns without units: "W" (default), "mW", "uW" */
	const char *chan_name;        /* ACME files: the channel name (default "power") */
	double rate_hz;               /* Monsoon files */
	const cJSON *channels;        /* optional {chan_name: column} */
	int cut_to_job;               /* 1: keep only samples within the job's start/end */
};

/*
 * Imports path into job_id. Relative timestamps start at the job's start_ns.
 * Each channel proves its coverage (instrument/coverage.h) of the job's window
 * (cut_to_job) or of its own span (gaps only), and gets an `ok` meter witness
 * on the job; a channel that does not is refused: KVB_EINPUT naming the
 * coverage, and nothing is imported. st (may be NULL) receives line/sample
 * counts. Errors: KVB_EINPUT for a bad file ("FILE:LINE: ...") or an unknown
 * job, KVB_ESTORE for the DB; nothing is stored on error.
 */
int kvb_energy_import_csv(struct kvb_store *s, int64_t job_id, const char *path,
			  const struct kvb_energy_import_opts *o, struct kvb_probe_stats *st, struct kvb_error *err);

#endif
