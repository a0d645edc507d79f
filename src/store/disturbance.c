/* Implements the host disturbance of runs' jobs, counted and said in one line (disturbance.h). */
#include "store/disturbance.h"
#include "core/buf.h"
#include "core/util.h"
#include "store/stmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the runs as a JSON array for json_each(?1) */
static char *run_list(const int64_t *runs, size_t nruns)
{
	struct kvb_buf b = KVB_BUF_INIT;
	kvb_buf_addf(&b, "[");
	for (size_t i = 0; i < nruns; i++)
		kvb_buf_addf(&b, "%s%lld", i ? "," : "", (long long)runs[i]);
	kvb_buf_addf(&b, "]");
	return kvb_buf_detach(&b);
}

/* The percentage in a host witness's observed text ("74.3 %", "waited 51.3 %") into its subject's range. */
static void add_range(struct kvb_disturbance *d, const char *subject, const char *observed)
{
	const char *p = observed;
	struct kvb_disturbance_range *r = NULL;
	char *end;
	double x;
	if (!subject || !p)
		return;
	while (*p && !(*p >= '0' && *p <= '9'))
		p++;
	x = strtod(p, &end);
	if (end == p)
		return;
	for (size_t i = 0; i < d->nranges && !r; i++)
		if (!strcmp(d->ranges[i].subject, subject))
			r = &d->ranges[i];
	if (!r) {
		if (d->nranges == sizeof(d->ranges) / sizeof(d->ranges[0]))
			return;
		r = &d->ranges[d->nranges++];
		snprintf(r->subject, sizeof(r->subject), "%s", subject);
		r->lo = r->hi = x;
	}
	r->lo = x < r->lo ? x : r->lo;
	r->hi = x > r->hi ? x : r->hi;
}

int kvb_store_disturbance(struct kvb_store *s, const int64_t *runs, size_t nruns, struct kvb_disturbance *d,
			  struct kvb_error *err)
{
	/* per job: has a host witness, has a disturbed one (any attempt), its final attempt's is disturbed */
	static const char counts[] =
		"WITH h AS (SELECT j.id, j.status,"
		"  max(w.verdict = 'disturbed') AS any_d,"
		"  max(w.verdict = 'disturbed' AND w.attempt IS NULL) AS last_d"
		"  FROM job j JOIN witness w ON w.job_id = j.id AND w.kind = 'host'"
		"  WHERE j.run_id IN (SELECT value FROM json_each(?1)) AND j.status <> 'warmup' GROUP BY j.id)"
		" SELECT count(*), coalesce(sum(any_d), 0),"
		"  coalesce(sum(any_d AND status IN ('ok', 'instrument-failed') AND NOT last_d), 0),"
		"  coalesce(sum(status = 'disturbed'), 0),"
		"  coalesce(sum(last_d AND status IN ('ok', 'instrument-failed')), 0) FROM h";
	static const char ranges[] =
		"SELECT w.subject, w.observed FROM witness w JOIN job j ON j.id = w.job_id"
		" WHERE j.run_id IN (SELECT value FROM json_each(?1)) AND j.status <> 'warmup'"
		" AND w.kind = 'host' AND w.verdict = 'disturbed' AND w.observed IS NOT NULL ORDER BY w.subject";
	sqlite3_stmt *q;
	char *list = run_list(runs, nruns);
	int rc = KVB_OK;
	memset(d, 0, sizeof(*d));
	if (sqlite3_prepare_v2(s->db, counts, -1, &q, NULL) != SQLITE_OK) {
		free(list);
		return kvb_store_read_failed(s, q, "the host's disturbance", err);
	}
	sqlite3_bind_text(q, 1, list, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW) {
		d->on_host = sqlite3_column_int64(q, 0);
		d->disturbed = sqlite3_column_int64(q, 1);
		d->rerun_ok = sqlite3_column_int64(q, 2);
		d->left_out = sqlite3_column_int64(q, 3);
		d->kept = sqlite3_column_int64(q, 4);
		sqlite3_finalize(q);
	} else {
		free(list);
		return kvb_store_read_failed(s, q, "the host's disturbance", err);
	}
	if (sqlite3_prepare_v2(s->db, ranges, -1, &q, NULL) != SQLITE_OK) {
		free(list);
		return kvb_store_read_failed(s, q, "the host's disturbance", err);
	}
	sqlite3_bind_text(q, 1, list, -1, SQLITE_STATIC);
	while (sqlite3_step(q) == SQLITE_ROW)
		add_range(d, (const char *)sqlite3_column_text(q, 0), (const char *)sqlite3_column_text(q, 1));
	sqlite3_finalize(q);
	free(list);
	return rc;
}

char *kvb_disturbance_line(const struct kvb_disturbance *d)
{
	struct kvb_buf b = KVB_BUF_INIT;
	if (!d->disturbed)
		return NULL;
	kvb_buf_addf(&b, "%lld of %lld job(s) disturbed by the host", (long long)d->disturbed, (long long)d->on_host);
	for (size_t i = 0; i < d->nranges; i++) {
		const struct kvb_disturbance_range *r = &d->ranges[i];
		if (r->hi - r->lo < 0.5)
			kvb_buf_addf(&b, "%s%s %.0f %%", i ? ", " : " (", r->subject, r->hi);
		else
			kvb_buf_addf(&b, "%s%s %.0f-%.0f %%", i ? ", " : " (", r->subject, r->lo, r->hi);
	}
	kvb_buf_addf(&b, "%s: %lld re-run clean, %lld left out", d->nranges ? ")" : "", (long long)d->rerun_ok,
		     (long long)d->left_out);
	if (d->kept)
		kvb_buf_addf(&b, ", %lld kept (a duet's pairs)", (long long)d->kept);
	return kvb_buf_detach(&b);
}
