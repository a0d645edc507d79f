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
#include "target/target.h"
#include "config/agenda.h"
#include "config/keys.h"
#include "config/platform.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/quote.h"
#include "core/sha256.h"
#include "core/util.h"
#include "flash/flash.h"
#include "target/lava_api.h"
#include "target/lava_def.h"
#include "target/lava_markers.h"
#include "target/lava_serve.h"

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

/* A follow of a job may miss this many polls in a row (LAVA's web service under load) before kvbench gives up. */
#define FOLLOW_MISSES 5
/* How long closing a target waits for a job it cancelled to end, s. */
#define CLOSE_WAIT_S 120
#define MAX_OFFERS 8

struct lava_cmd {
	char *key;     /* mark it was recorded under */
	char *label;   /* LAVA test case name of its group */
	char *argv_sh; /* the command, shell-quoted */
	char *out, *err, *bad;
	int rc, done;
	unsigned repaired;
	int64_t begin_ns, end_ns;
	uint64_t timeout_ms; /* the command's own timeout, as the engine gave it */
};

struct lava_state {
	struct kvb_lava_api api;
	char *token;
	const struct kvb_platform *plat;
	const cJSON *conn, *lava;
	int offline, recording;
	char *key;
	struct lava_cmd *v;
	size_t n, cursor;
	char ended[768];   /* why the job ended before some commands ran, or "" */
	int serving;       /* joined the HTTP server (lava_serve.h) */
	/* the job of the unit */
	int64_t job_id;
	int in_flight;     /* submitted and not seen Finished */
	int cancelled;
	char nonce[KVB_LAVA_NONCE_LEN + 1], ftoken[33];
	char *offered[MAX_OFFERS]; /* URLs of its files on the server, withdrawn when it ends */
	size_t noffered;
	char *results_url; /* the results document its test shell fetches, or NULL */
	struct kvb_buf results;
	size_t log_lines;  /* lines of its log read */
	struct kvb_lava_reader rd;
	char vtype[64], vmsg[512]; /* its own verdict in its log (error_type, error_msg) */
	struct kvb_lava_job j;
	char *boot_image;  /* a boot image built for it (owned path), or NULL */
	char job_tag[128]; /* the device tag the job asks for: this board's, or a reattached job's */
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
static void outputs_clear(struct lava_state *st)
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

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The job's files and results are no longer served (its downloads are over). */
static void withdraw_all(struct lava_state *st)
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
static void wait_finished(struct lava_state *st, int64_t id, long wait_s)
{
	long poll_ms = (long)kvb_get_int(st->conn, "poll_s", 2) * 1000;
	uint64_t t0 = kvb_mono_ns();
	struct kvb_error e2;
	while (kvb_mono_ns() - t0 < (uint64_t)wait_s * 1000000000ull) {
		if (!kvb_lava_job_get(&st->api, id, &st->j, &e2) && !strcmp(st->j.state, "Finished"))
			return;
		sleep_ms(poll_ms < 1000 ? poll_ms : 1000);
	}
}

static void cancel_job(struct lava_state *st, int64_t id)
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
		cancel_job(st, st->job_id);
		wait_finished(st, st->job_id, CLOSE_WAIT_S);
		st->in_flight = 0;
	}
	withdraw_all(st);
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
		lava_close(t);
		return kvb_error_set(err, KVB_EINPUT, "%s: connection.token_env: environment variable %s is not set (it "
						      "holds the LAVA API token)",
				     t->plat->file, env ? env : "?");
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
static int ensure_server(struct lava_state *st, long port, struct kvb_error *err)
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
static char *label_of(const char *key)
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
		c->label = label_of(c->key);
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

static int is_url(const char *s, int file_ok)
{
	return s && (!strncmp(s, "http://", 7) || !strncmp(s, "https://", 8) || (file_ok && !strncmp(s, "file://", 7)));
}

/* "http://HOST:PORT" of kvbench's server as host sees it (IPv6 in brackets). Owned. */
static char *base_url(const char *host, unsigned port)
{
	return kvb_xasprintf(strchr(host, ':') && host[0] != '[' ? "http://[%s]:%u" : "http://%s:%u", host, port);
}

/* What a unit's definition is made of: its variables and the local files to serve. */
struct def_parts {
	const char *vars[KVB_LV_N];
	char *owned[KVB_LV_N];
	char *files[MAX_OFFERS]; /* local paths (owned) */
	size_t nfiles;
};

static void parts_release(struct def_parts *p)
{
	for (int i = 0; i < KVB_LV_N; i++)
		free(p->owned[i]);
	for (size_t i = 0; i < p->nfiles; i++)
		free(p->files[i]);
	memset(p, 0, sizeof(*p));
}

/*
 * Variable v as LAVA downloads the file: a URL as given (file:// too when file_ok),
 * else the local copy: file:// offline (--dry-run), else its URL on kvbench's
 * server (base/ftoken/name), queued in p->files for offering.
 */
static int set_file(struct def_parts *p, enum kvb_lava_var v, enum kvb_lava_var comp, const char *given,
		    const char *local, int file_ok, const char *base, const char *ftoken, struct kvb_error *err)
{
	const char *name;
	if (is_url(given, file_ok)) {
		p->vars[v] = given;
		if (comp != KVB_LV_N)
			p->vars[comp] = kvb_lava_compression(given);
		return KVB_OK;
	}
	if (!local && given && !is_url(given, 1))
		local = given; /* --dry-run: the variant's files are not fetched */
	if (!local)
		return KVB_OK;
	if (comp != KVB_LV_N)
		p->vars[comp] = kvb_lava_compression(local);
	if (!base) {
		char *abs = realpath(local, NULL);
		p->owned[v] = kvb_xasprintf("file://%s", abs ? abs : local);
		free(abs);
	} else {
		CURL *c = curl_easy_init();
		char *esc;
		if (p->nfiles == MAX_OFFERS)
			return kvb_error_set(err, KVB_EINPUT, "LAVA: too many files for one job (%s)", local);
		name = strrchr(local, '/') ? strrchr(local, '/') + 1 : local;
		esc = c ? curl_easy_escape(c, name, 0) : NULL;
		p->owned[v] = kvb_xasprintf("%s/%s/%s", base, ftoken, esc ? esc : name);
		if (esc)
			curl_free(esc);
		if (c)
			curl_easy_cleanup(c);
		p->files[p->nfiles++] = kvb_xstrdup(local);
	}
	p->vars[v] = p->owned[v];
	return KVB_OK;
}

