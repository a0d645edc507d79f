/*
 * The counted profile's witnesses (kvb_pcount_judge, instrument/profile_count.c) and its window
 * by function (kvb_tb_window_profile, core/tbcount.c) on dumps in the plugin's format and a
 * symbol table in /proc/kallsyms' format: a block counted to the function of its first
 * instruction, interrupts-off or not; a window whose instructions disagree with the guest's busy
 * clock is refused; kernel blocks below every symbol are unresolved.
 */
#include "core/tbcount.h"
#include "core/util.h"
#include "instrument/profile_count.h"

#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* lines as the guest's /proc/kallsyms prints them (6.1, x86-64) */
static const char kallsyms[] = "ffffffff81000000 T startup_64\n"
			       "ffffffff810a1c30 T __sched_text_start\n"
			       "ffffffff810a1c30 t uclamp_rq_inc_id\n"
			       "ffffffff810a1d90 t uclamp_rq_dec_id\n"
			       "ffffffff810a1f00 T enqueue_task\n"
			       "ffffffff810a2000 D some_data\n"
			       "ffffffff810a2100 T _raw_spin_unlock_irqrestore\n";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_window__counts_blocks_by_function(void)
{
	char d0[] = "/tmp/kvb-pc0.XXXXXX", d1[] = "/tmp/kvb-pc1.XXXXXX";
	struct kvb_tb_dump a, b;
	struct kvb_tb_window w;
	struct kvb_error err;
	char why[128];
	struct kvb_profile *p;
	close(mkstemp(d0));
	close(mkstemp(d1));
	/* uclamp_rq_inc_id's block: 10 instructions, ran 5 then 105 times, and a second translation of
	 * the same block (after a flush) ran 20; enqueue_task's block ran 7 times in both dumps (not in
	 * the window); a block of startup_64 that runs into uclamp_rq_inc_id; a kernel address below
	 * every symbol; a user-space block */
	write_file(d0, "ffffffff810a1c30 ffffffff810a1c60 10 5\n"
		       "ffffffff810a1f00 ffffffff810a1f20 4 7\n");
	write_file(d1, "ffffffff810a1c30 ffffffff810a1c60 10 105\n"
		       "ffffffff810a1f00 ffffffff810a1f20 4 7\n"
		       "ffffffff810a1c30 ffffffff810a1c60 10 20\n"
		       "ffffffff810a1c20 ffffffff810a1c40 3 2\n"
		       "ffffffff80000010 ffffffff80000020 2 1\n"
		       "401000 401010 3 100\n");
	CHECK(!kvb_tb_dump_read(d0, &a, &err));
	CHECK(!kvb_tb_dump_read(d1, &b, &err));
	CHECK(b.n == 5); /* the two translations of one block are one */
	p = kvb_tb_window_profile(&a, &b, kallsyms, &w, why, sizeof(why));
	CHECK(p != NULL);
	if (p) {
		CHECK_STR(p->v[0].symbol, "uclamp_rq_inc_id");
		CHECK(p->v[0].samples == 10 * (105 + 20 - 5));
		CHECK(p->v[0].mode == 'k');
		CHECK_STR(p->v[0].dso, "[kernel.kallsyms]");
		CHECK_STR(p->v[1].symbol, "(user space)");
		CHECK(p->v[1].samples == 300);
		/* the crossing block is startup_64's (its first instruction), said in crossing */
		CHECK(w.crossing == 6);
		CHECK(w.instructions == 1200 + 300 + 6 + 2);
		CHECK(w.kernel == 1208);
		CHECK(w.resolved == 1206);
		CHECK(p->samples == w.instructions && p->period == 1);
		CHECK_STR(p->event, KVB_TB_EVENT);
		for (size_t i = 0; i < p->n; i++) {
			CHECK(strcmp(p->v[i].symbol, "enqueue_task")); /* no execution in the window */
			if (!strcmp(p->v[i].symbol, "0xffffffff80000010"))
				CHECK(!p->v[i].resolved);
		}
		kvb_profile_free(p);
	}
	/* the dumps in the wrong order: counts going backwards are said */
	p = kvb_tb_window_profile(&b, &a, kallsyms, &w, why, sizeof(why));
	CHECK(p && w.negative == 120);
	kvb_profile_free(p);
	kvb_tb_dump_release(&a);
	kvb_tb_dump_release(&b);
	write_file(d0, "ffffffff810a1c30 zz 10 5\n");
	CHECK(kvb_tb_dump_read(d0, &a, &err) == KVB_EINPUT);
	CHECK_CONTAINS(err.msg, ":1: expected START END INSNS EXECS");
	unlink(d0);
	unlink(d1);
}

static void test_judge__refuses_a_window_the_guest_clock_denies(void)
{
	struct kvb_tb_window w = { .instructions = 1400000000, .kernel = 1300000000, .resolved = 1300000000 };
	struct kvb_insn_count c0 = { .instructions = 5000000000ull }, c1 = { .instructions = 6400000000ull };
	struct kvb_guest_clock g0, g1;
	struct kvb_pcount_limits lim = { "profile", 5, 99 };
	struct kvb_witnesses wit;
	struct kvb_error err;

	CHECK(!kvb_guest_clock_parse("100.00 20.00\n", &g0));
	CHECK(kvb_guest_clock_parse("up", &g1) == -1);
	/* busy 1.42 s of guest time (elapsed 1.50, idle 0.08): 1.4 G instructions, -1.4 % */
	CHECK(!kvb_guest_clock_parse("101.50 20.08\n", &g1));
	kvb_witnesses_init(&wit);
	CHECK(kvb_pcount_judge(&w, &c0, &c1, &g0, &g1, &lim, &wit, &err) == KVB_OK);
	CHECK(kvb_witnesses_count(&wit, KVB_WIT_REFUSED) == 0);
	kvb_witnesses_release(&wit);
	/* the same window against 2 s of busy guest time: the plugin missed blocks, refused */
	CHECK(!kvb_guest_clock_parse("102.08 20.08\n", &g1));
	kvb_witnesses_init(&wit);
	CHECK(kvb_pcount_judge(&w, &c0, &c1, &g0, &g1, &lim, &wit, &err) == KVB_ETARGET);
	CHECK_CONTAINS(err.msg, "guest's instruction clock disagree");
	CHECK(kvb_witnesses_count(&wit, KVB_WIT_REFUSED) == 1);
	kvb_witnesses_release(&wit);
	/* the counter full: refused */
	CHECK(!kvb_guest_clock_parse("101.50 20.08\n", &g1));
	c1.full = 1;
	kvb_witnesses_init(&wit);
	CHECK(kvb_pcount_judge(&w, &c0, &c1, &g0, &g1, &lim, &wit, &err) == KVB_ETARGET);
	CHECK_CONTAINS(err.msg, "counter is full");
	kvb_witnesses_release(&wit);
	/* kernel instructions unresolved (kallsyms all zeros): refused */
	c1.full = 0;
	w.resolved = 0;
	kvb_witnesses_init(&wit);
	CHECK(kvb_pcount_judge(&w, &c0, &c1, &g0, &g1, &lim, &wit, &err) == KVB_ETARGET);
	CHECK_CONTAINS(err.msg, "not resolved to functions");
	kvb_witnesses_release(&wit);
}

#define TESTS                                                                                                  \
	T(test_window__counts_blocks_by_function)                                                              \
	T(test_judge__refuses_a_window_the_guest_clock_denies)
#include "test_main.h"
