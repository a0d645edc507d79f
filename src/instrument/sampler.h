/*
 * A sampler on the target: a shell loop that, from an instrument's start to its stop, appends a
 * snapshot of some files to a file in the job's remote directory, so counters are seen during
 * the job and not only at its ends (counter.h: a reset or a hotplug between two end readings
 * can otherwise pass for movement).
 *
 * Output (what kvb_snapshots_next() splits): a header "# sampler HOW" (how it paces itself,
 * kvb_util_pace), then per snapshot "uptime SECONDS" (/proc/uptime of the board, centiseconds),
 * what the snapshot body printed, and a line "---". A snapshot cut by the stop has no "---"
 * and is not returned. The loop does not trust `sleep` with fractions (boards whose sleep has
 * none): it times a `sleep 0.2` against /proc/uptime first, then `usleep`, else whole seconds
 * (cpu_util.c says why).
 *
 * The body is a fixed shell function text of the instrument (never built from user input);
 * what it reads comes as its positional parameters (paths under the platform's sysfs_root).
 */
#ifndef KVB_SAMPLER_H
#define KVB_SAMPLER_H

#include "core/error.h"
#include "target/target.h"

struct kvb_sampler {
	long pid;        /* the loop on the target, 0 when not running */
	char *remote;    /* its output file on the target */
};

/*
 * Starts the loop: every interval_ms, `snap ARGS...` where snap() { BODY }. remote: the file to
 * append to (in the job's remote dir). args: NULL-terminated. s is zeroed first.
 */
int kvb_sampler_start(struct kvb_sampler *s, struct kvb_target *t, const char *remote, unsigned interval_ms,
		      const char *body, const char *const *args, struct kvb_error *err);
/* Stops the loop (TERM, then KILL after 2 s). Its file stays for kvb_sampler_text. */
int kvb_sampler_stop(struct kvb_sampler *s, struct kvb_target *t, struct kvb_error *err);
/* The loop's output so far (cat); *text owned by the caller. A loop that wrote nothing gives "". */
int kvb_sampler_text(const struct kvb_sampler *s, struct kvb_target *t, char **text, struct kvb_error *err);
/* Kills a loop still running (cleanup paths) and frees s's strings. */
void kvb_sampler_release(struct kvb_sampler *s, struct kvb_target *t);

/*
 * Splits sampler output: from *cursor, the next whole snapshot. *uptime_s its uptime line (-1
 * when it had none), *body (owned by the caller) what the body printed. Returns 0, or -1 at
 * the end. Lines before the first "uptime" (the header) are skipped.
 */
int kvb_snapshots_next(const char **cursor, double *uptime_s, char **body);

#endif
