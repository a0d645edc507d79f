/*
 * The results database (SQLite, WAL): schema in results-schema/, applied in
 * order and tracked by PRAGMA user_version (docs/design.md#the-store-boundary).
 *
 * Every state change of a run is written before the engine moves on, and a
 * finished job is committed in one transaction with its metrics, classifiers
 * and artifacts, so a crash loses at most the job that was running.
 * All functions return KVB_OK or KVB_ESTORE with SQLite's message and the DB path.
 */
#ifndef KVB_STORE_H
#define KVB_STORE_H

#include "core/error.h"
#include "core/metric.h"
#include "core/util.h"

#include <cjson/cJSON.h>
#include <sqlite3.h>
#include <stdint.h>

struct kvb_store {
	sqlite3 *db;
	char *path;
	int readonly;
	int lock_fd;  /* "<db>.lock" held with flock while this process runs a run; -1 when not */
	/* Prepared statements of the store's own writes, kept across calls (keyed by SQL text): a
	 * 100,000-row import spent most of its time re-parsing the same INSERTs (issue 14). */
	struct {
		const char *sql;
		sqlite3_stmt *st;
	} stmt_cache[32];
};

/* How a store is opened: RW creates and migrates; RO uses SQLITE_OPEN_READONLY and query_only. */
enum kvb_store_mode { KVB_STORE_RW = 0, KVB_STORE_RO = 1 };

/* Opens the DB at path as mode says (RO: no statement can write). *out is owned; free with
 * kvb_store_close. Commands get theirs from kvb_cli_store() (the KVB_CMD_DB_* flags). */
int kvb_store_open(struct kvb_store **out, const char *path, enum kvb_store_mode mode, struct kvb_error *err);
void kvb_store_close(struct kvb_store *s);
/*
 * The results database schema version this kvbench writes: the number of results-schema/
 * migrations it embeds, which is what PRAGMA user_version (and the kvbench_schema view) of a
 * DB it migrated says. An older DB is migrated when opened; a newer one is refused (KVB_ESTORE
 * naming both versions), read-only opens included.
 */
int kvb_store_schema_known(void);

/*
 * Takes the DB's run lock ("<db path>.lock", flock, released at close or process
 * death), so two processes cannot run or resume runs of one DB at the same time
 * (their measurements would disturb each other and overwrite each other's jobs).
 * KVB_ESTORE with the holder's pid when another process has it.
 */
int kvb_store_lock_runs(struct kvb_store *s, struct kvb_error *err);

/*
 * Directory for a run's artifacts: "<db path>.d/run-<id>" (created). Owned.
 * NULL with errno when it cannot be made, or when run-<id> exists as a
 * symlink (ELOOP) or a non-directory (ENOTDIR): artifacts are never written
 * through a link out of the output directory. (<db path>.d itself may be a
 * link the user made, e.g. to a bigger disk.)
 */
char *kvb_store_artifact_dir(const struct kvb_store *s, int64_t run_id);

struct kvb_run_info {
	const char *agenda_path;
	const char *agenda_json;
	const char *platform;
	const char *platform_json;
	int rounds;
	const char *exec_order;
	int max_retries;
	const char *command_line;
	const char *status;  /* "running" or "imported" */
	int boots_each_round; /* 1: each round is a fresh boot (kvb_flasher_boots_each_round); 0: one boot for all */
	const char *platform_path; /* the platform file, absolute (--resume reloads it without -p), or NULL */
};
int kvb_store_run_begin(struct kvb_store *s, const struct kvb_run_info *ri, int64_t *run_id, struct kvb_error *err);
/* The run's default warm-up (0022_warmup.sql): set when it starts, read back by --resume. Errors: KVB_ESTORE. */
int kvb_store_run_set_warmup(struct kvb_store *s, int64_t run_id, int warmup, struct kvb_error *err);
int kvb_store_run_get_warmup(struct kvb_store *s, int64_t run_id, int *warmup, struct kvb_error *err);
/*
 * finished: 0 = still going (finished_ns NULL); 1 = finished now; KVB_RUN_FINISHED_AT_LAST_JOB =
 * finished when its last job ended (a --resume that ran no job must not lengthen the run).
 */
