/* Implements the target-side sampler loop of sampler.h and the splitting of its output. */
#include "instrument/sampler.h"
#include "instrument/probe.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The loop (sh, POSIX + `read` of /proc/uptime): $1 the interval in seconds ("0.100"), $2 in
 * microseconds, $3 whole seconds (>= 1), then snap's arguments. cs() is /proc/uptime in
 * centiseconds ("12.05" -> 1205; 1${f} - 100 keeps "05" from reading as octal). %s: snap's body.
 */
static const char loop_fmt[] =
	"snap() { %s\n}; "
	"i=$1 us=$2 w=$3; shift 3; "
	"cs() { read u x </proc/uptime; f=${u#*.}; echo $(( ${u%%.*} * 100 + 1$f - 100 )); }; "
	"ok() { [ $((b - a)) -ge 15 ] && [ $((b - a)) -le 60 ]; }; "
	"a=$(cs); sleep 0.2 2>/dev/null; b=$(cs); how=whole; "
	"if ok; then how=sleep; else a=$(cs); usleep 200000 2>/dev/null; b=$(cs); ok && how=usleep; fi; "
	"case $how in sleep) echo \"# sampler sleep $i\";; usleep) echo \"# sampler usleep $us\";; "
	"*) echo \"# sampler sleep $w (neither sleep 0.2 nor usleep 200000 slept 0.2 s: no fractional sleep)\";; "
	"esac; "
	"while :; do read u x </proc/uptime; echo \"uptime $u\"; snap \"$@\"; echo ---; "
	"case $how in sleep) sleep \"$i\";; usleep) usleep \"$us\";; *) sleep \"$w\";; esac; done";

static void push_args(struct kvb_strv *a, const char *const *args)
{
	for (size_t i = 0; args && args[i]; i++)
		kvb_strv_push(a, args[i]);
}

int kvb_sampler_start(struct kvb_sampler *s, struct kvb_target *t, const char *remote, unsigned interval_ms,
		      const char *body, const char *const *args, struct kvb_error *err)
{
	struct kvb_strv a = KVB_STRV_INIT;
	char interval[32], us[32], whole[32], *script = kvb_xasprintf(loop_fmt, body);
	char *errf = kvb_xasprintf("%s.err", remote);
	int rc;
	memset(s, 0, sizeof(*s));
	s->remote = kvb_xstrdup(remote);
	snprintf(interval, sizeof(interval), "%.3f", (double)interval_ms / 1000.0);
	snprintf(us, sizeof(us), "%llu", (unsigned long long)interval_ms * 1000);
	snprintf(whole, sizeof(whole), "%u", (interval_ms + 999) / 1000);
	kvb_strv_push(&a, "sh");
	kvb_strv_push(&a, "-c");
	kvb_strv_push(&a, script);
	kvb_strv_push(&a, "sh");
	kvb_strv_push(&a, interval);
	kvb_strv_push(&a, us);
	kvb_strv_push(&a, whole);
	push_args(&a, args);
	rc = kvb_target_bg_start(t, kvb_strv_argv(&a), remote, errf, &s->pid, err);
	kvb_strv_release(&a);
	free(script);
	free(errf);
	return rc;
}

int kvb_sampler_stop(struct kvb_sampler *s, struct kvb_target *t, struct kvb_error *err)
{
	int rc = KVB_OK;
	if (s->pid > 0)
		rc = kvb_target_bg_stop(t, s->pid, "TERM", 2000, NULL, err);
	s->pid = 0;
	return rc;
}

int kvb_sampler_text(const struct kvb_sampler *s, struct kvb_target *t, char **text, struct kvb_error *err)
{
	/* a job shorter than the loop's start-up leaves no file: no snapshots, not an error */
	const char *argv[] = { "sh", "-c", "cat \"$1\" 2>/dev/null; true", "sh", s->remote, NULL };
	struct kvb_exec_result r;
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_target_exec(t, argv, 30000, &r, err);
	*text = rc ? NULL : kvb_buf_detach(&r.out);
	kvb_exec_result_release(&r);
	return rc;
}

void kvb_sampler_release(struct kvb_sampler *s, struct kvb_target *t)
{
	if (s->pid > 0)
		kvb_target_bg_kill(t, &s->pid);
	free(s->remote);
	memset(s, 0, sizeof(*s));
}

int kvb_snapshots_next(const char **cursor, double *uptime_s, char **body)
{
	const char *s = *cursor, *start, *end;
	*uptime_s = -1;
	*body = NULL;
	/* the next "uptime " line */
	while (s && *s && strncmp(s, "uptime ", 7))
		s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL;
	if (!s || !*s)
		return -1;
	*uptime_s = strtod(s + 7, NULL);
	start = strchr(s, '\n');
	if (!start)
		return -1;
	start++;
	end = !strncmp(start, "---\n", 4) ? start - 1 : strstr(start - 1, "\n---\n");
	if (!end)
		return -1; /* cut by the stop */
	*body = kvb_xstrndup(start, end >= start ? (size_t)(end + 1 - start) : 0);
	*cursor = end + 5;
	return 0;
}
