/* Warm-up jobs and spare rounds in the plan (issue 27, docs/design.md#noise). */
#include "config/agenda.h"
#include "engine/catalog.h"
#include "config/doc.h"
#include "engine/plan.h"
#include "test.h"

#include <string.h>

static int load(struct kvb_agenda *a, struct kvb_diag *d, const char *text)
{
	struct kvb_doc doc;
	int rc;
	kvb_diag_init(d, NULL);
	rc = kvb_doc_parse(&doc, "w.yaml", text, strlen(text), d);
	if (!rc)
		rc = kvb_agenda_from_doc(a, &doc, &kvb_catalog, d);
	else
		memset(a, 0, sizeof(*a));
	d->doc = NULL;
	kvb_doc_release(&doc);
	return rc;
}

static void test_plan__warmup_before_each_specs_first_job_of_every_round(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	struct kvb_plan p;
	struct kvb_plan_opts o = { .rounds = 2, .default_warmup = 1 };
	CHECK(!load(&a, &d,
		    "config: {iterations: 4}\n"
		    "workloads: [{name: sched_pipe}, {name: hackbench, warmup: 2}]\n"
		    "variants: [{name: a}, {name: b}]\n"));
	CHECK(a.specs[0].warmup == -1 && a.specs[1].warmup == 2);
	kvb_plan_build_opts(&p, &a, &o);
	/* per (variant, round): pipe warm-up, pipe #1, hackbench warm-up x2, hackbench #1, pipe #2, hackbench #2 */
	CHECK(p.n == 2 * 2 * 7);
	CHECK(p.jobs[0].warmup && !strcmp(p.jobs[0].spec->id, "sched_pipe") && p.jobs[0].iteration == 0);
	CHECK(!p.jobs[1].warmup && p.jobs[1].iteration == 1);
	CHECK(p.jobs[2].warmup && p.jobs[3].warmup && !strcmp(p.jobs[3].spec->id, "hackbench"));
	CHECK(!p.jobs[4].warmup && p.jobs[4].iteration == 1 && !strcmp(p.jobs[4].spec->id, "hackbench"));
	CHECK(!p.jobs[5].warmup && !p.jobs[6].warmup && p.jobs[6].iteration == 2);
	CHECK(p.jobs[7].variant == 1 && p.jobs[7].warmup && p.jobs[7].round == 1);
	CHECK(p.jobs[14].round == 2 && p.jobs[14].warmup && p.jobs[15].iteration == 3);
	for (size_t i = 0; i < p.n; i++)
		CHECK(p.jobs[i].seq == (int)i);
	kvb_plan_release(&p);
	/* config warmup: 0 wins over the platform's default; no warm-up is the plan as before */
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
	CHECK(!load(&a, &d, "config: {iterations: 2, warmup: 0}\nworkloads: [sched_pipe]\n"));
	kvb_agenda_default_variant(&a);
	kvb_plan_build_opts(&p, &a, &o);
	CHECK(p.n == 2);
	for (size_t i = 0; i < p.n; i++)
		CHECK(!p.jobs[i].warmup);
	kvb_plan_release(&p);
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

static void test_plan__spare_rounds_repeat_the_split_with_new_iteration_numbers(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	struct kvb_plan p;
	struct kvb_plan_opts o = { .rounds = 2, .spare_rounds = 3 };
	CHECK(!load(&a, &d, "config: {iterations: 4}\nworkloads: [sched_pipe]\nvariants: [{name: a}, {name: b}]\n"));
	kvb_plan_build_opts(&p, &a, &o);
	CHECK(p.rounds == 5);
	CHECK(p.n == 5 * 2 * 2); /* every round as full as a planned one */
	/* round 1: a #1 #2, b #1 #2; round 2: #3 #4; spare 3 repeats round 1's split as #5 #6, spare 4 round 2's
	 * as #7 #8, spare 5 round 1's again as #9 #10 */
	CHECK(p.jobs[0].iteration == 1 && p.jobs[1].iteration == 2 && p.jobs[4].iteration == 3);
	CHECK(p.jobs[8].round == 3 && p.jobs[8].iteration == 5 && p.jobs[9].iteration == 6);
	CHECK(p.jobs[12].round == 4 && p.jobs[12].iteration == 7);
	CHECK(p.jobs[16].round == 5 && p.jobs[16].iteration == 9 && p.jobs[17].iteration == 10);
	kvb_plan_release(&p);
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

/* --until-decided where every job shares one boot: each round runs the agenda's iterations again
 * (iterations 2 over 3 rounds and a spare: 8 runs a variant, not 2 split over rounds left empty) */
static void test_plan__added_rounds_run_every_iteration_again(void)
{
	struct kvb_agenda a;
	struct kvb_diag d;
	struct kvb_plan p;
	struct kvb_plan_opts o = { .rounds = 3, .spare_rounds = 1, .add_rounds = 1 };
	char buf[64];
	CHECK(!load(&a, &d,
		    "config: {iterations: 2}\nworkloads: [sched_pipe, {name: hackbench, iterations: 1}]\n"
		    "variants: [{name: a}, {name: b}]\n"));
	kvb_plan_build_opts(&p, &a, &o);
	CHECK(p.rounds == 4);
	CHECK(p.n == 4 * 2 * 3); /* every round: pipe #1 #2 and hackbench #1 of each variant */
	/* round 1 of a: pipe 1, hackbench 1, pipe 2; of b alike; round 2 numbers on: pipe 3, hackbench 2, pipe 4 */
	CHECK(p.jobs[0].round == 1 && p.jobs[0].iteration == 1 && !strcmp(p.jobs[0].spec->id, "sched_pipe"));
	CHECK(p.jobs[1].iteration == 1 && !strcmp(p.jobs[1].spec->id, "hackbench") && p.jobs[2].iteration == 2);
	CHECK(p.jobs[3].variant == 1 && p.jobs[3].round == 1);
	CHECK(p.jobs[6].round == 2 && p.jobs[6].variant == 0 && p.jobs[6].iteration == 3);
	CHECK(!strcmp(p.jobs[7].spec->id, "hackbench") && p.jobs[7].iteration == 2 && p.jobs[8].iteration == 4);
	CHECK(p.jobs[18].round == 4 && p.jobs[18].iteration == 7 && p.jobs[19].iteration == 4);
	/* what the run's header says: the planned rounds' jobs, the spare's apart */
	CHECK_STR(kvb_plan_describe_rounds(&p, 3, buf, sizeof(buf)), "18 jobs");
	CHECK_STR(kvb_plan_describe(&p, buf, sizeof(buf)), "24 jobs");
	kvb_plan_release(&p);
	kvb_agenda_release(&a);
	kvb_diag_release(&d);
}

#define TESTS                                                                                                          \
	T(test_plan__warmup_before_each_specs_first_job_of_every_round)                                               \
	T(test_plan__spare_rounds_repeat_the_split_with_new_iteration_numbers)                                         \
	T(test_plan__added_rounds_run_every_iteration_again)
#include "test_main.h"
