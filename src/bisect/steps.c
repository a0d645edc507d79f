/* Implements a bisect's course (steps.h): endpoints, stored steps replayed, new steps to the first bad commit. */
#include "bisect/steps.h"
#include "core/log.h"
#include "core/util.h"
#include "kbuild/git.h"
#include "core/numfmt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Marks sha good, bad or skip in git's bisect; *out gets git's answer (owned, the previous one freed). */
static int mark(struct kvb_bisect *b, const char *outcome, const char *sha, char **out, struct kvb_error *err)
{
	const char *args[] = { outcome, sha, NULL };
	free(*out);
	*out = NULL;
	return kvb_bisect_git(b, args, out, err);
}

static void save_log(struct kvb_bisect *b)
{
	static const char *const args[] = { "log", NULL };
	char *log = NULL;
	struct kvb_error e2;
	if (!kvb_bisect_git(b, args, &log, &e2) && kvb_store_bisect_set_log(b->st, b->row.id, log, &e2))
		kvb_warn("%s", e2.msg);
	free(log);
}

/* First 40-hex word of git's "SHA is the first bad commit" answer, or 0. */
static int first_bad_of(const char *out, char sha[41])
{
	const char *p = strstr(out, " is the first bad commit");
	const char *s;
	if (!p)
		return 0;
	for (s = p; s > out && s[-1] != '\n'; s--)
		;
	if (p - s != 40)
		return 0;
	memcpy(sha, s, 40);
	sha[40] = '\0';
	return 1;
}

/* The endpoints' runs: good's, bad's and their extra ones (owned by the caller: release them). */
static void endpoint_runs(const struct kvb_bisect *b, struct kvb_bisect_runs *all)
{
	kvb_bisect_runs_add(all, b->row.good_run);
	kvb_bisect_runs_add(all, b->row.bad_run);
	for (size_t i = 0; i < b->ends.n; i++)
		kvb_bisect_runs_add(all, b->ends.v[i]);
}

/* KVB_EUNDECIDED: the host too busy to decide the endpoints, counted over all their runs. */
static int endpoints_too_busy(struct kvb_bisect *b, struct kvb_error *err)
{
	struct kvb_bisect_runs all = { 0 };
	int rc;
	endpoint_runs(b, &all);
	rc = kvb_bisect_too_busy(b, all.v, all.n, "good and bad", err);
	kvb_bisect_runs_release(&all);
	return rc;
}

/*
 * The endpoints measured and decided against each other; *change is bad against good, %. While
 * undecided, the endpoint with fewer boots that count (both when even) gets one more; a
 * measurement with a job the host left out is one of KVB_BISECT_SPARE_BOOTS spares, past which
 * the host is too busy to decide them (KVB_EUNDECIDED).
 */
static int endpoints(struct kvb_bisect *b, double *change, struct kvb_error *err)
{
	struct kvb_step_result r;
	int rc, more = 0, spares = 0;
	int64_t lg = 0, lb = 0;
	if ((rc = kvb_bisect_measure_endpoint(b, "good", b->row.good, &b->row.good_run, 0, &lg, err)) ||
	    (rc = kvb_bisect_measure_endpoint(b, "bad", b->row.bad, &b->row.bad_run, 0, &lb, err)) ||
	    (rc = kvb_bisect_check_endpoints(b, change, &more, &r, err)))
		return rc;
	spares += (lg > 0) + (lb > 0);
	while (more) {
		int good = r.good_boots <= r.bad_boots, bad = r.bad_boots <= r.good_boots;
		if (spares > KVB_BISECT_SPARE_BOOTS)
			return endpoints_too_busy(b, err);
		kvb_info("bisect: good and bad not decided yet (%+.1f%% on %s, %d and %d boot(s)): one more boot of %s",
			 *change, b->row.metric, r.good_boots, r.bad_boots, good && bad ? "each" : good ? "good" : "bad");
		lg = lb = 0;
		if ((good && (rc = kvb_bisect_measure_endpoint(b, "good", b->row.good, &b->row.good_run, 1, &lg, err))) ||
		    (bad && (rc = kvb_bisect_measure_endpoint(b, "bad", b->row.bad, &b->row.bad_run, 1, &lb, err))) ||
		    (rc = kvb_bisect_check_endpoints(b, change, &more, &r, err)))
			return rc;
		spares += (lg > 0) + (lb > 0);
	}
	return KVB_OK;
}

struct replay {
	struct kvb_bisect *b;
	char **ans;
	struct kvb_error *err;
};