static cJSON *minutes(long m)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "minutes", (double)m);
	return o;
}

/*
 * The job's test action timeout and its own, minutes: the test action's is
 * lava.test_timeout_min, else the sum of its commands' own timeouts (a workload's
 * timeout_s ...) and 2 minutes for the shell; the job's outlasts all its actions.
 */
static void job_timeouts(const struct lava_state *st, long *test, long *job)
{
	long deploy = (long)kvb_get_int(st->lava, "deploy_timeout_min", 10), boot = (long)kvb_get_int(st->conn, "boot_timeout_min", 5);
	long report = ((long)kvb_get_int(st->lava, "report_timeout_s", 300) + 59) / 60;
	uint64_t sum_ms = 0;
	for (size_t k = 0; k < st->n; k++)
		sum_ms += st->v[k].timeout_ms;
	*test = (long)kvb_get_int(st->lava, "test_timeout_min", (long long)((sum_ms + 59999) / 60000) + 2);
	/* LAVA ends a job at its own timeout whatever its actions do: it must outlast all of them */
	*job = deploy + boot + *test + report + 5;
	if (kvb_get_int(st->conn, "job_timeout_min", 0) > *job)
		*job = (long)kvb_get_int(st->conn, "job_timeout_min", 0);
}

/* The report step: wait for kvbench's results (report_url), file them as LAVA test cases; else exit statuses. */
static char *report_step(const struct lava_state *st, const char *report_url)
{
	struct kvb_buf b = KVB_BUF_INIT, labels = KVB_BUF_INIT;
	long limit = ((long)kvb_get_int(st->lava, "report_timeout_s", 300) + 1) / 2;
	for (size_t i = 0; i < st->n; i++) {
		int seen = 0;
		if (strncmp(st->v[i].key, "job ", 4))
			continue;
		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(st->v[k].label, st->v[i].label);
		if (!seen)
			kvb_buf_addf(&labels, " %s", st->v[i].label);
	}
	if (report_url)
		kvb_buf_addf(&b,
			     "echo \"KVB-$KVB_N - WAIT\"; kvb_i=0; kvb_m=0; kvb_ok=; while [ $kvb_i -lt %ld ]; do "
			     "if { wget -q -O /tmp/kvb-r '%s' || busybox wget -q -O /tmp/kvb-r '%s' || "
			     "curl -sf -o /tmp/kvb-r '%s'; } 2>/dev/null; then kvb_m=0; read kvb_h </tmp/kvb-r; "
			     "[ \"$kvb_h\" = 'kvb-results 1 ready' ] && { kvb_ok=1; break; }; "
			     "else kvb_m=$((kvb_m + 1)); [ $kvb_m -ge 15 ] && break; fi; kvb_i=$((kvb_i + 1)); sleep 2; done; ",
			     limit, report_url, report_url, report_url);
	else
		kvb_buf_adds(&b, "kvb_ok=; ");
	kvb_buf_addf(&b,
		     /* KMSG: lava-test-case signals through /dev/kmsg as one kernel message, which the
		      * console prints whole: a printk cannot land inside it (Linaro test-definitions PR #562) */
		     "if [ -n \"$kvb_ok\" ]; then sed 1d /tmp/kvb-r | while read kvb_c kvb_r kvb_v kvb_u; do "
		     "if [ -n \"$kvb_v\" ]; then KMSG=1 lava-test-case \"$kvb_c\" --result \"$kvb_r\" --measurement \"$kvb_v\" "
		     "--units \"$kvb_u\"; else KMSG=1 lava-test-case \"$kvb_c\" --result \"$kvb_r\"; fi; done; "
		     "else echo \"KVB-$KVB_N - NOTE no results from kvbench: filing exit statuses\"; "
		     "for kvb_c in%s; do case \"$kvb_bad\" in *\" $kvb_c \"*) kvb_r=fail;; *) kvb_r=pass;; esac; "
		     "KMSG=1 lava-test-case \"$kvb_c\" --result $kvb_r; done; fi",
		     labels.len ? labels.data : " none");
	kvb_buf_release(&labels);
	return kvb_buf_detach(&b);
}

/*
 * The boot image of a device type that flashes one (fastboot), built into st->boot_image as
 * the fastboot flasher builds it, in the unit's artifact directory.
 */
static int build_boot_image(struct lava_state *st, const struct kvb_batch_unit *u, struct kvb_error *err)
{
	const struct kvb_variant *var = u->variant;
	char *dir = kvb_xasprintf("%s/lava-boot-image", u->artifact_dir);
	int rc;
	if (kvb_mkdir_p(dir, 0755)) {
		rc = kvb_error_set(err, KVB_ESTORE, "cannot create %s: %s", dir, strerror(errno));
		free(dir);
		return rc;
	}
	/* --dry-run fetches nothing: the variant's local files are the paths it gives */
	struct kvb_variant vv = *var;
	const char *given[KVB_VF_N] = { var->kernel, var->dtb, var->initrd, var->boot_image, var->modules };
	for (int i = 0; i < KVB_VF_N; i++)
		if (!vv.local[i] && given[i] && !is_url(given[i], 1))
			vv.local[i] = (char *)given[i];
	rc = kvb_fastboot_build_boot_image(st->plat, &vv, dir, NULL, &st->boot_image, err);
	free(dir);
	return rc;
}

