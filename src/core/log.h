/*
 * Diagnostics to stderr ("kvbench: ..."). Results never go through here:
 * they go to stdout from the report layer.
 */
#ifndef KVB_LOG_H
#define KVB_LOG_H

enum kvb_log_level { KVB_LOG_ERROR, KVB_LOG_WARN, KVB_LOG_INFO, KVB_LOG_DEBUG };

/* Messages above this level are dropped. Default KVB_LOG_INFO; the environment's KVB_LOG
 * (kvb_log_level_parse) changes it for the whole command. */
extern int kvb_log_level;

/*
 * The level named by s: "error", "warn" (or "warning"), "info" or "debug", case as written.
 * Returns the level, or -1 for NULL, "" or any other word (main names the variable and the
 * words it takes).
 */
int kvb_log_level_parse(const char *s);

/*
 * A hook that also receives every error and warning (whatever kvb_log_level
 * says), formatted without the "kvbench: " prefix: the run engine records
 * them as event rows (nothing silent, docs/design.md#backends-and-capabilities). NULL removes it. The
 * hook must not log (a nested call is dropped, not recursed into).
 */
void kvb_log_set_hook(void (*hook)(void *arg, enum kvb_log_level lvl, const char *msg), void *arg);

void kvb_log(enum kvb_log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define kvb_err(...) kvb_log(KVB_LOG_ERROR, __VA_ARGS__)
#define kvb_warn(...) kvb_log(KVB_LOG_WARN, __VA_ARGS__)
#define kvb_info(...) kvb_log(KVB_LOG_INFO, __VA_ARGS__)
#define kvb_debug(...) kvb_log(KVB_LOG_DEBUG, __VA_ARGS__)

#endif
