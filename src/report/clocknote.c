/* Implements the note on runs whose guest clock counts instructions (the deterministic QEMU board). */
#include "report/clocknote.h"

void kvb_clock_notes(struct kvb_store *s, const int64_t *runs, size_t nruns, struct kvb_strv *notes)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT platform FROM run WHERE id = ?"
			       " AND json_extract(platform_json, '$.connection.clock') = 'instructions'",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	for (size_t i = 0; i < nruns; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, runs[i]);
		if (sqlite3_step(st) != SQLITE_ROW)
			continue;
		kvb_strv_pushf(notes,
			       "note: run %lld ran on %s, whose guest clock counts instructions (QEMU -icount shift=0: one "
			       "instruction is 1 ns of guest time): a time there is a path length, so 1 us/op more is 1000 "
			       "instructions per operation more, boots repeat each other and a difference of a few "
			       "instructions per op is real; the host's load cannot change it. It cannot show cache or "
			       "memory effects, real idle time or SMP (one vCPU).",
			       (long long)runs[i], sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "?");
	}
	sqlite3_finalize(st);
}
