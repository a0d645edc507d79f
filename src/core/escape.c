/* Implements the C escapes of control characters for one-line output (table cells, compared strings). */
#include "core/escape.h"

#include <stdio.h>

const char *kvb_ctl_escape(const char *s, char buf[8], size_t *len)
{
	unsigned char ch = (unsigned char)s[0];
	*len = 1;
	if (ch == '\n')
		return "\\n";
	if (ch == '\r')
		return "\\r";
	if (ch == '\t')
		return "\\t";
	if (ch < 0x20 || ch == 0x7f) {
		snprintf(buf, 8, "\\x%02x", ch);
		return buf;
	}
	if (ch == 0xC2 && (unsigned char)s[1] >= 0x80 && (unsigned char)s[1] <= 0x9F) {
		*len = 2;
		snprintf(buf, 8, "\\u%04x", (unsigned char)s[1]);
		return buf;
	}
	return NULL;
}

void kvb_buf_add_escaped(struct kvb_buf *b, const char *s)
{
	size_t n;
	char buf[8];
	for (; *s; s += n) {
		const char *e = kvb_ctl_escape(s, buf, &n);
		if (e)
			kvb_buf_adds(b, e);
		else
			kvb_buf_addc(b, *s);
	}
}

char *kvb_escaped(const char *s)
{
	struct kvb_buf b = KVB_BUF_INIT;
	kvb_buf_add_escaped(&b, s ? s : "(null)");
	return kvb_buf_detach(&b);
}
