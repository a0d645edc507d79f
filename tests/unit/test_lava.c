/* Tests for the LAVA client's readers on real LAVA 2023.01 answers and logs (tests/fixtures/field/lava/PROVENANCE). */
#include "config/keys.h"
#include "core/error.h"
#include "core/util.h"
#include "target/lava_api.h"
#include "workload/workload.h"

#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *name)
{
	char *path = kvb_xasprintf("%s/tests/fixtures/field/lava/%s", KVB_SOURCE_DIR, name);
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	long n;
	if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET)) {
		s = kvb_xmalloc((size_t)n + 1);
		s[fread(s, 1, (size_t)n, f)] = '\0';
	}
	if (f)
		fclose(f);
	if (!s)
		fprintf(stderr, "cannot read %s\n", path);
	free(path);
	return s;
}

static void test_lava__api_reasons_are_lavas_own_words(void)
{
	char *b = slurp("baddt-submit.json"), *t = slurp("badtoken-submit.json"), *n = slurp("nojob-get.json");
	char *r1 = kvb_lava_api_reason(400, b), *r2 = kvb_lava_api_reason(403, t), *r3 = kvb_lava_api_reason(404, n);
	CHECK_STR(r1, "HTTP 400: Devices unavailable: Device type 'nosuchtype' is unavailable.");
	CHECK_STR(r2, "HTTP 403: Invalid token.");
	CHECK_STR(r3, "HTTP 404: Not found.");
	free(r1);
	free(r2);
	free(r3);
	free(b);
	free(t);
	free(n);
}

static void test_lava__complete_log_parses_every_entry(void)
{
	char *text = slurp("job-complete.log.yaml"), type[64], msg[256];
	cJSON *e = NULL;
	struct kvb_error err;
	CHECK(text && kvb_lava_log_parse(text, &e, &err) == KVB_OK);
	/* 315 lines, one entry each; results entries carry YAML `!` tags and still parse */
	CHECK(cJSON_GetArraySize(e) == 315);
	CHECK_STR(kvb_get_str(cJSON_GetArrayItem(e, 275), "msg", NULL), "+ echo KVB-BEGIN 1");
	CHECK(kvb_lava_log_failure(e, type, sizeof(type), msg, sizeof(msg)) == 0);
	CHECK_STR(type, "");
	cJSON_Delete(e);
	free(text);
}

static void test_lava__incomplete_log_gives_the_error_type_and_message(void)
{
	char *text = slurp("job-incomplete-job-error.log.yaml"), type[64], msg[256];
	cJSON *e = NULL;
	struct kvb_error err;
	CHECK(text && kvb_lava_log_parse(text, &e, &err) == KVB_OK);
	CHECK(cJSON_GetArraySize(e) == 220);
	CHECK(kvb_lava_log_failure(e, type, sizeof(type), msg, sizeof(msg)) == 1);
	CHECK_STR(type, "Job");
	CHECK_STR(msg, "auto-login-action timed out after 240 seconds");
	cJSON_Delete(e);
	free(text);
}

struct got {
	size_t n, k[16];
	int rc[16];
	char out[16][256], err[16][256];
};

static void on_cmd(void *arg, size_t k, int rc, const char *out, const char *err)
{
	struct got *g = arg;
	if (g->n < 16) {
		g->k[g->n] = k;
		g->rc[g->n] = rc;
		snprintf(g->out[g->n], sizeof(g->out[0]), "%s", out);
		snprintf(g->err[g->n], sizeof(g->err[0]), "%s", err);
	}
	g->n++;
}

static void test_lava__markers_ignore_the_shells_trace_and_kernel_lines(void)
{
	/* the shape of lines LAVA logs from the console (lvl target), \r and all; a trace line
	 * ("+ echo ...") and an interleaved kernel line must not count; an unfinished command neither */
	const char *log =
		"- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"+ echo 'KVB-X 0 BEGIN'\"}\n"
		"- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"KVB-X 0 BEGIN\\r\"}\n"
		"- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"KVB-X 0 O 6.1.0-57-cloud-amd64\\r\"}\n"
		"- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"[   12.3] random: crng init done\"}\n"
		"- {\"dt\": \"t\", \"lvl\": \"debug\", \"msg\": \"KVB-X 0 O not from the target\"}\n"
		"- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"KVB-X 0 E warn\"}\n"
		"- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"KVB-X 0 RC 3\"}\n"
		"- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"KVB-X 0 END\"}\n"
		"- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"KVB-X 1 BEGIN\"}\n"
		"- {\"dt\": \"t\", \"lvl\": \"target\", \"msg\": \"KVB-X 1 O half\"}\n";
	cJSON *e = NULL;
	struct kvb_error err;
	struct got g = { 0 };
	CHECK(kvb_lava_log_parse(log, &e, &err) == KVB_OK);
	CHECK(kvb_lava_log_commands(e, on_cmd, &g) == 1);
	CHECK(g.n == 1 && g.k[0] == 0 && g.rc[0] == 3);
	CHECK_STR(g.out[0], "6.1.0-57-cloud-amd64\n");
	CHECK_STR(g.err[0], "warn\n");
	cJSON_Delete(e);
}

