/*
 * Implements the ssh target on libssh2: one session per board, reused for
 * every command (a channel each, no pty), files over SFTP, host keys checked
 * against known_hosts, keepalive, reconnect with backoff.
 *
 * Every libssh2 call runs in non-blocking mode and waits on the socket with
 * poll() against a deadline (ssh_wait), so no call can hang: a command has its
 * timeout, a connection attempt connect_timeout_s, an SFTP step
 * SSH_IO_TIMEOUT_MS without progress, and any wait fails once the server has
 * sent nothing for 3 keepalive intervals although keepalives were sent
 * (OpenSSH's ServerAliveInterval x ServerAliveCountMax 3).
 *
 * Killing a remote command on timeout: the command string sent is
 *     printf 'kvb-pid:%s\n' "$$" && exec ARGV...
 * so the shell sshd starts reports its pid as the first stdout line (stripped
 * before the caller sees stdout) and then becomes the command. OpenSSH (and
 * dropbear) run that shell after setsid(), so the pid is also the process
 * group of the command and everything it forks. On timeout a second channel
 * runs `kill -s TERM -- -PID || kill -s TERM PID` (the group, else the one
 * process where sshd did not make a group), then SIGKILL after
 * SSH_KILL_GRACE_MS. Only POSIX sh features are used (printf, $$, exec, kill).
 */
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

#define SSH_MAX_BACKOFF_MS 5000u
#define SSH_MIN_ATTEMPT_MS 100u    /* wait_ready makes no attempt with less time left */
#define SSH_BANNER_MS 3000u        /* default banner_timeout_s: an attempt that hears nothing this long is dropped and made again */

