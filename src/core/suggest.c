/* Implements "did you mean": the optimal-string-alignment edit distance and the closest candidate. */
#include "core/suggest.h"
#include "core/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t kvb_osa_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d;
	/* three rows of the (la+1) x (lb+1) table: i-2, i-1, i */
	size_t *prev2 = kvb_xcalloc(lb + 1, sizeof(size_t)), *prev = kvb_xcalloc(lb + 1, sizeof(size_t)),
	       *cur = kvb_xcalloc(lb + 1, sizeof(size_t));
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			size_t sub = prev[j - 1] + (ca != cb), del = prev[j] + 1, ins = cur[j - 1] + 1;
			size_t best = sub < del ? sub : del;
			best = ins < best ? ins : best;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1; /* adjacent swap */
			cur[j] = best;
		}
		size_t *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	d = prev[lb];
	free(prev2);
	free(prev);
	free(cur);
	return d;
}

const char *kvb_suggest(const char *word, const char *const *cands, size_t n)
{
	size_t len = strlen(word), limit = len / 3 > 1 ? len / 3 : 1, best_d = (size_t)-1;
	const char *best = NULL;
	if (!len)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!cands[i])
			continue;
		if (!strcmp(cands[i], word))
			return NULL;
		size_t d = kvb_osa_distance(word, cands[i]);
		if (d <= limit && d < len && d < best_d) {
			best_d = d;
			best = cands[i];
		}
	}
	return best;
}

char *kvb_suggest_choices(const char *word, const char *choices)
{
	struct kvb_strv v = KVB_STRV_INIT;
	char *copy = kvb_xstrdup(choices), *save = NULL, *out = NULL;
	for (char *t = strtok_r(copy, "|", &save); t; t = strtok_r(NULL, "|", &save))
		kvb_strv_push(&v, t);
	const char *s = kvb_suggest(word, (const char *const *)v.v, v.n);
	if (s)
		out = kvb_xstrdup(s);
	kvb_strv_release(&v);
	free(copy);
	return out;
}

const char *kvb_did_you_mean(char *buf, size_t n, const char *word, const char *const *cands, size_t ncands)
{
	const char *s = kvb_suggest(word, cands, ncands), *tied[3];
	size_t d, nt = 0;
	if (n)
		buf[0] = '\0';
	if (!s)
		return buf;
	/* every candidate as close as the first, up to three, as git's help.c lists its ties */
	d = kvb_osa_distance(word, s);
	for (size_t i = 0; i < ncands && nt < 3; i++) {
		int seen = 0;
		for (size_t k = 0; k < nt; k++)
			seen |= cands[i] && !strcmp(cands[i], tied[k]);
		if (cands[i] && !seen && kvb_osa_distance(word, cands[i]) == d)
			tied[nt++] = cands[i];
	}
	if (nt == 1)
		snprintf(buf, n, " (did you mean '%s'?)", s);
	else if (nt == 2)
		snprintf(buf, n, " (did you mean '%s' or '%s'?)", tied[0], tied[1]);
	else
		snprintf(buf, n, " (did you mean '%s', '%s' or '%s'?)", tied[0], tied[1], tied[2]);
	return buf;
}