/* The file variables of parts (set_file): only the files the template downloads are offered. */
static int template_files(const struct lava_state *st, const cJSON *tmpl, const struct kvb_variant *var,
			  const char *base, struct def_parts *parts, struct kvb_error *err)
{
	const char *rootfs = kvb_get_str(st->conn, "rootfs", NULL);
	struct {
		enum kvb_lava_var v, comp;
		const char *given, *local;
		int file_ok;
	} f[] = {
		{ KVB_LV_KERNEL, KVB_LV_N, var->kernel, var->local[KVB_VF_KERNEL], 0 },
		{ KVB_LV_INITRD, KVB_LV_INITRD_COMPRESSION, var->initrd, var->local[KVB_VF_INITRD], 0 },
		{ KVB_LV_DTB, KVB_LV_N, var->dtb, var->local[KVB_VF_DTB], 0 },
		{ KVB_LV_MODULES, KVB_LV_MODULES_COMPRESSION, var->modules, var->local[KVB_VF_MODULES], 0 },
		{ KVB_LV_BOOT_IMAGE, KVB_LV_N, var->boot_image,
		  var->local[KVB_VF_BOOT_IMAGE] ? var->local[KVB_VF_BOOT_IMAGE] : st->boot_image, 0 },
		{ KVB_LV_ROOTFS, KVB_LV_ROOTFS_COMPRESSION, rootfs, rootfs, 1 },
	};
	int rc = KVB_OK;
	for (size_t i = 0; i < KVB_ARRAY_SIZE(f) && !rc; i++)
		if (kvb_lava_template_uses(tmpl, f[i].v))
			rc = set_file(parts, f[i].v, f[i].comp, f[i].given, f[i].local, f[i].file_ok, base, st->ftoken, err);
	return rc;
}

/* The job's device tags: connection.tags, then the device's own tag; NULL when there are none. */
static cJSON *job_tags(const struct lava_state *st)
{
	cJSON *tags = cJSON_CreateArray();
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(st->conn, "tags");
	for (const cJSON *tg = cJSON_IsArray(v) ? v->child : v; tg; tg = cJSON_IsArray(v) ? tg->next : NULL) {
		char *ts = kvb_node_str(tg);
		cJSON_AddItemToArray(tags, cJSON_CreateString(ts ? ts : ""));
		free(ts);
	}
	if (st->job_tag[0])
		cJSON_AddItemToArray(tags, cJSON_CreateString(st->job_tag));
	if (cJSON_GetArraySize(tags))
		return tags;
	cJSON_Delete(tags);
	return NULL;
}

/* The job's context: the template's, then the connection's over it; NULL when empty. */
static cJSON *job_context(const struct lava_state *st, const cJSON *tmpl)
{
	cJSON *ctx = cJSON_CreateObject();
	for (int k = 0; k < 2; k++) {
		const cJSON *src = k ? cJSON_GetObjectItemCaseSensitive(st->conn, "context")
				     : cJSON_GetObjectItemCaseSensitive(tmpl, "context");
		for (const cJSON *kv = cJSON_IsObject(src) ? src->child : NULL; kv; kv = kv->next) {
			cJSON_DeleteItemFromObjectCaseSensitive(ctx, kv->string);
			cJSON_AddItemToObject(ctx, kv->string, cJSON_Duplicate(kv, 1));
		}
	}
	if (ctx->child)
		return ctx;
	cJSON_Delete(ctx);
	return NULL;
}

/* The job without its actions: device type, name, timeouts (minutes), priority, visibility, tags, context, metadata. */
static cJSON *job_head(const struct lava_state *st, const struct kvb_batch_unit *u, const cJSON *tmpl, const char *dt,
		       long test_min, long job_min)
{
	cJSON *job = cJSON_CreateObject(), *to = cJSON_CreateObject(), *o;
	const cJSON *v;
	cJSON_AddStringToObject(job, "device_type", dt);
	cJSON_AddStringToObject(job, "job_name", u->name);
	cJSON_AddItemToObject(to, "job", minutes(job_min));
	cJSON_AddItemToObject(to, "action", minutes(test_min));
	cJSON_AddItemToObject(to, "connection", minutes(2));
	cJSON_AddItemToObject(job, "timeouts", to);
	v = cJSON_GetObjectItemCaseSensitive(st->lava, "priority");
	if (cJSON_IsNumber(v))
		cJSON_AddNumberToObject(job, "priority", v->valuedouble);
	else
		cJSON_AddStringToObject(job, "priority", kvb_get_str(st->lava, "priority", "medium"));
	v = cJSON_GetObjectItemCaseSensitive(st->lava, "visibility");
	cJSON_AddItemToObject(job, "visibility", v ? cJSON_Duplicate(v, 1) : cJSON_CreateString("public"));
	if ((o = job_tags(st)))
		cJSON_AddItemToObject(job, "tags", o);
	if ((o = job_context(st, tmpl)))
		cJSON_AddItemToObject(job, "context", o);
	if ((v = cJSON_GetObjectItemCaseSensitive(st->lava, "metadata")))
		cJSON_AddItemToObject(job, "metadata", cJSON_Duplicate(v, 1));
	return job;
}

/* The test action: the prelude (nonce, console loglevel, kvb_x), every recorded command, then the results. */
static cJSON *test_action(const struct lava_state *st, const struct kvb_batch_unit *u, const char *report_url,
			  long test_min)
{
	cJSON *steps = cJSON_CreateArray(), *run, *meta, *repo, *def, *defs, *test, *a;
	char *s = kvb_lava_shell_prelude(st->nonce, (int)kvb_get_int(st->lava, "console_loglevel", 1));
	cJSON_AddItemToArray(steps, cJSON_CreateString(s));
	free(s);
	for (size_t k = 0; k < st->n; k++) {
		s = kvb_lava_shell_step(k, st->v[k].label, st->v[k].argv_sh);
		cJSON_AddItemToArray(steps, cJSON_CreateString(s));
		free(s);
	}
	s = report_step(st, report_url);
	cJSON_AddItemToArray(steps, cJSON_CreateString(s));
	free(s);
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
	cJSON_AddItemToObject(test, "timeout", minutes(test_min));
	cJSON_AddItemToObject(test, "definitions", defs);
	a = cJSON_CreateObject();
	cJSON_AddItemToObject(a, "test", test);
	return a;
}

