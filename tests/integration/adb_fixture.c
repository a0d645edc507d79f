/* Implements adb_fixture.h: adbd_sim devices behind one private adb server per test process. */
#include "adb_fixture.h"
#include "engine/catalog.h"

#include "core/buf.h"
#include "core/util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int g_server_port;
static char g_home[64];

int kvb_adbsim_free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t l = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = 0;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (!bind(fd, (struct sockaddr *)&a, sizeof(a)) && !getsockname(fd, (struct sockaddr *)&a, &l))
		port = ntohs(a.sin_port);
	close(fd);
	return port;
}

int kvb_adbsim_run(const char *const *argv, char **out, uint64_t timeout_ms)
{
	struct kvb_spawn_opts o = { .argv = argv, .timeout_ms = timeout_ms };
	struct kvb_exec_result r;
	struct kvb_error e;
	int rc;
	kvb_exec_result_init(&r);
	rc = kvb_spawn_run(&o, &r, &e);
	if (!rc)
		rc = r.exit_code;
	else
		rc = -1;
	if (out)
		*out = kvb_xasprintf("%s%s", r.out.data, r.err.data);
	kvb_exec_result_release(&r);
	return rc;
}

static void kill_server(void)
{
	char port[16];
	snprintf(port, sizeof(port), "%d", g_server_port);
	const char *argv[] = { "adb", "-P", port, "kill-server", NULL };
	kvb_adbsim_run(argv, NULL, 30000);
	const char *rm[] = { "rm", "-rf", g_home, NULL };
	kvb_adbsim_run(rm, NULL, 30000);
}

int kvb_adbsim_server_port(void)
{
	if (g_server_port)
		return g_server_port;
	snprintf(g_home, sizeof(g_home), "/tmp/kvb-adbhome-XXXXXX");
	if (!mkdtemp(g_home))
		abort();
	setenv("HOME", g_home, 1);
	unsetenv("ANDROID_SERIAL");
	unsetenv("ANDROID_ADB_SERVER_PORT");
	unsetenv("ADB_SERVER_SOCKET");
	g_server_port = kvb_adbsim_free_port();
	atexit(kill_server);
	return g_server_port;
}

/* The number in the file at path, or 0 while it is missing or empty. */
static int read_port(const char *path)
{
	struct kvb_buf b = KVB_BUF_INIT;
	int port = 0;
	if (!kvb_buf_read_file(&b, path))
		port = atoi(b.data);
	kvb_buf_release(&b);
	return port;
}

int kvb_adbsim_start(struct kvb_adbsim *d, const char *dir_template, const char *const *extra)
{
	struct kvb_strv argv = KVB_STRV_INIT;
	struct kvb_spawn_opts so = { 0 };
	struct kvb_error e;
	char *p;
	int port = 0;

	memset(d, 0, sizeof(*d));
	kvb_adbsim_server_port();
	snprintf(d->dir, sizeof(d->dir), "%s", dir_template);
	if (!mkdtemp(d->dir))
		abort();
	p = kvb_xasprintf("%s/root", d->dir);
	kvb_mkdir_p(p, 0755);
	free(p);
	kvb_strv_pushf(&argv, "%s/tests/sim/adbd_sim", getenv("KVB_BUILD_DIR") ? getenv("KVB_BUILD_DIR") : "build");
	kvb_strv_push(&argv, "--root");
	kvb_strv_pushf(&argv, "%s/root", d->dir);
	kvb_strv_push(&argv, "--port-file");
	kvb_strv_pushf(&argv, "%s/port", d->dir);
	for (size_t i = 0; extra && extra[i]; i++)
		kvb_strv_push(&argv, extra[i]);
	so.argv = kvb_strv_argv(&argv);
	d->started_ns = kvb_mono_ns();
	if (kvb_spawn_bg(&so, &d->sim, &e)) {
		fprintf(stderr, "cannot start adbd_sim: %s\n", e.msg);
		abort();
	}
	kvb_strv_release(&argv);
	p = kvb_xasprintf("%s/port", d->dir);
	for (int i = 0; i < 500 && !port; i++) {
		port = read_port(p);
		if (!port)
			kvb_sleep_ms(10);
	}
	free(p);
	if (port <= 0) {
		fprintf(stderr, "adbd_sim in '%s' wrote no port\n", d->dir);
		return -1;
	}
	snprintf(d->serial, sizeof(d->serial), "127.0.0.1:%d", port);
	return 0;
}

void kvb_adbsim_open(struct kvb_adbsim *d, const char *name, const char *extra_yaml)
{
	struct kvb_diag diag;
	char *p, *yaml;
	FILE *f;

	yaml = kvb_xasprintf("name: %s\n"
			     "connection: {type: adb, serial: \"%s\", adb_server_port: %d}\n"
			     "boot: {timeout_s: 30, ready: \"getprop sys.boot_completed\", expect: \"1\"}\n"
			     "%s",
			     name, d->serial, kvb_adbsim_server_port(), extra_yaml ? extra_yaml : "");
	p = kvb_xasprintf("%s/platform.yaml", d->dir);
	f = fopen(p, "w");
	if (f) {
		fputs(yaml, f);
		fclose(f);
	}
	free(yaml);
	kvb_diag_init(&diag, NULL);
	if (kvb_platform_load(&d->plat, p, &kvb_catalog, &diag)) {
		for (size_t i = 0; i < diag.msgs.n; i++)
			fprintf(stderr, "%s\n", diag.msgs.v[i]);
		abort();
	}
	kvb_diag_release(&diag);
	free(p);
	d->open_rc = kvb_target_open(&d->t, &d->plat, &d->err);
	if (d->open_rc)
		fprintf(stderr, "open: %s\n", d->err.msg);
}

int kvb_adbsim_stop(struct kvb_adbsim *d)
{
	char port[16];
	int status;
	snprintf(port, sizeof(port), "%d", kvb_adbsim_server_port());
	const char *disc[] = { "adb", "-P", port, "disconnect", d->serial, NULL };
	kvb_adbsim_run(disc, NULL, 30000);
	kvb_target_close(&d->t);
	kvb_platform_release(&d->plat);
	status = kvb_spawn_stop(&d->sim, SIGTERM, 5000);
	const char *rm[] = { "rm", "-rf", d->dir, NULL };
	kvb_adbsim_run(rm, NULL, 30000);
	return status;
}
