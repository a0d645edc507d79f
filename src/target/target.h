/*
 * Targets: a live connection to one board (docs/design.md#backends-and-capabilities). One backend per
 * file (local.c, ssh.c, adb.c, qemu.c), listed in kvb_targets[] (target.c).
 *
 * Contract for every backend:
 *  - exec() takes an argv (never a shell string); remote backends quote it
 *    with kvb_shell_join() (core/quote.h) and nothing else.
 *  - exec() returns KVB_OK when the command ran, whatever its exit status
 *    (r->exit_code), and KVB_ETARGET when it could not run, the connection
 *    dropped, or the timeout fired (r->timed_out = 1; the remote command is
 *    killed). The message says which.
 *  - push()/pull() copy one file or one directory tree.
 *  - close() is safe on a target that never opened.
 */
#ifndef KVB_TARGET_H
#define KVB_TARGET_H

#include "config/keys.h"
#include "core/error.h"
#include "core/spawn.h"
#include "core/tbcount.h"

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

struct kvb_platform;
struct kvb_target;

/*
 * What a target can do. Commands, flashers and workloads ask these, never the
 * backend's name (docs/design.md#backends-and-capabilities). Rebooting is the presence of ops->reboot.
 */
enum kvb_target_caps {
	/* kvbench starts the board itself (a QEMU process): there is nothing to reach
	 * before a run boots it, and a flasher can hand it a kernel to boot */
	KVB_TARGET_OWNS_BOARD = 1u << 0,
	/* Android userspace: `am`, `logcat`, app data under /data/data */
	KVB_TARGET_ANDROID = 1u << 1,
};

struct kvb_variant;

/*
 * A target whose commands do not run one by one but as one batch per boot
 * (LAVA: a job definition per (variant, round), docs/design.md#pools-and-lava). The engine
 * asks for this capability (ops->batch != NULL): it runs the unit once with
 * the target recording (exec answers exit 0 and no output), runs the batch,
 * then runs the unit again with exec answering from the batch's output, so
 * workloads, identity checks and parsers are the same code as on a live board.
 */
struct kvb_batch_unit {
	const struct kvb_variant *variant;
	int round;
	const char *name;          /* job name, e.g. "kvbench run 3 variant base round 1" */
	const char *artifact_dir;  /* where the batch's log is kept (and files it builds, a boot image) */
	volatile sig_atomic_t *stop; /* set when the run is interrupted: the batch is cancelled */
	/*
	 * No orphans (docs/design.md#pools-and-lava): submitted() is called the moment a batch is
	 * submitted, before anything else, with what the backend needs to find it
	 * again (state: text, owned by the engine's store); ended() once it is known
	 * to be over. On --resume the engine gives back a batch of this unit that
	 * was still in flight: the backend reattaches to it, or cancels it and
	 * submits anew, and says which.
	 */
	int64_t reattach_id;            /* 0, or that batch's id */
	const char *reattach_state;     /* what submitted() was given for it */
	void (*submitted)(void *arg, int64_t id, const char *url, const char *state);
	void (*ended)(void *arg, int64_t id, const char *how);
	void *arg;
};
struct kvb_batch_result {
	int64_t job_id;            /* LAVA job id, or 0 */
	char url[512];             /* the job's page, or "" */
	char device[128];          /* the device LAVA ran it on (the board of this boot), or "" */
	char log_path[1024];       /* the batch's log, saved under artifact_dir, or "" */
	int final;                 /* on failure: 1 when retrying elsewhere cannot help (the job's own failure) */
};
struct kvb_target_batch_ops {
	/* Forget what was recorded; record from now on. */
	void (*record)(struct kvb_target *t);
	/* Names the commands that follow (record), or goes back to the first command of that name (replay). */
	void (*mark)(struct kvb_target *t, const char *key);
	/* Runs what was recorded until every command's output is in (the batch may still be running, e.g.
	 * to take results back); afterwards exec replays. KVB_ETARGET/KVB_EJOBS with the batch's own reason. */
	int (*run)(struct kvb_target *t, const struct kvb_batch_unit *u, struct kvb_batch_result *res,
		   struct kvb_error *err);
	/* The batch run() would submit for what was recorded, without submitting or serving anything
	 * (--dry-run: files given as local paths appear as file:// URLs). Owned; NULL + err. */
	char *(*describe)(struct kvb_target *t, const struct kvb_batch_unit *u, struct kvb_error *err);
	/* The engine stored the jobs recorded under key: their status ("ok", "failed" ...) and metrics
	 * ([{name, value, units, classifiers}]) go back into the batch (LAVA test cases). */
	void (*report)(struct kvb_target *t, const char *key, const char *status, const cJSON *metrics);
	/* When the commands recorded under key ran on the board (first and last output), ns since the
	 * epoch; 0 when unknown. */
	void (*span)(struct kvb_target *t, const char *key, int64_t *begin_ns, int64_t *end_ns);
	/* The unit is done, or given up (u->stop: cancelled): the batch ends (what report() gave is
	 * published, the batch waited for, its log kept in res->log_path). KVB_OK, or why it ended badly
	 * after its commands (the results stand: a warning). */
	int (*finish)(struct kvb_target *t, const struct kvb_batch_unit *u, struct kvb_batch_result *res,
		      struct kvb_error *err);
};

