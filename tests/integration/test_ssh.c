/* Tests the ssh target against a real OpenSSH server on loopback (sshd_fixture). */
#include "config/platform.h"
#include "engine/catalog.h"
#include "core/sha256.h"
#include "core/util.h"
#include "sshd_fixture.h"
#include "target/target.h"
#include "test.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* One server, one platform file, one target. */
struct env {
	struct kvb_sshd s;
	struct kvb_platform p;
	struct kvb_target t;
	int loaded, opened;
};

/* Loads a platform for e->s with connection overrides kv and opens the target. Returns the open() code. */
static int env_open(struct env *e, const char *name, const char *const *kv, struct kvb_error *err)
{
	struct kvb_diag d;
	char *file = kvb_sshd_platform_file(&e->s, name, kv);
	int rc;
	if (e->loaded)
		kvb_platform_release(&e->p);
	kvb_diag_init(&d, NULL);
	rc = kvb_platform_load(&e->p, file, &kvb_catalog, &d);
	for (size_t i = 0; i < d.msgs.n; i++)
		fprintf(stderr, "platform: %s\n", d.msgs.v[i]);
	kvb_diag_release(&d);
	free(file);
	e->loaded = 1;
	if (rc)
		return kvb_error_set(err, rc, "platform did not load");
	rc = kvb_target_open(&e->t, &e->p, err);
	e->opened = !rc;
	return rc;
}

static void env_close_target(struct env *e)
{
	if (e->opened)
		kvb_target_close(&e->t);
	e->opened = 0;
}

static void env_release(struct env *e)
{
	env_close_target(e);
	if (e->loaded)
		kvb_platform_release(&e->p);
	kvb_sshd_release(&e->s);
	memset(e, 0, sizeof(*e));
}

static int start(struct env *e)
{
	memset(e, 0, sizeof(*e));
	return kvb_sshd_start(&e->s);
}

static int exists(const char *path)
{
	struct stat sb;
	return !stat(path, &sb);
}

static double secs_since(uint64_t t0)
{
	return (double)(kvb_mono_ns() - t0) / 1e9;
}

static void test_ssh__runs_command_and_separates_stdout_stderr_and_exit_status(void)
{
	struct env e;
	struct kvb_error err = { 0 };
	struct kvb_exec_result r;
	const char *argv[] = { "sh", "-c", "echo out; echo err >&2; printf more; exit 3", NULL };
	const char *killed[] = { "sh", "-c", "kill -s KILL $$", NULL };
	const char *missing[] = { "kvb-no-such-program", NULL };
	kvb_exec_result_init(&r);
	CHECK(start(&e) == 0);
	CHECK(env_open(&e, "p", NULL, &err) == KVB_OK);
	if (e.opened) {
		CHECK(kvb_target_exec(&e.t, argv, 10000, &r, &err) == KVB_OK);
		CHECK(r.exit_code == 3);
		CHECK_STR(r.out.data, "out\nmore");
		CHECK_STR(r.err.data, "err\n");
		CHECK(kvb_target_exec(&e.t, killed, 10000, &r, &err) == KVB_OK);
		CHECK(r.exit_code == -1);
		CHECK(r.term_signal == SIGKILL);
		CHECK(kvb_target_exec(&e.t, missing, 10000, &r, &err) == KVB_OK);
		CHECK(r.exit_code == 127);
		CHECK_CONTAINS(r.err.data, "kvb-no-such-program");
	}
	kvb_exec_result_release(&r);
	env_release(&e);
}

static void test_ssh__argv_bytes_reach_remote_unchanged(void)
{
	static const char *const words[] = {
		"it's", "say \"hi\"", "a;b", "$(echo pwned)", "`echo pwned`", "two  spaces", "line1\nline2",
		"ünïcødé ✓ 日本", "", "back\\slash", "*", "-n", "$HOME", "tab\there", "trailing newline\n", "'", "\\'",
		"a'b'c\"d\"e", "%s %d", "kvb-pid:123",
	};
	struct env e;
	struct kvb_error err = { 0 };
	struct kvb_exec_result r;
	struct kvb_strv argv = KVB_STRV_INIT;
	struct kvb_buf want = KVB_BUF_INIT;
	kvb_exec_result_init(&r);
	kvb_strv_push(&argv, "printf");
	kvb_strv_push(&argv, "%s\\0");
	for (size_t i = 0; i < KVB_ARRAY_SIZE(words); i++) {
		kvb_strv_push(&argv, words[i]);
		kvb_buf_add(&want, words[i], strlen(words[i]) + 1);
	}
	CHECK(start(&e) == 0);
	CHECK(env_open(&e, "p", NULL, &err) == KVB_OK);
	if (e.opened) {
		CHECK(kvb_target_exec(&e.t, kvb_strv_argv(&argv), 10000, &r, &err) == KVB_OK);
		CHECK(r.exit_code == 0);
		CHECK(r.out.len == want.len);
		CHECK(r.out.len == want.len && !memcmp(r.out.data, want.data, want.len));
		CHECK(r.err.len == 0);
	}
	kvb_strv_release(&argv);
	kvb_buf_release(&want);
	kvb_exec_result_release(&r);
	env_release(&e);
}

