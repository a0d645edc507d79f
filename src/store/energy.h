/*
 * Energy samples in the results DB (results-schema/0002_energy.sql): writing
 * a job's sample set inside its commit transaction, reading them back, and
 * the CSV export behind `kvbench export samples --job ID [--channel NAME]`.
 * The import of an outside probe CSV is kvb_energy_import_csv
 * (instrument/energy_import.h), since it parses meter formats.
 */
#ifndef KVB_STORE_ENERGY_H
#define KVB_STORE_ENERGY_H

#include "core/samples.h"
#include "store/store.h"

#include <stdio.h>

/*
 * Replaces the job's energy channels and chunks with those of smp (NULL:
 * just deletes). Must run inside the caller's transaction (kvb_store_job_commit
 * calls it), so a job's samples land with its metrics or not at all.
 */
int kvb_store_samples_replace(struct kvb_store *s, int64_t job_id, const struct kvb_samples *smp,
			      struct kvb_error *err);

/* Deletes one channel of a job with its chunks (import replacing a channel). In the caller's transaction. */
int kvb_store_channel_delete(struct kvb_store *s, int64_t job_id, const char *name, struct kvb_error *err);

/* Inserts an energy_channel row (statistics filled later by kvb_store_channel_finish); *id receives it. */
int kvb_store_channel_add(struct kvb_store *s, int64_t job_id, const struct kvb_sample_chan *c, int64_t *id,
			  struct kvb_error *err);
/* Writes the statistics of c into its row (energy_j and power_mean_mw NULL when c->refused). */
int kvb_store_channel_finish(struct kvb_store *s, int64_t channel_id, const struct kvb_sample_chan *c,
			     struct kvb_error *err);
/* Inserts one chunk row (blob in the format of samples.h). */
int kvb_store_chunk_add(struct kvb_store *s, int64_t channel_id, uint32_t seq, int64_t t0_ns, uint32_t n,
			const void *blob, size_t len, struct kvb_error *err);

/*
 * Writes the samples of job_id (only channel `channel` when not NULL) to out
 * as CSV: header "t_ns,chan_name,value,units", one row per sample in time
 * order within each channel, channels in id order. *rows receives the count
 * (may be NULL). Errors: KVB_EINPUT for an unknown job or channel (no
 * samples), KVB_ESTORE for the DB or a corrupt chunk, KVB_ETARGET... never.
 */
int kvb_store_samples_export_csv(struct kvb_store *s, int64_t job_id, const char *channel, FILE *out, uint64_t *rows,
				 struct kvb_error *err);

/* An imported probe file (instrument/energy_import.c), all in the import's transaction: */
/* The job's start and end (ns since the epoch, 0 when not stored); KVB_EINPUT "no job N" when absent. */
int kvb_store_job_window(struct kvb_store *s, int64_t job_id, int64_t *start_ns, int64_t *end_ns,
			 struct kvb_error *err);
/*
 * The channel's metrics energy (J) and power_mean (mW), lower_is_better, classified chan_name =
 * chan; they replace those the job had for that channel.
 */
int kvb_store_channel_metrics(struct kvb_store *s, int64_t job_id, const char *chan, double energy_j,
			      double power_mean_mw, struct kvb_error *err);
/*
 * The job's `meter` witness (0015_witness.sql) for subject, verdict ok, replacing one of the same
 * subject (an earlier import of that channel).
 */
int kvb_store_meter_witness(struct kvb_store *s, int64_t job_id, const char *subject, const char *expected,
			    const char *observed, const char *detail, struct kvb_error *err);

#endif
