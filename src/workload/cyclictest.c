/*
 * Implements the cyclictest workload (rt-tests cyclictest): timer wake-up
 * latency of T real-time threads; per thread and overall latency_min,
 * latency_avg, latency_max and latency_p99 (us, lower is better; docs/design.md#metrics).
 *
 * Run as `cyclictest -m -q -D Ns -h H -t T -i I -p P --policy=POL`. With -q and
 * -h, cyclictest prints only, at the end (rt-tests cyclictest.c print_hist;
 * tests/fixtures/field/cyclictest/ holds real captures):
 *   # /dev/cpu_dma_latency set to 0us        (anything before "# Histogram" is skipped)
 *   # Histogram
 *   000000 000000	000000                 one row per bucket: latency in whole us,
 *   000007 000011	000000                 then one count per thread
 *   # Total: 000001864 000001879            samples inside the histogram, per thread
 *   # Min Latencies: 00007 00009            us
 *   # Avg Latencies: 00025 00034            us, over every sample, truncated to whole us
 *   # Max Latencies: 03168 05508            us
 *   # Histogram Overflows: 00129 00101      samples >= H us (not in any bucket)
 *   # Histogram Overflow at cycle number:   (and "# Thread N: ..." lines: skipped)
 * With -h, cyclictest forces the thread distance to 0: every thread runs at
 * interval_us, so the job's interval_us classifier holds for each of them.
 *
 * latency_p99 is the nearest-rank 99th percentile over all of a thread's
 * samples (bucket counts plus overflows): the smallest bucket b such that at
 * least ceil(0.99 * samples) samples are <= b. When it falls among the
 * overflows the histogram cannot say it, and the job fails (raise
 * histogram_us) rather than store a wrong number. Overall ("thread" = all):
 * min of mins, max of maxes, sample-weighted mean of the averages, p99 of the
 * summed histograms.
 */