#define KVB_RUN_FINISHED_AT_LAST_JOB 2
int kvb_store_run_status(struct kvb_store *s, int64_t run_id, const char *status, int finished, struct kvb_error *err);
/* A stored run as --resume reloads it (strings owned; kvb_store_run_stored_release). */
struct kvb_run_stored {
	char *agenda_json;    /* the agenda as it ran, "{}" when not stored */
	char *agenda_path;    /* "agenda" when not stored */
	char *platform;       /* its name, "local" when not stored */
	char *platform_path;  /* the platform file, absolute, or NULL */
	char *status;         /* running | ok | incomplete | interrupted | imported ... */
	int rounds;
};
/* Loads run_id; KVB_ENOTFOUND ("no run N to resume") when there is none. */
int kvb_store_run_load(struct kvb_store *s, int64_t run_id, struct kvb_run_stored *r, struct kvb_error *err);
void kvb_store_run_stored_release(struct kvb_run_stored *r);
/* Latest run id (0 if none). */
int kvb_store_latest_run(struct kvb_store *s, int64_t *run_id, struct kvb_error *err);

struct kvb_variant_row {
	const char *name;
	int position;
	const char *kernel, *kernel_sha256, *dtb, *dtb_sha256, *initrd, *initrd_sha256;
	const char *boot_image, *boot_image_sha256, *modules, *modules_sha256, *cmdline;
	const char *expected_release, *expected_version;
	const char *runtime_json;
};
int kvb_store_variant_add(struct kvb_store *s, int64_t run_id, const struct kvb_variant_row *v, int64_t *id,
			  struct kvb_error *err);
int kvb_store_variant_status(struct kvb_store *s, int64_t variant_id, const char *status, const char *error,
			     struct kvb_error *err);
/* Looks up a variant of a run by name; *id = 0 when absent. */
int kvb_store_variant_find(struct kvb_store *s, int64_t run_id, const char *name, int64_t *id, struct kvb_error *err);

struct kvb_boot_row {
	int round;
	int64_t started_ns, ready_ns;
	const char *status, *error;
	const char *running_release, *running_version, *running_cmdline;
	const char *board;        /* pool board name, or NULL (one board) */
	int64_t lava_job_id;      /* LAVA job id, or 0 */
	const char *lava_url;     /* LAVA job page, or NULL */
};
/*
 * Records one boot of variant_id as a new row (results-schema/0024): a second boot of the same
 * round (a --resume, a pool's lost board, a LAVA job retried) never replaces the first; its seq
 * is the variant's next (1-based). *id (may be NULL) gets the row's id, 0 on error. KVB_ESTORE.
 */
int kvb_store_boot_record(struct kvb_store *s, int64_t variant_id, const struct kvb_boot_row *b, int64_t *id,
			  struct kvb_error *err);
/*
 * Marks 'interrupted' every ok boot of run_id whose (variant, round) still has a pending or
 * running job: the boot the run stopped in (Ctrl-C, SIGTERM, --max-jobs), or one a killed run
 * left, found by the next --resume. *n (may be NULL) gets how many were marked. KVB_ESTORE.
 */
int kvb_store_boots_interrupted(struct kvb_store *s, int64_t run_id, int *n, struct kvb_error *err);

struct kvb_job_row {
	int64_t id;        /* filled by kvb_store_plan_add */
	int64_t variant_id;
	int seq, round, iteration;
	const char *spec_id, *workload, *label, *section;
	char *params_json, *runtime_json;  /* borrowed */
	/* filled by kvb_store_plan_load */
	char status[24];
	int attempts;
};
/* Inserts planned jobs as 'pending' in one transaction. */
int kvb_store_plan_add(struct kvb_store *s, int64_t run_id, struct kvb_job_row *rows, size_t n, struct kvb_error *err);
/* Fills id/status/attempts of rows by (run_id, seq) — used by --resume. Rows not found get id 0. */
int kvb_store_plan_load(struct kvb_store *s, int64_t run_id, struct kvb_job_row *rows, size_t n, struct kvb_error *err);

int kvb_store_job_start(struct kvb_store *s, int64_t job_id, int64_t start_ns, struct kvb_error *err);
/* A job whose attempt a signal interrupted goes back to 'pending' (no start time), so --resume
 * runs it; its attempt is kept as an 'interrupted' job_attempt row by the caller. */
int kvb_store_job_pending(struct kvb_store *s, int64_t job_id, struct kvb_error *err);

/*
 * An attempt that measured but is not kept as the job's result (a host-disturbed attempt that
 * is run again, results-schema/0025_disturbed_attempts.sql): its job_attempt row with status
 * and error, its metrics m (values in their own units) as the row's metrics_json, and its
 * witnesses w under the attempt's number; one transaction. m and w may be NULL. Errors:
 * KVB_ESTORE (nothing stored).
 */
int kvb_store_attempt_evidence(struct kvb_store *s, int64_t run_id, int64_t job_id, int attempt, const char *status,
			       const char *error, int64_t start_ns, int64_t end_ns, const struct kvb_metrics *m,
			       const struct kvb_witnesses *w, struct kvb_error *err);

