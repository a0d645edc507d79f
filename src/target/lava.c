/*
 * Implements the lava target (docs/design.md#pools-and-lava): a (variant, round) becomes one LAVA
 * job. The engine runs the unit once with this target recording its commands;
 * run() writes them into the job definition's inline test shell (between the
 * markers of lava_markers.h), submits the job through LAVA's REST API, follows
 * its log while it runs until every command's output is in, and exec() then
 * replays it, so the unit's workloads and parsers are those of a live board.
 *
 * The deploy and boot actions come from the platform's lava: block, one
 * template per device type (lava_def.h); kvbench adds the test action, the
 * job's timeouts (the job's larger than its actions'), priority and
 * visibility. While the job still runs, the test shell waits for kvbench's
 * verdict on each job of the unit (report(), finish()) and files it into LAVA
 * with `lava-test-case NAME --result pass|fail --measurement V --units U`, so
 * LAVA's own results pages (and KernelCI reading them) show what kvbench
 * measured; a board that cannot reach kvbench (connection.report_host unset)
 * files its commands' exit statuses instead.
 *
 * No orphans: the job id goes to the engine (u->submitted) the moment LAVA
 * gives it; --resume hands it back and run() reattaches to it, or cancels it
 * and submits again, saying which; Ctrl-C, a failure of kvbench's own, or
 * closing the target with a job in flight cancels it, and the file server this
 * target joined is left only after its job is over.
 *
 * Devices: with connection.device (one board of a pool per LAVA device) the job
 * asks for that device through a tag only it carries (device_tag, default its
 * hostname), so the pool spreads a variant's rounds over the devices and sends
 * the retry of an Infrastructure failure to another device; without it LAVA
 * picks the device and an Infrastructure failure is submitted again
 * (infra_retries) wherever LAVA puts it.
 */
