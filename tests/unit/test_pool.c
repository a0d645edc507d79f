/* Tests for board pools: boards: in a platform, the pool's board list, and the board level of the bootstrap. */
#include "config/platform.h"
#include "engine/catalog.h"
#include "core/error.h"
#include "core/util.h"
#include "engine/pool.h"
#include "stats/board.h"
#include "stats/stats.h"

#include "test.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char g_dir[] = "/tmp/kvb-test-pool.XXXXXX";

/* Writes text to <g_dir>/name and returns the path (owned). */
static char *write_file(const char *name, const char *text)
{
	char *path = kvb_xasprintf("%s/%s", g_dir, name);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return path;
}

/* Loads a platform from text; returns the load's code, the first message in *msg (owned) if any. */
static int load(struct kvb_platform *p, const char *name, const char *text, char **msg)
{
	struct kvb_diag d;
	char *path = write_file(name, text);
	int rc;
	kvb_diag_init(&d, NULL);
	rc = kvb_platform_load(p, path, &kvb_catalog, &d);
	*msg = d.msgs.n ? kvb_xstrdup(d.msgs.v[0]) : NULL;
	kvb_diag_release(&d);
	free(path);
	return rc;
}

static const char two_boards[] = "name: farm\n"
				 "connection: {type: ssh, user: bench, connect_timeout_s: 5}\n"
				 "boards:\n"
				 "  - {name: b1, connection: {host: 10.0.0.1}}\n"
				 "  - {connection: {host: 10.0.0.2, port: 2222, user: other}}\n";

static void test_platform__boards_lay_their_connection_over_the_platforms(void)
{
	struct kvb_platform p;
	char *msg = NULL;
	CHECK(load(&p, "farm.yaml", two_boards, &msg) == KVB_OK);
	CHECK(msg == NULL);
	CHECK(p.nboards == 2);
	if (p.nboards == 2) {
		CHECK_STR(p.boards[0].name, "b1");
		/* an unnamed board is called after the platform and its 1-based position */
		CHECK_STR(p.boards[1].name, "farm#2");
		CHECK_STR(p.boards[0].conn_type, "ssh");
		CHECK_STR(kvb_get_str(p.boards[0].conn, "host", NULL), "10.0.0.1");
		CHECK_STR(kvb_get_str(p.boards[0].conn, "user", NULL), "bench");
		CHECK(kvb_get_int(p.boards[0].conn, "connect_timeout_s", 0) == 5);
		CHECK_STR(kvb_get_str(p.boards[1].conn, "user", NULL), "other");
		CHECK(kvb_get_int(p.boards[1].conn, "port", 0) == 2222);
		/* the one-board code paths see the first board */
		CHECK(p.conn == p.boards[0].conn);
	}
	free(msg);
	kvb_platform_release(&p);
}

static void test_platform__board_missing_a_required_key_names_it(void)
{
	struct kvb_platform p;
	char *msg = NULL;
	/* the second board lays nothing over a connection without host: ssh needs one */
	CHECK(load(&p, "nohost.yaml",
		   "name: farm\nconnection: {type: ssh}\nboards:\n  - {connection: {host: a}}\n  - {connection: {port: 22}}\n",
		   &msg) == KVB_EINPUT);
	CHECK_CONTAINS(msg, "boards[1].connection");
	CHECK_CONTAINS(msg, "missing required key 'host'");
	free(msg);
	kvb_platform_release(&p);
}

static void test_platform__boards_of_two_kinds_are_refused(void)
{
	struct kvb_platform p;
	char *msg = NULL;
	CHECK(load(&p, "mixed.yaml",
		   "name: mixed\nboards:\n  - {name: x, connection: {type: local}}\n"
		   "  - {name: y, connection: {type: ssh, host: h}}\n",
		   &msg) == KVB_EINPUT);
	CHECK_CONTAINS(msg, "boards[1].connection");
	CHECK_CONTAINS(msg, "a pool holds boards of one kind");
	free(msg);
	kvb_platform_release(&p);
}

