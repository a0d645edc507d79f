/* Implements sampling profiles in the results DB (profile.h; results-schema/0029_profile.sql). */
#include "store/profile.h"
#include "core/util.h"
#include "store/stmt.h"

#include <stdlib.h>
#include <string.h>

int kvb_store_profile_replace(struct kvb_store *s, int64_t job_id, const struct kvb_profile *p, struct kvb_error *err)
{
	int64_t pid = 0;
	int rc = kvb_store_write(s, err, NULL,
				 "DELETE FROM profile_symbol WHERE profile_id IN (SELECT id FROM profile WHERE job_id = ?)", "i",
				 job_id);
	if (!rc)
		rc = kvb_store_write(s, err, NULL, "DELETE FROM profile WHERE job_id = ?", "i", job_id);
	if (rc || !p)
		return rc;
	rc = kvb_store_write(s, err, &pid,
			     "INSERT INTO profile(job_id, event, period, unit, samples, lost, lost_chunks, kernel_samples,"
			     " kernel_resolved, ops, op_name) VALUES(?,?,?,?,?,NULLIF(?, -1),?,?,?,NULLIF(?, 0),?)",
			     "ititiiiiidt", job_id, p->event, (int64_t)p->period, p->unit, (int64_t)p->samples, p->lost,
			     p->lost_chunks, (int64_t)p->kernel_samples, (int64_t)p->kernel_resolved, p->ops, p->op_name);
	for (size_t i = 0; !rc && i < p->n; i++) {
		char mode[2] = { p->v[i].mode, '\0' };
		rc = kvb_store_write(s, err, NULL,
				     "INSERT INTO profile_symbol(profile_id, dso, symbol, mode, resolved, samples) VALUES(?,?,?,?,?,?)",
				     "itttii", pid, p->v[i].dso, p->v[i].symbol, mode, (int64_t)p->v[i].resolved,
				     (int64_t)p->v[i].samples);
	}
	return rc;
}

int kvb_store_profile_specs(struct kvb_store *s, int64_t run_id, struct kvb_strv *specs, struct kvb_error *err)
{
	sqlite3_stmt *q = NULL;
	int step;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT j.spec_id, j.workload FROM job j JOIN profile p ON p.job_id = j.id"
			       " WHERE j.run_id = ? AND j.status IN ('ok', 'instrument-failed')"
			       " GROUP BY j.spec_id ORDER BY min(j.seq)",
			       -1, &q, NULL) != SQLITE_OK)
		return kvb_store_read_failed(s, q, "profiles", err);
	sqlite3_bind_int64(q, 1, run_id);
	while ((step = sqlite3_step(q)) == SQLITE_ROW)
		kvb_strv_pushf(specs, "%s\t%s", (const char *)sqlite3_column_text(q, 0),
			       (const char *)sqlite3_column_text(q, 1));
	if (step != SQLITE_DONE)
		return kvb_store_read_failed(s, q, "profiles", err);
	sqlite3_finalize(q);
	return KVB_OK;
}

/* The jobs' profiles: count, sums, and the first disagreement on period or unit. */
static int sum_header(struct kvb_store *s, int64_t run_id, const char *variant, const char *spec_id,
		      struct kvb_profile *p, size_t *jobs, struct kvb_error *err)
{
	sqlite3_stmt *q = NULL;
	int step, rc = KVB_OK, unknown_ops = 0;
	int64_t first_job = 0;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT j.id, p.period, p.unit, p.samples, p.kernel_samples, p.kernel_resolved, p.ops, p.op_name,"
			       " p.event, coalesce(p.lost, 0) + p.lost_chunks"
			       " FROM profile p JOIN job j ON j.id = p.job_id JOIN variant v ON v.id = j.variant_id"
			       " WHERE j.run_id = ? AND v.name = ? AND j.spec_id = ? AND j.status IN ('ok', 'instrument-failed')"
			       " ORDER BY j.seq",
			       -1, &q, NULL) != SQLITE_OK)
		return kvb_store_read_failed(s, q, "profiles", err);
	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_text(q, 2, variant, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 3, spec_id, -1, SQLITE_TRANSIENT);
	while (!rc && (step = sqlite3_step(q)) == SQLITE_ROW) {
		uint64_t period = (uint64_t)sqlite3_column_int64(q, 1);
		const char *unit = (const char *)sqlite3_column_text(q, 2);
		const char *u = unit && !strcmp(unit, "instructions") ? "instructions" : "ns";
		if (!*jobs) {
			first_job = sqlite3_column_int64(q, 0);
			p->period = period;
			p->unit = u;
			if (sqlite3_column_type(q, 8) != SQLITE_NULL)
				p->event = kvb_xstrdup((const char *)sqlite3_column_text(q, 8));
			if (sqlite3_column_type(q, 7) != SQLITE_NULL)
				p->op_name = kvb_xstrdup((const char *)sqlite3_column_text(q, 7));
		} else if (period != p->period || strcmp(u, p->unit)) {
			rc = kvb_error_set(err, KVB_EINPUT,
					   "variant '%s', spec %s: job %lld sampled every %llu %s, job %lld every %llu %s: "
					   "profiles of different periods or clocks cannot be summed",
					   variant, spec_id, (long long)first_job, (unsigned long long)p->period, p->unit,
					   (long long)sqlite3_column_int64(q, 0), (unsigned long long)period, u);
			break;
		}
		(*jobs)++;
		p->samples += (uint64_t)sqlite3_column_int64(q, 3);
		p->kernel_samples += (uint64_t)sqlite3_column_int64(q, 4);
		p->kernel_resolved += (uint64_t)sqlite3_column_int64(q, 5);
		p->lost = (p->lost < 0 ? 0 : p->lost) + sqlite3_column_int64(q, 9);
		if (sqlite3_column_type(q, 6) == SQLITE_NULL)
			unknown_ops = 1;
		else
			p->ops += sqlite3_column_double(q, 6);
	}
	if (!rc && step != SQLITE_DONE)
		return kvb_store_read_failed(s, q, "profiles", err);
	if (unknown_ops)
		p->ops = 0;
	sqlite3_finalize(q);
	return rc;
}