static const struct kvb_keydef ssh_conn_keys[] = {
	{ "host", KVB_T_STR, NULL, NULL, KVB_KEY_REQUIRED, "board address: name or IP" },
	{ "port", KVB_T_INT, "22", NULL, KVB_KEY_POSITIVE, "TCP port of sshd" },
	{ "user", KVB_T_STR, "root", NULL, 0, "user to log in as" },
	{ "key", KVB_T_STR, NULL, NULL, 0,
	  "private key file (~/ and paths relative to the platform directory allowed); "
	  "without it: ssh-agent, then ~/.ssh/id_ed25519, id_ecdsa, id_rsa" },
	{ "passphrase", KVB_T_STR, NULL, NULL, 0, "passphrase of key (never logged)" },
	{ "known_hosts", KVB_T_STR, "~/.ssh/known_hosts", NULL, 0, "OpenSSH known_hosts file the host key is checked against" },
	{ "host_key", KVB_T_STR, "strict", "strict|accept-new", 0,
	  "strict: unknown keys refused; accept-new: an unknown key is recorded. A changed key is always refused" },
	{ "connect_timeout_s", KVB_T_INT, "10", NULL, KVB_KEY_POSITIVE,
	  "bound on connecting (TCP, handshake, login), s: the first connection is retried until then while the board "
	  "refuses, resets or closes before its banner (booting); a reconnect's every attempt has this bound" },
	{ "banner_timeout_s", KVB_T_INT, "3", NULL, KVB_KEY_POSITIVE,
	  "an attempt that hears no ssh banner this long is dropped and made again, s (a booting board may accept TCP "
	  "and never speak); a slow board whose sshd is known to run wants more" },
	{ "keepalive_s", KVB_T_INT, "15", NULL, KVB_KEY_NONNEG,
	  "keepalive interval, s; the connection counts as lost after 3 unanswered intervals; 0 disables" },
	{ "reconnect_deadline_s", KVB_T_INT, "180", NULL, KVB_KEY_NONNEG,
	  "after a lost connection, the next call retries with backoff for this long, s" },
	{ "ready", KVB_T_STR, NULL, NULL, 0, "shell command that must succeed before the board counts as ready (default: boot.ready)" },
	{ "expect", KVB_T_STR, NULL, NULL, 0, "expected stdout of ready, trailing whitespace ignored (default: boot.expect)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

/* ---- helpers ------------------------------------------------------------------------------------- */

uint64_t kvb_ssh_deadline_after(uint64_t ms)
{
	return ms ? kvb_mono_ns() + ms * SSH_NS_PER_MS : UINT64_MAX;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Counts received bytes' arrival time; otherwise what libssh2's own recv does (-errno on error). */
static LIBSSH2_RECV_FUNC(ssh_recv)
{
	struct ssh_state *st = *abstract;
	ssize_t n = recv(socket, buffer, length, flags);
	if (n < 0)
		return -errno;
	if (n > 0)
		st->rx_ns = kvb_mono_ns();
	return n;
}

/* libssh2 errors after which the transport is unusable. */
static int transport_error(int e)
{
	switch (e) {
	case LIBSSH2_ERROR_SOCKET_NONE:
	case LIBSSH2_ERROR_BANNER_RECV:
	case LIBSSH2_ERROR_BANNER_SEND:
	case LIBSSH2_ERROR_INVALID_MAC:
	case LIBSSH2_ERROR_KEX_FAILURE:
	case LIBSSH2_ERROR_SOCKET_SEND:
	case LIBSSH2_ERROR_KEY_EXCHANGE_FAILURE:
	case LIBSSH2_ERROR_TIMEOUT:
	case LIBSSH2_ERROR_DECRYPT:
	case LIBSSH2_ERROR_SOCKET_DISCONNECT:
	case LIBSSH2_ERROR_PROTO:
	case LIBSSH2_ERROR_SOCKET_TIMEOUT:
	case LIBSSH2_ERROR_SOCKET_RECV:
	case LIBSSH2_ERROR_ENCRYPT:
	case LIBSSH2_ERROR_BAD_SOCKET:
		return 1;
	default:
		return 0;
	}
}

/* What a transport error means, in words (libssh2's own texts are often "Unexpected error"). */
static const char *transport_text(int e)
{
	switch (e) {
	case LIBSSH2_ERROR_SOCKET_DISCONNECT:
		return "the server closed the connection";
	case LIBSSH2_ERROR_SOCKET_RECV:
		return "the connection was closed or reset";
	case LIBSSH2_ERROR_SOCKET_SEND:
		return "sending failed: the connection was closed or reset";
	case LIBSSH2_ERROR_TIMEOUT:
	case LIBSSH2_ERROR_SOCKET_TIMEOUT:
		return "timed out";
	case LIBSSH2_ERROR_BANNER_RECV:
		return "no ssh banner from the server";
	default:
		return "ssh protocol failure";
	}
}

/* libssh2's last error text, or a fallback. */
static const char *last_error(struct ssh_state *st, int *code)
{
	char *msg = NULL;
	int e = st->s ? libssh2_session_last_error(st->s, &msg, NULL, 0) : 0;
	if (code)
		*code = e;
	return msg && *msg ? msg : "unknown libssh2 error";
}

/*
 * Waits until the socket is ready in the direction libssh2 is blocked on,
 * sending keepalives meanwhile. W_RETRY means: call libssh2 again.
 */
enum kvb_ssh_wait kvb_ssh_wait(struct ssh_state *st, uint64_t deadline_ns)
{
	uint64_t now = kvb_mono_ns(), slice_ns = 200 * SSH_NS_PER_MS; /* re-check cancel this often */
	int dirs = libssh2_session_block_directions(st->s), next_s = 0;
	struct pollfd pfd = { .fd = st->fd, .events = 0 };

	if (st->cancel && *st->cancel)
		return W_CANCEL;
	if (now >= deadline_ns)
		return W_DEADLINE;
	if (st->c.keepalive_s) {
		uint64_t since = st->rx_ns > st->op_ns ? st->rx_ns : st->op_ns;
		uint64_t limit = 3ull * st->c.keepalive_s * 1000 * SSH_NS_PER_MS;
		if (now - since > limit)
			return W_SILENT;
		if (libssh2_keepalive_send(st->s, &next_s) == 0 && next_s > 0)
			slice_ns = min_u64(slice_ns, (uint64_t)next_s * 1000 * SSH_NS_PER_MS);
		slice_ns = min_u64(slice_ns, since + limit - now + SSH_NS_PER_MS);
	}
	if (dirs & LIBSSH2_SESSION_BLOCK_INBOUND)
		pfd.events |= POLLIN;
	if (dirs & LIBSSH2_SESSION_BLOCK_OUTBOUND)
		pfd.events |= POLLOUT;
	if (!pfd.events)
		pfd.events = POLLIN;
	slice_ns = min_u64(slice_ns, deadline_ns - now);
	(void)poll(&pfd, 1, (int)((slice_ns + SSH_NS_PER_MS - 1) / SSH_NS_PER_MS));
	return W_RETRY;
}

void kvb_ssh_op_begin(struct ssh_state *st)
{
	st->op_ns = kvb_mono_ns();
}

/*
 * Turns a failed call into a message "WHAT: REASON" and marks the session
 * broken when the transport is gone. w is the wait outcome (W_RETRY when the
 * call itself failed), ms the time limit that applied, for the message.
 */
int kvb_ssh_fail(struct ssh_state *st, enum kvb_ssh_wait w, uint64_t ms, const char *what, struct kvb_error *err)
{
	int code = 0;
	const char *msg;
	switch (w) {
	case W_DEADLINE:
		st->broken = 1; /* a half-done libssh2 call cannot be resumed later */
		snprintf(st->lost, sizeof(st->lost), "%.400s timed out", what);
		return kvb_error_set(err, KVB_ETARGET, "%s: timed out after %llu ms", what, (unsigned long long)ms);
	case W_CANCEL:
		st->broken = 1;
		snprintf(st->lost, sizeof(st->lost), "%.400s was cancelled", what);
		return kvb_error_set(err, KVB_ETARGET, "%s: cancelled", what);
	case W_SILENT:
		st->broken = 1;
		snprintf(st->lost, sizeof(st->lost), "no answer from the server for %u s", 3 * st->c.keepalive_s);
		return kvb_error_set(err, KVB_ETARGET, "%s: connection lost: no answer from '%s' port %d for %u s (keepalive)",
				     what, st->c.host, st->c.port, 3 * st->c.keepalive_s);
	case W_RETRY:
		break;
	}
	msg = last_error(st, &code);
	if (transport_error(code)) {
		st->broken = 1;
		snprintf(st->lost, sizeof(st->lost), "%s (libssh2: %.300s)", transport_text(code), msg);
		return kvb_error_set(err, KVB_ETARGET, "%s: connection lost to '%s' port %d: %s (libssh2: %s)", what,
				     st->c.host, st->c.port, transport_text(code), msg);
	}
	return kvb_error_set(err, KVB_ETARGET, "%s: %s", what, msg);
}

/* ---- configuration ------------------------------------------------------------------------------- */

/* "~/x" -> $HOME/x; relative -> platform directory; absolute unchanged. Owned. */
static char *resolve_path(const char *p, const char *base)
{
	const char *home = getenv("HOME");
	if (p[0] == '~' && p[1] == '/')
		return kvb_xasprintf("%s%s", home && *home ? home : "", p + 1);
	if (p[0] == '/' || !base)
		return kvb_xstrdup(p);
	return kvb_xasprintf("%s/%s", base, p);
}

static void conf_release(struct ssh_conf *c)
{
	free(c->host);
	free(c->user);
	free(c->key);
	if (c->passphrase)
		memset(c->passphrase, 0, strlen(c->passphrase));
	free(c->passphrase);
	free(c->known_hosts);
	memset(c, 0, sizeof(*c));
}

static int conf_load(struct ssh_conf *c, const struct kvb_platform *plat, struct kvb_error *err)
{
	const cJSON *m = plat->conn;
	const char *s;
	long long v;
	memset(c, 0, sizeof(*c));
	s = kvb_get_str(m, "host", NULL);
	if (!s || !*s)
		return kvb_error_set(err, KVB_EINPUT, "%s: connection: ssh needs 'host'", plat->file);
	c->host = kvb_xstrdup(s);
	v = kvb_get_int(m, "port", 22);
	if (v < 1 || v > 65535)
		return kvb_error_set(err, KVB_EINPUT, "%s: connection.port: %lld is not a TCP port", plat->file, v);
	c->port = (int)v;
	c->user = kvb_xstrdup(kvb_get_str(m, "user", "root"));
	s = kvb_get_str(m, "key", NULL);
	c->key = s ? resolve_path(s, plat->dir) : NULL;
	s = kvb_get_str(m, "passphrase", NULL);
	c->passphrase = s ? kvb_xstrdup(s) : NULL;
	c->known_hosts = resolve_path(kvb_get_str(m, "known_hosts", "~/.ssh/known_hosts"), plat->dir);
	s = kvb_get_str(m, "host_key", "strict");
	if (strcmp(s, "strict") && strcmp(s, "accept-new"))
		return kvb_error_set(err, KVB_EINPUT, "%s: connection.host_key: \"%s\" is not strict or accept-new",
				     plat->file, s);
	c->accept_new = !strcmp(s, "accept-new");
	v = kvb_get_int(m, "connect_timeout_s", 10);
	c->connect_timeout_ms = (uint64_t)(v > 0 ? v : 10) * 1000;
	v = kvb_get_int(m, "banner_timeout_s", SSH_BANNER_MS / 1000);
	c->banner_ms = v > 0 ? (uint64_t)v * 1000 : SSH_BANNER_MS;
	v = kvb_get_int(m, "keepalive_s", 15);
	c->keepalive_s = (unsigned)(v >= 0 ? v : 15);
	v = kvb_get_int(m, "reconnect_deadline_s", 180);
	c->reconnect_deadline_ms = (uint64_t)(v >= 0 ? v : 180) * 1000;
	c->ready = kvb_get_str(m, "ready", plat->boot_ready);
	c->expect = kvb_get_str(m, "expect", plat->boot_expect);
	return KVB_OK;
}

/* ---- connection ---------------------------------------------------------------------------------- */

/* Non-blocking TCP connect to every address of host in turn, bounded by deadline. */
static int tcp_connect(const struct ssh_conf *c, uint64_t deadline_ns, int *out, struct kvb_error *err)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res = NULL;
	char port[16], why[256] = "no address";
	int fd = -1, g;
	snprintf(port, sizeof(port), "%d", c->port);
	g = getaddrinfo(c->host, port, &hints, &res);
	if (g)
		return kvb_error_set(err, KVB_ETARGET, "cannot resolve '%s': %s", c->host, gai_strerror(g));
	for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
		int e = 0, one = 1;
		socklen_t len = sizeof(e);
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			snprintf(why, sizeof(why), "socket: %s", strerror(errno));
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
			e = errno;
		} else {
			struct pollfd p = { .fd = fd, .events = POLLOUT };
			uint64_t now = kvb_mono_ns();
			int ms = now >= deadline_ns ? 0 : (int)min_u64((deadline_ns - now) / SSH_NS_PER_MS + 1, 1u << 30);
			int n = poll(&p, 1, ms);
			if (n == 0)
				e = ETIMEDOUT;
			else if (n < 0)
				e = errno;
			else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len))
				e = errno;
		}
		if (e) {
			snprintf(why, sizeof(why), "%s", strerror(e));
			close(fd);
			fd = -1;
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	}
	freeaddrinfo(res);
	if (fd < 0)
		return kvb_error_set(err, KVB_ETARGET, "cannot connect to '%s' port %d: %s", c->host, c->port, why);
	*out = fd;
	return KVB_OK;
}

