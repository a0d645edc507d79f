/* Implements leveled diagnostics on stderr. */
#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int kvb_log_level = KVB_LOG_INFO;

int kvb_log_level_parse(const char *s)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };
	if (!s)
		return -1;
	if (!strcmp(s, "warning"))
		return KVB_LOG_WARN;
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static void (*g_hook)(void *arg, enum kvb_log_level lvl, const char *msg);
static void *g_hook_arg;
static _Thread_local int g_in_hook; /* per thread: board pools log from several */

void kvb_log_set_hook(void (*hook)(void *arg, enum kvb_log_level lvl, const char *msg), void *arg)
{
	g_hook = hook;
	g_hook_arg = arg;
}

void kvb_log(enum kvb_log_level lvl, const char *fmt, ...)
{
	static const char *const pfx[] = { "error: ", "warning: ", "", "debug: " };
	va_list ap;
	if (g_hook && lvl <= KVB_LOG_WARN && !g_in_hook) {
		char msg[2048];
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		g_in_hook = 1;
		g_hook(g_hook_arg, lvl, msg);
		g_in_hook = 0;
	}
	if ((int)lvl > kvb_log_level)
		return;
	fprintf(stderr, "kvbench: %s", pfx[lvl]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
