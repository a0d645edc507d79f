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

/* The channel's `meter` witness, stored with the job (0015_witness.sql), in the import's transaction;
 * it replaces the witness of an earlier import of that channel. */
static int add_witness(struct kvb_store *s, int64_t job_id, const struct kvb_sample_chan *c,
		       const struct kvb_coverage *cv, const char *path, struct kvb_error *err)
{
	char *subject = kvb_xasprintf("import channel %s", c->name), *detail = kvb_xasprintf("imported from %s", path);
	int rc = kvb_store_meter_witness(s, job_id, subject, cv->expected, cv->observed, detail, err);
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
	int64_t start_ns = 0, end_ns = 0;
	const struct kvb_probe_format *fmt;
	int rc;

	if (!o) {
		memset(&def, 0, sizeof(def));
		o = &def;
	}
	fmt = o->format ? o->format : kvb_probe_format_find("csv");
	memset(&k, 0, sizeof(k));
	k.s = s;
	k.job_id = job_id;
	if ((rc = kvb_store_job_window(s, job_id, &start_ns, &end_ns, err))) {
		kvb_samples_free(smp);
		return rc;
	}
	smp->sink = on_chunk;
	smp->sink_arg = &k;
	if ((rc = kvb_store_begin(s, err))) {
		kvb_samples_free(smp);
		return rc;
	}
	{
		struct kvb_probe_parse p = {
			.format = fmt,
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
		rule.rate_hz = fmt->caps & KVB_PROBE_NEEDS_RATE ? o->rate_hz : 0;
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
			rc = kvb_store_channel_metrics(s, job_id, smp->ch[i].name, kvb_samples_energy_j(&smp->ch[i]),
						       kvb_samples_mean(&smp->ch[i]), err);
	}
	if (!rc)
		rc = kvb_store_commit(s, err);
	if (rc)
		kvb_store_rollback(s);
	kvb_samples_free(smp);
	return rc;
}
