/*
 * The console protocol between the test shell kvbench writes into a LAVA job
 * and the reader of that job's log (docs/design.md#pools-and-lava, docs/design.md#witnesses: a number read off a
 * console must prove it was not garbled on the way).
 *
 * On the board, command k of the unit runs as one test-shell step
 *   kvb_x k LABEL 'argv0' 'argv1' ...
 * and prints, on the serial console LAVA logs line by line:
 *   KVB-<nonce> k BEGIN
 *   KVB-<nonce> k O <stdout line>            (every line of its stdout)
 *   KVB-<nonce> k E <stderr line>            (every line of its stderr)
 *   KVB-<nonce> k RC <status> <out bytes> <out sha256|-> <err bytes> <err sha256|->
 *   KVB-<nonce> k END
 * <nonce> is 16 random hex digits per LAVA job, so neither a workload's own
 * output nor the shell's `set -x` trace of the step can forge a marker. The
 * byte counts (wc -c) and sha256 (sha256sum, "-" when the board has none) are
 * of the command's raw stdout and stderr files: the reader rebuilds both from
 * the O/E lines and compares, so a kernel message printed into the middle of a
 * line (printk writes to the console whatever the shell is doing: kernelci-core
 * PR #559) is detected, never read as output. The exit status is parsed
 * strictly (decimal 0..255, the whole field); a command whose RC line cannot be
 * parsed, whose END never came, or whose output does not match its witness is
 * reported with `bad` set and fails, never reads as exit 0.
 *
 * A garbled line is repaired only when the repair is proven: a kernel message
 * ("[ seconds.micro] text", the kernel's printk time prefix) inside a marker
 * line, with the rest of the marker line on the next non-kernel line, is taken
 * out and the line joined again; the repaired output is accepted only when its
 * sha256 matches the board's. The test shell also lowers the console loglevel
 * first (`dmesg -n LEVEL`), so printk stays off the console while it runs.
 *
 * What LAVA 2023.01 does to a console line before it is logged
 * (lava_dispatcher/shell.py ShellLogger.write): "\r" and ESC are removed, lines
 * are split at "\n". A command whose output holds those bytes therefore fails
 * its witness (strictly: nothing is guessed).
 */
#ifndef KVB_LAVA_MARKERS_H
#define KVB_LAVA_MARKERS_H

#include "core/buf.h"
#include "core/util.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#define KVB_LAVA_NONCE_LEN 16

/* A fresh nonce: 16 lowercase hex digits from getrandom() + NUL. Returns 0, or -1 (errno). */
int kvb_lava_nonce(char out[KVB_LAVA_NONCE_LEN + 1]);

/*
 * The first test-shell step: sets the console loglevel (dmesg -n console_loglevel,
 * 1..8; 0 leaves it), defines kvb_x (runs one command between markers) and
 * kvb_sum. Owned.
 */
char *kvb_lava_shell_prelude(const char *nonce, int console_loglevel);
/* The step that runs command k (argv already shell-quoted, kvb_shell_join) under label (a LAVA case name). Owned. */
char *kvb_lava_shell_step(size_t k, const char *label, const char *argv_sh);

/* One command as read back from the log. Strings are valid only during the callback. */
struct kvb_lava_cmd_out {
	size_t k;
	int rc;                /* exit status 0..255 (meaningful when bad == NULL) */
	const char *out, *err; /* stdout and stderr as the board wrote them */
	const char *bad;       /* NULL, or why the console output of this command cannot be trusted */
	unsigned repaired;     /* kernel messages taken out of its marker lines (proven by sha256) */
	int64_t begin_ns, end_ns; /* LAVA's timestamps of its BEGIN and last marker line (ns since the epoch), 0 unknown */
};

/*
 * Incremental reader of a job log's entries (cJSON {dt, lvl, msg} as
 * kvb_lava_log_parse gives them), fed in log order, possibly in several
 * pieces (a log read while the job runs). cb is called once per command
 * when its END (or the next command's BEGIN, or flush) closes it.
 */
struct kvb_lava_reader {
	char prefix[8 + KVB_LAVA_NONCE_LEN]; /* "KVB-<nonce> " */
	void (*cb)(void *arg, const struct kvb_lava_cmd_out *c);
	void *arg;
	long k;                  /* command open, or -1 */
	int64_t begin_ns, last_ns;
	struct kvb_strv lines;   /* target lines since its BEGIN, each "<kind><text>": kind O, E, R (RC), U (not ours) */
	size_t ncomplete;        /* commands closed so far (good or bad) */
	struct kvb_strv notes;   /* the test shell's own notes ("KVB-<nonce> - NOTE ...") */
	int waiting;             /* the test shell said it waits for kvbench's results ("- WAIT") */
};

void kvb_lava_reader_init(struct kvb_lava_reader *r, const char *nonce,
			  void (*cb)(void *arg, const struct kvb_lava_cmd_out *c), void *arg);
void kvb_lava_reader_feed(struct kvb_lava_reader *r, const cJSON *entries);
/* The log has ended: an open command is closed (bad: no END). */
void kvb_lava_reader_flush(struct kvb_lava_reader *r);
void kvb_lava_reader_release(struct kvb_lava_reader *r);

/* LAVA's "dt" ("2026-12-01T07:56:37.064322", UTC) in ns since the epoch; 0 when it does not parse. */
int64_t kvb_lava_dt_ns(const char *dt);

#endif
