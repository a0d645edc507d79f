/* Implements output files that cannot destroy what their path names (outfile.h). */
#include "core/outfile.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind(mode_t m)
{
	return S_ISDIR(m)    ? "a directory"
	       : S_ISLNK(m)  ? "a symbolic link"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
	       : S_ISFIFO(m) ? "a FIFO"
			     : "not a regular file";
}

/* KVB_EINPUT when the regular file st is one of protect[] (same device and inode). */
static int check_protected(const char *path, const struct stat *st, const char *const *protect, size_t n,
			   struct kvb_error *err)
{
	for (size_t i = 0; i < n; i++) {
		struct stat p;
		if (protect[i] && !stat(protect[i], &p) && p.st_dev == st->st_dev && p.st_ino == st->st_ino)
			return kvb_error_set(err, KVB_EINPUT,
					     "-o '%s' is the results database '%s' itself (the same file): refusing to "
					     "overwrite it; give another path",
					     path, protect[i]);
	}
	return KVB_OK;
}

static int refuse(const char *path, mode_t m, struct kvb_error *err)
{
	return kvb_error_set(err, KVB_EINPUT,
			     "-o '%s' exists and is %s: refusing to replace it (give a new path, a regular file, a FIFO, "
			     "or '-' for stdout)",
			     path, kind(m));
}

/* Whether path may be renamed over now: absent, or a regular file not protected. */
static int check_target(const char *path, const char *const *protect, size_t n, int *fifo, struct kvb_error *err)
{
	struct stat st;
	*fifo = 0;
	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return KVB_OK;
		return kvb_error_set(err, KVB_EINPUT, "cannot write '%s': %s", path, strerror(errno));
	}
	if (S_ISREG(st.st_mode))
		return check_protected(path, &st, protect, n, err);
	if (S_ISFIFO(st.st_mode)) {
		*fifo = 1;
		return KVB_OK;
	}
	if (S_ISLNK(st.st_mode)) {
		struct stat t;
		/* `-o /dev/fd/N` and `<(...)` name a pipe through a link: written into, never replaced */
		if (!stat(path, &t) && S_ISFIFO(t.st_mode)) {
			*fifo = 1;
			return KVB_OK;
		}
	}
	return refuse(path, st.st_mode, err);
}

int kvb_outfile_check(const char *path, const char *const *protect, size_t nprotect, struct kvb_error *err)
{
	int fifo;
	return strcmp(path, "-") ? check_target(path, protect, nprotect, &fifo, err) : KVB_OK;
}

int kvb_outfile_open(struct kvb_outfile *o, const char *path, const char *const *protect, size_t nprotect,
		     struct kvb_error *err)
{
	int fifo, fd, rc;
	memset(o, 0, sizeof(*o));
	if (!strcmp(path, "-")) {
		o->f = stdout;
		o->is_stdout = 1;
		o->path = kvb_xstrdup(path);
		return KVB_OK;
	}
	if ((rc = check_target(path, protect, nprotect, &fifo, err)))
		return rc;
	if (fifo) {
		/* no O_CREAT, no O_TRUNC: it is written into as it is */
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			struct stat st;
			if (fstat(fd, &st) || !S_ISFIFO(st.st_mode)) {
				close(fd);
				return kvb_error_set(err, KVB_EINPUT, "-o '%s' changed while it was opened: not written", path);
			}
		}
		if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
			rc = kvb_error_set(err, KVB_EINPUT, "cannot write '%s': %s", path, strerror(errno));
			if (fd >= 0)
				close(fd);
			return rc;
		}
		o->path = kvb_xstrdup(path);
		return KVB_OK;
	}
	o->tmp = kvb_xasprintf("%s.XXXXXX", path);
	fd = mkstemp(o->tmp);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		rc = kvb_error_set(err, KVB_EINPUT, "cannot write '%s': %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		free(o->tmp);
		memset(o, 0, sizeof(*o));
		return rc;
	}
	o->path = kvb_xstrdup(path);
	return KVB_OK;
}

int kvb_reader_gone(int fd)
{
	struct stat st;
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	if (fd < 0 || fstat(fd, &st) || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return 0;
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

int kvb_outfile_close(struct kvb_outfile *o, int commit, struct kvb_error *err)
{
	int rc = KVB_OK, fifo;
	if (!o->f)
		goto out;
	if (fflush(o->f) || ferror(o->f)) {
		int e = errno;
		if (!o->tmp && (e == EPIPE || kvb_reader_gone(fileno(o->f))))
			clearerr(o->f); /* stdout or a FIFO whose reader left: not an error */
		else
			rc = commit ? kvb_error_set(err, KVB_EOUTPUT, "cannot write '%s': %s", o->path, strerror(e))
				    : KVB_OK;
	}
	if (!o->is_stdout && fclose(o->f) && commit && !rc)
		rc = kvb_error_set(err, KVB_EINPUT, "cannot write '%s': %s", o->path, strerror(errno));
	if (o->tmp) {
		if (commit && !rc) {
			/* mkstemp made it 0600: give the file the mode a plain fopen would have */
			mode_t um = umask(0);
			umask(um);
			chmod(o->tmp, 0666 & ~um);
		}
		/* the path may have changed since it was opened: rename only over a regular file (or nothing) */
		if (commit && !rc && !(rc = check_target(o->path, NULL, 0, &fifo, err)) && fifo)
			rc = kvb_error_set(err, KVB_EINPUT, "-o '%s' became a FIFO while it was written: not replaced", o->path);
		if (commit && !rc && rename(o->tmp, o->path))
			rc = kvb_error_set(err, KVB_EINPUT, "cannot rename '%s' to '%s': %s", o->tmp, o->path, strerror(errno));
		if (!commit || rc)
			unlink(o->tmp);
	}
out:
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
	return rc;
}
