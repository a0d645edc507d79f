/* Implements the one table of verdict words and their meanings (results/verdict_words.h). */
#include "results/verdict_words.h"

#include <stdio.h>
#include <string.h>

const struct kvb_verdict_word kvb_verdict_words[] = {
	{ "better", "a real change, for the better" },
	{ "worse", "a real change, for the worse" },
	{ "changed", "a real change of a metric that has no better direction (utilisation, frequency)" },
	{ "same", "no change beyond the margin: the 95 % CI of the change lies within it" },
	{ "undecided", "neither yet: more boots would tell (CI +-X % is the smallest change this data could show, "
		       "~N boots the boots per variant that would decide it, ~N runs where one boot a side made the runs "
		       "the unit; >1000 boots: a difference too small for this board to resolve)" },
	{ "untested", "no test could be made (a single value on one side)" },
	{ "n<2", "fewer than 2 values on one side" },
	{ NULL, NULL },
};

void kvb_verdict_words_legend(char *buf, size_t n, const char *const *words)
{
	size_t len = 0;
	if (n)
		buf[0] = '\0';
	for (const struct kvb_verdict_word *w = kvb_verdict_words; w->word && len < n; w++)
		for (const char *const *k = words; *k; k++)
			if (!strcmp(*k, w->word)) {
				int r = snprintf(buf + len, n - len, "%s%s: %s", len ? "; " : "", w->word, w->meaning);
				len += r > 0 ? (size_t)r : 0;
				break;
			}
}
