/*
 * Minimal test harness: each test file defines TESTS as a list of
 * T(name) entries and includes this header last-ish; main() runs them all
 * (or the one named in argv[1]) and prints "N passed, M failed".
 *
 *   static void test_agenda__rejects_unknown_key(void) { CHECK(x == 1); }
 *   #define TESTS T(test_agenda__rejects_unknown_key)
 *   #include "test_main.h"
 */
#ifndef KVB_TEST_H
#define KVB_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

extern int kvb_test_failures;

#define CHECK(cond)                                                                                    \
	do {                                                                                           \
		if (!(cond)) {                                                                         \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);       \
			kvb_test_failures++;                                                           \
		}                                                                                      \
	} while (0)

#define CHECK_STR(a, b)                                                                                \
	do {                                                                                           \
		const char *_a = (a), *_b = (b);                                                       \
		if (!_a || !_b || strcmp(_a, _b)) {                                                    \
			fprintf(stderr, "%s:%d: CHECK_STR failed: %s\n  got:      \"%s\"\n  expected: \"%s\"\n", \
				__FILE__, __LINE__, #a, _a ? _a : "(null)", _b ? _b : "(null)");       \
			kvb_test_failures++;                                                           \
		}                                                                                      \
	} while (0)

#define CHECK_CONTAINS(hay, needle)                                                                    \
	do {                                                                                           \
		const char *_h = (hay), *_n = (needle);                                                \
		if (!_h || !strstr(_h, _n)) {                                                          \
			fprintf(stderr, "%s:%d: CHECK_CONTAINS failed: \"%s\" not in:\n%s\n", __FILE__,   \
				__LINE__, _n, _h ? _h : "(null)");                                     \
			kvb_test_failures++;                                                           \
		}                                                                                      \
	} while (0)

#define CHECK_NEAR(a, b, tol)                                                                          \
	do {                                                                                           \
		double _a = (a), _b = (b), _t = (tol);                                                 \
		if (!(fabs(_a - _b) <= _t)) {                                                          \
			fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.10g, expected %.10g +- %g\n",  \
				__FILE__, __LINE__, #a, _a, _b, _t);                                   \
			kvb_test_failures++;                                                           \
		}                                                                                      \
	} while (0)

#endif
