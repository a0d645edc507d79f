/*
 * Instructions counted by block (docs/profile.md#counting-every-instruction): the client of
 * kvbench's QEMU plugin (qemu-plugin/kvb_tbcount.c), its dumps, the difference of two dumps (a
 * window) and that window's instructions by function of a symbol table in kallsyms' format
 * (`/proc/kallsyms`, or `nm`'s output: "ADDRESS TYPE NAME [MODULE]").
 */
#ifndef KVB_TBCOUNT_H
#define KVB_TBCOUNT_H

#include "core/error.h"
#include "core/profile.h"

#include <stddef.h>
#include <stdint.h>

/* What a board's instruction counter said at one request (target.h ops->insn_counter). */
struct kvb_insn_count {
	uint64_t records;      /* translated blocks that ran so far (the lines written) */
	uint64_t instructions; /* guest instructions run since the board started */
	int full;              /* 1: the counter ran out of room for new blocks (later ones uncounted) */
};

/*
 * One request to the plugin listening on the unix socket sock: "dump PATH" when dump_path is
 * non-NULL (the plugin writes its counts there), else "total"; its answer "ok RECORDS
 * INSTRUCTIONS [full]" fills c. KVB_ETARGET with why (no socket, no answer within 60 s, the
 * plugin's "error WHY").
 */
int kvb_tbcount_request(const char *sock, const char *dump_path, struct kvb_insn_count *c, struct kvb_error *err);

/* One block of a dump: its first instruction's and its end's guest virtual addresses, its
 * instructions, and how many times it ran (summed over the translations of the same block). */
struct kvb_tb {
	uint64_t start, end, insns, execs;
};

struct kvb_tb_dump {
	struct kvb_tb *v; /* by (start, end, insns), each once */
	size_t n;
};

/* Reads a dump ("START END INSNS EXECS" lines, hex hex dec dec). KVB_EINPUT naming path:line. */
int kvb_tb_dump_read(const char *path, struct kvb_tb_dump *d, struct kvb_error *err);
void kvb_tb_dump_release(struct kvb_tb_dump *d);

/* A window's instructions, besides the profile's rows (kvb_tb_window_profile). */
struct kvb_tb_window {
	uint64_t instructions; /* every instruction of the window */
	uint64_t kernel;       /* of those, in blocks at kernel addresses (>= KVB_TB_KERNEL_BASE) */
	uint64_t resolved;     /* of the kernel's, in blocks a symbol of the table holds */
	uint64_t crossing;     /* in blocks whose instructions run past the next symbol's address (counted to
				* the block's first function) */
	uint64_t negative;     /* executions a block had in the first dump and not in the second (0 unless
				* the dumps are not of one board in order) */
};

/* A counted profile's event (struct kvb_profile.event, stored): not a perf event's name. */
#define KVB_TB_EVENT "counted instructions"

/* x86-64's kernel half of the address space (canonical addresses from here up). */
#define KVB_TB_KERNEL_BASE 0xffff800000000000ull

/*
 * The window between dumps a (earlier; NULL: from the board's start) and b as a profile: per
 * function of syms (kallsyms text: lines "ADDRESS TYPE NAME [MODULE]"; text symbols, types t T
 * w W, are the functions), instructions = sum over the window's blocks of insns x (executions in
 * b - in a), each block counted to the function holding its first instruction. Kernel blocks
 * (KVB_TB_KERNEL_BASE and up) are mode 'k', dso "[kernel.kallsyms]" (or "[MODULE]"); a kernel
 * block below every symbol is its own row "0xADDR", unresolved. Blocks in user space are mode
 * '.' and resolved to syms' user-space symbols when it has any (a program's `nm`), else one row
 * "(user space)" of dso "[user]". Returns the profile (event KVB_TB_EVENT, period 1, unit
 * "instructions", rows by instructions, most first) and fills w; NULL with why when syms has
 * no text symbol.
 */
struct kvb_profile *kvb_tb_window_profile(const struct kvb_tb_dump *a, const struct kvb_tb_dump *b, const char *syms,
					  struct kvb_tb_window *w, char *why, size_t n);

#endif
