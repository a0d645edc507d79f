/* Implements duet runs: two boards, one variant each, round by round and job by job together (duet.h). */
#include "engine/duet.h"
#include "core/log.h"
#include "core/util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct duet {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	const struct kvb_pool_hooks *h;
	void *eng;
	const struct kvb_plan *plan;
	const char *const *vnames;
	unsigned gen;        /* meetings held so far */
	int at[2];           /* the meeting a side waits at: 0 none, 1 in the round, 2 the round's end */
	int gone[2];         /* side gave up the rest of this round (reset at the round's end) */
	int stop, interrupted, store_failed;
};

struct side {
	struct duet *d;
	int idx;
	void *w;
	const struct kvb_pool_board *b;
	pthread_t th;
};

/* Lock held. The partner of side idx will not come to this round's meetings, or the run stops. */
static int alone(const struct duet *d, int idx)
{
	return d->stop || d->gone[!idx];
}

/*
 * The two sides meet: returns when both are at a meeting of the same kind (in the round, or its
 * end), at once when the partner gave up its round (unless `end`: the round's end, which both
 * always reach) or the run stops.
 */
static void meet(struct duet *d, int idx, int end)
{
	int kind = end ? 2 : 1;
	pthread_mutex_lock(&d->mu);
	if (d->stop || (!end && d->gone[!idx])) {
		pthread_mutex_unlock(&d->mu);
		return;
	}
	if (d->at[!idx] == kind) {
		d->at[!idx] = 0;
		d->gen++;
		if (end)
			d->gone[0] = d->gone[1] = 0;
		pthread_cond_broadcast(&d->cv);
	} else {
		unsigned g = d->gen;
		d->at[idx] = kind;
		while (d->gen == g && !d->stop && (end || !d->gone[!idx]))
			pthread_cond_wait(&d->cv, &d->mu);
		d->at[idx] = 0; /* met, or left without the partner */
	}
	pthread_mutex_unlock(&d->mu);
}

/* Side idx gives up the rest of its round: the partner stops waiting for it. */
static void give_up(struct duet *d, int idx)
{
	pthread_mutex_lock(&d->mu);
	d->gone[idx] = 1;
	pthread_cond_broadcast(&d->cv);
	pthread_mutex_unlock(&d->mu);
}

/* The run stops (Ctrl-C, or results cannot be stored): both sides leave at their next meeting. */
static void stop_all(struct duet *d, int store_failed)
{
	pthread_mutex_lock(&d->mu);
	d->stop = 1;
	if (store_failed)
		d->store_failed = 1;
	else
		d->interrupted = 1;
	pthread_cond_broadcast(&d->cv);
	pthread_mutex_unlock(&d->mu);
}

/* Plan indices of (v, round), in plan order; *n their count. Owned by the caller. */
static size_t *round_jobs(const struct kvb_plan *plan, size_t v, int round, size_t *n)
{
	size_t *jobs = kvb_xcalloc(plan->n + 1, sizeof(*jobs));
	*n = 0;
	for (size_t i = 0; i < plan->n; i++)
		if (plan->jobs[i].variant == v && plan->jobs[i].round == round)
			jobs[(*n)++] = i;
	return jobs;
}

/* Does any job of the list still wait to run? */
static int any_pending(const struct duet *d, const size_t *jobs, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (d->h->pending(d->eng, jobs[k]))
			return 1;
	return 0;
}

/* The jobs of (v, round) left pending are skipped with why and v is failed; the side gives up. */
static void side_fails(struct side *s, size_t v, int round, const char *why)
{
	pthread_mutex_lock(&s->d->mu);
	s->d->h->unit_failed(s->w, v, round, why);
	pthread_mutex_unlock(&s->d->mu);
	give_up(s->d, s->idx);
}

/* Side s's part of one round: boot, then each job as its partner runs the same one. */
static void side_round(struct side *s, int round)
{
	struct duet *d = s->d;
	size_t v = (size_t)((s->idx + round - 1) % 2), n;
	size_t *jobs = round_jobs(d->plan, v, round, &n);
	struct kvb_error err;
	int rc, up = 0;

	if (!any_pending(d, jobs, n) || d->stop) {
		give_up(d, s->idx); /* done before (--resume): the partner runs its jobs without a pair */
	} else {
		kvb_info("[board %s] variant %s round %d (duet)", s->b->name, d->vnames[v], round);
		kvb_error_clear(&err);
		rc = d->h->bring_up(s->w, v, round, &err);
		if (rc == KVB_ESTORE || (rc && d->h->interrupted(d->eng)))
			stop_all(d, rc == KVB_ESTORE);
		else if (rc)
			side_fails(s, v, round, err.msg);
		else
			up = 1;
	}
	meet(d, s->idx, 0); /* both booted: the jobs start together */
	for (size_t k = 0; up && k < n; k++) {
		meet(d, s->idx, 0);
		if (d->stop)
			break;
		if (d->h->interrupted(d->eng)) {
			stop_all(d, 0);
			break;
		}
		if (!d->h->pending(d->eng, jobs[k]))
			continue;
		kvb_error_clear(&err);
		rc = d->h->job(s->w, jobs[k], &err);
		if (rc == KVB_ESTORE) {
			stop_all(d, 1);
			break;
		}
		if (rc == KVB_EBOARD) {
			char why[KVB_ERRMSG_MAX + 128];
			snprintf(why, sizeof(why), "board %s stopped answering in variant %s round %d: %s", s->b->name,
				 d->vnames[v], round, err.msg);
			side_fails(s, v, round, why);
			break;
		}
	}
	if (up && d->h->unit_done)
		d->h->unit_done(s->w, v, round);
	if (up && !alone(d, s->idx))
		give_up(d, s->idx); /* the partner's remaining meetings of this round do not wait for us */
	meet(d, s->idx, 1);
	if (d->h->round_done) {
		/* --until-decided looks once both sides finished the round; the other side waits for it */
		if (s->idx == 0 && !d->stop && d->h->round_done(s->w, round)) {
			pthread_mutex_lock(&d->mu);
			d->stop = 1; /* decided: neither interrupted nor failed */
			pthread_cond_broadcast(&d->cv);
			pthread_mutex_unlock(&d->mu);
		}
		meet(d, s->idx, 1);
	}
	free(jobs);
}

