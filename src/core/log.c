/* Implements leveled diagnostics on stderr. */
#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>

int kvb_log_level = KVB_LOG_INFO;

void kvb_log(enum kvb_log_level lvl, const char *fmt, ...)
{
	static const char *const pfx[] = { "error: ", "warning: ", "", "debug: " };
	va_list ap;
	if ((int)lvl > kvb_log_level)
		return;
	fprintf(stderr, "kvbench: %s", pfx[lvl]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
