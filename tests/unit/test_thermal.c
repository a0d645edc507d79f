/* The thermal witness (engine/thermal.h): zones, cooling devices and cpufreq caps before and after a job. */
#include "engine/thermal.h"
#include "test.h"

#include <stdlib.h>

/* The thermal tree as Documentation/driver-api/thermal/sysfs-api.rst's example shows it (acpitz, Processor, Fan). */
static const char before_txt[] = "Z|thermal_zone1|acpitz|37000\n"
				 "Z|thermal_zone2|x86_pkg_temp|\n" /* a sensor without data */
				 "C|cooling_device0|Processor|0|8\n"
				 "C|cooling_device3|Fan|0|2\n"
				 "P|policy0|2362000|2362000\n"
				 "P|policy4||\n"; /* offline: EBUSY */

static void test_thermal__capping_that_began_during_the_job_is_a_changed_witness(void)
{
	struct kvb_thermal a, b;
	struct kvb_thermal_limits l = { 0, 0, "" };
	struct kvb_witnesses w;
	struct kvb_error err;
	kvb_thermal_parse(before_txt, &a);
	CHECK(a.nzones == 2 && a.ncooling == 2 && a.npolicies == 2);
	CHECK(a.zones[0].ok && a.zones[0].a == 37000 && !a.zones[1].ok && !a.policies[1].ok);
	kvb_thermal_parse("Z|thermal_zone1|acpitz|81000\nZ|thermal_zone2|x86_pkg_temp|\n"
			  "C|cooling_device0|Processor|3|8\nC|cooling_device3|Fan|0|2\n"
			  "P|policy0|1800000|2362000\nP|policy4||\n",
			  &b);
	kvb_witnesses_init(&w);
	CHECK(kvb_thermal_judge(&a, &b, &l, &w, &err) == KVB_OK);
	/* the zone's temperature, the Processor's cooling state, policy0's cap; nothing for the idle fan */
	CHECK(w.n == 3);
	if (w.n == 3) {
		CHECK_STR(w.v[0].subject, "acpitz");
		CHECK_STR(w.v[0].expected, "37000");
		CHECK_STR(w.v[0].observed, "81000");
		CHECK(w.v[0].verdict == KVB_WIT_OK);
		CHECK_STR(w.v[1].subject, "Processor");
		CHECK(w.v[1].verdict == KVB_WIT_CHANGED);
		CHECK_CONTAINS(w.v[1].detail, "cur_state 0 before the job, 3 after, of max_state 8: capping began");
		CHECK_STR(w.v[2].subject, "policy0 scaling_max_freq");
		CHECK(w.v[2].verdict == KVB_WIT_CHANGED);
		CHECK_CONTAINS(w.v[2].detail, "2362000 kHz before the job, 1800000 after (cpuinfo_max_freq 2362000): capping began");
	}
	kvb_witnesses_release(&w);
	/* the limits refuse the job: a failed witness each, and the reason */
	l.max_temp_mc = 80000;
	l.refuse_capped = 1;
	kvb_witnesses_init(&w);
	CHECK(kvb_thermal_judge(&a, &b, &l, &w, &err) == KVB_ETARGET);
	CHECK(kvb_witnesses_count(&w, KVB_WIT_FAILED) == 3);
	CHECK_CONTAINS(err.msg, "thermal: thermal_zone1: 37000 mC before the job, 81000 mC after: above thermal.max_temp_mc 80000");
	CHECK_CONTAINS(err.msg, "cooling_device0 (Processor)");
	kvb_witnesses_release(&w);
	/* the CPUs online: the same set printed another way is no change; two CPUs out is */
	kvb_thermal_release(&a);
	kvb_thermal_release(&b);
	l.max_temp_mc = 0;
	l.refuse_capped = 0;
	kvb_thermal_parse("O|0-3\n", &a);
	kvb_thermal_parse("O|0,1,2,3\n", &b);
	kvb_witnesses_init(&w);
	CHECK(kvb_thermal_judge(&a, &b, &l, &w, &err) == KVB_OK && w.n == 0);
	kvb_thermal_release(&b);
	kvb_thermal_parse("O|0-1\n", &b);
	CHECK(kvb_thermal_judge(&a, &b, &l, &w, &err) == KVB_OK && w.n == 1);
	if (w.n == 1) {
		CHECK_STR(w.v[0].kind, "hotplug");
		CHECK(w.v[0].verdict == KVB_WIT_CHANGED);
		CHECK_STR(w.v[0].detail, "CPUs online changed during the job: 0-3 before, 0-1 after (/sys/devices/system/cpu/online)");
	}
	kvb_witnesses_release(&w);
	/* a board without thermal zones records nothing */
	kvb_thermal_release(&a);
	kvb_thermal_release(&b);
	kvb_thermal_parse("", &a);
	kvb_thermal_parse("", &b);
	kvb_witnesses_init(&w);
	CHECK(kvb_thermal_judge(&a, &b, &l, &w, &err) == KVB_OK && w.n == 0);
	kvb_witnesses_release(&w);
	kvb_thermal_release(&a);
	kvb_thermal_release(&b);
}

#define TESTS                                                                                                          \
	T(test_thermal__capping_that_began_during_the_job_is_a_changed_witness)
#include "test_main.h"
