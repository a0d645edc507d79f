/* Unit tests for the --until-decided look (engine/decide.c) on a real SQLite results DB. */
#include "engine/decide.h"
#include "store/csvio.h"
#include "stats/verdict.h"
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

static char dir[64];

/*
 * An imported run with 4 boots x 3 runs per variant (boot = round column):
 * m_worse +10 % on every run, m_undec boots 100/104/97/101 vs 99/103/101/96,
 * m_late: round 1 runs 100 +- 0.05 vs 60/120/180 (undecided on its own), rounds
 * 2-4 100 +- 0.05 vs 120 +- 0.05 (boot means 100 vs 120: decided with them); m_pair
 * boots 100/110/95/105 against 2 % more in the same round (what a duet sees: the round moves
 * both sides alike); m_zero 0 on both sides (dmesg_warnings); m_cold boots 100/104/97/101 vs 1.2x, the first run of every boot
 * 2-6x slower (cold: boot means 133-278, undecidable; boot medians 100.05/104.05/... vs
 * 120.05/124.85/...: decided).
 */
static struct kvb_store *open_db(int64_t *run)
{
	struct kvb_store *st = NULL;
	struct kvb_error err;
	char csv[128], db[128];
	snprintf(dir, sizeof(dir), "/tmp/kvb-test-decide-XXXXXX");
	if (!mkdtemp(dir))
		abort();
	snprintf(csv, sizeof(csv), "%s/in.csv", dir);
	snprintf(db, sizeof(db), "%s/r.db", dir);
	FILE *f = fopen(csv, "w");
	const double lb[4] = { 100, 104, 97, 101 }, lv[4] = { 99, 103, 101, 96 }, pb[4] = { 100, 110, 95, 105 };
	const double cold[2][4] = { { 2, 6, 3, 5 }, { 6, 2, 5, 3 } };
	fputs("variant,workload,metric,value,units,lower_is_better,iteration,boot\n", f);
	for (int v = 0; v < 2; v++)
		for (int b = 0; b < 4; b++)
			for (int r = 0; r < 3; r++) {
				double d = (r - 1) * 0.05;
				fprintf(f, "%s,w,m_worse,%g,s,1,%d,%d\n", v ? "new" : "base", (100 + d) * (v ? 1.1 : 1), b * 3 + r + 1, b + 1);
				fprintf(f, "%s,w,m_undec,%g,s,1,%d,%d\n", v ? "new" : "base", (v ? lv : lb)[b] + d, b * 3 + r + 1, b + 1);
				fprintf(f, "%s,w,m_late,%g,s,1,%d,%d\n", v ? "new" : "base",
					v ? (b ? 120 + d : 60.0 + 60 * r) : 100 + d, b * 3 + r + 1, b + 1);
				fprintf(f, "%s,w,m_pair,%g,s,1,%d,%d\n", v ? "new" : "base", (pb[b] + d) * (v ? 1.02 : 1),
					b * 3 + r + 1, b + 1);
				fprintf(f, "%s,w,m_zero,0,count,1,%d,%d\n", v ? "new" : "base", b * 3 + r + 1, b + 1);
				fprintf(f, "%s,w,m_cold,%g,s,1,%d,%d\n", v ? "new" : "base",
					(lb[b] * (v ? 1.2 : 1) + d) * (r ? 1 : cold[v][b]), b * 3 + r + 1, b + 1);
			}
	fclose(f);
	CHECK(kvb_store_open(&st, db, 0, &err) == KVB_OK);
	CHECK(kvb_csv_import(st, csv, run, &err) == KVB_OK);
	return st;
}

