/* Implements plan expansion: variants x rounds x execution_order (WA3 semantics). */
#include "engine/plan.h"

#include <stdio.h>
#include "core/util.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

/* Iterations [lo, hi] (1-based, inclusive) of a spec with `iters` iterations in round r of R. */
static void round_range(int iters, int r, int R, int *lo, int *hi)
{
	*lo = (int)((long)(r - 1) * iters / R) + 1;
	*hi = (int)((long)r * iters / R);
}

/* Round r of the plan as a split of the iterations: a spare round repeats a planned round's
 * split (*split) with its iterations numbered *mult spec-iterations further on. */
static void split_of(int r, int rounds, int *split, int *mult)
{
	*split = r <= rounds ? r : (r - rounds - 1) % rounds + 1;
	*mult = r <= rounds ? 0 : 1 + (r - rounds - 1) / rounds;
}

static void push(struct kvb_plan *p, size_t *alloc, size_t var, const struct kvb_spec *s, int it, int round)
{
	if (p->n == *alloc) {
		*alloc = *alloc ? *alloc * 2 : 64;
		p->jobs = kvb_xrealloc(p->jobs, *alloc * sizeof(*p->jobs));
	}
	p->jobs[p->n].seq = (int)p->n;
	p->jobs[p->n].variant = var;
	p->jobs[p->n].spec = s;
	p->jobs[p->n].iteration = it;
	p->jobs[p->n].round = round;
	p->jobs[p->n].warmup = 0;
	p->n++;
}

/* Pushes iteration it of s in round r when the round's split holds it; with add_rounds every round
 * holds every iteration, numbered on from the round before. */
static void push_if(struct kvb_plan *p, size_t *alloc, size_t var, const struct kvb_spec *s, int it, int r, int R,
		    int add_rounds)
{
	int lo, hi, split, mult;
	if (add_rounds) {
		push(p, alloc, var, s, it + (r - 1) * s->iterations, r);
		return;
	}
	split_of(r, R, &split, &mult);
	round_range(s->iterations, split, R, &lo, &hi);
	if (it >= lo && it <= hi)
		push(p, alloc, var, s, it + mult * s->iterations, r);
}

/* Inserts each spec's warm-up jobs before its first job among jobs[first..n). */
static void add_warmups(struct kvb_plan *p, size_t *alloc, size_t first, int def)
{
	size_t n = p->n - first, k = 0;
	if (!n)
		return;
	struct kvb_plan_job *round = kvb_xcalloc(n + 1, sizeof(*round));
	const struct kvb_spec **seen = kvb_xcalloc(n + 1, sizeof(*seen));
	size_t nseen = 0;
	memcpy(round, p->jobs + first, n * sizeof(*round));
	p->n = first;
	for (size_t i = 0; i < n; i++) {
		const struct kvb_spec *s = round[i].spec;
		int w = s->warmup >= 0 ? s->warmup : def;
		for (k = 0; k < nseen && seen[k] != s; k++)
			;
		if (k == nseen) {
			seen[nseen++] = s;
			for (int j = 0; j < w; j++) {
				push(p, alloc, round[i].variant, s, 0, round[i].round);
				p->jobs[p->n - 1].warmup = 1;
			}
		}
		push(p, alloc, round[i].variant, s, round[i].iteration, round[i].round);
	}
	free(round);
	free(seen);
}

void kvb_plan_build(struct kvb_plan *p, const struct kvb_agenda *a, int rounds)
{
	struct kvb_plan_opts o = { .rounds = rounds, .spare_rounds = 0, .default_warmup = 0 };
	kvb_plan_build_opts(p, a, &o);
}

void kvb_plan_build_opts(struct kvb_plan *p, const struct kvb_agenda *a, const struct kvb_plan_opts *o)
{
	size_t alloc = 0;
	int maxit = 0, rounds = o->rounds < 1 ? 1 : o->rounds, total;
	memset(p, 0, sizeof(*p));
	total = rounds + (o->spare_rounds > 0 ? o->spare_rounds : 0);
	p->rounds = total;
	for (size_t i = 0; i < a->nspecs; i++)
		if (a->specs[i].iterations > maxit)
			maxit = a->specs[i].iterations;

	for (int r = 1; r <= total; r++) {
		for (size_t v = 0; v < a->nvariants; v++) {
			size_t first = p->n;
			switch (a->order) {
			case KVB_ORDER_BY_WORKLOAD:
				for (size_t i = 0; i < a->nspecs; i++)
					for (int it = 1; it <= a->specs[i].iterations; it++)
						push_if(p, &alloc, v, &a->specs[i], it, r, rounds, o->add_rounds);
				break;
			case KVB_ORDER_BY_SECTION: {
				/* sections in order of first appearance; within a section, spec order */
				const char **secs = kvb_xcalloc(a->nspecs + 1, sizeof(*secs));
				size_t ns = 0;
				for (size_t i = 0; i < a->nspecs; i++) {
					const char *sec = a->specs[i].section ? a->specs[i].section : "";
					size_t k;
					for (k = 0; k < ns; k++)
						if (!strcmp(secs[k], sec))
							break;
					if (k == ns)
						secs[ns++] = sec;
				}
				for (int it = 1; it <= maxit; it++)
					for (size_t k = 0; k < ns; k++)
						for (size_t i = 0; i < a->nspecs; i++) {
							const char *sec = a->specs[i].section ? a->specs[i].section : "";
							if (!strcmp(sec, secs[k]) && it <= a->specs[i].iterations)
								push_if(p, &alloc, v, &a->specs[i], it, r, rounds, o->add_rounds);
						}
				free(secs);
				break;
			}
			default: /* by_iteration; random starts from it; duet is by_iteration on two boards at once */
				for (int it = 1; it <= maxit; it++)
					for (size_t i = 0; i < a->nspecs; i++)
						if (it <= a->specs[i].iterations)
							push_if(p, &alloc, v, &a->specs[i], it, r, rounds, o->add_rounds);
				break;
			}
			if (a->order == KVB_ORDER_RANDOM && p->n - first > 1) {
				/* Fixed seed per (round, variant) keeps the plan reproducible for --resume. */
				gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
				gsl_rng_set(rng, 0x6b76 + (unsigned long)r * 1000 + v);
				gsl_ran_shuffle(rng, p->jobs + first, p->n - first, sizeof(*p->jobs));
				gsl_rng_free(rng);
			}
			add_warmups(p, &alloc, first, o->default_warmup);
			for (size_t i = first; i < p->n; i++)
				p->jobs[i].seq = (int)i;
		}
	}
}

void kvb_plan_release(struct kvb_plan *p)
{
	free(p->jobs);
	memset(p, 0, sizeof(*p));
}

const char *kvb_plan_describe(const struct kvb_plan *p, char *buf, size_t n)
{
	return kvb_plan_describe_rounds(p, p->rounds, buf, n);
}

const char *kvb_plan_describe_rounds(const struct kvb_plan *p, int last_round, char *buf, size_t n)
{
	size_t warm = 0, all = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->jobs[i].round <= last_round) {
			all++;
			warm += p->jobs[i].warmup != 0;
		}
	if (warm)
		snprintf(buf, n, "%zu job%s + %zu warm-up%s", all - warm, all - warm == 1 ? "" : "s", warm,
			 warm == 1 ? "" : "s");
	else
		snprintf(buf, n, "%zu job%s", all, all == 1 ? "" : "s");
	return buf;
}
