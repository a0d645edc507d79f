/*
 * Simulates A/A and A/B sequences of `kvbench run` on a board with the QEMU
 * board's spread (boot level sd 3 %, run sd 1 % within a boot, 5 runs per
 * boot) and judges each one two ways:
 *  fixed       all ROUNDS rounds, then `kvbench diff`'s rule (each boot's 20 %
 *              trimmed mean; the bootstrap of the boots' CI of the ratio
 *              excludes 1 AND Welch on those levels p < alpha;
 *              kvb_stats_boot_robust, 1000 resamples), then the three-way verdict
 *  sequential  `run --until-decided`: after each round from the 2nd, the look's
 *              nominal level from Lan-DeMets O'Brien-Fleming-type spending
 *              (kvb_seq_bounds) on the boot means (kvb_seq_judge); stop at
 *              the first decision
 * Prints, per design: false-positive rate on A/A (goal <= alpha), power for a
 * 5 % shift on A/B (goal >= 90 %), "same" and undecided shares, mean boots per
 * variant used. Usage: verdict_sim [SEQUENCES [ROUNDS [SEED]]] (default 1000 10 1).
 *
 * verdict_sim --robust [TRIALS [SEED]] (default 2000 1) compares the mean's
 * test with boots before and after issue 38 on 3 boots a side, 5 runs a boot,
 * boot sd 3 % (and 8 %, where the old rule's power at +20 % is near the 46 %
 * measured on real QEMU boots), run sd 1 % and 3 %, with and without a cold
 * first run in every boot (2-6x slower, uniform):
 *  old  two-level bootstrap of the run means (kvb_stats_hier_bootstrap, 2000
 *       resamples) CI excludes 1 AND Welch on the boot means p < alpha
 *  new  each boot's 20 % trimmed mean, boots alone resampled
 *       (kvb_stats_boot_robust, 2000 resamples) CI excludes 1 AND Welch on
 *       those levels p < alpha
 * each then through kvb_verdict_judge as results/cell_stats.c does. Prints the
 * A/A false-positive rate (better or worse on no change) and the power (worse
 * on +5 % and +20 %, lower is better); exits 1 when the new rule's FP rate
 * exceeds alpha by more than 2 Monte Carlo standard errors.
 */
#include "stats/stats.h"
#include "stats/verdict.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { RUNS = 5, MAXR = 64 };
static const double BOOT_SD = 0.03, RUN_SD = 0.01, ALPHA = 0.05, MARGIN = 0.01;

struct tally {
	int change, wrong_dir, same, undecided;
	double boots;
};

/* One boot: RUNS runs around a level drawn for this boot; stores the runs and returns their mean. */
static double boot(gsl_rng *rng, double mu, double *runs)
{
	double level = mu * (1 + gsl_ran_gaussian_ziggurat(rng, BOOT_SD)), sum = 0;
	for (int r = 0; r < RUNS; r++)
		sum += runs[r] = level * (1 + gsl_ran_gaussian_ziggurat(rng, RUN_SD));
	return sum / RUNS;
}

static void count(struct tally *t, const struct kvb_verdict *v, double shift, double boots)
{
	/* lower_is_better = 1: a +5 % shift is "worse" */
	if (v->kind == KVB_VERDICT_WORSE || v->kind == KVB_VERDICT_BETTER) {
		t->change++;
		t->wrong_dir += shift > 0 && v->kind == KVB_VERDICT_BETTER;
	}
	t->same += v->kind == KVB_VERDICT_SAME;
	t->undecided += v->kind == KVB_VERDICT_UNDECIDED;
	t->boots += boots;
}

/* One boot for --robust: n runs around a level with sd boot_sd, run sd run_sd; the first run cold (x 2-6) when cold. */
static void robust_boot(gsl_rng *rng, double mu, double boot_sd, double run_sd, int cold, double *runs)
{
	double level = mu * (1 + gsl_ran_gaussian_ziggurat(rng, boot_sd));
	for (int r = 0; r < RUNS; r++)
		runs[r] = level * (1 + gsl_ran_gaussian_ziggurat(rng, run_sd));
	if (cold)
		runs[0] *= gsl_ran_flat(rng, 2, 6);
}

