/*
 * adb without shell protocol v2 (adbd before Android N, or a device whose
 * feature list lacks "shell_v2"): the legacy `shell:` service runs the
 * command on a pty, so every "\n" arrives as "\r\n" (the tty's ONLCR),
 * stderr is merged into stdout, and adb exits 0 whatever the command did
 * (WA3 PR #119 and #132, devlib PR #86, ya-webadb issue #412). kvbench then
 * sends the command as
 *     E=WORKDIR/.kvb-err-$$; (ARGV) 2>"$E"; rc=$?; echo; echo STDERR_MARK;
 *     cat "$E"; rm -f "$E"; echo; echo EXIT_MARK$rc
 * and splits the answer back into stdout, stderr and the exit status.
 */
#ifndef KVB_ADB_LEGACY_H
#define KVB_ADB_LEGACY_H

#include "core/buf.h"
#include "core/spawn.h"

#define KVB_ADB_ERR_MARK "kvb-adb-stderr:"

/* Undoes the pty's ONLCR in place: every "\r\n" becomes "\n" (a lone "\r" stays). */
void kvb_adb_crlf_to_lf(struct kvb_buf *b);
/* 1 when `adb features` output lists shell_v2 (one feature per line, or comma-separated). */
int kvb_adb_features_have_shell_v2(const char *features);
/* Appends the legacy command text (see above) for the already-joined command cmd to out. */
void kvb_adb_legacy_wrap(struct kvb_buf *out, const char *joined_cmd, const char *workdir, const char *exit_mark);
/*
 * Splits a legacy answer (in r->out, CRLF already undone, exit marker already
 * taken) into r->out and r->err at the last "\n" STDERR_MARK "\n". Returns 0
 * when the stderr mark is missing (the answer is left as it is).
 */
int kvb_adb_legacy_split(struct kvb_exec_result *r);

#endif
