/*
 * Helpers for reading numbers out of benchmark text output, line by line.
 * Strict: the number must be finite and followed by the expected suffix, so a
 * truncated or garbled line is "not found" rather than a wrong value.
 */
#ifndef KVB_OUTPARSE_H
#define KVB_OUTPARSE_H

#include "core/error.h"

/*
 * Finds the first line that, after leading blanks, starts with prefix, and
 * parses the number right after it (blanks allowed), which must be followed
 * by suffix (after optional blanks) and then end of line. suffix may be "".
 * prefix may be "" (the line starts with the number). Returns KVB_OK and sets *v,
 * or KVB_EINPUT when no line matches.
 */
enum kvb_err kvb_find_number(const char *text, const char *prefix, const char *suffix, double *v);

/*
 * Like kvb_find_number, but the line must be the only one that matches:
 * returns 0 and sets *v when exactly one line matches, -1 when none does,
 * and the number of matching lines (> 1) when the output holds several runs
 * (lkp's iterations, `perf bench sched all`), so a parser can say so rather
 * than take the first.
 */
int kvb_find_number_once(const char *text, const char *prefix, const char *suffix, double *v);

#endif
