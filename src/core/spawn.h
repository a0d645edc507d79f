/*
 * Runs a local program from an argv array (never a shell string) with a
 * timeout, capturing stdout and stderr separately.
 *
 * The child gets its own process group; on timeout the whole group is sent
 * SIGTERM, then SIGKILL after 2 s, so children of the benchmark die too.
 */
#ifndef KVB_SPAWN_H
#define KVB_SPAWN_H

#include "core/buf.h"
#include "core/error.h"

#include <stdint.h>
#include <sys/types.h>

/* Outcome of one command. exit_code is -1 when killed by a signal (term_signal set). */
struct kvb_exec_result {
	int exit_code;
	int term_signal;
	int timed_out;        /* 1 when the timeout fired and the group was killed */
	uint64_t elapsed_ns;  /* wall time from start to reap, ns */
	struct kvb_buf out;   /* stdout bytes */
	struct kvb_buf err;   /* stderr bytes */
};

void kvb_exec_result_init(struct kvb_exec_result *r);
void kvb_exec_result_release(struct kvb_exec_result *r);

struct kvb_spawn_opts {
	const char *const *argv;   /* argv[0] looked up in PATH */
	const char *const *env;    /* NAME=VALUE entries set in the child's environment, bare NAME entries
				      removed from it, or NULL */
	const char *cwd;           /* working directory or NULL */
	const char *stdin_path;    /* file for stdin, or NULL for /dev/null */
	const char *stdout_path;   /* stream stdout to this file instead of capturing, or NULL */
	const char *stderr_path;   /* kvb_spawn_bg only: stderr to this file instead of /dev/null, or NULL */
	uint64_t timeout_ms;       /* 0 = no timeout */
	volatile int *cancel;      /* if non-NULL and set to 1, the group is killed */
};

/*
 * Runs and waits. Returns KVB_OK when the program ran (whatever its exit code;
 * check r->exit_code), KVB_ETARGET when it could not be started or timed out
 * (r->timed_out = 1, message says after how long). r must be initialised.
 */
int kvb_spawn_run(const struct kvb_spawn_opts *o, struct kvb_exec_result *r, struct kvb_error *err);

/* Background process: started, then stopped with kvb_spawn_stop (SIGTERM to the group). */
struct kvb_bgproc {
	pid_t pid;
	int out_fd;  /* -1 unless capturing */
};
int kvb_spawn_bg(const struct kvb_spawn_opts *o, struct kvb_bgproc *p, struct kvb_error *err);
/* Sends sig to the group, waits up to wait_ms, then SIGKILL. Returns the exit status or -1. */
int kvb_spawn_stop(struct kvb_bgproc *p, int sig, uint64_t wait_ms);
/* kvb_spawn_stop that tells (*killed = 1) when the group did not end on sig within wait_ms and was SIGKILLed. */
int kvb_spawn_stop_killed(struct kvb_bgproc *p, int sig, uint64_t wait_ms, int *killed);

/* Describes how a command ended ("exit status 3", "killed by signal 9", "timed out after 5000 ms"). */
const char *kvb_exec_describe(const struct kvb_exec_result *r, char *buf, size_t n);

#endif