/*
 * Frees the session. Politely (disconnect message) when it still works, for
 * at most 1 s; then the socket is shut down so that what libssh2 still sends
 * while freeing fails at once instead of waiting on a silent server.
 */
static void session_drop(struct ssh_state *st)
{
	if (st->s) {
		int rc = 0, w = W_RETRY;
		uint64_t dl = kvb_ssh_deadline_after(1000);
		kvb_ssh_op_begin(st);
		if (st->sftp && !st->broken) {
			SSH_CALL(st, rc, libssh2_sftp_shutdown(st->sftp), dl, w);
			if (!rc)
				st->sftp = NULL;
		}
		if (!st->broken)
			SSH_CALL(st, rc, libssh2_session_disconnect(st->s, "kvbench done"), dl, w);
		if (st->fd >= 0)
			shutdown(st->fd, SHUT_RDWR);
		libssh2_session_set_blocking(st->s, 1);
		libssh2_session_set_timeout(st->s, 1000);
		if (st->sftp)
			libssh2_sftp_shutdown(st->sftp);
		libssh2_session_free(st->s);
		st->s = NULL;
	}
	st->sftp = NULL;
	if (st->fd >= 0)
		close(st->fd);
	st->fd = -1;
	st->broken = 0;
}

/* Logs in with the configured key, else the agent's keys, else the usual default key files. */
static int authenticate(struct ssh_state *st, uint64_t deadline_ns, uint64_t ms, struct kvb_error *err)
{
	const char *u = st->c.user;
	unsigned ulen = (unsigned)strlen(u);
	static const char *const defaults[] = { "id_ed25519", "id_ecdsa", "id_rsa" };
	struct kvb_buf tried = KVB_BUF_INIT;
	LIBSSH2_AGENT *agent;
	int rc = LIBSSH2_ERROR_AUTHENTICATION_FAILED, w = W_RETRY;

	if (st->c.key) {
		SSH_CALL(st, rc,
			 libssh2_userauth_publickey_fromfile_ex(st->s, u, ulen, NULL, st->c.key, st->c.passphrase),
			 deadline_ns, w);
		if (!rc)
			return KVB_OK;
		if (rc == LIBSSH2_ERROR_EAGAIN || transport_error(rc))
			return kvb_ssh_fail(st, rc == LIBSSH2_ERROR_EAGAIN ? w : W_RETRY, ms, "login", err);
		return kvb_error_set(err, KVB_ETARGET, "cannot log in as '%s' on '%s' port %d with key '%s': %s", u,
				     st->c.host, st->c.port, st->c.key, last_error(st, NULL));
	}

	agent = libssh2_agent_init(st->s);
	if (agent && !libssh2_agent_connect(agent)) {
		int n = 0;
		if (!libssh2_agent_list_identities(agent)) {
			struct libssh2_agent_publickey *id = NULL, *prev = NULL;
			while (rc && !libssh2_agent_get_identity(agent, &id, prev)) {
				n++;
				SSH_CALL(st, rc, libssh2_agent_userauth(agent, u, id), deadline_ns, w);
				if (rc == LIBSSH2_ERROR_EAGAIN || transport_error(rc))
					break;
				prev = id;
			}
		}
		kvb_buf_addf(&tried, "ssh-agent (%d key%s)", n, n == 1 ? "" : "s");
		libssh2_agent_disconnect(agent);
	} else {
		kvb_buf_adds(&tried, "no ssh-agent");
	}
	if (agent)
		libssh2_agent_free(agent);
	for (size_t i = 0; rc && rc != LIBSSH2_ERROR_EAGAIN && !transport_error(rc) && i < KVB_ARRAY_SIZE(defaults); i++) {
		char *path = resolve_path(defaults[i], NULL), *tilde = kvb_xasprintf("~/.ssh/%s", defaults[i]);
		free(path);
		path = resolve_path(tilde, NULL);
		if (!access(path, R_OK)) {
			kvb_buf_addf(&tried, ", %s", tilde);
			SSH_CALL(st, rc, libssh2_userauth_publickey_fromfile_ex(st->s, u, ulen, NULL, path, NULL), deadline_ns,
				 w);
		}
		free(path);
		free(tilde);
	}
	if (!rc) {
		kvb_buf_release(&tried);
		return KVB_OK;
	}
	if (rc == LIBSSH2_ERROR_EAGAIN || transport_error(rc)) {
		kvb_buf_release(&tried);
		return kvb_ssh_fail(st, rc == LIBSSH2_ERROR_EAGAIN ? w : W_RETRY, ms, "login", err);
	}
	kvb_error_set(err, KVB_ETARGET,
		      "cannot log in as '%s' on '%s' port %d: no key was accepted (tried %s); set connection.key", u,
		      st->c.host, st->c.port, tried.data);
	kvb_buf_release(&tried);
	return KVB_ETARGET;
}

