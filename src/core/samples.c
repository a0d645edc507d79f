/* Implements energy sample sets and the compact chunk encoding described in samples.h. */
#include "core/samples.h"
#include "core/error.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

struct kvb_samples *kvb_samples_new(void)
{
	return kvb_xcalloc(1, sizeof(struct kvb_samples));
}

void kvb_samples_free(struct kvb_samples *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		struct kvb_sample_chan *c = &s->ch[i];
		free(c->name);
		free(c->units);
		free(c->instrument);
		free(c->cur_v);
		free(c->cur_t);
		for (size_t k = 0; k < c->nchunks; k++)
			kvb_buf_release(&c->chunks[k].blob);
		free(c->chunks);
		free(c->spacing);
	}
	free(s->ch);
	free(s);
}

size_t kvb_samples_channel(struct kvb_samples *s, const char *name, const char *units, const char *instrument)
{
	struct kvb_sample_chan *c;
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->ch[i].name, name) && (!instrument || !strcmp(s->ch[i].instrument, instrument)))
			return i;
	if (s->n == s->alloc) {
		s->alloc = s->alloc ? s->alloc * 2 : 8;
		s->ch = kvb_xrealloc(s->ch, s->alloc * sizeof(*s->ch));
	}
	c = &s->ch[s->n];
	memset(c, 0, sizeof(*c));
	c->name = kvb_xstrdup(name);
	c->units = kvb_xstrdup(units ? units : "mW");
	c->instrument = kvb_xstrdup(instrument ? instrument : "");
	c->cur_v = kvb_xmalloc(KVB_CHUNK_SAMPLES * sizeof(*c->cur_v));
	c->cur_t = kvb_xmalloc(KVB_CHUNK_SAMPLES * sizeof(*c->cur_t));
	return s->n++;
}

static void put_varint(struct kvb_buf *b, uint64_t x)
{
	unsigned char tmp[10];
	size_t n = 0;
	while (x >= 0x80) {
		tmp[n++] = (unsigned char)(x | 0x80);
		x >>= 7;
	}
	tmp[n++] = (unsigned char)x;
	kvb_buf_add(b, tmp, n);
}

void kvb_chunk_encode(struct kvb_buf *blob, const int64_t *t_ns, const float *v, uint32_t n)
{
	int64_t prev_d = 0;
	unsigned char *p;
	kvb_buf_grow(blob, 1 + 4 * (size_t)n + 2 * (size_t)n);
	kvb_buf_addc(blob, KVB_CHUNK_ENCODING);
	p = (unsigned char *)blob->data + blob->len;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t u;
		memcpy(&u, &v[i], 4);
		p[4 * i] = (unsigned char)u;
		p[4 * i + 1] = (unsigned char)(u >> 8);
		p[4 * i + 2] = (unsigned char)(u >> 16);
		p[4 * i + 3] = (unsigned char)(u >> 24);
	}
	blob->len += 4 * (size_t)n;
	blob->data[blob->len] = '\0';
	for (uint32_t i = 1; i < n; i++) {
		int64_t d = t_ns[i] - t_ns[i - 1], dd = d - prev_d;
		prev_d = d;
		put_varint(blob, ((uint64_t)dd << 1) ^ (uint64_t)(dd >> 63));
	}
}

enum kvb_err kvb_chunk_decode(const void *blob, size_t len, int64_t t0_ns, uint32_t n, int64_t *t_ns, float *v)
{
	const unsigned char *p = blob, *end = p + len;
	int64_t d = 0;
	if (n == 0)
		return KVB_OK;
	if (len < 1 + 4 * (size_t)n || p[0] != KVB_CHUNK_ENCODING)
		return KVB_ESTORE;
	p++;
	for (uint32_t i = 0; i < n; i++, p += 4) {
		uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
		memcpy(&v[i], &u, 4);
	}
	t_ns[0] = t0_ns;
	for (uint32_t i = 1; i < n; i++) {
		uint64_t x = 0;
		int shift = 0;
		for (;;) {
			if (p >= end || shift > 63)
				return KVB_ESTORE;
			x |= (uint64_t)(*p & 0x7f) << shift;
			shift += 7;
			if (!(*p++ & 0x80))
				break;
		}
		d += (int64_t)(x >> 1) ^ -(int64_t)(x & 1);
		t_ns[i] = t_ns[i - 1] + d;
	}
	return p == end ? KVB_OK : KVB_ESTORE;
}