/*
 * The definition for what was recorded (JSON, which LAVA's YAML loader reads), with
 * the unit's nonce and file token; port: kvbench's server (0 offline: local files
 * as file:// URLs). Files to serve go to parts. Owned; NULL + err.
 */
static char *build_definition(struct lava_state *st, const struct kvb_batch_unit *u, unsigned port,
			      struct def_parts *parts, struct kvb_error *err)
{
	const cJSON *c = st->conn, *tmpl;
	const struct kvb_variant *var = u->variant;
	const char *dt = kvb_get_str(c, "device_type", "");
	const char *host = kvb_get_str(c, "serve_host", NULL), *rhost = kvb_get_str(c, "report_host", NULL);
	cJSON *job = NULL, *actions = NULL;
	struct kvb_buf cmdline = KVB_BUF_INIT;
	char *base = NULL, *s = NULL, *report_url = NULL;
	long test_min, job_min;

	memset(parts, 0, sizeof(*parts));
	if (!(tmpl = kvb_lava_template(st->lava, dt))) {
		kvb_error_set(err, KVB_EINPUT, "%s: lava.device_types has no template for device type '%s'", st->plat->file, dt);
		return NULL;
	}
	if (port)
		base = base_url(host && *host ? host : kvb_get_str(c, "serve_address", "127.0.0.1"), port);
	if (rhost && *rhost) {
		char *rb = base_url(rhost, port);
		report_url = kvb_xasprintf("%s/%s/results", rb, st->ftoken);
		free(rb);
	}
	if (kvb_lava_template_uses(tmpl, KVB_LV_BOOT_IMAGE) && !var->local[KVB_VF_BOOT_IMAGE] &&
	    !is_url(var->boot_image, 0) && !st->boot_image && build_boot_image(st, u, err))
		goto out;
	if (template_files(st, tmpl, var, base, parts, err))
		goto out;
	kvb_buf_addf(&cmdline, "%s%s%s", kvb_get_str(c, "kernel_cmdline", ""), var->cmdline ? " " : "",
		     var->cmdline ? var->cmdline : "");
	parts->vars[KVB_LV_CMDLINE] = cmdline.data;
	parts->vars[KVB_LV_PROMPT] = kvb_get_str(c, "prompt", "kvb-lava# ");
	parts->vars[KVB_LV_DEVICE_TYPE] = dt;

	job_timeouts(st, &test_min, &job_min);
	job = job_head(st, u, tmpl, dt, test_min, job_min);
	actions = cJSON_CreateArray();
	if (kvb_lava_template_actions(tmpl, dt, parts->vars, (long)kvb_get_int(st->lava, "deploy_timeout_min", 10),
				      (long)kvb_get_int(c, "boot_timeout_min", 5), actions, err))
		goto out;
	cJSON_AddItemToArray(actions, test_action(st, u, report_url, test_min));
	cJSON_AddItemToObject(job, "actions", actions);
	actions = NULL;
	s = cJSON_Print(job);
out:
	parts->vars[KVB_LV_CMDLINE] = NULL;
	cJSON_Delete(actions);
	cJSON_Delete(job);
	kvb_buf_release(&cmdline);
	free(base);
	free(report_url);
	return s;
}

/* What the engine stores for a submitted job so that --resume can find it again (JSON). Owned. */
static char *job_state(const struct lava_state *st, unsigned port, const char *def)
{
	cJSON *o = cJSON_CreateObject();
	char hex[65], *s;
	kvb_sha256_mem(def, strlen(def), hex);
	cJSON_AddStringToObject(o, "nonce", st->nonce);
	cJSON_AddStringToObject(o, "token", st->ftoken);
	cJSON_AddNumberToObject(o, "port", port);
	cJSON_AddStringToObject(o, "sha256", hex);
	cJSON_AddStringToObject(o, "device_tag", st->job_tag);
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s;
}

static void on_command(void *arg, const struct kvb_lava_cmd_out *o)
{
	struct lava_state *st = arg;
	struct lava_cmd *c;
	if (o->k >= st->n)
		return;
	c = &st->v[o->k];
	free(c->out);
	free(c->err);
	free(c->bad);
	c->out = kvb_xstrdup(o->out);
	c->err = kvb_xstrdup(o->err);
	c->bad = o->bad ? kvb_xstrdup(o->bad) : NULL;
	c->rc = o->rc;
	c->repaired = o->repaired;
	c->begin_ns = o->begin_ns;
	c->end_ns = o->end_ns;
	c->done = 1;
}

/* Reads the job's log lines not read yet into the command reader. KVB_OK also when there is none yet. */
static int poll_log(struct lava_state *st, struct kvb_error *err)
{
	char *text = NULL, type[64], msg[512];
	cJSON *entries = NULL;
	struct kvb_error e2;
	int rc;
	if ((rc = kvb_lava_job_logs_from(&st->api, st->job_id, st->log_lines, &text, err)) || !text)
		return rc;
	/* a line cut short by the read is left for the next one: the parse fails, nothing is counted */
	if (!kvb_lava_log_parse(text, &entries, &e2)) {
		kvb_lava_reader_feed(&st->rd, entries);
		st->log_lines += (size_t)cJSON_GetArraySize(entries);
		if (kvb_lava_log_failure(entries, type, sizeof(type), msg, sizeof(msg)) || type[0] || msg[0]) {
			snprintf(st->vtype, sizeof(st->vtype), "%s", type);
			snprintf(st->vmsg, sizeof(st->vmsg), "%s", msg);
		}
		cJSON_Delete(entries);
	}
	free(text);
	return KVB_OK;
}

static int commands_in(const struct lava_state *st)
{
	if (st->rd.waiting)
		return 1;
	for (size_t k = 0; k < st->n; k++)
		if (!st->v[k].done)
			return 0;
	return 1;
}

