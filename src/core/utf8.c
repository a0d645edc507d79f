/* Implements the UTF-8 output rule (invalid bytes become U+FFFD) with libunistring's decoder. */
#include "core/utf8.h"
#include "core/buf.h"

#include <unistr.h>

int kvb_utf8_valid(const char *s, size_t n)
{
	return u8_check((const uint8_t *)s, n) == NULL;
}

char *kvb_utf8_clean(const char *s, size_t n)
{
	struct kvb_buf b = KVB_BUF_INIT;
	const uint8_t *p = (const uint8_t *)s, *end = p + n;
	while (p < end) {
		ucs4_t uc;
		int len = u8_mbtoucr(&uc, p, (size_t)(end - p));
		if (len > 0) {
			kvb_buf_add(&b, p, (size_t)len);
			p += len;
		} else {
			kvb_buf_adds(&b, "\xEF\xBF\xBD");
			p++;
		}
	}
	return kvb_buf_detach(&b);
}