int kvb_store_profile_sum(struct kvb_store *s, int64_t run_id, const char *variant, const char *spec_id,
			  struct kvb_profile **out, size_t *jobs, struct kvb_error *err)
{
	struct kvb_profile *p = kvb_xcalloc(1, sizeof(*p));
	sqlite3_stmt *q = NULL;
	int rc, step;
	*out = NULL;
	*jobs = 0;
	p->lost = -1;
	if ((rc = sum_header(s, run_id, variant, spec_id, p, jobs, err)) || !*jobs) {
		kvb_profile_free(p);
		return rc;
	}
	if (sqlite3_prepare_v2(s->db,
			       "SELECT ps.dso, ps.symbol, ps.mode, min(ps.resolved), sum(ps.samples)"
			       " FROM profile_symbol ps JOIN profile p ON p.id = ps.profile_id JOIN job j ON j.id = p.job_id"
			       " JOIN variant v ON v.id = j.variant_id"
			       " WHERE j.run_id = ? AND v.name = ? AND j.spec_id = ? AND j.status IN ('ok', 'instrument-failed')"
			       " GROUP BY ps.dso, ps.symbol, ps.mode ORDER BY sum(ps.samples) DESC, ps.symbol",
			       -1, &q, NULL) != SQLITE_OK) {
		kvb_profile_free(p);
		return kvb_store_read_failed(s, q, "profiles", err);
	}
	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_text(q, 2, variant, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 3, spec_id, -1, SQLITE_TRANSIENT);
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		struct kvb_profile_sym *r;
		const char *mode = (const char *)sqlite3_column_text(q, 2);
		if (p->n == p->alloc) {
			p->alloc = p->alloc ? 2 * p->alloc : 256;
			p->v = kvb_xrealloc(p->v, p->alloc * sizeof(*p->v));
		}
		r = &p->v[p->n++];
		r->dso = kvb_xstrdup((const char *)sqlite3_column_text(q, 0));
		r->symbol = kvb_xstrdup((const char *)sqlite3_column_text(q, 1));
		r->mode = mode && mode[0] ? mode[0] : '?';
		r->resolved = sqlite3_column_int(q, 3);
		r->samples = (uint64_t)sqlite3_column_int64(q, 4);
	}
	if (step != SQLITE_DONE) {
		kvb_profile_free(p);
		return kvb_store_read_failed(s, q, "profiles", err);
	}
	sqlite3_finalize(q);
	*out = p;
	return KVB_OK;
}

int kvb_store_profile_variants(struct kvb_store *s, int64_t run_id, struct kvb_strv *names, struct kvb_error *err)
{
	sqlite3_stmt *q = NULL;
	int step;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT v.name FROM variant v WHERE v.run_id = ? AND EXISTS (SELECT 1 FROM job j JOIN profile p"
			       " ON p.job_id = j.id WHERE j.variant_id = v.id AND j.status IN ('ok', 'instrument-failed'))"
			       " ORDER BY v.position",
			       -1, &q, NULL) != SQLITE_OK)
		return kvb_store_read_failed(s, q, "profiles", err);
	sqlite3_bind_int64(q, 1, run_id);
	while ((step = sqlite3_step(q)) == SQLITE_ROW)
		kvb_strv_push(names, (const char *)sqlite3_column_text(q, 0));
	if (step != SQLITE_DONE)
		return kvb_store_read_failed(s, q, "profiles", err);
	sqlite3_finalize(q);
	return KVB_OK;
}
