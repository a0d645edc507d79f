/* Implements struct kvb_buf, the growable NUL-terminated buffer. */
#include "core/buf.h"
#include "core/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char kvb_buf_empty[1];

void kvb_buf_init(struct kvb_buf *b)
{
	b->data = kvb_buf_empty;
	b->len = 0;
	b->cap = 0;
}

void kvb_buf_release(struct kvb_buf *b)
{
	if (b->cap)
		free(b->data);
	kvb_buf_init(b);
}

void kvb_buf_reset(struct kvb_buf *b)
{
	b->len = 0;
	if (b->cap)
		b->data[0] = '\0';
}

void kvb_buf_grow(struct kvb_buf *b, size_t extra)
{
	size_t want = b->len + extra + 1;
	if (want <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < want)
		cap *= 2;
	if (b->cap) {
		b->data = kvb_xrealloc(b->data, cap);
	} else {
		b->data = kvb_xmalloc(cap);
		b->data[0] = '\0';
	}
	b->cap = cap;
}

void kvb_buf_add(struct kvb_buf *b, const void *data, size_t n)
{
	kvb_buf_grow(b, n);
	memcpy(b->data + b->len, data, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void kvb_buf_adds(struct kvb_buf *b, const char *s)
{
	kvb_buf_add(b, s, strlen(s));
}

void kvb_buf_addc(struct kvb_buf *b, char c)
{
	kvb_buf_add(b, &c, 1);
}

void kvb_buf_addf(struct kvb_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	kvb_buf_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *kvb_buf_detach(struct kvb_buf *b)
{
	char *s = b->cap ? b->data : kvb_xstrdup("");
	kvb_buf_init(b);
	return s;
}

int kvb_buf_read_file(struct kvb_buf *b, const char *path)
{
	FILE *f = fopen(path, "rb");
	char tmp[65536];
	size_t n;
	if (!f)
		return -1;
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
		kvb_buf_add(b, tmp, n);
	if (ferror(f)) {
		int e = errno;
		fclose(f);
		errno = e;
		return -1;
	}
	fclose(f);
	return 0;
}
