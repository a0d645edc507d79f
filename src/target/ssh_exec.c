/* Implements the ssh target's commands: a channel each, its output pumped against a deadline, its exit status, and a remote command killed by its process group on timeout (see ssh.c). */
#include "target/ssh_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libssh2.h>
#include <libssh2_sftp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- commands ------------------------------------------------------------------------------------ */

enum pump { PUMP_EOF, PUMP_STOPPED, PUMP_ERROR };

/* Frees a channel without waiting for long; a channel that cannot be freed breaks the session. */
static void chan_free(struct ssh_state *st, LIBSSH2_CHANNEL *ch)
{
	int rc, w = W_RETRY;
	uint64_t dl = kvb_ssh_deadline_after(st->broken ? 1 : 2000);
	if (!ch)
		return;
	SSH_CALL(st, rc, libssh2_channel_free(ch), dl, w);
	if (rc)
		st->broken = 1;
}

/* Opens a channel and starts cmd on it. */
static int chan_start(struct ssh_state *st, const char *cmd, uint64_t dl, uint64_t ms, LIBSSH2_CHANNEL **out,
		      struct kvb_error *err)
{
	LIBSSH2_CHANNEL *ch;
	int rc, w = W_RETRY;
	SSH_CALLP(st, ch, libssh2_channel_open_session(st->s), dl, w);
	if (!ch)
		return kvb_ssh_fail(st, w, ms, "cannot open an ssh channel", err);
	SSH_CALL(st, rc, libssh2_channel_exec(ch, cmd), dl, w);
	if (rc) {
		rc = kvb_ssh_fail(st, rc == LIBSSH2_ERROR_EAGAIN ? w : W_RETRY, ms, "cannot start the command", err);
		chan_free(st, ch);
		return rc;
	}
	*out = ch;
	return KVB_OK;
}

/*
 * Reads stdout and stderr until the remote side closed both (PUMP_EOF), the
 * deadline or cancel fired (PUMP_STOPPED, *w says which), or the connection
 * failed (PUMP_ERROR, err set).
 */
static enum pump chan_pump(struct ssh_state *st, LIBSSH2_CHANNEL *ch, struct kvb_buf *out, struct kvb_buf *errb,
			   uint64_t dl, enum kvb_ssh_wait *w, const char *what, struct kvb_error *err)
{
	char buf[32768];
	for (;;) {
		ssize_t n;
		while ((n = libssh2_channel_read(ch, buf, sizeof(buf))) > 0)
			kvb_buf_add(out, buf, (size_t)n);
		if (n < 0 && n != LIBSSH2_ERROR_EAGAIN)
			return kvb_ssh_fail(st, W_RETRY, 0, what, err), PUMP_ERROR;
		while ((n = libssh2_channel_read_stderr(ch, buf, sizeof(buf))) > 0)
			kvb_buf_add(errb, buf, (size_t)n);
		if (n < 0 && n != LIBSSH2_ERROR_EAGAIN)
			return kvb_ssh_fail(st, W_RETRY, 0, what, err), PUMP_ERROR;
		if (libssh2_channel_eof(ch))
			return PUMP_EOF;
		*w = kvb_ssh_wait(st, dl);
		if (*w == W_SILENT)
			return kvb_ssh_fail(st, W_SILENT, 0, what, err), PUMP_ERROR;
		if (*w != W_RETRY)
			return PUMP_STOPPED;
	}
}

/* Waits for the server's close after EOF (the exit status comes just before it). Same results as chan_pump. */
static enum pump chan_wait_closed(struct ssh_state *st, LIBSSH2_CHANNEL *ch, uint64_t dl, enum kvb_ssh_wait *w,
				  const char *what, struct kvb_error *err)
{
	int rc;
	*w = W_RETRY;
	SSH_CALL(st, rc, libssh2_channel_close(ch), dl, *w);
	if (!rc)
		SSH_CALL(st, rc, libssh2_channel_wait_closed(ch), dl, *w);
	if (!rc)
		return PUMP_EOF;
	if (rc == LIBSSH2_ERROR_EAGAIN && *w != W_SILENT)
		return PUMP_STOPPED;
	kvb_ssh_fail(st, rc == LIBSSH2_ERROR_EAGAIN ? *w : W_RETRY, 0, what, err);
	return PUMP_ERROR;
}

/* Signal names of the exit-signal message (RFC 4254 §6.10) to numbers. */
static int signal_number(const char *name)
{
	static const struct { const char *name; int sig; } sigs[] = {
		{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT }, { "ILL", SIGILL }, { "TRAP", SIGTRAP },
		{ "ABRT", SIGABRT }, { "BUS", SIGBUS }, { "FPE", SIGFPE }, { "KILL", SIGKILL }, { "USR1", SIGUSR1 },
		{ "SEGV", SIGSEGV }, { "USR2", SIGUSR2 }, { "PIPE", SIGPIPE }, { "ALRM", SIGALRM }, { "TERM", SIGTERM },
	};
	for (size_t i = 0; i < KVB_ARRAY_SIZE(sigs); i++)
		if (!strcmp(name, sigs[i].name))
			return sigs[i].sig;
	return 0;
}

