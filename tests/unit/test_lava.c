/* Tests for the LAVA client's readers on real LAVA 2023.01 answers and logs (tests/fixtures/field/lava/PROVENANCE). */
#include "config/keys.h"
#include "core/error.h"
#include "core/util.h"
#include "config/agenda.h"
#include "core/buf.h"
#include "target/lava_api.h"
#include "target/lava_markers.h"
#include "target/target.h"
#include "workload/workload.h"

#include "test.h"
#include "test_platform.h"

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

/* ---- console markers (issue 25 item 10): a real LAVA log of kvbench's test shell, printk spliced in ---- */

#define NONCE "75c7672d3d7aa691"
#define PRINTK "[  148.302770] hrtimer: interrupt took 12055640 ns" /* a real printk (kvbench-job.log.yaml:324) */

struct cmds {
	size_t n;
	int rc[16], bad[16];
	unsigned repaired[16];
	char out[16][512], err[16][256], why[16][512];
	int64_t b[16], e[16];
};

static void on_cmd(void *arg, const struct kvb_lava_cmd_out *c)
{
	struct cmds *g = arg;
	g->n++;
	if (c->k >= 16)
		return;
	g->rc[c->k] = c->rc;
	g->bad[c->k] = c->bad != NULL;
	g->repaired[c->k] = c->repaired;
	g->b[c->k] = c->begin_ns;
	g->e[c->k] = c->end_ns;
	snprintf(g->out[c->k], sizeof(g->out[0]), "%s", c->out);
	snprintf(g->err[c->k], sizeof(g->err[0]), "%s", c->err);
	snprintf(g->why[c->k], sizeof(g->why[0]), "%s", c->bad ? c->bad : "");
}

/* Reads a log text with the reader; returns the entries' reader result in g (zeroed here). */
static void read_log(const char *text, const char *nonce, struct cmds *g, struct kvb_lava_reader *r)
{
	cJSON *e = NULL;
	struct kvb_error err;
	memset(g, 0, sizeof(*g));
	for (int i = 0; i < 16; i++)
		g->rc[i] = -99;
	CHECK(text && kvb_lava_log_parse(text, &e, &err) == KVB_OK);
	kvb_lava_reader_init(r, nonce, on_cmd, g);
	kvb_lava_reader_feed(r, e);
	kvb_lava_reader_flush(r);
	cJSON_Delete(e);
}

/*
 * The log with the entry whose msg is exactly `msg` replaced: `replacement` is
 * one or more msg texts separated by '\n', each becoming an entry with the same
 * dt and lvl (what LAVA logs when the console line was split). Owned.
 */
static char *respliced(const char *text, const char *msg, const char *replacement)
{
	struct kvb_buf b = KVB_BUF_INIT, pat = KVB_BUF_INIT;
	const char *at, *ls, *le, *m;
	kvb_buf_addf(&pat, "\"msg\": \"%s\"}", msg);
	at = strstr(text, pat.data);
	CHECK(at != NULL);
	if (!at) {
		kvb_buf_release(&pat);
		return kvb_xstrdup(text);
	}
	for (ls = at; ls > text && ls[-1] != '\n'; ls--)
		;
	le = strchr(at, '\n');
	kvb_buf_add(&b, text, (size_t)(ls - text));
	m = replacement;
	for (;;) {
		size_t n = strcspn(m, "\n");
		kvb_buf_add(&b, ls, (size_t)(at - ls));
		kvb_buf_adds(&b, "\"msg\": \"");
		kvb_buf_add(&b, m, n);
		kvb_buf_adds(&b, "\"}\n");
		if (!m[n])
			break;
		m += n + 1;
	}
	kvb_buf_adds(&b, le ? le + 1 : "");
	kvb_buf_release(&pat);
	return kvb_buf_detach(&b);
}

#define RC4 "KVB-" NONCE " 4 RC 0 143 bb4b9b0e630c59bb9753f62261c0f417bd324668e4fc5213d1f1f128d26458d0 0 " \
	    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define RC4_TAIL "143 bb4b9b0e630c59bb9753f62261c0f417bd324668e4fc5213d1f1f128d26458d0 0 " \
		 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define HB_OUT "Running in process mode with 2 groups using 40 file descriptors each (== 80 tasks)\n" \
	       "Each sender will pass 50 messages of 100 bytes\nTime: 19.684\n"

