/*
 * Implements the stress-ng workload (Colin Ian King's stress-ng): each stressor named in
 * `stressors` runs `instances` workers for duration_s seconds, all at once, and stress-ng's
 * --yaml report gives each stressor's bogo ops per second. The report is written to stdout
 * (`--yaml /dev/stdout`; stress-ng's own log lines go to stderr) and kept as the artifact
 * "stress-ng-yaml". Format as in tests/fixtures/field/stress-ng (stress-ng 0.15.06; written by
 * stress-ng.c metrics_dump()):
 *
 *   ---
 *   system-info:
 *         stress-ng-version: 0.15.06
 *   metrics:
 *       - stressor: cpu
 *         bogo-ops: 307
 *         bogo-ops-per-second-usr-sys-time: 1361.944520
 *         bogo-ops-per-second-real-time: 154.095119
 *   ...
 *
 * A stressor asked for and absent from the report is the job's failure (nothing silent).
 * The report draws, per stressor, the CDF of its jobs' bogo ops/s per variant.
 */
#include "core/util.h"
#include "workload/workload.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static const struct kvb_keydef sng_params[] = {
	{ "stressors", KVB_T_STR, "cpu", NULL, KVB_KEY_CLASSIFIER,
	  "stressors run together, space-separated stress-ng names (cpu, matrix, switch, pipe, ...)" },
	{ "instances", KVB_T_INT, "1", NULL, KVB_KEY_CLASSIFIER | KVB_KEY_POSITIVE, "workers per stressor (--STRESSOR N)" },
	{ "duration_s", KVB_T_INT, "10", NULL, KVB_KEY_CLASSIFIER | KVB_KEY_POSITIVE, "seconds the stressors run (-t)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static const struct kvb_metric_decl sng_metrics[] = {
	{ "bogo_ops_per_sec", "ops/s", KVB_HIGHER_IS_BETTER,
	  "bogo operations per second of wall-clock time, per stressor (classifier stressor)", 0, NULL },
	{ "bogo_ops_per_sec_cpu", "ops/s", KVB_HIGHER_IS_BETTER,
	  "bogo operations per second of the stressor's user + system CPU time, per stressor", 0, NULL },
	{ NULL, NULL, 0, NULL, 0, NULL },
};

/* One stressor's row of the report. */
struct sng_row {
	char name[64];
	double real, cpu; /* NAN when absent */
};

/*
 * Reads the rows of the "metrics:" sequence of a stress-ng --yaml report (libyaml events) into
 * rows[0..*n), at most max. KVB_OK, or KVB_EINPUT naming what is wrong in why.
 */