/*
 * Follows the job until every command's output is in (until_end: until it is
 * Finished), reading its log as it grows; cancels it when u->stop is set.
 * st->j holds its last state. On an error of kvbench's own (LAVA unreachable for
 * FOLLOW_MISSES polls) the job is cancelled: nothing is left running unwatched.
 */
static int follow(struct lava_state *st, const struct kvb_batch_unit *u, int until_end, struct kvb_error *err)
{
	long poll_ms = (long)kvb_get_int(st->conn, "poll_s", 2) * 1000;
	int misses = 0, rc;
	for (;;) {
		rc = poll_log(st, err);
		if (!rc)
			rc = kvb_lava_job_get(&st->api, st->job_id, &st->j, err);
		if (rc) {
			/* a busy server (LAVA's web service under load) can miss a poll: the job goes on regardless */
			if (++misses > FOLLOW_MISSES) {
				char why[KVB_ERRMSG_MAX];
				snprintf(why, sizeof(why), "%s", err->msg);
				cancel_job(st, st->job_id);
				return kvb_error_set(err, KVB_ETARGET, "%s (LAVA job %lld cancelled: kvbench cannot follow it)",
						     why, (long long)st->job_id);
			}
			kvb_warn("%s (asking again, %d of %d)", err->msg, misses, FOLLOW_MISSES);
			sleep_ms(poll_ms);
			continue;
		}
		misses = 0;
		if (!strcmp(st->j.state, "Finished")) {
			struct kvb_error e2;
			st->in_flight = 0;
			if (poll_log(st, &e2))
				kvb_warn("%s", e2.msg);
			kvb_lava_reader_flush(&st->rd);
			return KVB_OK;
		}
		if (u && u->stop && *u->stop)
			cancel_job(st, st->job_id);
		if (!until_end && !st->cancelled && commands_in(st))
			return KVB_OK; /* still running: the test shell waits for kvbench's results */
		sleep_ms(st->cancelled ? 500 : poll_ms);
	}
}

/* Keeps the job's whole log under artifact_dir (res->log_path). */
static void keep_log(struct lava_state *st, const struct kvb_batch_unit *u, struct kvb_batch_result *res)
{
	char *log = NULL, *path;
	struct kvb_error e2;
	FILE *f;
	int bad;
	if (!u->artifact_dir || kvb_lava_job_logs(&st->api, st->job_id, &log, &e2))
		return; /* a job cancelled before it ran has no log (404) */
	path = kvb_xasprintf("%s/lava-job-%lld.yaml", u->artifact_dir, (long long)st->job_id);
	f = kvb_fopen_nofollow(path);
	bad = !f;
	if (f) {
		bad = fwrite(log, 1, strlen(log), f) != strlen(log);
		bad |= fclose(f) != 0;
	}
	if (bad)
		kvb_warn("cannot keep the LAVA log %s: %s", path, strerror(errno));
	else
		snprintf(res->log_path, sizeof(res->log_path), "%s", path);
	free(path);
	free(log);
}

/* Starts following job id afresh (a new submission, or a reattach). */
static void follow_start(struct lava_state *st, int64_t id)
{
	st->job_id = id;
	st->in_flight = 1;
	st->cancelled = 0;
	st->log_lines = 0;
	st->vtype[0] = st->vmsg[0] = '\0';
	memset(&st->j, 0, sizeof(st->j));
	kvb_lava_reader_release(&st->rd);
	kvb_lava_reader_init(&st->rd, st->nonce, on_command, st);
	outputs_clear(st);
}

/* Offers the job's files and its results document on kvbench's server. */
static int offer_files(struct lava_state *st, const struct def_parts *parts, struct kvb_error *err)
{
	int rc;
	withdraw_all(st);
	for (size_t i = 0; i < parts->nfiles; i++) {
		char *url;
		if ((rc = kvb_lava_serve_offer_at(st->ftoken, parts->files[i], &url, err)))
			return rc;
		st->offered[st->noffered++] = url;
	}
	kvb_buf_reset(&st->results);
	if (kvb_get_str(st->conn, "report_host", NULL) &&
	    (rc = kvb_lava_serve_text(st->ftoken, "results", "kvb-results 1 wait\n", &st->results_url, err)))
		return rc;
	return KVB_OK;
}

/* The stored state of a job to reattach to: nonce, token, port and definition sha256. 0 when it reads. */
static int read_state(const char *state, struct lava_state *st, long *port, char sha[65])
{
	cJSON *o = cJSON_Parse(state ? state : "");
	const char *n = kvb_get_str(o, "nonce", ""), *t = kvb_get_str(o, "token", ""), *h = kvb_get_str(o, "sha256", "");
	int ok = strlen(n) == KVB_LAVA_NONCE_LEN && strlen(t) == 32 && strlen(h) == 64;
	if (ok) {
		snprintf(st->nonce, sizeof(st->nonce), "%s", n);
		snprintf(st->ftoken, sizeof(st->ftoken), "%s", t);
		*port = (long)kvb_get_int(o, "port", 0);
		snprintf(sha, 65, "%s", h);
		/* the device it asked for: the pool may hand the unit to another board this time, and the
		 * job stays on its device (its boot's board is the device LAVA ran it on) */
		snprintf(st->job_tag, sizeof(st->job_tag), "%s", kvb_get_str(o, "device_tag", st->job_tag));
	}
	cJSON_Delete(o);
	return ok ? 0 : -1;
}

/*
 * --resume found this unit's job of an earlier kvbench: reattach to it (*attach
 * = its id) when it is still what this run would submit, or cancel it; said
 * either way. def is what this run would submit with the job's nonce and token.
 */
