/* Implements the CLI's two error outputs: a command that failed, and a usage error that points at `kvbench help CMD`. */
#include "cli/cli.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>

int kvb_cli_fail(const struct kvb_error *err)
{
	fprintf(stderr, "kvbench: error: %s\n", err->msg);
	/* an error without a code is a bug below main (kvb_error_set asserts it in debug builds) */
	assert(err->code != KVB_OK);
	return err->code != KVB_OK ? err->code : KVB_EINTERNAL;
}

int kvb_cli_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "kvbench %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see `kvbench help %s`)\n", cmd);
	return KVB_EUSAGE;
}
