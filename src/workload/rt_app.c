/*
 * Implements the rt-app workload: writes an rt-app JSON use case (generated
 * from `tasks:` or taken from `config: FILE`), runs `rt-app FILE` on the
 * target, pulls every per-thread log and turns them into per-task metrics
 * (docs/design.md#metrics; log parser in rt_app_log.c, JSON keys in notes/formats.md
 * and rt-app's doc/tutorial.txt).
 *
 * Parameters:
 *   config: FILE.json   an rt-app use case, or a use case name as WA3 takes it
 *                       (rt_app_usecase.c; none: WA3's default, taskset);
 *                       kvbench replaces global.logdir and
 *                       global.log_basename, and global.duration when
 *                       duration_s is given (global.calibration when
 *                       calibration is given); everything else is kept.
 *   tasks:              list of periodic tasks to generate instead, each
 *                       {name, instances, period_us, run_us | duty_pct,
 *                        policy, priority, cpus, util_min, util_max,
 *                        dl_runtime_us}; every instance gets its own timer.
 *   duration_s          run length (global.duration), default 10.
 *   calibration         pLoad in ns per busy loop (a number, reproducible
 *                       across kernels) or "CPUn": measured on CPU n once per
 *                       run under the performance governor and given to every
 *                       rt-app job of every variant (rt_app_calib.c). Either
 *                       way the job gets classifier pload_ns.
 *
 * Generated use cases set global.log_size to an in-memory buffer large enough
 * for the whole run: measured with Debian's rt-app 1.0, log_size "file" loses
 * the buffered rows of every thread when rt-app stops at global.duration.
 */
#include "workload/rt_app.h"
#include "workload/workload.h"
#include "core/buf.h"
#include "core/tail.h"
#include "core/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RTAPP_BASENAME "rt-app"
#define RTAPP_CONFIG "rt-app.json"
/* Bytes of log buffer reserved per phase row (rt-app 1.0 prints ~125 bytes per row). */
#define RTAPP_ROW_BYTES 256

/* Its own ops (end of file): the parameter helpers read defaults from its key table. */
extern const struct kvb_workload_ops kvb_workload_rt_app;