static void test_lava__kvbench_job_log_gives_every_command_and_parses(void)
{
	char *text = slurp("kvbench-job.log.yaml");
	cJSON *e = NULL;
	struct kvb_error err;
	struct got g = { 0 };
	struct kvb_metrics m;
	CHECK(text && kvb_lava_log_parse(text, &e, &err) == KVB_OK);
	/* 3 identity commands + 4 jobs x (mkdir, workload, rm) */
	CHECK(kvb_lava_log_commands(e, on_cmd, &g) == 15);
	CHECK(g.k[0] == 0 && g.rc[0] == 0);
	CHECK_STR(g.out[0], "6.1.0-57-cloud-amd64\n");
	CHECK_STR(g.out[2], "console=ttyS0,115200 root=/dev/vda rw loglevel=6 panic=-1\n");
	CHECK(g.k[4] == 4 && g.rc[4] == 0);
	CHECK_STR(g.out[4], "Running in process mode with 4 groups using 40 file descriptors each (== 160 tasks)\n"
			    "Each sender will pass 200 messages of 100 bytes\nTime: 300.914\n");
	/* the workload's own parser reads it as from a live board */
	kvb_metrics_init(&m);
	CHECK(kvb_parse_hackbench(g.out[4], &m, &err) == KVB_OK);
	CHECK(m.n >= 1 && !strcmp(m.v[0].name, "time"));
	if (m.n)
		CHECK_NEAR(m.v[0].value, 300.914, 1e-9);
	kvb_metrics_release(&m);
	cJSON_Delete(e);
	free(text);
}

static void test_lava__infrastructure_error_is_submitted_again(void)
{
	/* a real job on a device whose QEMU cannot start: LAVA loses the console, Infrastructure */
	char *js = slurp("job-incomplete-infra.json"), *text = slurp("job-incomplete-infra.log.yaml"), type[64],
	     msg[256];
	cJSON *o = cJSON_Parse(js ? js : ""), *e = NULL;
	struct kvb_lava_job j;
	struct kvb_error err;
	memset(&j, 0, sizeof(j));
	kvb_lava_job_read(o, &j);
	CHECK_STR(j.state, "Finished");
	CHECK_STR(j.health, "Incomplete");
	CHECK_STR(j.device, "kvb-broken-01");
	CHECK_STR(j.failure_comment, ""); /* LAVA says nothing there: only the log does */
	CHECK(text && kvb_lava_log_parse(text, &e, &err) == KVB_OK);
	CHECK(cJSON_GetArraySize(e) == 209);
	CHECK(kvb_lava_log_failure(e, type, sizeof(type), msg, sizeof(msg)) == 1);
	CHECK_STR(type, "Infrastructure");
	CHECK_STR(msg, "Connection closed");
	CHECK(kvb_lava_outcome(j.health, type) == KVB_LAVA_RETRY);
	cJSON_Delete(e);
	cJSON_Delete(o);
	free(js);
	free(text);
}

static void test_lava__job_error_and_cancel_are_not_submitted_again(void)
{
	char *text = slurp("job-incomplete-job-error.log.yaml"), *js = slurp("job-canceled.json"),
	     *jc = slurp("job-complete.json"), type[64], msg[256];
	cJSON *e = NULL, *o = cJSON_Parse(js ? js : ""), *oc = cJSON_Parse(jc ? jc : "");
	struct kvb_lava_job j, jd;
	struct kvb_error err;
	memset(&j, 0, sizeof(j));
	memset(&jd, 0, sizeof(jd));
	CHECK(text && kvb_lava_log_parse(text, &e, &err) == KVB_OK);
	kvb_lava_log_failure(e, type, sizeof(type), msg, sizeof(msg));
	CHECK(kvb_lava_outcome("Incomplete", type) == KVB_LAVA_FAILED); /* error_type Job */
	CHECK(kvb_lava_outcome("Incomplete", "") == KVB_LAVA_FAILED);   /* no verdict in the log */
	kvb_lava_job_read(o, &j);
	CHECK_STR(j.health, "Canceled");
	CHECK(kvb_lava_outcome(j.health, "") == KVB_LAVA_CANCELED);
	kvb_lava_job_read(oc, &jd);
	CHECK_STR(jd.health, "Complete");
	CHECK(kvb_lava_outcome(jd.health, "") == KVB_LAVA_DONE);
	cJSON_Delete(e);
	cJSON_Delete(o);
	cJSON_Delete(oc);
	free(text);
	free(js);
	free(jc);
}

static void test_lava__validation_error_is_a_job_error_on_one_line(void)
{
	char *text = slurp("job-incomplete-invalid.log.yaml"), type[64], msg[256];
	cJSON *e = NULL;
	struct kvb_error err;
	CHECK(text && kvb_lava_log_parse(text, &e, &err) == KVB_OK);
	CHECK(cJSON_GetArraySize(e) == 13);
	CHECK(kvb_lava_log_failure(e, type, sizeof(type), msg, sizeof(msg)) == 1);
	CHECK_STR(type, "Job");
	/* LAVA's message ends with a newline; kvbench quotes it inside a line */
	CHECK_STR(msg, "Invalid job data: [\"Image file '/nonexistent/kvb-no-such-rootfs.ext4' does not exist or is "
		       "not readable\"]");
	CHECK(kvb_lava_outcome("Incomplete", type) == KVB_LAVA_FAILED);
	cJSON_Delete(e);
	free(text);
}

#define TESTS                                                                                                          \
	T(test_lava__api_reasons_are_lavas_own_words)                                                                  \
	T(test_lava__complete_log_parses_every_entry)                                                                  \
	T(test_lava__incomplete_log_gives_the_error_type_and_message)                                                  \
	T(test_lava__markers_ignore_the_shells_trace_and_kernel_lines)                                                 \
	T(test_lava__kvbench_job_log_gives_every_command_and_parses)                                                   \
	T(test_lava__infrastructure_error_is_submitted_again)                                                         \
	T(test_lava__job_error_and_cancel_are_not_submitted_again)                                                   \
	T(test_lava__validation_error_is_a_job_error_on_one_line)
#include "test_main.h"