#include "core/util.h"
#include "workload/workload.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const struct kvb_keydef cyclictest_params[] = {
	{ "duration_s", KVB_T_INT, "10", NULL, KVB_KEY_CLASSIFIER | KVB_KEY_POSITIVE, "how long to measure, s (-D)" },
	{ "threads", KVB_T_INT, "1", NULL, KVB_KEY_CLASSIFIER | KVB_KEY_POSITIVE, "measurement threads (-t)" },
	{ "interval_us", KVB_T_INT, "1000", NULL, KVB_KEY_CLASSIFIER | KVB_KEY_POSITIVE,
	  "timer interval of every thread, us (-i)" },
	/* not batch or idle: cyclictest runs a thread without a real-time priority as SCHED_OTHER
	 * whatever --policy says (it prints "policy: batch/other"; rt-tests 2.4 cyclictest.c main) */
	{ "policy", KVB_T_STR, "fifo", "fifo|rr|other", KVB_KEY_CLASSIFIER,
	  "scheduling policy of the threads (--policy); cyclictest runs batch and idle as other" },
	{ "priority", KVB_T_INT, "80", NULL, KVB_KEY_CLASSIFIER | KVB_KEY_NONNEG,
	  "real-time priority (-p): 1-99 for fifo/rr, 0 for other" },
	{ "histogram_us", KVB_T_INT, "10000", NULL, KVB_KEY_POSITIVE,
	  "histogram size, us (-h): latency_p99 must fall below it" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

/* The parsed output: one histogram row per bucket, footer values per thread. */
struct ct_out {
	size_t nthreads;
	size_t nrows;
	uint64_t *bucket;  /* nrows bucket values, us, strictly increasing */
	uint64_t *count;   /* nrows x nthreads counts */
	uint64_t *total, *min, *avg, *max, *overflow; /* nthreads each */
};

static void ct_out_release(struct ct_out *o)
{
	free(o->bucket);
	free(o->count);
	free(o->total);
	free(o->min);
	free(o->avg);
	free(o->max);
	free(o->overflow);
	memset(o, 0, sizeof(*o));
}

/* Splits a line's blank-separated unsigned decimal fields into v (grown) and returns
 * their count; a field that is not a number fitting 64 bits ends the line with
 * *bad set (the count so far is useless then). */
static size_t split_u64(const char *s, const char *end, uint64_t **v, size_t *cap, int *bad)
{
	size_t n = 0;
	*bad = 0;
	while (s < end) {
		char *e;
		unsigned long long x;
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		if (s == end)
			break;
		if (*s < '0' || *s > '9') {
			*bad = 1;
			break;
		}
		errno = 0;
		x = strtoull(s, &e, 10);
		if (errno || e > end || (e < end && *e != ' ' && *e != '\t')) {
			*bad = 1;
			break;
		}
		if (n == *cap) {
			*cap = *cap ? *cap * 2 : 16;
			*v = kvb_xrealloc(*v, *cap * sizeof(**v));
		}
		(*v)[n++] = x;
		s = e;
	}
	return n;
}

static const char *const footer_keys[] = { "# Total:", "# Min Latencies:", "# Avg Latencies:", "# Max Latencies:",
					   "# Histogram Overflows:" };

/* Reads one footer line's values into *dst (nthreads of them). */
static int read_footer(struct ct_out *o, size_t k, const char *s, const char *end, unsigned line,
		       struct kvb_error *err)
{
	uint64_t **dst[] = { &o->total, &o->min, &o->avg, &o->max, &o->overflow };
	uint64_t *v = NULL;
	size_t cap = 0;
	int bad;
	size_t n = split_u64(s, end, &v, &cap, &bad);
	if (bad || n != o->nthreads || *dst[k]) {
		free(v);
		if (*dst[k])
			return kvb_error_set(err, KVB_EINPUT, "line %u: second '%s' line", line, footer_keys[k]);
		return kvb_error_set(err, KVB_EINPUT, "line %u: '%s' needs %zu whole numbers (one per thread)", line,
				     footer_keys[k], o->nthreads);
	}
	*dst[k] = v;
	return KVB_OK;
}

/* Reads one histogram row "BUCKET COUNT..."; the first row fixes the thread count. */
static int read_row(struct ct_out *o, const char *s, const char *end, unsigned line, size_t *cap,
		    struct kvb_error *err)
{
	uint64_t *v = NULL;
	size_t vcap = 0;
	int bad, rc = KVB_OK;
	size_t n = split_u64(s, end, &v, &vcap, &bad);
	if (bad || n < 2) {
		rc = kvb_error_set(err, KVB_EINPUT, "line %u: histogram row is not 'BUCKET COUNT...': \"%.*s\"", line,
				   (int)(end - s > 60 ? 60 : end - s), s);
	} else if (o->nrows && n - 1 != o->nthreads) {
		rc = kvb_error_set(err, KVB_EINPUT, "line %u: histogram row has %zu counts, the first row had %zu", line,
				   n - 1, o->nthreads);
	} else if (o->nrows && v[0] <= o->bucket[o->nrows - 1]) {
		rc = kvb_error_set(err, KVB_EINPUT, "line %u: histogram bucket %llu does not follow bucket %llu", line,
				   (unsigned long long)v[0], (unsigned long long)o->bucket[o->nrows - 1]);
	} else {
		o->nthreads = n - 1;
		if (o->nrows == *cap) {
			*cap = *cap ? *cap * 2 : 256;
			o->bucket = kvb_xrealloc(o->bucket, *cap * sizeof(*o->bucket));
			o->count = kvb_xrealloc(o->count, *cap * o->nthreads * sizeof(*o->count));
		}
		o->bucket[o->nrows] = v[0];
		memcpy(o->count + o->nrows * o->nthreads, v + 1, o->nthreads * sizeof(*v));
		o->nrows++;
	}
	free(v);
	return rc;
}

/* Reads the histogram and its footer; checks each thread's rows add up to its Total. */
static int ct_read(struct ct_out *o, const char *out, struct kvb_error *err)
{
	const char *s = strstr(out, "# Histogram\n");
	size_t cap = 0;
	unsigned line = 1;
	int rc = KVB_OK;
	if (!s)
		return kvb_error_set(err, KVB_EINPUT, "no '# Histogram' line (not cyclictest -h output, or cut before it)");
	for (const char *p = out; p < s; p++)
		line += *p == '\n';
	for (s = strchr(s, '\n') + 1, line++; *s && !rc; line++) {
		const char *end = s + strcspn(s, "\n");
		size_t k = KVB_ARRAY_SIZE(footer_keys);
		if (*s >= '0' && *s <= '9') {
			if (o->total)
				rc = kvb_error_set(err, KVB_EINPUT, "line %u: histogram row after '# Total:'", line);
			else
				rc = read_row(o, s, end, line, &cap, err);
		} else if (!strncmp(s, "# Histogram Overflow at cycle number:", 37)) {
			break; /* the rest lists cycle numbers, which we do not use */
		} else if (*s == '#') {
			for (k = 0; k < KVB_ARRAY_SIZE(footer_keys); k++)
				if (!strncmp(s, footer_keys[k], strlen(footer_keys[k])))
					break;
			if (k < KVB_ARRAY_SIZE(footer_keys) && !o->nthreads)
				rc = kvb_error_set(err, KVB_EINPUT, "line %u: '%s' before any histogram row", line,
						   footer_keys[k]);
			else if (k < KVB_ARRAY_SIZE(footer_keys))
				rc = read_footer(o, k, s + strlen(footer_keys[k]), end, line, err);
		} else if (end > s && strspn(s, " \t") < (size_t)(end - s)) {
			rc = kvb_error_set(err, KVB_EINPUT, "line %u: unexpected text in the histogram: \"%.*s\"", line,
					   (int)(end - s > 60 ? 60 : end - s), s);
		}
		s = *end ? end + 1 : end;
	}
	if (rc)
		return rc;
	if (!o->nrows)
		return kvb_error_set(err, KVB_EINPUT, "the histogram has no rows (cut output?)");
	{
		uint64_t *got[] = { o->total, o->min, o->avg, o->max, o->overflow };
		for (size_t k = 0; k < KVB_ARRAY_SIZE(footer_keys); k++)
			if (!got[k])
				return kvb_error_set(err, KVB_EINPUT, "no '%s' line (cut output?)", footer_keys[k]);
	}
	for (size_t t = 0; t < o->nthreads; t++) {
		uint64_t sum = 0;
		for (size_t r = 0; r < o->nrows; r++)
			sum += o->count[r * o->nthreads + t];
		if (sum != o->total[t])
			return kvb_error_set(err, KVB_EINPUT, "thread %zu: histogram rows add up to %llu, '# Total:' says %llu",
					     t, (unsigned long long)sum, (unsigned long long)o->total[t]);
		if (!o->total[t] && !o->overflow[t])
			return kvb_error_set(err, KVB_EINPUT, "thread %zu took no samples", t);
		if (o->min[t] > o->avg[t] || o->avg[t] > o->max[t])
			return kvb_error_set(err, KVB_EINPUT, "thread %zu: min %llu, avg %llu, max %llu us are out of order",
					     t, (unsigned long long)o->min[t], (unsigned long long)o->avg[t],
					     (unsigned long long)o->max[t]);
	}
	return KVB_OK;
}

/* Nearest-rank p99 over the samples of thread t (SIZE_MAX: every thread) into *p99_us.
 * Returns 0 when it lies among the overflows (above the last bucket), else 1. */
static int ct_p99(const struct ct_out *o, size_t t, uint64_t samples, uint64_t *p99_us)
{
	uint64_t need = (uint64_t)ceil(0.99 * (double)samples), cum = 0;
	for (size_t r = 0; r < o->nrows; r++) {
		for (size_t j = 0; j < o->nthreads; j++)
			if (t == SIZE_MAX || j == t)
				cum += o->count[r * o->nthreads + j];
		if (cum >= need) {
			*p99_us = o->bucket[r];
			return 1;
		}
	}
	return 0;
}

static void add_four(struct kvb_metrics *m, const char *thread, double min, double avg, double max, double p99)
{
	const char *names[] = { "latency_min", "latency_avg", "latency_max", "latency_p99" };
	double v[] = { min, avg, max, p99 };
	for (size_t i = 0; i < 4; i++)
		kvb_metric_classify(kvb_metrics_add(m, names[i], v[i], "us", 1), "thread", thread);
}

int kvb_parse_cyclictest(const char *out, struct kvb_metrics *m, struct kvb_error *err)
{
	struct ct_out o;
	uint64_t all_samples = 0, all_min = UINT64_MAX, all_max = 0;
	uint64_t *p99 = NULL, all_p99 = 0;
	double weighted = 0;
	char name[32];
	int rc;

	memset(&o, 0, sizeof(o));
	rc = ct_read(&o, out, err);
	if (!rc)
		p99 = kvb_xcalloc(o.nthreads, sizeof(*p99));
	/* every value first, metrics after: a job that fails keeps no half of them */
	for (size_t t = 0; !rc && t < o.nthreads; t++) {
		uint64_t samples = o.total[t] + o.overflow[t];
		if (!ct_p99(&o, t, samples, &p99[t]))
			rc = kvb_error_set(err, KVB_EINPUT,
					   "thread %zu: latency_p99 is above the histogram (%llu of %llu samples overflowed "
					   "it): raise histogram_us",
					   t, (unsigned long long)o.overflow[t], (unsigned long long)samples);
		all_samples += samples;
		weighted += (double)o.avg[t] * (double)samples;
		all_min = o.min[t] < all_min ? o.min[t] : all_min;
		all_max = o.max[t] > all_max ? o.max[t] : all_max;
	}
	if (!rc && !ct_p99(&o, SIZE_MAX, all_samples, &all_p99))
		rc = kvb_error_set(err, KVB_EINPUT, "latency_p99 of all threads is above the histogram: raise histogram_us");
	for (size_t t = 0; !rc && t < o.nthreads; t++) {
		snprintf(name, sizeof(name), "%zu", t);
		add_four(m, name, (double)o.min[t], (double)o.avg[t], (double)o.max[t], (double)p99[t]);
	}
	if (!rc)
		add_four(m, "all", (double)all_min, weighted / (double)all_samples, (double)all_max, (double)all_p99);
	free(p99);
	ct_out_release(&o);
	return rc;
}

/* cyclictest turns a priority that does not fit the policy into another policy (with a
 * warning): refuse such a pair so the policy classifier is what ran. */
static int cyclictest_validate(const cJSON *params, const char *path, struct kvb_diag *d)
{
	const cJSON *pol = cJSON_GetObjectItemCaseSensitive(params, "policy");
	const cJSON *pri = cJSON_GetObjectItemCaseSensitive(params, "priority");
	const char *policy = cJSON_IsString(pol) ? pol->valuestring : "fifo";
	int rt = !strcmp(policy, "fifo") || !strcmp(policy, "rr");
	double prio = cJSON_IsNumber(pri) ? pri->valuedouble : 80;
	char *at;
	int errors = 0;
	if (!cJSON_IsObject(params) || (pri && !cJSON_IsNumber(pri)))
		return 0; /* the key table reports it */
	at = kvb_path_key(path, "priority");
	if (rt && (prio < 1 || prio > 99)) {
		kvb_diag_at(d, at, "policy %s needs priority 1-99, got %g", policy, prio);
		errors++;
	} else if (!rt && prio != 0) {
		kvb_diag_at(d, at, "policy %s runs without a real-time priority: give priority 0, not %g", policy, prio);
		errors++;
	}
	free(at);
	return errors;
}

static int cyclictest_run(struct kvb_job_ctx *ctx, struct kvb_error *err)
{
	const struct kvb_workload_ops *ops = ctx->ops;
	struct kvb_strv a = KVB_STRV_INIT;
	long long duration_s = kvb_param_int(ops, ctx->params, "duration_s");
	char *policy = kvb_param_str(ops, ctx->params, "policy");
	int rc;

	/* the measurement must end by itself (cyclictest prints the histogram at the end) */
	if ((uint64_t)duration_s * 1000 + 30000 > ctx->timeout_ms) {
		rc = kvb_error_set(err, KVB_EINPUT, "duration_s %lld does not fit the job's timeout of %llu s with 30 s to "
						    "spare: give the job a larger timeout_s",
				   duration_s, (unsigned long long)(ctx->timeout_ms / 1000));
		free(policy);
		return rc;
	}
	kvb_strv_push(&a, "cyclictest");
	kvb_strv_push(&a, "-m");
	kvb_strv_push(&a, "-q");
	kvb_strv_pushf(&a, "-D%llds", duration_s);
	kvb_strv_pushf(&a, "-h%lld", kvb_param_int(ops, ctx->params, "histogram_us"));
	kvb_strv_pushf(&a, "-t%lld", kvb_param_int(ops, ctx->params, "threads"));
	kvb_strv_pushf(&a, "-i%lld", kvb_param_int(ops, ctx->params, "interval_us"));
	kvb_strv_pushf(&a, "-p%lld", kvb_param_int(ops, ctx->params, "priority"));
	kvb_strv_pushf(&a, "--policy=%s", policy);
	rc = kvb_workload_run_cmd(ctx, "cyclictest", kvb_strv_argv(&a), kvb_parse_cyclictest, err);
	kvb_strv_release(&a);
	free(policy);
	return rc;
}

static const char *const cyclictest_needs[] = { "cyclictest", NULL };

/* What it stores (docs/design.md#metrics: metric names are an interface); checked after every job. */
static const struct kvb_metric_decl cyclictest_metrics[] = {
	{ "latency_min", "us", 1, "smallest wake-up latency, per thread (classifier thread; 'all' over threads)", .resolution = 1 },
	{ "latency_avg", "us", 1, "mean wake-up latency, per thread", .resolution = 1 },
	{ "latency_max", "us", 1, "largest wake-up latency, per thread", .resolution = 1 },
	{ "latency_p99", "us", 1, "99th percentile from the histogram, per thread", 0, NULL },
	{ NULL, NULL, 0, NULL, 0, NULL },
};

const struct kvb_workload_ops kvb_workload_cyclictest = {
	.metrics = cyclictest_metrics,
	.name = "cyclictest",
	.summary = "rt-tests cyclictest: timer wake-up latency per thread; latency_min/avg/max/p99 (us)",
	.params = cyclictest_params,
	.validate = cyclictest_validate,
	.needs = cyclictest_needs,
	.caps = KVB_WORKLOAD_NEEDS_ROOT | KVB_WORKLOAD_REALTIME,
	.default_timeout_s = 600,
	.run = cyclictest_run,
};