/*
 * One connection attempt: TCP, handshake, host key check, login, all within
 * timeout_ms. *permanent is set when retrying cannot help (host key refused,
 * login refused).
 */
static int session_open(struct ssh_state *st, uint64_t timeout_ms, int *permanent, struct kvb_error *err)
{
	uint64_t dl = kvb_ssh_deadline_after(timeout_ms), banner_dl;
	char prefs[256], what[300];
	int rc, w = W_RETRY;

	*permanent = 0;
	session_drop(st);
	kvb_ssh_op_begin(st);
	rc = tcp_connect(&st->c, dl, &st->fd, err);
	if (rc)
		return rc;
	st->s = libssh2_session_init_ex(NULL, NULL, NULL, st);
	if (!st->s) {
		session_drop(st);
		return kvb_error_set(err, KVB_ETARGET, "cannot create an ssh session");
	}
	libssh2_session_callback_set(st->s, LIBSSH2_CALLBACK_RECV, (void *)ssh_recv);
	libssh2_session_set_blocking(st->s, 0);
	kvb_ssh_hostkey_prefs(st->s, st->c.known_hosts, st->c.host, st->c.port, prefs, sizeof(prefs));
	if (prefs[0])
		libssh2_session_method_pref(st->s, LIBSSH2_METHOD_HOSTKEY, prefs);
	snprintf(what, sizeof(what), "ssh handshake with '%s' port %d", st->c.host, st->c.port);
	/*
	 * A board that accepts TCP before its sshd runs (a boot in progress, QEMU's user network)
	 * may never send a banner on this connection: an attempt that hears nothing within
	 * banner_timeout_s ends so that the caller can try a fresh one; once the server speaks the
	 * handshake has the whole timeout.
	 */
	banner_dl = min_u64(dl, kvb_ssh_deadline_after(st->c.banner_ms));
	while ((rc = libssh2_session_handshake(st->s, st->fd)) == LIBSSH2_ERROR_EAGAIN &&
	       (w = kvb_ssh_wait(st, st->rx_ns > st->op_ns ? dl : banner_dl)) == W_RETRY)
		;
	if (rc == LIBSSH2_ERROR_EAGAIN && w == W_DEADLINE && st->rx_ns <= st->op_ns) {
		uint64_t waited = (kvb_mono_ns() - st->op_ns) / SSH_NS_PER_MS;
		st->broken = 1; /* nothing to say goodbye to */
		session_drop(st);
		return kvb_error_set(err, KVB_ETARGET, "%s: timed out after %llu ms waiting for the ssh banner", what,
				     (unsigned long long)waited);
	}
	if (rc) {
		rc = kvb_ssh_fail(st, rc == LIBSSH2_ERROR_EAGAIN ? w : W_RETRY, timeout_ms, what, err);
		session_drop(st);
		return rc;
	}
	rc = kvb_ssh_hostkey_verify(st->s, st->c.known_hosts, st->c.host, st->c.port, st->c.accept_new, err);
	if (!rc) {
		rc = authenticate(st, dl, timeout_ms, err);
		if (rc && !st->broken)
			*permanent = 1;
	} else {
		*permanent = 1;
	}
	if (rc) {
		st->broken = 1;
		session_drop(st);
		return rc;
	}
	if (st->c.keepalive_s)
		libssh2_keepalive_config(st->s, 1, st->c.keepalive_s);
	kvb_debug("ssh: logged in as '%s' on '%s' port %d (kex %s, host key %s, cipher %s, mac %s)", st->c.user,
		  st->c.host, st->c.port, libssh2_session_methods(st->s, LIBSSH2_METHOD_KEX),
		  libssh2_session_methods(st->s, LIBSSH2_METHOD_HOSTKEY), libssh2_session_methods(st->s, LIBSSH2_METHOD_CRYPT_CS),
		  libssh2_session_methods(st->s, LIBSSH2_METHOD_MAC_CS));
	st->broken = 0;
	st->lost[0] = '\0';
	return KVB_OK;
}

