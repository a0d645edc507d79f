/* Implements the check that a run's variants met more than one board (spread.h). */
#include "store/spread.h"

int kvb_store_unspread_variants(struct kvb_store *s, int64_t run_id, struct kvb_strv *msgs, struct kvb_error *err)
{
	static const char sql[] =
		"WITH ok AS (SELECT v.name, v.position, b.board FROM boot b JOIN variant v ON v.id = b.variant_id"
		"             WHERE v.run_id = ?1 AND b.status = 'ok' AND b.board IS NOT NULL),"
		"     boards AS (SELECT count(DISTINCT board) AS n FROM ok)"
		" SELECT name, count(*), min(board), (SELECT n FROM boards) FROM ok GROUP BY name, position"
		" HAVING count(*) >= 2 AND count(DISTINCT board) = 1 AND (SELECT n FROM boards) >= 2 ORDER BY position";
	sqlite3_stmt *st = NULL;
	int rc;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: reading boots: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		kvb_strv_pushf(msgs,
			       "variant %s ran all %d of its boots on board %s, while the run used %d boards: its "
			       "differences include that board's (compare with `diff --by board`; with the boards in the "
			       "platform, one per device, the pool crosses every variant with every board)",
			       (const char *)sqlite3_column_text(st, 0), sqlite3_column_int(st, 1),
			       (const char *)sqlite3_column_text(st, 2), sqlite3_column_int(st, 3));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? KVB_OK : kvb_error_set(err, KVB_ESTORE, "%s: reading boots: %s", s->path,
							   sqlite3_errmsg(s->db));
}
