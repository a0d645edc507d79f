/*
 * Instruments: collect data around every job (docs/design.md#backends-and-capabilities): energy meters,
 * cpufreq residency, utilisation, ftrace, dmesg. One backend per file,
 * listed in kvb_instruments[] (instrument.c).
 *
 * Configured in the platform's `instruments:` mapping (name -> {type: BACKEND,
 * ...backend keys}); the agenda's config.instruments / augmentations list can
 * add by name or disable with "~name" (WA3). The engine calls, per job:
 * setup -> start (just before the workload) -> [workload] -> stop (just after)
 * -> collect -> teardown. A failing instrument marks the job
 * `instrument-failed` and the workload's metrics are kept.
 */
#ifndef KVB_INSTRUMENT_H
#define KVB_INSTRUMENT_H

#include "config/keys.h"
#include "config/platform.h"
#include "core/metric.h"
#include "target/target.h"

struct kvb_instr_ctx {
	const char *name;               /* instance name (key in platform instruments:) */
	const cJSON *conf;              /* its mapping in the platform file (borrowed) */
	struct kvb_target *target;
	const struct kvb_platform *plat;
	const char *artifact_dir;       /* local dir for this job's files (exists) */
	const char *remote_dir;         /* dir on the target for this job (exists) */
	int64_t start_ns, stop_ns;      /* CLOCK_REALTIME ns of start/stop, set by the engine */
	int instruction_clock;          /* 1: the instrument asked for KVB_INSTR_INSTRUCTION_CLOCK and the board's
					   clock counts instructions (kvb_target_host.virtual_clock); set by the session */
	struct kvb_metrics *out;        /* metrics, artifacts (and samples) go here */
	void *priv;                     /* backend state between calls */
};

/*
 * The prefix of /sys and /proc every instrument reads under on the target: the platform's
 * `sysfs_root:` ("" for the real ones; tests point it at a fake tree). plat may be NULL.
 */
const char *kvb_instr_sysfs_root(const struct kvb_platform *plat);

/*
 * What `platform check` asks of one instrument before any job runs (issue 26): every program
 * and file it will use, on this host (meter commands) and, when the board answers, on the
 * board (roots, sysfs/procfs files, tools). A problem is a line "instrument 'NAME': ..."
 * in problems; what was found is a line in found (the listing).
 */
struct kvb_instr_probe {
	const char *name;               /* instance name */
	const cJSON *conf;              /* its mapping (borrowed) */
	const struct kvb_platform *plat;
	struct kvb_target *target;      /* NULL: the host-side checks; the board: the board-side checks */
	struct kvb_strv *problems;
	struct kvb_strv *found;
};

/* What an instrument needs of the board, asked by the session and `platform check`, never by name. */
enum kvb_instr_caps {
	/* its numbers count instructions where the board's clock counts instructions (QEMU -icount: the
	 * profile's samples x period); elsewhere the same numbers are time, and it says so */
	KVB_INSTR_INSTRUCTION_CLOCK = 1u << 0,
};

struct kvb_instrument_ops {
	const char *name;                    /* `type:` in the platform's instruments mapping */
	const char *summary;
	const struct kvb_keydef *conf_keys;  /* allowed keys besides type */
	int (*setup)(struct kvb_instr_ctx *c, struct kvb_error *err);    /* may be NULL */
	int (*start)(struct kvb_instr_ctx *c, struct kvb_error *err);
	int (*stop)(struct kvb_instr_ctx *c, struct kvb_error *err);
	int (*collect)(struct kvb_instr_ctx *c, struct kvb_error *err);  /* derived metrics into c->out */
	void (*teardown)(struct kvb_instr_ctx *c);                       /* frees priv; may be NULL */
	void (*probe)(struct kvb_instr_probe *p);  /* checks for `platform check`; NULL: nothing to check */
	const struct kvb_metric_decl *metrics;     /* what collect() stores, ended by a NULL name; NULL: none
						      (shown by `help NAME`; directions checked by test_metric_directions) */
	unsigned caps;                             /* enum kvb_instr_caps */
	/* What this instance wants of a board kvbench starts (enum kvb_target_wants, target.h), asked
	 * before the board boots; NULL: nothing. */
	unsigned (*wants)(const cJSON *conf);
};

/* 1 when board t's clock counts instructions (its host() says virtual_clock), else 0. */
int kvb_instr_board_counts_instructions(struct kvb_target *t);

/* The metrics every energy meter stores per channel (classifier chan_name): energy (J) and power_mean (mW). */
extern const struct kvb_metric_decl kvb_energy_metric_decls[];

/* The checks of every instrument of the platform's `instruments:`: those on this host when t is
 * NULL, those on the board t otherwise; into problems and found. Returns the problems added. */
size_t kvb_instr_probe_platform(const struct kvb_platform *plat, struct kvb_target *t, struct kvb_strv *problems,
				struct kvb_strv *found);

/* A problem or a finding of p's instance: "instrument 'NAME': " + fmt (the name is added here only). */
void kvb_instr_probe_problem(struct kvb_instr_probe *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kvb_instr_probe_found(struct kvb_instr_probe *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Probe helpers (check.c). argv0 must resolve on this host: a path (with '/') to an executable
 * file, or a name found executable in $PATH, as the meter will be spawned (execvp). */
void kvb_instr_probe_host_program(struct kvb_instr_probe *p, const char *argv0, const char *what);
/* ROOT + path must be a readable file on the board (ROOT: the platform's `sysfs_root:`). */
void kvb_instr_probe_board_file(struct kvb_instr_probe *p, const char *path);
/* prog must be on the board's PATH (command -v), or an executable path there. */
void kvb_instr_probe_board_program(struct kvb_instr_probe *p, const char *prog, const char *what);

/*
 * The load-time checks of the platform's `instruments:` (config/platform.c calls it): every
 * entry a mapping with a known `type` (did you mean), its keys against that type's conf_keys
 * (the table `kvbench help TYPE` prints), its sums naming its channels (or, for a type with an
 * energy_model key, the topology's clusters). Problems go to d at their file:line:col.
 */
void kvb_instr_check_platform(const struct kvb_platform *p, struct kvb_diag *d);
/* One instance's keys at path ("instruments.energy"): type plus ops->conf_keys. Returns the errors added. */
int kvb_instr_conf_check(const char *path, const cJSON *conf, const struct kvb_instrument_ops *ops, struct kvb_diag *d);

extern const struct kvb_instrument_ops *const kvb_instruments[];
const struct kvb_instrument_ops *kvb_instrument_find(const char *type);

#endif