/*
 * A board whose CPUs are this host's (the host itself, or a QEMU process kvbench owns):
 * what the host interference witness (engine/hostwatch.h) needs to know of it.
 */
struct kvb_target_host {
	pid_t pid;            /* the board's host process (QEMU), 0: the host itself */
	const char *process;  /* its name in messages ("qemu"), or NULL; static */
	int virtual_clock;    /* 1: the guest's time counts instructions (QEMU -icount): host load cannot change it */
	int workload_on_host; /* 1: the workload's own tasks are host tasks (local), so the host's CPU
			       * pressure counts them too and cannot tell interference from the job itself */
	int cpus;             /* host CPUs the board process runs on at once (a QEMU guest's vCPU
			       * threads; 1 on single-threaded TCG), 0: unknown */
};

/*
 * What the run's instruments want of a board that kvbench starts itself, set in kvb_target.wants
 * before open (engine: kvb_instr_set_wants); a backend that cannot give one ignores it and says
 * why through the op that would have used it.
 */
enum kvb_target_wants {
	/* count every guest instruction by code address (ops->insn_counter): a QEMU board loads
	 * kvbench's TCG plugin (qemu-plugin/kvb_tbcount.c, docs/profile.md#counting-every-instruction) */
	KVB_TARGET_WANT_INSN_COUNTER = 1u << 0,
};

struct kvb_target_ops {
	const char *name;                  /* connection.type in platform.yaml */
	const char *summary;               /* one line for --help */
	unsigned caps;                     /* enum kvb_target_caps */
	const struct kvb_keydef *conn_keys; /* keys allowed under connection: (besides type) */
	/* A top-level block of platform.yaml this backend reads ("lava") and its keys, or NULL (help lists them). */
	const char *block;
	const struct kvb_keydef *block_keys;
	/* Checks beyond the key table (the platform's own blocks this backend reads), errors to d. May be NULL. */
	void (*check)(const struct kvb_platform *p, struct kvb_diag *d);
	int (*open)(struct kvb_target *t, struct kvb_error *err);
	int (*exec)(struct kvb_target *t, const char *const *argv, uint64_t timeout_ms, struct kvb_exec_result *r,
		    struct kvb_error *err);
	int (*push)(struct kvb_target *t, const char *local, const char *remote, struct kvb_error *err);
	int (*pull)(struct kvb_target *t, const char *remote, const char *local, struct kvb_error *err);
	/* mode: NULL for a normal reboot, "bootloader" for adb. The connection is closed after. */
	int (*reboot)(struct kvb_target *t, const char *mode, struct kvb_error *err);
	/* Waits until the board answers and its ready check passes, up to timeout_ms. */
	int (*wait_ready)(struct kvb_target *t, uint64_t timeout_ms, struct kvb_error *err);
	void (*close)(struct kvb_target *t);
	const struct kvb_target_batch_ops *batch; /* non-NULL: commands run as one batch per boot (see above) */
	/* Fills h and returns 1 when the board runs on this host's CPUs now (a QEMU guest is up, or
	 * the host itself), else 0. NULL: the board is never on this host (ssh, adb, LAVA). */
	int (*host)(struct kvb_target *t, struct kvb_target_host *h);
	/*
	 * The board's instruction counter (asked for with KVB_TARGET_WANT_INSN_COUNTER): every guest
	 * instruction since the board started, by translated block. dump_path non-NULL: the counts
	 * are written there on this host, one line per block that ran, "START END INSNS EXECS" (guest
	 * virtual addresses in hex: the block's first instruction and the byte after its last;
	 * instructions in the block; times it ran). Fills c. KVB_ETARGET with why when the board has
	 * no counter (not asked for, not built, a clock that is not instructions) or it did not
	 * answer. NULL: the board never counts instructions.
	 */
	int (*insn_counter)(struct kvb_target *t, const char *dump_path, struct kvb_insn_count *c,
			    struct kvb_error *err);
};

