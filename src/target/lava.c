/*
 * Implements the lava target (DESIGN.md §13): a (variant, round) becomes one LAVA
 * job. The engine runs the unit once with this target recording its commands;
 * run() writes them into the job definition's inline test shell between markers
 * (lava_api.h), submits the job through LAVA's REST API, follows it, reads the
 * commands' output back from the job log, and exec() then replays it.
 *
 * The definition follows LAVA 2023.01's qemu examples (lava-server-doc,
 * examples/test-jobs/inline-test-definition-example.yaml and
 * qemu-kernel-standard-sid.yaml): deploy to tmpfs with kernel/initrd/rootfs
 * images (the initrd carries LAVA's overlay: `overlays: {lava: true}` on a
 * cpio.newc image, no guestfs), boot method qemu with the shell prompt, a test
 * action with one inline definition.
 */
#include "target/target.h"
#include "config/agenda.h"
#include "config/keys.h"
#include "config/platform.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/quote.h"
#include "core/util.h"
#include "target/lava_api.h"
#include "target/lava_serve.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const struct kvb_keydef lava_keys[] = {
	{ "url", KVB_T_STR, NULL, NULL, KVB_KEY_REQUIRED, "LAVA server root, e.g. https://lava.example.org/" },
	{ "token_env", KVB_T_STR, NULL, NULL, KVB_KEY_REQUIRED,
	  "environment variable holding the API token (the token itself is never written anywhere)" },
	{ "user", KVB_T_STR, NULL, NULL, 0, "LAVA user the token belongs to (informational)" },
	{ "device_type", KVB_T_STR, NULL, NULL, KVB_KEY_REQUIRED, "LAVA device type the jobs ask for" },
	{ "tags", KVB_T_STRLIST, NULL, NULL, 0, "LAVA device tags the jobs ask for" },
	{ "context", KVB_T_MAP, NULL, NULL, 0, "job context (device-type template variables, e.g. {arch: amd64})" },
	{ "parallel", KVB_T_INT, "1", NULL, KVB_KEY_POSITIVE, "LAVA jobs in flight at once (one per device you may use)" },
	{ "rootfs", KVB_T_STR, NULL, NULL, 0,
	  "root filesystem image: a URL as given (file:// for a path on the LAVA worker), or a path on this host, "
	  "served like the variant's files" },
	{ "serve_address", KVB_T_STR, "127.0.0.1", NULL, 0,
	  "numeric address kvbench's HTTP server binds to; the LAVA worker downloads the variant's files from it" },
	{ "serve_port", KVB_T_INT, "0", NULL, KVB_KEY_NONNEG, "port of that server (0: any free port)" },
	{ "serve_host", KVB_T_STR, NULL, NULL, 0,
	  "name or address the LAVA worker reaches this host by, in the files' URLs (default: serve_address)" },
	{ "prompt", KVB_T_STR, "kvb-lava# ", NULL, 0, "shell prompt on the device's console" },
	{ "kernel_cmdline", KVB_T_STR, "console=ttyS0,115200 root=/dev/vda rw", NULL, 0,
	  "kernel command line before the variant's cmdline" },
	{ "poll_s", KVB_T_INT, "2", NULL, KVB_KEY_POSITIVE, "how often a job's state is asked, s" },
	{ "infra_retries", KVB_T_INT, "2", NULL, KVB_KEY_NONNEG,
	  "resubmissions of a job that ends Incomplete with an Infrastructure error" },
	{ "job_timeout_min", KVB_T_INT, "60", NULL, KVB_KEY_POSITIVE, "LAVA job timeout, minutes" },
	{ "boot_timeout_min", KVB_T_INT, "5", NULL, KVB_KEY_POSITIVE, "LAVA boot action timeout, minutes" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

struct lava_cmd {
	char *key;     /* mark it was recorded under */
	char *argv_sh; /* the command, shell-quoted */
	char *out, *err;
	int rc, done;
};

struct lava_state {
	struct kvb_lava_api api;
	char *token;
	const cJSON *conn;
	int recording;
	char *key;
	struct lava_cmd *v;
	size_t n, cursor;
	char ended[768]; /* why the job ended before some commands ran, or "" */
	int serving;     /* joined the HTTP server (lava_serve.h) */
	char *offered[4]; /* URLs of this job's files on it, withdrawn when the job ends */
	size_t noffered;
};

static void cmds_clear(struct lava_state *st)
{
	for (size_t i = 0; i < st->n; i++) {
		free(st->v[i].key);
		free(st->v[i].argv_sh);
		free(st->v[i].out);
		free(st->v[i].err);
	}
	free(st->v);
	st->v = NULL;
	st->n = st->cursor = 0;
	st->ended[0] = '\0';
}

static void lava_close(struct kvb_target *t)
{
	struct lava_state *st = t->priv;
	if (!st)
		return;
	cmds_clear(st);
	if (st->serving)
		kvb_lava_serve_stop();
	if (st->token) {
		memset(st->token, 0, strlen(st->token));
		free(st->token);
	}
	free(st->key);
	free(st);
	t->priv = NULL;
}

static int lava_open(struct kvb_target *t, struct kvb_error *err)
{
	const cJSON *c = t->plat->conn;
	const char *env = kvb_get_str(c, "token_env", NULL), *tok = env ? getenv(env) : NULL;
	struct lava_state *st;
	long status;
	char *resp;
	int rc;
	if (!tok || !*tok)
		return kvb_error_set(err, KVB_EINPUT, "%s: connection.token_env: environment variable %s is not set (it "
						      "holds the LAVA API token)",
				     t->plat->file, env ? env : "?");
	st = kvb_xcalloc(1, sizeof(*st));
	st->conn = c;
	st->token = kvb_xstrdup(tok);
	st->api.url = kvb_get_str(c, "url", "");
	st->api.token = st->token;
	st->api.timeout_s = 60;
	t->priv = st;
	/* one job listed proves both the server and the token before any job (LAVA answers 403 to a bad token) */
	rc = kvb_lava_http(&st->api, "GET", "api/v0.2/jobs/?limit=1", NULL, &status, &resp, err);
	if (!rc && (status < 200 || status >= 300)) {
		char *why = kvb_lava_api_reason(status, resp);
		rc = kvb_error_set(err, KVB_ETARGET, "LAVA %s: %s (token from $%s)", st->api.url, why, env);
		free(why);
	}
	free(resp);
	if (!rc && !(rc = kvb_lava_serve_start(kvb_get_str(c, "serve_address", "127.0.0.1"),
					       (long)kvb_get_int(c, "serve_port", 0), kvb_get_str(c, "serve_host", NULL),
					       err)))
		st->serving = 1;
	else if (rc == KVB_EINPUT)
		kvb_error_prefix(err, "%s: connection", t->plat->file);
	if (rc)
		lava_close(t);
	return rc;
}

static void lava_record(struct kvb_target *t)
{
	struct lava_state *st = t->priv;
	cmds_clear(st);
	st->recording = 1;
}

static void lava_mark(struct kvb_target *t, const char *key)
{
	struct lava_state *st = t->priv;
	free(st->key);
	st->key = kvb_xstrdup(key);
	if (st->recording)
		return;
	for (st->cursor = 0; st->cursor < st->n; st->cursor++)
		if (!strcmp(st->v[st->cursor].key, key))
			break;
}

static int lava_exec(struct kvb_target *t, const char *const *argv, uint64_t timeout_ms, struct kvb_exec_result *r,
		     struct kvb_error *err)
{
	struct lava_state *st = t->priv;
	struct kvb_buf sh = KVB_BUF_INIT;
	struct lava_cmd *c;
	int rc = KVB_OK;
	(void)timeout_ms;
	kvb_shell_join(&sh, argv);
	if (st->recording) {
		st->v = kvb_xrealloc(st->v, (st->n + 1) * sizeof(*st->v));
		c = &st->v[st->n++];
		memset(c, 0, sizeof(*c));
		c->key = kvb_xstrdup(st->key ? st->key : "");
		c->argv_sh = kvb_buf_detach(&sh);
		return KVB_OK;
	}
	if (argv[0] && !strcmp(argv[0], "true") && !argv[1]) {
		/* the engine's "is the board there" probe: the job's output is */
		kvb_buf_release(&sh);
		return KVB_OK;
	}
	c = st->cursor < st->n && !strcmp(st->v[st->cursor].key, st->key ? st->key : "") ? &st->v[st->cursor] : NULL;
	if (!c || strcmp(c->argv_sh, sh.data)) {
		rc = kvb_error_set(err, KVB_EINPUT, "LAVA: `%.300s` was not in the LAVA job (the workload ran other "
						     "commands than when the job was written)",
				   sh.data);
	} else if (!c->done) {
		rc = kvb_error_set(err, KVB_EINPUT, "LAVA: `%.300s` has no output in the LAVA job's log%s%s", sh.data,
				   st->ended[0] ? ": " : "", st->ended);
		st->cursor++;
	} else {
		kvb_buf_adds(&r->out, c->out);
		kvb_buf_adds(&r->err, c->err);
		r->exit_code = c->rc;
		st->cursor++;
	}
	kvb_buf_release(&sh);
	return rc;
}

static int lava_push(struct kvb_target *t, const char *local, const char *remote, struct kvb_error *err)
{
	struct lava_state *st = t->priv;
	if (st->recording)
		return KVB_OK;
	return kvb_error_set(err, KVB_EINPUT, "LAVA: a LAVA job takes no files from kvbench (push %s to %s)", local, remote);
}

static int lava_pull(struct kvb_target *t, const char *remote, const char *local, struct kvb_error *err)
{
	struct lava_state *st = t->priv;
	if (st->recording)
		return KVB_OK;
	return kvb_error_set(err, KVB_EINPUT, "LAVA: files do not come back from a LAVA job (pull %s to %s)", remote, local);
}

static int lava_reboot(struct kvb_target *t, const char *mode, struct kvb_error *err)
{
	(void)t;
	return kvb_error_set(err, KVB_EINPUT, "LAVA: a LAVA device reboots only through a LAVA job (reboot %s)",
			     mode ? mode : "");
}

static int lava_wait_ready(struct kvb_target *t, uint64_t timeout_ms, struct kvb_error *err)
{
	(void)t;
	(void)timeout_ms;
	(void)err;
	return KVB_OK;
}

/*
 * A file as LAVA downloads it (*url owned, NULL when there is no file): a URL as
 * given (http, https; file:// too when file_ok: a path on the LAVA worker), else
 * the local copy offered on kvbench's HTTP server until the job ends.
 */
static int image_url(struct lava_state *st, const char *given, const char *local, int file_ok, char **url,
		     struct kvb_error *err)
{
	int rc;
	*url = NULL;
	if (given && (!strncmp(given, "http://", 7) || !strncmp(given, "https://", 8) ||
		      (file_ok && !strncmp(given, "file://", 7)))) {
		*url = kvb_xstrdup(given);
		return KVB_OK;
	}
	if (!local)
		return KVB_OK;
	if (st->noffered == sizeof(st->offered) / sizeof(st->offered[0]))
		return kvb_error_set(err, KVB_EINPUT, "LAVA: too many files for one job (%s)", local);
	if ((rc = kvb_lava_serve_offer(local, url, err)))
		return rc;
	st->offered[st->noffered++] = kvb_xstrdup(*url);
	return KVB_OK;
}

/* This job's files are no longer served (its downloads are over). */
static void withdraw_all(struct lava_state *st)
{
	for (size_t i = 0; i < st->noffered; i++) {
		unsigned n = kvb_lava_serve_withdraw(st->offered[i]);
		kvb_debug("LAVA: %s was downloaded %u time(s)", st->offered[i], n);
		free(st->offered[i]);
	}
	st->noffered = 0;
}

static cJSON *minutes(long m)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "minutes", (double)m);
	return o;
}

