/* Implements reading back one job classifier of a run (store.h). */
#include "store/store.h"

#include <stdio.h>

int kvb_store_run_classifier(struct kvb_store *s, int64_t run_id, const char *key, char *out, size_t n)
{
	sqlite3_stmt *st;
	int found = 0;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT c.value FROM classifier c JOIN job j ON j.id = c.job_id"
			       " WHERE j.run_id = ? AND c.key = ? AND c.metric_id IS NULL ORDER BY j.seq LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		snprintf(out, n, "%s", (const char *)sqlite3_column_text(st, 0));
		found = 1;
	}
	sqlite3_finalize(st);
	return found;
}
