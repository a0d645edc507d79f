/* Implements the streaming import of an outside probe file into a stored job (energy_import.h). */
#include "instrument/energy_import.h"
#include "core/util.h"
#include "store/energy.h"

#include <stdlib.h>
#include <string.h>

struct sink {
	struct kvb_store *s;
	int64_t job_id;
	struct kvb_error err;
};

/* Creates the channel's row on its first chunk, replacing a channel of that name. */
static int ensure_row(struct sink *k, struct kvb_sample_chan *c)
{
	int rc;
	if (c->store_id)
		return KVB_OK;
	rc = kvb_store_channel_delete(k->s, k->job_id, c->name, &k->err);
	if (!rc)
		rc = kvb_store_channel_add(k->s, k->job_id, c, &c->store_id, &k->err);
	return rc;
}

static int on_chunk(void *arg, struct kvb_samples *s, size_t chan, uint32_t seq, int64_t t0_ns, uint32_t n,
		    const void *blob, size_t len)
{
	struct sink *k = arg;
	int rc = ensure_row(k, &s->ch[chan]);
	if (!rc)
		rc = kvb_store_chunk_add(k->s, s->ch[chan].store_id, seq, t0_ns, n, blob, len, &k->err);
	return rc;
}

static int exec_bind(struct kvb_store *s, const char *sql, int64_t id, const char *text, double value,
		     int64_t *rowid, struct kvb_error *err)
{
	sqlite3_stmt *st;
	int rc = KVB_OK;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_text(st, 2, text, -1, SQLITE_TRANSIENT);
	if (sqlite3_bind_parameter_count(st) >= 3)
		sqlite3_bind_double(st, 3, value);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	else if (rowid)
		*rowid = sqlite3_last_insert_rowid(s->db);
	sqlite3_finalize(st);
	return rc;
}

/* energy + power_mean of one channel, replacing those the job had for it. */
static int store_metrics(struct kvb_store *s, int64_t job_id, const struct kvb_sample_chan *c, struct kvb_error *err)
{
	const char *names[2] = { "energy", "power_mean" };
	const char *units[2] = { "J", "mW" };
	double vals[2] = { kvb_samples_energy_j(c), kvb_samples_mean(c) };
	int64_t old[64];
	size_t nold = 0;
	sqlite3_stmt *q;
	int rc = KVB_OK;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT m.id FROM metric m JOIN classifier k ON k.metric_id = m.id WHERE m.job_id = ?1"
			       " AND m.name IN ('energy', 'power_mean') AND k.key = 'chan_name' AND k.value = ?2",
			       -1, &q, NULL) != SQLITE_OK)
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_bind_int64(q, 1, job_id);
	sqlite3_bind_text(q, 2, c->name, -1, SQLITE_TRANSIENT);
	while (nold < 64 && sqlite3_step(q) == SQLITE_ROW)
		old[nold++] = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	/* classifier rows reference their metric: they go first. */
	for (size_t i = 0; !rc && i < nold; i++) {
		rc = exec_bind(s, "DELETE FROM classifier WHERE metric_id = ?1", old[i], NULL, 0, NULL, err);
		if (!rc)
			rc = exec_bind(s, "DELETE FROM metric WHERE id = ?1", old[i], NULL, 0, NULL, err);
	}
	for (int i = 0; !rc && i < 2; i++) {
		int64_t mid = 0;
		char *sql = kvb_xasprintf("INSERT INTO metric(job_id, name, value, units, lower_is_better)"
					  " VALUES(?1, ?2, ?3, '%s', 1)", units[i]);
		rc = exec_bind(s, sql, job_id, names[i], vals[i], &mid, err);
		free(sql);
		if (!rc)
			rc = exec_bind(s, "INSERT INTO classifier(job_id, metric_id, key, value)"
					  " SELECT job_id, id, 'chan_name', ?2 FROM metric WHERE id = ?1",
				       mid, c->name, 0, NULL, err);
	}
	return rc;
}

/* The channel's `meter` witness, stored with the job (0015_witness.sql), in the import's transaction;
 * it replaces the witness of an earlier import of that channel. */
