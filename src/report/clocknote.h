/*
 * What the numbers of a run on a board with an instruction clock mean (issue 27,
 * docs/design.md#noise): on a QEMU board with `connection.clock: instructions` (-icount shift=0) guest time
 * counts instructions, so a time is a path length, it repeats between boots, and a
 * difference of a few instructions per operation is real. diff and report say so above
 * the table, with the unit of the comparison and what such a board cannot see.
 */
#ifndef KVB_REPORT_CLOCKNOTE_H
#define KVB_REPORT_CLOCKNOTE_H

#include "core/util.h"
#include "store/store.h"

/* Appends one "note: ..." line per run of runs[0..nruns) whose platform had clock: instructions. */
void kvb_clock_notes(struct kvb_store *s, const int64_t *runs, size_t nruns, struct kvb_strv *notes);

/*
 * With runs on both an instruction-clock board and a wall-clock one (scripts/quickstart's two
 * halves), one note naming each run's board, its clock and its workloads:
 * "note: which board measured what: run 1 on qemu-x86_64 (wall-clock time): hackbench; run 2 on
 * qemu-x86_64-icount (instructions): sched_pipe". Nothing for one run or one kind of board.
 */
void kvb_board_notes(struct kvb_store *s, const int64_t *runs, size_t nruns, struct kvb_strv *notes);

#endif
