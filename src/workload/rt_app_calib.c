/*
 * rt-app calibration done once per run and board (the workload's state slot of each board's engine),
 * before any instrument starts (the workload's prepare hook, so no job's window
 * holds it): the first rt-app job whose `calibration` is "CPUn" runs rt-app once with a
 * one-phase use case on CPU n under the performance cpufreq governor (the
 * original governor restored after), reads the "pLoad = Nns" line rt-app
 * prints while calibrating, and every rt-app job of every variant of the run
 * then gets that number as global.calibration. So variant A and B do the
 * same amount of work per microsecond of `run`, whatever their kernel or
 * governor; the number is stored as the job classifier pload_ns. At the end
 * of each (variant, round) the engine has it measured again
 * (kvb_rtapp_pload_recheck): a pLoad that moved is a `changed` witness.
 *
 * rt-app's line (seen in lkp-tests' spec/fixtures/stats/rt-app/01):
 *   [rt-app] <notice> pLoad = 32ns : calib_cpu 0
 */
#include "workload/rt_app.h"
#include "config/platform.h"
#include "workload/workload.h"
#include "core/witness.h"
#include "core/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long kvb_rtapp_parse_pload(const char *text)
{
	const char *p = text;
	long v = -1;
	while (p && (p = strstr(p, "pLoad = "))) {
		char *end;
		long x;
		p += 8;
		errno = 0;
		x = strtol(p, &end, 10);
		if (!errno && end != p && !strncmp(end, "ns", 2) && x > 0)
			v = x;  /* the last one wins: rt-app prints it once */
	}
	return v;
}

/* One board's measurement for the whole run: the workload's state slot (kvb_job_ctx.state). */
struct calib {
	char cpu[16];  /* "CPUn" it was measured on, "*" for a resumed run's (CPU unknown) */
	long pload_ns;
};

/* The board's measurement, made empty on first use; NULL when ctx keeps no state. */
static struct calib *board_calib(struct kvb_job_ctx *ctx)
{
	if (!ctx->state)
		return NULL;
	if (!*ctx->state)
		*ctx->state = kvb_xcalloc(1, sizeof(struct calib));
	return *ctx->state;
}

/* Runs rt-app's calibration on CPU `cpu` ("CPUn"); *pload_ns from its output. */
static int calibrate(struct kvb_job_ctx *ctx, const char *cpu, long *pload_ns, struct kvb_error *err)
{
	char *local = kvb_xasprintf("%s/rt-app-calibration.json", ctx->artifact_dir);
	char *remote = kvb_xasprintf("%s/rt-app-calibration.json", ctx->remote_dir);
	const struct kvb_platform *plat = ctx->target ? ctx->target->plat : NULL;
	char *gov_path = kvb_xasprintf("%s/sys/devices/system/cpu/cpu%s/cpufreq/scaling_governor",
				       plat && plat->sysfs_root ? plat->sysfs_root : "", cpu + 3);
	char *gov = NULL, *text = NULL, how[64];
	const char *argv[] = { "rt-app", remote, NULL };
	struct kvb_exec_result r;
	struct kvb_error e2;
	cJSON *cfg = cJSON_CreateObject(), *g = cJSON_AddObjectToObject(cfg, "global"), *t;
	FILE *f;
	int rc, gov_set = 0;

	kvb_exec_result_init(&r);
	cJSON_AddStringToObject(g, "calibration", cpu);
	cJSON_AddNumberToObject(g, "duration", 1);
	cJSON_AddStringToObject(g, "default_policy", "SCHED_OTHER");
	cJSON_AddStringToObject(g, "logdir", ctx->remote_dir);
	cJSON_AddStringToObject(g, "log_basename", "calibration");
	t = cJSON_AddObjectToObject(cJSON_AddObjectToObject(cfg, "tasks"), "calib");
	cJSON_AddNumberToObject(t, "loop", 1);
	cJSON_AddNumberToObject(t, "run", 100);
	text = cJSON_Print(cfg);
	f = kvb_fopen_nofollow(local);
	if (f)
		fputs(text, f);
	if (!f || ferror(f) | fclose(f)) {
		rc = kvb_error_set(err, KVB_ESTORE, "cannot write artifact %s: %s", local, strerror(errno));
		goto out;
	}
	if (strcmp(local, remote) && (rc = kvb_target_push(ctx->target, local, remote, err)))
		goto out;
	/* performance governor while measuring, the original one back after */
	if (kvb_target_read(ctx->target, gov_path, &gov, &e2)) {
		kvb_metrics_note(ctx->out, "rt-app calibration on %s: no cpufreq governor (%s): measured under whatever "
					   "frequency the CPU runs at", cpu, gov_path);
	} else if (strcmp(gov, "performance")) {
		if (kvb_target_write(ctx->target, gov_path, "performance", &e2))
			kvb_metrics_note(ctx->out, "rt-app calibration on %s: cannot set the performance governor (%s): "
						   "measured under '%s'", cpu, e2.msg, gov);
		else
			gov_set = 1;
	}
	rc = kvb_target_exec(ctx->target, argv, 300000, &r, err);
	if (gov_set && kvb_target_write(ctx->target, gov_path, gov, &e2) && !rc)
		rc = kvb_error_set(err, KVB_ETARGET, "rt-app calibration: cannot restore governor '%s' on %s: %s", gov, cpu,
				   e2.msg);
	if (rc) {
		kvb_error_prefix(err, "rt-app calibration");
		goto out;
	}
	*pload_ns = kvb_rtapp_parse_pload(r.err.data);
	if (*pload_ns < 0)
		*pload_ns = kvb_rtapp_parse_pload(r.out.data);
	if (*pload_ns < 0)
		rc = kvb_error_set(err, KVB_ETARGET, "rt-app calibration on %s printed no 'pLoad = Nns' line (%s)", cpu,
				   kvb_exec_describe(&r, how, sizeof(how)));
out:
	kvb_exec_result_release(&r);
	cJSON_Delete(cfg);
	free(text);
	free(gov);
	free(gov_path);
	free(local);
	free(remote);
	return rc;
}

