/* Implements the C face of the sshd test fixture (tests/integration/sshd-fixture.sh). */
#include "sshd_fixture.h"
#include "core/buf.h"
#include "core/spawn.h"
#include "core/util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIXTURE_SCRIPT KVB_SOURCE_DIR "/tests/integration/sshd-fixture.sh"

int kvb_sshd_run(const char *const *argv, const char *const *env)
{
	struct kvb_spawn_opts o = { .argv = argv, .env = env, .timeout_ms = 60000 };
	struct kvb_exec_result r;
	struct kvb_error err;
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_spawn_run(&o, &r, &err);
	if (rc)
		fprintf(stderr, "sshd fixture: %s\n", err.msg);
	else if (r.exit_code)
		fprintf(stderr, "sshd fixture: '%s' exited %d: %s%s\n", argv[0], r.exit_code, r.out.data, r.err.data);
	rc = rc ? -1 : r.exit_code;
	kvb_exec_result_release(&r);
	return rc;
}

/* Runs the script with cmd; stdout of `start` is KEY=VALUE lines. */
static int script(const char *cmd, const char *dir, const char *arg, const char *extra_env, const char *extra_config,
		  struct kvb_buf *out)
{
	const char *argv[] = { "bash", FIXTURE_SCRIPT, cmd, dir, arg, NULL };
	char *e1 = kvb_xasprintf("SSHD_FIXTURE_SETENV=%s", extra_env ? extra_env : "");
	char *e2 = kvb_xasprintf("SSHD_FIXTURE_CONFIG=%s", extra_config ? extra_config : "");
	char *e3 = kvb_xasprintf("SSHD_FIXTURE_OWNER=%ld", (long)getpid()); /* sshd goes when the test goes */
	const char *env[] = { e1, e2, e3, NULL };
	struct kvb_spawn_opts o = { .argv = argv, .env = env, .timeout_ms = 60000 };
	struct kvb_exec_result r;
	struct kvb_error err;
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_spawn_run(&o, &r, &err);
	if (rc)
		fprintf(stderr, "sshd fixture: %s\n", err.msg);
	else if (r.exit_code) {
		fprintf(stderr, "sshd fixture: %s %s failed: %s\n", cmd, dir, r.err.data);
		rc = -1;
	}
	if (out)
		kvb_buf_add(out, r.out.data, r.out.len);
	kvb_exec_result_release(&r);
	free(e1);
	free(e2);
	free(e3);
	return rc ? -1 : 0;
}

static const char *env_value(const char *text, const char *key)
{
	static char val[KVB_SSHD_PATH_MAX];
	size_t kl = strlen(key);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, key, kl) && l[kl] == '=') {
			size_t n = strcspn(l + kl + 1, "\n");
			snprintf(val, sizeof(val), "%.*s", (int)n, l + kl + 1);
			return val;
		}
	}
	return "";
}

int kvb_sshd_start_in(struct kvb_sshd *s, const char *dir, const char *extra_env, const char *extra_config)
{
	struct kvb_buf out = KVB_BUF_INIT;
	memset(s, 0, sizeof(*s));
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	if (script("start", dir, NULL, extra_env, extra_config, &out)) {
		kvb_buf_release(&out);
		return -1;
	}
	s->port = atoi(env_value(out.data, "SSHD_PORT"));
	snprintf(s->user, sizeof(s->user), "%s", env_value(out.data, "SSHD_USER"));
	snprintf(s->key, sizeof(s->key), "%s", env_value(out.data, "SSHD_KEY"));
	snprintf(s->known_hosts, sizeof(s->known_hosts), "%s", env_value(out.data, "SSHD_KNOWN_HOSTS"));
	snprintf(s->platform, sizeof(s->platform), "%s", env_value(out.data, "SSHD_PLATFORM"));
	snprintf(s->log, sizeof(s->log), "%s", env_value(out.data, "SSHD_LOG"));
	snprintf(s->host_pub, sizeof(s->host_pub), "%s/host_ed25519.pub", s->dir);
	snprintf(s->alt_host_pub, sizeof(s->alt_host_pub), "%s/alt_host_ed25519.pub", s->dir);
	s->running = s->port > 0;
	kvb_buf_release(&out);
	return s->running ? 0 : -1;
}

