/*
 * The instruments of a run and their calls around each job (what the engine
 * uses; docs/design.md#the-job-lifecycle: instruments.start -> workload.run -> instruments.stop).
 *
 * Which instruments run: every instance in the platform's `instruments:`
 * mapping (name -> {type: BACKEND, ...}), then the agenda's
 * `instruments`/`augmentations` list in order: "NAME" enables a platform
 * instance, or a backend by type with default settings (e.g. "cpufreq",
 * "util", "dmesg"); "~NAME" disables an instance or every instance of a type.
 *
 * A failing instrument never stops the workload: its error is recorded,
 * the other instruments go on, and the job ends `instrument-failed` with the
 * workload's metrics kept.
 */
#ifndef KVB_INSTR_SESSION_H
#define KVB_INSTR_SESSION_H

#include "instrument/instrument.h"

struct kvb_instr_inst {
	char *name;
	const struct kvb_instrument_ops *ops;
	const cJSON *conf;   /* borrowed from the platform, or owned_conf */
	cJSON *owned_conf;   /* {type: NAME} for instruments enabled by type */
};

struct kvb_instr_set {
	struct kvb_instr_inst *v;
	size_t n;
};

/*
 * Resolves and validates (keys of each backend) the instruments of a run.
 * list may be NULL (agenda without instruments). settings (the agenda's
 * instrument_settings, {TYPE: {key: value}}, may be NULL) replace, key by key,
 * the platform's keys of every enabled instance of TYPE; settings for a type
 * no enabled instance has are a warning (WA3 ignores them too). Errors:
 * KVB_EINPUT naming the platform file and key, or the unknown name. set is
 * always releasable.
 */
int kvb_instr_set_build(struct kvb_instr_set *set, const struct kvb_platform *plat, const cJSON *list,
			const cJSON *settings, struct kvb_error *err);
void kvb_instr_set_release(struct kvb_instr_set *set);
/* What the set's instruments want of the board (enum kvb_target_wants): set it in kvb_target.wants before open. */
unsigned kvb_instr_set_wants(const struct kvb_instr_set *set);

/* One job's pass through the set. */
struct kvb_instr_job {
	const struct kvb_instr_set *set;
	struct kvb_instr_ctx *ctx;
	int *state;            /* 0 idle, 1 set up, 2 started, -1 failed */
	struct kvb_buf errors; /* "; "-joined messages of failed instruments */
};

/*
 * setup + start of every instrument, then ctx.start_ns = now (just before the
 * workload). out receives metrics, artifacts and samples. Never fails: a
 * failing instrument is recorded in j->errors and skipped.
 */
void kvb_instr_job_start(struct kvb_instr_job *j, const struct kvb_instr_set *set, struct kvb_target *t,
			 const struct kvb_platform *plat, const char *artifact_dir, const char *remote_dir,
			 struct kvb_metrics *out);
/* stop_ns = now (just after the workload), then stop + collect + teardown of each started instrument. */
void kvb_instr_job_stop(struct kvb_instr_job *j);
/* The failures of this job ("instrument 'x': ..."), or NULL when every instrument worked. */
const char *kvb_instr_job_error(const struct kvb_instr_job *j);
void kvb_instr_job_release(struct kvb_instr_job *j);

#endif