static void test_lava__markers_read_every_command_of_a_real_job(void)
{
	char *text = slurp("kvbench-markers-job.log.yaml");
	struct kvb_lava_reader r;
	struct cmds g;
	struct kvb_metrics m;
	struct kvb_error err;
	read_log(text, NONCE, &g, &r);
	/* 3 identity commands + 2 jobs x (mkdir, workload, rm); the test shell then waited for the results */
	CHECK(g.n == 9);
	CHECK(r.waiting == 1 && r.notes.n == 0);
	CHECK_STR(g.out[0], "6.1.0-57-cloud-amd64\n");
	CHECK_STR(g.out[2], "console=ttyS0,115200 root=/dev/vda rw loglevel=6 panic=-1\n");
	CHECK(g.rc[4] == 0 && !g.bad[4] && g.repaired[4] == 0);
	CHECK_STR(g.out[4], HB_OUT);
	/* the command's time on the board, from LAVA's timestamps (10:51:50.761059 .. 10:52:14.940369 UTC) */
	CHECK(g.b[4] == 1796208710761059000LL && g.e[4] == 1796208734940369000LL);
	kvb_metrics_init(&m);
	CHECK(kvb_parse_hackbench(g.out[4], &m, &err) == KVB_OK && m.n >= 1);
	if (m.n)
		CHECK_NEAR(m.v[0].value, 19.684, 1e-9);
	kvb_metrics_release(&m);
	kvb_metrics_init(&m);
	CHECK(kvb_parse_sched_pipe(g.out[7], &m, &err) == KVB_OK && m.n >= 1);
	kvb_metrics_release(&m);
	kvb_lava_reader_release(&r);
	/* another job's nonce: none of these lines is a marker */
	read_log(text, "0123456789abcdef", &g, &r);
	CHECK(g.n == 0);
	kvb_lava_reader_release(&r);
	free(text);
}

static void test_lava__printk_in_an_exit_status_line_never_reads_as_zero(void)
{
	/* the board's hackbench exited 1; the kernel printed a message right after "RC " */
	char *text = slurp("kvbench-markers-job.log.yaml"), *one, *split, *lost;
	struct kvb_lava_reader r;
	struct cmds g;
	one = respliced(text, RC4, "KVB-" NONCE " 4 RC 1 " RC4_TAIL);
	split = respliced(one, "KVB-" NONCE " 4 RC 1 " RC4_TAIL, "KVB-" NONCE " 4 RC " PRINTK "\n1 " RC4_TAIL);
	read_log(split, NONCE, &g, &r);
	/* the message is cut out, the line joined again: exit 1, as the board said (atoi read 0 here) */
	CHECK(g.n == 9 && g.rc[4] == 1 && !g.bad[4] && g.repaired[4] == 1);
	kvb_lava_reader_release(&r);
	/* the rest of the line lost: the command fails, its status is not 0 */
	lost = respliced(one, "KVB-" NONCE " 4 RC 1 " RC4_TAIL, "KVB-" NONCE " 4 RC " PRINTK);
	read_log(lost, NONCE, &g, &r);
	CHECK(g.n == 9 && g.bad[4] && g.rc[4] != 0);
	CHECK(strstr(g.why[4], "exit status line cannot be read") != NULL);
	kvb_lava_reader_release(&r);
	free(lost);
	free(split);
	free(one);
	free(text);
}

static void test_lava__printk_inside_an_output_line_is_taken_out_only_when_the_sha256_agrees(void)
{
	char *text = slurp("kvbench-markers-job.log.yaml"), *split, *nosum;
	struct kvb_lava_reader r;
	struct cmds g;
	struct kvb_metrics m;
	struct kvb_error err;
	/* "Time: 19.684" with the kernel's line landing inside it: "KVB-.. O Ti" PRINTK "\n" "me: 19.684" */
	split = respliced(text, "KVB-" NONCE " 4 O Time: 19.684", "KVB-" NONCE " 4 O Ti" PRINTK "\nme: 19.684");
	read_log(split, NONCE, &g, &r);
	CHECK(!g.bad[4] && g.rc[4] == 0 && g.repaired[4] == 1);
	CHECK_STR(g.out[4], HB_OUT); /* hackbench's Time: line is there again (it was dropped) */
	kvb_metrics_init(&m);
	CHECK(kvb_parse_hackbench(g.out[4], &m, &err) == KVB_OK && m.n >= 1);
	if (m.n)
		CHECK_NEAR(m.v[0].value, 19.684, 1e-9);
	kvb_metrics_release(&m);
	kvb_lava_reader_release(&r);
	/* a board without sha256sum ("-"): the byte count alone proves no repair: the command fails */
	nosum = respliced(split, RC4, "KVB-" NONCE " 4 RC 0 143 - 0 -");
	read_log(nosum, NONCE, &g, &r);
	CHECK(g.bad[4] && strstr(g.why[4], "stdout as logged") != NULL);
	CHECK_STR(g.out[4], "");
	kvb_lava_reader_release(&r);
	free(nosum);
	free(split);
	free(text);
}

