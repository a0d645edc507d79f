/*
 * The one rule for text kvbench prints (table, markdown, csv, json, show,
 * query): output is valid UTF-8. Every byte that does not start a valid
 * UTF-8 sequence (RFC 3629: no overlongs, no surrogates, nothing above
 * U+10FFFF; libunistring's u8_mbtoucr decides) becomes U+FFFD, one per
 * byte, and decoding resumes at the next byte. Raw bytes stay in the
 * artifacts and the DB; only what is printed is cleaned.
 */
#ifndef KVB_UTF8_H
#define KVB_UTF8_H

#include <stddef.h>

/* 1 when s[0..n) is valid UTF-8. */
int kvb_utf8_valid(const char *s, size_t n);
/* A NUL-terminated valid UTF-8 copy of s[0..n) (owned); s itself when valid is NOT returned: always a copy. */
char *kvb_utf8_clean(const char *s, size_t n);

#endif
