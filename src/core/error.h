/*
 * Error codes and the error message that travels beside them.
 *
 * Every fallible function returns an int holding an enum kvb_err value (0 is
 * KVB_OK; as libgit2's functions return int holding a GIT_E* code) and, when it
 * fails, fills a struct kvb_error supplied by the caller. The codes are what
 * went wrong, richer than the exit statuses (as libgit2's GIT_E* beside git's
 * exit codes): a board that was lost, a run that was interrupted, a bisect
 * that could not decide. Only main() turns a code into an exit status, through
 * kvb_exit_status(), the one place that maps them (as curl's tool_operate.c
 * maps CURLcode to its exit).
 *
 * The codes 0..KVB_EXIT_LAST are also the exit statuses, stable for scripts
 * (docs/design.md#commands, README "Exit status"): new statuses are only ever added at the
 * end. The internal codes are negative (so enum kvb_err is an int) and each
 * maps onto one of those statuses.
 */
#ifndef KVB_ERROR_H
#define KVB_ERROR_H

enum kvb_err {
	/* internal codes: never an exit status themselves (kvb_exit_status maps them) */
	KVB_EINTERNAL = -6,  /* an error whose code was lost (a bug): exit 8 */
	KVB_ENORESULTS = -5, /* a report or diff over runs with no result at all: exit 1 */
	KVB_EUNDECIDED = -4, /* bisect could not decide (only untestable commits left): exit 1 */
	KVB_ECANCELLED = -3, /* a job was cancelled outside kvbench (a LAVA job): exit 1 */
	KVB_ENOTFOUND = -2,  /* what was named does not exist (a run, a job, a bisect to resume): exit 3 */
	KVB_EBOARD = -1,     /* the board stopped answering (lost mid-unit): exit 4 */
	/* codes that are also the exit statuses */
	KVB_OK = 0,
	KVB_EJOBS = 1,   /* a run finished but some jobs or variants failed */
	KVB_EUSAGE = 2,  /* bad command line */
	KVB_EINPUT = 3,  /* bad input file: agenda, platform, CSV, tool output */
	KVB_ETARGET = 4, /* target unreachable, command failed to run, timeout */
	KVB_ESTORE = 5,  /* results database error */
	KVB_EOUTPUT = 6, /* the output could not be written (stdout: a full disk, a closed pipe is not one) */
	KVB_EINTR = 7,   /* interrupted (Ctrl-C, SIGTERM, --max-jobs): `--resume` goes on */
	KVB_EBUG = 8,    /* exit status of KVB_EINTERNAL */
};
#define KVB_EXIT_LAST KVB_EBUG
#define KVB_ERR_FIRST KVB_EINTERNAL

/*
 * What a code means: for 0..KVB_EXIT_LAST the words of the exit-status list
 * of `kvbench --help` ("ok", "the run had failed jobs or variants", ...), for
 * an internal code its own ("the board stopped answering"). Static string;
 * "unknown error" for a number outside the enum.
 */
const char *kvb_strerror(enum kvb_err code);

/*
 * The exit status of code: the code itself for 0..KVB_EXIT_LAST, the status an
 * internal code maps onto (KVB_EBOARD -> KVB_ETARGET, KVB_ENOTFOUND ->
 * KVB_EINPUT, KVB_ECANCELLED / KVB_EUNDECIDED / KVB_ENORESULTS -> KVB_EJOBS,
 * KVB_EINTERNAL -> KVB_EBUG), KVB_EBUG for a number outside the enum.
 */
int kvb_exit_status(enum kvb_err code);

#define KVB_ERRMSG_MAX 4096

/* An error message: code plus lowercase text that quotes its subject. */
struct kvb_error {
	enum kvb_err code;  /* never KVB_OK once set (asserted in debug builds) */
	char msg[KVB_ERRMSG_MAX];
};

/* Sets code and formatted message; returns code so callers can `return kvb_error_set(...)`.
 * code must be an error (not KVB_OK): a debug build asserts it, since main would turn an
 * unset code into a misleading exit status. */
enum kvb_err kvb_error_set(struct kvb_error *e, enum kvb_err code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prepends "prefix: " to the existing message (adds context going up the stack) and returns
 * e->code; with e NULL (nobody keeps the message) KVB_EINTERNAL, never KVB_OK: a caller that
 * returns it must not turn a failure into success. */
enum kvb_err kvb_error_prefix(struct kvb_error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void kvb_error_clear(struct kvb_error *e);

#endif