static void test_lava__an_exit_status_is_parsed_strictly(void)
{
	static const char *const bad[] = {
		"256 " RC4_TAIL,       /* beyond an exit status */
		"1x " RC4_TAIL,        /* not a number */
		"-1 " RC4_TAIL,        /* signed */
		" 1 " RC4_TAIL,        /* an empty field */
		"1 143 bb4b 0 -",      /* a short checksum */
		"1 143",               /* fields missing */
		"1 " RC4_TAIL " 7",    /* a field too many */
	};
	char *text = slurp("kvbench-markers-job.log.yaml");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char line[512], *t;
		struct kvb_lava_reader r;
		struct cmds g;
		snprintf(line, sizeof(line), "KVB-" NONCE " 4 RC %s", bad[i]);
		t = respliced(text, RC4, line);
		read_log(t, NONCE, &g, &r);
		CHECK(g.n == 9 && g.bad[4] && g.rc[4] != 0);
		if (!g.bad[4])
			fprintf(stderr, "  read as good: %s\n", line);
		kvb_lava_reader_release(&r);
		free(t);
	}
	{
		/* the END lost and the next command's BEGIN closes it: its RC line said everything */
		struct kvb_lava_reader r;
		struct cmds g;
		char *t = respliced(text, "KVB-" NONCE " 4 END", "KVB-" NONCE " 4 EN" PRINTK "\nD");
		read_log(t, NONCE, &g, &r);
		CHECK(g.n == 9 && !g.bad[4] && g.rc[4] == 0);
		kvb_lava_reader_release(&r);
		free(t);
	}
	free(text);
}

/* ---- job definitions from the platform's lava: block (issue 28 item 1) ---- */

#define LAB_PLATFORM                                                                                                   \
	"name: t\n"                                                                                                    \
	"connection: {type: lava, url: 'http://lava.invalid/', token_env: KVB_T_NO_TOKEN, device_type: qemu,\n"         \
	"             device: kvb-qemu-02, rootfs: 'https://files.example/rootfs.ext4.gz', prompt: 'kvb# ',\n"          \
	"             kernel_cmdline: 'console=ttyS0', tags: [fast]}\n"                                                   \
	"flash: {method: lava}\n"                                                                                       \
	"lava:\n"                                                                                                       \
	"  priority: 42\n"                                                                                              \
	"  visibility: {group: [kernel]}\n"                                                                             \
	"  test_timeout_min: 30\n"                                                                                      \
	"  device_types:\n"                                                                                             \
	"    qemu:\n"                                                                                                   \
	"      context: {arch: amd64}\n"                                                                                \
	"      deploy:\n"                                                                                               \
	"        to: tmpfs\n"                                                                                           \
	"        images:\n"                                                                                             \
	"          kernel: {url: '${kernel}', image_arg: '-kernel {kernel} -append \"${cmdline}\"'}\n"                 \
	"          initrd: {url: '${initrd}', compression: '${initrd_compression?}', format: cpio.newc}\n"              \
	"          rootfs: {url: '${rootfs}', compression: '${rootfs_compression?}'}\n"                                 \
	"      boot: {method: qemu, prompts: ['${prompt}']}\n"