static int read_rows(const char *text, size_t len, struct sng_row *rows, size_t max, size_t *n, char *why,
		     size_t why_len)
{
	yaml_parser_t ps;
	yaml_event_t ev;
	int depth = 0, in_metrics = 0, metrics_depth = 0, seen_metrics = 0, done = 0, rc = KVB_OK;
	char key[96] = "";
	int want_key = 0;
	struct sng_row *cur = NULL;
	*n = 0;
	if (!yaml_parser_initialize(&ps))
		return snprintf(why, why_len, "libyaml could not start"), KVB_EINPUT;
	yaml_parser_set_input_string(&ps, (const unsigned char *)text, len);
	while (!done) {
		if (!yaml_parser_parse(&ps, &ev)) {
			snprintf(why, why_len, "not YAML at line %zu: %s", ps.problem_mark.line + 1,
				 ps.problem ? ps.problem : "?");
			rc = KVB_EINPUT;
			break;
		}
		switch (ev.type) {
		case YAML_MAPPING_START_EVENT:
			depth++;
			want_key = 1;
			if (in_metrics && depth == metrics_depth + 2 && *n < max) {
				cur = &rows[(*n)++];
				memset(cur, 0, sizeof(*cur));
				cur->real = cur->cpu = NAN;
			}
			break;
		case YAML_MAPPING_END_EVENT:
			if (in_metrics && depth == metrics_depth + 2)
				cur = NULL;
			depth--;
			want_key = 1;
			break;
		case YAML_SEQUENCE_START_EVENT:
			if (depth == 1 && !strcmp(key, "metrics")) {
				in_metrics = seen_metrics = 1;
				metrics_depth = depth;
			}
			depth++;
			break;
		case YAML_SEQUENCE_END_EVENT:
			depth--;
			if (in_metrics && depth == metrics_depth)
				in_metrics = 0;
			want_key = 1;
			break;
		case YAML_SCALAR_EVENT: {
			const char *v = (const char *)ev.data.scalar.value;
			if (want_key) {
				snprintf(key, sizeof(key), "%s", v);
				want_key = 0;
				break;
			}
			want_key = 1;
			if (!cur)
				break;
			if (!strcmp(key, "stressor"))
				snprintf(cur->name, sizeof(cur->name), "%s", v);
			else if (!strcmp(key, "bogo-ops-per-second-real-time"))
				kvb_parse_double(v, &cur->real);
			else if (!strcmp(key, "bogo-ops-per-second-usr-sys-time"))
				kvb_parse_double(v, &cur->cpu);
			break;
		}
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&ps);
	if (!rc && !seen_metrics) {
		snprintf(why, why_len, "no 'metrics:' list (not a stress-ng --yaml report, or --metrics-brief missing)");
		rc = KVB_EINPUT;
	}
	return rc;
}

int kvb_parse_stress_ng(const char *out, struct kvb_metrics *m, struct kvb_error *err)
{
	struct sng_row rows[64];
	size_t n;
	char why[256];
	if (read_rows(out, strlen(out), rows, 64, &n, why, sizeof(why)))
		return kvb_error_set(err, KVB_EINPUT, "stress-ng report: %s", why);
	if (!n)
		return kvb_error_set(err, KVB_EINPUT, "stress-ng report: 'metrics:' lists no stressor");
	for (size_t i = 0; i < n; i++)
		if (!rows[i].name[0] || !isfinite(rows[i].real) || rows[i].real < 0 || !isfinite(rows[i].cpu) ||
		    rows[i].cpu < 0)
			return kvb_error_set(err, KVB_EINPUT, "stress-ng report: stressor '%s' lacks a bogo-ops-per-second "
							      "value (real-time and usr-sys-time)",
					     rows[i].name[0] ? rows[i].name : "?");
	for (size_t i = 0; i < n; i++) {
		kvb_metric_classify(kvb_metrics_add_decl(m, &sng_metrics[0], rows[i].real), "stressor", rows[i].name);
		kvb_metric_classify(kvb_metrics_add_decl(m, &sng_metrics[1], rows[i].cpu), "stressor", rows[i].name);
	}
	return KVB_OK;
}

/* Stressor names as stress-ng spells them: 1-32 of [a-z0-9-], space-separated, at least one. */
static int names_ok(const char *s)
{
	size_t any = 0;
	for (const char *p = s; *p;) {
		size_t k = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789-");
		if (k > 32 || (!k && *p != ' '))
			return 0;
		any += k > 0;
		p += k;
		p += strspn(p, " ");
	}
	return any > 0;
}

static int sng_validate(const cJSON *params, const char *path, struct kvb_diag *d)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(params, "stressors");
	if (cJSON_IsString(s) && !names_ok(s->valuestring)) {
		char *p = kvb_path_key(path, "stressors");
		kvb_diag_at(d, p, "expected stress-ng stressor names (a-z, 0-9, '-'), space-separated, got \"%s\"",
			    s->valuestring);
		free(p);
		return 1;
	}
	return 0;
}

/* The kept report is the job's raw output; its artifact kind is the report's own (the plot reads it). */
static void tag_report(struct kvb_metrics *m)
{
	for (size_t i = m->nart; i-- > 0;)
		if (!strcmp(m->art[i].kind, "raw-output") && strstr(m->art[i].path, "/stress-ng.out")) {
			free(m->art[i].kind);
			m->art[i].kind = kvb_xstrdup("stress-ng-yaml");
			return;
		}
}