static void test_ssh__refuses_unknown_host_key_in_strict_mode(void)
{
	struct env e;
	struct kvb_error err = { 0 };
	char kh[KVB_SSHD_PATH_MAX + 16], port[16];
	CHECK(start(&e) == 0);
	snprintf(kh, sizeof(kh), "%s/empty_kh", e.s.dir);
	snprintf(port, sizeof(port), "port %d", e.s.port);
	CHECK(env_open(&e, "p", (const char *[]){ "known_hosts", kh, NULL }, &err) == KVB_ETARGET);
	CHECK_CONTAINS(err.msg, "unknown");
	CHECK_CONTAINS(err.msg, "127.0.0.1");
	CHECK_CONTAINS(err.msg, port);
	CHECK_CONTAINS(err.msg, kh);
	CHECK(!exists(kh)); /* strict mode writes nothing */
	CHECK(kvb_sshd_log_count(&e.s, "Accepted publickey") == 0);
	env_release(&e);
}

static void test_ssh__accept_new_records_unknown_host_key(void)
{
	struct env e;
	struct kvb_error err = { 0 };
	struct kvb_buf got = KVB_BUF_INIT, pub = KVB_BUF_INIT;
	char kh[KVB_SSHD_PATH_MAX + 16], entry[256];
	CHECK(start(&e) == 0);
	snprintf(kh, sizeof(kh), "%s/new/known_hosts", e.s.dir);
	CHECK(env_open(&e, "p", (const char *[]){ "known_hosts", kh, "host_key", "accept-new", NULL }, &err) == KVB_OK);
	env_close_target(&e);
	CHECK(kvb_buf_read_file(&got, kh) == 0);
	CHECK(kvb_buf_read_file(&pub, e.s.host_pub) == 0);
	/* "[127.0.0.1]:PORT ssh-ed25519 BASE64" followed by our comment */
	pub.len = (size_t)(strchr(strchr(pub.data, ' ') + 1, ' ') - pub.data);
	pub.data[pub.len] = '\0';
	snprintf(entry, sizeof(entry), "[127.0.0.1]:%d %s", e.s.port, pub.data);
	CHECK_CONTAINS(got.data, entry);
	/* now known: strict mode accepts it, also after hashing the file like HashKnownHosts does */
	CHECK(env_open(&e, "p", (const char *[]){ "known_hosts", kh, NULL }, &err) == KVB_OK);
	env_close_target(&e);
	CHECK(kvb_sshd_run((const char *[]){ "ssh-keygen", "-q", "-H", "-f", kh, NULL }, NULL) == 0);
	kvb_buf_reset(&got);
	CHECK(kvb_buf_read_file(&got, kh) == 0 && !strstr(got.data, "127.0.0.1"));
	CHECK(env_open(&e, "p", (const char *[]){ "known_hosts", kh, NULL }, &err) == KVB_OK);
	kvb_buf_release(&got);
	kvb_buf_release(&pub);
	env_release(&e);
}

static void test_ssh__refuses_changed_host_key_even_in_accept_new_mode(void)
{
	struct env e;
	struct kvb_error err = { 0 };
	struct kvb_buf pub = KVB_BUF_INIT, before = KVB_BUF_INIT, after = KVB_BUF_INIT;
	char kh[KVB_SSHD_PATH_MAX + 16], port[16];
	FILE *f;
	CHECK(start(&e) == 0);
	snprintf(kh, sizeof(kh), "%s/changed_kh", e.s.dir);
	snprintf(port, sizeof(port), "port %d", e.s.port);
	CHECK(kvb_buf_read_file(&pub, e.s.alt_host_pub) == 0);
	f = fopen(kh, "w");
	CHECK(f != NULL);
	if (f) {
		fprintf(f, "# a comment\n[127.0.0.1]:%d %s", e.s.port, pub.data);
		fclose(f);
	}
	CHECK(kvb_buf_read_file(&before, kh) == 0);
	for (int mode = 0; mode < 2; mode++) {
		const char *kv[] = { "known_hosts", kh, "host_key", mode ? "accept-new" : "strict", NULL };
		CHECK(env_open(&e, "p", kv, &err) == KVB_ETARGET);
		CHECK_CONTAINS(err.msg, "CHANGED");
		CHECK_CONTAINS(err.msg, "127.0.0.1");
		CHECK_CONTAINS(err.msg, port);
		CHECK_CONTAINS(err.msg, kh);
	}
	CHECK(kvb_buf_read_file(&after, kh) == 0);
	CHECK_STR(after.data, before.data);
	CHECK(kvb_sshd_log_count(&e.s, "Accepted publickey") == 0);
	kvb_buf_release(&pub);
	kvb_buf_release(&before);
	kvb_buf_release(&after);
	env_release(&e);
}

static void test_ssh__logs_in_with_passphrase_key_and_names_key_on_wrong_passphrase(void)
{
	struct env e;
	struct kvb_error err = { 0 };
	char key[KVB_SSHD_PATH_MAX + 16], auth[KVB_SSHD_PATH_MAX + 32];
	struct kvb_buf pub = KVB_BUF_INIT;
	FILE *f;
	CHECK(start(&e) == 0);
	snprintf(key, sizeof(key), "%s/id_pass", e.s.dir);
	CHECK(kvb_sshd_run((const char *[]){ "ssh-keygen", "-q", "-t", "ed25519", "-N", "correct horse", "-f", key,
					     NULL },
			   NULL) == 0);
	snprintf(auth, sizeof(auth), "%s.pub", key);
	CHECK(kvb_buf_read_file(&pub, auth) == 0);
	snprintf(auth, sizeof(auth), "%s/authorized_keys", e.s.dir);
	f = fopen(auth, "a");
	if (f) {
		fputs(pub.data, f);
		fclose(f);
	}
	CHECK(env_open(&e, "p", (const char *[]){ "key", key, "passphrase", "correct horse", NULL }, &err) == KVB_OK);
	env_close_target(&e);
	CHECK(env_open(&e, "p", (const char *[]){ "key", key, "passphrase", "wrong battery", NULL }, &err) ==
	      KVB_ETARGET);
	CHECK_CONTAINS(err.msg, "cannot log in");
	CHECK_CONTAINS(err.msg, key);
	CHECK(!strstr(err.msg, "wrong battery"));
	kvb_buf_release(&pub);
	env_release(&e);
}

