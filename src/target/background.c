/* Implements background commands on the target (target/background.h). */
#include "target/background.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kvb_target_bg_start(struct kvb_target *t, const char *const *argv, const char *out, const char *errf, long *pid,
			struct kvb_error *err)
{
	static const char script[] = "o=$1; e=$2; shift 2; \"$@\" </dev/null >\"$o\" 2>\"$e\" & echo $!";
	struct kvb_strv a = KVB_STRV_INIT;
	struct kvb_exec_result r;
	int rc;
	kvb_strv_push(&a, "sh");
	kvb_strv_push(&a, "-c");
	kvb_strv_push(&a, script);
	kvb_strv_push(&a, "sh");
	kvb_strv_push(&a, out);
	kvb_strv_push(&a, errf);
	for (size_t i = 0; argv[i]; i++)
		kvb_strv_push(&a, argv[i]);
	kvb_exec_result_init(&r);
	rc = kvb_target_run_ok(t, kvb_strv_argv(&a), 30000, &r, err);
	if (!rc) {
		char *end;
		*pid = strtol(r.out.data, &end, 10);
		if (*pid <= 0)
			rc = kvb_error_set(err, KVB_ETARGET, "starting '%s' in the background: no pid in '%s'", argv[0],
					   r.out.data);
	}
	kvb_exec_result_release(&r);
	kvb_strv_release(&a);
	return rc;
}

int kvb_target_bg_stop(struct kvb_target *t, long pid, const char *sig, unsigned wait_ms, int *killed,
		       struct kvb_error *err)
{
	/* A zombie (no reaper in some containers) counts as gone: its /proc stat state is Z. The
	 * wait is measured on /proc/uptime (centiseconds), not counted in sleeps: on a board whose
	 * `sleep 0.05` returns at once (Android <= 5 toolbox) a count of sleeps ran out in a few ms
	 * and SIGKILLed a trace-cmd still writing its trace. */
	static const char script[] =
		"cs() { read u x </proc/uptime; f=${u#*.}; echo $(( ${u%.*} * 100 + 1$f - 100 )); }; "
		"kill -s \"$1\" \"$2\" 2>/dev/null; end=$(( $(cs) + $3 )); "
		"while kill -0 \"$2\" 2>/dev/null; do "
		"case \"$(cat /proc/$2/stat 2>/dev/null)\" in *') Z '*) break;; esac; "
		"if [ \"$(cs)\" -ge $end ]; then kill -9 \"$2\" 2>/dev/null; echo killed; break; fi; "
		"sleep 0.05; done";
	char p[32], n[32];
	const char *argv[] = { "sh", "-c", script, "sh", sig, p, n, NULL };
	struct kvb_exec_result r;
	int rc;
	if (killed)
		*killed = 0;
	snprintf(p, sizeof(p), "%ld", pid);
	snprintf(n, sizeof(n), "%u", (wait_ms + 9) / 10);
	kvb_exec_result_init(&r);
	rc = kvb_target_exec(t, argv, (uint64_t)wait_ms + 30000, &r, err);
	if (!rc && strstr(r.out.data, "killed")) {
		if (killed)
			*killed = 1;
		else
			kvb_warn("pid %ld did not stop on SIG%s within %u ms; killed", pid, sig, wait_ms);
	}
	kvb_exec_result_release(&r);
	return rc;
}

void kvb_target_bg_kill(struct kvb_target *t, long *pid)
{
	struct kvb_error ignore;
	if (*pid > 0)
		kvb_target_bg_stop(t, *pid, "KILL", 0, NULL, &ignore);
	*pid = 0;
}

int kvb_target_bg_start_ready(struct kvb_target *t, const char *const *argv, const char *out, const char *errf,
			      const char *what, const char *mark, unsigned ready_ms, char *(*why)(void *arg),
			      void *arg, long *pid, struct kvb_error *err)
{
	/* $1 the stdout file, $2 the pid, $3 centiseconds, $4 the mark; 3: gone, 4: not in time */
	static const char script[] =
		"cs() { read u x </proc/uptime; f=${u#*.}; echo $(( ${u%.*} * 100 + 1$f - 100 )); }; "
		"end=$(( $(cs) + $3 )); while ! grep -q \"$4\" \"$1\" 2>/dev/null; do "
		"kill -0 \"$2\" 2>/dev/null || exit 3; "
		"case \"$(cat /proc/$2/stat 2>/dev/null)\" in *') Z '*) exit 3;; esac; "
		"[ \"$(cs)\" -ge $end ] && exit 4; sleep 0.05; done";
	char p[32], n[32];
	const char *wait[] = { "sh", "-c", script, "sh", out, p, n, mark, NULL };
	struct kvb_exec_result r;
	int rc = kvb_target_bg_start(t, argv, out, errf, pid, err);
	if (rc)
		return rc;
	snprintf(p, sizeof(p), "%ld", *pid);
	snprintf(n, sizeof(n), "%u", (ready_ms + 9) / 10);
	kvb_exec_result_init(&r);
	rc = kvb_target_exec(t, wait, (uint64_t)ready_ms + 30000, &r, err);
	if (!rc && r.exit_code) {
		char *text = why ? why(arg) : NULL;
		if (r.exit_code == 4)
			rc = kvb_error_set(err, KVB_ETARGET, "%s did not start within %g s%s%s", what, ready_ms / 1000.0,
					   text && *text ? ": " : "", text ? text : "");
		else
			rc = kvb_error_set(err, KVB_ETARGET, "%s exited at start%s%s", what, text && *text ? ": " : "",
					   text ? text : "");
		free(text);
	}
	kvb_exec_result_release(&r);
	if (rc)
		kvb_target_bg_kill(t, pid);
	return rc;
}
