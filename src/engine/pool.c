/* Implements board pools: (variant, round) units handed to the free boards of a pool, one thread per board. */
#include "engine/pool.h"
#include "core/buf.h"
#include "core/log.h"
#include "config/keys.h"
#include "core/util.h"
#include "target/target.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POOL_MAX_BOARDS 64 /* units remember the boards that tried them in a 64-bit mask */

enum unit_state { UNIT_QUEUED, UNIT_RUNNING, UNIT_DONE, UNIT_FAILED };

struct unit {
	size_t v;
	int round;
	size_t *jobs;       /* plan indices of the unit's jobs, in plan order */
	size_t njobs;
	uint64_t tried;     /* boards whose boot of this unit failed, or that were lost in it */
	enum unit_state state;
	char why[512];      /* the last failure */
};

struct board_state {
	struct pool *p;
	size_t idx;
	const struct kvb_pool_board *b;
	void *w;
	int in_pool;
	int trouble;         /* stopped answering, its worker waits for it: no unit waits for it */
	size_t *runs;        /* units of each variant finished on this board */
	uint64_t fail_vmask; /* variants (index mod 64) whose units failed here since the last success */
	char status[192];    /* progress-line text */
	char why[KVB_ERRMSG_MAX + 128]; /* why it left the pool (a whole error message and its context) */
	pthread_t th;
	int started;
};

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	const struct kvb_pool_hooks *h;
	void *eng;
	struct unit *units;
	size_t nunits, finished;
	struct board_state *boards;
	size_t nboards;
	size_t nvariants;
	const char *const *vnames;
	int stop, interrupted, store_failed, tty;
};

int kvb_pool_list_build(struct kvb_pool_list *l, const struct kvb_platform *plat, struct kvb_platform *const *more,
			size_t nmore, struct kvb_error *err)
{
	memset(l, 0, sizeof(*l));
	for (size_t k = 0; k <= nmore; k++) {
		const struct kvb_platform *p = k ? more[k - 1] : plat;
		size_t nb = p->nboards ? p->nboards : 1;
		if (k && (strcmp(p->conn_type, plat->conn_type) || strcmp(p->flash_method, plat->flash_method))) {
			kvb_pool_list_release(l);
			return kvb_error_set(err, KVB_EINPUT,
					     "%s: platform %s (connection %s, flash %s) is not of %s's kind (connection %s, "
					     "flash %s): a pool holds boards of one kind",
					     p->file, p->name, p->conn_type, p->flash_method, plat->name, plat->conn_type,
					     plat->flash_method);
		}
		const struct kvb_target_ops *ops = kvb_target_find(p->conn_type);
		long par = p->nboards ? 1 : (long)kvb_get_int(p->conn, "parallel", 1);
		if (ops && ops->batch)
			l->batch = 1;
		if (par > 1)
			nb = (size_t)par;
		if (par > 1 && ops && ops->batch)
			l->slots = 1;
		for (size_t i = 0; i < nb; i++) {
			struct kvb_pool_board *b;
			const char *base = p->nboards ? p->boards[i].name : p->name;
			l->v = kvb_xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
			b = &l->v[l->n++];
			memset(b, 0, sizeof(*b));
			b->name = par > 1 ? kvb_xasprintf("%s/%zu", base, i + 1) : kvb_xstrdup(base);
			for (size_t j = 0; j + 1 < l->n; j++)
				if (!strcmp(l->v[j].name, b->name)) {
					/* two -p files naming the same platform: keep both, told apart by position */
					free(b->name);
					b->name = kvb_xasprintf("%s#%zu", base, l->n);
					break;
				}
			kvb_platform_board_view(p, par > 1 ? 0 : i, &b->plat);
			b->plat.name = b->name;
		}
	}
	if (l->n > POOL_MAX_BOARDS) {
		size_t n = l->n;
		kvb_pool_list_release(l);
		return kvb_error_set(err, KVB_EINPUT, "%s: %zu boards; a pool takes at most %d", plat->file, n,
				     POOL_MAX_BOARDS);
	}
	return KVB_OK;
}

