/* Implements the helpers instruments share: energy metrics and sums, host meter commands, target background commands, rooted reads. */
#include "instrument/instrument.h"
#include "instrument/probe.h"
#include "core/log.h"
#include "core/util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

const struct kvb_metric_decl kvb_energy_metric_decls[] = {
	{ "energy", "J", KVB_LOWER_IS_BETTER, "energy over the job, per channel (classifier chan_name)", 0, NULL },
	{ "power_mean", "mW", KVB_LOWER_IS_BETTER, "mean power over the job, per channel", 0, NULL },
	{ NULL, NULL, 0, NULL, 0, NULL },
};

static void metric_pair(struct kvb_metrics *m, const struct kvb_chan_energy *c)
{
	/* each classified before the next add: an add may move m->v (realloc), and a pointer kept across
	 * it wrote into freed memory (the energy of the channel added at the 16th, 32nd... metric lost
	 * its chan_name on a board with util + cpufreq + juno-hwmon) */
	struct kvb_metric *e = kvb_metrics_add(m, "energy", c->energy_j, "J", 1), *p;
	kvb_metric_classify(e, "chan_name", c->name);
	if (c->estimated)
		kvb_metric_classify(e, "estimated", "true");
	p = kvb_metrics_add(m, "power_mean", c->power_mw, "mW", 1);
	kvb_metric_classify(p, "chan_name", c->name);
	if (c->estimated)
		kvb_metric_classify(p, "estimated", "true");
}

int kvb_sums_check(const cJSON *sums, struct kvb_error *err)
{
	if (!sums)
		return KVB_OK;
	if (!cJSON_IsObject(sums))
		return kvb_error_set(err, KVB_EINPUT, "sums must be a mapping {name: [channel, ...]}");
	for (const cJSON *kv = sums->child; kv; kv = kv->next) {
		if (!cJSON_IsArray(kv) || !cJSON_GetArraySize(kv))
			return kvb_error_set(err, KVB_EINPUT, "sums.%s must be a non-empty list of channels",
					     kv->string);
		for (const cJSON *c = kv->child; c; c = c->next)
			if (!cJSON_IsString(c))
				return kvb_error_set(err, KVB_EINPUT, "sums.%s: channel names are strings",
						     kv->string);
	}
	return KVB_OK;
}

int kvb_energy_emit(struct kvb_metrics *m, const struct kvb_chan_energy *v, size_t n, const cJSON *sums,
		    struct kvb_error *err)
{
	for (const cJSON *kv = sums ? sums->child : NULL; kv; kv = kv->next)
		for (const cJSON *name = kv->child; name; name = name->next) {
			size_t i = 0;
			while (i < n && !(cJSON_IsString(name) && !strcmp(v[i].name, name->valuestring)))
				i++;
			if (i == n)
				return kvb_error_set(err, KVB_EINPUT, "sum '%s': no channel '%s' was recorded", kv->string,
						     cJSON_IsString(name) ? name->valuestring : "?");
		}
	for (size_t i = 0; i < n; i++)
		metric_pair(m, &v[i]);
	for (const cJSON *kv = sums ? sums->child : NULL; kv; kv = kv->next) {
		struct kvb_chan_energy t = { .name = kv->string };
		for (const cJSON *name = kv->child; name; name = name->next)
			for (size_t i = 0; i < n; i++)
				if (!strcmp(v[i].name, name->valuestring)) {
					t.energy_j += v[i].energy_j;
					t.power_mw += v[i].power_mw;
					t.estimated |= v[i].estimated;
					break;
				}
		metric_pair(m, &t);
	}
	return KVB_OK;
}

