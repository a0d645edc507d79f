/* Implements plan expansion: variants x rounds x execution_order (WA3 semantics). */
#include "engine/plan.h"
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
	p->n++;
}

static int in_round(const struct kvb_spec *s, int it, int r, int R)
{
	int lo, hi;
	round_range(s->iterations, r, R, &lo, &hi);
	return it >= lo && it <= hi;
}

void kvb_plan_build(struct kvb_plan *p, const struct kvb_agenda *a, int rounds)
{
	size_t alloc = 0;
	int maxit = 0;
	memset(p, 0, sizeof(*p));
	if (rounds < 1)
		rounds = 1;
	p->rounds = rounds;
	for (size_t i = 0; i < a->nspecs; i++)
		if (a->specs[i].iterations > maxit)
			maxit = a->specs[i].iterations;

	for (int r = 1; r <= rounds; r++) {
		for (size_t v = 0; v < a->nvariants; v++) {
			size_t first = p->n;
			switch (a->order) {
			case KVB_ORDER_BY_WORKLOAD:
				for (size_t i = 0; i < a->nspecs; i++)
					for (int it = 1; it <= a->specs[i].iterations; it++)
						if (in_round(&a->specs[i], it, r, rounds))
							push(p, &alloc, v, &a->specs[i], it, r);
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
							if (!strcmp(sec, secs[k]) && it <= a->specs[i].iterations &&
							    in_round(&a->specs[i], it, r, rounds))
								push(p, &alloc, v, &a->specs[i], it, r);
						}
				free(secs);
				break;
			}
			default: /* by_iteration, and random starts from it */
				for (int it = 1; it <= maxit; it++)
					for (size_t i = 0; i < a->nspecs; i++)
						if (it <= a->specs[i].iterations && in_round(&a->specs[i], it, r, rounds))
							push(p, &alloc, v, &a->specs[i], it, r);
				break;
			}
			if (a->order == KVB_ORDER_RANDOM && p->n - first > 1) {
				/* Fixed seed per (round, variant) keeps the plan reproducible for --resume. */
				gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
				gsl_rng_set(rng, 0x6b76 + (unsigned long)r * 1000 + v);
				gsl_ran_shuffle(rng, p->jobs + first, p->n - first, sizeof(*p->jobs));
				gsl_rng_free(rng);
				for (size_t i = first; i < p->n; i++)
					p->jobs[i].seq = (int)i;
			}
		}
	}
}

void kvb_plan_release(struct kvb_plan *p)
{
	free(p->jobs);
	memset(p, 0, sizeof(*p));
}
