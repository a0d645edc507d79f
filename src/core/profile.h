/*
 * A sampling profile of one job (docs/design.md#profiles): how many samples of a fixed-period
 * clock event fell in each function, as `perf report --no-children --sort dso,sym` counts them.
 * On a board whose guest clock counts instructions (QEMU -icount shift=0: 1 ns = 1 instruction)
 * one cpu-clock sample of period P ns stands for P instructions, so samples x P / operations is
 * a function's instructions per operation; elsewhere it is ns of CPU time (unit says which).
 *
 * The instrument that makes it (instrument/profile.c) hangs it on the job's struct kvb_metrics
 * (profile); the store writes it in the job's transaction (store/profile.h); `kvbench profile`
 * compares two variants' profiles by function, per operation.
 */
#ifndef KVB_PROFILE_H
#define KVB_PROFILE_H

#include <stddef.h>
#include <stdint.h>

/* One function (or, unresolved, one address) of the profile. */
struct kvb_profile_sym {
	char *dso;         /* perf's "Shared Object": "[kernel.kallsyms]", "libc.so.6", "[unknown]"; owned */
	char *symbol;      /* the name without perf's "[k] " mark: "pipe_read", or "0xffffffff81234567" when
			      perf could not resolve it; owned */
	char mode;         /* perf's mark: 'k' kernel, '.' user, 'g' guest kernel, 'u' guest user, 'H' hypervisor */
	int resolved;      /* 0: the symbol is an address (no kallsyms/symtab entry for it) */
	uint64_t samples;  /* samples that hit it */
};

struct kvb_profile {
	char *event;              /* the event perf says it sampled: "cpu-clock:I"; owned, NULL: not printed */
	uint64_t period;          /* the event's sample period: ns of the board's clock per sample; 0: unknown */
	const char *unit;         /* what samples x period counts: "instructions" (the guest clock counts
				     instructions) or "ns"; static */
	uint64_t samples;         /* sum of every row's samples */
	uint64_t event_count;     /* perf's "# Event count (approx.)": samples x period for a fixed period; 0: absent */
	int64_t lost;             /* samples perf says it lost ("# Total Lost Samples"), -1: not printed */
	int64_t lost_chunks;      /* PERF_RECORD_LOST records (ring buffer overflows, "lost M chunks"), 0: none */
	double lost_pct;          /* perf's "samples and lost X%" warning, 0: none */
	uint64_t kernel_samples;  /* samples of mode 'k' */
	uint64_t kernel_resolved; /* of those, samples resolved to a symbol */
	double ops;               /* the workload's operations in the job (sched_pipe loops), 0: unknown */
	char *op_name;            /* what one operation is ("loop"); owned, NULL when ops is 0 */
	struct kvb_profile_sym *v; /* by samples, most first (ties by symbol) */
	size_t n, alloc;
};

void kvb_profile_free(struct kvb_profile *p);

/*
 * Parses the text `perf report --stdio --no-children -n` prints (perf 3.x to 6.x): the header
 * lines "# Total Lost Samples: N", "# Samples: 13K of event 'cpu-clock:I'", "# Event count
 * (approx.): N", the column titles ("# Overhead  Samples  [Command]  Shared Object  Symbol")
 * and the rows, either padded (columns found from the "# ....  ...." rule under the titles) or
 * split by the `-t SEP` field separator. Rows of the same dso and symbol (other commands) are
 * summed. Needs the Samples (-n) and Symbol columns. Returns a new profile (unit "ns", period
 * 0, ops 0: the caller sets them), or NULL with why (n bytes) filled: no Samples column, no
 * row, a second event's report in the same text, a row that does not parse (its line number).
 * Format: tools/perf/ui/stdio/hist.c and builtin-report.c, checked on the real outputs in
 * tests/fixtures/field/perf-report.
 */
struct kvb_profile *kvb_perf_report_parse(const char *text, char *why, size_t n);

/*
 * What perf prints on stderr when the ring buffer overflowed during `perf record` (perf
 * report's warning, tools/perf/util/session.c: "Processed N events and lost M chunks!"): M, or
 * 0 when it did not say so.
 */
int64_t kvb_perf_lost_chunks(const char *err_text);
/*
 * perf's other loss warning (PERF_RECORD_LOST_SAMPLES, tools/perf/util/session.c): "Processed N
 * samples and lost 15,96%!" (the locale's decimal mark): the percentage, 0 when not said.
 */
double kvb_perf_lost_pct(const char *err_text);

#endif