static void test_platform__duplicate_board_names_and_no_connection(void)
{
	struct kvb_platform p;
	char *msg = NULL;
	CHECK(load(&p, "dup.yaml",
		   "name: dup\nconnection: {type: local}\nboards:\n  - {name: a, connection: {}}\n  - {name: a, connection: {}}\n",
		   &msg) == KVB_EINPUT);
	CHECK_CONTAINS(msg, "board name 'a' is used twice");
	free(msg);
	kvb_platform_release(&p);
	CHECK(load(&p, "none.yaml", "name: none\n", &msg) == KVB_EINPUT);
	CHECK_CONTAINS(msg, "missing required key 'connection'");
	free(msg);
	kvb_platform_release(&p);
}

static void test_pool_list__boards_then_extra_platforms_with_unique_names(void)
{
	struct kvb_platform p, q1, q2, *more[2] = { &q1, &q2 };
	struct kvb_pool_list l;
	struct kvb_error err;
	char *msg = NULL;
	CHECK(load(&p, "farm.yaml", two_boards, &msg) == KVB_OK);
	CHECK(load(&q1, "extra.yaml", "name: extra\nconnection: {type: ssh, host: 10.0.0.3}\n", &msg) == KVB_OK);
	CHECK(load(&q2, "extra2.yaml", "name: extra\nconnection: {type: ssh, host: 10.0.0.4}\n", &msg) == KVB_OK);
	CHECK(kvb_pool_list_build(&l, &p, more, 2, &err) == KVB_OK);
	CHECK(l.n == 4);
	if (l.n == 4) {
		CHECK_STR(l.v[0].name, "b1");
		CHECK_STR(l.v[1].name, "farm#2");
		CHECK_STR(l.v[2].name, "extra");
		/* two -p files naming the same platform: the second is told apart by its position */
		CHECK_STR(l.v[3].name, "extra#4");
		CHECK_STR(kvb_get_str(l.v[1].plat.conn, "host", NULL), "10.0.0.2");
		CHECK_STR(kvb_get_str(l.v[3].plat.conn, "host", NULL), "10.0.0.4");
		/* a board's view is named for the board (knob leftovers are kept per board) */
		CHECK_STR(l.v[1].plat.name, "farm#2");
		CHECK(l.v[1].plat.nboards == 0);
	}
	kvb_pool_list_release(&l);
	kvb_platform_release(&q2);
	kvb_platform_release(&q1);
	kvb_platform_release(&p);
}

