/* Implements the LAVA target's batch ops: a unit submitted, followed through its log as it runs, reattached or cancelled on --resume, finished and reported. */
#include "target/lava_internal.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

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
				kvb_lava_cancel_job(st, st->job_id);
				return kvb_error_set(err, KVB_ETARGET, "%s (LAVA job %lld cancelled: kvbench cannot follow it)",
						     why, (long long)st->job_id);
			}
			kvb_warn("%s (asking again, %d of %d)", err->msg, misses, FOLLOW_MISSES);
			kvb_lava_sleep_ms(poll_ms);
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
			kvb_lava_cancel_job(st, st->job_id);
		if (!until_end && !st->cancelled && commands_in(st))
			return KVB_OK; /* still running: the test shell waits for kvbench's results */
		kvb_lava_sleep_ms(st->cancelled ? 500 : poll_ms);
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
	kvb_lava_outputs_clear(st);
}

/* Offers the job's files and its results document on kvbench's server. */
static int offer_files(struct lava_state *st, const struct def_parts *parts, struct kvb_error *err)
{
	int rc;
	kvb_lava_withdraw_all(st);
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
			kvb_lava_cancel_job(st, id);
			kvb_lava_wait_finished(st, id, CLOSE_WAIT_S);
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
		kvb_lava_cancel_job(st, ids[i]);
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

int kvb_lava_run(struct kvb_target *t, const struct kvb_batch_unit *u, struct kvb_batch_result *res,
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
	if ((rc = kvb_lava_ensure_server(st, want_port, err))) {
		res->final = 1;
		return rc;
	}
	port = kvb_lava_serve_port();
	if (u->reattach_id && sha[0]) {
		/* what this run would submit, with the job's nonce, token and server port: the same job? */
		char *then = kvb_lava_build_definition(st, u, (unsigned)(want_port ? want_port : port), &parts, err);
		if (!then) {
			res->final = 1;
			return err->code;
		}
		decide_reattach(st, u, then, sha, &attach);
		free(then);
		kvb_lava_parts_release(&parts);
		if (!attach) /* submitted anew: to this board's device */
			board_tag(st, dev);
		if (!attach && (kvb_lava_nonce(st->nonce) || (rc = kvb_lava_serve_token(st->ftoken, err)))) {
			res->final = 1;
			return rc ? rc : KVB_ETARGET;
		}
	}
	if (!(def = kvb_lava_build_definition(st, u, port, &parts, err))) {
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
	kvb_lava_parts_release(&parts);
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

char *kvb_lava_describe(struct kvb_target *t, const struct kvb_batch_unit *u, struct kvb_error *err)
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
	def = kvb_lava_build_definition(st, u, 0, &parts, err);
	kvb_lava_parts_release(&parts);
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

void kvb_lava_report(struct kvb_target *t, const char *key, const char *status, const cJSON *metrics)
{
	struct lava_state *st = t->priv;
	char *label = kvb_lava_label_of(key);
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

void kvb_lava_span(struct kvb_target *t, const char *key, int64_t *begin_ns, int64_t *end_ns)
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

int kvb_lava_finish(struct kvb_target *t, const struct kvb_batch_unit *u, struct kvb_batch_result *res,
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
			kvb_lava_cancel_job(st, st->job_id);
		} else if (st->results_url) {
			/* what kvbench made of the unit, for the test shell to file as LAVA test cases */
			struct kvb_buf doc = KVB_BUF_INIT;
			kvb_buf_addf(&doc, "kvb-results 1 ready\n%s", st->results.data);
			kvb_lava_serve_text_set(st->results_url, doc.data);
			kvb_buf_release(&doc);
		}
		/* its files and results are served until it is over */
		if ((rc = follow(st, u, 1, err))) {
			kvb_lava_withdraw_all(st);
			return rc;
		}
		if (u->ended)
			u->ended(u->arg, st->job_id, st->j.health);
	}
	snprintf(res->device, sizeof(res->device), "%s", st->j.device);
	keep_log(st, u, res);
	kvb_lava_withdraw_all(st);
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
void kvb_lava_check(const struct kvb_platform *p, struct kvb_diag *d)
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
