/* Knobs read back (engine/readback.h): the kernel's way of printing a value, and the readback policy key. */
#include "config/runtime.h"
#include "core/buf.h"
#include "engine/readback.h"
#include "test.h"

#include <stdlib.h>

static char *field(const char *name)
{
	struct kvb_buf b = KVB_BUF_INIT;
	char path[1024];
	snprintf(path, sizeof(path), "%s/tests/fixtures/field/%s", getenv("KVB_SOURCE_DIR") ? getenv("KVB_SOURCE_DIR") : ".",
		 name);
	if (kvb_buf_read_file(&b, path)) {
		fprintf(stderr, "cannot read %s\n", path);
		return NULL;
	}
	return kvb_buf_detach(&b);
}

/* Real files as the kernel prints them (tests/fixtures/field/sysfs/PROVENANCE) against what a user writes. */
static void test_readback__a_value_the_kernel_prints_its_own_way_agrees(void)
{
	static const char *const cases[][2] = {
		{ "sysfs/proc-sys-kernel-printk", "4 4 1 7" },
		{ "sysfs/thp-enabled", "madvise" },
		{ "sysfs/block-queue-scheduler", "none" },
		{ "sysfs/module-param-bool", "0" },
		{ "sysfs/irq-smp_affinity", "03" },
		{ "sysfs/irq-smp_affinity_list", "0,1" },
		{ "sysfs/cpuset-cpus", "0-1" },
		{ "sysfs/wa3-897-sched_features", "NO_ENERGY_AWARE" },
		{ "sysfs/wa3-897-sched_features", "TTWU_QUEUE NO_HRTICK" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *txt = field(cases[i][0]);
		CHECK(txt != NULL);
		if (!kvb_knob_agrees(cases[i][1], txt))
			fprintf(stderr, "  %s: '%s' should agree with the file\n", cases[i][0], cases[i][1]);
		CHECK(kvb_knob_agrees(cases[i][1], txt));
		free(txt);
	}
	CHECK(kvb_knob_agrees("performance", "performance\n"));
	CHECK(kvb_knob_agrees("0100", "100\n"));
	CHECK(kvb_knob_agrees("0x10", "16"));
	CHECK(kvb_knob_agrees("0-3", "0,1,2,3\n"));
	CHECK(kvb_knob_agrees("f", "00000000,0000000f\n"));
	CHECK(kvb_knob_agrees("true", "Y\n"));
	CHECK(kvb_knob_agrees("", "\n"));
}

static void test_readback__a_value_the_kernel_did_not_take_disagrees(void)
{
	char *thp = field("sysfs/thp-enabled"), *v;
	/* WA3 #897: cpufreq clamps scaling_max_freq to cpuinfo_max_freq */
	CHECK(!kvb_knob_agrees("2800000", "2362000\n"));
	/* ms sysctls round to jiffies: net.ipv4.icmp_ratelimit 1 reads 4 at HZ=250 */
	CHECK(!kvb_knob_agrees("1", "4\n"));
	CHECK(!kvb_knob_agrees("never", thp));
	CHECK(!kvb_knob_agrees("schedutil", "performance\n"));
	CHECK(!kvb_knob_agrees("0-3", "0-2\n"));
	CHECK(!kvb_knob_agrees("4 4 1 7", "4\t4\t1\n"));
	CHECK(!kvb_knob_agrees("1", "N\n"));
	CHECK(!kvb_knob_agrees("10", "a\n"));
	CHECK(!kvb_knob_agrees("inf", "inf0"));
	{
		/* a feature the kernel kept off (or does not have) */
		char *feat = field("sysfs/wa3-897-sched_features");
		CHECK(!kvb_knob_agrees("ENERGY_AWARE", feat));
		CHECK(!kvb_knob_agrees("NO_TTWU_QUEUE", feat));
		CHECK(!kvb_knob_agrees("NO_SUCH_FEATURE", feat));
		free(feat);
	}
	/* cgroup2 cpu.uclamp.min keeps two decimals of a percentage */
	CHECK(kvb_knob_agrees("50", "50.00\n"));
	CHECK(!kvb_knob_agrees("33.333", "33.33\n"));
	v = kvb_knob_value(thp);
	CHECK_STR(v, "madvise");
	free(v);
	v = kvb_knob_value("2362000\n");
	CHECK_STR(v, "2362000");
	free(v);
	free(thp);
}

static void test_readback__the_most_specific_readback_entry_wins(void)
{
	cJSON *rb = cJSON_Parse("{\"all\": \"record\", \"cpufreq\": \"fail\", \"cpufreq.big.max_freq\": \"record\","
				" \"sysctl.kernel\": \"fail\"}");
	CHECK(kvb_readback_lenient(rb, "cpufreq.big.max_freq"));
	CHECK(!kvb_readback_lenient(rb, "cpufreq.big.min_freq"));
	CHECK(!kvb_readback_lenient(rb, "cpufreq.little.tunables.rate_limit_us"));
	CHECK(!kvb_readback_lenient(rb, "sysctl.kernel.sched_rr_timeslice_ms"));
	CHECK(kvb_readback_lenient(rb, "sysctl.net.ipv4.icmp_ratelimit"));
	CHECK(kvb_readback_lenient(rb, "sysfs./sys/kernel/mm/ksm/run"));
	CHECK(!kvb_readback_lenient(NULL, "governor"));
	cJSON_Delete(rb);
}

/* readback: a word or {KIND[.NAME]: fail|record}, checked like every key (file position, the choices). */
static void test_readback__the_key_is_checked_from_the_tables(void)
{
	struct kvb_runtime rt;
	struct kvb_diag d;
	cJSON *good = cJSON_Parse("{\"readback\": {\"cpufreq.big.max_freq\": \"record\", \"sysctl\": \"fail\"}}");
	cJSON *word = cJSON_Parse("{\"readback\": \"record\"}");
	cJSON *bad = cJSON_Parse("{\"readback\": {\"cpufrq\": \"record\", \"sysfs\": \"recrod\", \"governor.x\": \"fail\"}}");
	cJSON *j;
	char *s;
	kvb_runtime_init(&rt);
	kvb_diag_init(&d, NULL);
	CHECK(kvb_runtime_merge_json(&rt, good, "config.runtime_params", &d) == 0);
	CHECK(kvb_runtime_merge_json(&rt, word, "config.runtime_params", &d) == 0);
	j = kvb_runtime_to_json(&rt);
	s = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(j, "readback"));
	CHECK_STR(s, "{\"cpufreq.big.max_freq\":\"record\",\"sysctl\":\"fail\",\"all\":\"record\"}");
	free(s);
	cJSON_Delete(j);
	{
		/* not a classifier: how knobs are checked is not what they were */
		cJSON *cls = cJSON_CreateObject();
		struct kvb_strv keys = KVB_STRV_INIT;
		kvb_runtime_add_classifiers(&rt, &rt, cls);
		CHECK(cls->child == NULL);
		j = kvb_runtime_to_json(&rt);
		kvb_runtime_json_classifier_keys(j, &keys);
		CHECK(keys.n == 0);
		kvb_strv_release(&keys);
		cJSON_Delete(j);
		cJSON_Delete(cls);
	}
	CHECK(kvb_runtime_merge_json(&rt, bad, "config.runtime_params", &d) == 3);
	CHECK(d.msgs.n == 3);
	if (d.msgs.n == 3) {
		CHECK_CONTAINS(d.msgs.v[0], "'cpufrq' is not a knob kind or knob");
		CHECK_CONTAINS(d.msgs.v[1], "expected one of fail|record, got \"recrod\"");
		CHECK_CONTAINS(d.msgs.v[2], "'governor.x' is not a knob kind or knob");
	}
	kvb_diag_release(&d);
	kvb_runtime_release(&rt);
	cJSON_Delete(good);
	cJSON_Delete(word);
	cJSON_Delete(bad);
}

#define TESTS                                                                                                          \
	T(test_readback__a_value_the_kernel_prints_its_own_way_agrees)                                                 \
	T(test_readback__a_value_the_kernel_did_not_take_disagrees)                                                    \
	T(test_readback__the_most_specific_readback_entry_wins)                                                        \
	T(test_readback__the_key_is_checked_from_the_tables)
#include "test_main.h"
