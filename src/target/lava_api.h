/*
 * LAVA's REST API v0.2 and job logs, as lava-server 2023.01 (Debian bookworm)
 * serves them; the formats were read from that version's lava_rest_app and
 * captured from it (tests/fixtures/field/lava/, PROVENANCE):
 *  - POST {url}api/v0.2/jobs/ {"definition": YAML}  -> {"message", "job_ids": [N]};
 *    400 {"message": "Devices unavailable: Device type 'x' is unavailable."}
 *  - GET  {url}api/v0.2/jobs/N/        -> {"id", "state", "health", "actual_device",
 *    "failure_comment", ...}; state Submitted|Scheduling|Scheduled|Running|Canceling|
 *    Finished, health Unknown|Complete|Incomplete|Canceled
 *  - GET  {url}api/v0.2/jobs/N/logs/   -> the job log: YAML, one entry a line,
 *    `- {"dt": ..., "lvl": "target"|"debug"|"results"|"error"|..., "msg": ...}`
 *  - GET  {url}api/v0.2/jobs/N/cancel/ -> {"message": "Job cancel signal sent."}
 *  - bad token: 403 {"detail": "Invalid token."}; unknown job: 404 {"detail": "Not found."}
 * Authentication: "Authorization: Token <token>" (token from the environment, never stored).
 */
#ifndef KVB_LAVA_API_H
#define KVB_LAVA_API_H

#include "core/error.h"

#include <cjson/cJSON.h>
#include <stdint.h>

struct kvb_lava_api {
	const char *url;    /* server root with trailing '/', e.g. http://127.0.0.1:8000/ (borrowed) */
	const char *token;  /* API token (borrowed; never logged) */
	long timeout_s;     /* bound on one HTTP request */
};

/*
 * One request: method GET or POST (body JSON, may be NULL), path below url
 * ("api/v0.2/jobs/"). *status gets the HTTP status, *resp the body (owned,
 * NUL-terminated). KVB_ETARGET when the server cannot be reached (the
 * message names the URL and libcurl's reason); an HTTP error status is not an
 * error here (see kvb_lava_api_reason).
 */
int kvb_lava_http(const struct kvb_lava_api *a, const char *method, const char *path, const char *body, long *status,
		  char **resp, struct kvb_error *err);

/* LAVA's own words for a failed request: "detail" or "message" of the JSON body, else the body. Owned. */
char *kvb_lava_api_reason(long status, const char *body);

/* Submits a job definition (YAML or JSON text); *job_id its id. KVB_ETARGET with LAVA's reason. */
int kvb_lava_submit(const struct kvb_lava_api *a, const char *definition, int64_t *job_id, struct kvb_error *err);

/* A job's state and health (LAVA's display names) and device (may be ""). */
struct kvb_lava_job {
	char state[32], health[32], device[128];
	char failure_comment[512];
};
int kvb_lava_job_get(const struct kvb_lava_api *a, int64_t job_id, struct kvb_lava_job *j, struct kvb_error *err);
/* The same fields from an answer of GET jobs/N/ (missing ones ""). */
void kvb_lava_job_read(const cJSON *o, struct kvb_lava_job *j);

/*
 * What a finished job means for kvbench, from its health (GET jobs/N/) and the
 * error_type of its log's job result (kvb_lava_log_failure): LAVA 2023.01 puts
 * the class of the exception that ended the job there (lava_common/exceptions.py:
 * InfrastructureError and its ConnectionClosedError say "Infrastructure": the lab
 * failed, not the kernel or the job, so a new submission may pass; JobError "Job",
 * TestError "Test", LAVABug "Bug", ... fail the unit). The job's failure_tags and
 * failure_comment stay empty for such errors (tests/fixtures/field/lava/
 * job-incomplete-infra.json): the log is the only place that says it.
 */
enum kvb_lava_outcome {
	KVB_LAVA_DONE,     /* Complete */
	KVB_LAVA_RETRY,    /* Incomplete with an Infrastructure error */
	KVB_LAVA_FAILED,   /* Incomplete otherwise */
	KVB_LAVA_CANCELED, /* Canceled */
};
enum kvb_lava_outcome kvb_lava_outcome(const char *health, const char *error_type);
/* The job's log text (YAML), owned in *text. */
int kvb_lava_job_logs(const struct kvb_lava_api *a, int64_t job_id, char **text, struct kvb_error *err);
int kvb_lava_job_cancel(const struct kvb_lava_api *a, int64_t job_id, struct kvb_error *err);

/*
 * Parses a job log into a cJSON array of {dt, lvl, msg} (owned in *entries).
 * The log is YAML (a sequence; results entries carry `!` tags): it is read with
 * the same YAML loader as agendas. KVB_EINPUT when it does not parse.
 */
int kvb_lava_log_parse(const char *text, cJSON **entries, struct kvb_error *err);

/*
 * The job's own verdict in its log: the last `results` entry of definition
 * "lava", case "job": error_type ("Infrastructure", "Job", "Test", "Bug",
 * "Configuration", "Canceled"...) and error_msg, copied into the buffers (""
 * when absent). Returns 1 when such an entry says fail, 0 otherwise.
 */
int kvb_lava_log_failure(const cJSON *entries, char *type, size_t ntype, char *msg, size_t nmsg);

/*
 * The job's log from line `start` on (LAVA's ?start=N, 0-based line numbers):
 * *text owned, or NULL when there is no such line yet (LAVA answers 404 for
 * an empty range). For following a job while it runs.
 */
int kvb_lava_job_logs_from(const struct kvb_lava_api *a, int64_t job_id, size_t start, char **text,
			   struct kvb_error *err);

/* A device as GET devices/HOSTNAME/ shows it (display names). */
struct kvb_lava_device {
	char hostname[128], device_type[128], health[32], state[32];
};
int kvb_lava_device_get(const struct kvb_lava_api *a, const char *hostname, struct kvb_lava_device *d,
			struct kvb_error *err);
/*
 * The devices carrying tag (GET devices/?tags__name=TAG): how many, and the
 * first one's hostname in first (may be NULL). For asking LAVA for one device:
 * a job's tags select the devices that carry all of them.
 */
int kvb_lava_devices_tagged(const struct kvb_lava_api *a, const char *tag, size_t *count, char *first, size_t nfirst,
			    struct kvb_error *err);

/*
 * Ids of the jobs named `name` (their job_name; GET jobs/?description=NAME) that are
 * not Finished, at most max into ids; *n their count.
 */
int kvb_lava_jobs_in_flight_named(const struct kvb_lava_api *a, const char *name, int64_t *ids, size_t max, size_t *n,
				  struct kvb_error *err);

/*
 * The devices of device type dt (GET devices/?device_type=DT): how many, and how many
 * may take a job (health Good or Unknown: not Bad, Maintenance, Looping or Retired).
 */
int kvb_lava_devices_of_type(const struct kvb_lava_api *a, const char *dt, size_t *total, size_t *usable,
			     struct kvb_error *err);

#endif
