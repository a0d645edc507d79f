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
};

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

extern const struct kvb_instrument_ops *const kvb_instruments[];
const struct kvb_instrument_ops *kvb_instrument_find(const char *type);

#endif
