/* Implements the report's energy plots: power over time decimated into buckets, energy per job per variant. */
#include "report/page_build.h"
#include "store/rows.h"
#include "core/samples.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Min, max and mean per time bucket of one channel. */
struct buckets {
	size_t n;
	int64_t t0_ns, width_ns;
	double *min, *max, *sum;
	uint64_t *cnt;
};

static void bucket_add(struct buckets *b, int64_t t_ns, double v)
{
	int64_t k = (t_ns - b->t0_ns) / b->width_ns;
	if (k < 0)
		k = 0;
	if ((size_t)k >= b->n)
		k = (int64_t)b->n - 1;
	if (!b->cnt[k] || v < b->min[k])
		b->min[k] = v;
	if (!b->cnt[k] || v > b->max[k])
		b->max[k] = v;
	b->sum[k] += v;
	b->cnt[k]++;
}

static float f32le(const unsigned char *p)
{
	uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/*
 * Adds one stored chunk (samples.h encoding 1). When the whole chunk lies in
 * one bucket (it starts there and the next chunk starts there too) only its
 * float32 values are read; otherwise it is decoded with its timestamps.
 */
static enum kvb_err chunk_add(struct buckets *b, const unsigned char *blob, size_t len, int64_t t0, uint32_t n, int64_t t_next,
		     int64_t **tbuf, float **vbuf, uint32_t *cap)
{
	if (t_next > t0 && (t0 - b->t0_ns) / b->width_ns == (t_next - 1 - b->t0_ns) / b->width_ns && len >= 1 + 4 * (size_t)n &&
	    blob[0] == KVB_CHUNK_ENCODING) {
		double lo = INFINITY, hi = -INFINITY, sum = 0;
		int64_t k = (t0 - b->t0_ns) / b->width_ns;
		if (k < 0)
			k = 0;
		if ((size_t)k >= b->n)
			k = (int64_t)b->n - 1;
		for (uint32_t i = 0; i < n; i++) {
			double v = f32le(blob + 1 + 4 * (size_t)i);
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
			sum += v;
		}
		if (n) {
			if (!b->cnt[k] || lo < b->min[k])
				b->min[k] = lo;
			if (!b->cnt[k] || hi > b->max[k])
				b->max[k] = hi;
			b->sum[k] += sum;
			b->cnt[k] += n;
		}
		return KVB_OK;
	}
	if (n > *cap) {
		*cap = n;
		*tbuf = kvb_xrealloc(*tbuf, n * sizeof(**tbuf));
		*vbuf = kvb_xrealloc(*vbuf, n * sizeof(**vbuf));
	}
	if (kvb_chunk_decode(blob, len, t0, n, *tbuf, *vbuf))
		return KVB_ESTORE;
	for (uint32_t i = 0; i < n; i++)
		bucket_add(b, (*tbuf)[i], (*vbuf)[i]);
	return KVB_OK;
}

/* Reads channel id's chunks into b. KVB_ESTORE on a corrupt chunk. */
static int channel_buckets(struct kvb_store *s, int64_t id, struct buckets *b, struct kvb_error *err)
{
	struct kvb_rows *st;
	int64_t *starts = NULL, *tbuf = NULL;
	size_t nstarts = 0, alloc = 0, i = 0;
	uint32_t cap = 0;
	float *vbuf = NULL;
	int step, rc = KVB_OK;
	/* chunk start times first (a chunk ends before the next starts): reads no blob */
	if (kvb_rows_open(s, "SELECT t0_ns FROM energy_chunk WHERE channel_id = ? ORDER BY seq", &st, NULL, NULL) != KVB_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, kvb_store_errmsg(s));
	kvb_rows_bind_int(st, 1, id);
	while (kvb_rows_next(st, NULL) == 1) {
		if (nstarts == alloc) {
			alloc = alloc ? 2 * alloc : 1024;
			starts = kvb_xrealloc(starts, alloc * sizeof(*starts));
		}
		starts[nstarts++] = kvb_rows_int(st, 0);
	}
	kvb_rows_close(st);
	if (kvb_rows_open(s, "SELECT t0_ns, n, blob FROM energy_chunk WHERE channel_id = ? ORDER BY seq", &st, NULL, NULL) != KVB_OK) {
		free(starts);
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, kvb_store_errmsg(s));
	}
	kvb_rows_bind_int(st, 1, id);
	while ((step = kvb_rows_next(st, NULL)) == 1) {
		int64_t t0 = kvb_rows_int(st, 0), t_next = i + 1 < nstarts ? starts[i + 1] : INT64_MAX;
		size_t len;
		const unsigned char *blob = kvb_rows_blob(st, 2, &len);
		i++;
		if (chunk_add(b, blob, len, t0, (uint32_t)kvb_rows_int(st, 1),
			      t_next, &tbuf, &vbuf, &cap)) {
			rc = kvb_error_set(err, KVB_ESTORE, "%s: energy channel %lld: corrupt sample chunk", s->path,
					   (long long)id);
			break;
		}
	}
	if (!rc && step != 0)
		rc = kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, kvb_store_errmsg(s));
	kvb_rows_close(st);
	free(starts);
	free(tbuf);
	free(vbuf);
	return rc;
}

