/*
 * The run loop's own header, shared by engine/run*.c and by nothing else: the engine of a run (one
 * per board in a pool), its signal state, and the functions one room of the run calls in another.
 */
#ifndef KVB_ENGINE_RUN_INTERNAL_H
#define KVB_ENGINE_RUN_INTERNAL_H

#include "engine/engine.h"
#include "engine/decide.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/sha256.h"
#include "core/util.h"
#include "engine/hostwatch.h"
#include "engine/identity.h"
#include "engine/knobs.h"
#include "engine/plan.h"
#include "engine/duet.h"
#include "engine/pool.h"
#include "engine/thermal.h"
#include "flash/fetch.h"
#include "flash/flash.h"
#include "flash/bootimg.h"
#include "flash/kimage.h"
#include "instrument/session.h"
#include "store/disturbance.h"
#include "store/lava_jobs.h"
#include "store/spread.h"
#include "store/status.h"
#include "workload/workload.h"

#include <signal.h>
#include <stdatomic.h>

/* A run's engine: the run's state, or in a pool one board's worker (pool_worker_new) sharing the plan and rows. */
struct engine {
	struct kvb_instr_set instr;  /* instruments around every job */
	int workload_on_host;        /* a job ran on a board whose workload tasks are host tasks (local):
				      * CPU pressure was recorded, not judged (the run's last line says so) */
	int host_busy;               /* a disturbed job waited KVB_HOST_QUIET_WAIT_MS for a quiet second in vain:
				      * until a job comes out clean, disturbed jobs are left out at once */
	char *instr_err;             /* failures of the last attempt's instruments, or NULL */
	const struct kvb_run_opts *o;
	struct kvb_agenda *a;
	struct kvb_platform *plat;
	struct kvb_store *st;
	int64_t run_id;
	char *artdir;
	struct kvb_plan plan;
	struct kvb_job_row *rows;
	int64_t *variant_ids;
	int *variant_failed;
	char **variant_why;   /* per variant: why its files could not be had, or NULL */
	int no_retry;         /* the last attempt failed applying knobs, a thermal limit refused it, or
			       * the workload refused the board (kvb_job_ctx.no_retry): not retried */
	struct kvb_target target;
	int target_open;
	int failures;
	int identity_failed;   /* the last bring_up failed its identity check: the board answered and ran
				  another kernel, a variant's failure (exit 1), not the target's */
	int target_failures;  /* of failures: variants failed because the target could not be reached or was
				 lost (KVB_ETARGET, KVB_EBOARD): a run with only these and no job ok exits 4 */
	size_t todo, done;
	size_t warmups_done;  /* of done: warm-up jobs (the run's summary counts the measured ones) */
	uint64_t t0_ns;
	int looks;            /* --until-decided looks made since t0_ns (the rounds' mean time: the next one's) */
	int tty;
	char tag[32];
	char store_err[KVB_ERRMSG_MAX / 2]; /* why the last job could not be stored */
	int64_t cur_job_id;   /* the job running now (events name it), 0 between jobs */
	char *job_cgroup;     /* cgroup_depth: the leaf the last attempt's workload ran in */
	cJSON *knob_recorded; /* `readback: record` knobs of the last attempt: classifier -> value found (owned) */
	const char *board;    /* board of a pool (pool.c), or NULL on one board */
	struct engine *parent;/* the run's engine when this is a pool worker */
	char *lost_why;       /* pool worker: why the board was lost in the last job (owned) */
	int64_t boot_id;      /* the boot row of the boot this engine's jobs run in now (job.boot_id), or 0 */
	int64_t lava_job_id;  /* batch target (LAVA): the job of the current boot, or 0 */
	char lava_url[512];
	char device[128];     /* batch target: the device the boot ran on (its board), or "" */
	struct batch_unit *bu;/* batch target: the unit in flight (batch_bring_up .. batch_unit_end), or NULL */
	struct kvb_pool_board_ctl *pool_ctl; /* pool worker: its board's handle in the pool, or NULL */
	struct kvb_workload_states wstates;  /* this board's workload state (rt-app's pLoad); a worker has its own */
	struct kvb_run_memory resumed;       /* --resume: what resume hooks read, through this engine's store */
};