static int replay_one(void *arg, const struct kvb_bisect_step *st)
{
	struct replay *r = arg;
	r->b->step++;
	return strcmp(st->outcome, "abort") ? mark(r->b, st->outcome, st->sha, r->ans, r->err) : KVB_OK;
}

/* git's bisect started, then the stored steps replayed through it (--resume); *ans: git's last answer. */
static int start_git(struct kvb_bisect *b, char **ans, struct kvb_error *err)
{
	const char *args[] = { "start", "--no-checkout", b->row.bad, b->row.good, NULL };
	struct replay r = { b, ans, err };
	int rc;
	if ((rc = kvb_bisect_git(b, args, ans, err)))
		return rc;
	b->started = 1;
	return kvb_store_bisect_steps(b->st, b->row.id, replay_one, &r, err);
}

/*
 * Measures commit next until it is decided (or skipped): more boots while undecided, the
 * endpoints one more when they have fewer than the step. A measurement with a job the host
 * left out (never judged) is one of KVB_BISECT_SPARE_BOOTS spares; undecided past them, the
 * host is too busy to decide the step (KVB_EUNDECIDED). *fails_in_a_row counts steps whose
 * kernel never came up. *last_run: the step's latest run.
 */
static int measure_step(struct kvb_bisect *b, const char *next, struct kvb_step_result *res, int *fails_in_a_row,
			int64_t *last_run, struct kvb_error *err)
{
	struct kvb_bisect_runs mine = { 0 };
	char *why = NULL, what[64];
	int rc, booted = 0, spares = 0;
	snprintf(what, sizeof(what), "step %d", b->step);
	for (;;) {
		int64_t run = 0, left_out = 0, el = 0;
		rc = kvb_bisect_measure(b, next, mine.n ? 1 : b->row.rounds, &run, &why, &booted, err);
		if (run)
			kvb_bisect_runs_add(&mine, *last_run = run);
		if (rc)
			break;
		if (why) { /* untestable: build, flash, boot or identity failed */
			res->outcome = "skip";
			snprintf(res->reason, sizeof(res->reason), "%.500s", why);
			/* a boot that never happened twice in a row: the board; a failed build says nothing */
			*fails_in_a_row = booted > 0 ? 0 : booted == 0 ? *fails_in_a_row + 1 : *fails_in_a_row;
			break;
		}
		*fails_in_a_row = 0;
		if ((rc = kvb_bisect_disturbance(b, &run, 1, what, &left_out, err)) ||
		    (rc = kvb_bisect_judge(b, next, &mine, b->row.max_rounds, res, err)) || res->outcome)
			break;
		if (left_out && ++spares > KVB_BISECT_SPARE_BOOTS) {
			rc = kvb_bisect_too_busy(b, mine.v, mine.n, what, err);
			break;
		}
		kvb_info("bisect step %d: %s; one more round%s", b->step, res->reason,
			 left_out ? " (a spare: the host left jobs out)" : "");
		/* an endpoint with fewer boots than the step limits the verdict: it gets one more too */
		if (res->good_boots < res->boots &&
		    (rc = kvb_bisect_measure_endpoint(b, "good", b->row.good, &b->row.good_run, 1, &el, err)))
			break;
		if (res->bad_boots < res->boots &&
		    (rc = kvb_bisect_measure_endpoint(b, "bad", b->row.bad, &b->row.bad_run, 1, &el, err)))
			break;
	}
	free(why);
	kvb_bisect_runs_release(&mine);
	return rc;
}

