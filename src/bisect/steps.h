/* Inside src/bisect: what session.c, measure.c, judge.c and steps.c share (bisect.h says what they do). */
#ifndef KVB_BISECT_STEPS_H
#define KVB_BISECT_STEPS_H

#include "bisect/bisect.h"

void kvb_bisect_runs_add(struct kvb_bisect_runs *r, int64_t id);
void kvb_bisect_runs_release(struct kvb_bisect_runs *r);

/*
 * Boots of a commit's first measurement when neither --rounds nor the agenda's rounds: say:
 * the fewest that let the boot-aware verdict decide (one boot a side never does), so a step
 * whose two boots decide stops there; more come one at a time while undecided.
 */
#define KVB_BISECT_FIRST_BOOTS 2
/*
 * Measurements of a commit (or of the endpoints together) with a job the host left out that it
 * may take while undecided, beyond which it stops: the host is too busy to decide there. As
 * `run --until-decided --max-disturbed`'s default.
 */
#define KVB_BISECT_SPARE_BOOTS 3

/* A step's verdict so far: outcome NULL while undecided. */
struct kvb_step_result {
	const char *outcome;   /* good | bad | skip | abort, or NULL while undecided */
	double value, vs_good, vs_bad; /* the step's mean (metric units), its change against each endpoint, % */
	int boots, good_boots, bad_boots; /* the step's boots and the endpoints' (boots with a result that counts) */
	int left_out;          /* the step's results the host disturbed in every attempt: never judged */
	char reason[512];
};

/* `git bisect ARGS...` in the repository; *out gets stdout (owned) when out != NULL. */
int kvb_bisect_git(struct kvb_bisect *b, const char *const *args, char **out, struct kvb_error *err);

/*
 * One measurement of commit sha: build, run the agenda on it (a stored run, *run_id) with `rounds`
 * boots (0: the agenda's rounds:, else KVB_BISECT_FIRST_BOOTS). KVB_OK with *why NULL (measured) or set (owned: the variant failed: build, flash, boot or
 * identity), or an error (agenda, engine, store, KVB_EINTR). *booted: 1 a boot happened, 0 none,
 * -1 the build failed.
 */
int kvb_bisect_measure(struct kvb_bisect *b, const char *sha, int rounds, int64_t *run_id, char **why, int *booted,
		       struct kvb_error *err);
/*
 * Measures endpoint `which` (good | bad): its first run (row.rounds boots, into *run, nothing when
 * *run is set) or, extra != 0, one more boot whose run goes to b->ends and bisect_endpoint_run. A
 * run whose boot or identity check failed is tried once more (a build failure is not) before
 * KVB_ETARGET "the ... endpoint cannot be measured". *left_out: the jobs of the run just
 * measured that the host disturbed in every attempt (0 when nothing was measured).
 */
int kvb_bisect_measure_endpoint(struct kvb_bisect *b, const char *which, const char *sha, int64_t *run, int extra,
				int64_t *left_out, struct kvb_error *err);
/*
 * Compares commit sha (the runs `mine`) with both endpoints: fills res (value, vs_good, vs_bad,
 * boots; outcome when decided, or once it has max_boots boots the nearer endpoint; 0 = never).
 * Only the results view counts: a job the host disturbed in every attempt (status disturbed) is
 * never judged, and a commit whose every result was left out is undecided (res->left_out > 0,
 * boots 0, KVB_OK). KVB_EINPUT when the metric is not in the results.
 */
int kvb_bisect_judge(struct kvb_bisect *b, const char *sha, const struct kvb_bisect_runs *mine, int max_boots,
		     struct kvb_step_result *res, struct kvb_error *err);
/*
 * The endpoints must differ: bad worse than good by >= threshold; *change is bad against good
 * (%). *more = 1 (KVB_OK) while they are undecided and have fewer than max_rounds boots that
 * count; r gets each endpoint's boots (good_boots, bad_boots). KVB_EINPUT when they are the
 * wrong way round, too close, or never decided.
 */
int kvb_bisect_check_endpoints(struct kvb_bisect *b, double *change, int *more, struct kvb_step_result *r,
			       struct kvb_error *err);
/*
 * How many of runs' jobs the host disturbed (store/disturbance.h); when one was left out, logs
 * the one line with `what` ("the bad endpoint 1234abcd5678") in front. *left_out: the jobs left
 * out. KVB_ESTORE.
 */
int kvb_bisect_disturbance(struct kvb_bisect *b, const int64_t *runs, size_t nruns, const char *what, int64_t *left_out,
			   struct kvb_error *err);
/*
 * KVB_EUNDECIDED with "the host was too busy to decide WHAT: K of M jobs disturbed; run on a
 * quieter host or on the instruction-clock board -p qemu-x86_64-icount", K and M over runs
 * (KVB_ESTORE when they cannot be read).
 */
int kvb_bisect_too_busy(struct kvb_bisect *b, const int64_t *runs, size_t nruns, const char *what,
			struct kvb_error *err);
/* The endpoints, then git's bisect step by step to the first bad commit (printed to out). */
int kvb_bisect_steps(struct kvb_bisect *b, FILE *out, struct kvb_error *err);

#endif