static void decide_reattach(struct lava_state *st, const struct kvb_batch_unit *u, const char *def, const char *sha,
			    int64_t *attach)
{
	struct kvb_lava_job j;
	struct kvb_error e2;
	char hex[65];
	int64_t id = u->reattach_id;
	*attach = 0;
	kvb_sha256_mem(def, strlen(def), hex);
	memset(&j, 0, sizeof(j));
	if (kvb_lava_job_get(&st->api, id, &j, &e2)) {
		kvb_warn("LAVA job %lld of %s (left by an earlier kvbench) cannot be asked about (%s): submitting anew",
			 (long long)id, u->name, e2.msg);
		return;
	}
	if (!strcmp(j.state, "Finished") && strcmp(j.health, "Complete")) {
		kvb_warn("LAVA job %lld of %s (left by an earlier kvbench) ended %s: submitting anew", (long long)id,
			 u->name, j.health);
		if (u->ended)
			u->ended(u->arg, id, j.health);
		return;
	}
	if (strcmp(hex, sha)) {
		if (strcmp(j.state, "Finished")) {
			kvb_warn("LAVA job %lld of %s (left by an earlier kvbench, %s) is not what this run submits (its "
				 "definition differs): cancelling it and submitting anew",
				 (long long)id, u->name, j.state);
			st->cancelled = 0;
			cancel_job(st, id);
			wait_finished(st, id, CLOSE_WAIT_S);
			if (u->ended)
				u->ended(u->arg, id, "Canceled");
		} else {
			kvb_warn("LAVA job %lld of %s (left by an earlier kvbench) finished, but is not what this run submits "
				 "(its definition differs): submitting anew",
				 (long long)id, u->name);
			if (u->ended)
				u->ended(u->arg, id, j.health);
		}
		return;
	}
	kvb_warn("LAVA job %lld of %s (left by an earlier kvbench, %s): reattached%s", (long long)id, u->name, j.state,
		 strcmp(j.state, "Finished") ? "" : "; its output is read from its log");
	*attach = id;
}

/*
 * A kvbench killed while LAVA was answering its submission never stored that job's id:
 * LAVA has it, in flight, under this unit's name (unique to the results database and run).
 * Cancelled before this unit is submitted again.
 */
static void cancel_strays(struct lava_state *st, const struct kvb_batch_unit *u)
{
	int64_t ids[16];
	size_t n = 0;
	struct kvb_error e2;
	if (kvb_lava_jobs_in_flight_named(&st->api, u->name, ids, 16, &n, &e2)) {
		kvb_warn("%s", e2.msg);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (ids[i] == u->reattach_id)
			continue;
		kvb_warn("LAVA job %lld of %s was submitted by an earlier kvbench that did not live to store it: "
			 "cancelling it", (long long)ids[i], u->name);
		st->cancelled = 0;
		cancel_job(st, ids[i]);
		if (u->ended)
			u->ended(u->arg, ids[i], "Canceled");
	}
	st->cancelled = 0;
}

/* The device tag a job of this board asks for (connection.device's), "" without a device. */
static void board_tag(struct lava_state *st, const char *dev)
{
	snprintf(st->job_tag, sizeof(st->job_tag), "%s", dev ? kvb_get_str(st->conn, "device_tag", dev) : "");
}

/*
 * The unit's job on LAVA: its id (*id = 0: submit def now, its id stored with u->submitted
 * before anything else can fail, and said), res->url and res->job_id. LAVA refusing the
 * definition (unknown device type ...) is the same every time: res->final.
 */
static int submit_job(struct lava_state *st, const struct kvb_batch_unit *u, const char *def, unsigned port,
		      int64_t *id, struct kvb_batch_result *res, struct kvb_error *err)
{
	int rc;
	if (!*id) {
		char *state;
		if ((rc = kvb_lava_submit(&st->api, def, id, err))) {
			res->final = 1;
			return rc;
		}
		snprintf(res->url, sizeof(res->url), "%sscheduler/job/%lld", st->api.url, (long long)*id);
		/* stored before anything else can fail: a kvbench killed from here on leaves no orphan */
		state = job_state(st, port, def);
		if (u->submitted)
			u->submitted(u->arg, *id, res->url, state);
		free(state);
		kvb_info("LAVA job %lld: %s (%s)", (long long)*id, u->name, res->url);
	}
	snprintf(res->url, sizeof(res->url), "%sscheduler/job/%lld", st->api.url, (long long)*id);
	res->job_id = *id;
	return KVB_OK;
}

/*
 * What follows job id's end (attempt of tries; dev: connection.device or NULL): 1 when it
 * is submitted again, else 0 with *rc (a cancelled job, a device's infrastructure error) or
 * with st->ended saying why a failed job ended (its commands that ran are replayed).
 */
static int after_job(struct lava_state *st, const struct kvb_batch_unit *u, int64_t id, const char *dev, int attempt,
		     int tries, struct kvb_batch_result *res, int *rc, struct kvb_error *err)
{
	enum kvb_lava_outcome outcome;
	if (u->ended)
		u->ended(u->arg, id, st->j.health);
	outcome = kvb_lava_outcome(st->j.health, st->vtype);
	if (outcome == KVB_LAVA_DONE)
		return 0;
	if (outcome == KVB_LAVA_CANCELED || st->cancelled) {
		*rc = kvb_error_set(err, KVB_EJOBS, "LAVA job %lld was canceled%s%s", (long long)id, st->vmsg[0] ? ": " : "",
				    st->vmsg);
		res->final = 1;
		return 0;
	}
	if (outcome == KVB_LAVA_RETRY && dev) {
		/* this device's failure: the pool gives the unit to another device */
		keep_log(st, u, res);
		*rc = kvb_error_set(err, KVB_ETARGET, "LAVA job %lld on device %s ended Incomplete with an "
						      "infrastructure error (%s)",
				    (long long)id, st->j.device[0] ? st->j.device : dev, st->vmsg);
		return 0;
	}
	if (outcome == KVB_LAVA_RETRY && attempt < tries && !(u->stop && *u->stop)) {
		keep_log(st, u, res);
		kvb_warn("LAVA job %lld Incomplete with an infrastructure error on device %s (%s): submitting again "
			 "(%d of %d; without connection.device LAVA picks the device, maybe the same one)",
			 (long long)id, st->j.device[0] ? st->j.device : "?", st->vmsg, attempt + 1, tries);
		return 1;
	}
	/* a job failure: what ran is kept (replayed), the rest fails with LAVA's reason */
	snprintf(st->ended, sizeof(st->ended), "LAVA job %lld ended %s (%s error: %s)%s", (long long)id, st->j.health,
		 st->vtype[0] ? st->vtype : "unknown", st->vmsg[0] ? st->vmsg : st->j.failure_comment,
		 outcome == KVB_LAVA_RETRY ? ", the last of its submissions (infra_retries)" : "");
	res->final = 1;
	return 0;
}

