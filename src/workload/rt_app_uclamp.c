/* Implements the check that the board's rt-app applies the clamps a use case asks for (rt_app.h). */
#include "workload/rt_app.h"
#include "workload/workload.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

/* 1 when a use case asks for a clamp anywhere (a task's or a phase's util_min / util_max). */
static int wants_uclamp(const cJSON *j)
{
	for (const cJSON *c = j ? j->child : NULL; c; c = c->next) {
		if (c->string && (!strcmp(c->string, "util_min") || !strcmp(c->string, "util_max")))
			return 1;
		if ((cJSON_IsObject(c) || cJSON_IsArray(c)) && wants_uclamp(c))
			return 1;
	}
	return 0;
}

/*
 * A use case with util_min/util_max needs an rt-app that reads them: upstream rt-app since its
 * uclamp support (scheduler-tools/rt-app#81, #91) parses "util_min" and exits when the kernel
 * refuses the clamp; Debian's rt-app 1.0 predates it and runs the tasks unclamped, exit 0, nothing
 * said. The witness: the key's name in the board's rt-app binary (every parser of the key holds it).
 */
static int check_uclamp_support(struct kvb_job_ctx *ctx, struct kvb_error *err)
{
	const char *argv[] = { "sh", "-c", "p=$(command -v rt-app) || exit 2; echo \"$p\"; grep -q util_min \"$p\"",
			       NULL };
	struct kvb_exec_result r;
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_target_exec(ctx->target, argv, 30000, &r, err);
	if (!rc && r.exit_code == 1) {
		char *bin = kvb_xstrndup(r.out.data ? r.out.data : "", r.out.data ? strcspn(r.out.data, "\r\n") : 0);
		rc = kvb_error_set(err, KVB_ETARGET,
				   "rt-app: the use case sets util_min/util_max but the board's rt-app (%s) does not read "
				   "them (no 'util_min' in it: an rt-app older than its uclamp support, as Debian's 1.0): "
				   "its tasks would run unclamped; install rt-app from scheduler-tools/rt-app",
				   bin);
		ctx->no_retry = 1; /* the same binary answers the same at every attempt */
		free(bin);
	} else if (!rc && r.exit_code != 0) {
		char how[64];
		rc = kvb_error_set(err, KVB_ETARGET, "rt-app: cannot check that the board's rt-app reads util_min (%s)",
				   kvb_exec_describe(&r, how, sizeof(how)));
	}
	kvb_exec_result_release(&r);
	return rc;
}

int kvb_rtapp_uclamp_check(struct kvb_job_ctx *ctx, const cJSON *cfg, struct kvb_error *err)
{
	return wants_uclamp(cJSON_GetObjectItemCaseSensitive(cfg, "tasks")) ? check_uclamp_support(ctx, err) : KVB_OK;
}