static void cleanup(struct kvb_store *st)
{
	char cmd[128];
	kvb_store_close(st);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

static void test_decide__stops_when_every_chosen_metric_is_decided(void)
{
	int64_t run = 0;
	struct kvb_store *st = open_db(&run);
	struct kvb_decide_opts d = { .margin = 0.01, .alpha = 0.05, .max_rounds = 4, .add_rounds = 1 }, back;
	struct kvb_error err;
	int stop = -1, found = 0;
	kvb_strv_push(&d.metrics, "w/m_worse");
	CHECK(kvb_decide_save(st, run, &d, &err) == KVB_OK);
	CHECK(kvb_decide_load(st, run, &back, &found, &err) == KVB_OK);
	CHECK(found && back.max_rounds == 4 && back.margin == 0.01 && back.metrics.n == 1);
	CHECK(back.add_rounds == 1); /* --resume rebuilds the rounds as they were planned */
	CHECK_STR(back.metrics.v[0], "w/m_worse");
	/* look 4 of 4 tests at ~0.041: +10 % with 4 boots a side is decided */
	CHECK(kvb_decide_look(st, run, &d, 4, 0, 1, 0, &stop, &err) == KVB_OK);
	CHECK(stop == 1);
	sqlite3_stmt *s;
	CHECK(sqlite3_prepare_v2(st->db, "SELECT decided_round, outcome FROM run_decide WHERE run_id = ?", -1, &s, NULL) == SQLITE_OK);
	sqlite3_bind_int64(s, 1, run);
	CHECK(sqlite3_step(s) == SQLITE_ROW);
	CHECK(sqlite3_column_int(s, 0) == 4);
	CHECK_STR((const char *)sqlite3_column_text(s, 1), "decided");
	sqlite3_finalize(s);
	/* no look outside 1..max_rounds */
	CHECK(kvb_decide_look(st, run, &d, 5, 0, 1, 0, &stop, &err) == KVB_OK);
	CHECK(stop == 0);
	kvb_decide_opts_release(&d);
	kvb_decide_opts_release(&back);
	cleanup(st);
}

static void test_decide__undecided_metric_runs_on_until_the_time_budget(void)
{
	int64_t run = 0;
	struct kvb_store *st = open_db(&run);
	struct kvb_decide_opts d = { .margin = 0.01, .alpha = 0.05, .max_rounds = 10, .max_time_s = 60 };
	struct kvb_error err;
	int stop = -1;
	/* every metric: m_undec (a 0.75 % difference under 3 % boot noise) keeps the run going */
	CHECK(kvb_decide_save(st, run, &d, &err) == KVB_OK);
	CHECK(kvb_decide_look(st, run, &d, 4, 0, 10, 0, &stop, &err) == KVB_OK);
	CHECK(stop == 0);
	/* 40 s run, rounds of ~15 s: the next one ends within the 60 s */
	CHECK(kvb_decide_look(st, run, &d, 4, 0, 40, 15, &stop, &err) == KVB_OK);
	CHECK(stop == 0);
	/* rounds of ~25 s: the next one would end at 65 s, past the budget, so it is not started */
	CHECK(kvb_decide_look(st, run, &d, 4, 0, 40, 25, &stop, &err) == KVB_OK);
	CHECK(stop == 1);
	CHECK(kvb_decide_look(st, run, &d, 4, 0, 61, 0, &stop, &err) == KVB_OK);
	CHECK(stop == 1); /* budget spent */
	double sec;
	CHECK(kvb_decide_parse_duration("30m", &sec) == 0 && sec == 1800);
	CHECK(kvb_decide_parse_duration("2h", &sec) == 0 && sec == 7200);
	CHECK(kvb_decide_parse_duration("90", &sec) == 0 && sec == 90);
	CHECK(kvb_decide_parse_duration("5d", &sec) == KVB_EINPUT);
	CHECK(kvb_decide_parse_duration("-3s", &sec) == KVB_EINPUT);
	kvb_decide_opts_release(&d);
	cleanup(st);
}

/*
 * A resumed run looks again after round 1 while round 2's jobs are already stored:
 * the look must judge round 1 alone (undecided), not all four rounds (decided).
 */
/*
 * A duet (execution_order: duet): m_pair's +2 % hides under 6 % boot-to-boot spread when the
 * boots are compared as independent samples, and shows when each round's two sides are paired
 * (differences 2, 2.2, 1.9, 2.1: t about 41 with 3 df).
 */
static void test_decide__duet_look_pairs_the_rounds(void)
{
	int64_t run = 0;
	struct kvb_store *st = open_db(&run);
	struct kvb_decide_opts d = { .margin = 0.005, .alpha = 0.05, .max_rounds = 4 };
	struct kvb_error err;
	int stop = -1;
	kvb_strv_push(&d.metrics, "w/m_pair");
	CHECK(kvb_decide_save(st, run, &d, &err) == KVB_OK);
	/* not a duet: the independent boots cannot tell */
	CHECK(kvb_decide_look(st, run, &d, 4, 0, 1, 0, &stop, &err) == KVB_OK);
	CHECK(stop == 0);
	/* stored as a duet and looked at as one: decided (worse, lower is better) */
	CHECK(sqlite3_exec(st->db, "UPDATE run SET exec_order = 'duet'", NULL, NULL, NULL) == SQLITE_OK);
	CHECK(kvb_decide_look(st, run, &d, 4, 1, 1, 0, &stop, &err) == KVB_OK);
	CHECK(stop == 1);
	kvb_decide_opts_release(&d);
	cleanup(st);
}

static void test_decide__look_sees_only_the_rounds_up_to_it(void)
{
	int64_t run = 0;
	struct kvb_store *st = open_db(&run);
	struct kvb_decide_opts d = { .margin = 0.01, .alpha = 0.05, .max_rounds = 2 };
	struct kvb_error err;
	int stop = -1;
	kvb_strv_push(&d.metrics, "w/m_late");
	CHECK(kvb_decide_save(st, run, &d, &err) == KVB_OK);
	CHECK(kvb_decide_look(st, run, &d, 1, 0, 1, 0, &stop, &err) == KVB_OK);
	CHECK(stop == 0);
	/* the final look sees rounds 1-2: boot means 100, 100 vs 120, 120 */
	CHECK(kvb_decide_look(st, run, &d, 2, 0, 1, 0, &stop, &err) == KVB_OK);
	CHECK(stop == 1);
	sqlite3_stmt *s;
	CHECK(sqlite3_prepare_v2(st->db, "SELECT decided_round, outcome FROM run_decide", -1, &s, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(s) == SQLITE_ROW);
	CHECK(sqlite3_column_int(s, 0) == 2);
	CHECK_STR((const char *)sqlite3_column_text(s, 1), "decided");
	sqlite3_finalize(s);
	kvb_decide_opts_release(&d);
	cleanup(st);
}

/* A cold first run in every boot (2-6x) does not hide a +20 % change from a look: boots are judged by their level. */
static void test_decide__cold_first_runs_do_not_hide_a_change(void)
{
	int64_t run = 0;
	struct kvb_store *st = open_db(&run);
	struct kvb_decide_opts d = { .margin = 0.01, .alpha = 0.05, .max_rounds = 4 };
	struct kvb_error err;
	int stop = -1;
	kvb_strv_push(&d.metrics, "w/m_cold");
	CHECK(kvb_decide_save(st, run, &d, &err) == KVB_OK);
	CHECK(kvb_decide_look(st, run, &d, 4, 0, 1, 0, &stop, &err) == KVB_OK);
	CHECK(stop == 1);
	kvb_decide_opts_release(&d);
	cleanup(st);
}

/* Exact boundaries: the K looks' crossing probabilities under no change add up to alpha (Monte Carlo, 40000 paths). */
/*
 * A look on negative boot means (rt-app slack_min, higher is better): more
 * negative is worse (issue 26: the ratio of the means, 2.6, said better), and
 * "same" is judged on the difference in % of |baseline|.
 */
static void test_seq_judge__negative_boot_means_direction_and_same(void)
{
	const double mb[] = { -23822, -23500, -24100, -23900 }, mv[] = { -62614, -61900, -63300, -62000 };
	struct kvb_verdict v;
	CHECK(kvb_seq_judge(mb, 4, mv, 4, 0.04, 0.01, 0, &v, NULL) == KVB_OK);
	CHECK_STR(v.name, "worse");
	CHECK(kvb_seq_judge(mb, 4, mv, 4, 0.04, 0.01, 1, &v, NULL) == KVB_OK);
	CHECK_STR(v.name, "better");
	const double sb[] = { -1000.0, -1000.4, -999.7, -1000.1 }, sv[] = { -1000.2, -1000.3, -999.8, -1000.0 };
	CHECK(kvb_seq_judge(sb, 4, sv, 4, 0.04, 0.01, 0, &v, NULL) == KVB_OK);
	CHECK_STR(v.name, "same");
}

/*
 * 0 on both sides is "same" at the first look that has 2 boots a side, so --until-decided
 * stops there (issue 38: it stayed undecided with a CI of [0, 0] and never stopped); the
 * sequential judge on boot means of 0 says the same.
 */
static void test_decide__zero_against_zero_is_same_and_stops(void)
{
	int64_t run = 0;
	struct kvb_store *st = open_db(&run);
	struct kvb_decide_opts d = { .margin = 0.01, .alpha = 0.05, .max_rounds = 4 };
	struct kvb_error err;
	int stop = -1;
	kvb_strv_push(&d.metrics, "w/m_zero");
	CHECK(kvb_decide_save(st, run, &d, &err) == KVB_OK);
	CHECK(kvb_decide_look(st, run, &d, 2, 0, 1, 0, &stop, &err) == KVB_OK);
	CHECK(stop == 1);
	const double z[] = { 0, 0, 0 };
	struct kvb_verdict v;
	CHECK(kvb_seq_judge(z, 3, z, 3, 0.01, 0.01, 1, &v, NULL) == KVB_OK);
	CHECK_STR(v.name, "same");
	kvb_decide_opts_release(&d);
	cleanup(st);
}

/*
 * Runs of one boot (local) are the units, as in diff, whose verdict then needs Welch and
 * Mann-Whitney both: 5 runs a side 20 % apart have Welch p ~1e-10 but an exact Mann-Whitney p of
 * 0.0079 at best, so look 1 of 2 (level 0.0052) is undecided (it called "worse" and stopped a run
 * whose table said undecided), and look 2 (0.048) decides.
 */
static void test_decide__runs_of_one_boot_need_mann_whitney_too(void)
{
	struct kvb_store *st = NULL;
	struct kvb_error err;
	struct kvb_decide_opts d = { .margin = 0.01, .alpha = 0.05, .max_rounds = 2, .add_rounds = 1 };
	int64_t run = 0;
	int stop = -1;
	char csv[128], db[128];
	const double base[5] = { 100, 101, 99, 100.5, 99.5 };
	snprintf(dir, sizeof(dir), "/tmp/kvb-test-decide-XXXXXX");
	if (!mkdtemp(dir))
		abort();
	snprintf(csv, sizeof(csv), "%s/in.csv", dir);
	snprintf(db, sizeof(db), "%s/r.db", dir);
	FILE *f = fopen(csv, "w");
	fputs("variant,workload,metric,value,units,lower_is_better,iteration,boot\n", f);
	for (int v = 0; v < 2; v++)
		for (int i = 0; i < 5; i++)
			fprintf(f, "%s,w,m,%g,s,1,%d,1\n", v ? "new" : "base", base[i] * (v ? 1.2 : 1), i + 1);
	fclose(f);
	CHECK(kvb_store_open(&st, db, 0, &err) == KVB_OK);
	CHECK(kvb_csv_import(st, csv, &run, &err) == KVB_OK);
	CHECK(kvb_decide_save(st, run, &d, &err) == KVB_OK);
	CHECK(kvb_decide_look(st, run, &d, 1, 0, 1, 0, &stop, &err) == KVB_OK);
	CHECK(stop == 0);
	CHECK(kvb_decide_look(st, run, &d, 2, 0, 1, 0, &stop, &err) == KVB_OK);
	CHECK(stop == 1);
	sqlite3_stmt *s;
	CHECK(sqlite3_prepare_v2(st->db, "SELECT outcome FROM run_decide", -1, &s, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(s) == SQLITE_ROW);
	CHECK_STR((const char *)sqlite3_column_text(s, 0), "decided");
	sqlite3_finalize(s);
	kvb_decide_opts_release(&d);
	cleanup(st);
}

static void test_seq_bounds__family_wise_rate_is_alpha(void)
{
	double nominal[10];
	CHECK(kvb_seq_bounds(0.05, 10, nominal) == 0);
	CHECK(fabs(nominal[0] - kvb_alpha_spent_obf(0.05, 0.1)) < 1e-12);
	for (int k = 1; k < 10; k++)
		CHECK(nominal[k] > nominal[k - 1]);
	CHECK(nominal[9] > 0.03 && nominal[9] < 0.05); /* Bonferroni increments would give 0.011 */
	double one[1];
	CHECK(kvb_seq_bounds(0.05, 1, one) == 0 && fabs(one[0] - 0.05) < 1e-12);
	CHECK(kvb_seq_bounds(0.05, 0, one) == KVB_EINPUT);
	/* partial sums of N(0,1) steps; z_k = S_k / sqrt(k); reject at the first |z_k| beyond nominal[k] */
	unsigned long x = 12345;
	int rejected = 0, n = 40000;
	for (int t = 0; t < n; t++) {
		double s = 0;
		for (int k = 1; k <= 10; k++) {
			/* Box-Muller on a small LCG: enough for a rate */
			x = x * 6364136223846793005ul + 1442695040888963407ul;
			double u1 = ((x >> 11) + 0.5) / 9007199254740992.0;
			x = x * 6364136223846793005ul + 1442695040888963407ul;
			double u2 = ((x >> 11) + 0.5) / 9007199254740992.0;
			s += sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
			double z = fabs(s) / sqrt((double)k), p = erfc(z / sqrt(2));
			if (p < nominal[k - 1]) {
				rejected++;
				break;
			}
		}
	}
	fprintf(stderr, "  10 looks, no change: %d of %d rejected (%.2f %%)\n", rejected, n, 100.0 * rejected / n);
	CHECK(fabs((double)rejected / n - 0.05) < 0.005); /* 4.6 standard errors */
}

#define TESTS                                                                                                          \
	T(test_seq_judge__negative_boot_means_direction_and_same)                                                      \
	T(test_decide__stops_when_every_chosen_metric_is_decided)                                                      \
	T(test_decide__zero_against_zero_is_same_and_stops)                                                            \
	T(test_decide__undecided_metric_runs_on_until_the_time_budget)                                                 \
	T(test_decide__duet_look_pairs_the_rounds)                                                                     \
	T(test_decide__cold_first_runs_do_not_hide_a_change)                                                           \
	T(test_decide__look_sees_only_the_rounds_up_to_it)                                                             \
	T(test_decide__runs_of_one_boot_need_mann_whitney_too)                                                      \
	T(test_seq_bounds__family_wise_rate_is_alpha)
#include "test_main.h"