/*
 * Connects within total_ms, as many attempts as it takes: what a board does
 * while it boots (refuses, resets, closes before or during the banner, says
 * nothing) is tried again after a backoff of 0.25 s doubling to 5 s, each
 * attempt bounded by connect_timeout_s and the time left. A refused host key
 * or login ends at once. *attempts receives the number of attempts; err the
 * last one's reason.
 */
static int connect_retrying(struct ssh_state *st, uint64_t total_ms, int *attempts, struct kvb_error *err)
{
	uint64_t dl = kvb_ssh_deadline_after(total_ms), backoff_ms = 250;
	int permanent = 0, rc;
	for (*attempts = 1;; (*attempts)++) {
		uint64_t now = kvb_mono_ns();
		rc = session_open(st, now >= dl ? 1 : min_u64(st->c.connect_timeout_ms, (dl - now) / SSH_NS_PER_MS + 1),
				  &permanent, err);
		if (!rc || permanent || (st->cancel && *st->cancel))
			return rc;
		now = kvb_mono_ns();
		if (now + backoff_ms * SSH_NS_PER_MS >= dl)
			return rc;
		kvb_debug("ssh: attempt %d failed (%s); next in %llu ms", *attempts, err->msg, (unsigned long long)backoff_ms);
		kvb_sleep_ms(backoff_ms);
		backoff_ms = min_u64(backoff_ms * 2, SSH_MAX_BACKOFF_MS);
	}
}

