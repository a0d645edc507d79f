/*
 * The profile instrument's counting method (docs/profile.md#counting-every-instruction): on a
 * board that counts every guest instruction by block (target.h ops->insn_counter: QEMU with
 * kvbench's TCG plugin), the job's window is the difference of two dumps of the counts, taken at
 * start and at stop, mapped to the functions of the guest's /proc/kallsyms. Code that runs with
 * interrupts off is counted where it runs, which a cpu-clock sample cannot do.
 */
#ifndef KVB_PROFILE_COUNT_H
#define KVB_PROFILE_COUNT_H

#include "core/error.h"
#include "core/profile.h"
#include "core/tbcount.h"
#include "core/witness.h"
#include "instrument/instrument.h"

/* The guest's clocks at one end of the window: /proc/uptime, both fields in ns (10 ms steps). */
struct kvb_guest_clock {
	uint64_t up_ns;   /* since boot */
	uint64_t idle_ns; /* idle, summed over the CPUs (tick accounting) */
};

/* One counted window's state between start and stop. */
struct kvb_pcount {
	char *dump0, *dump1;           /* local dump files; owned */
	struct kvb_insn_count c0, c1;  /* the counter's answers at start and at stop */
	struct kvb_guest_clock g0, g1; /* the guest's clocks read just before start's dump and just after stop's */
};

/* Start: the guest's clocks, then the first dump. */
int kvb_pcount_start(struct kvb_instr_ctx *c, struct kvb_pcount *s, struct kvb_error *err);
/* Stop: the second dump, then the guest's clocks. */
int kvb_pcount_stop(struct kvb_instr_ctx *c, struct kvb_pcount *s, struct kvb_error *err);
/* Collect: the window by function (guest's /proc/kallsyms), judged (kvb_pcount_judge); the window's
 * blocks kept as the artifact NAME.blocks.txt (kind "profile"). *out: the profile, owned. */
int kvb_pcount_collect(struct kvb_instr_ctx *c, struct kvb_pcount *s, struct kvb_profile **out, struct kvb_error *err);
void kvb_pcount_release(struct kvb_pcount *s);

struct kvb_pcount_limits {
	const char *name;          /* the instance's name, in subjects */
	double max_clock_gap_pct;  /* |instructions - busy guest ns| allowed, % of the busy ns */
	double min_resolved_pct;   /* kernel instructions that must resolve to a function, % */
};

/*
 * The counted window's witnesses (kind "profile"): what was counted (every instruction), the
 * counter's own state (refused when it ran out of room or its dumps go backwards), the guest's
 * clock (on the instruction-clock board a busy guest's ns are its instructions: refused when the
 * window's instructions and the guest's busy ns, elapsed minus idle from /proc/uptime, differ by
 * more than max_clock_gap_pct), kernel instructions resolved to a function, blocks crossing a
 * symbol (said, never refused). KVB_OK, or KVB_ETARGET with the refused witness's detail.
 */
int kvb_pcount_judge(const struct kvb_tb_window *win, const struct kvb_insn_count *c0, const struct kvb_insn_count *c1,
		     const struct kvb_guest_clock *g0, const struct kvb_guest_clock *g1,
		     const struct kvb_pcount_limits *lim, struct kvb_witnesses *w, struct kvb_error *err);

/* Parses /proc/uptime ("350735.47 234388.90"): 0, or -1 when it is not two numbers. */
int kvb_guest_clock_parse(const char *text, struct kvb_guest_clock *g);

#endif