int kvb_energy_emit_kept(struct kvb_instr_ctx *c, const struct kvb_chan_energy *v, const int *refused, size_t n,
		     struct kvb_error *err)
{
	const cJSON *sums = cJSON_GetObjectItemCaseSensitive(c->conf, "sums");
	struct kvb_chan_energy *kept = kvb_xcalloc(n + 1, sizeof(*kept));
	cJSON *ok_sums = cJSON_IsObject(sums) ? cJSON_CreateObject() : NULL;
	size_t k = 0;
	int rc;
	for (size_t i = 0; i < n; i++)
		if (!refused[i])
			kept[k++] = v[i];
	for (const cJSON *kv = ok_sums ? sums->child : NULL; kv; kv = kv->next) {
		const char *bad = NULL;
		for (const cJSON *m = cJSON_IsArray(kv) ? kv->child : NULL; m && !bad; m = m->next)
			for (size_t i = 0; i < n && cJSON_IsString(m) && !bad; i++)
				if (refused[i] && !strcmp(v[i].name, m->valuestring))
					bad = v[i].name;
		if (!bad) {
			cJSON_AddItemToObject(ok_sums, kv->string, cJSON_Duplicate(kv, 1));
		} else {
			char subject[256];
			snprintf(subject, sizeof(subject), "%s sum %s", c->name, kv->string);
			kvb_witness_add(&c->out->witnesses, "meter", subject, "every member channel's counter moves", NULL,
					KVB_WIT_REFUSED, "energy and power_mean not stored: channel %s was refused", bad);
		}
	}
	rc = kvb_energy_emit(c->out, kept, k, ok_sums ? ok_sums : sums, err);
	cJSON_Delete(ok_sums);
	free(kept);
	return rc;
}

/* The refused channel of s that sum names, or NULL. */
static const struct kvb_sample_chan *refused_member(const struct kvb_samples *s, const cJSON *sum)
{
	for (const cJSON *name = sum->child; name; name = name->next)
		for (size_t i = 0; cJSON_IsString(name) && i < s->n; i++)
			if (s->ch[i].refused && !strcmp(s->ch[i].name, name->valuestring))
				return &s->ch[i];
	return NULL;
}

int kvb_energy_metrics(struct kvb_metrics *m, const struct kvb_samples *s, const cJSON *sums, struct kvb_error *err)
{
	size_t n = 0, total = s ? s->n : 0;
	struct kvb_chan_energy *v = kvb_xcalloc(total + 1, sizeof(*v));
	cJSON *kept = NULL;
	int rc;
	for (size_t i = 0; i < total; i++) {
		if (s->ch[i].refused)
			continue;  /* its coverage witness says why; never a 0 in its place */
		v[n].name = s->ch[i].name;
		v[n].energy_j = kvb_samples_energy_j(&s->ch[i]);
		v[n].power_mw = kvb_samples_mean(&s->ch[i]);
		v[n].estimated = s->ch[i].estimated;
		n++;
	}
	if (n < total && cJSON_IsObject(sums)) {
		/* a sum with a refused member is refused too: part of it is not known */
		kept = cJSON_CreateObject();
		for (const cJSON *kv = sums->child; kv; kv = kv->next) {
			const struct kvb_sample_chan *r = cJSON_IsArray(kv) ? refused_member(s, kv) : NULL;
			char subject[256];
			if (!r) {
				cJSON_AddItemToObject(kept, kv->string, cJSON_Duplicate(kv, 1));
				continue;
			}
			snprintf(subject, sizeof(subject), "%s sum %s", r->instrument, kv->string);
			kvb_witness_add(&m->witnesses, "meter", subject, "every member channel covers the job window",
					NULL, KVB_WIT_REFUSED, "energy and power_mean not stored: channel %s was refused",
					r->name);
		}
		sums = kept;
	}
	rc = kvb_energy_emit(m, v, n, sums, err);
	cJSON_Delete(kept);
	free(v);
	return rc;
}

