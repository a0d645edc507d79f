/* Implements the ssh target's files over SFTP: push and pull of a file or a tree, each step against SSH_IO_TIMEOUT_MS. */
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

/* ---- SFTP ---------------------------------------------------------------------------------------- */

static const char *fx_text(unsigned long fx)
{
	switch (fx) {
	case LIBSSH2_FX_NO_SUCH_FILE:
	case LIBSSH2_FX_NO_SUCH_PATH:
		return "no such file or directory";
	case LIBSSH2_FX_PERMISSION_DENIED:
		return "permission denied";
	case LIBSSH2_FX_FILE_ALREADY_EXISTS:
		return "file exists";
	case LIBSSH2_FX_WRITE_PROTECT:
		return "read-only file system";
	case LIBSSH2_FX_NO_SPACE_ON_FILESYSTEM:
	case LIBSSH2_FX_QUOTA_EXCEEDED:
		return "no space left";
	case LIBSSH2_FX_NOT_A_DIRECTORY:
		return "not a directory";
	case LIBSSH2_FX_DIR_NOT_EMPTY:
		return "directory not empty";
	default:
		return "sftp failure";
	}
}

/* SFTP status of the last failed call (LIBSSH2_FX_*), or 0 when the failure was not an SFTP status. */
static unsigned long sftp_status(struct ssh_state *st)
{
	return libssh2_session_last_errno(st->s) == LIBSSH2_ERROR_SFTP_PROTOCOL ? libssh2_sftp_last_error(st->sftp) : 0;
}

static int sftp_fail(struct ssh_state *st, enum kvb_ssh_wait w, const char *what, const char *path,
		     struct kvb_error *err)
{
	char buf[600];
	unsigned long fx = w == W_RETRY ? sftp_status(st) : 0;
	snprintf(buf, sizeof(buf), "cannot %s '%s' on '%s'", what, path, st->c.host);
	if (fx)
		return kvb_error_set(err, KVB_ETARGET, "%s: %s", buf, fx_text(fx));
	return kvb_ssh_fail(st, w, SSH_IO_TIMEOUT_MS, buf, err);
}

static int sftp_ready(struct ssh_state *st, struct kvb_error *err)
{
	enum kvb_ssh_wait w = W_RETRY;
	int rc = kvb_ssh_ensure(st, err);
	if (rc || st->sftp)
		return rc;
	kvb_ssh_op_begin(st);
	SSH_CALLP(st, st->sftp, libssh2_sftp_init(st->s), kvb_ssh_deadline_after(SSH_IO_TIMEOUT_MS), w);
	if (!st->sftp)
		return kvb_ssh_fail(st, w, SSH_IO_TIMEOUT_MS, "cannot start sftp", err);
	return KVB_OK;
}

/* Remote stat (follows symlinks). Returns 0, or the SFTP status / -1 on other failures. */
static long sftp_stat(struct ssh_state *st, const char *path, LIBSSH2_SFTP_ATTRIBUTES *a, enum kvb_ssh_wait *w)
{
	int rc;
	*w = W_RETRY;
	SSH_CALL(st, rc, libssh2_sftp_stat_ex(st->sftp, path, (unsigned)strlen(path), LIBSSH2_SFTP_STAT, a),
		 kvb_ssh_deadline_after(SSH_IO_TIMEOUT_MS), *w);
	if (!rc)
		return 0;
	return rc == LIBSSH2_ERROR_EAGAIN ? -1 : sftp_status(st) ? (long)sftp_status(st) : -1;
}

/* Creates a remote directory; an existing directory is fine. */
static int sftp_mkdir(struct ssh_state *st, const char *path, long mode, struct kvb_error *err)
{
	LIBSSH2_SFTP_ATTRIBUTES a;
	enum kvb_ssh_wait w = W_RETRY;
	int rc;
	SSH_CALL(st, rc, libssh2_sftp_mkdir_ex(st->sftp, path, (unsigned)strlen(path), mode),
		 kvb_ssh_deadline_after(SSH_IO_TIMEOUT_MS), w);
	if (!rc)
		return KVB_OK;
	if (rc == LIBSSH2_ERROR_EAGAIN || !sftp_status(st))
		return sftp_fail(st, w, "create directory", path, err);
	if (!sftp_stat(st, path, &a, &w) && LIBSSH2_SFTP_S_ISDIR(a.permissions))
		return KVB_OK;
	return kvb_error_set(err, KVB_ETARGET, "cannot create directory '%s' on '%s': it exists and is not a directory",
			     path, st->c.host);
}

