/* Implements the profile's witnesses (profile_judge.h). */
#include "instrument/profile_judge.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int kvb_profile_judge(const struct kvb_profile *p, const struct kvb_profile_limits *lim, int instruction_clock,
		      struct kvb_witnesses *w, struct kvb_error *err)
{
	char subject[160], expected[160], observed[256];
	uint64_t want = p->samples * p->period;
	int64_t lost = p->lost > 0 ? p->lost : 0;
	double lost_pct = p->samples ? 100.0 * (double)lost / (double)p->samples : 0;
	if (p->lost_pct > lost_pct)
		lost_pct = p->lost_pct;
	double res_pct = p->kernel_samples ? 100.0 * (double)p->kernel_resolved / (double)p->kernel_samples : 100;
	const char *kp = lim->kptr_restrict && lim->kptr_restrict[0] ? lim->kptr_restrict : NULL;
	struct kvb_witness *x;

	snprintf(subject, sizeof(subject), "%s clock", lim->name);
	snprintf(observed, sizeof(observed), "%s every %" PRIu64 " ns, %" PRIu64 " samples", p->event ? p->event : "?",
		 p->period, p->samples);
	kvb_witness_add(w, "profile", subject, "a sample is period_ns instructions (the board's clock counts instructions)",
			observed, KVB_WIT_OK, instruction_clock ? NULL :
			"the board's clock is time: samples x period are ns of CPU time, not instructions");

	/* cpu-clock with -c P: perf's event count is exactly samples x P (tests/fixtures/field/perf-report) */
	snprintf(subject, sizeof(subject), "%s period", lim->name);
	snprintf(expected, sizeof(expected), "event count = samples x %" PRIu64 " = %" PRIu64, p->period, want);
	snprintf(observed, sizeof(observed), "event count %" PRIu64, p->event_count);
	if (p->event_count && p->event_count != want) {
		x = kvb_witness_add(w, "profile", subject, expected, observed, KVB_WIT_REFUSED,
				    "perf did not sample every %" PRIu64 " ns as asked (event '%s'): the samples do not count "
				    "period_ns each", p->period, p->event ? p->event : "?");
		return kvb_error_set(err, KVB_ETARGET, "%s", x->detail);
	}
	kvb_witness_add(w, "profile", subject, expected, p->event_count ? observed : "no event count printed", KVB_WIT_OK,
			NULL);

	snprintf(subject, sizeof(subject), "%s lost samples", lim->name);
	snprintf(expected, sizeof(expected), "at most %g %% of the samples lost, no ring-buffer overflow", lim->max_lost_pct);
	snprintf(observed, sizeof(observed), "%" PRId64 " samples lost (%.3g %%), %" PRId64 " ring-buffer overflows", lost,
		 lost_pct, p->lost_chunks);
	if (p->lost_chunks > 0 || lost_pct > lim->max_lost_pct) {
		x = kvb_witness_add(w, "profile", subject, expected, observed, KVB_WIT_REFUSED,
				    "perf lost samples (%s): the profile misses part of the job (raise mmap_pages or "
				    "period_ns)", observed);
		return kvb_error_set(err, KVB_ETARGET, "%s", x->detail);
	}
	kvb_witness_add(w, "profile", subject, expected, observed, KVB_WIT_OK, NULL);

	snprintf(subject, sizeof(subject), "%s kernel symbols", lim->name);
	snprintf(expected, sizeof(expected), "at least %g %% of the kernel samples resolved to a symbol", lim->min_resolved_pct);
	snprintf(observed, sizeof(observed), "%" PRIu64 " of %" PRIu64 " (%.4g %%)%s%s", p->kernel_resolved,
		 p->kernel_samples, res_pct, kp ? ", kernel.kptr_restrict = " : "", kp ? kp : "");
	if (res_pct < lim->min_resolved_pct) {
		x = kvb_witness_add(w, "profile", subject, expected, observed, KVB_WIT_REFUSED,
				    "kernel samples not resolved to functions (%s): %s", observed,
				    kp && strcmp(kp, "0") && strcmp(kp, "1") ?
					    "kernel.kptr_restrict hides /proc/kallsyms addresses even from root (set it to 0 or 1)" :
					    "perf found no symbol for them: a kernel without CONFIG_KALLSYMS, or /proc/kallsyms unreadable");
		return kvb_error_set(err, KVB_ETARGET, "%s", x->detail);
	}
	kvb_witness_add(w, "profile", subject, expected, observed, KVB_WIT_OK, NULL);
	return KVB_OK;
}
