/*
 * `kvbench profile`: two variants' sampling profiles compared by function, per operation
 * (docs/profile.md). For each workload spec whose jobs have a profile in both, each function's
 * samples summed over the variant's compared jobs, times the period, over the operations those
 * jobs ran: instructions per operation on an instruction-clock board (ns elsewhere), A, B, B - A
 * and its two-sigma counting error, rows by |B - A|, the top N.
 */
#ifndef KVB_PROFILE_DIFF_H
#define KVB_PROFILE_DIFF_H

#include "core/profile.h"
#include "store/store.h"

#include <stdio.h>

struct kvb_profile_diff_opts {
	int64_t run_id;        /* 0: the latest run */
	const char *a, *b;     /* variants; NULL: the run's first two with profiles (b NULL with a set: a alone) */
	const char *workload;  /* only specs of this workload, or NULL */
	size_t top;            /* rows per spec (0: all) */
};

/* One function's row: its per-operation value in A and B and their difference. */
struct kvb_profile_diff_row {
	char *name;           /* the kernel function, or "symbol (dso)" for user space; owned */
	double a, b;          /* samples x period / operations of each side (per job when ops are unknown) */
	double diff, err2;    /* b - a, and two standard deviations of it (Poisson counts: sqrt(n) x period / ops) */
};

/*
 * The rows of two summed profiles (store/profile.h kvb_store_profile_sum), all functions of
 * either, sorted by |diff| then name; b may be NULL (a alone: diff = a). ja, jb: the jobs each
 * sums (the divisor when its ops are unknown). *n rows, owned by the caller (free each name).
 */
struct kvb_profile_diff_row *kvb_profile_diff_rows(const struct kvb_profile *a, size_t ja, const struct kvb_profile *b,
						   size_t jb, size_t *n);

/*
 * Prints the comparison for every spec of the run with profiles (o->workload filters) to out.
 * Errors: KVB_ENOTFOUND (no run, no profile, a variant without one), KVB_EINPUT (profiles of
 * different periods or clocks), KVB_ESTORE.
 */
int kvb_profile_diff_print(struct kvb_store *s, const struct kvb_profile_diff_opts *o, FILE *out, struct kvb_error *err);

#endif