static int add_witness(struct kvb_store *s, int64_t job_id, const struct kvb_sample_chan *c,
		       const struct kvb_coverage *cv, const char *path, struct kvb_error *err)
{
	sqlite3_stmt *st = NULL;
	char *subject = kvb_xasprintf("import channel %s", c->name), *detail = kvb_xasprintf("imported from %s", path);
	int rc = exec_bind(s, "DELETE FROM witness WHERE job_id = ?1 AND kind = 'meter' AND subject = ?2", job_id,
			   subject, 0, NULL, err);
	if (!rc && sqlite3_prepare_v2(s->db,
				      "INSERT INTO witness(run_id, job_id, t_ns, kind, subject, expected, observed, verdict,"
				      " detail) SELECT run_id, id, ?2, 'meter', ?3, ?4, ?5, 'ok', ?6 FROM job WHERE id = ?1",
				      -1, &st, NULL) != SQLITE_OK)
		rc = kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	if (!rc) {
		sqlite3_bind_int64(st, 1, job_id);
		sqlite3_bind_int64(st, 2, kvb_wall_ns());
		sqlite3_bind_text(st, 3, subject, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 4, cv->expected, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 5, cv->observed, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 6, detail, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	}
	sqlite3_finalize(st);
	free(subject);
	free(detail);
	return rc;
}

int kvb_energy_import_csv(struct kvb_store *s, int64_t job_id, const char *path,
			  const struct kvb_energy_import_opts *o, struct kvb_probe_stats *st, struct kvb_error *err)
{
	struct kvb_energy_import_opts def;
	struct kvb_samples *smp = kvb_samples_new();
	struct sink k;
	sqlite3_stmt *q;
	int64_t start_ns = 0, end_ns = 0;
	int rc, found = 0;

	if (!o) {
		memset(&def, 0, sizeof(def));
		o = &def;
	}
	memset(&k, 0, sizeof(k));
	k.s = s;
	k.job_id = job_id;
	if (sqlite3_prepare_v2(s->db, "SELECT coalesce(start_ns, 0), coalesce(end_ns, 0) FROM job WHERE id = ?", -1, &q,
			       NULL) != SQLITE_OK) {
		kvb_samples_free(smp);
		return kvb_error_set(err, KVB_ESTORE, "%s: %s", s->path, sqlite3_errmsg(s->db));
	}
	sqlite3_bind_int64(q, 1, job_id);
	if (sqlite3_step(q) == SQLITE_ROW) {
		found = 1;
		start_ns = sqlite3_column_int64(q, 0);
		end_ns = sqlite3_column_int64(q, 1);
	}
	sqlite3_finalize(q);
	if (!found) {
		kvb_samples_free(smp);
		return kvb_error_set(err, KVB_EINPUT, "%s: no job %lld", s->path, (long long)job_id);
	}
	smp->sink = on_chunk;
	smp->sink_arg = &k;
	if ((rc = kvb_store_begin(s, err))) {
		kvb_samples_free(smp);
		return rc;
	}
	{
		struct kvb_probe_parse p = {
			.format = o->format,
			.path = path,
			.instrument = "import",
			.chan_name = o->chan_name ? o->chan_name : "power",
			.channels = o->channels,
			.default_units = o->default_units ? o->default_units : "W",
			.rate_hz = o->rate_hz,
			.time_mode = KVB_TIME_AUTO,
			.base_ns = start_ns,
			.win_start_ns = o->cut_to_job ? start_ns : 0,
			.win_stop_ns = o->cut_to_job ? end_ns : 0,
		};
		rc = kvb_probe_parse_file(&p, smp, st, err);
		if (rc && k.err.msg[0])
			*err = k.err;  /* the DB's message beats "storing samples failed" */
	}
	if (!rc && !smp->n)
		rc = kvb_error_set(err, KVB_EINPUT, "%s: no samples: energy needs at least 2 per channel", path);
	for (size_t i = 0; !rc && i < smp->n; i++) /* one sample spans no time: 0 J would be stored as measured */
		if (smp->ch[i].n < 2)
			rc = kvb_error_set(err, KVB_EINPUT,
					   "%s: channel '%s' has %llu sample%s%s: energy needs at least 2 (a truncated capture?)",
					   path, smp->ch[i].name, (unsigned long long)smp->ch[i].n, smp->ch[i].n == 1 ? "" : "s",
					   o->cut_to_job ? " within the job's start and end" : "");
	for (size_t i = 0; !rc && i < smp->n; i++) {
		/* the file proves its coverage like a meter does (coverage.h): of the job's window with
		 * --cut, else of its own span (its gaps); a channel that fails is not imported */
		struct kvb_coverage_rule rule = KVB_COVERAGE_RULE_DEFAULT;
		struct kvb_coverage cv;
		rule.rate_hz = o->format == KVB_PROBE_MONSOON ? o->rate_hz : 0;
		kvb_coverage_check(&smp->ch[i], o->cut_to_job ? start_ns : 0, o->cut_to_job ? end_ns : 0, &rule, &cv);
		if (!cv.ok)
			rc = kvb_error_set(err, KVB_EINPUT, "%s: channel '%s' refused, nothing imported: %s (%s)", path,
					   smp->ch[i].name, cv.why, cv.observed);
		else
			rc = add_witness(s, job_id, &smp->ch[i], &cv, path, err);
	}
	for (size_t i = 0; !rc && i < smp->n; i++) {
		rc = ensure_row(&k, &smp->ch[i]);
		if (rc)
			*err = k.err;
		if (!rc)
			rc = kvb_store_channel_finish(s, smp->ch[i].store_id, &smp->ch[i], err);
		if (!rc)
			rc = store_metrics(s, job_id, &smp->ch[i], err);
	}
	if (!rc)
		rc = kvb_store_commit(s, err);
	if (rc)
		kvb_store_rollback(s);
	kvb_samples_free(smp);
	return rc;
}