static void read_exit(struct ssh_state *st, LIBSSH2_CHANNEL *ch, struct kvb_exec_result *r)
{
	char *sig = NULL;
	size_t siglen = 0;
	libssh2_channel_get_exit_signal(ch, &sig, &siglen, NULL, NULL, NULL, NULL);
	if (sig && siglen) {
		r->exit_code = -1;
		r->term_signal = signal_number(sig);
	} else {
		r->exit_code = libssh2_channel_get_exit_status(ch);
	}
	if (sig)
		libssh2_free(st->s, sig);
}

/*
 * Finds and removes our "kvb-pid:N\n" line from the start of stdout (bytes a
 * shell start-up file printed before it go too). Returns N, or 0 if absent.
 */
static long take_pid(struct kvb_buf *out, int remove)
{
	char *m = NULL, *nl;
	long pid = 0;
	size_t scan = out->len < 4096 ? out->len : 4096;
	for (size_t i = 0; i + sizeof(SSH_PID_MARK) - 1 <= scan; i++)
		if ((i == 0 || out->data[i - 1] == '\n') && !memcmp(out->data + i, SSH_PID_MARK, sizeof(SSH_PID_MARK) - 1)) {
			m = out->data + i;
			break;
		}
	if (!m || !(nl = memchr(m, '\n', out->len - (size_t)(m - out->data))))
		return 0;
	pid = strtol(m + sizeof(SSH_PID_MARK) - 1, NULL, 10);
	if (remove) {
		size_t cut = (size_t)(nl + 1 - out->data);
		memmove(out->data, nl + 1, out->len - cut + 1);
		out->len -= cut;
	}
	return pid;
}

/* Runs a short helper command (kill) on its own channel; output discarded. */
static int run_quick(struct ssh_state *st, const char *cmd, uint64_t ms)
{
	struct kvb_buf o = KVB_BUF_INIT, e = KVB_BUF_INIT;
	struct kvb_error err;
	LIBSSH2_CHANNEL *ch = NULL;
	enum kvb_ssh_wait w = W_RETRY;
	uint64_t dl = kvb_ssh_deadline_after(ms);
	int rc = chan_start(st, cmd, dl, ms, &ch, &err);
	if (!rc && chan_pump(st, ch, &o, &e, dl, &w, "kill", &err) != PUMP_EOF)
		rc = KVB_ETARGET;
	chan_free(st, ch);
	kvb_buf_release(&o);
	kvb_buf_release(&e);
	return rc;
}

/* Kills the remote process group of a command that ran past its deadline. Fills *how for the message. */
static void stop_remote(struct ssh_state *st, LIBSSH2_CHANNEL *ch, struct kvb_exec_result *r, char *how, size_t n)
{
	long pid = take_pid(&r->out, 0);
	static const char *const sigs[] = { "TERM", "KILL" };
	struct kvb_error err;
	enum kvb_ssh_wait w;
	if (pid <= 0) {
		snprintf(how, n, "could not kill it: its pid is unknown");
		return;
	}
	for (size_t i = 0; i < KVB_ARRAY_SIZE(sigs); i++) {
		char cmd[160];
		uint64_t dl = kvb_ssh_deadline_after(SSH_KILL_GRACE_MS);
		snprintf(cmd, sizeof(cmd), "kill -s %s -- -%ld 2>/dev/null || kill -s %s %ld", sigs[i], pid, sigs[i], pid);
		kvb_ssh_op_begin(st);
		if (run_quick(st, cmd, 5000)) {
			snprintf(how, n, "could not kill its process group %ld (%s)", pid,
				 st->broken ? "connection lost" : "kill failed");
			return;
		}
		if (chan_pump(st, ch, &r->out, &r->err, dl, &w, "kill", &err) == PUMP_EOF &&
		    chan_wait_closed(st, ch, dl, &w, "kill", &err) == PUMP_EOF) {
			read_exit(st, ch, r);
			snprintf(how, n, "killed its process group %ld with SIG%s", pid, sigs[i]);
			return;
		}
		if (st->broken)
			break;
	}
	snprintf(how, n, "sent SIGKILL to its process group %ld, which did not exit", pid);
}

/*
 * Runs one command on the current session (no reconnect). *started tells
 * whether the command reached the server (a failure before that is safe to
 * retry on a new connection).
 */
static int exec_once(struct ssh_state *st, const char *cmd, const char *argv0, uint64_t timeout_ms,
		     struct kvb_exec_result *r, int *started, struct kvb_error *err)
{
	uint64_t t0 = kvb_mono_ns(), dl = kvb_ssh_deadline_after(timeout_ms);
	LIBSSH2_CHANNEL *ch = NULL;
	enum kvb_ssh_wait w = W_RETRY;
	enum pump p;
	char what[200], how[200];
	int rc;