/* The verdict of one rule's result as kvb_cell_verdict gives it (lower is better). */
static enum kvb_verdict_kind robust_judge(const struct kvb_boot_cmp *bc)
{
	struct kvb_verdict v;
	double lo = fmin(bc->rel_ci_lo, bc->boot_rel_ci_lo), hi = fmax(bc->rel_ci_hi, bc->boot_rel_ci_hi);
	double base = bc->robust ? bc->level_b : bc->ratio_ok ? bc->diff / (bc->ratio - 1) : NAN;
	struct kvb_verdict_in in = { .significant = bc->significant && bc->boot_welch_p < ALPHA, .diff = bc->diff,
				     .change = bc->robust ? bc->diff / fabs(base) : bc->ratio - 1, .ci_lo = lo,
				     .ci_hi = hi, .boots = bc->boots_b, .margin = MARGIN, .lower_is_better = 1 };
	kvb_verdict_judge(&in, &v);
	return v.kind;
}

static int robust_main(int trials, unsigned long seed)
{
	enum { BOOTS = 3, N = BOOTS * RUNS, RES = 2000 };
	static const double boot_sds[] = { 0.03, 0.08 }, run_sds[] = { 0.01, 0.03 }, shifts[] = { 0, 0.05, 0.20 };
	double xb[N], xv[N];
	int ib[N], iv[N], ok = 1;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	for (int i = 0; i < N; i++)
		ib[i] = iv[i] = i / RUNS;
	printf("robust boot test: %d trials a row, %d boots a side, %d runs a boot, alpha %.2f, lower is better;\n"
	       "  cold: the first run of every boot x U(2, 6); old = two-level bootstrap of run means + Welch on boot\n"
	       "  means, new = 20 %% trimmed mean a boot, boots resampled + Welch on those (%d resamples each)\n",
	       trials, BOOTS, RUNS, ALPHA, RES);
	printf("  %-8s %-7s %-5s | %-15s | %-15s | %-15s\n", "boot sd", "run sd", "cold", "A/A FP old/new",
	       "+5 % pw old/new", "+20 % pw old/new");
	for (size_t bs = 0; bs < sizeof(boot_sds) / sizeof(*boot_sds); bs++)
		for (size_t rs = 0; rs < sizeof(run_sds) / sizeof(*run_sds); rs++)
			for (int cold = 0; cold < 2; cold++) {
				int hit[3][2] = { { 0 } };
				for (size_t sh = 0; sh < 3; sh++)
					for (int t = 0; t < trials; t++) {
						for (int k = 0; k < BOOTS; k++) {
							robust_boot(rng, 100, boot_sds[bs], run_sds[rs], cold, xb + k * RUNS);
							robust_boot(rng, 100 * (1 + shifts[sh]), boot_sds[bs], run_sds[rs], cold,
								    xv + k * RUNS);
						}
						struct kvb_boot_cmp o, n;
						unsigned long s2 = seed * 7919 + (unsigned long)t;
						if (kvb_stats_hier_bootstrap(xb, ib, N, xv, iv, N, RES, s2, ALPHA, &o, NULL) ||
						    kvb_stats_boot_robust(xb, ib, NULL, N, xv, iv, NULL, N, RES, s2, ALPHA, &n, NULL))
							return 2;
						enum kvb_verdict_kind ko = robust_judge(&o), kn = robust_judge(&n);
						/* A/A: any change is a false positive; A/B: only "worse" (the right direction) counts */
						hit[sh][0] += sh ? ko == KVB_VERDICT_WORSE : ko == KVB_VERDICT_WORSE || ko == KVB_VERDICT_BETTER;
						hit[sh][1] += sh ? kn == KVB_VERDICT_WORSE : kn == KVB_VERDICT_WORSE || kn == KVB_VERDICT_BETTER;
					}
				printf("  %6.0f %% %5.0f %% %-5s |", boot_sds[bs] * 100, run_sds[rs] * 100, cold ? "yes" : "no");
				for (int sh = 0; sh < 3; sh++)
					printf(" %5.1f%% / %5.1f%% |", 100.0 * hit[sh][0] / trials, 100.0 * hit[sh][1] / trials);
				printf("\n");
				ok &= (double)hit[0][1] / trials <= ALPHA + 2 * sqrt(ALPHA * (1 - ALPHA) / trials);
			}
	printf("  new rule's A/A FP <= alpha (within 2 Monte Carlo se): %s\n", ok ? "ok" : "MISSED");
	gsl_rng_free(rng);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--robust")) {
		int trials = argc > 2 ? atoi(argv[2]) : 2000;
		if (trials < 1) {
			fprintf(stderr, "usage: verdict_sim --robust [TRIALS [SEED]]\n");
			return 2;
		}
		return robust_main(trials, argc > 3 ? strtoul(argv[3], NULL, 10) : 1);
	}
	int nseq = argc > 1 ? atoi(argv[1]) : 1000, rounds = argc > 2 ? atoi(argv[2]) : 10;
	unsigned long seed = argc > 3 ? strtoul(argv[3], NULL, 10) : 1;
	if (nseq < 1 || rounds < 2 || rounds > MAXR) {
		fprintf(stderr, "usage: verdict_sim [SEQUENCES [ROUNDS(2-%d) [SEED]]]\n", MAXR);
		return 2;
	}
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	static double xb[MAXR * RUNS], xv[MAXR * RUNS], mb[MAXR], mv[MAXR];
	static int ib[MAXR * RUNS], iv[MAXR * RUNS];
	struct tally fixed[2] = { 0 }, seq[2] = { 0 };
	double nominal[MAXR];
	if (kvb_seq_bounds(ALPHA, (unsigned)rounds, nominal))
		return 2;
	for (int ab = 0; ab < 2; ab++) {
		double shift = ab ? 0.05 : 0;
		for (int s = 0; s < nseq; s++) {
			int decided_at = 0;
			struct kvb_verdict sv = { .kind = KVB_VERDICT_UNDECIDED };
			for (int k = 0; k < rounds; k++) {
				mb[k] = boot(rng, 100, xb + k * RUNS);
				mv[k] = boot(rng, 100 * (1 + shift), xv + k * RUNS);
				for (int r = 0; r < RUNS; r++)
					ib[k * RUNS + r] = iv[k * RUNS + r] = k;
				if (!decided_at && k >= 1) {
					if (kvb_seq_judge(mb, (size_t)k + 1, mv, (size_t)k + 1, nominal[k], MARGIN, 1, &sv, NULL) == 0 &&
					    sv.kind != KVB_VERDICT_UNDECIDED)
						decided_at = k + 1;
				}
			}
			count(&seq[ab], &sv, shift, decided_at ? decided_at : rounds);
			/* fixed: all rounds, diff's rule */
			struct kvb_boot_cmp bc;
			struct kvb_verdict fv = { .kind = KVB_VERDICT_UNDECIDED };
			size_t n = (size_t)rounds * RUNS;
			if (kvb_stats_boot_robust(xb, ib, NULL, n, xv, iv, NULL, n, 1000, seed * 7919 + (unsigned long)s, ALPHA,
						  &bc, NULL) == 0)
				fv.kind = robust_judge(&bc);
			count(&fixed[ab], &fv, shift, rounds);
		}
	}
	printf("verdict simulation: %d A/A + %d A/B sequences, up to %d rounds (1 boot per variant each),\n"
	       "  %d runs per boot, boot sd %.0f %%, run sd %.0f %%, alpha %.2f, same-margin %.0f %%, A/B shift +5 %%\n",
	       nseq, nseq, rounds, RUNS, BOOT_SD * 100, RUN_SD * 100, ALPHA, MARGIN * 100);
	printf("  %-34s %9s %9s %8s %9s %10s\n", "design", "A/A FP", "A/B power", "A/B same", "A/B undec", "mean boots");
	const char *names[2] = { "fixed rounds + diff rule", "--until-decided (OBF spending)" };
	struct tally *t[2] = { fixed, seq };
	for (int d = 0; d < 2; d++)
		printf("  %-34s %8.1f%% %8.1f%% %7.1f%% %8.1f%% %5.1f / %.1f\n", names[d], 100.0 * t[d][0].change / nseq,
		       100.0 * (t[d][1].change - t[d][1].wrong_dir) / nseq, 100.0 * t[d][1].same / nseq,
		       100.0 * t[d][1].undecided / nseq, t[d][0].boots / nseq, t[d][1].boots / nseq);
	printf("  (mean boots: A/A / A/B, per variant)\n");
	int ok = 1;
	for (int d = 0; d < 2; d++) {
		double fp = (double)t[d][0].change / nseq, pw = (double)(t[d][1].change - t[d][1].wrong_dir) / nseq;
		/* goal: FP <= alpha, allowing the Monte Carlo error of nseq trials (2 standard errors) */
		int fp_ok = fp <= ALPHA + 2 * sqrt(ALPHA * (1 - ALPHA) / nseq), pw_ok = pw >= 0.90;
		printf("  %-34s FP <= alpha: %s, power >= 90 %%: %s\n", names[d], fp_ok ? "ok" : "MISSED", pw_ok ? "ok" : "MISSED");
		ok &= fp_ok && pw_ok;
	}
	gsl_rng_free(rng);
	return ok ? 0 : 1;
}