/*
 * Makes sure a working session exists. After a lost one, retries with
 * exponential backoff (0.25 s .. 5 s) until reconnect_deadline_s.
 */
int kvb_ssh_ensure(struct ssh_state *st, struct kvb_error *err)
{
	uint64_t t0 = kvb_mono_ns();
	char why[sizeof(st->lost)];
	int attempts, rc;

	if (st->s && !st->broken)
		return KVB_OK;
	snprintf(why, sizeof(why), "%s", st->lost[0] ? st->lost : "not connected");
	kvb_info("ssh: connecting again to '%s' port %d (previous connection: %s)", st->c.host, st->c.port, why);
	rc = connect_retrying(st, st->c.reconnect_deadline_ms, &attempts, err);
	if (!rc) {
		kvb_info("ssh: reconnected to '%s' port %d after %d attempt%s, %.1f s", st->c.host, st->c.port, attempts,
			 attempts == 1 ? "" : "s", (double)(kvb_mono_ns() - t0) / 1e9);
		return KVB_OK;
	}
	snprintf(st->lost, sizeof(st->lost), "%s", why);
	return kvb_error_prefix(err, "cannot reconnect to '%s' port %d within %llu s (previous connection: %s; %d attempt%s)",
				st->c.host, st->c.port, (unsigned long long)(st->c.reconnect_deadline_ms / 1000), why,
				attempts, attempts == 1 ? "" : "s");
}