static int flush_chunk(struct kvb_samples *s, size_t chan)
{
	struct kvb_sample_chan *c = &s->ch[chan];
	struct kvb_buf blob = KVB_BUF_INIT;
	uint32_t seq;
	if (!c->cur_n)
		return 0;
	kvb_chunk_encode(&blob, c->cur_t, c->cur_v, c->cur_n);
	seq = (uint32_t)((c->n - c->cur_n) / KVB_CHUNK_SAMPLES);
	if (s->sink) {
		int rc = s->sink(s->sink_arg, s, chan, seq, c->cur_t[0], c->cur_n, blob.data, blob.len);
		kvb_buf_release(&blob);
		if (rc && !s->sink_rc)
			s->sink_rc = rc;
	} else {
		if (c->nchunks == c->chunk_alloc) {
			c->chunk_alloc = c->chunk_alloc ? c->chunk_alloc * 2 : 4;
			c->chunks = kvb_xrealloc(c->chunks, c->chunk_alloc * sizeof(*c->chunks));
		}
		c->chunks[c->nchunks].t0_ns = c->cur_t[0];
		c->chunks[c->nchunks].n = c->cur_n;
		c->chunks[c->nchunks].blob = blob;
		c->nchunks++;
	}
	c->cur_n = 0;
	return s->sink_rc;
}

/*
 * Keeps every spacing_stride-th interval; when KVB_SPACING_KEEP are kept, every other one is
 * dropped and the stride doubles, so the kept ones stay evenly spread over the whole recording.
 */
static void note_interval(struct kvb_sample_chan *c, int64_t d, int64_t t_ns)
{
	if (d > c->max_gap_ns) {
		c->max_gap_ns = d;
		c->max_gap_end_ns = t_ns;
	}
	if (!c->spacing) {
		c->spacing = kvb_xmalloc(KVB_SPACING_KEEP * sizeof(*c->spacing));
		c->spacing_stride = 1;
	}
	if (c->spacing_seen++ % c->spacing_stride)
		return;
	if (c->nspacing == KVB_SPACING_KEEP) {
		for (uint32_t i = 0; i < KVB_SPACING_KEEP / 2; i++)
			c->spacing[i] = c->spacing[2 * i];
		c->nspacing = KVB_SPACING_KEEP / 2;
		c->spacing_stride *= 2;
		if ((c->spacing_seen - 1) % c->spacing_stride)
			return;
	}
	c->spacing[c->nspacing++] = d;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

int64_t kvb_samples_median_interval_ns(const struct kvb_sample_chan *c)
{
	int64_t *v, m;
	if (!c->nspacing)
		return 0;
	v = kvb_xmalloc(c->nspacing * sizeof(*v));
	memcpy(v, c->spacing, c->nspacing * sizeof(*v));
	qsort(v, c->nspacing, sizeof(*v), cmp_i64);
	m = c->nspacing % 2 ? v[c->nspacing / 2] : (v[c->nspacing / 2 - 1] + v[c->nspacing / 2]) / 2;
	free(v);
	return m;
}

int kvb_samples_add(struct kvb_samples *s, size_t chan, int64_t t_ns, double value)
{
	struct kvb_sample_chan *c = &s->ch[chan];
	if (c->n) {
		c->energy_pj += value * (double)(t_ns - c->t_last_ns);
		note_interval(c, t_ns - c->t_last_ns, t_ns);
	} else
		c->t_first_ns = t_ns;
	c->t_last_ns = t_ns;
	c->sum += value;
	c->cur_t[c->cur_n] = t_ns;
	c->cur_v[c->cur_n] = (float)value;
	c->n++;
	if (++c->cur_n == KVB_CHUNK_SAMPLES)
		return flush_chunk(s, chan);
	return s->sink_rc;
}

int kvb_samples_finish(struct kvb_samples *s)
{
	for (size_t i = 0; i < s->n; i++)
		flush_chunk(s, i);
	return s->sink_rc;
}

void kvb_samples_move(struct kvb_samples *dst, struct kvb_samples *src)
{
	for (size_t i = 0; i < src->n; i++) {
		if (dst->n == dst->alloc) {
			dst->alloc = dst->alloc ? dst->alloc * 2 : 8;
			dst->ch = kvb_xrealloc(dst->ch, dst->alloc * sizeof(*dst->ch));
		}
		dst->ch[dst->n++] = src->ch[i];
	}
	src->n = 0;
}

double kvb_samples_energy_j(const struct kvb_sample_chan *c)
{
	return c->energy_pj * 1e-12;
}

double kvb_samples_mean(const struct kvb_sample_chan *c)
{
	return c->n ? c->sum / (double)c->n : 0;
}