int kvb_rtapp_pload(struct kvb_job_ctx *ctx, const char *cpu, long *pload_ns, struct kvb_error *err)
{
	struct calib *c = board_calib(ctx);
	int rc;
	if (c && c->pload_ns > 0 && (!strcmp(c->cpu, cpu) || !strcmp(c->cpu, "*"))) {
		*pload_ns = c->pload_ns;
		return KVB_OK;
	}
	if ((rc = calibrate(ctx, cpu, pload_ns, err)))
		return rc;
	if (c) {
		snprintf(c->cpu, sizeof(c->cpu), "%s", cpu);
		c->pload_ns = *pload_ns;
	}
	kvb_metrics_note(ctx->out, "rt-app calibrated on %s: pLoad = %ld ns, used by every rt-app job of this run", cpu,
			 *pload_ns);
	return KVB_OK;
}

int kvb_rtapp_pload_recheck(struct kvb_job_ctx *ctx, double drift_pct, struct kvb_witnesses *out,
			    struct kvb_error *err)
{
	char subject[64], expected[128], observed[96];
	const struct calib *c = ctx->state ? *ctx->state : NULL;
	long now = -1;
	double pct;
	int rc;
	if (!c || c->pload_ns <= 0 || strncmp(c->cpu, "CPU", 3))
		return KVB_OK;  /* nothing measured on this board, or a resumed run's pLoad (CPU unknown) */
	if ((rc = calibrate(ctx, c->cpu, &now, err)))
		return rc;
	pct = 100.0 * (double)(now - c->pload_ns) / (double)c->pload_ns;
	snprintf(subject, sizeof(subject), "rt-app calibration on %s", c->cpu);
	snprintf(expected, sizeof(expected), "pLoad %ld ns (the run's), within %g %%", c->pload_ns, drift_pct);
	snprintf(observed, sizeof(observed), "pLoad %ld ns (%+.1f %%)", now, pct);
	if (pct > drift_pct || pct < -drift_pct)
		kvb_witness_add(out, "pload", subject, expected, observed, KVB_WIT_CHANGED,
				"pLoad %ld ns at start, %ld ns at end (%+.1f %%, more than pload_drift_pct %g): the CPU "
				"ran rt-app's busy loop at another speed than when the run calibrated (thermal capping, "
				"a frequency cap), so rt-app's run times were not those asked",
				c->pload_ns, now, pct, drift_pct);
	else
		kvb_witness_add(out, "pload", subject, expected, observed, KVB_WIT_OK, NULL);
	return KVB_OK;
}

void kvb_rtapp_pload_resume(void **state, const struct kvb_run_memory *run)
{
	char pl[32];
	struct calib *c;
	if (run->classifier(run->arg, "pload_ns", pl, sizeof(pl)) != 1 || atol(pl) <= 0)
		return;
	c = *state ? *state : (*state = kvb_xcalloc(1, sizeof(*c)));
	snprintf(c->cpu, sizeof(c->cpu), "*");
	c->pload_ns = atol(pl);
}

void kvb_rtapp_calib_free(void *state)
{
	free(state);
}