/* The job definition (JSON, which LAVA's YAML loader reads) for the recorded commands. Owned; NULL + err. */
static char *definition(struct lava_state *st, const struct kvb_batch_unit *u, struct kvb_error *err)
{
	const cJSON *c = st->conn, *v;
	const struct kvb_variant *var = u->variant;
	cJSON *job = NULL, *to, *actions = NULL, *deploy, *images, *img, *boot, *test, *defs, *def, *repo, *meta, *run,
	      *steps, *a;
	char *kurl = NULL, *iurl = NULL, *rurl = NULL;
	const char *rootfs = kvb_get_str(c, "rootfs", NULL);
	struct kvb_buf arg = KVB_BUF_INIT;
	char *s = NULL;

	if (image_url(st, var->kernel, var->local[KVB_VF_KERNEL], 0, &kurl, err) ||
	    image_url(st, var->initrd, var->local[KVB_VF_INITRD], 0, &iurl, err) ||
	    image_url(st, rootfs, rootfs, 1, &rurl, err))
		goto out;
	if (!kurl) {
		kvb_error_set(err, KVB_EINPUT, "variant '%s': a LAVA job needs a kernel", var->name);
		goto out;
	}
	job = cJSON_CreateObject();
	to = cJSON_CreateObject();
	actions = cJSON_CreateArray();
	deploy = cJSON_CreateObject();
	images = cJSON_CreateObject();
	cJSON_AddStringToObject(job, "device_type", kvb_get_str(c, "device_type", ""));
	cJSON_AddStringToObject(job, "job_name", u->name);
	cJSON_AddItemToObject(to, "job", minutes(kvb_get_int(c, "job_timeout_min", 60)));
	cJSON_AddItemToObject(to, "action", minutes(kvb_get_int(c, "job_timeout_min", 60)));
	cJSON_AddItemToObject(to, "connection", minutes(2));
	cJSON_AddItemToObject(job, "timeouts", to);
	cJSON_AddStringToObject(job, "priority", "medium");
	cJSON_AddStringToObject(job, "visibility", "public");
	if ((v = cJSON_GetObjectItemCaseSensitive(c, "tags"))) {
		cJSON *tags = cJSON_CreateArray();
		if (cJSON_IsArray(v)) {
			const cJSON *tg;
			cJSON_ArrayForEach(tg, v)
			{
				char *ts = kvb_node_str(tg);
				cJSON_AddItemToArray(tags, cJSON_CreateString(ts ? ts : ""));
				free(ts);
			}
		} else {
			char *ts = kvb_node_str(v);
			cJSON_AddItemToArray(tags, cJSON_CreateString(ts ? ts : ""));
			free(ts);
		}
		cJSON_AddItemToObject(job, "tags", tags);
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(c, "context")))
		cJSON_AddItemToObject(job, "context", cJSON_Duplicate(v, 1));

	/* deploy: kernel with its command line, initrd carrying LAVA's overlay, root filesystem */
	kvb_buf_addf(&arg, "-kernel {kernel} -append \"%s%s%s\"", kvb_get_str(c, "kernel_cmdline", ""),
		     var->cmdline ? " " : "", var->cmdline ? var->cmdline : "");
	img = cJSON_CreateObject();
	cJSON_AddStringToObject(img, "image_arg", arg.data);
	cJSON_AddStringToObject(img, "url", kurl);
	cJSON_AddItemToObject(images, "kernel", img);
	if (iurl) {
		cJSON *ov = cJSON_CreateObject();
		size_t n = strlen(iurl);
		img = cJSON_CreateObject();
		cJSON_AddStringToObject(img, "image_arg", "-initrd {initrd}");
		cJSON_AddStringToObject(img, "url", iurl);
		cJSON_AddStringToObject(img, "format", "cpio.newc");
		if (n > 3 && !strcmp(iurl + n - 3, ".gz"))
			cJSON_AddStringToObject(img, "compression", "gz");
		cJSON_AddTrueToObject(ov, "lava");
		cJSON_AddItemToObject(img, "overlays", ov);
		cJSON_AddItemToObject(images, "initrd", img);
	}
	if (rurl) {
		img = cJSON_CreateObject();
		cJSON_AddStringToObject(img, "image_arg", "-drive format=raw,if=virtio,file={rootfs}");
		cJSON_AddStringToObject(img, "url", rurl);
		cJSON_AddItemToObject(images, "rootfs", img);
	}
	cJSON_AddStringToObject(deploy, "to", "tmpfs");
	cJSON_AddItemToObject(deploy, "timeout", minutes(10));
	cJSON_AddItemToObject(deploy, "images", images);
	a = cJSON_CreateObject();
	cJSON_AddItemToObject(a, "deploy", deploy);
	cJSON_AddItemToArray(actions, a);

	boot = cJSON_CreateObject();
	cJSON_AddStringToObject(boot, "method", "qemu");
	cJSON_AddStringToObject(boot, "media", "tmpfs");
	cJSON_AddItemToObject(boot, "timeout", minutes(kvb_get_int(c, "boot_timeout_min", 5)));
	{
		cJSON *pr = cJSON_CreateArray();
		cJSON_AddItemToArray(pr, cJSON_CreateString(kvb_get_str(c, "prompt", "kvb-lava# ")));
		cJSON_AddItemToObject(boot, "prompts", pr);
	}
	a = cJSON_CreateObject();
	cJSON_AddItemToObject(a, "boot", boot);
	cJSON_AddItemToArray(actions, a);

	/* test: every recorded command between markers; `&& ... || ...` keeps a failure from ending the script */
	steps = cJSON_CreateArray();
	for (size_t k = 0; k < st->n; k++) {
		struct kvb_buf step = KVB_BUF_INIT;
		kvb_buf_addf(&step,
			     "echo 'KVB-X %zu BEGIN'; %s >/tmp/kvb-o 2>/tmp/kvb-e && kvb_rc=0 || kvb_rc=$?; "
			     "sed 's/^/KVB-X %zu O /' /tmp/kvb-o; sed 's/^/KVB-X %zu E /' /tmp/kvb-e; "
			     "echo \"KVB-X %zu RC $kvb_rc\"; echo 'KVB-X %zu END'",
			     k, st->v[k].argv_sh, k, k, k, k);
		cJSON_AddItemToArray(steps, cJSON_CreateString(step.data));
		kvb_buf_release(&step);
	}
	run = cJSON_CreateObject();
	cJSON_AddItemToObject(run, "steps", steps);
	meta = cJSON_CreateObject();
	cJSON_AddStringToObject(meta, "format", "Lava-Test Test Definition 1.0");
	cJSON_AddStringToObject(meta, "name", "kvbench");
	cJSON_AddStringToObject(meta, "description", u->name);
	repo = cJSON_CreateObject();
	cJSON_AddItemToObject(repo, "metadata", meta);
	cJSON_AddItemToObject(repo, "run", run);
	def = cJSON_CreateObject();
	cJSON_AddItemToObject(def, "repository", repo);
	cJSON_AddStringToObject(def, "from", "inline");
	cJSON_AddStringToObject(def, "name", "kvbench");
	cJSON_AddStringToObject(def, "path", "inline/kvbench.yaml");
	defs = cJSON_CreateArray();
	cJSON_AddItemToArray(defs, def);
	test = cJSON_CreateObject();
	cJSON_AddItemToObject(test, "timeout", minutes(kvb_get_int(c, "job_timeout_min", 60)));
	cJSON_AddItemToObject(test, "definitions", defs);
	a = cJSON_CreateObject();
	cJSON_AddItemToObject(a, "test", test);
	cJSON_AddItemToArray(actions, a);
	cJSON_AddItemToObject(job, "actions", actions);
	actions = NULL;
	s = cJSON_Print(job);