static void *side_thread(void *arg)
{
	struct side *s = arg;
	for (int r = 1; r <= s->d->plan->rounds && !s->d->stop; r++)
		side_round(s, r);
	return NULL;
}

/* Both variants' rounds must hold the same specs and iterations in the same order to pair job k with job k. */
static int check_pairs(const struct kvb_plan *plan, struct kvb_error *err)
{
	for (int r = 1; r <= plan->rounds; r++) {
		size_t na, nb;
		size_t *a = round_jobs(plan, 0, r, &na), *b = round_jobs(plan, 1, r, &nb);
		int bad = na != nb;
		for (size_t k = 0; !bad && k < na; k++)
			bad = plan->jobs[a[k]].spec != plan->jobs[b[k]].spec ||
			      plan->jobs[a[k]].iteration != plan->jobs[b[k]].iteration ||
			      plan->jobs[a[k]].warmup != plan->jobs[b[k]].warmup;
		free(a);
		free(b);
		if (bad)
			return kvb_error_set(err, KVB_EINTERNAL, "duet: round %d of the two variants holds different jobs", r);
	}
	return KVB_OK;
}

int kvb_duet_run(const struct kvb_pool_hooks *h, void *eng, const struct kvb_pool_list *l, const struct kvb_plan *plan,
		 const char *const *variant_names, int *interrupted, int *store_failed, struct kvb_error *err)
{
	struct duet d;
	struct side s[2];
	int rc = KVB_OK, started[2] = { 0, 0 };
	char why[KVB_ERRMSG_MAX + 128] = "";

	if (l->n < 2)
		return kvb_error_set(err, KVB_EINTERNAL, "duet: %zu board(s), two needed", l->n);
	if ((rc = check_pairs(plan, err)))
		return rc;
	memset(&d, 0, sizeof(d));
	memset(s, 0, sizeof(s));
	pthread_mutex_init(&d.mu, NULL);
	pthread_cond_init(&d.cv, NULL);
	d.h = h;
	d.eng = eng;
	d.plan = plan;
	d.vnames = variant_names;
	for (int i = 0; i < 2; i++) {
		s[i].d = &d;
		s[i].idx = i;
		s[i].b = &l->v[i];
		if (!(s[i].w = h->worker_new(eng, s[i].b, NULL, err))) {
			rc = err->code ? err->code : KVB_ESTORE;
			goto out;
		}
	}
	if (l->n > 2) {
		snprintf(why, sizeof(why), "duet: boards %s and %s run the two variants; %zu more board(s) stay idle",
			 l->v[0].name, l->v[1].name, l->n - 2);
		h->event(s[0].w, "warning", why);
		why[0] = '\0';
	}
	/* one after the other: a backend's library set-up (libssh2_init) is not thread-safe */
	for (int i = 0; i < 2 && !why[0]; i++) {
		struct kvb_error e2;
		kvb_error_clear(&e2);
		if (h->connect(s[i].w, &e2))
			snprintf(why, sizeof(why), "duet: board %s cannot be reached: %s", s[i].b->name, e2.msg);
	}
	if (why[0]) {
		/* a duet without one of its boards is not a duet: every round fails with the reason */
		for (int r = 1; r <= plan->rounds; r++)
			for (size_t v = 0; v < 2; v++) {
				size_t n, *jobs = round_jobs(plan, v, r, &n);
				if (any_pending(&d, jobs, n))
					h->unit_failed(s[0].w, v, r, why);
				free(jobs);
			}
		goto out;
	}
	for (int i = 0; i < 2; i++)
		started[i] = !pthread_create(&s[i].th, NULL, side_thread, &s[i]);
	if (!started[0] || !started[1]) {
		stop_all(&d, 0); /* a lone side would wait for nobody; stop it */
		d.interrupted = 0;
		rc = kvb_error_set(err, KVB_EINTERNAL, "duet: cannot start a thread");
	}
	for (int i = 0; i < 2; i++)
		if (started[i])
			pthread_join(s[i].th, NULL);
	*interrupted = d.interrupted;
	*store_failed = d.store_failed;
out:
	for (int i = 0; i < 2; i++)
		if (s[i].w)
			h->worker_free(eng, s[i].w);
	pthread_cond_destroy(&d.cv);
	pthread_mutex_destroy(&d.mu);
	return rc;
}
