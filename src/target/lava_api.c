/* Implements LAVA's REST API v0.2 client (libcurl) and the reading of its job logs. */
#include "target/lava_api.h"
#include "config/doc.h"
#include "config/keys.h"
#include "core/buf.h"
#include "core/escape.h"
#include "core/util.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

static size_t on_body(char *p, size_t sz, size_t n, void *arg)
{
	kvb_buf_add((struct kvb_buf *)arg, p, sz * n);
	return sz * n;
}

int kvb_lava_http(const struct kvb_lava_api *a, const char *method, const char *path, const char *body, long *status,
		  char **resp, struct kvb_error *err)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = NULL;
	struct kvb_buf b = KVB_BUF_INIT, auth = KVB_BUF_INIT;
	char *url = kvb_xasprintf("%s%s", a->url, path);
	char cerr[CURL_ERROR_SIZE] = "";
	CURLcode cc;
	int rc = KVB_OK;

	*resp = NULL;
	*status = 0;
	if (!c) {
		free(url);
		return kvb_error_set(err, KVB_ETARGET, "LAVA %s: curl_easy_init failed", a->url);
	}
	kvb_buf_addf(&auth, "Authorization: Token %s", a->token ? a->token : "");
	h = curl_slist_append(h, auth.data);
	h = curl_slist_append(h, "Accept: application/json");
	if (body)
		h = curl_slist_append(h, "Content-Type: application/json");
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, a->timeout_s > 0 ? a->timeout_s : 60L);
	if (!strcmp(method, "POST")) {
		curl_easy_setopt(c, CURLOPT_POST, 1L);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body ? body : "");
	}
	cc = curl_easy_perform(c);
	if (cc != CURLE_OK) {
		rc = kvb_error_set(err, KVB_ETARGET, "LAVA %s unreachable: %s", url, cerr[0] ? cerr : curl_easy_strerror(cc));
	} else {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
		kvb_buf_addf(&b, "%s", ""); /* NUL-terminated even when empty */
		*resp = kvb_buf_detach(&b);
	}
	/* the Authorization header held the token: wipe it */
	memset(auth.data, 0, auth.len);
	kvb_buf_release(&auth);
	kvb_buf_release(&b);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	free(url);
	return rc;
}

char *kvb_lava_api_reason(long status, const char *body)
{
	cJSON *j = cJSON_Parse(body ? body : "");
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(j, "detail");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "message");
	char *s;
	if (cJSON_IsString(d))
		s = kvb_xasprintf("HTTP %ld: %s", status, d->valuestring);
	else if (cJSON_IsString(m))
		s = kvb_xasprintf("HTTP %ld: %s", status, m->valuestring);
	else
		s = kvb_xasprintf("HTTP %ld: %.200s", status, body ? body : "");
	cJSON_Delete(j);
	return s;
}

/* GET or POST and require a 2xx JSON answer; *out the parsed body (owned). */
static int call_json(const struct kvb_lava_api *a, const char *method, const char *path, const char *body,
		     const char *what, cJSON **out, struct kvb_error *err)
{
	long status;
	char *resp;
	int rc = kvb_lava_http(a, method, path, body, &status, &resp, err);
	*out = NULL;
	if (rc)
		return rc;
	if (status < 200 || status >= 300) {
		char *why = kvb_lava_api_reason(status, resp);
		rc = kvb_error_set(err, KVB_ETARGET, "LAVA %s: %s: %s", a->url, what, why);
		free(why);
	} else if (!(*out = cJSON_Parse(resp))) {
		rc = kvb_error_set(err, KVB_ETARGET, "LAVA %s: %s: not JSON: %.200s", a->url, what, resp);
	}
	free(resp);
	return rc;
}