static int lava_run(struct kvb_target *t, const struct kvb_batch_unit *u, struct kvb_batch_result *res,
		    struct kvb_error *err)
{
	struct lava_state *st = t->priv;
	const char *dev = kvb_get_str(st->conn, "device", NULL);
	int tries = dev ? 1 : (int)kvb_get_int(st->conn, "infra_retries", 2) + 1, rc = KVB_OK;
	struct def_parts parts;
	char *def = NULL, sha[65] = "";
	long want_port = 0;
	int64_t attach = 0;
	unsigned port;

	memset(res, 0, sizeof(*res));
	memset(&parts, 0, sizeof(parts));
	st->recording = 0;
	st->job_id = 0;
	free(st->boot_image);
	st->boot_image = NULL;
	board_tag(st, dev);
	if (!u->reattach_id || read_state(u->reattach_state, st, &want_port, sha)) {
		if (kvb_lava_nonce(st->nonce) || (rc = kvb_lava_serve_token(st->ftoken, err))) {
			res->final = 1;
			return rc ? rc : kvb_error_set(err, KVB_ETARGET, "getrandom: %s", strerror(errno));
		}
	}
	if ((rc = ensure_server(st, want_port, err))) {
		res->final = 1;
		return rc;
	}
	port = kvb_lava_serve_port();
	if (u->reattach_id && sha[0]) {
		/* what this run would submit, with the job's nonce, token and server port: the same job? */
		char *then = build_definition(st, u, (unsigned)(want_port ? want_port : port), &parts, err);
		if (!then) {
			res->final = 1;
			return err->code;
		}
		decide_reattach(st, u, then, sha, &attach);
		free(then);
		parts_release(&parts);
		if (!attach) /* submitted anew: to this board's device */
			board_tag(st, dev);
		if (!attach && (kvb_lava_nonce(st->nonce) || (rc = kvb_lava_serve_token(st->ftoken, err)))) {
			res->final = 1;
			return rc ? rc : KVB_ETARGET;
		}
	}
	if (!(def = build_definition(st, u, port, &parts, err))) {
		res->final = 1;
		return err->code;
	}
	if (!attach)
		cancel_strays(st, u);
	for (int attempt = 1; attempt <= tries; attempt++) {
		int64_t id = attach;
		attach = 0;
		if ((rc = offer_files(st, &parts, err))) {
			res->final = 1;
			break;
		}
		if ((rc = submit_job(st, u, def, port, &id, res, err)))
			break;
		follow_start(st, id);
		if ((rc = follow(st, u, 0, err)))
			break;
		snprintf(res->device, sizeof(res->device), "%s", st->j.device);
		if (st->in_flight)
			break; /* every command's output is in; the job waits for kvbench's results (finish) */
		if (!after_job(st, u, id, dev, attempt, tries, res, &rc, err))
			break;
	}
	free(def);
	parts_release(&parts);
	if (!rc && st->ended[0]) {
		/* the boot itself never produced output: nothing to replay */
		int any = 0;
		for (size_t k = 0; k < st->n; k++)
			any |= st->v[k].done;
		if (!any)
			rc = kvb_error_set(err, KVB_EJOBS, "%s", st->ended);
	}
	for (size_t i = 0; i < st->rd.notes.n; i++)
		kvb_warn("LAVA job %lld: the test shell says: %s", (long long)st->job_id, st->rd.notes.v[i]);
	return rc; /* finish() withdraws the files once the job is over */
}

static char *lava_describe(struct kvb_target *t, const struct kvb_batch_unit *u, struct kvb_error *err)
{
	struct lava_state *st = t->priv;
	struct def_parts parts;
	char *def;
	st->recording = 0;
	if (kvb_lava_nonce(st->nonce)) {
		kvb_error_set(err, KVB_ETARGET, "getrandom: %s", strerror(errno));
		return NULL;
	}
	memset(st->ftoken, '0', 32);
	st->ftoken[32] = '\0';
	board_tag(st, kvb_get_str(st->conn, "device", NULL));
	free(st->boot_image);
	st->boot_image = NULL;
	def = build_definition(st, u, 0, &parts, err);
	parts_release(&parts);
	return def;
}

