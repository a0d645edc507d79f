/*
 * Every declared metric's direction (lower_is_better) against what the metric means (issue 40
 * item 3): a table of metric-name patterns and the direction the field reads them with, walked over
 * every workload's and every instrument's declared metrics. A new metric that no pattern names
 * fails here until someone says which way it is better (or that it has no better or worse).
 */
#include "core/metric.h"
#include "instrument/instrument.h"
#include "instrument/probe.h"
#include "stats/verdict.h"
#include "workload/workload.h"
#include "test.h"

#include <fnmatch.h>

/* First match wins. Why each direction: */
static const struct {
	const char *glob;
	int lib;
} meaning[] = {
	/* what the system did, not how well: a busier CPU or a higher clock is no gain by itself */
	{ "util_*", KVB_NO_DIRECTION },
	{ "freq_*", KVB_NO_DIRECTION },
	/* rt-app's measured period: the configured one is the aim, off either way is off */
	{ "period_mean", KVB_NO_DIRECTION },
	/* how much the same work cost or how long it waited */
	{ "*lat*", KVB_LOWER_IS_BETTER },
	{ "wakeup_*", KVB_LOWER_IS_BETTER },
	{ "request_*", KVB_LOWER_IS_BETTER },
	{ "frame_duration_*", KVB_LOWER_IS_BETTER },
	{ "time", KVB_LOWER_IS_BETTER },
	{ "total_time", KVB_LOWER_IS_BETTER },
	{ "usecs_per_op", KVB_LOWER_IS_BETTER },
	{ "run_mean", KVB_LOWER_IS_BETTER },
	{ "jank_pct", KVB_LOWER_IS_BETTER },
	{ "negative_slack_pct", KVB_LOWER_IS_BETTER },
	{ "energy", KVB_LOWER_IS_BETTER },
	{ "power_*", KVB_LOWER_IS_BETTER },
	{ "dmesg_warnings", KVB_LOWER_IS_BETTER },
	/* work done in a fixed time, or room left */
	{ "*rps*", KVB_HIGHER_IS_BETTER },
	{ "ops_per_sec", KVB_HIGHER_IS_BETTER },
	{ "bogo_ops_per_sec*", KVB_HIGHER_IS_BETTER },
	{ "slack_*", KVB_HIGHER_IS_BETTER },
	{ "frames", KVB_HIGHER_IS_BETTER },
	{ "activations", KVB_HIGHER_IS_BETTER },
};

static int expected(const char *name)
{
	for (size_t i = 0; i < sizeof(meaning) / sizeof(meaning[0]); i++)
		if (!fnmatch(meaning[i].glob, name, 0))
			return meaning[i].lib;
	return -2;
}

static size_t check_decls(const char *owner, const struct kvb_metric_decl *d)
{
	size_t n = 0;
	for (; d && d->name; d++, n++) {
		int want = expected(d->name);
		if (want == -2) {
			fprintf(stderr, "%s: metric %s: no row of the meaning table names it: add one\n", owner, d->name);
			kvb_test_failures++;
		} else if (d->lower_is_better != want) {
			fprintf(stderr, "%s: metric %s is declared %s is better, its meaning is %s\n", owner, d->name,
				kvb_direction_word(d->lower_is_better), kvb_direction_word(want));
			kvb_test_failures++;
		}
		CHECK(d->units && d->description && *d->description);
	}
	return n;
}

static void test_directions__every_declared_metric_against_its_meaning(void)
{
	size_t n = 0, util = 0, freq = 0;
	for (size_t i = 0; kvb_workloads[i]; i++)
		n += check_decls(kvb_workloads[i]->name, kvb_workloads[i]->metrics);
	for (size_t i = 0; kvb_instruments[i]; i++) {
		const struct kvb_metric_decl *d = kvb_instruments[i]->metrics;
		n += check_decls(kvb_instruments[i]->name, d);
		for (; d && d->name; d++) {
			util += !strncmp(d->name, "util_", 5);
			freq += !strncmp(d->name, "freq_", 5);
		}
	}
	/* the instruments declare what they store: util and cpufreq included, not only the workloads */
	CHECK(util == 3);
	CHECK(freq == 2);
	CHECK(n > 40);
}

static void test_directions__util_stored_without_direction(void)
{
	struct kvb_metrics m;
	char why[128];
	kvb_metrics_init(&m);
	CHECK(kvb_util_from_snapshots("cpu0 100 0 0 100 0 0 0 0\n---\ncpu0 150 0 0 150 0 0 0 0\n---\n", &m, why,
				      sizeof(why)) == KVB_OK);
	CHECK(m.n == 3);
	for (size_t i = 0; i < m.n; i++)
		CHECK(m.v[i].lower_is_better == KVB_NO_DIRECTION);
	kvb_metrics_release(&m);
	/* kvb_metrics_add keeps "no direction" (it used to fold every non-zero into 1) */
	kvb_metrics_init(&m);
	CHECK(kvb_metrics_add(&m, "x", 1, "%", -1)->lower_is_better == KVB_NO_DIRECTION);
	CHECK(kvb_metrics_add(&m, "y", 1, "%", 7)->lower_is_better == KVB_LOWER_IS_BETTER);
	kvb_metrics_release(&m);
	CHECK_STR(kvb_direction_word(KVB_NO_DIRECTION), "neither");
}

/* A busier CPU, significantly: "changed", never "better" (util was higher-is-better before). */
static void test_directions__no_direction_change_is_changed(void)
{
	struct kvb_verdict v;
	struct kvb_verdict_in in = { .significant = 1, .diff = 20, .change = 0.4, .ci_lo = 0.3, .ci_hi = 0.5,
				     .boots = 5, .margin = 0.01, .lower_is_better = KVB_NO_DIRECTION };
	kvb_verdict_judge(&in, &v);
	CHECK(v.kind == KVB_VERDICT_CHANGED);
	CHECK_STR(v.name, "changed");
	in.diff = -20;
	kvb_verdict_judge(&in, &v);
	CHECK_STR(v.name, "changed");
	in.lower_is_better = KVB_HIGHER_IS_BETTER;
	kvb_verdict_judge(&in, &v);
	CHECK_STR(v.name, "worse");
	/* no change: same as for any metric */
	in = (struct kvb_verdict_in){ .significant = 0, .diff = 0.1, .change = 0.001, .ci_lo = -0.005, .ci_hi = 0.005,
				      .boots = 5, .margin = 0.01, .lower_is_better = KVB_NO_DIRECTION };
	kvb_verdict_judge(&in, &v);
	CHECK_STR(v.name, "same");
}

#define TESTS                                                                                                          \
	T(test_directions__every_declared_metric_against_its_meaning)                                                  \
	T(test_directions__util_stored_without_direction)                                                              \
	T(test_directions__no_direction_change_is_changed)
#include "test_main.h"