/* A batch target's unit in flight: what its run() was given, kept until finish(). */
struct batch_unit {
	struct kvb_batch_unit u;
	struct engine *w;
	size_t v;
	char name[256];
	char *dir;
	char *reattach_state;
};

/* A job being run (kvb_run_job): what its attempts leave for the steps that store it. */
struct job_run {
	const struct kvb_plan_job *j;
	struct kvb_job_row *row;
	int64_t start;        /* wall ns: when this invocation started the job */
	int64_t a0;           /* wall ns: when the last attempt started */
	int attempt;          /* attempts made, earlier invocations' and lost boards' included */
	int rc;               /* the last attempt's result */
	int left_out;         /* the last attempt was disturbed by the host and no re-run is left: status disturbed */
	char left_out_why[KVB_ERRMSG_MAX]; /* the job's error then: what disturbed it */
	int reruns;           /* attempts run again because the host disturbed them */
	struct kvb_error err; /* why the last attempt failed */
	struct kvb_metrics m; /* the last attempt's metrics (owned) */
	cJSON *cls;           /* the job's classifiers (owned) */
};

/* How the loop over rounds ended. */
struct run_outcome {
	int interrupted;   /* Ctrl-C/SIGTERM or --max-jobs, with jobs left */
	int store_failed;  /* results could not be stored: the run stopped (e->store_err says why) */
};

/* run.c */
extern volatile sig_atomic_t kvb_run_signals;
extern volatile int kvb_run_cancel;
extern atomic_int kvb_run_in_workload;
extern _Thread_local struct engine *kvb_run_thread_engine;

/* run_setup.c */
/* 1 when a job row's status is final (not pending or running). */
int kvb_run_is_final(const char *status);
void kvb_run_resume_workloads(struct engine *e);
struct kvb_plan_opts kvb_run_plan_opts(struct engine *e);
int kvb_run_setup(struct engine *e, struct kvb_error *err);
void kvb_run_release_engine(struct engine *e);

/* run_attempt.c */
long kvb_run_board_session(const struct engine *e);
void kvb_run_progress(struct engine *e, const struct kvb_plan_job *j, const char *what);
cJSON *kvb_run_job_classifiers(struct engine *e, const struct kvb_plan_job *j);
void kvb_run_job_runtime(struct engine *e, const struct kvb_plan_job *j, struct kvb_runtime *rt);
int kvb_run_attempt_job(struct engine *e, const struct kvb_plan_job *j, int attempt, struct kvb_metrics *m,
		struct kvb_error *err);

/* run_board.c */
int kvb_run_target_alive(struct engine *e);
void kvb_run_skip_jobs(struct engine *e, size_t v, int round, const char *why);
int kvb_run_until_decided_stop(struct engine *e, int r);
/* Variant v failed for why; code is the error that failed it (KVB_ETARGET, KVB_EBOARD: the target's). */
void kvb_run_fail_variant(struct engine *e, size_t v, const char *why, int code);
char *kvb_run_boot_dir(struct engine *e, size_t v, int round);
int kvb_run_bring_up(struct engine *e, size_t v, int round, struct kvb_error *err);
int kvb_run_board_came_back(struct engine *e);

/* run_job.c */
enum kvb_err kvb_run_job(struct engine *e, size_t idx);

/* run_pool.c */
void kvb_run_batch_record(struct engine *w, size_t v, int round, const struct kvb_job_row *rows);
int kvb_run_pool(struct engine *e, const struct kvb_pool_list *l, int *interrupted, int *store_failed,
	     struct kvb_error *err);

/* run_dry.c */
int kvb_run_print_plan(struct engine *e, struct kvb_error *err);

#endif