out:
	cJSON_Delete(actions);
	cJSON_Delete(job);
	kvb_buf_release(&arg);
	free(kurl);
	free(iurl);
	free(rurl);
	return s;
}

static void on_command(void *arg, size_t k, int rc, const char *out, const char *err)
{
	struct lava_state *st = arg;
	if (k >= st->n)
		return;
	free(st->v[k].out);
	free(st->v[k].err);
	st->v[k].out = kvb_xstrdup(out);
	st->v[k].err = kvb_xstrdup(err);
	st->v[k].rc = rc;
	st->v[k].done = 1;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Polls of a submitted job that may fail in a row before kvbench gives it up. */
#define FOLLOW_MISSES 5

/* Waits for a job to finish; cancels it when u->stop is set. */
static int follow(struct lava_state *st, const struct kvb_batch_unit *u, int64_t id, struct kvb_lava_job *j,
		  struct kvb_error *err)
{
	long poll_ms = (long)kvb_get_int(st->conn, "poll_s", 2) * 1000;
	int cancelled = 0, misses = 0, rc;
	for (;;) {
		if ((rc = kvb_lava_job_get(&st->api, id, j, err))) {
			/* a busy server (LAVA's web service under load) can miss a poll: the job goes on regardless */
			if (++misses > FOLLOW_MISSES)
				return rc;
			kvb_warn("%s (asking again, %d of %d)", err->msg, misses, FOLLOW_MISSES);
			sleep_ms(poll_ms);
			continue;
		}
		misses = 0;
		if (!strcmp(j->state, "Finished"))
			return KVB_OK;
		if (u->stop && *u->stop && !cancelled) {
			struct kvb_error e2;
			kvb_warn("cancelling LAVA job %lld", (long long)id);
			if (kvb_lava_job_cancel(&st->api, id, &e2))
				kvb_warn("%s", e2.msg);
			cancelled = 1;
		}
		sleep_ms(cancelled ? 500 : poll_ms);
	}
}

static int lava_run(struct kvb_target *t, const struct kvb_batch_unit *u, struct kvb_batch_result *res,
		    struct kvb_error *err)
{
	struct lava_state *st = t->priv;
	int tries = (int)kvb_get_int(st->conn, "infra_retries", 2) + 1, rc = KVB_OK;
	char *def;

	memset(res, 0, sizeof(*res));
	st->recording = 0;
	if (!(def = definition(st, u, err))) {
		withdraw_all(st);
		res->final = 1;
		return err->code;
	}
	for (int attempt = 1; attempt <= tries; attempt++) {
		struct kvb_lava_job j;
		char type[64], msg[512], *log = NULL;
		enum kvb_lava_outcome outcome;
		cJSON *entries = NULL;
		int64_t id = 0;
		memset(&j, 0, sizeof(j));
		if ((rc = kvb_lava_submit(&st->api, def, &id, err))) {
			/* LAVA refused the definition (unknown device type ...): the same every time */
			res->final = 1;
			break;
		}
		res->job_id = id;
		snprintf(res->url, sizeof(res->url), "%sscheduler/job/%lld", st->api.url, (long long)id);
		kvb_info("LAVA job %lld: %s (%s)", (long long)id, u->name, res->url);
		if ((rc = follow(st, u, id, &j, err)))
			break;
		snprintf(res->device, sizeof(res->device), "%s", j.device);
		if (!strcmp(j.health, "Canceled") && kvb_lava_job_logs(&st->api, id, &log, err)) {
			/* cancelled before it ran: LAVA has no log for it (404) */
			rc = kvb_error_set(err, KVB_EJOBS, "LAVA job %lld was canceled before it ran", (long long)id);
			res->final = 1;
			break;
		}
		if (!log && (rc = kvb_lava_job_logs(&st->api, id, &log, err)))
			break;
		if (u->artifact_dir) {
			char *path = kvb_xasprintf("%s/lava-job-%lld.yaml", u->artifact_dir, (long long)id);
			FILE *f = kvb_fopen_nofollow(path);
			int bad = !f;
			if (f) {
				bad = fwrite(log, 1, strlen(log), f) != strlen(log);
				bad |= fclose(f) != 0;
			}
			if (bad)
				kvb_warn("cannot keep the LAVA log %s: %s", path, strerror(errno));
			else
				snprintf(res->log_path, sizeof(res->log_path), "%s", path);
			free(path);
		}
		rc = kvb_lava_log_parse(log, &entries, err);
		free(log);
		if (rc) {
			res->final = 1;
			break;
		}
		kvb_lava_log_commands(entries, on_command, st);
		kvb_lava_log_failure(entries, type, sizeof(type), msg, sizeof(msg));
		cJSON_Delete(entries);
		outcome = kvb_lava_outcome(j.health, type);
		if (outcome == KVB_LAVA_DONE)
			break;
		if (outcome == KVB_LAVA_CANCELED) {
			rc = kvb_error_set(err, KVB_EJOBS, "LAVA job %lld was canceled%s%s", (long long)id,
					   msg[0] ? ": " : "", msg);
			res->final = 1;
			break;
		}
		if (outcome == KVB_LAVA_RETRY && attempt < tries && !(u->stop && *u->stop)) {
			kvb_warn("LAVA job %lld Incomplete with an infrastructure error (%s): submitting again (%d of %d)",
				 (long long)id, msg, attempt + 1, tries);
			continue;
		}
		/* a job failure: what ran is kept (replayed), the rest fails with LAVA's reason */
		snprintf(st->ended, sizeof(st->ended), "LAVA job %lld ended %s (%s error: %s)%s", (long long)id, j.health,
			 type[0] ? type : "unknown", msg[0] ? msg : j.failure_comment,
			 outcome == KVB_LAVA_RETRY ? ", the last of its submissions (infra_retries)" : "");
		res->final = 1;
		break;
	}
	free(def);
	withdraw_all(st);
	if (!rc && st->ended[0]) {
		/* the boot itself never produced output: nothing to replay */
		int any = 0;
		for (size_t k = 0; k < st->n; k++)
			any |= st->v[k].done;
		if (!any)
			rc = kvb_error_set(err, KVB_EJOBS, "%s", st->ended);
	}
	return rc;
}

static const struct kvb_target_batch_ops lava_batch = {
	.record = lava_record,
	.mark = lava_mark,
	.run = lava_run,
};

const struct kvb_target_ops kvb_target_lava = {
	.name = "lava",
	.summary = "a LAVA lab: each (variant, round) is a LAVA job (REST API v0.2, token from the environment)",
	.conn_keys = lava_keys,
	.open = lava_open,
	.exec = lava_exec,
	.push = lava_push,
	.pull = lava_pull,
	.reboot = lava_reboot,
	.wait_ready = lava_wait_ready,
	.close = lava_close,
	.batch = &lava_batch,
};