static void test_pool_list__extra_platform_of_another_kind_is_bad_input(void)
{
	struct kvb_platform p, q, *more[1] = { &q };
	struct kvb_pool_list l;
	struct kvb_error err;
	char *msg = NULL;
	CHECK(load(&p, "farm.yaml", two_boards, &msg) == KVB_OK);
	CHECK(load(&q, "loc.yaml", "name: loc\nconnection: {type: local}\n", &msg) == KVB_OK);
	CHECK(kvb_pool_list_build(&l, &p, more, 1, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, "loc.yaml: platform loc (connection local, flash none) is not of farm's kind");
	CHECK(l.n == 0);
	kvb_platform_release(&q);
	kvb_platform_release(&p);
}

static void test_board__strata_from_sorted_board_ids(void)
{
	const int board[] = { 3, 3, 5, 7, 7, 7 };
	size_t lo[6], len[6];
	kvb_stats_board_strata(board, 6, lo, len);
	CHECK(lo[0] == 0 && len[0] == 2 && lo[1] == 0 && len[1] == 2);
	CHECK(lo[2] == 2 && len[2] == 1);
	CHECK(lo[3] == 3 && len[3] == 3 && lo[5] == 3 && len[5] == 3);
	kvb_stats_board_strata(NULL, 6, lo, len);
	CHECK(lo[0] == 0 && len[0] == 6 && lo[5] == 0 && len[5] == 6);
}

/* Runs of 4 boots x 3 runs per side: boots 1,2 on board A near 100, boots 3,4 on board B near 120. */
static const double bx[] = { 100.0, 100.4, 99.6, 100.2, 99.9, 100.1, 120.3, 119.8, 120.0, 119.7, 120.2, 120.1 };
static const double vx[] = { 100.3, 99.8, 100.0, 99.7, 100.2, 100.1, 120.0, 120.4, 119.6, 120.1, 119.9, 120.2 };
static const int boots[] = { 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4 };
static const int boards[] = { 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1 };
static const int one_board[] = { 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9 };

static void test_bootstrap_boards__one_board_is_bit_identical(void)
{
	struct kvb_boot_cmp a, b, c;
	CHECK(kvb_stats_hier_bootstrap(bx, boots, 12, vx, boots, 12, 2000, 42, 0.05, &a, NULL) == KVB_OK);
	CHECK(kvb_stats_hier_bootstrap_boards(bx, boots, one_board, 12, vx, boots, one_board, 12, 2000, 42, 0.05, &b,
					      NULL) == KVB_OK);
	CHECK(kvb_stats_hier_bootstrap_boards(bx, boots, NULL, 12, vx, boots, NULL, 12, 2000, 42, 0.05, &c, NULL) ==
	      KVB_OK);
	CHECK(a.ci_lo == b.ci_lo && a.ci_hi == b.ci_hi && a.ci_lo == c.ci_lo && a.ci_hi == c.ci_hi);
	CHECK(a.boots_b == 4 && b.boots_b == 4);
}

static void test_bootstrap_boards__board_effect_cancels_in_a_balanced_design(void)
{
	struct kvb_boot_cmp plain, strat;
	CHECK(kvb_stats_hier_bootstrap(bx, boots, 12, vx, boots, 12, 4000, 7, 0.05, &plain, NULL) == KVB_OK);
	CHECK(kvb_stats_hier_bootstrap_boards(bx, boots, boards, 12, vx, boots, boards, 12, 4000, 7, 0.05, &strat,
					      NULL) == KVB_OK);
	/* the point estimate is the same: 1320/1320 = 1.0 for both (sum of v = sum of b = 1320.3) */
	CHECK_NEAR(plain.ratio, strat.ratio, 1e-15);
	/*
	 * Without boards a resample may draw 4 boots of board A for one side and 4 of B for the
	 * other: ratios from 100/120 to 120/100, so the 95 % interval spans more than 10 %. Drawing
	 * each board's boots from that board keeps 2 A + 2 B per side: only the runs' +-0.4 noise
	 * is left, well inside +-1 %.
	 */
	CHECK(plain.ci_hi - plain.ci_lo > 0.10);
	CHECK(strat.ci_hi - strat.ci_lo < 0.02);
	CHECK(strat.ci_lo < 1 && strat.ci_hi > 1);
	CHECK(!strat.significant);
}

static void setup(void)
{
	if (!mkdtemp(g_dir))
		perror("mkdtemp");
}

static void teardown(void)
{
	const char *names[] = { "farm.yaml", "nohost.yaml", "mixed.yaml", "dup.yaml", "none.yaml", "extra.yaml",
				"extra2.yaml", "loc.yaml" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *p = kvb_xasprintf("%s/%s", g_dir, names[i]);
		unlink(p);
		free(p);
	}
	rmdir(g_dir);
}

/* ---- kvb_pool_run with scripted boards: the engine's hooks played by a fake ---- */

struct fake {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	const struct kvb_plan *plan;
	int done[16];                 /* per plan job: 1 final */
	char log[64][48];             /* "board v r" per unit brought up, in order */
	size_t nlog;
	int unit_failed[4][4];        /* [variant][round] */
	/* scenario: board 0 fails bring_up of (variant fail_v, round 1) with the unit's own failure */
	int fail_v;
	/* scenario: board 0 stops answering in its first job and waits until board 1 has taken (1, 2) */
	int stuck;
	int stuck_board;              /* 1 + the board that took x r1 and stops answering (0: none yet) */
	int taken_by_1;               /* the board that did not stop brought up variant 1 round 2 */
	int stuck_waited_out;         /* board 0 gave up waiting (the unit never moved) */
};

struct fworker {
	struct fake *f;
	int board;
	struct kvb_pool_board_ctl *ctl;
	size_t v;
	int r;
};

static void *f_worker_new(void *eng, const struct kvb_pool_board *b, struct kvb_pool_board_ctl *ctl,
			  struct kvb_error *err)
{
	struct fworker *w = kvb_xcalloc(1, sizeof(*w));
	(void)err;
	w->f = eng;
	w->board = b->name[1] - '0'; /* boards "b0", "b1" */
	w->ctl = ctl;
	return w;
}

static int f_connect(void *w, struct kvb_error *err)
{
	(void)w;
	(void)err;
	return KVB_OK;
}

static int f_bring_up(void *wp, size_t v, int round, struct kvb_error *err)
{
	struct fworker *w = wp;
	struct fake *f = w->f;
	pthread_mutex_lock(&f->mu);
	snprintf(f->log[f->nlog++ % 64], sizeof(f->log[0]), "b%d v%zu r%d", w->board, v, round);
	/* the board that takes x r1 first is the one that stops answering (the threads start in
	 * any order on a loaded host); y r2 must then go to the other one */
	if (f->stuck && !f->stuck_board && v == 0 && round == 1)
		f->stuck_board = 1 + w->board;
	if (f->stuck_board && w->board != f->stuck_board - 1 && v == 1 && round == 2)
		f->taken_by_1 = 1;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
	w->v = v;
	w->r = round;
	if (f->fail_v >= 0 && (int)v == f->fail_v && round == 1)
		return kvb_error_set(err, KVB_EJOBS, "the LAVA job of this round timed out");
	return KVB_OK;
}

static int f_job(void *wp, size_t idx, struct kvb_error *err)
{
	struct fworker *w = wp;
	struct fake *f = w->f;
	if (f->stuck && w->board == f->stuck_board - 1 && w->v == 0 && w->r == 1) {
		/* the board stops answering: its worker says so and waits for it (the engine's run_job) */
		struct timespec until;
		kvb_pool_board_trouble(w->ctl, 1);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 20; /* only bounds a hang of the old pool; the new one moves the unit at once */
		pthread_mutex_lock(&f->mu);
		while (!f->taken_by_1)
			if (pthread_cond_timedwait(&f->cv, &f->mu, &until)) {
				f->stuck_waited_out = 1;
				break;
			}
		pthread_mutex_unlock(&f->mu);
		kvb_error_set(err, KVB_EBOARD, "board b0 did not come back");
		return KVB_EBOARD;
	}
	pthread_mutex_lock(&f->mu);
	f->done[idx] = 1;
	pthread_mutex_unlock(&f->mu);
	return 0;
}

static int f_pending(void *eng, size_t idx)
{
	struct fake *f = eng;
	int p;
	pthread_mutex_lock(&f->mu);
	p = !f->done[idx];
	pthread_mutex_unlock(&f->mu);
	return p;
}

static void f_unit_failed(void *wp, size_t v, int round, const char *why)
{
	struct fworker *w = wp;
	(void)why;
	w->f->unit_failed[v][round]++;
	for (size_t i = 0; i < w->f->plan->n; i++)
		if (w->f->plan->jobs[i].variant == v && w->f->plan->jobs[i].round == round)
			w->f->done[i] = 1;
}

static void f_event(void *w, const char *level, const char *msg)
{
	(void)w;
	(void)level;
	(void)msg;
}

static int f_interrupted(void *eng)
{
	(void)eng;
	return 0;
}

static void f_worker_free(void *eng, void *w)
{
	(void)eng;
	free(w);
}

static const struct kvb_pool_hooks fake_hooks = {
	.worker_new = f_worker_new, .connect = f_connect, .bring_up = f_bring_up, .job = f_job,
	.pending = f_pending, .unit_failed = f_unit_failed, .event = f_event, .interrupted = f_interrupted,
	.worker_free = f_worker_free,
};

/* 2 variants x 2 rounds, one job each; plan order r1: v0 v1, r2: v0 v1. */
static void fake_plan(struct kvb_plan *plan, struct kvb_plan_job jobs[4])
{
	for (int i = 0; i < 4; i++) {
		jobs[i].seq = i;
		jobs[i].variant = (size_t)(i % 2);
		jobs[i].round = 1 + i / 2;
		jobs[i].iteration = 1;
	}
	plan->jobs = jobs;
	plan->n = 4;
	plan->rounds = 2;
}

static void fake_boards(struct kvb_pool_list *l, size_t n)
{
	memset(l, 0, sizeof(*l));
	l->v = kvb_xcalloc(n, sizeof(*l->v));
	l->n = n;
	for (size_t i = 0; i < n; i++)
		l->v[i].name = kvb_xasprintf("b%zu", i);
}

static void test_pool_run__a_failed_rounds_later_rounds_still_run(void)
{
	static const char *const names[] = { "x", "y" };
	struct kvb_plan_job jobs[4];
	struct kvb_plan plan;
	struct kvb_pool_list l;
	struct fake f;
	struct kvb_error err;
	int intr = 0, sfail = 0;
	memset(&f, 0, sizeof(f));
	pthread_mutex_init(&f.mu, NULL);
	pthread_cond_init(&f.cv, NULL);
	fake_plan(&plan, jobs);
	f.plan = &plan;
	f.fail_v = 0;
	fake_boards(&l, 1);
	CHECK(kvb_pool_run(&fake_hooks, &f, &l, &plan, 2, names, 0, &intr, &sfail, &err) == KVB_OK);
	/* round 1 of x failed as its own (a LAVA job error); round 2 of x was still brought up and ran */
	CHECK(f.unit_failed[0][1] == 1 && f.unit_failed[0][2] == 0);
	CHECK(f.done[2] == 1);
	CHECK(f.nlog == 4);
	kvb_pool_list_release(&l);
	pthread_cond_destroy(&f.cv);
	pthread_mutex_destroy(&f.mu);
}

static void test_pool_run__a_unit_waiting_for_a_board_that_stopped_answering_moves_at_once(void)
{
	static const char *const names[] = { "x", "y" };
	struct kvb_plan_job jobs[4];
	struct kvb_plan plan;
	struct kvb_pool_list l;
	struct fake f;
	struct kvb_error err;
	int intr = 0, sfail = 0;
	memset(&f, 0, sizeof(f));
	pthread_mutex_init(&f.mu, NULL);
	pthread_cond_init(&f.cv, NULL);
	fake_plan(&plan, jobs);
	f.plan = &plan;
	f.fail_v = -1;
	f.stuck = 1;
	fake_boards(&l, 2);
	/*
	 * b0 (whichever board takes x r1 first) stops answering in it; b1 takes y r1, then x r2 (b0 has not run x
	 * either), then y r2 is left: the balance would keep it for b0, which has not run y; b0
	 * waits for its board, so y r2 goes to b1 at once (the old pool kept it waiting for b0's
	 * boot timeout).
	 */
	CHECK(kvb_pool_run(&fake_hooks, &f, &l, &plan, 2, names, 0, &intr, &sfail, &err) == KVB_OK);
	CHECK(f.taken_by_1 == 1);
	CHECK(f.stuck_waited_out == 0);
	/* every job ran: b0's unit went to b1 once b0 left the pool */
	CHECK(f.done[0] && f.done[1] && f.done[2] && f.done[3]);
	kvb_pool_list_release(&l);
	pthread_cond_destroy(&f.cv);
	pthread_mutex_destroy(&f.mu);
}

#define TESTS                                                                                                          \
	T(setup)                                                                                                       \
	T(test_platform__boards_lay_their_connection_over_the_platforms)                                               \
	T(test_platform__board_missing_a_required_key_names_it)                                                        \
	T(test_platform__boards_of_two_kinds_are_refused)                                                              \
	T(test_platform__duplicate_board_names_and_no_connection)                                                      \
	T(test_pool_list__boards_then_extra_platforms_with_unique_names)                                               \
	T(test_pool_list__extra_platform_of_another_kind_is_bad_input)                                                 \
	T(test_board__strata_from_sorted_board_ids)                                                                    \
	T(test_bootstrap_boards__one_board_is_bit_identical)                                                           \
	T(test_bootstrap_boards__board_effect_cancels_in_a_balanced_design)                                            \
	T(test_pool_run__a_failed_rounds_later_rounds_still_run)                                                       \
	T(test_pool_run__a_unit_waiting_for_a_board_that_stopped_answering_moves_at_once)                              \
	T(teardown)
#include "test_main.h"