static void test_ssh__logs_in_with_ssh_agent(void)
{
	struct env e;
	struct kvb_error err = { 0 };
	struct kvb_bgproc agent = { .pid = -1, .out_fd = -1 };
	char sock[KVB_SSHD_PATH_MAX + 16], envsock[KVB_SSHD_PATH_MAX + 32];
	const char *old = getenv("SSH_AUTH_SOCK");
	char *saved = old ? kvb_xstrdup(old) : NULL;
	CHECK(start(&e) == 0);
	snprintf(sock, sizeof(sock), "%s/agent.sock", e.s.dir);
	snprintf(envsock, sizeof(envsock), "SSH_AUTH_SOCK=%s", sock);
	{
		const char *argv[] = { "ssh-agent", "-D", "-a", sock, NULL };
		struct kvb_spawn_opts o = { .argv = argv };
		CHECK(kvb_spawn_bg(&o, &agent, &err) == KVB_OK);
	}
	for (int i = 0; i < 100 && !exists(sock); i++)
		kvb_sleep_ms(20);
	CHECK(kvb_sshd_run((const char *[]){ "ssh-add", "-q", e.s.key, NULL }, (const char *[]){ envsock, NULL }) == 0);
	setenv("SSH_AUTH_SOCK", sock, 1);
	CHECK(env_open(&e, "p", (const char *[]){ "key", NULL, NULL }, &err) == KVB_OK);
	if (!e.opened)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(kvb_sshd_log_count(&e.s, "Accepted publickey") == 1);
	env_close_target(&e);
	/* without the agent and without default keys: a message that says what was tried */
	unsetenv("SSH_AUTH_SOCK");
	setenv("HOME", e.s.dir, 1);
	CHECK(env_open(&e, "p", (const char *[]){ "key", NULL, NULL }, &err) == KVB_ETARGET);
	CHECK_CONTAINS(err.msg, "no ssh-agent");
	if (saved)
		setenv("SSH_AUTH_SOCK", saved, 1);
	free(saved);
	if (agent.pid > 0)
		kvb_spawn_stop(&agent, SIGTERM, 2000);
	env_release(&e);
}

static void test_ssh__timeout_kills_remote_process_group(void)
{
	struct env e;
	struct kvb_error err = { 0 };
	struct kvb_exec_result r;
	char late[KVB_SSHD_PATH_MAX + 16], script[2 * KVB_SSHD_PATH_MAX];
	const char *argv[] = { "sh", "-c", script, NULL };
	const char *echo[] = { "echo", "alive", NULL };
	uint64_t t0;
	kvb_exec_result_init(&r);
	CHECK(start(&e) == 0);
	snprintf(late, sizeof(late), "%s/late", e.s.dir);
	/* the subshell is a child in the same process group: killing only the pid would let it touch the file */
	/* 6 s: far beyond the 700 ms limit even when a loaded machine slows the channel set-up */
	snprintf(script, sizeof(script), "echo started; (sleep 6; touch '%s') & wait", late);
	CHECK(env_open(&e, "p", NULL, &err) == KVB_OK);
	if (e.opened) {
		t0 = kvb_mono_ns();
		CHECK(kvb_target_exec(&e.t, argv, 700, &r, &err) == KVB_ETARGET);
		CHECK(secs_since(t0) < 5.0);
		CHECK(r.timed_out == 1);
		CHECK_CONTAINS(err.msg, "timed out after 700 ms");
		CHECK_CONTAINS(err.msg, "killed its process group");
		CHECK_STR(r.out.data, "started\n");
		kvb_sleep_ms(6500);  /* past the subshell's 6 s: it was killed with the group */
		CHECK(!exists(late));
		/* the session survived: same connection */
		CHECK(kvb_target_exec(&e.t, echo, 10000, &r, &err) == KVB_OK);
		CHECK_STR(r.out.data, "alive\n");
		CHECK(kvb_sshd_log_count(&e.s, "Accepted publickey") == 1);
	}
	kvb_exec_result_release(&r);
	env_release(&e);
}

/* Forks a helper that, after delay_ms, stops sshd entirely (stop=1) or sends sig to its sessions. */
static pid_t later(struct kvb_sshd *s, unsigned delay_ms, int stop, const char *sig)
{
	pid_t pid = fork();
	if (pid == 0) {
		kvb_sleep_ms(delay_ms);
		if (stop)
			kvb_sshd_stop(s);
		else
			kvb_sshd_signal_sessions(s, sig);
		_exit(0);
	}
	return pid;
}

