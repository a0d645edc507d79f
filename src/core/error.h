/*
 * Error codes and the error message that travels beside them.
 *
 * Every fallible function returns an enum kvb_err and, when it fails, fills a
 * struct kvb_error supplied by the caller. Only main() turns the code into an
 * exit status; the numbers below are that status and are stable (DESIGN.md §2).
 */
#ifndef KVB_ERROR_H
#define KVB_ERROR_H

enum kvb_err {
	KVB_OK = 0,
	KVB_EJOBS = 1,   /* a run finished but some jobs or variants failed */
	KVB_EUSAGE = 2,  /* bad command line */
	KVB_EINPUT = 3,  /* bad input file: agenda, platform, CSV, tool output */
	KVB_ETARGET = 4, /* target unreachable, command failed to run, timeout */
	KVB_ESTORE = 5,  /* results database error */
	KVB_EOUTPUT = 6, /* the output could not be written (stdout: a full disk, a closed pipe is not one) */
};
#define KVB_ERR_LAST KVB_EOUTPUT

/*
 * What a code means, as `kvbench --help` lists the exit statuses: "ok",
 * "the run had failed jobs or variants", ... Static string; "unknown error"
 * for a number outside the enum.
 */
const char *kvb_strerror(enum kvb_err code);

#define KVB_ERRMSG_MAX 4096

/* An error message: code plus lowercase text that quotes its subject. */
struct kvb_error {
	enum kvb_err code;  /* never KVB_OK once set (asserted in debug builds) */
	char msg[KVB_ERRMSG_MAX];
};

/* Sets code and formatted message; returns code so callers can `return kvb_error_set(...)`.
 * code must be an error (not KVB_OK): a debug build asserts it, since main would turn an
 * unset code into a misleading exit status. */
int kvb_error_set(struct kvb_error *e, enum kvb_err code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prepends "prefix: " to the existing message (adds context going up the stack). */
int kvb_error_prefix(struct kvb_error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void kvb_error_clear(struct kvb_error *e);

#endif
