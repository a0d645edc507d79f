/*
 * "did you mean" for every "unknown X" message (issue 18).
 *
 * Distance: optimal string alignment (the restricted Damerau-Levenshtein
 * distance: insertion, deletion, substitution and the swap of two adjacent
 * characters each cost 1; Damerau 1964, Levenshtein 1966), case-insensitive,
 * as git's help.c uses an edit distance with swaps to suggest commands. No
 * Debian C library provides it (edlib: plain Levenshtein for sequence
 * alignment; the others are Perl, Python, Go), so it is these 40 lines.
 *
 * A candidate is close when its distance is at most max(1, strlen(word) / 3)
 * and smaller than the word's length, so a short word never matches anything
 * by total replacement ("ab" -> "xy" is not a suggestion).
 */
#ifndef KVB_SUGGEST_H
#define KVB_SUGGEST_H

#include <stddef.h>

/* OSA distance between a and b, case-insensitive. O(|a|*|b|) time, O(|b|) memory x3. */
size_t kvb_osa_distance(const char *a, const char *b);

/*
 * The closest of n candidates to word (the first on a tie), or NULL when
 * none is close or word is itself a candidate. Candidates may be NULL (skipped).
 */
const char *kvb_suggest(const char *word, const char *const *cands, size_t n);

/* Same over a '|'-separated list ("table|markdown|csv"). Owned, or NULL. */
char *kvb_suggest_choices(const char *word, const char *choices);

/*
 * " (did you mean 'X'?)" for the closest candidate, or "" when none is close:
 * ready to be added to a message; candidates as close as it (up to three, in
 * the order given) are all named: " (did you mean '1cpu' or '2cpus'?)" for
 * "2cpu". Returns a pointer into buf (n bytes).
 */
const char *kvb_did_you_mean(char *buf, size_t n, const char *word, const char *const *cands, size_t ncands);

#endif