/* mkdir -p of the directory part of path. */
static int sftp_mkdir_parents(struct ssh_state *st, const char *path, struct kvb_error *err)
{
	char *p = kvb_xstrdup(path);
	int rc = KVB_OK;
	for (char *s = strchr(p + 1, '/'); s && !rc; s = strchr(s + 1, '/')) {
		*s = '\0';
		rc = sftp_mkdir(st, p, 0755, err);
		*s = '/';
	}
	free(p);
	return rc;
}

static int push_file(struct ssh_state *st, const char *local, const char *remote, mode_t mode, struct kvb_error *err)
{
	LIBSSH2_SFTP_HANDLE *h = NULL;
	LIBSSH2_SFTP_ATTRIBUTES a = { .flags = LIBSSH2_SFTP_ATTR_PERMISSIONS, .permissions = mode & 07777 };
	enum kvb_ssh_wait w = W_RETRY;
	char *buf = NULL;
	ssize_t n;
	int fd = open(local, O_RDONLY | O_CLOEXEC), rc = KVB_OK, tries;
	unsigned long flags = LIBSSH2_FXF_WRITE | LIBSSH2_FXF_CREAT | LIBSSH2_FXF_TRUNC;

	if (fd < 0)
		return kvb_error_set(err, KVB_ETARGET, "cannot read '%s': %s", local, strerror(errno));
	for (tries = 0; tries < 2; tries++) {
		SSH_CALLP(st, h, libssh2_sftp_open_ex(st->sftp, remote, (unsigned)strlen(remote), flags, mode & 0777,
						      LIBSSH2_SFTP_OPENFILE),
			  kvb_ssh_deadline_after(SSH_IO_TIMEOUT_MS), w);
		if (h || tries || w != W_RETRY || sftp_status(st) != LIBSSH2_FX_NO_SUCH_FILE)
			break;
		rc = sftp_mkdir_parents(st, remote, err); /* the parent is missing: create it, once */
		if (rc)
			goto out;
	}
	if (!h) {
		rc = sftp_fail(st, w, "create", remote, err);
		goto out;
	}
	/*
	 * libssh2_sftp_write() sends the whole buffer it is given as pipelined
	 * requests and returns how much the server acknowledged; the next call
	 * must pass the unacknowledged rest first. Keeping that rest at the front
	 * of a buffer that is topped up from the file before every call keeps the
	 * pipeline full instead of draining it once per chunk.
	 */
	buf = kvb_xmalloc(SSH_PUSH_BUF);
	{
		size_t head = 0, tail = 0; /* unacknowledged bytes are buf[head, tail) */
		int eof = 0;
		for (;;) {
			ssize_t m;
			if (head > SSH_PUSH_BUF / 2) { /* compact rarely: each byte moves at most once */
				memmove(buf, buf + head, tail - head);
				tail -= head;
				head = 0;
			}
			while (!eof && SSH_PUSH_BUF - tail >= SSH_IO_CHUNK) {
				n = read(fd, buf + tail, SSH_IO_CHUNK);
				if (n < 0 && errno == EINTR)
					continue;
				if (n < 0) {
					rc = kvb_error_set(err, KVB_ETARGET, "cannot read '%s': %s", local, strerror(errno));
					goto out;
				}
				eof = n == 0;
				tail += (size_t)n;
			}
			if (head == tail && eof)
				break;
			w = W_RETRY;
			m = libssh2_sftp_write(h, buf + head, tail - head);
			if (m == LIBSSH2_ERROR_EAGAIN && (w = kvb_ssh_wait(st, kvb_ssh_deadline_after(SSH_IO_TIMEOUT_MS))) == W_RETRY)
				continue;
			if (m < 0) {
				rc = sftp_fail(st, m == LIBSSH2_ERROR_EAGAIN ? w : W_RETRY, "write", remote, err);
				goto out;
			}
			head += (size_t)m;
		}
	}
	/* The server applies its umask on create and keeps the mode of an existing file: set it exactly. */
	SSH_CALL(st, rc, libssh2_sftp_fsetstat(h, &a), kvb_ssh_deadline_after(SSH_IO_TIMEOUT_MS), w);
	if (rc)
		rc = sftp_fail(st, rc == LIBSSH2_ERROR_EAGAIN ? w : W_RETRY, "set the mode of", remote, err);
out:
	if (h) {
		int crc;
		SSH_CALL(st, crc, libssh2_sftp_close_handle(h), kvb_ssh_deadline_after(SSH_IO_TIMEOUT_MS), w);
		if (crc && !rc)
			rc = sftp_fail(st, crc == LIBSSH2_ERROR_EAGAIN ? w : W_RETRY, "close", remote, err);
	}
	free(buf);
	close(fd);
	return rc;
}

