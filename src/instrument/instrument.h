/*
 * Instruments: collect data around every job (DESIGN.md §5): energy meters,
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

struct kvb_instrument_ops {
	const char *name;                    /* `type:` in the platform's instruments mapping */
	const char *summary;
	const struct kvb_keydef *conf_keys;  /* allowed keys besides type */
	int (*setup)(struct kvb_instr_ctx *c, struct kvb_error *err);    /* may be NULL */
	int (*start)(struct kvb_instr_ctx *c, struct kvb_error *err);
	int (*stop)(struct kvb_instr_ctx *c, struct kvb_error *err);
	int (*collect)(struct kvb_instr_ctx *c, struct kvb_error *err);  /* derived metrics into c->out */
	void (*teardown)(struct kvb_instr_ctx *c);                       /* frees priv; may be NULL */
};

extern const struct kvb_instrument_ops *const kvb_instruments[];
const struct kvb_instrument_ops *kvb_instrument_find(const char *type);

#endif