static const struct kvb_keydef rtapp_params[] = {
	{ "config", KVB_T_STR, NULL, NULL, 0,
	  "rt-app use case to run instead of tasks: a JSON file, or a use case name as WA3 takes it (mp3-short: "
	  "$KVB_RTAPP_USE_CASES, WA3's use_cases; default taskset); global.logdir/log_basename are replaced" },
	{ "tasks", KVB_T_LIST, NULL, NULL, 0,
	  "periodic tasks to generate: [{name, instances, period_us, run_us|duty_pct, policy, priority, cpus, "
	  "util_min, util_max, dl_runtime_us}]" },
	{ "duration_s", KVB_T_INT, "10", NULL, KVB_KEY_POSITIVE,
	  "run length in s (global.duration); with config, replaces it only when given" },
	{ "calibration", KVB_T_SCALAR, "CPU0", NULL, 0,
	  "ns per busy loop (pLoad; a number keeps the work fixed across kernels) or \"CPUn\" to measure on CPU n" },
	{ "pload_drift_pct", KVB_T_NUM, "10", NULL, KVB_KEY_POSITIVE,
	  "pLoad measured again at the end of each round: a change of more than this % from the run's is an event" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static const struct kvb_keydef task_keys[] = {
	{ "name", KVB_T_STR, NULL, NULL, KVB_KEY_REQUIRED, "task name: letters, digits, '_', '.', '-' (names the threads)" },
	{ "instances", KVB_T_INT, "1", NULL, KVB_KEY_POSITIVE, "threads running this task" },
	{ "period_us", KVB_T_INT, NULL, NULL, KVB_KEY_REQUIRED | KVB_KEY_POSITIVE, "activation period (timer), us" },
	{ "run_us", KVB_T_INT, NULL, NULL, KVB_KEY_POSITIVE, "busy time per period at the calibrated speed, us" },
	{ "duty_pct", KVB_T_NUM, NULL, NULL, KVB_KEY_POSITIVE, "busy time as % of period_us (instead of run_us)" },
	{ "policy", KVB_T_STR, "SCHED_OTHER", "SCHED_OTHER|SCHED_BATCH|SCHED_IDLE|SCHED_FIFO|SCHED_RR|SCHED_DEADLINE", 0,
	  "scheduling policy" },
	{ "priority", KVB_T_INT, NULL, NULL, 0, "nice -20..19 (OTHER, BATCH) or 1..99 (FIFO, RR)" },
	{ "cpus", KVB_T_LIST, NULL, NULL, 0, "CPU affinity: list of CPU numbers" },
	{ "util_min", KVB_T_INT, NULL, NULL, KVB_KEY_NONNEG, "uclamp minimum, 0..1024" },
	{ "util_max", KVB_T_INT, NULL, NULL, KVB_KEY_NONNEG, "uclamp maximum, 0..1024" },
	{ "dl_runtime_us", KVB_T_INT, NULL, NULL, KVB_KEY_POSITIVE,
	  "SCHED_DEADLINE runtime budget (default run_us); dl period and deadline are period_us" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static int name_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 64)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' && *s != '-')
			return 0;
	return 1;
}

/* "CPU<n>" */
static int calib_cpu_ok(const char *s)
{
	if (strncmp(s, "CPU", 3) || !s[3])
		return 0;
	for (s += 3; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* A task's priority and dl_runtime_us against its policy; returns the number of errors. */
static int validate_task_sched(const cJSON *t, const char *path, struct kvb_diag *d)
{
	const cJSON *pol = cJSON_GetObjectItemCaseSensitive(t, "policy");
	const cJSON *prio = cJSON_GetObjectItemCaseSensitive(t, "priority");
	const cJSON *dlr = cJSON_GetObjectItemCaseSensitive(t, "dl_runtime_us");
	const char *policy = cJSON_IsString(pol) ? pol->valuestring : "SCHED_OTHER";
	int errors = 0;
	if (prio) {
		long long v = (long long)prio->valuedouble;
		char *p = kvb_path_key(path, "priority");
		if (!strcmp(policy, "SCHED_FIFO") || !strcmp(policy, "SCHED_RR")) {
			if (v < 1 || v > 99) {
				kvb_diag_at(d, p, "priority %lld is outside 1..99 for %s", v, policy);
				errors++;
			}
		} else if (!strcmp(policy, "SCHED_DEADLINE")) {
			kvb_diag_at(d, p, "SCHED_DEADLINE takes no priority (use dl_runtime_us)");
			errors++;
		} else if (v < -20 || v > 19) {
			kvb_diag_at(d, p, "priority (nice) %lld is outside -20..19 for %s", v, policy);
			errors++;
		}
		free(p);
	}
	if (dlr && strcmp(policy, "SCHED_DEADLINE")) {
		char *p = kvb_path_key(path, "dl_runtime_us");
		kvb_diag_at(d, p, "dl_runtime_us needs policy SCHED_DEADLINE");
		free(p);
		errors++;
	} else if (dlr && dlr->valuedouble > kvb_get_num(t, "period_us", 0)) {
		char *p = kvb_path_key(path, "dl_runtime_us");
		kvb_diag_at(d, p, "dl_runtime_us is larger than period_us");
		free(p);
		errors++;
	}
	return errors;
}

/* A task's cpus list (path is the task's): CPU numbers 0..4095, not empty; returns the number of errors. */
static int validate_task_cpus(const cJSON *cpus, const char *path, struct kvb_diag *d)
{
	int i = 0, errors = 0;
	char *p = kvb_path_key(path, "cpus");
	if (!cpus->child) {
		kvb_diag_at(d, p, "empty CPU list");
		errors++;
	}
	for (const cJSON *c = cpus->child; c; c = c->next, i++) {
		if (!cJSON_IsNumber(c) || c->valuedouble < 0 || floor(c->valuedouble) != c->valuedouble ||
		    c->valuedouble > 4095) {
			char *pi = kvb_path_idx(p, i), got[96];
			kvb_diag_at(d, pi, "expected a CPU number, got %s", kvb_node_describe(c, got, sizeof(got)));
			free(pi);
			errors++;
		}
	}
	free(p);
	return errors;
}

static int validate_task(const cJSON *t, const char *path, struct kvb_diag *d)
{
	int errors = kvb_keys_check(t, path, task_keys, d);
	const cJSON *name, *run, *duty, *cpus, *umin, *umax;
	if (errors || !cJSON_IsObject(t))
		return errors;
	name = cJSON_GetObjectItemCaseSensitive(t, "name");
	run = cJSON_GetObjectItemCaseSensitive(t, "run_us");
	duty = cJSON_GetObjectItemCaseSensitive(t, "duty_pct");
	cpus = cJSON_GetObjectItemCaseSensitive(t, "cpus");
	umin = cJSON_GetObjectItemCaseSensitive(t, "util_min");
	umax = cJSON_GetObjectItemCaseSensitive(t, "util_max");

	if (!cJSON_IsString(name) || !name_ok(name->valuestring)) {
		char *p = kvb_path_key(path, "name");
		kvb_diag_at(d, p, "task name must be 1-64 letters, digits, '_', '.' or '-'");
		free(p);
		errors++;
	}
	if (!!run == !!duty) {
		kvb_diag_at(d, path, "give exactly one of 'run_us' and 'duty_pct'");
		errors++;
	}
	if (duty && duty->valuedouble > 100) {
		char *p = kvb_path_key(path, "duty_pct");
		kvb_diag_at(d, p, "duty_pct %g is above 100", duty->valuedouble);
		free(p);
		errors++;
	} else if (duty) {
		double per = kvb_get_num(t, "period_us", 0);
		if (llround(per * duty->valuedouble / 100.0) < 1) {
			char *p = kvb_path_key(path, "duty_pct");
			kvb_diag_at(d, p, "duty_pct %g of %g us is less than 1 us of run", duty->valuedouble, per);
			free(p);
			errors++;
		}
	}
	errors += validate_task_sched(t, path, d);
	if (cpus)
		errors += validate_task_cpus(cpus, path, d);
	for (int k = 0; k < 2; k++) {
		const cJSON *u = k ? umax : umin;
		if (u && u->valuedouble > 1024) {
			char *p = kvb_path_key(path, k ? "util_max" : "util_min");
			kvb_diag_at(d, p, "%g is above 1024", u->valuedouble);
			free(p);
			errors++;
		}
	}
	/* rt-app's set_thread_param() clamps no SCHED_DEADLINE thread: it would run unclamped, unsaid */
	if ((umin || umax) && !strcmp(kvb_get_str(t, "policy", ""), "SCHED_DEADLINE")) {
		kvb_diag_at(d, path, "rt-app sets no util_min/util_max for SCHED_DEADLINE tasks (they would run unclamped)");
		errors++;
	}
	if (umin && umax && umin->valuedouble > umax->valuedouble) {
		kvb_diag_at(d, path, "util_min %g is above util_max %g", umin->valuedouble, umax->valuedouble);
		errors++;
	}
	return errors;
}

/*
 * A use case without a positive global.duration ends when its last thread ends, and a task
 * without "loop" (rt-app's default, -1) or with a negative one never does (rt-app's
 * doc/examples/tutorial/example4.json: "until the use case is stopped with Ctrl+C"): the job
 * would only end at its timeout, every attempt. Returns the number of errors (0 or 1).
 */
static int check_ends(const cJSON *root, const char *file, const char *path, struct kvb_diag *d)
{
	const cJSON *g = cJSON_GetObjectItemCaseSensitive(root, "global");
	const cJSON *dur = cJSON_GetObjectItemCaseSensitive(g, "duration");
	const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(root, "tasks");
	struct kvb_buf names = KVB_BUF_INIT;
	size_t n = 0;
	char *p;
	if (cJSON_IsNumber(dur) && dur->valuedouble > 0)
		return 0;
	for (const cJSON *t = cJSON_IsObject(tasks) ? tasks->child : NULL; t; t = t->next) {
		const cJSON *loop = cJSON_GetObjectItemCaseSensitive(t, "loop");
		if (cJSON_IsObject(t) && (!loop || (cJSON_IsNumber(loop) && loop->valuedouble < 0)) && n++ < 3)
			kvb_buf_addf(&names, "%s'%s'", names.len ? ", " : "", t->string);
	}
	if (!n) {
		kvb_buf_release(&names);
		return 0;
	}
	p = kvb_path_key(path, "config");
	kvb_diag_at(d, p,
		    "%s has no global.duration > 0 and task%s %s%s loop%s forever (loop -1, rt-app's default): rt-app would "
		    "run until the job's timeout; give duration_s",
		    file, n > 1 ? "s" : "", names.data, n > 3 ? " ..." : "", n > 1 ? "" : "s");
	free(p);
	kvb_buf_release(&names);
	return 1;
}

int kvb_rtapp_validate(const cJSON *params, const char *path, struct kvb_diag *d)
{
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(params, "config");
	const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(params, "tasks");
	const cJSON *cal = cJSON_GetObjectItemCaseSensitive(params, "calibration");
	int errors = 0;

	if (!cJSON_IsObject(params))
		return 0; /* the key table reports it */
	if (cfg && tasks) {
		kvb_diag_at(d, path, "give one of 'config' (an rt-app use case) and 'tasks'");
		errors++;
	}
	if (cfg && (!cJSON_IsString(cfg) || !*cfg->valuestring)) {
		char *p = kvb_path_key(path, "config");
		kvb_diag_at(d, p, "expected an rt-app use case: a JSON file or a use case name (as WA3's, e.g. mp3-short)");
		free(p);
		errors++;
	} else if (!tasks) {
		/* Opened now, as the job will open it: a missing or broken file fails `agenda check`, not the run.
		   Without config or tasks, WA3's default use case (rt_app_usecase.c). */
		cJSON *root = NULL;
		struct kvb_error e;
		char *file = NULL;
		if (kvb_rtapp_config_path(cfg ? cfg->valuestring : NULL, &file, &e) ||
		    kvb_rtapp_config_load(file, &root, &e)) {
			char *p = cfg ? kvb_path_key(path, "config") : kvb_xstrdup(path);
			kvb_diag_at(d, p, "%s", e.msg);
			free(p);
			errors++;
		} else if (!kvb_param_has(&kvb_workload_rt_app, params, "duration_s")) {
			errors += check_ends(root, file, path, d);
		}
		free(file);
		cJSON_Delete(root);
	}
	if (cal) {
		char *p = kvb_path_key(path, "calibration");
		if (cJSON_IsNumber(cal) ? !(cal->valuedouble >= 1 && floor(cal->valuedouble) == cal->valuedouble &&
					    cal->valuedouble < 1e9)
					: !cJSON_IsString(cal) || !calib_cpu_ok(cal->valuestring)) {
			char got[96];
			kvb_diag_at(d, p, "expected ns per loop (integer >= 1) or \"CPUn\", got %s",
				    kvb_node_describe(cal, got, sizeof(got)));
			errors++;
		}
		free(p);
	}
	if (cJSON_IsArray(tasks)) {
		char *tp = kvb_path_key(path, "tasks");
		int i = 0;
		if (!tasks->child) {
			kvb_diag_at(d, tp, "empty task list");
			errors++;
		}
		for (const cJSON *t = tasks->child; t; t = t->next, i++) {
			char *p = kvb_path_idx(tp, i);
			const char *nm = kvb_get_str(t, "name", NULL);
			errors += validate_task(t, p, d);
			/* names must be unique: they name the rt-app threads and the `task` classifier */
			for (const cJSON *u = tasks->child; nm && u != t; u = u->next) {
				const char *un = kvb_get_str(u, "name", NULL);
				if (un && !strcmp(un, nm)) {
					char *pn = kvb_path_key(p, "name");
					kvb_diag_at(d, pn, "task name '%s' is used twice", nm);
					free(pn);
					errors++;
					break;
				}
			}
			free(p);
		}
		free(tp);
	}
	return errors;
}

/* Adds the calibration parameter to global: a JSON number or the "CPUn" string. */
static void set_calibration(cJSON *global, const cJSON *cal)
{
	cJSON_DeleteItemFromObjectCaseSensitive(global, "calibration");
	if (cJSON_IsNumber(cal))
		cJSON_AddNumberToObject(global, "calibration", cal->valuedouble);
	else
		cJSON_AddStringToObject(global, "calibration", cJSON_IsString(cal) ? cal->valuestring : "CPU0");
}

static void set_str(cJSON *obj, const char *key, const char *v)
{
	cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
	cJSON_AddStringToObject(obj, key, v);
}

static void set_num(cJSON *obj, const char *key, double v)
{
	cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
	cJSON_AddNumberToObject(obj, key, v);
}

static cJSON *gen_task(const cJSON *t)
{
	cJSON *o = cJSON_CreateObject(), *timer;
	long long period = kvb_get_int(t, "period_us", 0);
	const cJSON *duty = cJSON_GetObjectItemCaseSensitive(t, "duty_pct");
	long long run = duty ? llround((double)period * duty->valuedouble / 100.0) : kvb_get_int(t, "run_us", 0);
	const char *policy = kvb_get_str(t, "policy", "SCHED_OTHER");
	const cJSON *cpus = cJSON_GetObjectItemCaseSensitive(t, "cpus");

	cJSON_AddNumberToObject(o, "instance", (double)kvb_get_int(t, "instances", 1));
	cJSON_AddStringToObject(o, "policy", policy);
	if (cJSON_GetObjectItemCaseSensitive(t, "priority"))
		cJSON_AddNumberToObject(o, "priority", (double)kvb_get_int(t, "priority", 0));
	if (!strcmp(policy, "SCHED_DEADLINE")) {
		cJSON_AddNumberToObject(o, "dl-runtime", (double)kvb_get_int(t, "dl_runtime_us", run));
		cJSON_AddNumberToObject(o, "dl-period", (double)period);
		cJSON_AddNumberToObject(o, "dl-deadline", (double)period);
	}
	if (cpus)
		cJSON_AddItemToObject(o, "cpus", cJSON_Duplicate(cpus, 1));
	if (cJSON_GetObjectItemCaseSensitive(t, "util_min"))
		cJSON_AddNumberToObject(o, "util_min", (double)kvb_get_int(t, "util_min", 0));
	if (cJSON_GetObjectItemCaseSensitive(t, "util_max"))
		cJSON_AddNumberToObject(o, "util_max", (double)kvb_get_int(t, "util_max", 1024));
	/* events in order: run, then wait for this instance's own ("unique") timer */
	cJSON_AddNumberToObject(o, "run", (double)run);
	timer = cJSON_AddObjectToObject(o, "timer");
	cJSON_AddStringToObject(timer, "ref", "unique");
	cJSON_AddNumberToObject(timer, "period", (double)period);
	return o;
}

int kvb_rtapp_config_build(const cJSON *params, const char *logdir, const char *basename, cJSON **out,
			   long *duration_s, struct kvb_error *err)
{
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(params, "config");
	const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(params, "tasks");
	const cJSON *cal = cJSON_GetObjectItemCaseSensitive(params, "calibration");
	const cJSON *dur;
	cJSON *root = NULL, *global;
	long long d;  /* duration_s, the table's default when not given */
	int has_dur = kvb_param_int_opt(&kvb_workload_rt_app, params, "duration_s", &d);
	int rc;

	*out = NULL;
	if (cJSON_IsString(cfg) || !tasks) {
		char *file = NULL;
		/* a use case name as WA3 takes it, or WA3's default when neither config nor tasks is given */
		rc = kvb_rtapp_config_path(cJSON_IsString(cfg) ? cfg->valuestring : NULL, &file, err);
		if (!rc)
			rc = kvb_rtapp_config_load(file, &root, err);
		if (rc) {
			free(file);
			return rc;
		}
		global = cJSON_GetObjectItemCaseSensitive(root, "global");
		if (!global) {
			global = cJSON_AddObjectToObject(root, "global");
		} else if (!cJSON_IsObject(global)) {
			cJSON_Delete(root);
			rc = kvb_error_set(err, KVB_EINPUT, "%s: \"global\" is not an object", file);
			free(file);
			return rc;
		}
		free(file);
		if (has_dur)
			set_num(global, "duration", (double)d);
		if (cal)
			set_calibration(global, cal);
		set_str(global, "logdir", logdir);
		set_str(global, "log_basename", basename);
		dur = cJSON_GetObjectItemCaseSensitive(global, "duration");
		*duration_s = cJSON_IsNumber(dur) && dur->valuedouble > 0 ? (long)dur->valuedouble : -1;
		*out = root;
		return KVB_OK;
	}
	if (!cJSON_IsArray(tasks) || !tasks->child)
		return kvb_error_set(err, KVB_EINPUT, "rt-app needs 'config' or a non-empty 'tasks' list");

	double max_rows = 0;
	cJSON *jt;
	root = cJSON_CreateObject();
	global = cJSON_AddObjectToObject(root, "global");
	cJSON_AddNumberToObject(global, "duration", (double)d);
	set_calibration(global, cal);
	cJSON_AddStringToObject(global, "default_policy", "SCHED_OTHER");
	cJSON_AddStringToObject(global, "logdir", logdir);
	cJSON_AddStringToObject(global, "log_basename", basename);
	jt = cJSON_AddObjectToObject(root, "tasks");
	for (const cJSON *t = tasks->child; t; t = t->next) {
		const char *name = kvb_get_str(t, "name", NULL);
		long long period = kvb_get_int(t, "period_us", 0);
		if (!name || period <= 0) {
			cJSON_Delete(root);
			return kvb_error_set(err, KVB_EINPUT, "rt-app task without name or period_us (params not validated?)");
		}
		if ((double)d * 1e6 / (double)period > max_rows)
			max_rows = (double)d * 1e6 / (double)period;
		cJSON_AddItemToObject(jt, name, gen_task(t));
	}
	/* in-memory log buffer per thread, in MB, with room to spare (see the file comment) */
	cJSON_AddNumberToObject(global, "log_size", ceil((max_rows + 16) * RTAPP_ROW_BYTES / 1048576.0) + 1);
	*duration_s = (long)d;
	*out = root;
	return KVB_OK;
}

/* The line of rt-app's output that says why it failed: its first <crit> line (plus a perror line after it), else its first <error> line, else its last lines (core/tail.h). */
static char *failure_line(const char *err_text, const char *out_text)
{
	const char *tags[] = { "<crit>", "<error>" };
	const char *texts[] = { err_text, out_text };
	for (size_t k = 0; k < KVB_ARRAY_SIZE(tags); k++) {
		for (size_t s = 0; s < KVB_ARRAY_SIZE(texts); s++) {
			const char *p = strstr(texts[s], tags[k]), *bol, *eol, *next;
			if (!p)
				continue;
			for (bol = p; bol > texts[s] && bol[-1] != '\n'; bol--)
				;
			eol = bol + strcspn(bol, "\n");
			next = *eol ? eol + 1 : eol;
			if (*next && *next != '[' && *next != '\n') {
				size_t nn = strcspn(next, "\n");
				return kvb_xasprintf("%.*s (%.*s)", (int)(eol - bol), bol, (int)(nn > 200 ? 200 : nn), next);
			}
			return kvb_xstrndup(bol, (size_t)(eol - bol) > 300 ? 300 : (size_t)(eol - bol));
		}
	}
	/* no tag: the end says why (rt-app 1.0 perror()s after its notices: "pthread_setschedparam:
	 * Operation not permitted"; its first line is a notice) */
	for (size_t s = 0; s < KVB_ARRAY_SIZE(texts); s++) {
		char *t = kvb_text_tail(texts[s], 3, 400);
		if (*t)
			return t;
		free(t);
	}
	return kvb_xstrdup("no output");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Lists the per-thread logs in dir on the target (argv `find`, no shell glob). Sorted, owned paths. */
static int list_logs(struct kvb_target *t, const char *dir, struct kvb_strv *logs, struct kvb_error *err)
{
	char *pattern = kvb_xasprintf("%s-*.log", RTAPP_BASENAME);
	const char *argv[] = { "find", dir, "-maxdepth", "1", "-type", "f", "-name", pattern, NULL };
	struct kvb_exec_result r;
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_target_run_ok(t, argv, 60000, &r, err);
	if (!rc) {
		char *save = NULL;
		for (char *l = strtok_r(r.out.data, "\r\n", &save); l; l = strtok_r(NULL, "\r\n", &save))
			if (*l)
				kvb_strv_push(logs, l);
		if (logs->n)
			qsort(logs->v, logs->n, sizeof(char *), cmp_str);
	}
	kvb_exec_result_release(&r);
	free(pattern);
	return rc;
}

/* Keeps rt-app's stdout/stderr as an artifact; KVB_ESTORE when it cannot be written (disk full). */
static int save_output(struct kvb_job_ctx *ctx, const char *const *argv, const struct kvb_exec_result *r,
		       struct kvb_error *err)
{
	char *path = kvb_xasprintf("%s/rt-app.out", ctx->artifact_dir);
	FILE *f = kvb_fopen_nofollow(path);
	int rc = KVB_OK;
	if (f) {
		fprintf(f, "$");
		for (size_t i = 0; argv[i]; i++)
			fprintf(f, " %s", argv[i]);
		fprintf(f, "\n%s", r->out.data);
		if (r->err.len)
			fprintf(f, "--- stderr ---\n%s", r->err.data);
	}
	if (!f || ferror(f) | fclose(f))
		rc = kvb_error_set(err, KVB_ESTORE, "cannot write artifact %s: %s", path, strerror(errno));
	else
		kvb_metrics_artifact(ctx->out, "raw-output", path);
	free(path);
	return rc;
}

/* "CPUn" when the config has rt-app measure pLoad (no calibration in a config file: rt-app's default, CPU0), else NULL. */
static const char *calib_cpu(const cJSON *cfg)
{
	const cJSON *cal = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cfg, "global"), "calibration");
	return !cal ? "CPU0" : cJSON_IsString(cal) && !strncmp(cal->valuestring, "CPU", 3) ? cal->valuestring : NULL;
}

/* Calibrates (once per run) before the job's instruments start: its time and energy are no job's. */
static int rtapp_prepare(struct kvb_job_ctx *ctx, struct kvb_error *err)
{
	cJSON *cfg = NULL;
	long duration_s = -1, pload = -1;
	const char *cpu;
	int rc = kvb_rtapp_config_build(ctx->params, ctx->remote_dir, RTAPP_BASENAME, &cfg, &duration_s, err);
	if (!rc && (cpu = calib_cpu(cfg)))
		rc = kvb_rtapp_pload(ctx, cpu, &pload, err);
	cJSON_Delete(cfg);
	return rc;
}

static int rtapp_recheck(struct kvb_job_ctx *ctx, struct kvb_witnesses *out, struct kvb_error *err)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(ctx->params, "pload_drift_pct");
	return kvb_rtapp_pload_recheck(ctx, cJSON_IsNumber(d) ? d->valuedouble : 10, out, err);
}

/* What the use case was, as job classifiers: diff groups jobs by classifiers, and two specs whose tasks
 * share names (duty 10 % and 80 % of task 't') must not be pooled. */
static void classify_use_case(struct kvb_job_ctx *ctx, long duration_s)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(ctx->params, "config");
	const cJSON *tl = cJSON_GetObjectItemCaseSensitive(ctx->params, "tasks");
	char *spec = cJSON_IsString(c) ? kvb_xstrdup(c->valuestring)
		     : tl		   ? cJSON_PrintUnformatted(tl)
					   : kvb_xstrdup(KVB_RTAPP_DEFAULT_USE_CASE);
	char buf[32];
	kvb_metrics_job_classify(ctx->out, tl && !cJSON_IsString(c) ? "tasks" : "config", spec ? spec : "");
	free(spec);
	if (duration_s > 0) {
		snprintf(buf, sizeof(buf), "%ld", duration_s);
		kvb_metrics_job_classify(ctx->out, "duration_s", buf);
	}
}

/* One pLoad for the whole run on this board (rt_app_calib.c) as cfg's global.calibration, stored as
 * classifier pload_ns; measured by the first job's prepare, before its instruments started. */
static int apply_pload(struct kvb_job_ctx *ctx, cJSON *cfg, struct kvb_error *err)
{
	cJSON *g = cJSON_GetObjectItemCaseSensitive(cfg, "global");
	const cJSON *cal = cJSON_GetObjectItemCaseSensitive(g, "calibration");
	long pload = -1;
	char buf[32];
	const char *cpu = calib_cpu(cfg);
	int rc;
	if (cpu) {
		if ((rc = kvb_rtapp_pload(ctx, cpu, &pload, err)))
			return rc;
		set_num(g, "calibration", (double)pload);
	} else if (cJSON_IsNumber(cal)) {
		pload = (long)cal->valuedouble;
	}
	if (pload > 0) {
		snprintf(buf, sizeof(buf), "%ld", pload);
		kvb_metrics_job_classify(ctx->out, "pload_ns", buf);
	}
	return KVB_OK;
}

/* cfg written as artifact local (rt-app-config) and pushed to remote; KVB_ESTORE when it cannot be written. */
static int put_config(struct kvb_job_ctx *ctx, const cJSON *cfg, const char *local, const char *remote,
		      struct kvb_error *err)
{
	char *text = cJSON_Print(cfg);
	FILE *f = kvb_fopen_nofollow(local);
	int rc = KVB_OK;
	if (f) {
		fputs(text, f);
		fputc('\n', f);
	}
	if (!f || ferror(f) | fclose(f))
		rc = kvb_error_set(err, KVB_ESTORE, "cannot write artifact %s: %s", local, strerror(errno));
	else
		kvb_metrics_artifact(ctx->out, "rt-app-config", local);
	/* the local target may hand out one directory as both */
	if (!rc && strcmp(local, remote))
		rc = kvb_target_push(ctx->target, local, remote, err);
	free(text);
	return rc;
}

/* Removes logs of an earlier attempt in the job's remote directory: they would be counted again. */
static int remove_old_logs(struct kvb_job_ctx *ctx, struct kvb_error *err)
{
	struct kvb_strv logs = KVB_STRV_INIT, rm = KVB_STRV_INIT;
	struct kvb_exec_result rr;
	int rc = list_logs(ctx->target, ctx->remote_dir, &logs, err);
	if (rc || !logs.n) {
		kvb_strv_release(&logs);
		return rc;
	}
	kvb_strv_push(&rm, "rm");
	kvb_strv_push(&rm, "-f");
	for (size_t i = 0; i < logs.n; i++)
		kvb_strv_push(&rm, logs.v[i]);
	kvb_exec_result_init(&rr);
	rc = kvb_target_run_ok(ctx->target, kvb_strv_argv(&rm), 60000, &rr, err);
	kvb_exec_result_release(&rr);
	kvb_strv_release(&rm);
	kvb_strv_release(&logs);
	return rc;
}

/* Fails the job when rt-app's exit or output says it failed (r has run), quoting the reason. */
static int check_rtapp_exit(const struct kvb_exec_result *r, struct kvb_error *err)
{
	char *why = failure_line(r->err.data, r->out.data), how[64];
	int rc = KVB_OK;
	if (r->exit_code != 0)
		rc = kvb_error_set(err, KVB_ETARGET, "rt-app failed (%s): %s", kvb_exec_describe(r, how, sizeof(how)), why);
	/* rt-app exits 0 after printing its usage when it cannot open the file */
	else if (strstr(r->err.data, "<crit>") || strstr(r->out.data, "<crit>") || strstr(r->out.data, "usage:") ||
		 strstr(r->err.data, "usage:"))
		rc = kvb_error_set(err, KVB_ETARGET, "rt-app failed: %s", why);
	free(why);
	return rc;
}

/* Pulls the run's logs into the artifact directory (artifacts rt-app-log); their local paths into local. */
static int pull_logs(struct kvb_job_ctx *ctx, struct kvb_strv *local, struct kvb_error *err)
{
	struct kvb_strv logs = KVB_STRV_INIT;
	int rc = list_logs(ctx->target, ctx->remote_dir, &logs, err);
	for (size_t i = 0; !rc && i < logs.n; i++) {
		const char *base = strrchr(logs.v[i], '/');
		char *dst = kvb_xasprintf("%s/%s", ctx->artifact_dir, base ? base + 1 : logs.v[i]);
		if (!strcmp(dst, logs.v[i]) || !(rc = kvb_target_pull(ctx->target, logs.v[i], dst, err))) {
			kvb_metrics_artifact(ctx->out, "rt-app-log", dst);
			kvb_strv_push(local, dst);
		}
		free(dst);
	}
	kvb_strv_release(&logs);
	return rc;
}

static int rtapp_run(struct kvb_job_ctx *ctx, struct kvb_error *err)
{
	cJSON *cfg = NULL;
	struct kvb_strv local = KVB_STRV_INIT, tasks = KVB_STRV_INIT;
	struct kvb_exec_result r;
	char *local_cfg = kvb_xasprintf("%s/%s", ctx->artifact_dir, RTAPP_CONFIG);
	char *remote_cfg = kvb_xasprintf("%s/%s", ctx->remote_dir, RTAPP_CONFIG);
	const char *argv[] = { "rt-app", remote_cfg, NULL };
	uint64_t saved_timeout = ctx->timeout_ms;
	long duration_s = -1;
	int rc;

	kvb_exec_result_init(&r);
	rc = kvb_rtapp_config_build(ctx->params, ctx->remote_dir, RTAPP_BASENAME, &cfg, &duration_s, err);
	if (rc)
		goto out;
	for (const cJSON *t = cJSON_GetObjectItemCaseSensitive(cfg, "tasks")->child; t; t = t->next)
		kvb_strv_push(&tasks, t->string);
	classify_use_case(ctx, duration_s);
	if ((rc = kvb_rtapp_uclamp_check(ctx, cfg, err)))
		goto out;
	if ((rc = apply_pload(ctx, cfg, err)) || (rc = put_config(ctx, cfg, local_cfg, remote_cfg, err)) ||
	    (rc = remove_old_logs(ctx, err)))
		goto out;

	/* rt-app stops itself at global.duration; allow calibration and start-up on a slow board */
	if (duration_s > 0)
		ctx->timeout_ms = ((uint64_t)duration_s + 30 + (uint64_t)duration_s / 5) * 1000;
	rc = kvb_job_exec(ctx, argv, &r, err);
	ctx->timeout_ms = saved_timeout;
	if (rc) {
		struct kvb_error ignore;
		save_output(ctx, argv, &r, &ignore); /* what there is helps to see why */
		kvb_error_prefix(err, "rt-app");
		goto out;
	}
	if ((rc = save_output(ctx, argv, &r, err)) || (rc = check_rtapp_exit(&r, err)) ||
	    (rc = pull_logs(ctx, &local, err)))
		goto out;
	rc = kvb_rtapp_parse_logs((const char *const *)local.v, local.n, RTAPP_BASENAME, kvb_strv_argv(&tasks), ctx->out,
				  err);
out:
	free(local_cfg);
	free(remote_cfg);
	cJSON_Delete(cfg);
	kvb_strv_release(&local);
	kvb_strv_release(&tasks);
	kvb_exec_result_release(&r);
	return rc;
}

static const char *const rtapp_needs[] = { "rt-app", "find", NULL };

/* What it stores (docs/design.md#metrics: metric names are an interface); checked after every job. */
static const struct kvb_metric_decl rtapp_metrics[] = {
	{ "slack_mean", "us", 0, "mean slack (period left after the run phase), per task", 0, NULL },
	{ "slack_min", "us", 0, "smallest slack, per task", 0, NULL },
	{ "negative_slack_pct", "%", 1, "activations that missed their period, per task", 0, NULL },
	{ "wu_lat_mean", "us", 1, "mean wake-up latency, per task", 0, NULL },
	{ "wu_lat_p99", "us", 1, "99th percentile wake-up latency, per task", 0, NULL },
	{ "run_mean", "us", 1, "mean run-phase duration, per task", 0, NULL },
	{ "period_mean", "us", KVB_NO_DIRECTION, "mean measured period, per task (its configured period is the aim: neither lower nor higher is better)", 0, NULL },
	{ "activations", "count", 0, "activations logged, per task (0: the task never ran)", 0, NULL },
	{ NULL, NULL, 0, NULL, 0, NULL },
};

/* The report's wake-up latency CDFs (from its logs) on a log x axis: their tails span decades. */
static const struct kvb_plot_decl rtapp_plots[] = {
	{ "wake-up latency", 0, NULL, 1 },
	{ NULL, 0, NULL, 0 },
};

/* WA3's rt-app (wa/workloads/rt_app/__init__.py): its duration, its taskset_mask (a cpu_mask) as the cpus knob. */
static const struct kvb_wa3_param rtapp_wa3[] = {
	{ "duration", KVB_WA3_RENAME, "duration_s", NULL },
	{ "taskset_mask", KVB_WA3_RENAME, "cpus", NULL },
	{ "cpus", KVB_WA3_CPU_MASK, "cpus", NULL },
	{ "uninstall", KVB_WA3_DROP, NULL, "has no meaning in kvbench (rt-app is the target's)" },
	{ "uninstall_on_exit", KVB_WA3_DROP, NULL, "has no meaning in kvbench (rt-app is the target's)" },
	{ "force_install", KVB_WA3_DROP, NULL, "has no meaning in kvbench (rt-app is the target's)" },
	{ NULL, 0, NULL, NULL },
};

/* The report's CDFs of rt-app's logs (artifact kind "rt-app-log"), in rt_app_log.c. */
extern const struct kvb_artifact_plot kvb_rtapp_artifact_plots[];

const struct kvb_workload_ops kvb_workload_rt_app = {
	.metrics = rtapp_metrics,
	.plots = rtapp_plots,
	.artifact_plots = kvb_rtapp_artifact_plots,
	.name = "rt-app",
	.summary = "rt-app periodic tasks: per-task slack, wake-up latency, run and period (us)",
	.params = rtapp_params,
	.validate = kvb_rtapp_validate,
	.needs = rtapp_needs,
	.caps = KVB_WORKLOAD_REALTIME, /* SCHED_FIFO/RR tasks need an RT budget in their cgroup */
	.default_timeout_s = 600,
	.run = rtapp_run,
	.prepare = rtapp_prepare,
	.recheck = rtapp_recheck,
	.state_free = kvb_rtapp_calib_free,
	.resume = kvb_rtapp_pload_resume,
	.wa3_params = rtapp_wa3,
};