static int push_tree(struct ssh_state *st, const char *local, const char *remote, struct kvb_error *err)
{
	struct stat sb;
	DIR *d;
	struct dirent *e;
	int rc;
	kvb_ssh_op_begin(st);
	if (stat(local, &sb))
		return kvb_error_set(err, KVB_ETARGET, "cannot push '%s': %s", local, strerror(errno));
	if (S_ISREG(sb.st_mode))
		return push_file(st, local, remote, sb.st_mode, err);
	if (!S_ISDIR(sb.st_mode)) {
		kvb_warn("ssh: skipping '%s': not a regular file or directory", local);
		return KVB_OK;
	}
	rc = sftp_mkdir(st, remote, sb.st_mode & 0777, err);
	if (rc)
		return rc;
	d = opendir(local);
	if (!d)
		return kvb_error_set(err, KVB_ETARGET, "cannot read '%s': %s", local, strerror(errno));
	while (!rc && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *l = kvb_xasprintf("%s/%s", local, e->d_name), *r = kvb_xasprintf("%s/%s", remote, e->d_name);
		rc = push_tree(st, l, r, err);
		free(l);
		free(r);
	}
	closedir(d);
	return rc;
}

static int pull_file(struct ssh_state *st, const char *remote, const char *local, unsigned long mode,
		     struct kvb_error *err)
{
	LIBSSH2_SFTP_HANDLE *h = NULL;
	enum kvb_ssh_wait w = W_RETRY;
	char *buf = NULL;
	int fd = -1, rc = KVB_OK;

	SSH_CALLP(st, h, libssh2_sftp_open_ex(st->sftp, remote, (unsigned)strlen(remote), LIBSSH2_FXF_READ, 0,
					      LIBSSH2_SFTP_OPENFILE),
		  kvb_ssh_deadline_after(SSH_IO_TIMEOUT_MS), w);
	if (!h)
		return sftp_fail(st, w, "open", remote, err);
	fd = open(local, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode_t)(mode & 0777));
	if (fd < 0) {
		rc = kvb_error_set(err, KVB_ETARGET, "cannot create '%s': %s", local, strerror(errno));
		goto out;
	}
	if (fchmod(fd, (mode_t)(mode & 07777)))
		kvb_warn("ssh: cannot set the mode of '%s': %s", local, strerror(errno));
	buf = kvb_xmalloc(SSH_IO_CHUNK);
	for (;;) {
		ssize_t n;
		SSH_CALL(st, n, libssh2_sftp_read(h, buf, SSH_IO_CHUNK), kvb_ssh_deadline_after(SSH_IO_TIMEOUT_MS), w);
		if (n == 0)
			break;
		if (n < 0) {
			rc = sftp_fail(st, n == LIBSSH2_ERROR_EAGAIN ? w : W_RETRY, "read", remote, err);
			goto out;
		}
		for (ssize_t off = 0; off < n;) {
			ssize_t m = write(fd, buf + off, (size_t)(n - off));
			if (m < 0 && errno == EINTR)
				continue;
			if (m < 0) {
				rc = kvb_error_set(err, KVB_ETARGET, "cannot write '%s': %s", local, strerror(errno));
				goto out;
			}
			off += m;
		}
	}
