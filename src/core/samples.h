/*
 * Energy samples of a job: named channels of (time, value) pairs, kept in
 * memory already encoded in the compact chunk format stored in the DB
 * (results-schema/0002_energy.sql), so a long recording costs ~5 bytes per
 * sample in RAM too. A sink callback can take each finished chunk instead
 * (streaming import: nothing is kept).
 *
 * Chunk blob, encoding 1 (all integers little endian):
 *   byte 0            encoding number, 1
 *   n x float32       the values, in the channel's units (mW for power)
 *   n-1 x varint      timestamps as zigzag LEB128 delta-of-delta:
 *                     d_i = t_i - t_{i-1}, stored zz(d_i - d_{i-1}), d_0 = 0,
 *                     t_0 = the chunk row's t0_ns
 * A regular sampling clock makes every delta-of-delta 0 (one byte), so a
 * sample costs 5 bytes plus SQLite's per-page overhead.
 *
 * Energy per channel (notes/formats.md "Energy meters"): a sample is the mean
 * power over the interval ending at its timestamp (what integrating meters
 * report), so E = sum_{i>=1} P_i * (t_i - t_{i-1}) over the samples kept in
 * the window; power_mean = mean of the kept samples. Units: t in ns, P in mW,
 * E in J (mW * ns = 1e-12 J). Never multiply by a sample rate.
 */
#ifndef KVB_SAMPLES_H
#define KVB_SAMPLES_H

#include "core/buf.h"
#include "core/error.h"

#include <stddef.h>
#include <stdint.h>

#define KVB_CHUNK_SAMPLES 4096  /* samples per stored chunk */
#define KVB_CHUNK_ENCODING 1

struct kvb_sample_chunk {
	int64_t t0_ns;
	uint32_t n;
	struct kvb_buf blob;
};

/* One channel. Statistics cover every sample added (the caller cuts the window). */
struct kvb_sample_chan {
	char *name;          /* chan_name classifier of its metrics */
	char *units;         /* "mW" for power channels */
	char *instrument;    /* instance name that produced it, or "import" */
	int estimated;       /* 1: derived from a model, not measured */
	uint64_t n;          /* samples added */
	int64_t t_first_ns, t_last_ns;
	double sum;          /* sum of values (for the mean) */
	double energy_pj;    /* sum P_i * dt_i, mW * ns = pJ (J = 1e-12 pJ) */
	/* chunk being filled */
	float *cur_v;
	int64_t *cur_t;
	uint32_t cur_n;
	/* finished chunks (empty when a sink takes them) */
	struct kvb_sample_chunk *chunks;
	size_t nchunks, chunk_alloc;
	int64_t store_id;    /* energy_channel.id while streaming into a DB, else 0 */
	/* What the meter's coverage of a job window is judged by (instrument/coverage.h): */
	int64_t max_gap_ns;      /* largest t_i - t_(i-1), 0 below 2 samples */
	int64_t max_gap_end_ns;  /* t_i at the end of that gap */
	int64_t *spacing;        /* every spacing_stride-th interval t_i - t_(i-1), at most KVB_SPACING_KEEP: a
				    regular subsample whose median is the channel's sampling interval */
	uint32_t nspacing, spacing_stride, spacing_seen;
	int refused;             /* 1: its samples did not cover the job window: no energy or power is stored
				    for it (energy_channel.energy_j NULL), a `refused` witness says why */
};

#define KVB_SPACING_KEEP 2048

struct kvb_samples;
/* Receives each finished chunk; returns 0 or an enum kvb_err code (stops the producer). */
typedef int (*kvb_chunk_sink)(void *arg, struct kvb_samples *s, size_t chan, uint32_t seq, int64_t t0_ns,
			      uint32_t n, const void *blob, size_t len);

struct kvb_samples {
	struct kvb_sample_chan *ch;
	size_t n, alloc;
	kvb_chunk_sink sink;  /* NULL: chunks are kept in ch[i].chunks */
	void *sink_arg;
	int sink_rc;          /* first non-zero return of sink */
};

struct kvb_samples *kvb_samples_new(void);
void kvb_samples_free(struct kvb_samples *s);

/* Finds the channel named name of instrument (NULL matches any), or adds it. Returns its index. */
size_t kvb_samples_channel(struct kvb_samples *s, const char *name, const char *units, const char *instrument);

/*
 * Appends one sample (t_ns must not be below the previous one: callers check
 * and report the file line). Returns 0, or the sink's error code.
 */
int kvb_samples_add(struct kvb_samples *s, size_t chan, int64_t t_ns, double value);
/* Encodes every partly filled chunk (call once all samples are in). Returns 0 or the sink's code. */
int kvb_samples_finish(struct kvb_samples *s);

/* Moves every channel of src to the end of dst (src is left empty; both must have no sink). */
void kvb_samples_move(struct kvb_samples *dst, struct kvb_samples *src);

/* Energy of a channel in J and its mean value (power_mean, mW). 0 when empty. */
double kvb_samples_energy_j(const struct kvb_sample_chan *c);
double kvb_samples_mean(const struct kvb_sample_chan *c);
/*
 * Median of the channel's sampling intervals (ns), from the regular subsample kept as samples
 * were added (exact up to KVB_SPACING_KEEP intervals, every k-th interval beyond). 0 below 2 samples.
 */
int64_t kvb_samples_median_interval_ns(const struct kvb_sample_chan *c);

/* Encodes n samples into blob (appended). */
void kvb_chunk_encode(struct kvb_buf *blob, const int64_t *t_ns, const float *v, uint32_t n);
/*
 * Decodes a chunk of n samples starting at t0_ns into t_ns[n] and v[n].
 * Returns KVB_OK, or KVB_ESTORE when the blob is malformed (wrong encoding, too short, varint overrun).
 */
enum kvb_err kvb_chunk_decode(const void *blob, size_t len, int64_t t0_ns, uint32_t n, int64_t *t_ns, float *v);

#endif
