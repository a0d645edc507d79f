/*
 * Output files given on the command line (`-o PATH`): written so that a
 * wrong path never destroys anything.
 *
 *  "-"             stdout.
 *  no such path    a temporary file beside it, renamed into place when complete
 *                  (a failure never leaves half a file).
 *  a regular file  the same, renamed over it, unless it is one of the files
 *                  the caller protects (the results DB and its -wal/-shm/-journal),
 *                  compared by device and inode, not by name (a hard link, a
 *                  relative path or a symlinked directory name the same file).
 *  a FIFO          opened and written into (no rename: a reader is waiting on
 *                  it); also through a symlink (`-o /dev/fd/N`, `<(...)`).
 *  anything else   refused: a directory, a symlink (to anything but a FIFO), a
 *                  character or block device (/dev/full, /dev/null, a tty), a
 *                  socket. Renaming over one would replace the node itself.
 *
 * struct kvb_outfile is filled by kvb_outfile_open and released by
 * kvb_outfile_close, which renames (commit) or removes (abort) the
 * temporary file. Errors: KVB_EINPUT with a message naming the path and why.
 */
#ifndef KVB_OUTFILE_H
#define KVB_OUTFILE_H

#include "core/error.h"

#include <stdio.h>

struct kvb_outfile {
	FILE *f;     /* write here */
	char *path;  /* as given (owned) */
	char *tmp;   /* the temporary file renamed over path on commit, or NULL (stdout, FIFO) */
	int is_stdout;
};

/*
 * Opens path for writing as described above. protect[0..nprotect-1] are paths
 * that must not be written (missing ones are ignored). On error nothing was
 * created and *o is empty.
 */
int kvb_outfile_open(struct kvb_outfile *o, const char *path, const char *const *protect, size_t nprotect,
		     struct kvb_error *err);

/* The checks of kvb_outfile_open without opening anything (refuse early, before work). */
int kvb_outfile_check(const char *path, const char *const *protect, size_t nprotect, struct kvb_error *err);

/*
 * Flushes and closes. commit != 0: a write error is reported, and the
 * temporary file (given mode 0666 & ~umask, as fopen would) is renamed into
 * place, after checking again that path is still a regular file or absent;
 * commit == 0 (the caller failed): the temporary file is removed. Always
 * releases *o. Returns KVB_OK or KVB_EINPUT.
 */
int kvb_outfile_close(struct kvb_outfile *o, int commit, struct kvb_error *err);

/*
 * Whether fd is a pipe, FIFO or socket whose reader went away (`| head` read what it wanted):
 * poll(2) reports POLLERR or POLLHUP on its write end. Such an end of output is not an error,
 * as git and coreutils treat it; errno after a failed stdio write may no longer say EPIPE.
 */
int kvb_reader_gone(int fd);

#endif