static void test_ssh__lost_connection_fails_fast_and_next_exec_reconnects(void)
{
	struct env e;
	struct kvb_error err = { 0 };
	struct kvb_exec_result r;
	const char *sleep20[] = { "sleep", "20", NULL };
	const char *echo[] = { "echo", "back", NULL };
	uint64_t t0;
	pid_t helper;
	kvb_exec_result_init(&r);
	CHECK(start(&e) == 0);
	CHECK(env_open(&e, "p", NULL, &err) == KVB_OK);
	if (e.opened) {
		helper = later(&e.s, 700, 1, NULL);
		t0 = kvb_mono_ns();
		CHECK(kvb_target_exec(&e.t, sleep20, 15000, &r, &err) == KVB_ETARGET);
		CHECK(secs_since(t0) < 4.0);
		CHECK(r.timed_out == 0);
		CHECK_CONTAINS(err.msg, "connection lost");
		waitpid(helper, NULL, 0);
		e.s.running = 1; /* the helper stopped it in its own copy of the struct */
		CHECK(kvb_sshd_restart(&e.s) == 0);
		CHECK(kvb_target_exec(&e.t, echo, 10000, &r, &err) == KVB_OK);
		CHECK_STR(r.out.data, "back\n");
		CHECK(kvb_sshd_log_count(&e.s, "Accepted publickey") == 2);
		/* a connection that died while idle is noticed and replaced before the command runs */
		kvb_sshd_signal_sessions(&e.s, "KILL");
		kvb_sleep_ms(200);
		CHECK(kvb_target_exec(&e.t, echo, 10000, &r, &err) == KVB_OK);
		CHECK_STR(r.out.data, "back\n");
		CHECK(kvb_sshd_log_count(&e.s, "Accepted publickey") == 3);
	}
	kvb_exec_result_release(&r);
	env_release(&e);
}

static void test_ssh__reconnect_gives_up_at_deadline_with_reason(void)
{
	struct env e;
	struct kvb_error err = { 0 };
	struct kvb_exec_result r;
	const char *echo[] = { "echo", "x", NULL };
	uint64_t t0;
	kvb_exec_result_init(&r);
	CHECK(start(&e) == 0);
	CHECK(env_open(&e, "p", (const char *[]){ "reconnect_deadline_s", "2", NULL }, &err) == KVB_OK);
	if (e.opened) {
		kvb_sshd_stop(&e.s);
		t0 = kvb_mono_ns();
		CHECK(kvb_target_exec(&e.t, echo, 10000, &r, &err) == KVB_ETARGET);
		CHECK(secs_since(t0) > 1.0 && secs_since(t0) < 4.0);
		CHECK_CONTAINS(err.msg, "cannot reconnect");
		CHECK_CONTAINS(err.msg, "within 2 s");
		CHECK_CONTAINS(err.msg, "Connection refused");
	}
	kvb_exec_result_release(&r);
	env_release(&e);
}

static void test_ssh__keepalive_detects_silent_server(void)
{
	struct env e;
	struct kvb_error err = { 0 };
	struct kvb_exec_result r;
	const char *sleep20[] = { "sleep", "20", NULL };
	const char *echo[] = { "echo", "ok", NULL };
	uint64_t t0;
	double took;
	pid_t helper;
	kvb_exec_result_init(&r);
	CHECK(start(&e) == 0);
	CHECK(env_open(&e, "p", (const char *[]){ "keepalive_s", "1", NULL }, &err) == KVB_OK);
	if (e.opened) {
		/* a frozen server keeps the TCP connection open but answers nothing */
		helper = later(&e.s, 500, 0, "STOP");
		t0 = kvb_mono_ns();
		CHECK(kvb_target_exec(&e.t, sleep20, 15000, &r, &err) == KVB_ETARGET);
		took = secs_since(t0);
		CHECK(took > 2.5 && took < 6.0);
		CHECK_CONTAINS(err.msg, "no answer");
		waitpid(helper, NULL, 0);
		CHECK(kvb_target_exec(&e.t, echo, 10000, &r, &err) == KVB_OK);
		CHECK_STR(r.out.data, "ok\n");
		CHECK(kvb_sshd_log_count(&e.s, "Accepted publickey") == 2);
	}
	kvb_exec_result_release(&r);
	env_release(&e);
}

static void test_ssh__reuses_one_connection_for_many_execs(void)
{
	struct env e;
	struct kvb_error err = { 0 };
	struct kvb_exec_result r;
	const char *argv[] = { "sh", "-c", "echo $PPID", NULL };
	char first[64] = "";
	int same = 0;
	kvb_exec_result_init(&r);
	CHECK(start(&e) == 0);
	CHECK(env_open(&e, "p", NULL, &err) == KVB_OK);
	for (int i = 0; e.opened && i < 50; i++) {
		CHECK(kvb_target_exec(&e.t, argv, 10000, &r, &err) == KVB_OK);
		if (i == 0)
			snprintf(first, sizeof(first), "%s", r.out.data);
		same += !strcmp(first, r.out.data);
	}
	/* every command's parent is the same per-connection sshd process, and sshd saw one login */
	CHECK(same == 50);
	CHECK(atoi(first) > 1);
	CHECK(kvb_sshd_log_count(&e.s, "Accepted publickey") == 1);
	CHECK(kvb_sshd_log_count(&e.s, "Starting session: command") == 50);
	kvb_exec_result_release(&r);
	env_release(&e);
}

static int write_random(const char *path, size_t bytes)
{
	int in = open("/dev/urandom", O_RDONLY), out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0640);
	char buf[65536];
	int rc = in < 0 || out < 0 ? -1 : 0;
	while (!rc && bytes) {
		size_t n = bytes < sizeof(buf) ? bytes : sizeof(buf);
		if (read(in, buf, n) != (ssize_t)n || write(out, buf, n) != (ssize_t)n)
			rc = -1;
		bytes -= n;
	}
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc;
}