/* [A-Za-z0-9._-] only (names and units in the results document, one line of words). */
static void add_word(struct kvb_buf *b, const char *s)
{
	for (; *s; s++)
		kvb_buf_addc(b, (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
					strchr("._-/%", *s)
				? *s
				: '_');
}

static void lava_report(struct kvb_target *t, const char *key, const char *status, const cJSON *metrics)
{
	struct lava_state *st = t->priv;
	char *label = label_of(key);
	/* a warm-up job that ran is a pass; its numbers are never compared (docs/design.md#noise), so none goes to LAVA */
	int warmup = !strcmp(status, "warmup");
	const char *res = !strcmp(status, "ok") || warmup ? "pass" : !strcmp(status, "skipped") ? "skip" : "fail";
	const cJSON *m, *measured = warmup ? NULL : metrics;
	kvb_buf_addf(&st->results, "%s %s\n", label, res);
	cJSON_ArrayForEach(m, measured)
	{
		const cJSON *val = cJSON_GetObjectItemCaseSensitive(m, "value"), *cl = cJSON_GetObjectItemCaseSensitive(m, "classifiers");
		if (!cJSON_IsNumber(val))
			continue;
		kvb_buf_addf(&st->results, "%s.", label);
		add_word(&st->results, kvb_get_str(m, "name", "metric"));
		for (const cJSON *kv = cJSON_IsObject(cl) ? cl->child : NULL; kv; kv = kv->next) {
			char *s = kvb_node_str(kv);
			kvb_buf_addc(&st->results, '.');
			add_word(&st->results, s ? s : "");
			free(s);
		}
		kvb_buf_addf(&st->results, " pass %.15g ", val->valuedouble);
		add_word(&st->results, kvb_get_str(m, "units", "") [0] ? kvb_get_str(m, "units", "") : "none");
		kvb_buf_addc(&st->results, '\n');
	}
	free(label);
}

static void lava_span(struct kvb_target *t, const char *key, int64_t *begin_ns, int64_t *end_ns)
{
	struct lava_state *st = t->priv;
	*begin_ns = *end_ns = 0;
	for (size_t k = 0; k < st->n; k++) {
		if (strcmp(st->v[k].key, key) || !st->v[k].done)
			continue;
		if (st->v[k].begin_ns && (!*begin_ns || st->v[k].begin_ns < *begin_ns))
			*begin_ns = st->v[k].begin_ns;
		if (st->v[k].end_ns > *end_ns)
			*end_ns = st->v[k].end_ns;
	}
}

static int lava_finish(struct kvb_target *t, const struct kvb_batch_unit *u, struct kvb_batch_result *res,
		       struct kvb_error *err)
{
	struct lava_state *st = t->priv;
	int rc = KVB_OK, stop = u->stop && *u->stop, ran = st->in_flight;
	memset(res, 0, sizeof(*res));
	if (!st->job_id)
		return KVB_OK;
	res->job_id = st->job_id;
	snprintf(res->url, sizeof(res->url), "%sscheduler/job/%lld", st->api.url, (long long)st->job_id);
	if (st->in_flight) {
		if (stop) {
			cancel_job(st, st->job_id);
		} else if (st->results_url) {
			/* what kvbench made of the unit, for the test shell to file as LAVA test cases */
			struct kvb_buf doc = KVB_BUF_INIT;
			kvb_buf_addf(&doc, "kvb-results 1 ready\n%s", st->results.data);
			kvb_lava_serve_text_set(st->results_url, doc.data);
			kvb_buf_release(&doc);
		}
		/* its files and results are served until it is over */
		if ((rc = follow(st, u, 1, err))) {
			withdraw_all(st);
			return rc;
		}
		if (u->ended)
			u->ended(u->arg, st->job_id, st->j.health);
	}
	snprintf(res->device, sizeof(res->device), "%s", st->j.device);
	keep_log(st, u, res);
	withdraw_all(st);
	/* a job that ended badly inside run() said so there; one that ends badly after its commands
	 * were read (the results stand) says so here */
	if (ran && !stop && strcmp(st->j.health, "Complete"))
		rc = kvb_error_set(err, KVB_EJOBS, "LAVA job %lld ended %s after kvbench read its commands (%s error: %s)",
				   (long long)st->job_id, st->j.health, st->vtype[0] ? st->vtype : "unknown",
				   st->vmsg[0] ? st->vmsg : st->j.failure_comment);
	st->job_id = 0;
	return rc;
}

/* The lava: block has a template for every device type the connections ask for; the job timeout outlasts its actions. */
static void lava_check(const struct kvb_platform *p, struct kvb_diag *d)
{
	const cJSON *lava = cJSON_GetObjectItemCaseSensitive(p->doc.root, "lava");
	struct kvb_strv dts = KVB_STRV_INIT;
	size_t nconn = p->nboards ? p->nboards : 1;
	for (size_t i = 0; i < nconn; i++) {
		const cJSON *c = p->nboards ? p->boards[i].conn : p->conn;
		const char *dt = kvb_get_str(c, "device_type", NULL);
		int seen = 0;
		long long jt = kvb_get_int(c, "job_timeout_min", 0);
		for (size_t k = 0; dt && k < dts.n && !seen; k++)
			seen = !strcmp(dts.v[k], dt);
		if (dt && !seen)
			kvb_strv_push(&dts, dt);
		if (jt && cJSON_GetObjectItemCaseSensitive(lava, "test_timeout_min")) {
			long long need = kvb_get_int(lava, "deploy_timeout_min", 10) + kvb_get_int(c, "boot_timeout_min", 5) +
					 kvb_get_int(lava, "test_timeout_min", 60) + (kvb_get_int(lava, "report_timeout_s", 300) + 59) / 60;
			if (jt <= need)
				kvb_diag_at(d, "connection.job_timeout_min",
					    "%lld minutes is not more than the job's actions take (deploy %lld + boot %lld + test "
					    "%lld + results %lld = %lld): LAVA would end the job before its own timeouts",
					    jt, kvb_get_int(lava, "deploy_timeout_min", 10), kvb_get_int(c, "boot_timeout_min", 5),
					    kvb_get_int(lava, "test_timeout_min", 60),
					    (kvb_get_int(lava, "report_timeout_s", 300) + 59) / 60, need);
		}
	}
	kvb_lava_block_check(lava, "lava", (const char *const *)dts.v, dts.n, d);
	kvb_strv_release(&dts);
}

static const struct kvb_target_batch_ops lava_batch = {
	.record = lava_record,
	.mark = lava_mark,
	.run = lava_run,
	.describe = lava_describe,
	.report = lava_report,
	.span = lava_span,
	.finish = lava_finish,
};

const struct kvb_target_ops kvb_target_lava = {
	.name = "lava",
	.summary = "a LAVA lab: each (variant, round) is a LAVA job (REST API v0.2, token from the environment)",
	.conn_keys = lava_keys,
	.block = "lava",
	.block_keys = kvb_lava_block_keys,
	.check = lava_check,
	.open = lava_open,
	.exec = lava_exec,
	.push = lava_push,
	.pull = lava_pull,
	.reboot = lava_reboot,
	.wait_ready = lava_wait_ready,
	.close = lava_close,
	.batch = &lava_batch,
};