/* The definition of one unit on platform yaml (offline: nothing reached) for a variant with kernel (and initrd). */
static cJSON *describe(const char *yaml, const char *kernel, const char *initrd, const char *cmdline)
{
	struct kvb_platform p;
	struct kvb_diag d;
	struct kvb_target t;
	struct kvb_error err;
	struct kvb_variant v;
	struct kvb_exec_result r;
	const char *argv[] = { "uname", "-r", NULL };
	cJSON *def = NULL;
	char *s;
	memset(&t, 0, sizeof(t));
	memset(&v, 0, sizeof(v));
	v.name = "base";
	v.kernel = (char *)kernel;
	v.initrd = (char *)initrd;
	v.cmdline = (char *)cmdline;
	if (load_text(&p, &d, yaml) != KVB_OK) {
		for (size_t i = 0; i < d.msgs.n; i++)
			fprintf(stderr, "  %s\n", d.msgs.v[i]);
		CHECK(0);
		kvb_diag_release(&d);
		kvb_platform_release(&p);
		return NULL;
	}
	t.offline = 1;
	CHECK(kvb_target_open(&t, &p, &err) == KVB_OK);
	kvb_exec_result_init(&r);
	t.ops->batch->record(&t);
	t.ops->batch->mark(&t, "job 0 0001-hackbench");
	CHECK(kvb_target_exec(&t, argv, 1000, &r, &err) == KVB_OK);
	{
		struct kvb_batch_unit u = { .variant = &v, .round = 1, .name = "unit", .artifact_dir = "/tmp" };
		s = t.ops->batch->describe(&t, &u, &err);
		if (!s)
			fprintf(stderr, "  describe: %s\n", err.msg);
	}
	def = s ? cJSON_Parse(s) : NULL;
	free(s);
	kvb_exec_result_release(&r);
	kvb_target_close(&t);
	kvb_diag_release(&d);
	kvb_platform_release(&p);
	return def;
}

static char *replaced(const char *text, const char *from, const char *to);

static const cJSON *path(const cJSON *o, const char *a, const char *b, const char *c)
{
	o = cJSON_GetObjectItemCaseSensitive(o, a);
	if (b)
		o = cJSON_GetObjectItemCaseSensitive(o, b);
	if (c)
		o = cJSON_GetObjectItemCaseSensitive(o, c);
	return o;
}

static void test_lava__definition_is_the_platforms_template_filled(void)
{
	cJSON *def = describe(LAB_PLATFORM, "/boot/vmlinuz-x", "https://files.example/initrd.cpio.gz", "maxcpus=1");
	const cJSON *acts, *dep, *boot, *test, *steps;
	CHECK(def != NULL);
	if (!def)
		return;
	acts = cJSON_GetObjectItemCaseSensitive(def, "actions");
	dep = path(cJSON_GetArrayItem(acts, 0), "deploy", NULL, NULL);
	boot = path(cJSON_GetArrayItem(acts, 1), "boot", NULL, NULL);
	test = path(cJSON_GetArrayItem(acts, 2), "test", NULL, NULL);
	/* priority and visibility are the platform's, not medium/public written in C */
	CHECK(cJSON_GetObjectItemCaseSensitive(def, "priority")->valuedouble == 42);
	CHECK_STR(cJSON_GetArrayItem(path(def, "visibility", "group", NULL), 0)->valuestring, "kernel");
	/* the job outlasts its actions: deploy 10 + boot 5 + test 30 + results 5 + 5 */
	CHECK(path(def, "timeouts", "job", "minutes")->valuedouble == 55);
	CHECK(path(test, "timeout", "minutes", NULL)->valuedouble == 30);
	CHECK(path(def, "timeouts", "job", "minutes")->valuedouble > path(test, "timeout", "minutes", NULL)->valuedouble);
	/* the board's device asked for by its own tag, beside the platform's tags */
	CHECK_STR(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(def, "tags"), 0)->valuestring, "fast");
	CHECK_STR(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(def, "tags"), 1)->valuestring, "kvb-qemu-02");
	CHECK_STR(path(def, "context", "arch", NULL)->valuestring, "amd64");
	/* variables: a local file as file:// offline, URLs as given, the compression from the name */
	CHECK_STR(path(dep, "images", "kernel", "url")->valuestring, "file:///boot/vmlinuz-x");
	CHECK_STR(path(dep, "images", "kernel", "image_arg")->valuestring, "-kernel {kernel} -append \"console=ttyS0 maxcpus=1\"");
	CHECK_STR(path(dep, "images", "initrd", "compression")->valuestring, "gz");
	CHECK_STR(path(dep, "images", "rootfs", "compression")->valuestring, "gz");
	CHECK(path(dep, "timeout", "minutes", NULL)->valuedouble == 10);
	CHECK_STR(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(boot, "prompts"), 0)->valuestring, "kvb# ");
	/* the test shell: the prelude (console loglevel down first), then the command with its test case name */
	steps = path(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(test, "definitions"), 0), "repository", "run",
		     "steps");
	CHECK(strstr(cJSON_GetArrayItem(steps, 0)->valuestring, "dmesg -n 1") != NULL);
	CHECK_STR(cJSON_GetArrayItem(steps, 1)->valuestring, "kvb_x 0 0001-hackbench 'uname' '-r'");
	cJSON_Delete(def);

	/* without lava.test_timeout_min the test action gets its commands' own timeouts (1 s: 1 min) + 2 */
	{
		char *t = replaced(LAB_PLATFORM, "  test_timeout_min: 30\n", "");
		def = describe(t, "/boot/vmlinuz-x", NULL, NULL);
		free(t);
		CHECK(def != NULL);
		if (def) {
			test = path(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(def, "actions"), 2), "test", NULL, NULL);
			CHECK(path(test, "timeout", "minutes", NULL)->valuedouble == 3);
			CHECK(path(def, "timeouts", "job", "minutes")->valuedouble == 28);
		}
		cJSON_Delete(def);
	}

	/* no initrd: its image goes (its mapping needs ${initrd}); an uncompressed file has no compression key */
	def = describe(LAB_PLATFORM, "https://files.example/Image", NULL, NULL);
	CHECK(def != NULL);
	if (def) {
		dep = path(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(def, "actions"), 0), "deploy", NULL, NULL);
		CHECK(path(dep, "images", "initrd", NULL) == NULL);
		CHECK_STR(path(dep, "images", "kernel", "url")->valuestring, "https://files.example/Image");
		CHECK(path(dep, "images", "kernel", "compression") == NULL);
	}
	cJSON_Delete(def);
}

