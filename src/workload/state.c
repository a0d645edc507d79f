/* Implements the workloads' per-board state slots (struct kvb_workload_states, workload.h). */
#include "workload/workload.h"
#include "core/util.h"

#include <stdlib.h>

struct kvb_workload_state_slot {
	const struct kvb_workload_ops *ops;
	void *state;                          /* the workload's, freed by ops->state_free */
	struct kvb_workload_state_slot *next; /* a list: a slot never moves while a job holds it */
};

void **kvb_workload_state(struct kvb_workload_states *s, const struct kvb_workload_ops *w)
{
	struct kvb_workload_state_slot *x;
	for (x = s->head; x; x = x->next)
		if (x->ops == w)
			return &x->state;
	x = kvb_xcalloc(1, sizeof(*x));
	x->ops = w;
	x->next = s->head;
	s->head = x;
	if (s->resumed && w->resume)
		w->resume(&x->state, s->resumed);
	return &x->state;
}

void kvb_workload_states_release(struct kvb_workload_states *s)
{
	while (s && s->head) {
		struct kvb_workload_state_slot *x = s->head;
		s->head = x->next;
		if (x->state && x->ops->state_free)
			x->ops->state_free(x->state);
		free(x);
	}
}