int kvb_sshd_start(struct kvb_sshd *s)
{
	char tmpl[] = "/tmp/kvb-sshd-XXXXXX";
	if (!mkdtemp(tmpl)) {
		perror("sshd fixture: mkdtemp");
		return -1;
	}
	return kvb_sshd_start_in(s, tmpl, NULL, NULL);
}

int kvb_sshd_restart(struct kvb_sshd *s)
{
	int rc = script("restart", s->dir, NULL, NULL, NULL, NULL);
	s->running = !rc;
	return rc;
}

void kvb_sshd_signal_sessions(struct kvb_sshd *s, const char *sig)
{
	script("signal", s->dir, sig, NULL, NULL, NULL);
}

void kvb_sshd_stop(struct kvb_sshd *s)
{
	if (s->running)
		script("stop", s->dir, NULL, NULL, NULL, NULL);
	s->running = 0;
}

void kvb_sshd_release(struct kvb_sshd *s)
{
	if (!s->dir[0])
		return;
	kvb_sshd_stop(s);
	if (!getenv("KVB_KEEP_SSHD_DIR")) {
		const char *argv[] = { "rm", "-rf", "--", s->dir, NULL };
		kvb_sshd_run(argv, NULL);
	}
	memset(s, 0, sizeof(*s));
}

int kvb_sshd_log_count(const struct kvb_sshd *s, const char *needle)
{
	struct kvb_buf b = KVB_BUF_INIT;
	int n = 0;
	if (!kvb_buf_read_file(&b, s->log))
		for (const char *l = b.data; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
			const char *f = strstr(l, needle), *nl = strchr(l, '\n');
			if (f && (!nl || f < nl))
				n++;
		}
	kvb_buf_release(&b);
	return n;
}

char *kvb_sshd_platform_file(const struct kvb_sshd *s, const char *name, const char *const *kv)
{
	cJSON *root = cJSON_CreateObject(), *conn = cJSON_CreateObject();
	char *path = kvb_xasprintf("%s/%s.json", s->dir, name), *text;
	FILE *f;
	cJSON_AddStringToObject(root, "name", name);
	cJSON_AddStringToObject(conn, "type", "ssh");
	cJSON_AddStringToObject(conn, "host", "127.0.0.1");
	cJSON_AddNumberToObject(conn, "port", s->port);
	cJSON_AddStringToObject(conn, "user", s->user);
	cJSON_AddStringToObject(conn, "key", s->key);
	cJSON_AddStringToObject(conn, "known_hosts", s->known_hosts);
	cJSON_AddNumberToObject(conn, "connect_timeout_s", 5);
	for (size_t i = 0; kv && kv[i]; i += 2) {
		int64_t num;
		if (!strcmp(kv[i], "sysfs_root")) { /* a platform key, not a connection one */
			cJSON_AddStringToObject(root, kv[i], kv[i + 1] ? kv[i + 1] : "");
			continue;
		}
		cJSON_DeleteItemFromObjectCaseSensitive(conn, kv[i]);
		if (!kv[i + 1])
			continue;
		if (!kvb_parse_i64(kv[i + 1], &num))
			cJSON_AddNumberToObject(conn, kv[i], (double)num);
		else
			cJSON_AddStringToObject(conn, kv[i], kv[i + 1]);
	}
	cJSON_AddItemToObject(root, "connection", conn);
	text = cJSON_Print(root);
	f = fopen(path, "w");
	if (f && fputs(text, f) < 0) {
		fclose(f);
		f = NULL;
	}
	if (!f || fclose(f)) {
		perror(path);
		free(path);
		path = NULL;
	}
	cJSON_free(text);
	cJSON_Delete(root);
	return path;
}