/* ---- ops ----------------------------------------------------------------------------------------- */

static int ssh_open(struct kvb_target *t, struct kvb_error *err)
{
	struct ssh_state *st = kvb_xcalloc(1, sizeof(*st));
	uint64_t t0 = kvb_mono_ns();
	int rc, attempts = 0;
	st->fd = -1;
	libssh2_init(0);
	t->priv = st;
	rc = conf_load(&st->c, t->plat, err);
	st->cancel = t->cancel;
	/* the first connection is retried like a reconnect (devlib #725: a booting board accepts TCP and
	 * closes before its banner), within connect_timeout_s */
	if (!rc && (rc = connect_retrying(st, st->c.connect_timeout_ms, &attempts, err)) && attempts > 1)
		kvb_error_prefix(err, "cannot connect to '%s' port %d within %llu s (%d attempts); last", st->c.host,
				 st->c.port, (unsigned long long)(st->c.connect_timeout_ms / 1000), attempts);
	if (!rc && attempts > 1)
		kvb_info("ssh: connected to '%s' port %d after %d attempts, %.1f s", st->c.host, st->c.port, attempts,
			 (double)(kvb_mono_ns() - t0) / 1e9);
	if (rc) {
		t->ops->close(t);
		t->priv = NULL;
	}
	return rc;
}

/*
 * Starts a detached `reboot` (after 1 s, so this channel closes cleanly first)
 * and closes the session. The boot_id read before is kept: wait_ready() only
 * succeeds once the board answers from a new boot.
 */
static int ssh_reboot(struct kvb_target *t, const char *mode, struct kvb_error *err)
{
	struct ssh_state *st = t->priv;
	static const char proc_boot_id[] = "/proc/sys/kernel/random/boot_id";
	static const char *const reboot[] = { "sh", "-c", "(sleep 1; reboot) </dev/null >/dev/null 2>&1 &", NULL };
	const char *root = kvb_target_sysfs_root(t), *boot_id[] = { "cat", st->boot_id_path, NULL };
	struct kvb_error ignored;
	int rc;
	st->cancel = t->cancel;
	if (mode)
		return kvb_error_set(err, KVB_ETARGET, "the ssh target cannot reboot into '%s'", mode);
	/* under the platform's sysfs_root when its tree holds it (a simulated board's), else the kernel's */
	snprintf(st->boot_id_path, sizeof(st->boot_id_path), "%s%s", root, proc_boot_id);
	rc = kvb_ssh_run_check(st, "cat boot_id", boot_id, 15000, st->boot_id, sizeof(st->boot_id), 1, &ignored);
	if (rc && *root) {
		snprintf(st->boot_id_path, sizeof(st->boot_id_path), "%s", proc_boot_id);
		rc = kvb_ssh_run_check(st, "cat boot_id", boot_id, 15000, st->boot_id, sizeof(st->boot_id), 1, &ignored);
	}
	if (rc)
		st->boot_id[0] = '\0';
	rc = kvb_ssh_run_check(st, "reboot", reboot, 15000, NULL, 0, 1, err);
	if (rc)
		return kvb_error_prefix(err, "cannot reboot '%s'", st->c.host);
	kvb_info("ssh: rebooting '%s' (boot_id %s)", st->c.host, st->boot_id[0] ? st->boot_id : "unknown");
	session_drop(st);
	snprintf(st->lost, sizeof(st->lost), "the board was rebooted");
	return KVB_OK;
}

