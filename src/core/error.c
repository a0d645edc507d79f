/* Implements struct kvb_error: formatted error messages beside stable codes. */
#include "core/error.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Indexed by enum kvb_err - KVB_ERR_FIRST; for 0..KVB_EXIT_LAST the words of the exit-status
 * list in `kvbench --help`, the man page and docs/running.md. */
static const char *const err_text[] = {
	[KVB_EINTERNAL - KVB_ERR_FIRST] = "internal error (an error without its code)",
	[KVB_ENORESULTS - KVB_ERR_FIRST] = "no results",
	[KVB_EUNDECIDED - KVB_ERR_FIRST] = "could not decide",
	[KVB_ECANCELLED - KVB_ERR_FIRST] = "cancelled",
	[KVB_ENOTFOUND - KVB_ERR_FIRST] = "not found",
	[KVB_EBOARD - KVB_ERR_FIRST] = "the board stopped answering",
	[KVB_OK - KVB_ERR_FIRST] = "ok",
	[KVB_EJOBS - KVB_ERR_FIRST] = "the run had failed jobs or variants (or no results, or bisect could not decide)",
	[KVB_EUSAGE - KVB_ERR_FIRST] = "usage",
	[KVB_EINPUT - KVB_ERR_FIRST] = "bad input file (or what it names does not exist)",
	[KVB_ETARGET - KVB_ERR_FIRST] = "target or connection",
	[KVB_ESTORE - KVB_ERR_FIRST] = "results database",
	[KVB_EOUTPUT - KVB_ERR_FIRST] = "writing the output failed",
	[KVB_EINTR - KVB_ERR_FIRST] = "interrupted (continue with --resume)",
	[KVB_EBUG - KVB_ERR_FIRST] = "internal error (a bug in kvbench)",
};

_Static_assert(sizeof(err_text) / sizeof(err_text[0]) == KVB_EXIT_LAST - KVB_ERR_FIRST + 1,
	       "every enum kvb_err has a text");

const char *kvb_strerror(enum kvb_err code)
{
	if ((int)code < KVB_ERR_FIRST || (int)code > KVB_EXIT_LAST || !err_text[code - KVB_ERR_FIRST])
		return "unknown error";
	return err_text[code - KVB_ERR_FIRST];
}

int kvb_exit_status(enum kvb_err code)
{
	switch (code) {
	case KVB_EBOARD: return KVB_ETARGET;
	case KVB_ENOTFOUND: return KVB_EINPUT;
	case KVB_ECANCELLED:
	case KVB_EUNDECIDED:
	case KVB_ENORESULTS: return KVB_EJOBS;
	case KVB_EINTERNAL: return KVB_EBUG;
	default: return (int)code >= KVB_OK && (int)code <= KVB_EXIT_LAST ? (int)code : KVB_EBUG;
	}
}

enum kvb_err kvb_error_set(struct kvb_error *e, enum kvb_err code, const char *fmt, ...)
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

enum kvb_err kvb_error_prefix(struct kvb_error *e, const char *fmt, ...)
{
	char pre[1024], old[KVB_ERRMSG_MAX];
	va_list ap;
	if (!e)
		return KVB_EINTERNAL;
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
	return e->code != KVB_OK ? e->code : KVB_EINTERNAL;
}

void kvb_error_clear(struct kvb_error *e)
{
	if (e) {
		e->code = KVB_OK;
		e->msg[0] = '\0';
	}
}