struct kvb_target {
	const struct kvb_target_ops *ops;
	const struct kvb_platform *plat;  /* borrowed; outlives the target */
	void *priv;                       /* backend state */
	volatile int *cancel;             /* set to 1 to abort a running exec (second Ctrl-C) */
	int offline;                      /* set before open: nothing will run (--dry-run), reach nothing */
	unsigned wants;                   /* enum kvb_target_wants, set before open */
	int recording;                    /* a batch target writing down a unit's commands (engine): every exec
					   * answers exit 0 and no output, so what is read back is not judged */
};

/* Words for a set of capabilities in messages ("owns the board", "Android"); static. */
const char *kvb_target_caps_describe(unsigned caps);

/* NULL-terminated registry. */
extern const struct kvb_target_ops *const kvb_targets[];
const struct kvb_target_ops *kvb_target_find(const char *name);

/* Picks the backend from plat's connection type and opens it. */
int kvb_target_open(struct kvb_target *t, const struct kvb_platform *plat, struct kvb_error *err);
int kvb_target_exec(struct kvb_target *t, const char *const *argv, uint64_t timeout_ms, struct kvb_exec_result *r,
		    struct kvb_error *err);
/* exec, then fails unless the exit status is 0; the message quotes stderr's first line. */
int kvb_target_run_ok(struct kvb_target *t, const char *const *argv, uint64_t timeout_ms, struct kvb_exec_result *r,
		      struct kvb_error *err);
int kvb_target_push(struct kvb_target *t, const char *local, const char *remote, struct kvb_error *err);
int kvb_target_pull(struct kvb_target *t, const char *remote, const char *local, struct kvb_error *err);
int kvb_target_reboot(struct kvb_target *t, const char *mode, struct kvb_error *err);
int kvb_target_wait_ready(struct kvb_target *t, uint64_t timeout_ms, struct kvb_error *err);
void kvb_target_close(struct kvb_target *t);

/* ops->insn_counter, or KVB_ETARGET "the board counts no instructions" when the backend has none. */
int kvb_target_insn_counter(struct kvb_target *t, const char *dump_path, struct kvb_insn_count *c,
			    struct kvb_error *err);

/* Reads a small remote file (cat); trailing newline stripped. Caller frees *out. */
int kvb_target_read(struct kvb_target *t, const char *path, char **out, struct kvb_error *err);

/* Reads ROOT/path on the target (cat), untrimmed; root "" or NULL for the real root. Caller frees *out. */
int kvb_target_read_rooted(struct kvb_target *t, const char *root, const char *path, char **out,
			   struct kvb_error *err);

/*
 * The platform's `sysfs_root:` for t: the prefix every reader of the board's /sys and /proc puts
 * before its path ("" for the real ones; tests and simulated boards point it at a fake tree). Static.
 */
const char *kvb_target_sysfs_root(const struct kvb_target *t);
/*
 * Writes value to a remote file (sysfs/procfs) via `sh -c 'printf %s "$1" > "$2"'` with argv
 * (`print -rn` on a shell without printf: Android 4.4/5.x mksh).
 */
int kvb_target_write(struct kvb_target *t, const char *path, const char *value, struct kvb_error *err);

#endif