int kvb_lava_submit(const struct kvb_lava_api *a, const char *definition, int64_t *job_id, struct kvb_error *err)
{
	cJSON *req = cJSON_CreateObject(), *resp = NULL;
	const cJSON *ids;
	char *body;
	int rc;
	cJSON_AddStringToObject(req, "definition", definition);
	body = cJSON_PrintUnformatted(req);
	cJSON_Delete(req);
	rc = call_json(a, "POST", "api/v0.2/jobs/", body, "submitting a job", &resp, err);
	free(body);
	if (rc)
		return rc;
	ids = cJSON_GetObjectItemCaseSensitive(resp, "job_ids");
	if (!cJSON_IsArray(ids) || !cJSON_IsNumber(cJSON_GetArrayItem(ids, 0)))
		rc = kvb_error_set(err, KVB_ETARGET, "LAVA %s: submitting a job: no job_ids in the answer", a->url);
	else
		*job_id = (int64_t)cJSON_GetArrayItem(ids, 0)->valuedouble;
	cJSON_Delete(resp);
	return rc;
}

static void copy_str(char *dst, size_t n, const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	snprintf(dst, n, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

void kvb_lava_job_read(const cJSON *o, struct kvb_lava_job *j)
{
	copy_str(j->state, sizeof(j->state), o, "state");
	copy_str(j->health, sizeof(j->health), o, "health");
	copy_str(j->device, sizeof(j->device), o, "actual_device");
	copy_str(j->failure_comment, sizeof(j->failure_comment), o, "failure_comment");
}

enum kvb_lava_outcome kvb_lava_outcome(const char *health, const char *error_type)
{
	if (!strcmp(health, "Complete"))
		return KVB_LAVA_DONE;
	if (!strcmp(health, "Canceled"))
		return KVB_LAVA_CANCELED;
	if (!strcmp(health, "Incomplete") && !strcmp(error_type, "Infrastructure"))
		return KVB_LAVA_RETRY;
	return KVB_LAVA_FAILED;
}

int kvb_lava_job_get(const struct kvb_lava_api *a, int64_t job_id, struct kvb_lava_job *j, struct kvb_error *err)
{
	char path[64], what[64];
	cJSON *resp;
	int rc;
	snprintf(path, sizeof(path), "api/v0.2/jobs/%lld/", (long long)job_id);
	snprintf(what, sizeof(what), "job %lld", (long long)job_id);
	if ((rc = call_json(a, "GET", path, NULL, what, &resp, err)))
		return rc;
	kvb_lava_job_read(resp, j);
	cJSON_Delete(resp);
	if (!j->state[0])
		return kvb_error_set(err, KVB_ETARGET, "LAVA %s: job %lld: no state in the answer", a->url,
				     (long long)job_id);
	return KVB_OK;
}

int kvb_lava_job_logs(const struct kvb_lava_api *a, int64_t job_id, char **text, struct kvb_error *err)
{
	char path[64];
	long status;
	int rc;
	snprintf(path, sizeof(path), "api/v0.2/jobs/%lld/logs/", (long long)job_id);
	if ((rc = kvb_lava_http(a, "GET", path, NULL, &status, text, err)))
		return rc;
	if (status < 200 || status >= 300) {
		char *why = kvb_lava_api_reason(status, *text);
		rc = kvb_error_set(err, KVB_ETARGET, "LAVA %s: logs of job %lld: %s", a->url, (long long)job_id, why);
		free(why);
		free(*text);
		*text = NULL;
	}
	return rc;
}

int kvb_lava_job_cancel(const struct kvb_lava_api *a, int64_t job_id, struct kvb_error *err)
{
	char path[64], what[64];
	cJSON *resp;
	int rc;
	snprintf(path, sizeof(path), "api/v0.2/jobs/%lld/cancel/", (long long)job_id);
	snprintf(what, sizeof(what), "cancelling job %lld", (long long)job_id);
	rc = call_json(a, "GET", path, NULL, what, &resp, err);
	cJSON_Delete(resp);
	return rc;
}

int kvb_lava_log_parse(const char *text, cJSON **entries, struct kvb_error *err)
{
	/* the log is a top-level sequence; the loader wants a mapping: put it under one key */
	struct kvb_buf b = KVB_BUF_INIT;
	struct kvb_doc doc;
	struct kvb_diag d;
	int rc;
	*entries = NULL;
	kvb_buf_addf(&b, "log:\n%s", text);
	kvb_diag_init(&d, NULL);
	rc = kvb_doc_parse(&doc, "LAVA job log", b.data, b.len, &d);
	if (rc) {
		rc = kvb_error_set(err, KVB_EINPUT, "%s", d.msgs.n ? d.msgs.v[0] : "LAVA job log does not parse");
	} else {
		cJSON *log = cJSON_GetObjectItemCaseSensitive(doc.root, "log");
		if (cJSON_IsNull(log) || !log)
			*entries = cJSON_CreateArray();
		else if (!cJSON_IsArray(log))
			rc = kvb_error_set(err, KVB_EINPUT, "LAVA job log: not a list of entries");
		else
			*entries = cJSON_Duplicate(log, 1);
		kvb_doc_release(&doc);
	}
	kvb_diag_release(&d);
	kvb_buf_release(&b);
	return rc;
}

int kvb_lava_log_failure(const cJSON *entries, char *type, size_t ntype, char *msg, size_t nmsg)
{
	const cJSON *e, *found = NULL;
	type[0] = msg[0] = '\0';
	cJSON_ArrayForEach(e, entries)
	{
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "msg");
		if (!cJSON_IsObject(m))
			continue;
		if (!strcmp(kvb_get_str(e, "lvl", ""), "results") && !strcmp(kvb_get_str(m, "definition", ""), "lava") &&
		    !strcmp(kvb_get_str(m, "case", ""), "job"))
			found = m;
	}
	if (!found)
		return 0;
	copy_str(type, ntype, found, "error_type");
	copy_str(msg, nmsg, found, "error_msg");
	/* a validation error ends with a newline (JobError "Invalid job data: [...]\n"): messages quote it in a line */
	for (size_t n = strlen(msg); n && (msg[n - 1] == '\n' || msg[n - 1] == '\r' || msg[n - 1] == ' '); n--)
		msg[n - 1] = '\0';
	return !strcmp(kvb_get_str(found, "result", ""), "fail");
}

int kvb_lava_job_logs_from(const struct kvb_lava_api *a, int64_t job_id, size_t start, char **text,
			   struct kvb_error *err)
{
	char path[96];
	long status;
	int rc;
	snprintf(path, sizeof(path), "api/v0.2/jobs/%lld/logs/?start=%zu", (long long)job_id, start);
	if ((rc = kvb_lava_http(a, "GET", path, NULL, &status, text, err)))
		return rc;
	if (status == 404) {
		/* no line from start on yet (or no log yet) */
		free(*text);
		*text = NULL;
	} else if (status < 200 || status >= 300) {
		char *why = kvb_lava_api_reason(status, *text);
		rc = kvb_error_set(err, KVB_ETARGET, "LAVA %s: logs of job %lld: %s", a->url, (long long)job_id, why);
		free(why);
		free(*text);
		*text = NULL;
	}
	return rc;
}

int kvb_lava_device_get(const struct kvb_lava_api *a, const char *hostname, struct kvb_lava_device *d,
			struct kvb_error *err)
{
	struct kvb_buf path = KVB_BUF_INIT;
	cJSON *resp;
	const cJSON *dt;
	char what[192];
	int rc;
	memset(d, 0, sizeof(*d));
	kvb_buf_adds(&path, "api/v0.2/devices/");
	kvb_buf_add_url_escaped(&path, hostname);
	kvb_buf_adds(&path, "/");
	snprintf(what, sizeof(what), "device %s", hostname);
	rc = call_json(a, "GET", path.data, NULL, what, &resp, err);
	kvb_buf_release(&path);
	if (rc)
		return rc;
	copy_str(d->hostname, sizeof(d->hostname), resp, "hostname");
	dt = cJSON_GetObjectItemCaseSensitive(resp, "device_type");
	if (cJSON_IsString(dt))
		snprintf(d->device_type, sizeof(d->device_type), "%s", dt->valuestring);
	copy_str(d->health, sizeof(d->health), resp, "health");
	copy_str(d->state, sizeof(d->state), resp, "state");
	cJSON_Delete(resp);
	return KVB_OK;
}

int kvb_lava_devices_tagged(const struct kvb_lava_api *a, const char *tag, size_t *count, char *first, size_t nfirst,
			    struct kvb_error *err)
{
	struct kvb_buf path = KVB_BUF_INIT;
	cJSON *resp;
	const cJSON *n, *res;
	char what[192];
	int rc;
	*count = 0;
	if (first && nfirst)
		first[0] = '\0';
	kvb_buf_adds(&path, "api/v0.2/devices/?tags__name=");
	kvb_buf_add_url_escaped(&path, tag);
	snprintf(what, sizeof(what), "devices tagged %s", tag);
	rc = call_json(a, "GET", path.data, NULL, what, &resp, err);
	kvb_buf_release(&path);
	if (rc)
		return rc;
	n = cJSON_GetObjectItemCaseSensitive(resp, "count");
	res = cJSON_GetObjectItemCaseSensitive(resp, "results");
	if (!cJSON_IsNumber(n) || !cJSON_IsArray(res)) {
		cJSON_Delete(resp);
		return kvb_error_set(err, KVB_ETARGET, "LAVA %s: %s: no count/results in the answer", a->url, what);
	}
	*count = (size_t)n->valuedouble;
	if (first && nfirst && cJSON_GetArraySize(res) > 0)
		copy_str(first, nfirst, cJSON_GetArrayItem(res, 0), "hostname");
	cJSON_Delete(resp);
	return KVB_OK;
}

int kvb_lava_devices_of_type(const struct kvb_lava_api *a, const char *dt, size_t *total, size_t *usable,
			     struct kvb_error *err)
{
	struct kvb_buf path = KVB_BUF_INIT;
	cJSON *resp;
	const cJSON *res, *d;
	char what[192];
	int rc;
	*total = *usable = 0;
	kvb_buf_adds(&path, "api/v0.2/devices/?limit=1000&device_type=");
	kvb_buf_add_url_escaped(&path, dt);
	snprintf(what, sizeof(what), "devices of type %s", dt);
	rc = call_json(a, "GET", path.data, NULL, what, &resp, err);
	kvb_buf_release(&path);
	if (rc)
		return rc;
	res = cJSON_GetObjectItemCaseSensitive(resp, "results");
	cJSON_ArrayForEach(d, res)
	{
		const char *h = kvb_get_str(d, "health", "");
		(*total)++;
		*usable += !strcmp(h, "Good") || !strcmp(h, "Unknown");
	}
	cJSON_Delete(resp);
	return KVB_OK;
}

int kvb_lava_jobs_in_flight_named(const struct kvb_lava_api *a, const char *name, int64_t *ids, size_t max, size_t *n,
				  struct kvb_error *err)
{
	struct kvb_buf path = KVB_BUF_INIT;
	cJSON *resp;
	const cJSON *res, *j;
	int rc;
	*n = 0;
	kvb_buf_adds(&path, "api/v0.2/jobs/?limit=100&state__in=Submitted,Scheduling,Scheduled,Running,Canceling&description=");
	kvb_buf_add_url_escaped(&path, name);
	rc = call_json(a, "GET", path.data, NULL, "jobs in flight", &resp, err);
	kvb_buf_release(&path);
	if (rc)
		return rc;
	res = cJSON_GetObjectItemCaseSensitive(resp, "results");
	cJSON_ArrayForEach(j, res)
	{
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "id");
		if (cJSON_IsNumber(id) && *n < max)
			ids[(*n)++] = (int64_t)id->valuedouble;
	}
	cJSON_Delete(resp);
	return KVB_OK;
}
