/* Implements the note on runs whose guest clock counts instructions (the deterministic QEMU board). */
#include "report/clocknote.h"
#include "store/rows.h"
#include "core/buf.h"

#include <string.h>

void kvb_clock_notes(struct kvb_store *s, const int64_t *runs, size_t nruns, struct kvb_strv *notes)
{
	struct kvb_rows *st;
	if (kvb_rows_open(s, "SELECT platform FROM run WHERE id = ?"
			       " AND json_extract(platform_json, '$.connection.clock') = 'instructions'", &st, NULL, NULL) != KVB_OK)
		return;
	for (size_t i = 0; i < nruns; i++) {
		kvb_rows_reset(st);
		kvb_rows_bind_int(st, 1, runs[i]);
		if (kvb_rows_next(st, NULL) != 1)
			continue;
		kvb_strv_pushf(notes,
			       "note: run %lld ran on %s, whose guest clock counts instructions (QEMU -icount shift=0: one "
			       "instruction is 1 ns of guest time): a time there is a path length, so 1 us/op more is 1000 "
			       "instructions per operation more, boots repeat each other and a difference of a few "
			       "instructions per op is real; the host's load cannot change it. It cannot show cache or "
			       "memory effects, real idle time or SMP (one vCPU).",
			       (long long)runs[i], kvb_rows_text(st, 0) ? (const char *)kvb_rows_text(st, 0) : "?");
	}
	kvb_rows_close(st);
}

void kvb_board_notes(struct kvb_store *s, const int64_t *runs, size_t nruns, struct kvb_strv *notes)
{
	struct kvb_rows *st;
	struct kvb_buf b = KVB_BUF_INIT;
	int clocks = 0;
	if (nruns < 2 || kvb_rows_open(s,
				       "SELECT platform, coalesce(json_extract(platform_json, '$.connection.clock'), 'time'),"
				       " (SELECT group_concat(w, ', ') FROM (SELECT DISTINCT workload AS w FROM job"
				       "  WHERE run_id = run.id AND status <> 'warmup' ORDER BY workload))"
				       " FROM run WHERE id = ?",
				       &st, NULL, NULL) != KVB_OK)
		return;
	for (size_t i = 0; i < nruns; i++) {
		const char *plat, *clock, *wl;
		kvb_rows_reset(st);
		kvb_rows_bind_int(st, 1, runs[i]);
		if (kvb_rows_next(st, NULL) != 1)
			continue;
		plat = (const char *)kvb_rows_text(st, 0);
		clock = (const char *)kvb_rows_text(st, 1);
		wl = (const char *)kvb_rows_text(st, 2);
		clocks |= clock && !strcmp(clock, "instructions") ? 1 : 2;
		kvb_buf_addf(&b, "%s run %lld on %s (%s): %s", b.len ? ";" : "", (long long)runs[i], plat ? plat : "?",
			     clock && !strcmp(clock, "instructions") ? "instructions" : "wall-clock time", wl ? wl : "-");
	}
	kvb_rows_close(st);
	if (clocks == 3) /* runs on both kinds of board: which measured what */
		kvb_strv_pushf(notes, "note: which board measured what:%s", b.data);
	kvb_buf_release(&b);
}

