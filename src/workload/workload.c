/* Implements the workload registry and helpers shared by workload backends. */
#include "workload/workload.h"
#include "core/tail.h"
#include "core/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct kvb_workload_ops kvb_workload_hackbench;
extern const struct kvb_workload_ops kvb_workload_sched_pipe;
extern const struct kvb_workload_ops kvb_workload_sched_messaging;
extern const struct kvb_workload_ops kvb_workload_rt_app;
extern const struct kvb_workload_ops kvb_workload_jankbench;
extern const struct kvb_workload_ops kvb_workload_cyclictest;
extern const struct kvb_workload_ops kvb_workload_schbench;
extern const struct kvb_workload_ops kvb_workload_stress_ng;

const struct kvb_workload_ops *const kvb_workloads[] = {
	&kvb_workload_hackbench,
	&kvb_workload_sched_pipe,
	&kvb_workload_sched_messaging,
	&kvb_workload_rt_app,
	&kvb_workload_jankbench,
	&kvb_workload_cyclictest,
	&kvb_workload_schbench,
	&kvb_workload_stress_ng,
	NULL,
};

const struct kvb_workload_ops *kvb_workload_find(const char *name)
{
	for (size_t i = 0; kvb_workloads[i]; i++)
		if (!strcmp(kvb_workloads[i]->name, name))
			return kvb_workloads[i];
	return NULL;
}

int kvb_job_exec(struct kvb_job_ctx *ctx, const char *const *argv, struct kvb_exec_result *r, struct kvb_error *err)
{
	struct kvb_strv full = KVB_STRV_INIT;
	int rc;
	for (size_t i = 0; ctx->wrap && ctx->wrap[i]; i++)
		kvb_strv_push(&full, ctx->wrap[i]);
	for (size_t i = 0; argv[i]; i++)
		kvb_strv_push(&full, argv[i]);
	rc = kvb_target_exec(ctx->target, kvb_strv_argv(&full), ctx->timeout_ms, r, err);
	kvb_strv_release(&full);
	return rc;
}

char *kvb_param_str(const struct kvb_workload_ops *ops, const cJSON *params, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(params, key);
	const struct kvb_keydef *def;
	if (v)
		return kvb_node_str(v);
	def = kvb_keydef_find(ops->params, key);
	return def && def->def ? kvb_xstrdup(def->def) : NULL;
}

long long kvb_param_int(const struct kvb_workload_ops *ops, const cJSON *params, const char *key)
{
	char *s = kvb_param_str(ops, params, key);
	int64_t v = 0;
	if (s)
		kvb_parse_i64(s, &v);
	free(s);
	return (long long)v;
}

int kvb_param_has(const struct kvb_workload_ops *ops, const cJSON *params, const char *key)
{
	return kvb_keydef_find(ops->params, key) && cJSON_GetObjectItemCaseSensitive(params, key);
}

int kvb_param_int_opt(const struct kvb_workload_ops *ops, const cJSON *params, const char *key, long long *out)
{
	char *s = kvb_param_has(ops, params, key) ? kvb_node_str(cJSON_GetObjectItemCaseSensitive(params, key)) : NULL;
	int64_t v = 0;
	int given = s && kvb_parse_i64(s, &v) == KVB_OK;
	free(s);
	*out = given ? (long long)v : kvb_param_int(ops, NULL, key);
	return given;
}

int kvb_workload_run_cmd(struct kvb_job_ctx *ctx, const char *name, const char *const *argv,
			 int (*parse)(const char *out, struct kvb_metrics *m, struct kvb_error *err),
			 struct kvb_error *err)
{
	const struct kvb_cmd_spec spec = { .name = name, .argv = argv, .stream = KVB_OUT_STDOUT, .parse = parse };
	return kvb_workload_run_cmd_ex(ctx, &spec, err);
}

int kvb_workload_run_cmd_ex(struct kvb_job_ctx *ctx, const struct kvb_cmd_spec *spec, struct kvb_error *err)
{
	const char *const *argv = spec->argv;
	struct kvb_exec_result r;
	char *path = kvb_xasprintf("%s/%s.out", ctx->artifact_dir, spec->name);
	char how[64];
	const char *out;
	int rc;
	FILE *f;

	kvb_exec_result_init(&r);
	rc = kvb_job_exec(ctx, argv, &r, err);
	if ((f = kvb_fopen_nofollow(path))) {
		fprintf(f, "$");
		for (size_t i = 0; argv[i]; i++)
			fprintf(f, " %s", argv[i]);
		fprintf(f, "\n%s", r.out.data);
		if (r.err.len)
			fprintf(f, "--- stderr ---\n%s", r.err.data);
	}
	/* an output we could not keep (disk full) stops the run: the job is redone on --resume */
	if (!f || ferror(f) | fclose(f)) {
		rc = kvb_error_set(err, KVB_ESTORE, "cannot write artifact %s: %s", path, strerror(errno));
		goto out;
	}
	kvb_metrics_artifact(ctx->out, "raw-output", path);
	if (rc)
		goto out;
	out = spec->stream == KVB_OUT_STDERR ? (r.err.data ? r.err.data : "") : (r.out.data ? r.out.data : "");
	if (r.exit_code != 0 &&
	    !(spec->exit_ok && spec->exit_ok(r.exit_code, out, r.err.data ? r.err.data : "", ctx->out))) {
		/* the reason is at the end (a perror() after notices: rt-app, cyclictest) */
		char *e = kvb_text_tail(r.err.len ? r.err.data : r.out.data, 3, 400);
		rc = kvb_error_set(err, KVB_ETARGET, "%s failed (%s): %s", argv[0], kvb_exec_describe(&r, how, sizeof(how)), e);
		free(e);
		goto out;
	}
	rc = spec->parse(out, ctx->out, err);
	if (rc)
		kvb_error_prefix(err, "%s output", argv[0]);
out:
	free(path);
	kvb_exec_result_release(&r);
	return rc;
}

const struct kvb_metric_decl *kvb_workload_metric(const struct kvb_workload_ops *w, const char *name)
{
	for (const struct kvb_metric_decl *d = w->metrics; d && d->name; d++)
		if (!strcmp(d->name, name))
			return d;
	return NULL;
}

const struct kvb_metric_decl *kvb_workload_metric_decl(const char *workload, const char *metric)
{
	const struct kvb_workload_ops *w = workload ? kvb_workload_find(workload) : NULL;
	return w && metric ? kvb_workload_metric(w, metric) : NULL;
}

int kvb_workload_check_metrics(const struct kvb_workload_ops *w, const struct kvb_metrics *m, size_t from,
			       struct kvb_error *err)
{
	for (size_t i = from; i < m->n; i++) {
		const struct kvb_metric *x = &m->v[i];
		const struct kvb_metric_decl *d = kvb_workload_metric(w, x->name);
		if (!d)
			return kvb_error_set(err, KVB_EINTERNAL, "workload %s stored metric '%s', which it does not declare",
					     w->name, x->name);
		if (strcmp(d->units, x->units ? x->units : "") || d->lower_is_better != x->lower_is_better)
			return kvb_error_set(err, KVB_EINTERNAL,
					     "workload %s stored metric '%s' in '%s' (lower_is_better %d); it declares '%s' "
					     "(lower_is_better %d)",
					     w->name, x->name, x->units ? x->units : "", x->lower_is_better, d->units,
					     d->lower_is_better);
	}
	return KVB_OK;
}