static void test_ssh__sftp_round_trips_50mb_file(void)
{
	struct env e;
	struct kvb_error err = { 0 };
	char local[KVB_SSHD_PATH_MAX + 32], remote[KVB_SSHD_PATH_MAX + 32], back[KVB_SSHD_PATH_MAX + 32];
	char h1[65] = "a", h2[65] = "b", h3[65] = "c";
	int64_t n1 = 0, n2 = 0, n3 = 0;
	struct stat sb;
	CHECK(start(&e) == 0);
	snprintf(local, sizeof(local), "%s/big.bin", e.s.dir);
	snprintf(remote, sizeof(remote), "%s/remote/new/dir/big.bin", e.s.dir);
	snprintf(back, sizeof(back), "%s/back.bin", e.s.dir);
	CHECK(write_random(local, 50u << 20) == 0);
	chmod(local, 0751);
	CHECK(env_open(&e, "p", NULL, &err) == KVB_OK);
	if (e.opened) {
		uint64_t t0 = kvb_mono_ns();
		CHECK(kvb_target_push(&e.t, local, remote, &err) == KVB_OK);
		fprintf(stderr, "push 50 MB: %.2f s\n", secs_since(t0));
		t0 = kvb_mono_ns();
		CHECK(kvb_target_pull(&e.t, remote, back, &err) == KVB_OK);
		fprintf(stderr, "pull 50 MB: %.2f s\n", secs_since(t0));
		CHECK(kvb_sha256_file(local, h1, &n1) == 0);
		CHECK(kvb_sha256_file(remote, h2, &n2) == 0);
		CHECK(kvb_sha256_file(back, h3, &n3) == 0);
		CHECK_STR(h2, h1);
		CHECK_STR(h3, h1);
		CHECK(n1 == 50 << 20 && n2 == n1 && n3 == n1);
		CHECK(!stat(remote, &sb) && (sb.st_mode & 07777) == 0751);
		CHECK(!stat(back, &sb) && (sb.st_mode & 07777) == 0751);
		/* a missing remote file is an error that names it */
		CHECK(kvb_target_pull(&e.t, "/nonexistent/kvb", back, &err) == KVB_ETARGET);
		CHECK_CONTAINS(err.msg, "/nonexistent/kvb");
		CHECK_CONTAINS(err.msg, "no such file");
	}
	env_release(&e);
}

static int put(const char *dir, const char *name, const void *data, size_t n, mode_t mode)
{
	char *p = kvb_xasprintf("%s/%s", dir, name), *slash = strrchr(p, '/');
	int fd, rc;
	*slash = '\0';
	kvb_mkdir_p(p, 0755);
	*slash = '/';
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, mode);
	rc = fd >= 0 && write(fd, data, n) == (ssize_t)n ? 0 : -1;
	if (fd >= 0)
		close(fd);
	chmod(p, mode);
	free(p);
	return rc;
}

static void test_ssh__sftp_round_trips_directory_tree(void)
{
	struct env e;
	struct kvb_error err = { 0 };
	char tree[KVB_SSHD_PATH_MAX + 16], rtree[KVB_SSHD_PATH_MAX + 16], ptree[KVB_SSHD_PATH_MAX + 16],
		path[2 * KVB_SSHD_PATH_MAX];
	char bin[1000];
	struct stat sb;
	for (size_t i = 0; i < sizeof(bin); i++)
		bin[i] = (char)(i * 7);
	CHECK(start(&e) == 0);
	snprintf(tree, sizeof(tree), "%s/tree", e.s.dir);
	snprintf(rtree, sizeof(rtree), "%s/rtree", e.s.dir);
	snprintf(ptree, sizeof(ptree), "%s/ptree", e.s.dir);
	CHECK(put(tree, "a/b/c.txt", "hello\n", 6, 0644) == 0);
	CHECK(put(tree, "x.bin", bin, sizeof(bin), 0600) == 0);
	CHECK(put(tree, "name with spaces & 'quotes'.txt", "q", 1, 0644) == 0);
	CHECK(put(tree, "run.sh", "#!/bin/sh\necho hi\n", 18, 0755) == 0);
	CHECK(put(tree, "empty.txt", "", 0, 0644) == 0);
	snprintf(path, sizeof(path), "%s/a/empty", tree);
	CHECK(kvb_mkdir_p(path, 0755) == 0);
	CHECK(env_open(&e, "p", NULL, &err) == KVB_OK);
	if (e.opened) {
		CHECK(kvb_target_push(&e.t, tree, rtree, &err) == KVB_OK);
		CHECK(kvb_sshd_run((const char *[]){ "diff", "-r", tree, rtree, NULL }, NULL) == 0);
		snprintf(path, sizeof(path), "%s/a/empty", rtree);
		CHECK(!stat(path, &sb) && S_ISDIR(sb.st_mode));
		snprintf(path, sizeof(path), "%s/run.sh", rtree);
		CHECK(!stat(path, &sb) && (sb.st_mode & 0777) == 0755);
		snprintf(path, sizeof(path), "%s/x.bin", rtree);
		CHECK(!stat(path, &sb) && (sb.st_mode & 0777) == 0600);
		/* pushing again over an existing tree works and keeps it identical */
		CHECK(kvb_target_push(&e.t, tree, rtree, &err) == KVB_OK);
		CHECK(kvb_target_pull(&e.t, rtree, ptree, &err) == KVB_OK);
		CHECK(kvb_sshd_run((const char *[]){ "diff", "-r", tree, ptree, NULL }, NULL) == 0);
		snprintf(path, sizeof(path), "%s/a/empty", ptree);
		CHECK(!stat(path, &sb) && S_ISDIR(sb.st_mode));
		snprintf(path, sizeof(path), "%s/run.sh", ptree);
		CHECK(!stat(path, &sb) && (sb.st_mode & 0777) == 0755);
	}
	env_release(&e);
}