/* One step of git's bisect: BISECT_HEAD measured, stored and marked; *ans gets git's answer. */
static int one_step(struct kvb_bisect *b, char **ans, int *fails_in_a_row, struct kvb_error *err)
{
	static const char *const head[] = { "rev-parse", "--verify", "BISECT_HEAD", NULL };
	struct kvb_step_result res;
	struct kvb_bisect_step st = { 0 };
	char next[41], *line = NULL;
	int rc;
	if ((rc = kvb_git_line(b->row.repo, head, &line, NULL, err)))
		return rc;
	snprintf(next, sizeof(next), "%s", line);
	free(line);
	b->step++;
	memset(&res, 0, sizeof(res));
	res.value = res.vs_good = res.vs_bad = NAN; /* stored as NULL for a step never measured */
	kvb_info("bisect step %d: %.12s %s", b->step, next, strchr(*ans, '\n') ? strchr(*ans, '\n') + 1 : "");
	st.step = b->step;
	st.sha = next;
	if ((rc = measure_step(b, next, &res, fails_in_a_row, &st.run_id, err))) {
		struct kvb_error e2;
		/* the board or the store failed mid-step: keep what we have */
		st.outcome = "abort";
		st.reason = err->msg;
		st.value = st.vs_good = st.vs_bad = NAN;
		if (!b->cancel && kvb_store_bisect_step_add(b->st, b->row.id, &st, &e2))
			kvb_warn("%s", e2.msg);
		return rc;
	}
	if (!strcmp(res.outcome, "skip") && *fails_in_a_row >= 2) {
		res.outcome = "abort";
		snprintf(res.reason + strlen(res.reason), sizeof(res.reason) - strlen(res.reason),
			 " (second step in a row whose kernel never came up: the board looks unusable)");
	}
	st.outcome = res.outcome;
	st.value = res.value;
	st.vs_good = res.vs_good;
	st.vs_bad = res.vs_bad;
	st.boots = res.boots;
	st.reason = res.reason;
	if ((rc = kvb_store_bisect_step_add(b->st, b->row.id, &st, err)))
		return rc;
	kvb_info("bisect step %d: %.12s is %s: %s", b->step, next, res.outcome, res.reason);
	if (!strcmp(res.outcome, "abort"))
		return kvb_error_set(err, KVB_ETARGET, "bisect aborted at step %d: %s", b->step, res.reason);
	rc = mark(b, res.outcome, next, ans, err);
	save_log(b);
	return rc;
}

static int print_step(void *arg, const struct kvb_bisect_step *st)
{
	FILE *out = arg;
	char v[32] = "-", g[32] = "-", bd[32] = "-";
	if (!isnan(st->value))
		kvb_fmt_num(st->value, v, sizeof(v));
	if (!isnan(st->vs_good))
		snprintf(g, sizeof(g), "%+.1f%%", st->vs_good);
	if (!isnan(st->vs_bad))
		snprintf(bd, sizeof(bd), "%+.1f%%", st->vs_bad);
	fprintf(out, "%-4d %-12.12s %-36.36s %-7s %10s %9s %9s %5d %5lld  %.160s\n", st->step, st->sha, st->subject,
		st->outcome, v, g, bd, st->boots, (long long)st->run_id, st->reason);
	return 0;
}

/* The first bad commit found: stored as done and printed with the change measured at it. */
static int found(struct kvb_bisect *b, const char *first, double change, FILE *out, struct kvb_error *err)
{
	char *subject = kvb_git_subject(b->row.repo, first);
	int rc = kvb_store_bisect_step_change(b->st, b->row.id, first, &change, err);
	if (!rc)
		rc = kvb_store_bisect_done(b->st, b->row.id, first, change, NULL, err);
	fprintf(out, "first bad commit: %s %s\n", first, subject);
	fprintf(out, "measured change against good %.12s: %+.2f%% on %s\n\n", b->row.good, change, b->row.metric);
	free(subject);
	return rc;
}

int kvb_bisect_steps(struct kvb_bisect *b, FILE *out, struct kvb_error *err)
{
	char *ans = NULL, first[41] = "";
	double range_change = NAN;
	int rc, fails_in_a_row = 0;
	struct kvb_error e2;

	if ((rc = endpoints(b, &range_change, err)))
		return rc;
	kvb_info("bisect: bad is %+.1f%% on %s against good; bisecting", range_change, b->row.metric);
	rc = start_git(b, &ans, err);
	while (!rc && !first_bad_of(ans, first)) {
		if (strstr(ans, "only 'skip'ped commits left")) {
			rc = kvb_error_set(err, KVB_EUNDECIDED,
					   "bisect cannot decide: only skipped (untestable) commits are left:\n%s", ans);
			if (kvb_store_bisect_done(b->st, b->row.id, NULL, NAN, ans, &e2))
				kvb_warn("%s", e2.msg);
			break;
		}
		rc = one_step(b, &ans, &fails_in_a_row, err);
	}
	if (b->started)
		save_log(b);
	if (!rc && first[0])
		rc = found(b, first, range_change, out, err);
	fprintf(out, "%-4s %-12s %-36s %-7s %10s %9s %9s %5s %5s  %s\n", "step", "commit", "subject", "outcome",
		b->metric_name, "vs good", "vs bad", "boots", "run", "reason");
	if (kvb_store_bisect_steps(b->st, b->row.id, print_step, out, &e2))
		kvb_warn("%s", e2.msg);
	free(ans);
	return rc;
}