#include "target/lava_internal.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const struct kvb_keydef lava_keys[] = {
	{ "url", KVB_T_STR, NULL, NULL, KVB_KEY_REQUIRED, "LAVA server root, e.g. https://lava.example.org/" },
	{ "token_env", KVB_T_STR, NULL, NULL, KVB_KEY_REQUIRED,
	  "environment variable holding the API token (the token itself is never written anywhere)" },
	{ "user", KVB_T_STR, NULL, NULL, 0, "LAVA user the token belongs to (informational)" },
	{ "device_type", KVB_T_STR, NULL, NULL, KVB_KEY_REQUIRED,
	  "LAVA device type the jobs ask for (its deploy/boot template: the platform's lava.device_types)" },
	{ "device", KVB_T_STR, NULL, NULL, 0,
	  "one LAVA device (hostname) for this board of a pool: jobs ask for it by a tag only it carries, so a "
	  "variant's rounds spread over the devices and an infrastructure retry goes to another one" },
	{ "device_tag", KVB_T_STR, NULL, NULL, 0, "the tag only `device` carries (default: its hostname)" },
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
	{ "report_host", KVB_T_STR, NULL, NULL, 0,
	  "name or address the device under test reaches this host by: its test shell fetches kvbench's results "
	  "there and files them into LAVA (lava-test-case with measurements); unset: it files exit statuses" },
	{ "prompt", KVB_T_STR, "kvb-lava# ", NULL, 0, "shell prompt on the device's console" },
	{ "kernel_cmdline", KVB_T_STR, "console=ttyS0,115200 root=/dev/vda rw", NULL, 0,
	  "kernel command line before the variant's cmdline (template variable ${cmdline})" },
	{ "poll_s", KVB_T_INT, "2", NULL, KVB_KEY_POSITIVE, "how often a job's state and log are asked, s" },
	{ "infra_retries", KVB_T_INT, "2", NULL, KVB_KEY_NONNEG,
	  "resubmissions of a job that ends Incomplete with an Infrastructure error (without `device`)" },
	{ "job_timeout_min", KVB_T_INT, NULL, NULL, KVB_KEY_POSITIVE,
	  "LAVA job timeout, minutes (default: deploy + boot + test timeouts + the results wait + 5; it must exceed their sum)" },
	{ "boot_timeout_min", KVB_T_INT, "5", NULL, KVB_KEY_POSITIVE, "LAVA boot action timeout, minutes" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

static void cmds_clear(struct lava_state *st)
{
	for (size_t i = 0; i < st->n; i++) {
		free(st->v[i].key);
		free(st->v[i].label);
		free(st->v[i].argv_sh);
		free(st->v[i].out);
		free(st->v[i].err);
		free(st->v[i].bad);
	}
	free(st->v);
	st->v = NULL;
	st->n = st->cursor = 0;
	st->ended[0] = '\0';
}

/* Forgets what a run of the commands gave (a new submission starts afresh). */
void kvb_lava_outputs_clear(struct lava_state *st)
{
	for (size_t i = 0; i < st->n; i++) {
		free(st->v[i].out);
		free(st->v[i].err);
		free(st->v[i].bad);
		st->v[i].out = st->v[i].err = st->v[i].bad = NULL;
		st->v[i].done = 0;
		st->v[i].rc = 0;
		st->v[i].repaired = 0;
		st->v[i].begin_ns = st->v[i].end_ns = 0;
	}
	st->ended[0] = '\0';
}

void kvb_lava_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The job's files and results are no longer served (its downloads are over). */
void kvb_lava_withdraw_all(struct lava_state *st)
{
	for (size_t i = 0; i < st->noffered; i++) {
		unsigned n = kvb_lava_serve_withdraw(st->offered[i]);
		kvb_debug("LAVA: %s was downloaded %u time(s)", st->offered[i], n);
		free(st->offered[i]);
	}
	st->noffered = 0;
	if (st->results_url)
		kvb_lava_serve_withdraw(st->results_url);
	free(st->results_url);
	st->results_url = NULL;
}

/* Waits (at most wait_s) for job id to be Finished. */
void kvb_lava_wait_finished(struct lava_state *st, int64_t id, long wait_s)
{
	long poll_ms = (long)kvb_get_int(st->conn, "poll_s", 2) * 1000;
	uint64_t t0 = kvb_mono_ns();
	struct kvb_error e2;
	while (kvb_mono_ns() - t0 < (uint64_t)wait_s * 1000000000ull) {
		if (!kvb_lava_job_get(&st->api, id, &st->j, &e2) && !strcmp(st->j.state, "Finished"))
			return;
		kvb_lava_sleep_ms(poll_ms < 1000 ? poll_ms : 1000);
	}
}

void kvb_lava_cancel_job(struct lava_state *st, int64_t id)
{
	struct kvb_error e2;
	if (st->cancelled)
		return;
	kvb_warn("cancelling LAVA job %lld", (long long)id);
	if (kvb_lava_job_cancel(&st->api, id, &e2))
		kvb_warn("%s", e2.msg);
	st->cancelled = 1;
}

static void lava_close(struct kvb_target *t)
{
	struct lava_state *st = t->priv;
	if (!st)
		return;
	if (st->in_flight && st->job_id > 0) {
		/* kvbench gives up this target with its job still running (a failure of its own): no orphan */
		kvb_lava_cancel_job(st, st->job_id);
		kvb_lava_wait_finished(st, st->job_id, CLOSE_WAIT_S);
		st->in_flight = 0;
	}
	kvb_lava_withdraw_all(st);
	kvb_buf_release(&st->results);
	kvb_lava_reader_release(&st->rd);
	cmds_clear(st);
	if (st->serving)
		kvb_lava_serve_stop();
	if (st->token) {
		memset(st->token, 0, strlen(st->token));
		free(st->token);
	}
	free(st->boot_image);
	free(st->key);
	free(st);
	t->priv = NULL;
}

/* With connection.device: that device exists, is of our device type, and is the only one with its tag. */
static int check_device(struct lava_state *st, struct kvb_error *err)
{
	const char *dev = kvb_get_str(st->conn, "device", NULL), *tag = kvb_get_str(st->conn, "device_tag", dev);
	const char *dt = kvb_get_str(st->conn, "device_type", "");
	struct kvb_lava_device d;
	char first[128];
	size_t count;
	int rc;
	if (!dev) {
		/* LAVA picks the device: a type none of whose devices takes jobs would leave them queued
		 * until their timeout (kernelci-pipeline #1403) */
		size_t total, usable;
		struct kvb_error e2;
		if (!kvb_lava_devices_of_type(&st->api, dt, &total, &usable, &e2) && total && !usable)
			kvb_warn("LAVA %s: none of the %zu device(s) of type %s takes jobs now (health Bad, Maintenance or "
				 "Retired): the jobs wait in the queue",
				 st->api.url, total, dt);
		return KVB_OK;
	}
	if ((rc = kvb_lava_device_get(&st->api, dev, &d, err)))
		return rc;
	if (strcmp(d.device_type, dt))
		return kvb_error_set(err, KVB_EINPUT, "%s: LAVA device %s is a %s, not a %s (connection.device_type)",
				     st->plat->file, dev, d.device_type, dt);
	if ((rc = kvb_lava_devices_tagged(&st->api, tag, &count, first, sizeof(first), err)))
		return rc;
	if (count != 1 || strcmp(first, dev))
		return kvb_error_set(err, KVB_EINPUT,
				     "%s: LAVA device %s: tag '%s' is carried by %zu device(s)%s%s: a job cannot ask for %s "
				     "alone (give it a tag of its own, connection.device_tag)",
				     st->plat->file, dev, tag, count, count ? ", e.g. " : "", count ? first : "", dev);
	if (!strcmp(d.health, "Retired") || !strcmp(d.health, "Maintenance"))
		kvb_warn("LAVA device %s is %s: its jobs wait until it is back", dev, d.health);
	return KVB_OK;
}

static int lava_open(struct kvb_target *t, struct kvb_error *err)
{
	const cJSON *c = t->plat->conn;
	const char *env = kvb_get_str(c, "token_env", NULL), *tok = env ? getenv(env) : NULL;
	struct lava_state *st;
	long status;
	char *resp;
	int rc;
	st = kvb_xcalloc(1, sizeof(*st));
	st->conn = c;
	st->plat = t->plat;
	st->lava = cJSON_GetObjectItemCaseSensitive(t->plat->doc.root, "lava");
	st->offline = t->offline;
	st->api.url = kvb_get_str(c, "url", "");
	st->api.timeout_s = 60;
	t->priv = st;
	if (st->offline)
		return KVB_OK; /* --dry-run: definitions only */
	if (!tok || !*tok) {
		int line, col;
		kvb_doc_loc(&t->plat->doc, "connection.token_env", &line, &col);
		lava_close(t);
		return kvb_error_set(err, KVB_EINPUT, "%s:%d:%d: connection.token_env: environment variable %s is not set "
						      "(it holds the LAVA API token)",
				     t->plat->file, line, col, env ? env : "?");
	}
	st->token = kvb_xstrdup(tok);
	st->api.token = st->token;
	/* one job listed proves both the server and the token before any job (LAVA answers 403 to a bad token) */
	rc = kvb_lava_http(&st->api, "GET", "api/v0.2/jobs/?limit=1", NULL, &status, &resp, err);
	if (!rc && (status < 200 || status >= 300)) {
		char *why = kvb_lava_api_reason(status, resp);
		rc = kvb_error_set(err, KVB_ETARGET, "LAVA %s: %s (token from $%s)", st->api.url, why, env);
		free(why);
	}
	free(resp);
	if (!rc)
		rc = check_device(st, err);
	if (rc)
		lava_close(t);
	return rc;
}

/* Joins kvbench's file server, preferring port (a resumed job's, 0: the platform's). */
int kvb_lava_ensure_server(struct lava_state *st, long port, struct kvb_error *err)
{
	const char *addr = kvb_get_str(st->conn, "serve_address", "127.0.0.1"), *host = kvb_get_str(st->conn, "serve_host", NULL);
	long conf = (long)kvb_get_int(st->conn, "serve_port", 0);
	int rc;
	if (st->serving)
		return KVB_OK;
	if (port && !conf && !kvb_lava_serve_start(addr, port, host, err)) {
		st->serving = 1;
		return KVB_OK;
	}
	if ((rc = kvb_lava_serve_start(addr, conf, host, err))) {
		if (rc == KVB_EINPUT)
			kvb_error_prefix(err, "%s: connection", st->plat->file);
		return rc;
	}
	st->serving = 1;
	return KVB_OK;
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

/* The LAVA test case name of a mark: "job 12 0013-hackbench" -> "0013-hackbench"; [A-Za-z0-9._-] only. */
char *kvb_lava_label_of(const char *key)
{
	const char *p = key;
	char *s;
	if (!strncmp(key, "job ", 4) && (p = strchr(key + 4, ' ')))
		p++;
	else
		p = key;
	s = kvb_xstrdup(*p ? p : "kvbench");
	for (char *q = s; *q; q++)
		if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || strchr("._-", *q)))
			*q = '_';
	return s;
}