static void test_ssh__wait_ready_polls_until_ready_command_passes(void)
{
	struct env e;
	struct kvb_error err = { 0 };
	char flag[KVB_SSHD_PATH_MAX + 16], ready[2 * KVB_SSHD_PATH_MAX];
	uint64_t t0;
	double took;
	CHECK(start(&e) == 0);
	snprintf(flag, sizeof(flag), "%s/flag", e.s.dir);
	snprintf(ready, sizeof(ready), "cat '%s'", flag);
	CHECK(env_open(&e, "p", (const char *[]){ "ready", ready, "expect", "yes", NULL }, &err) == KVB_OK);
	if (e.opened) {
		t0 = kvb_mono_ns();
		CHECK(kvb_target_wait_ready(&e.t, 3000, &err) == KVB_ETARGET);
		took = secs_since(t0);
		CHECK(took > 2.8 && took < 9.0);  /* the deadline, not a 10 s connect timeout; slack for load */
		CHECK_CONTAINS(err.msg, "not ready after 3000 ms");
		CHECK_CONTAINS(err.msg, "No such file");
		CHECK(put(e.s.dir, "flag", "no\n", 3, 0644) == 0);
		CHECK(kvb_target_wait_ready(&e.t, 1200, &err) == KVB_ETARGET);
		CHECK_CONTAINS(err.msg, "expected \"yes\"");
		CHECK(put(e.s.dir, "flag", "yes\n", 4, 0644) == 0);
		CHECK(kvb_target_wait_ready(&e.t, 5000, &err) == KVB_OK);
		/* server down: fails at the deadline; back up: ready again */
		kvb_sshd_stop(&e.s);
		t0 = kvb_mono_ns();
		CHECK(kvb_target_wait_ready(&e.t, 1500, &err) == KVB_ETARGET);
		took = secs_since(t0);
		CHECK(took > 1.3 && took < 6.0);  /* the deadline, not a 10 s connect timeout; slack for load */
		CHECK(kvb_sshd_restart(&e.s) == 0);
		CHECK(kvb_target_wait_ready(&e.t, 10000, &err) == KVB_OK);
	}
	env_release(&e);
}

/* A TCP listener on port that completes handshakes (kernel backlog) but never says a word. */
static int silent_listener(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 16)) {
		perror("silent listener");
		close(fd);
		return -1;
	}
	return fd;
}

static void test_ssh__connect_and_wait_ready_are_bounded_when_server_never_answers(void)
{
	struct env e;
	struct kvb_error err = { 0 };
	uint64_t t0;
	double took;
	int fd;
	CHECK(start(&e) == 0);
	CHECK(env_open(&e, "p", (const char *[]){ "connect_timeout_s", "1", NULL }, &err) == KVB_OK);
	kvb_sshd_stop(&e.s);
	fd = silent_listener(e.s.port);
	CHECK(fd >= 0);
	if (e.opened) {
		t0 = kvb_mono_ns();
		CHECK(kvb_target_wait_ready(&e.t, 2500, &err) == KVB_ETARGET);
		took = secs_since(t0);
		CHECK(took > 2.3 && took < 4.5);
		CHECK_CONTAINS(err.msg, "timed out");
	}
	env_close_target(&e);
	t0 = kvb_mono_ns();
	CHECK(env_open(&e, "p", (const char *[]){ "connect_timeout_s", "1", NULL }, &err) == KVB_ETARGET);
	took = secs_since(t0);
	CHECK(took > 0.9 && took < 2.5);
	CHECK_CONTAINS(err.msg, "handshake");
	if (fd >= 0)
		close(fd);
	env_release(&e);
}

/*
 * Forks a child that takes the connections listener fd gets and closes each before a word
 * (every other one with a reset, SO_LINGER 0), as a booting board whose sshd does not run yet
 * (devlib #725). After n of them (n < 0: never) it closes the listener and starts e's sshd
 * again on the port. hold: the connections are kept open and silent instead (a network that
 * accepted for a guest not listening yet, QEMU's user net), and the child waits to be killed
 * once sshd runs (status: SIGKILL after a good restart). The parent's copy of fd is closed.
 */
static pid_t closing_board(struct env *e, int fd, int n, int hold)
{
	pid_t pid = fork();
	if (pid == 0) {
		int rc;
		for (int i = 0; n < 0 || i < n; i++) {
			int c = accept(fd, NULL, NULL);
			if (c < 0)
				_exit(2);
			if (hold)
				continue;
			if (i % 2) {
				struct linger l = { 1, 0 };
				setsockopt(c, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
			}
			close(c);
		}
		close(fd);
		rc = kvb_sshd_restart(&e->s) ? 1 : 0;
		while (hold && !rc)
			pause();
		_exit(rc);
	}
	close(fd);
	return pid;
}

/* devlib #725: the first connection of a run meets a board that accepts and closes before its banner. */
static void test_ssh__first_connection_is_retried_while_the_board_closes_before_its_banner(void)
{
	struct env e;
	struct kvb_error err = { 0 };
	struct kvb_exec_result r;
	const char *echo[] = { "echo", "up", NULL };
	int fd, rc, status = -1;
	pid_t board;
	kvb_exec_result_init(&r);
	CHECK(start(&e) == 0);
	kvb_sshd_stop(&e.s);
	fd = silent_listener(e.s.port); /* listening before the first attempt: no race with the child */
	CHECK(fd >= 0);
	if (fd >= 0) {
		/* 4 connections turned away (2 closed, 2 reset), then refused until sshd listens again */
		board = closing_board(&e, fd, 4, 0);
		rc = env_open(&e, "p", (const char *[]){ "connect_timeout_s", "60", NULL }, &err);
		CHECK(rc == KVB_OK);
		if (rc) {
			fprintf(stderr, "  open: %s\n", err.msg);
			kill(board, SIGKILL);
		}
		waitpid(board, &status, 0);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0); /* it turned 4 away and sshd restarted */
		e.s.running = WIFEXITED(status) && WEXITSTATUS(status) == 0;
		if (e.opened) {
			CHECK(kvb_target_exec(&e.t, echo, 10000, &r, &err) == KVB_OK);
			CHECK_STR(r.out.data, "up\n");
			CHECK(kvb_sshd_log_count(&e.s, "Accepted publickey") == 1);
		}
	}
	kvb_exec_result_release(&r);
	env_release(&e);
}

