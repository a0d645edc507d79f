/*
 * The verdict words every layout prints (table, wide, mail, --by, markdown, csv, json, the
 * report), each with what it means in one plain line: one word for one verdict, whatever the
 * layout (docs/statistics.md#verdicts-planning-and---until-decided). The statistics that choose
 * one are in stats/verdict.h; this is only how they are said.
 */
#ifndef KVB_RESULTS_VERDICT_WORDS_H
#define KVB_RESULTS_VERDICT_WORDS_H

#include <stddef.h>

struct kvb_verdict_word {
	const char *word;    /* "better", "worse", "changed", "same", "undecided", "untested", "n<2" */
	const char *meaning; /* "a real change for the better", ... (no final period) */
};

/* The table, terminated by a NULL word. */
extern const struct kvb_verdict_word kvb_verdict_words[];

/* "better: a real change for the better; worse: ...; undecided: ..." for the words a legend
 * explains (those of kvb_verdict_words whose word is in the NULL-terminated list, in the table's
 * order), into buf (n bytes, cut). */
void kvb_verdict_words_legend(char *buf, size_t n, const char *const *words);

/* An undecided cell needing more boots than this reads "undecided (CI +-X %, >1000 boots)":
 * smaller than any difference this data can resolve. */
#define KVB_VERDICT_MAX_BOOTS 1000

#endif