/* Power over time per job (one trace per channel, decimated to max_points buckets: mean line, min..max band). */
int kvb_page_power_plots(struct kvb_store *s, struct kvb_page *p, size_t max_points, struct kvb_error *err)
{
	struct kvb_rows *st;
	int64_t job = -1;
	cJSON *pl = NULL, *arr = NULL;
	int rc = KVB_OK, any = 0;
	/* the energy view's boot is the boot unit diff counts (one boot for every round of a board that
	   never reboots); spec_id names the spec, so two specs of one workload are told apart */
	if ((rc = kvb_page_query(s, p,
				    "SELECT channel_id, job_id, variant, chan_name, units, t_first_ns, t_last_ns, spec_id,"
				    " iteration, boot, estimated FROM energy WHERE run_id IN (SELECT value FROM json_each(?1))"
				    " AND n_samples > 0 ORDER BY job_id, channel_id",
				    &st, err)))
		return rc;
	/* an hour at 10 kHz is ~0.7 GB of chunks: map the file rather than copy it through read() */
	kvb_store_read_hint_large(s);
	while (rc == KVB_OK && kvb_rows_next(st, NULL) == 1) {
		int64_t id = kvb_rows_int(st, 0), jid = kvb_rows_int(st, 1);
		int64_t t_first = kvb_rows_int(st, 5), t_last = kvb_rows_int(st, 6);
		const char *units = (const char *)kvb_rows_text(st, 4);
		struct buckets b;
		cJSON *ser, *jt, *jy, *jlo, *jhi;
		if (!any++)
			kvb_page_add(p, "Power over time", "power")->text =
				"Per job and channel: mean power per time bucket (line) and its min..max (band), "
				"decimated to what a screen shows.";
		if (jid != job) {
			char *title = kvb_xasprintf("job %lld: %s %s iteration %lld boot %lld", (long long)jid,
						    (const char *)kvb_rows_text(st, 2),
						    (const char *)kvb_rows_text(st, 7), (long long)kvb_rows_int(st, 8),
						    (long long)kvb_rows_int(st, 9));
			char *ylab = kvb_xasprintf("power (%s)", units ? units : "");
			pl = kvb_plot_new("lines", title, "time since the first sample (s)", ylab);
			arr = cJSON_AddArrayToObject(pl, "series");
			cJSON_AddNumberToObject(pl, "job", (double)jid); /* folded per workload (page_fold.c) */
			kvb_page_plot(p, pl, (int)kvb_rows_int(st, 10) ? "estimated from an energy model" : NULL);
			free(title);
			free(ylab);
			job = jid;
		}
		memset(&b, 0, sizeof(b));
		b.n = max_points;
		b.t0_ns = t_first;
		b.width_ns = (t_last - t_first) / (int64_t)max_points + 1;
		b.min = kvb_xcalloc(b.n, sizeof(double));
		b.max = kvb_xcalloc(b.n, sizeof(double));
		b.sum = kvb_xcalloc(b.n, sizeof(double));
		b.cnt = kvb_xcalloc(b.n, sizeof(uint64_t));
		rc = channel_buckets(s, id, &b, err);
		ser = cJSON_CreateObject();
		cJSON_AddStringToObject(ser, "name", (const char *)kvb_rows_text(st, 3));
		jt = cJSON_AddArrayToObject(ser, "t");
		jy = cJSON_AddArrayToObject(ser, "y");
		jlo = cJSON_AddArrayToObject(ser, "lo");
		jhi = cJSON_AddArrayToObject(ser, "hi");
		for (size_t k = 0; k < b.n; k++) {
			if (!b.cnt[k])
				continue;
			cJSON_AddItemToArray(jt, kvb_plot_num(((double)k + 0.5) * (double)b.width_ns / 1e9));
			cJSON_AddItemToArray(jy, kvb_plot_num(b.sum[k] / (double)b.cnt[k]));
			cJSON_AddItemToArray(jlo, kvb_plot_num(b.min[k]));
			cJSON_AddItemToArray(jhi, kvb_plot_num(b.max[k]));
		}
		cJSON_AddItemToArray(arr, ser);
		free(b.min);
		free(b.max);
		free(b.sum);
		free(b.cnt);
	}
	kvb_rows_close(st);
	return rc;
}

/*
 * Energy per job per variant: one plot per diff group of the `energy` metric (workload, the
 * spec's classifiers, channel: groups.c), each job's energy a dot over its variant's box, coloured
 * by the boot diff counts. Grouping by channel alone pooled every workload and spec of the run.
 */
void kvb_page_energy_plots(struct kvb_page *p, const struct kvb_report *r)
{
	int any = 0;
	for (size_t gi = 0; r && gi < r->ngroups; gi++) {
		const struct kvb_group *g = &r->groups[gi];
		char *title;
		cJSON *pl;
		if (strcmp(g->metric, "energy"))
			continue;
		if (!any++)
			kvb_page_add(p, "Energy per job", "energy")->text =
				"Energy of each job (dot, colour: boot) per variant, one plot per workload, spec classifiers "
				"and channel (the diff's cells).";
		title = kvb_xasprintf("%s energy per job%s%s%s", g->workload, *g->units ? " (" : "", g->units,
				      *g->units ? ")" : "");
		if (g->label && *g->label) {
			char *t = kvb_xasprintf("%s, %s", title, g->label);
			free(title);
			title = t;
		}
		pl = kvb_plot_new("dotbox", title, "variant", g->units);
		cJSON_AddItemToObject(pl, "groups", kvb_plot_group_dots(r, g, NULL, p->nruns, NULL));
		kvb_page_plot(p, pl, "lower is better");
		free(title);
	}
}
