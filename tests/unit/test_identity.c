/*
 * Unit tests of the post-boot identity comparison (engine/identity.c): a
 * mismatch names both strings with their control characters escaped, so a
 * release read through a pty ("6.1.0-x\r") never prints as the one expected.
 */
#include "test.h"

#include "engine/identity.h"

static void test_identity__mismatch_escapes_invisible_characters(void)
{
	struct kvb_error e = { 0 };
	struct kvb_identity id = { .release = "6.1.0-kvb\r", .version = "#1 SMP\t2024", .cmdline = "a=1 b\x1b[0m" };
	CHECK(kvb_identity_compare(&id, "6.1.0-kvb", NULL, NULL, &e) == KVB_ETARGET);
	CHECK_STR(e.msg, "flashed 6.1.0-kvb but running 6.1.0-kvb\\r");
	CHECK(kvb_identity_compare(&id, NULL, "#1 SMP 2024", NULL, &e) == KVB_ETARGET);
	CHECK_STR(e.msg, "flashed '#1 SMP 2024' but running '#1 SMP\\t2024'");
	/* the expected string is escaped too (an image whose banner carries a control byte) */
	CHECK(kvb_identity_compare(&id, "6.1.0-kvb\x7f", NULL, NULL, &e) == KVB_ETARGET);
	CHECK_STR(e.msg, "flashed 6.1.0-kvb\\x7f but running 6.1.0-kvb\\r");
	CHECK(kvb_identity_compare(&id, NULL, NULL, "c=2", &e) == KVB_ETARGET);
	CHECK_STR(e.msg, "cmdline option 'c=2' missing from the running kernel's /proc/cmdline: a=1 b\\x1b[0m");
	/* unknown running strings say so */
	CHECK(kvb_identity_compare(&(struct kvb_identity){ 0 }, "6.1.0-kvb", NULL, NULL, &e) == KVB_ETARGET);
	CHECK_STR(e.msg, "flashed 6.1.0-kvb but running (unknown)");
}

static void test_identity__equal_strings_pass(void)
{
	struct kvb_error e = { 0 };
	struct kvb_identity id = { .release = "6.1.0-kvb", .version = "#1 SMP", .cmdline = "console=ttyS0 a=1\n" };
	CHECK(kvb_identity_compare(&id, "6.1.0-kvb", "#1 SMP", "a=1 console=ttyS0", &e) == KVB_OK);
	/* a C1 control (UTF-8 C2 9B: a terminal's CSI) is escaped as \u009b */
	id.release = "6.1.0-kvb\xc2\x9b";
	CHECK(kvb_identity_compare(&id, "6.1.0-kvb", NULL, NULL, &e) == KVB_ETARGET);
	CHECK_STR(e.msg, "flashed 6.1.0-kvb but running 6.1.0-kvb\\u009b");
}

#define TESTS                                                  \
	T(test_identity__mismatch_escapes_invisible_characters) \
	T(test_identity__equal_strings_pass)
#include "test_main.h"
