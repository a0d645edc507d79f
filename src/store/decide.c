/* Implements the stored stopping rule of --until-decided and its disturbed rounds (decide.h). */
#include "store/decide.h"
#include "core/util.h"
#include "store/stmt.h"

#include <stdlib.h>
#include <string.h>

int kvb_store_decide_save(struct kvb_store *s, int64_t run_id, const struct kvb_decide_row *d, struct kvb_error *err)
{
	return kvb_store_write(s, err, NULL,
			       "INSERT INTO run_decide(run_id, margin, alpha, max_rounds, max_time_s, metrics_json, add_rounds)"
			       " VALUES(?,?,?,?,nullif(?, 0),?,?)",
			       "iddidti", run_id, d->margin, d->alpha, (int64_t)d->max_rounds,
			       d->max_time_s > 0 ? d->max_time_s : 0.0, d->metrics_json, (int64_t)(d->add_rounds != 0));
}

int kvb_store_decide_load(struct kvb_store *s, int64_t run_id, struct kvb_decide_row *d, int *found,
			  struct kvb_error *err)
{
	sqlite3_stmt *q;
	int src;
	memset(d, 0, sizeof(*d));
	*found = 0;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT margin, alpha, max_rounds, coalesce(max_time_s, 0), metrics_json, add_rounds FROM run_decide"
			       " WHERE run_id = ?",
			       -1, &q, NULL) != SQLITE_OK)
		return kvb_store_read_failed(s, q, "the --until-decided rule", err);
	sqlite3_bind_int64(q, 1, run_id);
	if ((src = sqlite3_step(q)) == SQLITE_ROW) {
		const unsigned char *mj = sqlite3_column_text(q, 4);
		*found = 1;
		d->margin = sqlite3_column_double(q, 0);
		d->alpha = sqlite3_column_double(q, 1);
		d->max_rounds = sqlite3_column_int(q, 2);
		d->max_time_s = sqlite3_column_double(q, 3);
		d->metrics_json = kvb_xstrdup(mj ? (const char *)mj : "[]");
		d->add_rounds = sqlite3_column_int(q, 5);
	} else if (src != SQLITE_DONE) {
		return kvb_store_read_failed(s, q, "the --until-decided rule", err);
	}
	sqlite3_finalize(q);
	return KVB_OK;
}

int kvb_store_decide_outcome(struct kvb_store *s, int64_t run_id, int round, const char *outcome, struct kvb_error *err)
{
	return kvb_store_write(s, err, NULL, "UPDATE run_decide SET decided_round = ?, outcome = ? WHERE run_id = ?", "iti",
			       (int64_t)round, outcome, run_id);
}

int kvb_store_disturbed_rounds(struct kvb_store *s, int64_t run_id, int round, int **out, size_t *n,
			       struct kvb_error *err)
{
	sqlite3_stmt *q;
	int src;
	*n = 0;
	*out = kvb_xcalloc((size_t)(round > 0 ? round : 0) + 1, sizeof(int));
	if (sqlite3_prepare_v2(s->db,
			       /* a job the host disturbed in every attempt it had (status disturbed, left out); one
				* that ran again clean is not (its disturbed attempt is evidence, not a result) */
			       "SELECT DISTINCT round FROM job WHERE run_id = ? AND status = 'disturbed' AND round <= ?"
			       " ORDER BY round",
			       -1, &q, NULL) != SQLITE_OK)
		return kvb_store_read_failed(s, q, "the --until-decided rule", err);
	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_int(q, 2, round);
	while ((src = sqlite3_step(q)) == SQLITE_ROW && *n < (size_t)round)
		(*out)[(*n)++] = sqlite3_column_int(q, 0);
	if (src != SQLITE_ROW && src != SQLITE_DONE)
		return kvb_store_read_failed(s, q, "the --until-decided rule", err);
	sqlite3_finalize(q);
	return KVB_OK;
}
