/* Implements the C escapes of control characters for one-line output (table cells, compared strings), and URL escaping. */
#include "core/escape.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void kvb_buf_add_url_escaped(struct kvb_buf *b, const char *s)
{
	char *e = curl_easy_escape(NULL, s, 0); /* a NULL handle: libcurl >= 7.82 */
	if (!e) {
		fprintf(stderr, "kvbench: out of memory escaping a URL\n");
		abort();
	}
	kvb_buf_add(b, e, strlen(e));
	curl_free(e);
}
