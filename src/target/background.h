/*
 * Commands run in the background on a target: started detached with their stdout and stderr in
 * files on the board, waited for until they say they are ready, stopped with a signal. The
 * waits are timed on the board's /proc/uptime (centiseconds), never counted in sleeps: an
 * Android <= 5 toolbox `sleep 0.05` returns at once, and a count of sleeps ran out in a few ms.
 * A zombie (no reaper in some containers) counts as gone: its /proc/PID/stat state is Z.
 */
#ifndef KVB_TARGET_BACKGROUND_H
#define KVB_TARGET_BACKGROUND_H

#include "core/error.h"
#include "target/target.h"

/*
 * A command started in the background ON THE TARGET through
 * `sh -c '"$@" </dev/null >OUT 2>ERR & echo $!'`, argv passed as positional
 * parameters (quoted by the target backend). *pid receives its pid.
 */
int kvb_target_bg_start(struct kvb_target *t, const char *const *argv, const char *out, const char *errf, long *pid,
			struct kvb_error *err);
/*
 * Sends signal name sig ("TERM", "INT") to pid and waits up to wait_ms (timed on the target's
 * /proc/uptime) for it to exit, then KILL: *killed = 1 then (killed NULL: a warning instead).
 */
int kvb_target_bg_stop(struct kvb_target *t, long pid, const char *sig, unsigned wait_ms, int *killed,
		       struct kvb_error *err);
/* Cleanup path: SIGKILLs *pid when it is > 0 (no wait, errors ignored) and sets *pid to 0. */
void kvb_target_bg_kill(struct kvb_target *t, long *pid);
/*
 * kvb_target_bg_start, then waits until the command's stdout file out holds mark (grep -q: a
 * plain word, as every board's grep reads it alike), at most ready_ms. KVB_OK when it does, *pid set. Else the command is killed, *pid is
 * 0 and err says "WHAT exited at start" (it exited or is a zombie first) or "WHAT did not start
 * within N s", then ": " and why(arg)'s text when why is not NULL and returns a non-empty string
 * (owned, freed here: the command's own complaint from its stderr file); KVB_ETARGET, or the
 * error of starting it or of the wait's exec.
 */
int kvb_target_bg_start_ready(struct kvb_target *t, const char *const *argv, const char *out, const char *errf,
			      const char *what, const char *mark, unsigned ready_ms, char *(*why)(void *arg),
			      void *arg, long *pid, struct kvb_error *err);

#endif
