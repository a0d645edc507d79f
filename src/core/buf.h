/*
 * Growable byte buffer, always NUL-terminated (git's strbuf, reduced).
 *
 * Invariant: after kvb_buf_init() data points to a valid string of len bytes
 * (possibly the shared empty string); kvb_buf_release() frees and re-inits.
 * Allocation failure aborts (see kvb_xmalloc).
 */
#ifndef KVB_BUF_H
#define KVB_BUF_H

#include <stddef.h>

struct kvb_buf {
	char *data;
	size_t len;
	size_t cap;
};

#define KVB_BUF_INIT { .data = kvb_buf_empty, .len = 0, .cap = 0 }
extern char kvb_buf_empty[];

void kvb_buf_init(struct kvb_buf *b);
void kvb_buf_release(struct kvb_buf *b);
void kvb_buf_reset(struct kvb_buf *b);
void kvb_buf_grow(struct kvb_buf *b, size_t extra);
void kvb_buf_add(struct kvb_buf *b, const void *data, size_t n);
void kvb_buf_adds(struct kvb_buf *b, const char *s);
void kvb_buf_addc(struct kvb_buf *b, char c);
void kvb_buf_addf(struct kvb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands the string to the caller (free() it) and re-inits b. */
char *kvb_buf_detach(struct kvb_buf *b);

/* Reads a whole file into b. Returns 0 or -1 with errno set. */
int kvb_buf_read_file(struct kvb_buf *b, const char *path);

#endif
