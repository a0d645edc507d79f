/* Tests for "did you mean": the OSA edit distance and the choice of a close candidate. */
#include "core/suggest.h"
#include "test.h"

#include <stdlib.h>

/* Distances worked out by hand from the definition (insert, delete, substitute, swap adjacent: 1 each). */
static void test_suggest__osa_distance_counts_a_swap_as_one_edit(void)
{
	CHECK(kvb_osa_distance("grups", "groups") == 1);        /* insert o */
	CHECK(kvb_osa_distance("hackbenhc", "hackbench") == 1); /* swap hc */
	CHECK(kvb_osa_distance("kitten", "sitting") == 3);      /* k->s, e->i, +g */
	CHECK(kvb_osa_distance("", "abc") == 3);
	CHECK(kvb_osa_distance("abc", "") == 3);
	CHECK(kvb_osa_distance("Flash", "flash") == 0);         /* case-insensitive */
	/* restricted: a substring is never edited twice, so "ca" -> "abc" is 3, not Damerau's 2 */
	CHECK(kvb_osa_distance("ca", "abc") == 3);
}

static void test_suggest__picks_the_closest_and_only_when_close(void)
{
	const char *keys[] = { "name", "connection", "flash", "boot", NULL, "topology" };
	const char *cmds[] = { "run", "diff", "show" };
	char buf[64];
	CHECK_STR(kvb_suggest("flsh", keys, 6), "flash");
	CHECK_STR(kvb_suggest("conection", keys, 6), "connection");
	CHECK(kvb_suggest("zzzzzz", keys, 6) == NULL);
	CHECK(kvb_suggest("flash", keys, 6) == NULL);  /* it is a key: nothing to suggest */
	CHECK(kvb_suggest("ab", cmds, 3) == NULL);      /* 2-letter word: at most 1 edit */
	CHECK_STR(kvb_suggest("dif", cmds, 3), "diff");
	CHECK(kvb_suggest("", cmds, 3) == NULL);
	CHECK_STR(kvb_did_you_mean(buf, sizeof(buf), "shwo", cmds, 3), " (did you mean 'show'?)");
	CHECK_STR(kvb_did_you_mean(buf, sizeof(buf), "query", cmds, 3), "");
	/* a tie names both: a new user typed 2cpu and was offered only 1cpu */
	const char *variants[] = { "1cpu", "2cpus", "1cpu", "generic" };
	CHECK_STR(kvb_did_you_mean(buf, sizeof(buf), "2cpu", variants, 4), " (did you mean '1cpu' or '2cpus'?)");
	CHECK_STR(kvb_did_you_mean(buf, sizeof(buf), "2cpux", variants, 4), " (did you mean '2cpus'?)");
	char *c = kvb_suggest_choices("markdwon", "table|markdown|csv|json");
	CHECK_STR(c, "markdown");
	free(c);
	CHECK(kvb_suggest_choices("xml", "table|markdown|csv|json") == NULL);
}

#define TESTS                                                                                                          \
	T(test_suggest__osa_distance_counts_a_swap_as_one_edit)                                                        \
	T(test_suggest__picks_the_closest_and_only_when_close)
#include "test_main.h"