static int sng_run(struct kvb_job_ctx *ctx, struct kvb_error *err)
{
	const struct kvb_workload_ops *ops = ctx->ops;
	struct kvb_strv a = KVB_STRV_INIT;
	char *names = kvb_param_str(ops, ctx->params, "stressors"), *save = NULL;
	long long inst = kvb_param_int(ops, ctx->params, "instances");
	size_t from = ctx->out->n;
	int rc;
	kvb_strv_push(&a, "stress-ng");
	for (char *t = strtok_r(names, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		kvb_strv_pushf(&a, "--%s", t);
		kvb_strv_pushf(&a, "%lld", inst);
	}
	kvb_strv_push(&a, "-t");
	kvb_strv_pushf(&a, "%llds", kvb_param_int(ops, ctx->params, "duration_s"));
	kvb_strv_push(&a, "--metrics-brief");
	kvb_strv_push(&a, "--yaml");
	kvb_strv_push(&a, "/dev/stdout");
	{
		const struct kvb_cmd_spec spec = { .name = "stress-ng", .argv = kvb_strv_argv(&a), .stream = KVB_OUT_STDOUT,
						   .parse = kvb_parse_stress_ng };
		rc = kvb_workload_run_cmd_ex(ctx, &spec, err);
	}
	tag_report(ctx->out);
	/* every stressor asked for has its row: stress-ng leaves out one it could not start */
	free(names);
	names = kvb_param_str(ops, ctx->params, "stressors");
	for (char *t = strtok_r(names, " ", &save); !rc && t; t = strtok_r(NULL, " ", &save)) {
		size_t i;
		for (i = from; i < ctx->out->n; i++) {
			const cJSON *c = cJSON_GetObjectItemCaseSensitive(ctx->out->v[i].classifiers, "stressor");
			if (cJSON_IsString(c) && !strcmp(c->valuestring, t))
				break;
		}
		if (i == ctx->out->n)
			rc = kvb_error_set(err, KVB_EINPUT, "stress-ng's report has no row for stressor '%s' (it did not run)", t);
	}
	free(names);
	kvb_strv_release(&a);
	return rc;
}

/* The report's plot: per stressor, the CDF of its jobs' bogo ops/s (wall clock) per variant. */
static int read_for_plot(const char *path, void (*add)(void *arg, size_t set, const char *key, double x), void *arg,
			 char *why, size_t why_len)
{
	struct kvb_buf b = KVB_BUF_INIT;
	struct sng_row rows[64];
	const char *cut;
	size_t n;
	int rc = 0;
	if (kvb_buf_read_file(&b, path)) {
		snprintf(why, why_len, "%s (%s)", path, strerror(errno));
		return -1;
	}
	/* the raw-output artifact is stdout (the report), then "--- stderr ---" and stress-ng's log */
	if (b.data && (cut = strstr(b.data, "\n--- stderr ---\n")))
		b.len = (size_t)(cut - b.data) + 1;
	if (read_rows(b.data ? b.data : "", b.len, rows, 64, &n, why, why_len))
		rc = -1;
	for (size_t i = 0; !rc && i < n; i++)
		if (rows[i].name[0] && isfinite(rows[i].real))
			add(arg, 0, rows[i].name, rows[i].real);
	kvb_buf_release(&b);
	return rc;
}

static const struct kvb_artifact_plot sng_artifact_plots[] = {
	{ "stress-ng-yaml", "stress-ng bogo ops per second", "stress-ng",
	  "Per stressor, every job's bogo ops per second of wall-clock time (stress-ng --yaml): one CDF per variant.",
	  "ops/s", { "bogo_ops_per_sec", NULL }, 1, { "bogo ops/s CDF", NULL }, { "bogo ops per second", NULL },
	  read_for_plot },
	{ NULL, NULL, NULL, NULL, NULL, { NULL, NULL }, 0, { NULL, NULL }, { NULL, NULL }, NULL },
};

static const char *const sng_needs[] = { "stress-ng", NULL };

const struct kvb_workload_ops kvb_workload_stress_ng = {
	.name = "stress-ng",
	.summary = "stress-ng stressors run together: bogo ops per second per stressor (wall clock and CPU time)",
	.params = sng_params,
	.metrics = sng_metrics,
	.artifact_plots = sng_artifact_plots,
	.validate = sng_validate,
	.needs = sng_needs,
	.default_timeout_s = 600,
	.run = sng_run,
};
