/* Implements the judgement of a meter channel's coverage of its job window (coverage.h). */
#include "instrument/coverage.h"

#include <stdio.h>
#include <string.h>

/* "3.00 s" from 1 s up, "12.5 ms" below: the unit a reader expects for the size. */
static const char *dur(char *buf, size_t n, int64_t ns)
{
	double s = (double)ns / 1e9;
	if (s >= 1 || s <= -1)
		snprintf(buf, n, "%.2f s", s);
	else
		snprintf(buf, n, "%.1f ms", s * 1e3);
	return buf;
}

void kvb_coverage_check(const struct kvb_sample_chan *c, int64_t win_start_ns, int64_t win_stop_ns,
			const struct kvb_coverage_rule *r, struct kvb_coverage *out)
{
	char a[32], b[32], d[32], e[32], f[32];
	int has_win = win_start_ns || win_stop_ns;
	double gapn = r->max_gap_intervals > 0 ? r->max_gap_intervals : 10;
	int64_t edge, gap_max;

	memset(out, 0, sizeof(*out));
	out->n = c->n;
	out->window_ns = has_win ? win_stop_ns - win_start_ns : 0;
	out->interval_ns = r->rate_hz > 0 ? (int64_t)(1e9 / r->rate_hz + 0.5) : kvb_samples_median_interval_ns(c);
	out->max_gap_ns = c->max_gap_ns;
	edge = out->interval_ns > (int64_t)(r->edge_ms * 1e6) ? out->interval_ns : (int64_t)(r->edge_ms * 1e6);
	gap_max = (int64_t)(gapn * (double)out->interval_ns);
	if (has_win)
		snprintf(out->expected, sizeof(out->expected),
			 "samples from the start to the end of the %s window (within %s), no gap over %g intervals",
			 dur(a, sizeof(a), out->window_ns), dur(b, sizeof(b), edge), gapn);
	else
		snprintf(out->expected, sizeof(out->expected), "at least 2 samples, no gap over %g intervals", gapn);

	if (c->n == 0) {
		snprintf(out->observed, sizeof(out->observed), "no sample%s%s", has_win ? " in the " : "",
			 has_win ? dur(a, sizeof(a), out->window_ns) : "");
		if (has_win)
			strncat(out->observed, " window", sizeof(out->observed) - strlen(out->observed) - 1);
		snprintf(out->why, sizeof(out->why), "%s: no energy without samples", out->observed);
		return;
	}
	out->covered_ns = c->t_last_ns - c->t_first_ns;
	if (has_win) {
		char g[32];
		out->lead_ns = c->t_first_ns - win_start_ns;
		out->tail_ns = win_stop_ns - c->t_last_ns;
		snprintf(out->observed, sizeof(out->observed),
			 "%s of %s (%llu sample%s every %s; first %s after the start, last %s before the end; max gap %s)",
			 dur(a, sizeof(a), out->covered_ns), dur(b, sizeof(b), out->window_ns), (unsigned long long)c->n,
			 c->n == 1 ? "" : "s", dur(d, sizeof(d), out->interval_ns), dur(e, sizeof(e), out->lead_ns),
			 dur(f, sizeof(f), out->tail_ns), dur(g, sizeof(g), out->max_gap_ns));
	} else {
		snprintf(out->observed, sizeof(out->observed), "%s (%llu sample%s every %s; max gap %s)",
			 dur(a, sizeof(a), out->covered_ns), (unsigned long long)c->n, c->n == 1 ? "" : "s",
			 dur(d, sizeof(d), out->interval_ns), dur(b, sizeof(b), out->max_gap_ns));
	}
	if (c->n < 2)
		snprintf(out->why, sizeof(out->why), "1 sample: energy needs an interval");
	else if (has_win && out->lead_ns > edge)
		snprintf(out->why, sizeof(out->why), "starts %s after the job did (more than %s)",
			 dur(a, sizeof(a), out->lead_ns), dur(b, sizeof(b), edge));
	else if (has_win && out->tail_ns > edge)
		snprintf(out->why, sizeof(out->why), "ends %s before the job did (more than %s)",
			 dur(a, sizeof(a), out->tail_ns), dur(b, sizeof(b), edge));
	else if (out->max_gap_ns > gap_max)
		snprintf(out->why, sizeof(out->why), "a gap of %s (more than %g intervals of %s)",
			 dur(a, sizeof(a), out->max_gap_ns), gapn, dur(b, sizeof(b), out->interval_ns));
	else
		out->ok = 1;
}

size_t kvb_coverage_witness(struct kvb_samples *s, const char *instance, int64_t win_start_ns, int64_t win_stop_ns,
			    const struct kvb_coverage_rule *r, struct kvb_witnesses *w)
{
	size_t refused = 0;
	for (size_t i = 0; s && i < s->n; i++) {
		struct kvb_coverage cv;
		char subject[256];
		kvb_coverage_check(&s->ch[i], win_start_ns, win_stop_ns, r, &cv);
		snprintf(subject, sizeof(subject), "%s channel %s", instance, s->ch[i].name);
		s->ch[i].refused = !cv.ok;
		refused += !cv.ok;
		if (cv.ok)
			kvb_witness_add(w, "meter", subject, cv.expected, cv.observed, KVB_WIT_OK, NULL);
		else
			kvb_witness_add(w, "meter", subject, cv.expected, cv.observed, KVB_WIT_REFUSED,
					"energy and power_mean not stored: %s", cv.why);
	}
	return refused;
}