	*started = 0;
	kvb_ssh_op_begin(st);
	snprintf(what, sizeof(what), "'%.100s' on '%s'", argv0, st->c.host);
	rc = chan_start(st, cmd, dl, timeout_ms, &ch, err);
	if (rc)
		return kvb_error_prefix(err, "cannot run %s", what);
	*started = 1;
	p = chan_pump(st, ch, &r->out, &r->err, dl, &w, what, err);
	if (p == PUMP_EOF)
		p = chan_wait_closed(st, ch, dl, &w, what, err);
	if (p == PUMP_EOF) {
		read_exit(st, ch, r);
		rc = KVB_OK;
	} else if (p == PUMP_STOPPED) {
		stop_remote(st, ch, r, how, sizeof(how));
		if (w == W_DEADLINE) {
			r->timed_out = 1;
			rc = kvb_error_set(err, KVB_ETARGET, "%s timed out after %llu ms; %s", what,
					   (unsigned long long)timeout_ms, how);
		} else {
			rc = kvb_error_set(err, KVB_ETARGET, "%s cancelled; %s", what, how);
		}
		if (r->exit_code == 0)
			r->exit_code = -1;
	} else {
		r->exit_code = -1;
		rc = KVB_ETARGET; /* err says "connection lost ..." */
	}
	chan_free(st, ch);
	take_pid(&r->out, 1);
	r->elapsed_ns = kvb_mono_ns() - t0;
	return rc;
}

/* The string sent to the remote shell for argv; see the top of the file. Owned. */
static char *remote_command(const char *const *argv)
{
	struct kvb_buf b = KVB_BUF_INIT;
	kvb_buf_adds(&b, "printf '" SSH_PID_MARK "%s\\n' \"$$\" && exec ");
	kvb_shell_join(&b, argv);
	return kvb_buf_detach(&b);
}

/* exec with one transparent reconnect when an idle connection turned out dead before the command started. */
static int exec_argv(struct ssh_state *st, const char *const *argv, uint64_t timeout_ms, struct kvb_exec_result *r,
		     struct kvb_error *err)
{
	char *cmd;
	int rc, started = 0;
	if (!argv || !argv[0])
		return kvb_error_set(err, KVB_ETARGET, "empty command");
	rc = kvb_ssh_ensure(st, err);
	if (rc)
		return rc;
	cmd = remote_command(argv);
	rc = exec_once(st, cmd, argv[0], timeout_ms, r, &started, err);
	/* a cancel (Ctrl-C) is not a lost connection: no warning (it became a diff footnote), no reconnect */
	if (rc && !started && st->broken && !(st->cancel && *st->cancel)) {
		kvb_warn("ssh: %s; reconnecting", err->msg);
		rc = kvb_ssh_ensure(st, err);
		if (!rc)
			rc = exec_once(st, cmd, argv[0], timeout_ms, r, &started, err);
	}
	free(cmd);
	return rc;
}

int kvb_ssh_exec(struct kvb_target *t, const char *const *argv, uint64_t timeout_ms, struct kvb_exec_result *r,
	     struct kvb_error *err)
{
	struct ssh_state *st = t->priv;
	st->cancel = t->cancel;
	return exec_argv(st, argv, timeout_ms, r, err);
}

/* Runs argv (label names it in messages); KVB_OK only when it exited 0. stdout (trailing whitespace trimmed) goes to out if non-NULL. */
int kvb_ssh_run_check(struct ssh_state *st, const char *label, const char *const *argv, uint64_t timeout_ms, char *out,
	      size_t n, int reconnect, struct kvb_error *err)
{
	struct kvb_exec_result r;
	char how[64];
	int rc, started;
	kvb_exec_result_init(&r);
	if (reconnect) {
		rc = exec_argv(st, argv, timeout_ms, &r, err);
	} else {
		char *cmd = remote_command(argv);
		rc = exec_once(st, cmd, argv[0], timeout_ms, &r, &started, err);
		free(cmd);
	}
	if (!rc && r.exit_code != 0) {
		size_t l = strcspn(r.err.data, "\n");
		rc = kvb_error_set(err, KVB_ETARGET, "'%s' failed (%s)%s%.*s", label,
				   kvb_exec_describe(&r, how, sizeof(how)), l ? ": " : "", (int)(l > 200 ? 200 : l),
				   r.err.data);
	}
	if (!rc && out) {
		while (r.out.len && strchr(" \t\r\n", r.out.data[r.out.len - 1]))
			r.out.data[--r.out.len] = '\0';
		snprintf(out, n, "%s", r.out.data);
	}
	kvb_exec_result_release(&r);
	return rc;
}