out:
	{
		int crc;
		SSH_CALL(st, crc, libssh2_sftp_close_handle(h), kvb_ssh_deadline_after(SSH_IO_TIMEOUT_MS), w);
		(void)crc;
	}
	if (fd >= 0 && close(fd) && !rc)
		rc = kvb_error_set(err, KVB_ETARGET, "cannot write '%s': %s", local, strerror(errno));
	free(buf);
	return rc;
}

/* Lists a remote directory's entry names (without . and ..). */
static int sftp_list(struct ssh_state *st, const char *remote, struct kvb_strv *names, struct kvb_error *err)
{
	LIBSSH2_SFTP_HANDLE *h;
	enum kvb_ssh_wait w = W_RETRY;
	char name[4096];
	int rc = KVB_OK, n, crc;
	SSH_CALLP(st, h, libssh2_sftp_open_ex(st->sftp, remote, (unsigned)strlen(remote), 0, 0, LIBSSH2_SFTP_OPENDIR),
		  kvb_ssh_deadline_after(SSH_IO_TIMEOUT_MS), w);
	if (!h)
		return sftp_fail(st, w, "open directory", remote, err);
	for (;;) {
		LIBSSH2_SFTP_ATTRIBUTES a;
		SSH_CALL(st, n, libssh2_sftp_readdir_ex(h, name, sizeof(name), NULL, 0, &a), kvb_ssh_deadline_after(SSH_IO_TIMEOUT_MS),
			 w);
		if (n == 0)
			break;
		if (n < 0) {
			rc = sftp_fail(st, n == LIBSSH2_ERROR_EAGAIN ? w : W_RETRY, "read directory", remote, err);
			break;
		}
		if (strcmp(name, ".") && strcmp(name, ".."))
			kvb_strv_push(names, name);
	}
	SSH_CALL(st, crc, libssh2_sftp_close_handle(h), kvb_ssh_deadline_after(SSH_IO_TIMEOUT_MS), w);
	(void)crc;
	return rc;
}

static int pull_tree(struct ssh_state *st, const char *remote, const char *local, struct kvb_error *err)
{
	LIBSSH2_SFTP_ATTRIBUTES a;
	struct kvb_strv names = KVB_STRV_INIT;
	enum kvb_ssh_wait w;
	int rc;
	kvb_ssh_op_begin(st);
	if (sftp_stat(st, remote, &a, &w))
		return sftp_fail(st, w, "read", remote, err);
	if (LIBSSH2_SFTP_S_ISREG(a.permissions))
		return pull_file(st, remote, local, a.permissions, err);
	if (!LIBSSH2_SFTP_S_ISDIR(a.permissions)) {
		kvb_warn("ssh: skipping '%s' on '%s': not a regular file or directory", remote, st->c.host);
		return KVB_OK;
	}
	if (kvb_mkdir_p(local, 0755))
		return kvb_error_set(err, KVB_ETARGET, "cannot create '%s': %s", local, strerror(errno));
	rc = sftp_list(st, remote, &names, err);
	for (size_t i = 0; !rc && i < names.n; i++) {
		char *r = kvb_xasprintf("%s/%s", remote, names.v[i]), *l = kvb_xasprintf("%s/%s", local, names.v[i]);
		rc = pull_tree(st, r, l, err);
		free(r);
		free(l);
	}
	kvb_strv_release(&names);
	return rc;
}

int kvb_ssh_push(struct kvb_target *t, const char *local, const char *remote, struct kvb_error *err)
{
	struct ssh_state *st = t->priv;
	int rc;
	st->cancel = t->cancel;
	rc = sftp_ready(st, err);
	if (!rc)
		rc = push_tree(st, local, remote, err);
	return rc;
}

int kvb_ssh_pull(struct kvb_target *t, const char *remote, const char *local, struct kvb_error *err)
{
	struct ssh_state *st = t->priv;
	int rc;
	st->cancel = t->cancel;
	rc = sftp_ready(st, err);
	if (!rc)
		rc = pull_tree(st, remote, local, err);
	return rc;
}