void kvb_pool_list_release(struct kvb_pool_list *l)
{
	for (size_t i = 0; l->v && i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void kvb_pool_board_trouble(struct kvb_pool_board_ctl *ctl, int on)
{
	struct board_state *bs = (struct board_state *)ctl;
	struct pool *p = bs->p;
	pthread_mutex_lock(&p->mu);
	if (bs->trouble != on) {
		bs->trouble = on;
		if (on)
			snprintf(bs->status, sizeof(bs->status), "not answering");
		/* a board waiting for this one to balance the design takes the unit now */
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
}

/* Lock held. One live line on a terminal: units done and what every board does. */
static void show(struct pool *p)
{
	if (!p->tty)
		return;
	fprintf(stderr, "\r\033[K[units %zu/%zu]", p->finished, p->nunits);
	for (size_t i = 0; i < p->nboards; i++)
		fprintf(stderr, " | %s: %s", p->boards[i].b->name, p->boards[i].status);
	fflush(stderr);
}

/* Lock held. A log line (and a newline first on a terminal, so the live line is not overwritten). */
static void say(struct pool *p, struct board_state *bs, const char *level, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void say(struct pool *p, struct board_state *bs, const char *level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->tty)
		fputs("\r\033[K", stderr);
	p->h->event(bs->w, level, msg);
	show(p);
}

/* Lock held. Is some board still in the pool that has not tried u? */
static int someone_can_take(struct pool *p, const struct unit *u)
{
	for (size_t i = 0; i < p->nboards; i++)
		if (p->boards[i].in_pool && !(u->tried & (1ull << i)))
			return 1;
	return 0;
}

/*
 * Lock held. The round cannot run anywhere: its jobs are skipped with why, its
 * variant failed. Its later rounds still run: the failure may be that round's own
 * (a LAVA job that timed out), and a round that fails the same way says so.
 */
static void unit_fail(struct pool *p, struct board_state *bs, struct unit *u, const char *why)
{
	u->state = UNIT_FAILED;
	snprintf(u->why, sizeof(u->why), "%.*s", (int)sizeof(u->why) - 1, why);
	p->finished++;
	p->h->unit_failed(bs->w, u->v, u->round, why);
}

/* Lock held. bs leaves the pool; units only it could still have taken fail. */
static void board_leaves(struct pool *p, struct board_state *bs, const char *why)
{
	if (!bs->in_pool)
		return;
	bs->in_pool = 0;
	snprintf(bs->why, sizeof(bs->why), "%s", why);
	snprintf(bs->status, sizeof(bs->status), "out of the pool");
	say(p, bs, "error", "board %s leaves the pool: %s", bs->b->name, why);
	pthread_cond_broadcast(&p->cv);
}

/*
 * Lock held. The queued unit for bs: skip units bs has tried, those of failed
 * variants, and those of a variant bs has run more often than another board
 * that could take it; prefer the variant bs has run least, then the earliest
 * round, then plan order.
 */
static struct unit *pick(struct pool *p, struct board_state *bs)
{
	struct unit *best = NULL;
	for (size_t k = 0; k < p->nunits; k++) {
		struct unit *u = &p->units[k];
		size_t least = SIZE_MAX;
		if (u->state != UNIT_QUEUED || (u->tried & (1ull << bs->idx)))
			continue;
		/* balance: a board runs a variant again only once every board that could take this unit
		 * has run it as often (it waits for them rather than run the variant twice while another
		 * board has not run it at all); a board that stopped answering is waited for by nobody */
		for (size_t i = 0; i < p->nboards; i++)
			if (p->boards[i].in_pool && !p->boards[i].trouble && !(u->tried & (1ull << i)) &&
			    p->boards[i].runs[u->v] < least)
				least = p->boards[i].runs[u->v];
		if (bs->runs[u->v] > least)
			continue;
		if (!best || bs->runs[u->v] < bs->runs[best->v] ||
		    (bs->runs[u->v] == bs->runs[best->v] && u->round < best->round))
			best = u;
	}
	return best;
}

/* Lock held. Anything left that bs could take now or later (a running unit may come back)? */
static int work_left_for(struct pool *p, struct board_state *bs)
{
	for (size_t k = 0; k < p->nunits; k++) {
		const struct unit *u = &p->units[k];
		if (u->state == UNIT_RUNNING)
			return 1;
		if (u->state == UNIT_QUEUED && !(u->tried & (1ull << bs->idx)))
			return 1;
	}
	return 0;
}

/* Lock held. A unit failed on bs (boot or board lost): another board tries it, or the round fails. */
static void unit_setback(struct pool *p, struct board_state *bs, struct unit *u, const char *why)
{
	u->tried |= 1ull << bs->idx;
	snprintf(u->why, sizeof(u->why), "board %s: %s", bs->b->name, why);
	if (someone_can_take(p, u)) {
		u->state = UNIT_QUEUED;
		say(p, bs, "warning", "variant %s round %d goes to another board (%s)", p->vnames[u->v], u->round,
		    u->why);
	} else {
		char msg[sizeof(u->why) + 64];
		snprintf(msg, sizeof(msg), "failed on every board of the pool: %s", u->why);
		unit_fail(p, bs, u, msg);
	}
	pthread_cond_broadcast(&p->cv);
}

/* Runs u's pending jobs on bs. 0 finished, 1 board lost (why filled), 2 stop (store or interrupt). */
static int run_unit_jobs(struct pool *p, struct board_state *bs, struct unit *u, char *why, size_t whylen)
{
	for (size_t k = 0; k < u->njobs; k++) {
		struct kvb_error err;
		int jr, stop;
		if (!p->h->pending(p->eng, u->jobs[k]))
			continue;
		pthread_mutex_lock(&p->mu);
		stop = p->stop || p->h->interrupted(p->eng);
		if (stop && !p->stop) {
			p->stop = p->interrupted = 1;
			pthread_cond_broadcast(&p->cv);
		}
		snprintf(bs->status, sizeof(bs->status), "%s r%d job %zu/%zu", p->vnames[u->v], u->round, k + 1,
			 u->njobs);
		show(p);
		pthread_mutex_unlock(&p->mu);
		if (stop)
			return 2;
		kvb_error_clear(&err);
		jr = p->h->job(bs->w, u->jobs[k], &err);
		if (jr == KVB_ESTORE) {
			pthread_mutex_lock(&p->mu);
			p->stop = p->store_failed = 1;
			pthread_cond_broadcast(&p->cv);
			pthread_mutex_unlock(&p->mu);
			return 2;
		}
		if (jr == KVB_EBOARD) {
			snprintf(why, whylen, "stopped answering in variant %s round %d: %s", p->vnames[u->v], u->round,
				 err.msg);
			return 1;
		}
	}
	return 0;
}

static void *board_thread(void *arg)
{
	struct board_state *bs = arg;
	struct pool *p = bs->p;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct unit *u;
		struct kvb_error err;
		char why[KVB_ERRMSG_MAX + 128];
		int rc;
		if (!p->stop && p->h->interrupted(p->eng)) {
			p->stop = p->interrupted = 1;
			pthread_cond_broadcast(&p->cv);
		}
		if (p->stop || !bs->in_pool)
			break;
		u = pick(p, bs);
		if (!u) {
			if (!work_left_for(p, bs))
				break;
			snprintf(bs->status, sizeof(bs->status), "idle");
			show(p);
			pthread_cond_wait(&p->cv, &p->mu);
			continue;
		}
		u->state = UNIT_RUNNING;
		snprintf(bs->status, sizeof(bs->status), "%s r%d booting", p->vnames[u->v], u->round);
		if (!p->tty)
			kvb_info("[board %s] variant %s round %d", bs->b->name, p->vnames[u->v], u->round);
		show(p);
		pthread_mutex_unlock(&p->mu);

		kvb_error_clear(&err);
		rc = p->h->bring_up(bs->w, u->v, u->round, &err);
		if (rc == KVB_ESTORE) {
			pthread_mutex_lock(&p->mu);
			u->state = UNIT_QUEUED;
			p->stop = p->store_failed = 1;
			pthread_cond_broadcast(&p->cv);
			break;
		}
		if (rc && p->h->interrupted(p->eng)) {
			/* Ctrl-C during the boot (a LAVA job cancelled): the unit stays for --resume */
			pthread_mutex_lock(&p->mu);
			u->state = UNIT_QUEUED;
			p->stop = p->interrupted = 1;
			pthread_cond_broadcast(&p->cv);
			break;
		}
		if (rc == KVB_EJOBS) {
			/* the unit's own failure (a LAVA job that failed): final, and no fault of the board */
			pthread_mutex_lock(&p->mu);
			unit_fail(p, bs, u, err.msg);
			pthread_cond_broadcast(&p->cv);
			continue;
		}
		if (rc) {
			pthread_mutex_lock(&p->mu);
			bs->fail_vmask |= 1ull << (u->v % 64);
			unit_setback(p, bs, u, err.msg);
			/* a kernel that does not boot fails on every board; a board that fails two variants is the board */
			if (__builtin_popcountll(bs->fail_vmask) >= 2)
				board_leaves(p, bs, u->why);
			continue;
		}
		rc = run_unit_jobs(p, bs, u, why, sizeof(why));
		if (p->h->unit_done)
			p->h->unit_done(bs->w, u->v, u->round);
		pthread_mutex_lock(&p->mu);
		if (rc == 2) {
			/* interrupted or the store failed: what is left stays pending for --resume */
			u->state = UNIT_QUEUED;
			break;
		}
		if (rc == 1) {
			board_leaves(p, bs, why);
			unit_setback(p, bs, u, why);
			continue;
		}
		u->state = UNIT_DONE;
		p->finished++;
		bs->runs[u->v]++;
		bs->fail_vmask = 0;
		snprintf(bs->status, sizeof(bs->status), "idle");
		show(p);
		pthread_cond_broadcast(&p->cv);
	}
	snprintf(bs->status, sizeof(bs->status), "%s", bs->in_pool ? "done" : "out of the pool");
	show(p);
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* The units of the plan that still have pending jobs, round by round, variant by variant. */
static void build_units(struct pool *p, const struct kvb_plan *plan, const struct kvb_pool_hooks *h, void *eng)
{
	for (int r = 1; r <= plan->rounds; r++)
		for (size_t v = 0; v < p->nvariants; v++) {
			struct unit u;
			memset(&u, 0, sizeof(u));
			u.v = v;
			u.round = r;
			for (size_t i = 0; i < plan->n; i++) {
				if (plan->jobs[i].variant != v || plan->jobs[i].round != r || !h->pending(eng, i))
					continue;
				u.jobs = kvb_xrealloc(u.jobs, (u.njobs + 1) * sizeof(*u.jobs));
				u.jobs[u.njobs++] = i;
			}
			if (!u.njobs)
				continue;
			p->units = kvb_xrealloc(p->units, (p->nunits + 1) * sizeof(*p->units));
			p->units[p->nunits++] = u;
		}
}

/*
 * Connects the boards one after the other (a backend's library set-up, libssh2_init, is not
 * thread-safe); returns how many answered.
 */
static size_t connect_boards(struct pool *p)
{
	size_t live = 0;
	for (size_t i = 0; i < p->nboards; i++) {
		struct board_state *bs = &p->boards[i];
		struct kvb_error e2;
		kvb_error_clear(&e2);
		if (p->h->connect(bs->w, &e2)) {
			bs->in_pool = 1;
			pthread_mutex_lock(&p->mu);
			board_leaves(p, bs, e2.msg);
			pthread_mutex_unlock(&p->mu);
		} else {
			bs->in_pool = 1;
			live++;
			snprintf(bs->status, sizeof(bs->status), "idle");
		}
	}
	return live;
}

/* A thread for every board in the pool (board_thread), waited for until every one has ended. */
static void run_boards(struct pool *p)
{
	for (size_t i = 0; i < p->nboards; i++) {
		struct board_state *bs = &p->boards[i];
		if (!bs->in_pool)
			continue;
		if (pthread_create(&bs->th, NULL, board_thread, bs)) {
			pthread_mutex_lock(&p->mu);
			board_leaves(p, bs, "cannot start a thread for it");
			pthread_mutex_unlock(&p->mu);
		} else {
			bs->started = 1;
		}
	}
	for (size_t i = 0; i < p->nboards; i++)
		if (p->boards[i].started)
			pthread_join(p->boards[i].th, NULL);
}

/* No board left for what is still queued: those rounds fail with the boards' reasons. */
static void fail_unrun(struct pool *p)
{
	struct kvb_buf whys = KVB_BUF_INIT;
	for (size_t i = 0; i < p->nboards; i++)
		if (!p->boards[i].in_pool)
			kvb_buf_addf(&whys, "%s%s: %s", whys.len ? "; " : "", p->boards[i].b->name, p->boards[i].why);
	for (size_t k = 0; k < p->nunits; k++) {
		struct unit *u = &p->units[k];
		char msg[2048];
		if (u->state != UNIT_QUEUED && u->state != UNIT_RUNNING)
			continue;
		snprintf(msg, sizeof(msg), "no board left in the pool (%s)%s%s", whys.len ? whys.data : "none",
			 u->why[0] ? "; last: " : "", u->why);
		unit_fail(p, &p->boards[0], u, msg);
	}
	kvb_buf_release(&whys);
}

int kvb_pool_run(const struct kvb_pool_hooks *h, void *eng, const struct kvb_pool_list *l, const struct kvb_plan *plan,
		 size_t nvariants, const char *const *variant_names, int tty, int *interrupted, int *store_failed,
		 struct kvb_error *err)
{
	struct pool p;
	int rc = KVB_OK;
	size_t live;

	memset(&p, 0, sizeof(p));
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	p.h = h;
	p.eng = eng;
	p.nvariants = nvariants;
	p.vnames = variant_names;
	p.tty = tty;
	build_units(&p, plan, h, eng);
	p.boards = kvb_xcalloc(l->n, sizeof(*p.boards));
	p.nboards = l->n;
	for (size_t i = 0; i < l->n; i++) {
		struct board_state *bs = &p.boards[i];
		bs->p = &p;
		bs->idx = i;
		bs->b = &l->v[i];
		bs->runs = kvb_xcalloc(nvariants + 1, sizeof(size_t));
		snprintf(bs->status, sizeof(bs->status), "connecting");
		if (!(bs->w = h->worker_new(eng, bs->b, (struct kvb_pool_board_ctl *)bs, err))) {
			rc = err->code ? err->code : KVB_ESTORE;
			goto out;
		}
	}
	live = connect_boards(&p);
	pthread_mutex_lock(&p.mu);
	if (live > 1 && !l->slots && plan->rounds < (int)live) /* LAVA slots are not boards: LAVA picks */
		say(&p, &p.boards[0], "warning",
		    "%d round(s) on %zu boards: not every board can run every variant, so a board effect may look like "
		    "a kernel effect; use --rounds %zu or more",
		    plan->rounds, live, live);
	else
		say(&p, &p.boards[0], "info", "pool of %zu board(s), %zu unit(s) to run", live, p.nunits);
	pthread_mutex_unlock(&p.mu);
	run_boards(&p);
	if (!p.stop)
		fail_unrun(&p);
	if (p.tty)
		fputc('\n', stderr);
	*interrupted = p.interrupted;
	*store_failed = p.store_failed;
out:
	for (size_t i = 0; i < p.nboards; i++) {
		if (p.boards[i].w)
			h->worker_free(eng, p.boards[i].w);
		free(p.boards[i].runs);
	}
	for (size_t k = 0; k < p.nunits; k++)
		free(p.units[k].jobs);
	free(p.units);
	free(p.boards);
	pthread_cond_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
	return rc;
}
