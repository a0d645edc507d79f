/* Implements struct kvb_error: formatted error messages beside stable codes. */
#include "core/error.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Indexed by enum kvb_err; the words of the exit-status list in `kvbench --help` and README. */
static const char *const err_text[] = {
	[KVB_OK] = "ok",
	[KVB_EJOBS] = "the run had failed jobs or variants (or was interrupted)",
	[KVB_EUSAGE] = "usage",
	[KVB_EINPUT] = "bad input file",
	[KVB_ETARGET] = "target or connection",
	[KVB_ESTORE] = "results database",
	[KVB_EOUTPUT] = "writing the output failed",
};

_Static_assert(sizeof(err_text) / sizeof(err_text[0]) == KVB_ERR_LAST + 1, "every enum kvb_err has a text");

const char *kvb_strerror(enum kvb_err code)
{
	if ((unsigned)code > KVB_ERR_LAST || !err_text[code])
		return "unknown error";
	return err_text[code];
}

int kvb_error_set(struct kvb_error *e, enum kvb_err code, const char *fmt, ...)
{
	va_list ap;
	assert(code != KVB_OK && "an error needs a code: main would report it as the wrong exit status");
	if (!e)
		return code;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

int kvb_error_prefix(struct kvb_error *e, const char *fmt, ...)
{
	char pre[1024], old[KVB_ERRMSG_MAX];
	va_list ap;
	if (!e)
		return 0;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	{
		size_t n = strlen(pre);
		if (n > sizeof(e->msg) - 3)
			n = sizeof(e->msg) - 3;
		memcpy(e->msg, pre, n);
		memcpy(e->msg + n, ": ", 2);
		size_t rest = sizeof(e->msg) - n - 3;
		size_t ol = strnlen(old, rest);
		memcpy(e->msg + n + 2, old, ol);
		e->msg[n + 2 + ol] = '\0';
	}
	return e->code;
}

void kvb_error_clear(struct kvb_error *e)
{
	if (e) {
		e->code = 0;
		e->msg[0] = '\0';
	}
}
