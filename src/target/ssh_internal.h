/*
 * The ssh target's own header, shared by target/ssh*.c and by nothing else: its session state, the
 * non-blocking wait every libssh2 call goes through, and what one of its files calls in another.
 */
#ifndef KVB_TARGET_SSH_INTERNAL_H
#define KVB_TARGET_SSH_INTERNAL_H

#include "target/target.h"
#include "config/platform.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/quote.h"
#include "core/util.h"
#include "target/ssh_known_hosts.h"

#include <libssh2.h>
#include <libssh2_sftp.h>

#define SSH_IO_TIMEOUT_MS 60000u   /* an SFTP step or a channel close with no progress fails after this */
#define SSH_KILL_GRACE_MS 2000u    /* SIGTERM -> SIGKILL on timeout */
#define SSH_IO_CHUNK (1u << 20)    /* SFTP read size; libssh2 pipelines ~30 kB requests over all of it */
#define SSH_PUSH_BUF (8u << 20)    /* push: file data kept ahead of the server's acknowledgements */
#define SSH_PID_MARK "kvb-pid:"
#define SSH_NS_PER_MS 1000000ull

/* Connection settings, resolved from platform.yaml's connection mapping. */
struct ssh_conf {
	char *host;
	int port;
	char *user;
	char *key;          /* absolute path or NULL (agent, default keys) */
	char *passphrase;   /* or NULL */
	char *known_hosts;  /* absolute path */
	int accept_new;
	uint64_t connect_timeout_ms;
	uint64_t banner_ms;          /* banner_timeout_s, ms */
	unsigned keepalive_s;
	uint64_t reconnect_deadline_ms;
	const char *ready;  /* borrowed from the platform document */
	const char *expect;
};

/* Backend state; the session fields are NULL/-1 while disconnected. */
struct ssh_state {
	struct ssh_conf c;
	int fd;
	LIBSSH2_SESSION *s;
	LIBSSH2_SFTP *sftp;
	int broken;               /* the session failed: drop and reconnect before the next call */
	char lost[512];           /* why the previous session ended, for the reconnect log */
	uint64_t rx_ns;           /* when bytes last arrived (recv callback) */
	uint64_t op_ns;           /* when the current operation started (silence is counted from here) */
	char boot_id[64];         /* boot_id before reboot(); wait_ready() waits for another */
	char boot_id_path[512];   /* where boot_id was read: under the platform's sysfs_root when it holds it */
	volatile int *cancel;
};

/* Outcomes of waiting on the socket besides "retry the call". */
enum kvb_ssh_wait { W_RETRY = 0, W_DEADLINE, W_CANCEL, W_SILENT };

/* Runs an int-returning libssh2 call until it stops saying EAGAIN or the wait gives up (w != 0). */
#define SSH_CALL(st, rc, call, deadline, w) \
	while (((rc) = (call)) == LIBSSH2_ERROR_EAGAIN && ((w) = kvb_ssh_wait((st), (deadline))) == W_RETRY)

/* Same for calls returning a pointer, NULL with EAGAIN as the session's last error. */
#define SSH_CALLP(st, p, call, deadline, w)                                                   \
	while (!((p) = (call)) && libssh2_session_last_errno((st)->s) == LIBSSH2_ERROR_EAGAIN && \
	       ((w) = kvb_ssh_wait((st), (deadline))) == W_RETRY)

/* ssh_exec.c */
int kvb_ssh_exec(struct kvb_target *t, const char *const *argv, uint64_t timeout_ms, struct kvb_exec_result *r,
	     struct kvb_error *err);
int kvb_ssh_run_check(struct ssh_state *st, const char *label, const char *const *argv, uint64_t timeout_ms, char *out,
	      size_t n, int reconnect, struct kvb_error *err);

/* ssh_sftp.c */
int kvb_ssh_push(struct kvb_target *t, const char *local, const char *remote, struct kvb_error *err);
int kvb_ssh_pull(struct kvb_target *t, const char *remote, const char *local, struct kvb_error *err);

/* ssh.c */
uint64_t kvb_ssh_deadline_after(uint64_t ms);
enum kvb_ssh_wait kvb_ssh_wait(struct ssh_state *st, uint64_t deadline_ns);
void kvb_ssh_op_begin(struct ssh_state *st);
int kvb_ssh_fail(struct ssh_state *st, enum kvb_ssh_wait w, uint64_t ms, const char *what, struct kvb_error *err);
int kvb_ssh_ensure(struct ssh_state *st, struct kvb_error *err);

#endif
