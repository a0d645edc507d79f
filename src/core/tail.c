/* Implements the end of a command's output as one line for error messages. */
#include "core/tail.h"
#include "core/buf.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

static int blank_line(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return 0;
	return 1;
}

char *kvb_text_tail(const char *text, unsigned max_lines, size_t max_chars)
{
	const char *start[16], *p;
	size_t len[16], n = 0;
	struct kvb_buf b = KVB_BUF_INIT;
	char *s;
	if (max_lines > KVB_ARRAY_SIZE(start))
		max_lines = KVB_ARRAY_SIZE(start);
	if (!text || !max_lines)
		return kvb_xstrdup("");
	/* walk back from the end, one line at a time */
	p = text + strlen(text);
	while (p > text && n < max_lines) {
		const char *eol = p, *bol;
		for (bol = eol; bol > text && bol[-1] != '\n'; bol--)
			;
		size_t l = (size_t)(eol - bol);
		while (l && (bol[l - 1] == '\r' || bol[l - 1] == ' ' || bol[l - 1] == '\t'))
			l--;
		if (!blank_line(bol, l)) {
			start[n] = bol;
			len[n] = l;
			n++;
		}
		p = bol > text ? bol - 1 : text;
	}
	for (size_t i = n; i-- > 0;)
		kvb_buf_addf(&b, "%s%.*s", i + 1 < n ? " | " : "", (int)len[i], start[i]);
	s = kvb_buf_detach(&b);
	if (!s)
		return kvb_xstrdup("");
	if (max_chars >= 8 && strlen(s) > max_chars) {
		size_t keep = max_chars - 3;
		char *cut = kvb_xasprintf("...%s", s + strlen(s) - keep);
		free(s);
		s = cut;
	}
	return s;
}
