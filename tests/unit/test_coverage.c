/*
 * A meter channel's coverage of its job window (instrument/coverage.h): the interval from the
 * declared rate or the samples' median spacing, the edges, the gaps, and what the witness says.
 */
#include "core/samples.h"
#include "core/util.h"
#include "instrument/coverage.h"
#include "instrument/probe.h"

#include "test.h"

#include <stdlib.h>

#define S 1000000000LL
#define MS 1000000LL

/* A channel of constant 1.5 W (1500 mW) sampled every step_ns over [t0, t1]. */
static size_t chan(struct kvb_samples *s, const char *name, int64_t t0, int64_t t1, int64_t step_ns)
{
	size_t c = kvb_samples_channel(s, name, "mW", "meter");
	for (int64_t t = t0; t <= t1; t += step_ns)
		kvb_samples_add(s, c, t, 1500);
	return c;
}

static void test_coverage__a_meter_that_stopped_early_is_refused_naming_the_coverage(void)
{
	/* the case: 1.5 W over a 3 s window, samples only for its first 2 s (SIGTERM lost the rest) */
	struct kvb_samples *s = kvb_samples_new();
	struct kvb_coverage_rule r = KVB_COVERAGE_RULE_DEFAULT;
	struct kvb_coverage cv;
	size_t c = chan(s, "sys", 100 * S, 100 * S + 2 * S, 10 * MS);
	kvb_coverage_check(&s->ch[c], 100 * S, 103 * S, &r, &cv);
	CHECK(!cv.ok);
	CHECK(cv.interval_ns == 10 * MS);
	CHECK(cv.tail_ns == 1 * S);
	CHECK_CONTAINS(cv.observed, "2.00 s of 3.00 s (201 samples every 10.0 ms;");
	CHECK_CONTAINS(cv.observed, "last 1.00 s before the end");
	CHECK_CONTAINS(cv.why, "ends 1.00 s before the job did (more than 50.0 ms)");
	/* the energy the old code stored: 2 J of the 4.5 J the board used */
	CHECK_NEAR(kvb_samples_energy_j(&s->ch[c]), 3.0, 1e-9);
	kvb_samples_free(s);
}

static void test_coverage__full_window_is_ok_and_edge_is_one_interval_or_edge_ms(void)
{
	struct kvb_samples *s = kvb_samples_new();
	struct kvb_coverage_rule r = KVB_COVERAGE_RULE_DEFAULT;
	struct kvb_coverage cv;
	/* 100 Hz, first sample 8 ms after the start, last 9 ms before the end: within one interval */
	size_t c = chan(s, "a", 8 * MS, 3 * S - 9 * MS, 10 * MS);
	kvb_coverage_check(&s->ch[c], 0 + 1, 3 * S, &r, &cv); /* start 1 ns: a window, not "none" */
	CHECK(cv.ok);
	CHECK_STR(cv.why, "");
	/* a 1 kHz meter 40 ms late (start-up of a relative-time meter): edge_ms 50 allows it, edge_ms 0 does not */
	c = chan(s, "b", 40 * MS, 3 * S, 1 * MS);
	kvb_coverage_check(&s->ch[c], 1, 3 * S, &r, &cv);
	CHECK(cv.ok);
	r.edge_ms = 0;
	kvb_coverage_check(&s->ch[c], 1, 3 * S, &r, &cv);
	CHECK(!cv.ok);
	CHECK_CONTAINS(cv.why, "starts 40.0 ms after the job did (more than 1.0 ms)");
	kvb_samples_free(s);
}

static void test_coverage__no_sample_or_one_sample_is_refused_never_0_joules(void)
{
	struct kvb_samples *s = kvb_samples_new();
	struct kvb_coverage_rule r = KVB_COVERAGE_RULE_DEFAULT;
	struct kvb_coverage cv;
	struct kvb_metrics m;
	struct kvb_error err;
	size_t c0 = kvb_samples_channel(s, "empty", "mW", "meter");
	size_t c1 = kvb_samples_channel(s, "one", "mW", "meter");
	kvb_samples_add(s, c1, 5 * S, 1500);
	kvb_coverage_check(&s->ch[c0], 1 * S, 4 * S, &r, &cv);
	CHECK(!cv.ok);
	CHECK_STR(cv.observed, "no sample in the 3.00 s window");
	kvb_coverage_check(&s->ch[c1], 0, 0, &r, &cv);
	CHECK(!cv.ok);
	CHECK_CONTAINS(cv.why, "1 sample");
	/* through the metrics: no energy/power_mean for either, a refused witness each */
	kvb_metrics_init(&m);
	CHECK(kvb_coverage_witness(s, "meter", 1 * S, 4 * S, &r, &m.witnesses) == 2);
	CHECK(kvb_energy_metrics(&m, s, NULL, &err) == KVB_OK);
	CHECK(m.n == 0);
	CHECK(m.witnesses.n == 2 && kvb_witnesses_count(&m.witnesses, KVB_WIT_REFUSED) == 2);
	CHECK_STR(m.witnesses.v[0].subject, "meter channel empty");
	CHECK_CONTAINS(m.witnesses.v[0].detail, "energy and power_mean not stored: no sample in the 3.00 s window");
	kvb_metrics_release(&m);
	kvb_samples_free(s);
}

