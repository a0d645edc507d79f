/* Implements POSIX single-quote quoting of argv words for remote shells. */
#include "core/quote.h"

void kvb_shell_quote(struct kvb_buf *out, const char *arg)
{
	kvb_buf_addc(out, '\'');
	for (const char *p = arg; *p; p++) {
		if (*p == '\'')
			kvb_buf_adds(out, "'\\''");
		else
			kvb_buf_addc(out, *p);
	}
	kvb_buf_addc(out, '\'');
}

void kvb_shell_join(struct kvb_buf *out, const char *const *argv)
{
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			kvb_buf_addc(out, ' ');
		kvb_shell_quote(out, argv[i]);
	}
}