enum kvb_err kvb_conf_argv(const cJSON *v, struct kvb_strv *out)
{
	if (cJSON_IsArray(v)) {
		for (const cJSON *a = v->child; a; a = a->next) {
			char *s = kvb_node_str(a);
			if (!s)
				return KVB_EINPUT;
			kvb_strv_push(out, s);
			free(s);
		}
		return out->n ? KVB_OK : KVB_EINPUT;
	}
	if (cJSON_IsString(v)) {
		/* Plain words only: no shell, so no quoting rules to get wrong. */
		char *dup = kvb_xstrdup(v->valuestring), *save = NULL;
		for (char *w = strtok_r(dup, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
			kvb_strv_push(out, w);
		free(dup);
		return out->n ? KVB_OK : KVB_EINPUT;
	}
	return KVB_EINPUT;
}

int kvb_probe_cmd_start(struct kvb_probe_cmd *c, const char *const *argv, const char *out_path, struct kvb_error *err)
{
	struct kvb_spawn_opts o;
	int rc;
	memset(c, 0, sizeof(*c));
	c->proc.out_fd = -1;
	c->out_path = kvb_xstrdup(out_path);
	c->err_path = kvb_xasprintf("%s.stderr", out_path);
	memset(&o, 0, sizeof(o));
	o.argv = argv;
	o.stdout_path = c->out_path;
	o.stderr_path = c->err_path;
	c->started_ns = kvb_wall_ns();
	rc = kvb_spawn_bg(&o, &c->proc, err);
	if (rc)
		return kvb_error_prefix(err, "starting meter command");
	c->running = 1;
	return KVB_OK;
}

void kvb_probe_cmd_stderr_line(const struct kvb_probe_cmd *c, char *line, size_t n)
{
	struct kvb_buf b = KVB_BUF_INIT;
	line[0] = '\0';
	if (!kvb_buf_read_file(&b, c->err_path) && b.len) {
		size_t k = strcspn(b.data, "\n");
		snprintf(line, n, ": %.*s", (int)k, b.data);
	}
	kvb_buf_release(&b);
}

int kvb_probe_cmd_wait_output(struct kvb_probe_cmd *c, const char *path, unsigned timeout_ms, struct kvb_error *err)
{
	uint64_t t0 = kvb_mono_ns();
	char line[512];
	if (!timeout_ms)
		return KVB_OK;
	for (;;) {
		struct stat st;
		siginfo_t si;
		int ended;
		memset(&si, 0, sizeof(si));
		/* exit status first, then the file: a command that writes and exits in between counts as writing */
		ended = !waitid(P_PID, (id_t)c->proc.pid, &si, WEXITED | WNOHANG | WNOWAIT) && si.si_pid == c->proc.pid;
		if (!stat(path, &st) && st.st_size > 0)
			return KVB_OK;
		if (ended) {
			kvb_probe_cmd_stderr_line(c, line, sizeof(line));
			return kvb_error_set(err, KVB_ETARGET, "meter ended before writing anything to '%s' (%s %d)%s",
					     path, si.si_code == CLD_EXITED ? "exit status" : "signal", si.si_status,
					     line);
		}
		if (kvb_mono_ns() - t0 >= (uint64_t)timeout_ms * 1000000u) {
			kvb_probe_cmd_stderr_line(c, line, sizeof(line));
			return kvb_error_set(err, KVB_ETARGET, "meter wrote nothing to '%s' within ready_timeout_ms %u%s",
					     path, timeout_ms, line);
		}
		kvb_sleep_ms(10);
	}
}

int kvb_probe_cmd_stop(struct kvb_probe_cmd *c, const char *what, int sig, unsigned grace_ms, int *killed,
		       struct kvb_error *err)
{
	siginfo_t si;
	int exited_early = 0, status;
	char line[512];
	if (killed)
		*killed = 0;
	if (!c->running)
		return KVB_OK;
	memset(&si, 0, sizeof(si));
	/* Peek (WNOWAIT) whether it already ended by itself: a meter that dies early is an error. */
	if (!waitid(P_PID, (id_t)c->proc.pid, &si, WEXITED | WNOHANG | WNOWAIT) && si.si_pid == c->proc.pid)
		exited_early = 1;
	status = kvb_spawn_stop_killed(&c->proc, sig, grace_ms, killed);
	c->running = 0;
	if (exited_early && (si.si_code != CLD_EXITED || si.si_status != 0)) {
		kvb_probe_cmd_stderr_line(c, line, sizeof(line));
		return kvb_error_set(err, KVB_ETARGET, "%s '%s' ended before the job did (%s %d)%s", what, c->out_path,
				     si.si_code == CLD_EXITED ? "exit status" : "signal", si.si_status, line);
	}
	(void)status;
	return KVB_OK;
}

void kvb_probe_cmd_release(struct kvb_probe_cmd *c)
{
	if (c->running)
		kvb_spawn_stop(&c->proc, SIGKILL, 1000);
	free(c->out_path);
	free(c->err_path);
	memset(c, 0, sizeof(*c));
}