/* text with the first `from` replaced by `to`. Owned. */
static char *replaced(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	CHECK(at != NULL);
	if (!at)
		return kvb_xstrdup(text);
	return kvb_xasprintf("%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
}

/* Loads yaml, which must fail with a message holding want (and, if given, also). */
static void refused(const char *yaml, const char *want, const char *also)
{
	struct kvb_platform p;
	struct kvb_diag d;
	int found = 0;
	CHECK(load_text(&p, &d, yaml) == KVB_EINPUT);
	for (size_t i = 0; i < d.msgs.n; i++)
		found |= strstr(d.msgs.v[i], want) && (!also || strstr(d.msgs.v[i], also));
	CHECK(found);
	if (!found)
		for (size_t i = 0; i < d.msgs.n; i++)
			fprintf(stderr, "  got: %s\n", d.msgs.v[i]);
	kvb_diag_release(&d);
	kvb_platform_release(&p);
}

static void test_lava__templates_are_checked_when_the_platform_loads(void)
{
	char *t;
	t = replaced(LAB_PLATFORM, "device_type: qemu", "device_type: juno-uboot");
	refused(t, "no template for device type 'juno-uboot'", "templates: qemu");
	free(t);
	t = replaced(LAB_PLATFORM, "context: {arch: amd64}", "context: {x: '${kernel_url}'}");
	refused(t, "unknown variable ${kernel_url}", "lava.device_types.qemu.context.x");
	free(t);
	t = replaced(LAB_PLATFORM, "tags: [fast]", "job_timeout_min: 50");
	refused(t, "50 minutes is not more than the job's actions take", "test 30");
	free(t);
	t = replaced(LAB_PLATFORM, "priority: 42", "priority: urgent");
	refused(t, "expected high, medium, low or a number 0..100", "lava.priority");
	free(t);
	t = replaced(LAB_PLATFORM, "      boot: {method: qemu, prompts: ['${prompt}']}\n", "");
	refused(t, "missing required key 'boot'", NULL);
	free(t);
}

#define TESTS                                                                                                          \
	T(test_lava__api_reasons_are_lavas_own_words)                                                                  \
	T(test_lava__complete_log_parses_every_entry)                                                                  \
	T(test_lava__incomplete_log_gives_the_error_type_and_message)                                                  \
	T(test_lava__infrastructure_error_is_submitted_again)                                                         \
	T(test_lava__job_error_and_cancel_are_not_submitted_again)                                                   \
	T(test_lava__validation_error_is_a_job_error_on_one_line)                                                     \
	T(test_lava__markers_read_every_command_of_a_real_job)                                                         \
	T(test_lava__printk_in_an_exit_status_line_never_reads_as_zero)                                                \
	T(test_lava__printk_inside_an_output_line_is_taken_out_only_when_the_sha256_agrees)                            \
	T(test_lava__an_exit_status_is_parsed_strictly)                                                                \
	T(test_lava__definition_is_the_platforms_template_filled)                                                      \
	T(test_lava__templates_are_checked_when_the_platform_loads)
#include "test_main.h"