/* A failed attempt, kept with its error (own transaction). */
int kvb_store_attempt_add(struct kvb_store *s, int64_t job_id, int attempt, const char *status, const char *error,
			  int64_t start_ns, int64_t end_ns, struct kvb_error *err);

struct kvb_job_outcome {
	const char *status;  /* ok | failed | instrument-failed | skipped */
	const char *error;   /* NULL when ok */
	int attempts;
	int64_t start_ns, end_ns;
	const char *cgroup;  /* cgroup_depth: the leaf the workload ran in (0006), or NULL */
	const struct kvb_witnesses *witnesses; /* what was checked (0015_witness.sql), stored whatever the
						  status; NULL: none. A failed job's metrics are not stored,
						  its witnesses are. */
	int64_t boot_id;     /* the boot row it ran in (kvb_store_boot_record), stored as job.boot_id;
				0: none (skipped, imported), stored as NULL */
};
/*
 * Commits a finished job in ONE transaction: job row, final attempt row,
 * metrics with their classifiers, job classifiers (object key -> string),
 * artifacts. On failure nothing of it is stored.
 */
int kvb_store_job_commit(struct kvb_store *s, int64_t run_id, int64_t job_id, const struct kvb_job_outcome *o,
			 const struct kvb_metrics *m, const cJSON *classifiers, struct kvb_error *err);

/* The writes of kvb_store_job_commit without its transaction (caller holds one; used by import). */
int kvb_store_job_write(struct kvb_store *s, int64_t run_id, int64_t job_id, const struct kvb_job_outcome *o,
			const struct kvb_metrics *m, const cJSON *classifiers, struct kvb_error *err);

/*
 * The value of job classifier `key` in the run's first job (by seq) that has it, into out (n
 * bytes). Returns 1 when found, 0 when no job has it, -1 on a store error (classifier_query.c).
 */
int kvb_store_run_classifier(struct kvb_store *s, int64_t run_id, const char *key, char *out, size_t n);

/* Records a file of the run that belongs to no job (a boot's console log); sha256 and size computed here. */
int kvb_store_run_artifact(struct kvb_store *s, int64_t run_id, const char *kind, const char *path, struct kvb_error *err);

/* Knob originals (results-schema/0004_knobs.sql): saved before a write, dropped after restore. */
int kvb_store_knob_save(struct kvb_store *s, int64_t run_id, const char *platform, const char *path,
			const char *original, struct kvb_error *err);
int kvb_store_knob_done(struct kvb_store *s, int64_t run_id, const char *path, struct kvb_error *err);
/* Leftovers of crashed runs on platform: parallel lists of paths and originals (oldest first). */
int kvb_store_knob_leftovers(struct kvb_store *s, const char *platform, struct kvb_strv *paths,
			     struct kvb_strv *originals, struct kvb_error *err);
int kvb_store_knob_clear(struct kvb_store *s, const char *platform, struct kvb_error *err);

/*
 * A witness of no job: of a boot or a round of variant_id (pLoad re-checked at the end of a
 * round, the host's check before a run). Own statement, no transaction. KVB_ESTORE on failure.
 */
int kvb_store_witness_add(struct kvb_store *s, int64_t run_id, int64_t variant_id, int round,
			  const struct kvb_witness *w, struct kvb_error *err);

/*
 * `import --lower-is-better GLOB`: sets lower_is_better = 1 on the metrics of run run_id whose
 * name matches glob (SQLite GLOB: *, ?, [...], case-sensitive), for imports whose source does
 * not say it (WA3's results.csv) or says it wrong. *n: the metric rows changed. Own statement.
 */
int kvb_store_mark_lower_is_better(struct kvb_store *s, int64_t run_id, const char *glob, int *n,
				   struct kvb_error *err);
/* Appends an event of job job_id (0: none) to the run's log (0006_events_cgroup.sql). Best effort. */
void kvb_store_event_job(struct kvb_store *s, int64_t run_id, int64_t job_id, const char *level, const char *msg);
/* Appends to the run's event log. Failures are ignored (the log is best effort). */
void kvb_store_event(struct kvb_store *s, int64_t run_id, const char *level, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Runs sql with no result rows (for tests and import). */
int kvb_store_exec(struct kvb_store *s, const char *sql, struct kvb_error *err);
int kvb_store_begin(struct kvb_store *s, struct kvb_error *err);
int kvb_store_commit(struct kvb_store *s, struct kvb_error *err);
void kvb_store_rollback(struct kvb_store *s);

#endif