/* One readiness probe: connected, past the pre-reboot boot, ready command passing. */
static int probe_ready(struct ssh_state *st, uint64_t dl, int *permanent, struct kvb_error *err)
{
	uint64_t now = kvb_mono_ns(), left_ms = now >= dl ? 1 : (dl - now) / SSH_NS_PER_MS + 1;
	const char *const boot_id[] = { "cat", st->boot_id_path, NULL }; /* as reboot() read it */
	char out[4096];
	int rc;
	int fresh = 0;
	*permanent = 0;
	if (!st->s || st->broken) {
		rc = session_open(st, min_u64(st->c.connect_timeout_ms, left_ms), permanent, err);
		if (rc)
			return rc;
		fresh = 1;
	}
	if (st->boot_id[0]) {
		rc = kvb_ssh_run_check(st, "cat boot_id", boot_id, min_u64(left_ms, 30000), out, sizeof(out), 0, err);
		if (rc)
			return rc;
		if (!strcmp(out, st->boot_id)) {
			session_drop(st);
			snprintf(st->lost, sizeof(st->lost), "the board had not rebooted yet");
			return kvb_error_set(err, KVB_ETARGET, "still running the boot from before the reboot (boot_id %s)",
					     out);
		}
		st->boot_id[0] = '\0';
	}
	if (st->c.ready) {
		const char *argv[] = { "sh", "-c", st->c.ready, NULL };
		rc = kvb_ssh_run_check(st, st->c.ready, argv, min_u64(left_ms, 30000), out, sizeof(out), 0, err);
		if (rc)
			return rc;
		if (st->c.expect && strcmp(out, st->c.expect))
			return kvb_error_set(err, KVB_ETARGET, "ready check '%s' printed \"%.200s\", expected \"%s\"",
					     st->c.ready, out, st->c.expect);
	} else if (!fresh) {
		/* an old session may be dead without knowing it: one round trip proves it is not */
		static const char *const t[] = { "true", NULL };
		return kvb_ssh_run_check(st, "true", t, min_u64(left_ms, 30000), NULL, 0, 0, err);
	}
	return KVB_OK;
}

static int ssh_wait_ready(struct kvb_target *t, uint64_t timeout_ms, struct kvb_error *err)
{
	struct ssh_state *st = t->priv;
	uint64_t t0 = kvb_mono_ns(), dl = t0 + timeout_ms * SSH_NS_PER_MS;
	int attempt, permanent = 0, rc;
	char prev[KVB_ERRMSG_MAX] = "";  /* the answer of the last attempt that got one */
	st->cancel = t->cancel;
	for (attempt = 1;; attempt++) {
		uint64_t now;
		rc = probe_ready(st, dl, &permanent, err);
		if (rc && !strstr(err->msg, "timed out after"))
			snprintf(prev, sizeof(prev), "%s", err->msg);
		if (!rc) {
			kvb_debug("ssh: '%s' ready after %.1f s", st->c.host, (double)(kvb_mono_ns() - t0) / 1e9);
			return KVB_OK;
		}
		if (permanent)
			return rc;
		if (st->cancel && *st->cancel)
			return kvb_error_set(err, KVB_ETARGET, "waiting for '%s' cancelled", st->c.host);
		now = kvb_mono_ns();
		if (now >= dl)
			break;
		kvb_sleep_ms(min_u64(1000, (dl - now) / SSH_NS_PER_MS + 1));
		if (kvb_mono_ns() + SSH_MIN_ATTEMPT_MS * SSH_NS_PER_MS >= dl)
			break; /* too little time left for an attempt: keep the last real error */
	}
	/* the last attempt cut short by the deadline says less than the answer before it (a loaded
	 * host): keep both */
	if (*prev && strstr(err->msg, "timed out after") && !strstr(err->msg, prev)) {
		char last[KVB_ERRMSG_MAX];
		snprintf(last, sizeof(last), "%s", err->msg);
		kvb_error_set(err, rc, "%.*s; last answer before that: %s", (int)(sizeof(last) / 2), last, prev);
	}
	return kvb_error_prefix(err, "'%s' port %d not ready after %llu ms (%d attempt%s); last", st->c.host, st->c.port,
				(unsigned long long)timeout_ms, attempt, attempt == 1 ? "" : "s");
}

static void ssh_close(struct kvb_target *t)
{
	struct ssh_state *st = t ? t->priv : NULL;
	if (!st)
		return;
	session_drop(st);
	conf_release(&st->c);
	free(st);
	t->priv = NULL;
	libssh2_exit();
}

const struct kvb_target_ops kvb_target_ssh = {
	.name = "ssh",
	.summary = "a board over ssh (libssh2): one session, a channel per command, SFTP for files",
	.conn_keys = ssh_conn_keys,
	.open = ssh_open,
	.exec = kvb_ssh_exec,
	.push = kvb_ssh_push,
	.pull = kvb_ssh_pull,
	.reboot = ssh_reboot,
	.wait_ready = ssh_wait_ready,
	.close = ssh_close,
};