static int lava_exec(struct kvb_target *t, const char *const *argv, uint64_t timeout_ms, struct kvb_exec_result *r,
		     struct kvb_error *err)
{
	struct lava_state *st = t->priv;
	struct kvb_buf sh = KVB_BUF_INIT;
	struct lava_cmd *c;
	int rc = KVB_OK;
	kvb_shell_join(&sh, argv);
	if (st->recording) {
		st->v = kvb_xrealloc(st->v, (st->n + 1) * sizeof(*st->v));
		c = &st->v[st->n++];
		memset(c, 0, sizeof(*c));
		c->timeout_ms = timeout_ms;
		c->key = kvb_xstrdup(st->key ? st->key : "");
		c->label = kvb_lava_label_of(c->key);
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
		/* a retry of the job replays its commands again: the same answers, the same verdict */
		for (st->cursor = 0; st->cursor < st->n; st->cursor++)
			if (!strcmp(st->v[st->cursor].key, st->key ? st->key : "") && !strcmp(st->v[st->cursor].argv_sh, sh.data))
				break;
		c = st->cursor < st->n ? &st->v[st->cursor] : NULL;
	}
	if (!c || strcmp(c->argv_sh, sh.data)) {
		rc = kvb_error_set(err, KVB_EINPUT, "LAVA: `%.300s` was not in the LAVA job (the workload ran other "
						     "commands than when the job was written)",
				   sh.data);
	} else if (!c->done) {
		rc = kvb_error_set(err, KVB_EINPUT, "LAVA: `%.300s` has no output in the LAVA job's log%s%s", sh.data,
				   st->ended[0] ? ": " : "", st->ended);
		st->cursor++;
	} else if (c->bad) {
		/* never read as an exit status or an output: the console did not carry it intact */
		rc = kvb_error_set(err, KVB_ETARGET, "LAVA: `%.200s`: %s", sh.data, c->bad);
		st->cursor++;
	} else {
		kvb_buf_adds(&r->out, c->out);
		kvb_buf_adds(&r->err, c->err);
		r->exit_code = c->rc;
		if (c->repaired)
			kvb_warn("LAVA: `%.200s`: %u kernel message(s) printed into its output on the console were taken out "
				 "(the output matches the board's sha256)",
				 sh.data, c->repaired);
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

static const struct kvb_target_batch_ops lava_batch = {
	.record = lava_record,
	.mark = lava_mark,
	.run = kvb_lava_run,
	.describe = kvb_lava_describe,
	.report = kvb_lava_report,
	.span = kvb_lava_span,
	.finish = kvb_lava_finish,
};

const struct kvb_target_ops kvb_target_lava = {
	.name = "lava",
	.summary = "a LAVA lab: each (variant, round) is a LAVA job (REST API v0.2, token from the environment)",
	.conn_keys = lava_keys,
	.block = "lava",
	.block_keys = kvb_lava_block_keys,
	.check = kvb_lava_check,
	.open = lava_open,
	.exec = lava_exec,
	.push = lava_push,
	.pull = lava_pull,
	.reboot = lava_reboot,
	.wait_ready = lava_wait_ready,
	.close = lava_close,
	.batch = &lava_batch,
};