static void test_coverage__a_gap_over_n_intervals_is_refused_and_so_is_its_sum(void)
{
	struct kvb_samples *s = kvb_samples_new();
	struct kvb_coverage_rule r = KVB_COVERAGE_RULE_DEFAULT;
	struct kvb_metrics m;
	struct kvb_error err;
	cJSON *sums = cJSON_Parse("{\"total\": [\"big\", \"little\"], \"big_only\": [\"big\"]}");
	size_t big = chan(s, "big", 0, 3 * S, 10 * MS);
	size_t little = kvb_samples_channel(s, "little", "mW", "meter");
	/* little: 100 Hz with a 200 ms hole at 1 s (20 intervals > 10) */
	for (int64_t t = 0; t <= 3 * S; t += 10 * MS)
		if (t <= 1 * S || t >= 1 * S + 200 * MS)
			kvb_samples_add(s, little, t, 500);
	(void)big;
	kvb_metrics_init(&m);
	CHECK(kvb_coverage_witness(s, "meter", 1, 3 * S, &r, &m.witnesses) == 1);
	CHECK(!s->ch[big].refused && s->ch[little].refused);
	CHECK_CONTAINS(m.witnesses.v[1].detail, "a gap of 200.0 ms (more than 10 intervals of 10.0 ms)");
	CHECK(kvb_energy_metrics(&m, s, sums, &err) == KVB_OK);
	/* big and big_only: energy + power_mean each; little and total refused */
	CHECK(m.n == 4);
	for (size_t i = 0; i < m.n; i++) {
		const char *ch = cJSON_GetObjectItem(m.v[i].classifiers, "chan_name")->valuestring;
		CHECK(!strcmp(ch, "big") || !strcmp(ch, "big_only"));
	}
	CHECK(m.witnesses.n == 3);
	CHECK_STR(m.witnesses.v[2].subject, "meter sum total");
	CHECK(m.witnesses.v[2].verdict == KVB_WIT_REFUSED);
	CHECK_CONTAINS(m.witnesses.v[2].detail, "channel little was refused");
	kvb_metrics_release(&m);
	cJSON_Delete(sums);
	kvb_samples_free(s);
}

static void test_coverage__median_interval_survives_subsampling_and_declared_rate_wins(void)
{
	struct kvb_samples *s = kvb_samples_new();
	struct kvb_coverage_rule r = KVB_COVERAGE_RULE_DEFAULT;
	struct kvb_coverage cv;
	/* 10 kHz for 3 s: 30000 intervals, far more than KVB_SPACING_KEEP; a few 5 ms hiccups */
	size_t c = kvb_samples_channel(s, "aep", "mW", "meter");
	int64_t t = 0;
	for (int i = 0; i < 30000; i++) {
		t += i % 7000 == 6999 ? 5 * MS : 100000;
		kvb_samples_add(s, c, t, 1000);
	}
	CHECK(s->ch[c].nspacing <= KVB_SPACING_KEEP);
	CHECK(kvb_samples_median_interval_ns(&s->ch[c]) == 100000);
	CHECK(s->ch[c].max_gap_ns == 5 * MS);
	/* a 5 ms hole is 50 intervals of 0.1 ms: refused by default, kept with max_gap_intervals 100 */
	kvb_coverage_check(&s->ch[c], 0, 0, &r, &cv);
	CHECK(!cv.ok);
	r.max_gap_intervals = 100;
	kvb_coverage_check(&s->ch[c], 0, 0, &r, &cv);
	CHECK(cv.ok);
	/* a declared rate (Monsoon's rate_hz) is the interval, whatever the spacing */
	r.rate_hz = 100;
	kvb_coverage_check(&s->ch[c], 0, 0, &r, &cv);
	CHECK(cv.interval_ns == 10 * MS);
	kvb_samples_free(s);
}

#define TESTS                                                                                                          \
	T(test_coverage__a_meter_that_stopped_early_is_refused_naming_the_coverage)                                   \
	T(test_coverage__full_window_is_ok_and_edge_is_one_interval_or_edge_ms)                                       \
	T(test_coverage__no_sample_or_one_sample_is_refused_never_0_joules)                                           \
	T(test_coverage__a_gap_over_n_intervals_is_refused_and_so_is_its_sum)                                         \
	T(test_coverage__median_interval_survives_subsampling_and_declared_rate_wins)
#include "test_main.h"
