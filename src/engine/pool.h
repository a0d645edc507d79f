/*
 * Board pools (docs/design.md#pools-and-lava): one run spread over several boards of one kind.
 *
 * The unit of work is a whole (variant, round): one flash + boot + that
 * round's jobs, on one board. Every board has a worker thread with its own
 * target and its own SQLite connection (one transaction per finished job, as
 * on one board); the pool hands free boards the unit that keeps the design
 * balanced: the variant this board has run least, earliest round first, so
 * that with rounds >= boards every board runs every variant and a board effect
 * cancels in the comparison instead of looking like a kernel effect.
 *
 * Failures: a unit whose boot fails goes to a board that has not tried it; when
 * every board still in the pool has tried it the round fails and its variant is
 * marked failed with the last reason (a kernel that does not boot fails on every
 * board); the variant's later rounds are still tried (a failure can be the
 * round's own: a LAVA job that timed out). A board that stops answering in the middle of a unit, or fails units
 * of two different variants in a row, leaves the pool with an event; what is
 * left of its unit goes to another board. When no board is left, every unit not
 * run fails with the reasons the boards gave. --resume rebuilds the units from
 * the jobs not yet final, so it knows which units are done.
 *
 * The engine (run.c) owns the per-job logic; it lends it to the pool through
 * kvb_pool_hooks, so this file knows nothing of flashing or workloads.
 */
#ifndef KVB_POOL_H
#define KVB_POOL_H

#include "config/platform.h"
#include "core/error.h"
#include "engine/plan.h"

#include <stddef.h>

/* One board of the pool: a name and the platform as that board sees it. */
struct kvb_pool_board {
	char *name;                 /* owned; unique in the pool */
	struct kvb_platform plat;   /* kvb_platform_board_view(): borrowed, never released; plat.name = name */
};

struct kvb_pool_list {
	struct kvb_pool_board *v;
	size_t n;
	int batch;  /* the boards are a batch target's (LAVA): always run through the pool */
	int slots;  /* some boards are only slots of a batch target (`parallel: N`): its lab picks the device */
};

/*
 * The boards of a run: every board of plat (its boards:, or plat itself;
 * a connection with `parallel: N` counts N times, "<name>/1".."<name>/N"),
 * then those of each extra platform (-p given more than once). Extra
 * platforms must be of plat's kind (same connection type and flash method):
 * KVB_EINPUT naming the file otherwise. The views borrow from the platforms,
 * which must outlive the list.
 */
int kvb_pool_list_build(struct kvb_pool_list *l, const struct kvb_platform *plat, struct kvb_platform *const *more,
			size_t nmore, struct kvb_error *err);
void kvb_pool_list_release(struct kvb_pool_list *l);

/*
 * What the engine lends the pool. `eng` is the run's engine, `w` a worker (a
 * copy of the engine bound to one board, made by worker_new). Calls on one
 * worker come from that worker's thread only; calls on eng (unit_failed,
 * interrupted) are made with the pool's lock held.
 */
/* The pool's handle for one board, given to its worker (kvb_pool_board_trouble). */
struct kvb_pool_board_ctl;

/*
 * The worker's board stopped answering and the worker waits for it to come back
 * (on = 1: up to the platform's boot timeout), or it answers again (0). While a
 * board is in trouble no queued unit waits for it: a unit the balance would keep
 * for it goes to a free board at once. Any thread; takes the pool's lock.
 */
void kvb_pool_board_trouble(struct kvb_pool_board_ctl *ctl, int on);

struct kvb_pool_hooks {
	/* A worker for board b with its own SQLite connection; NULL + err when the DB cannot be opened.
	 * ctl is the board's handle for kvb_pool_board_trouble (valid until worker_free). */
	void *(*worker_new)(void *eng, const struct kvb_pool_board *b, struct kvb_pool_board_ctl *ctl,
			    struct kvb_error *err);
	/* Connects to the board (before any unit). */
	int (*connect)(void *w, struct kvb_error *err);
	/* Flash + boot + identity of (variant, round) on the worker's board. KVB_ESTORE stops the run;
	 * KVB_EJOBS is the unit's own failure (a LAVA job that failed): no other board tries it. */
	int (*bring_up)(void *w, size_t variant, int round, struct kvb_error *err);
	/* Runs and commits plan job idx: KVB_OK done (ok or failed), KVB_EBOARD the board was lost (job
	 * left pending, reason in err), KVB_ESTORE results cannot be stored (the run stops). */
	int (*job)(void *w, size_t idx, struct kvb_error *err);
	/* 1 when job idx is pending (not final). */
	int (*pending)(void *eng, size_t idx);
	/* Skips the pending jobs of (variant, round) with why, and marks the variant failed (once). */
	void (*unit_failed)(void *w, size_t variant, int round, const char *why);
	/* Event row + log line (level "warning", "error", "info") through the worker's connection. */
	void (*event)(void *w, const char *level, const char *msg);
	/* After a unit whose bring_up succeeded, whatever became of its jobs (done, board lost,
	 * stopped), before the board takes another: a batch (LAVA job) ends there. May be NULL. */
	void (*unit_done)(void *w, size_t variant, int round);
	/* Duets only (duet.h): both sides finished round r; 1 when the run is decided and the rest of the
	 * plan was skipped (--until-decided's look, through worker w's connection). May be NULL. */
	int (*round_done)(void *w, int round);
	/* 1 once the run must stop handing out units (Ctrl-C, max_jobs). */
	int (*interrupted)(void *eng);
	/* Adds the worker's counts into eng and frees it (after its thread ended); store_err copied when failed. */
	void (*worker_free)(void *eng, void *w);
};

/*
 * Runs every unit with pending jobs on the boards of l. *interrupted and
 * *store_failed report why it stopped early. Returns KVB_OK, or KVB_ETARGET
 * when no board could be reached at all (every unit then failed with the
 * boards' reasons), KVB_ESTORE when a worker's DB connection cannot be opened.
 */
int kvb_pool_run(const struct kvb_pool_hooks *h, void *eng, const struct kvb_pool_list *l, const struct kvb_plan *plan,
		 size_t nvariants, const char *const *variant_names, int tty, int *interrupted, int *store_failed,
		 struct kvb_error *err);

#endif