/* A board that never gets past closing: the first connection gives up at connect_timeout_s, not at once. */
static void test_ssh__first_connection_gives_up_at_connect_timeout_with_the_last_reason(void)
{
	struct env e;
	struct kvb_error err = { 0 };
	int fd, status;
	uint64_t t0;
	double took;
	pid_t board;
	CHECK(start(&e) == 0);
	kvb_sshd_stop(&e.s);
	fd = silent_listener(e.s.port);
	CHECK(fd >= 0);
	if (fd >= 0) {
		board = closing_board(&e, fd, -1, 0);
		t0 = kvb_mono_ns();
		CHECK(env_open(&e, "p", (const char *[]){ "connect_timeout_s", "2", NULL }, &err) == KVB_ETARGET);
		took = secs_since(t0);
		kill(board, SIGKILL);
		waitpid(board, &status, 0);
		fprintf(stderr, "  %.1f s: %s\n", took, err.msg);
		CHECK(took > 1.2 && took < 8.0); /* the last backoff that still fits ends past 1.25 s */
		CHECK_CONTAINS(err.msg, "within 2 s (");
		CHECK_CONTAINS(err.msg, " attempts); last: ");
		/* the last attempt's own words: reset (at connect or at the banner) or closed */
		CHECK(strstr(err.msg, "reset") || strstr(err.msg, "closed"));
	}
	env_release(&e);
}

/* A connection accepted but never answered (no banner) is dropped after 3 s and made again. */
static void test_ssh__first_connection_is_made_again_when_no_banner_comes(void)
{
	struct env e;
	struct kvb_error err = { 0 };
	int fd, rc, status = 0;
	uint64_t t0;
	double took;
	pid_t board;
	CHECK(start(&e) == 0);
	kvb_sshd_stop(&e.s);
	fd = silent_listener(e.s.port);
	CHECK(fd >= 0);
	if (fd >= 0) {
		board = closing_board(&e, fd, 1, 1);
		t0 = kvb_mono_ns();
		rc = env_open(&e, "p", (const char *[]){ "connect_timeout_s", "60", NULL }, &err);
		took = secs_since(t0);
		CHECK(rc == KVB_OK);
		if (rc)
			fprintf(stderr, "  open: %s\n", err.msg);
		CHECK(took > 2.9 && took < 50.0); /* one silent attempt of 3 s, then sshd: not 60 s on the first */
		kill(board, SIGKILL);
		waitpid(board, &status, 0);
		CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL); /* it held one connection and restarted sshd */
		e.s.running = 1;
		if (e.opened)
			CHECK(kvb_sshd_log_count(&e.s, "Accepted publickey") == 1);
	}
	env_release(&e);
}

static void test_ssh__reboot_runs_detached_and_closes_session(void)
{
	struct env e;
	struct kvb_error err = { 0 };
	struct kvb_exec_result r;
	char tmpl[] = "/tmp/kvb-sshd-XXXXXX", path[KVB_SSHD_PATH_MAX + 32], marker[KVB_SSHD_PATH_MAX + 32],
		conf[KVB_SSHD_PATH_MAX + 64], script[2 * KVB_SSHD_PATH_MAX];
	const char *which[] = { "sh", "-c", "command -v reboot", NULL };
	const char *echo[] = { "echo", "again", NULL };
	kvb_exec_result_init(&r);
	memset(&e, 0, sizeof(e));
	CHECK(mkdtemp(tmpl) != NULL);
	/* a fake `reboot` first in the sessions' PATH: this test must never reboot the machine */
	snprintf(path, sizeof(path), "%s/bin", tmpl);
	snprintf(marker, sizeof(marker), "%s/rebooted", tmpl);
	snprintf(script, sizeof(script), "#!/bin/sh\necho \"$@\" > '%s'\n", marker);
	CHECK(put(tmpl, "bin/reboot", script, strlen(script), 0755) == 0);
	snprintf(conf, sizeof(conf), "PATH=%s:/usr/bin:/bin", path);
	CHECK(kvb_sshd_start_in(&e.s, tmpl, conf, NULL) == 0);
	CHECK(env_open(&e, "p", NULL, &err) == KVB_OK);
	if (e.opened) {
		snprintf(path, sizeof(path), "%s/bin/reboot\n", tmpl);
		CHECK(kvb_target_exec(&e.t, which, 10000, &r, &err) == KVB_OK);
		CHECK_STR(r.out.data, path);
		if (!strcmp(r.out.data, path)) {
			CHECK(kvb_target_reboot(&e.t, "bootloader", &err) == KVB_ETARGET);
			CHECK(kvb_target_reboot(&e.t, NULL, &err) == KVB_OK);
			for (int i = 0; i < 100 && !exists(marker); i++)
				kvb_sleep_ms(50);
			CHECK(exists(marker));
			CHECK(kvb_sshd_log_count(&e.s, "kvbench done") == 1); /* we disconnected */
			/* the fake reboot did not change boot_id: not ready, and the message says why */
			CHECK(kvb_target_wait_ready(&e.t, 1200, &err) == KVB_ETARGET);
			CHECK_CONTAINS(err.msg, "boot from before the reboot");
			CHECK(kvb_target_exec(&e.t, echo, 10000, &r, &err) == KVB_OK);
			CHECK_STR(r.out.data, "again\n");
		}
	}
	kvb_exec_result_release(&r);
	env_release(&e);
}

