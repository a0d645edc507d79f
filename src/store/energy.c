/* Implements storing, exporting and deleting energy channels and their sample chunks. */
#include "store/energy.h"
#include "core/util.h"
#include "store/stmt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int db_err(struct kvb_store *s, struct kvb_error *err, const char *what)
{
	return kvb_error_set(err, KVB_ESTORE, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
}

int kvb_store_channel_delete(struct kvb_store *s, int64_t job_id, const char *name, struct kvb_error *err)
{
	sqlite3_stmt *st;
	int rc = KVB_OK;
	const char *sql[2] = {
		"DELETE FROM energy_chunk WHERE channel_id IN"
		" (SELECT id FROM energy_channel WHERE job_id = ?1 AND (?2 IS NULL OR name = ?2))",
		"DELETE FROM energy_channel WHERE job_id = ?1 AND (?2 IS NULL OR name = ?2)",
	};
	for (int i = 0; i < 2 && !rc; i++) {
		if (sqlite3_prepare_v2(s->db, sql[i], -1, &st, NULL) != SQLITE_OK)
			return db_err(s, err, "deleting samples");
		sqlite3_bind_int64(st, 1, job_id);
		if (name)
			sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = db_err(s, err, "deleting samples");
		sqlite3_finalize(st);
	}
	return rc;
}

int kvb_store_channel_add(struct kvb_store *s, int64_t job_id, const struct kvb_sample_chan *c, int64_t *id,
			  struct kvb_error *err)
{
	sqlite3_stmt *st;
	int rc = KVB_OK;
	if (sqlite3_prepare_v2(s->db,
			       "INSERT INTO energy_channel(job_id, name, units, instrument, estimated, n_samples)"
			       " VALUES(?,?,?,?,?,0)",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(s, err, "storing an energy channel");
	sqlite3_bind_int64(st, 1, job_id);
	sqlite3_bind_text(st, 2, c->name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, c->units, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, c->instrument, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 5, c->estimated);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = db_err(s, err, "storing an energy channel");
	else
		*id = sqlite3_last_insert_rowid(s->db);
	sqlite3_finalize(st);
	return rc;
}

int kvb_store_channel_finish(struct kvb_store *s, int64_t channel_id, const struct kvb_sample_chan *c,
			     struct kvb_error *err)
{
	sqlite3_stmt *st;
	int rc = KVB_OK;
	if (sqlite3_prepare_v2(s->db,
			       "UPDATE energy_channel SET n_samples = ?, t_first_ns = ?, t_last_ns = ?, energy_j = ?,"
			       " power_mean_mw = ? WHERE id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(s, err, "storing an energy channel");
	sqlite3_bind_int64(st, 1, (int64_t)c->n);
	if (c->n) {
		sqlite3_bind_int64(st, 2, c->t_first_ns);
		sqlite3_bind_int64(st, 3, c->t_last_ns);
	}
	/* a channel whose samples did not cover its job (instrument/coverage.h) keeps its samples, no value */
	if (!c->refused) {
		sqlite3_bind_double(st, 4, kvb_samples_energy_j(c));
		sqlite3_bind_double(st, 5, kvb_samples_mean(c));
	}
	sqlite3_bind_int64(st, 6, channel_id);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = db_err(s, err, "storing an energy channel");
	sqlite3_finalize(st);
	return rc;
}

int kvb_store_chunk_add(struct kvb_store *s, int64_t channel_id, uint32_t seq, int64_t t0_ns, uint32_t n,
			const void *blob, size_t len, struct kvb_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = KVB_OK;
	if (sqlite3_prepare_v2(s->db, "INSERT INTO energy_chunk(channel_id, seq, t0_ns, n, blob) VALUES(?,?,?,?,?)", -1,
			       &st, NULL) != SQLITE_OK)
		return db_err(s, err, "storing samples");
	sqlite3_bind_int64(st, 1, channel_id);
	sqlite3_bind_int64(st, 2, seq);
	sqlite3_bind_int64(st, 3, t0_ns);
	sqlite3_bind_int64(st, 4, n);
	sqlite3_bind_blob(st, 5, blob, (int)len, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = db_err(s, err, "storing samples");
	sqlite3_finalize(st);
	return rc;
}

int kvb_store_samples_replace(struct kvb_store *s, int64_t job_id, const struct kvb_samples *smp,
			      struct kvb_error *err)
{
	int rc = kvb_store_channel_delete(s, job_id, NULL, err);
	for (size_t i = 0; !rc && smp && i < smp->n; i++) {
		const struct kvb_sample_chan *c = &smp->ch[i];
		int64_t id = 0;
		rc = kvb_store_channel_add(s, job_id, c, &id, err);
		for (size_t k = 0; !rc && k < c->nchunks; k++)
			rc = kvb_store_chunk_add(s, id, (uint32_t)k, c->chunks[k].t0_ns, c->chunks[k].n, c->chunks[k].blob.data,
						 c->chunks[k].blob.len, err);
		if (!rc)
			rc = kvb_store_channel_finish(s, id, c, err);
	}
	return rc;
}

int kvb_store_samples_export_csv(struct kvb_store *s, int64_t job_id, const char *channel, FILE *out, uint64_t *rows,
				 struct kvb_error *err)
{
	sqlite3_stmt *st;
	int64_t *t = kvb_xmalloc(KVB_CHUNK_SAMPLES * sizeof(*t));
	float *v = kvb_xmalloc(KVB_CHUNK_SAMPLES * sizeof(*v));
	uint64_t count = 0;
	int rc = KVB_OK, step;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT c.name, c.units, k.t0_ns, k.n, k.blob FROM energy_channel c"
			       " JOIN energy_chunk k ON k.channel_id = c.id"
			       " WHERE c.job_id = ?1 AND (?2 IS NULL OR c.name = ?2) ORDER BY c.id, k.seq",
			       -1, &st, NULL) != SQLITE_OK) {
		rc = db_err(s, err, "reading samples");
		goto out;
	}
	sqlite3_bind_int64(st, 1, job_id);
	if (channel)
		sqlite3_bind_text(st, 2, channel, -1, SQLITE_TRANSIENT);
	fputs("t_ns,chan_name,value,units\n", out);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		char *units = kvb_xstrdup((const char *)sqlite3_column_text(st, 1));
		int64_t n = sqlite3_column_int64(st, 3);
		if (n < 0 || n > KVB_CHUNK_SAMPLES ||
		    kvb_chunk_decode(sqlite3_column_blob(st, 4), (size_t)sqlite3_column_bytes(st, 4),
				     sqlite3_column_int64(st, 2), (uint32_t)n, t, v)) {
			rc = kvb_error_set(err, KVB_ESTORE, "%s: job %lld channel '%s': corrupt sample chunk", s->path,
					   (long long)job_id, name);
			free(units);
			break;
		}
		for (int64_t i = 0; i < n; i++)
			fprintf(out, "%lld,%s,%.9g,%s\n", (long long)t[i], name, (double)v[i], units);
		count += (uint64_t)n;
		free(units);
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_err(s, err, "reading samples");
	sqlite3_finalize(st);
	if (!rc && !count)
		rc = kvb_error_set(err, KVB_EINPUT, "job %lld has no energy samples%s%s%s", (long long)job_id,
				   channel ? " for channel '" : "", channel ? channel : "", channel ? "'" : "");
	if (!rc && ferror(out))
		rc = kvb_error_set(err, KVB_EINPUT, "writing samples: %s", strerror(errno));
out:
	if (rows)
		*rows = count;
	free(t);
	free(v);
	return rc;
}

int kvb_store_job_window(struct kvb_store *s, int64_t job_id, int64_t *start_ns, int64_t *end_ns,
			 struct kvb_error *err)
{
	sqlite3_stmt *q;
	int src;
	*start_ns = *end_ns = 0;
	if (sqlite3_prepare_v2(s->db, "SELECT coalesce(start_ns, 0), coalesce(end_ns, 0) FROM job WHERE id = ?", -1, &q,
			       NULL) != SQLITE_OK)
		return db_err(s, err, "reading a job");
	sqlite3_bind_int64(q, 1, job_id);
	src = sqlite3_step(q);
	if (src == SQLITE_ROW) {
		*start_ns = sqlite3_column_int64(q, 0);
		*end_ns = sqlite3_column_int64(q, 1);
	}
	sqlite3_finalize(q);
	if (src == SQLITE_DONE)
		return kvb_error_set(err, KVB_EINPUT, "%s: no job %lld", s->path, (long long)job_id);
	return src == SQLITE_ROW ? KVB_OK : db_err(s, err, "reading a job");
}

int kvb_store_channel_metrics(struct kvb_store *s, int64_t job_id, const char *chan, double energy_j,
			      double power_mean_mw, struct kvb_error *err)
{
	int64_t old[64];
	size_t nold = 0;
	sqlite3_stmt *q;
	int rc = KVB_OK;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT m.id FROM metric m JOIN classifier k ON k.metric_id = m.id WHERE m.job_id = ?1"
			       " AND m.name IN ('energy', 'power_mean') AND k.key = 'chan_name' AND k.value = ?2",
			       -1, &q, NULL) != SQLITE_OK)
		return db_err(s, err, "reading a job's metrics");
	sqlite3_bind_int64(q, 1, job_id);
	sqlite3_bind_text(q, 2, chan, -1, SQLITE_TRANSIENT);
	while (nold < KVB_ARRAY_SIZE(old) && sqlite3_step(q) == SQLITE_ROW)
		old[nold++] = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	/* classifier rows reference their metric: they go first */
	for (size_t i = 0; !rc && i < nold; i++)
		if (!(rc = kvb_store_write(s, err, NULL, "DELETE FROM classifier WHERE metric_id = ?1", "i", old[i])))
			rc = kvb_store_write(s, err, NULL, "DELETE FROM metric WHERE id = ?1", "i", old[i]);
	for (int i = 0; i < 2 && !rc; i++) {
		int64_t mid = 0;
		rc = kvb_store_write(s, err, &mid,
				     "INSERT INTO metric(job_id, name, value, units, lower_is_better) VALUES(?1, ?2, ?3, ?4, 1)",
				     "itdt", job_id, i ? "power_mean" : "energy", i ? power_mean_mw : energy_j, i ? "mW" : "J");
		if (!rc)
			rc = kvb_store_write(s, err, NULL,
					     "INSERT INTO classifier(job_id, metric_id, key, value) VALUES(?1, ?2, 'chan_name', ?3)",
					     "iit", job_id, mid, chan);
	}
	return rc;
}

int kvb_store_meter_witness(struct kvb_store *s, int64_t job_id, const char *subject, const char *expected,
			    const char *observed, const char *detail, struct kvb_error *err)
{
	int rc = kvb_store_write(s, err, NULL, "DELETE FROM witness WHERE job_id = ?1 AND kind = 'meter' AND subject = ?2",
				 "it", job_id, subject);
	if (!rc)
		rc = kvb_store_write(s, err, NULL,
				     "INSERT INTO witness(run_id, job_id, t_ns, kind, subject, expected, observed, verdict,"
				     " detail) SELECT run_id, id, ?2, 'meter', ?3, ?4, ?5, 'ok', ?6 FROM job WHERE id = ?1",
				     "iitttt", job_id, kvb_wall_ns(), subject, expected, observed, detail);
	return rc;
}
