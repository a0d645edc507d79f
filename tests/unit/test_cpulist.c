/* Tests CPU list parsing (core/cpulist.h): the lists the issue 41 user wrote and what they are told. */
#include "test.h"
#include "core/cpulist.h"

static void test_cpulist__reads_lists_and_says_what_is_wrong(void)
{
	unsigned char set[KVB_CPULIST_MAX];
	char why[160], out[64];
	CHECK(kvb_cpulist_read("0,3-5", set, why, sizeof(why)) == 4);
	CHECK(set[0] && !set[1] && !set[2] && set[3] && set[5] && !set[6]);
	CHECK_STR(kvb_cpulist_format(set, out, sizeof(out)), "0,3-5");
	CHECK(kvb_cpulist_read("7", set, why, sizeof(why)) == 1);
	CHECK(kvb_cpulist_read("abc", set, why, sizeof(why)) == -1);
	CHECK_STR(why, "'abc' is not a CPU number");
	CHECK(kvb_cpulist_read("5-4", set, why, sizeof(why)) == -1);
	CHECK_STR(why, "range 5-4 runs backwards (did you mean \"4-5\"?)");
	CHECK(kvb_cpulist_read("4,,5", set, why, sizeof(why)) == -1);
	CHECK_STR(why, "empty entry between commas");
	CHECK(kvb_cpulist_read("4-9x", set, why, sizeof(why)) == -1);
	CHECK_STR(why, "unexpected 'x' after 4-9");
	CHECK(kvb_cpulist_read("0-3,", set, why, sizeof(why)) == -1);
	CHECK_STR(why, "empty entry after the last comma");
	CHECK(kvb_cpulist_read("3-", set, why, sizeof(why)) == -1);
	CHECK_STR(why, "range 3- has no end");
	CHECK(kvb_cpulist_read("0-99999", set, why, sizeof(why)) == -1);
	CHECK_STR(why, "CPU 99999 is beyond 1023");
	CHECK(kvb_cpulist_read("", set, why, sizeof(why)) == -1);
}

#define TESTS T(test_cpulist__reads_lists_and_says_what_is_wrong)
#include "test_main.h"