/*
 * A board whose /proc lives under the platform's sysfs_root (a simulated board's tree): the reboot
 * changes that tree's boot_id, not the kernel's, and wait_ready must read it there to see the new boot.
 */
static void test_ssh__reboot_reads_boot_id_under_sysfs_root(void)
{
	struct env e;
	struct kvb_error err = { 0 };
	char tmpl[] = "/tmp/kvb-sshd-XXXXXX", root[KVB_SSHD_PATH_MAX + 32], conf[KVB_SSHD_PATH_MAX + 64],
		script[4 * KVB_SSHD_PATH_MAX];
	static const char first[] = "11111111-2222-3333-4444-555555555555\n";
	const char *kv[] = { "sysfs_root", NULL, NULL };
	memset(&e, 0, sizeof(e));
	CHECK(mkdtemp(tmpl) != NULL);
	snprintf(root, sizeof(root), "%s/tree", tmpl);
	CHECK(put(root, "proc/sys/kernel/random/boot_id", first, strlen(first), 0644) == 0);
	/* the fake reboot starts a new boot of the fake tree only: the machine's boot_id stays */
	snprintf(script, sizeof(script), "#!/bin/sh\necho 66666666-7777-8888-9999-000000000000 > '%s/proc/sys/kernel/random/boot_id'\n",
		 root);
	CHECK(put(tmpl, "bin/reboot", script, strlen(script), 0755) == 0);
	snprintf(conf, sizeof(conf), "PATH=%s/bin:/usr/bin:/bin", tmpl);
	CHECK(kvb_sshd_start_in(&e.s, tmpl, conf, NULL) == 0);
	kv[1] = root;
	CHECK(env_open(&e, "p", kv, &err) == KVB_OK);
	if (e.opened) {
		CHECK(kvb_target_reboot(&e.t, NULL, &err) == KVB_OK);
		CHECK(kvb_target_wait_ready(&e.t, 20000, &err) == KVB_OK);
		if (err.msg[0])
			fprintf(stderr, "wait_ready: %s\n", err.msg);
	}
	env_release(&e);
}

static void test_ssh__platform_validates_connection_keys(void)
{
	struct kvb_platform p;
	struct kvb_diag d;
	char tmpl[] = "/tmp/kvb-plat-XXXXXX", file[64];
	FILE *f;
	int rc;
	CHECK(mkdtemp(tmpl) != NULL);
	snprintf(file, sizeof(file), "%s/platform.yaml", tmpl);
	f = fopen(file, "w");
	if (!f)
		return;
	fputs("name: bad\nconnection:\n  type: ssh\n  hostname: board\n  host_key: no\n  port: twenty\n", f);
	fclose(f);
	kvb_diag_init(&d, NULL);
	rc = kvb_platform_load(&p, file, &kvb_catalog, &d);
	CHECK(rc == KVB_EINPUT);
	{
		struct kvb_buf all = KVB_BUF_INIT;
		for (size_t i = 0; i < d.msgs.n; i++)
			kvb_buf_addf(&all, "%s\n", d.msgs.v[i]);
		CHECK_CONTAINS(all.data, "unknown key 'hostname' for connection type ssh");
		CHECK_CONTAINS(all.data, "missing required key 'host'");
		CHECK_CONTAINS(all.data, "connection.host_key");
		CHECK_CONTAINS(all.data, "connection.port");
		kvb_buf_release(&all);
	}
	kvb_diag_release(&d);
	kvb_platform_release(&p);
	unlink(file);
	rmdir(tmpl);
}

#define TESTS                                                                     \
	T(test_ssh__platform_validates_connection_keys)                           \
	T(test_ssh__runs_command_and_separates_stdout_stderr_and_exit_status)     \
	T(test_ssh__argv_bytes_reach_remote_unchanged)                            \
	T(test_ssh__refuses_unknown_host_key_in_strict_mode)                      \
	T(test_ssh__accept_new_records_unknown_host_key)                          \
	T(test_ssh__refuses_changed_host_key_even_in_accept_new_mode)             \
	T(test_ssh__logs_in_with_passphrase_key_and_names_key_on_wrong_passphrase) \
	T(test_ssh__logs_in_with_ssh_agent)                                       \
	T(test_ssh__timeout_kills_remote_process_group)                           \
	T(test_ssh__lost_connection_fails_fast_and_next_exec_reconnects)          \
	T(test_ssh__reconnect_gives_up_at_deadline_with_reason)                   \
	T(test_ssh__keepalive_detects_silent_server)                              \
	T(test_ssh__reuses_one_connection_for_many_execs)                         \
	T(test_ssh__sftp_round_trips_50mb_file)                                   \
	T(test_ssh__sftp_round_trips_directory_tree)                              \
	T(test_ssh__wait_ready_polls_until_ready_command_passes)                  \
	T(test_ssh__connect_and_wait_ready_are_bounded_when_server_never_answers) \
	T(test_ssh__first_connection_is_retried_while_the_board_closes_before_its_banner) \
	T(test_ssh__first_connection_gives_up_at_connect_timeout_with_the_last_reason) \
	T(test_ssh__first_connection_is_made_again_when_no_banner_comes)           \
	T(test_ssh__reboot_runs_detached_and_closes_session)                \
	T(test_ssh__reboot_reads_boot_id_under_sysfs_root)
#include "test_main.h"
