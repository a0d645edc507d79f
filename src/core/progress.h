/*
 * The progress of a long step (a kernel build, a board's boot) on stderr: which one runs and
 * for how long. On a terminal one line is rewritten every second; otherwise (a log, CI) an
 * info line is printed once `every_s` has passed (the first after 30 s, so a short step prints
 * nothing). One mechanism for every long step: kbuild's build steps and the qemu board's boots.
 */
#ifndef KVB_PROGRESS_H
#define KVB_PROGRESS_H

#include <stdint.h>

struct kvb_progress {
	const char *title;  /* "build 1a2b3c4d5e6f", "boot of variant 'k', round 2"; borrowed */
	uint64_t t0_ns;     /* start, kvb_mono_ns() */
	uint64_t last_ns;   /* last line printed, 0: none yet */
	unsigned every_s;   /* seconds between lines when stderr is not a terminal (60 for builds) */
	int tty, quiet;     /* stderr is a terminal; print nothing at all */
};

/* Starts p for title (borrowed, must outlive p) now; quiet: tick and end print nothing. */
void kvb_progress_start(struct kvb_progress *p, const char *title, unsigned every_s, int quiet);
/* Prints "TITLE: N s  DETAIL" when it is time (see above); detail may be NULL. Call it often. */
void kvb_progress_tick(struct kvb_progress *p, const char *detail);
/* Whether kvb_progress_tick would print now (to skip building an expensive detail). */
int kvb_progress_due(const struct kvb_progress *p);
/* Clears the terminal line, if one was written. */
void kvb_progress_end(struct kvb_progress *p);

#endif
