/*
 * Implements the dmesg instrument: the kernel log printed during the job,
 * kept as an artifact (kind "dmesg"), and `dmesg_warnings` = the number of
 * its lines that report a kernel problem (WARNING, BUG, Oops, "cut here",
 * call traces' first line). The log is read at start and at stop; the new
 * lines are those after the last line seen at start (all of them if the ring
 * buffer wrapped past it).
 */
#include "instrument/instrument.h"
#include "instrument/probe.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct kvb_keydef keys[] = {
	{ "command", KVB_T_STRLIST, "dmesg", NULL, 0, "command printing the kernel log on the target" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

struct priv {
	char *last_line;  /* last line at start, NULL if the log was empty */
	char *after;      /* log at stop */
};

static int read_log(struct kvb_instr_ctx *c, char **out, struct kvb_error *err)
{
	struct kvb_strv a = KVB_STRV_INIT;
	struct kvb_exec_result r;
	int rc;
	if (kvb_conf_argv(cJSON_GetObjectItemCaseSensitive(c->conf, "command"), &a))
		kvb_strv_push(&a, "dmesg");
	kvb_exec_result_init(&r);
	rc = kvb_target_run_ok(c->target, kvb_strv_argv(&a), 30000, &r, err);
	*out = rc ? NULL : kvb_buf_detach(&r.out);
	kvb_exec_result_release(&r);
	kvb_strv_release(&a);
	return rc ? kvb_error_prefix(err, "instrument '%s'", c->name) : KVB_OK;
}

static int dmesg_setup(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	(void)err;
	c->priv = kvb_xcalloc(1, sizeof(struct priv));
	return KVB_OK;
}

/* Start of the last non-empty line of s, or NULL. */
static const char *last_line(const char *s)
{
	size_t n = strlen(s);
	while (n && s[n - 1] == '\n')
		n--;
	if (!n)
		return NULL;
	while (n && s[n - 1] != '\n')
		n--;
	return s + n;
}

static int dmesg_start(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	char *log = NULL;
	const char *l;
	int rc = read_log(c, &log, err);
	if (rc)
		return rc;
	l = last_line(log);
	p->last_line = l ? kvb_xstrndup(l, strcspn(l, "\n")) : NULL;
	free(log);
	return KVB_OK;
}

static int dmesg_stop(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	return read_log(c, &p->after, err);
}

/* Lines a kernel developer looks for first. */
static int is_warning(const char *l, size_t n)
{
	static const char *const pat[] = { "WARNING", "BUG", "Oops", "cut here", "Call Trace", "general protection",
					   "Kernel panic", NULL };
	for (int i = 0; pat[i]; i++)
		if (memmem(l, n, pat[i], strlen(pat[i])))
			return 1;
	return 0;
}

static int dmesg_collect(struct kvb_instr_ctx *c, struct kvb_error *err)
{
	struct priv *p = c->priv;
	const char *from = p->after;
	char *path = kvb_xasprintf("%s/%s.log", c->artifact_dir, c->name);
	FILE *f;
	int warnings = 0, rc = KVB_OK;

	if (p->last_line) {
		/* Search from the end: the job's lines follow the last one seen at start. */
		size_t k = strlen(p->last_line);
		const char *hit = NULL;
		for (const char *q = p->after; (q = strstr(q, p->last_line)); q++)
			if ((q == p->after || q[-1] == '\n') && (q[k] == '\n' || q[k] == '\0'))
				hit = q;
		if (hit)
			from = hit + k + (hit[k] == '\n');
	}
	for (const char *l = from; *l;) {
		size_t n = strcspn(l, "\n");
		warnings += is_warning(l, n);
		l += n + (l[n] == '\n');
	}
	f = kvb_fopen_nofollow(path);
	{
		int bad = !f;
		if (f) {
			bad = fputs(from, f) < 0;
			bad |= fclose(f) != 0;
		}
		if (bad)
			f = NULL;
	}
	if (!f) {
		rc = kvb_error_set(err, KVB_ETARGET, "instrument '%s': cannot write '%s'", c->name, path);
	} else {
		kvb_metrics_artifact(c->out, "dmesg", path);
		kvb_metrics_add(c->out, "dmesg_warnings", warnings, "", 1);
	}
	free(path);
	return rc;
}

static void dmesg_teardown(struct kvb_instr_ctx *c)
{
	struct priv *p = c->priv;
	if (!p)
		return;
	free(p->last_line);
	free(p->after);
	free(p);
	c->priv = NULL;
}

/* `platform check` (instrument.h kvb_instr_probe): its command on the board. */
static void dmesg_probe(struct kvb_instr_probe *p)
{
	struct kvb_strv a = KVB_STRV_INIT;
	if (kvb_conf_argv(cJSON_GetObjectItemCaseSensitive(p->conf, "command"), &a))
		kvb_strv_push(&a, "dmesg");
	kvb_instr_probe_board_program(p, a.v[0], "command");
	kvb_strv_release(&a);
}

const struct kvb_instrument_ops kvb_instrument_dmesg = {
	.name = "dmesg",
	.summary = "kernel log during the job as an artifact; dmesg_warnings counts WARNING/BUG/Oops lines",
	.conf_keys = keys,
	.setup = dmesg_setup,
	.start = dmesg_start,
	.stop = dmesg_stop,
	.collect = dmesg_collect,
	.teardown = dmesg_teardown,
	.probe = dmesg_probe,
};
