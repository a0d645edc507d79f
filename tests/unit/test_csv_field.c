/* One RFC 4180 CSV field (core/csv_field.h), as every CSV kvbench writes holds it. */
#include "core/csv_field.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>

/* s written as one field, a new string (free() it). */
static char *field(const char *s)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	kvb_csv_field(f, s);
	fclose(f);
	return out;
}

static void test_csv_field__quotes_only_what_rfc4180_must(void)
{
	const char *in[] = { "frame_duration_mean", "a,b", "say \"hi\"", "two\nlines", "cr\r", "", NULL };
	const char *want[] = { "frame_duration_mean", "\"a,b\"", "\"say \"\"hi\"\"\"", "\"two\nlines\"", "\"cr\r\"", "", "" };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char *got = field(in[i]);
		CHECK_STR(got, want[i]);
		free(got);
	}
}

/* Printed text is valid UTF-8 (core/utf8.h): a stray byte becomes U+FFFD, valid UTF-8 stays. */
static void test_csv_field__invalid_utf8_prints_as_replacement(void)
{
	char *got = field("caf\xc3\xa9 \xff");
	CHECK_STR(got, "caf\xc3\xa9 \xef\xbf\xbd");
	free(got);
}

#define TESTS                                                                                                          \
	T(test_csv_field__quotes_only_what_rfc4180_must)                                                               \
	T(test_csv_field__invalid_utf8_prints_as_replacement)
#include "test_main.h"
