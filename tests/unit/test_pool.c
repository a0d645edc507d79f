/* Tests for board pools: boards: in a platform, the pool's board list, and the board level of the bootstrap. */
#include "config/platform.h"
#include "core/error.h"
#include "core/util.h"
#include "engine/pool.h"
#include "stats/board.h"
#include "stats/stats.h"

#include "test.h"

#include <stdio.h>
#include <stdlib.h>
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
	rc = kvb_platform_load(p, path, &d);
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
	T(teardown)
#include "test_main.h"
