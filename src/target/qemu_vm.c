/* Implements the qemu target's VM: the board image built, QEMU started and stopped, its console read, and its sshd reached over a forwarded port. */
#include "target/qemu_internal.h"
#include "core/progress.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The last non-empty line of buf (at most 100 bytes) into line: the script's latest word. */
static void last_line_of(const struct kvb_buf *b, char line[128])
{
	size_t n = b->len, s;
	line[0] = '\0';
	while (n && (b->data[n - 1] == '\n' || b->data[n - 1] == '\r' || b->data[n - 1] == ' '))
		n--;
	for (s = n; s && b->data[s - 1] != '\n'; s--)
		;
	if (n > s)
		snprintf(line, 128, "%.*s", (int)(n - s > 100 ? 100 : n - s), b->data + s);
}

/*
 * Runs the script with its output in files under run_dir and, while it runs, a progress
 * line (core/progress.h: each second on a terminal, every 30 s in a log after the first 30 s,
 * so quick calls print nothing): building a board on a fresh machine is minutes of
 * mmdebstrap. Fills r as kvb_spawn_run would (exit code, stdout, stderr, timed_out).
 */
static int run_with_progress(struct qemu_priv *p, const char *const *argv, const char *what, uint64_t timeout_ms,
			     struct kvb_exec_result *r, struct kvb_error *err)
{
	struct kvb_spawn_opts o = { 0 };
	struct kvb_bgproc bg;
	struct kvb_progress pr;
	char *outp = kvb_xasprintf("%s/board-script.out", p->run_dir);
	char *errp = kvb_xasprintf("%s/board-script.err", p->run_dir);
	char *title = kvb_xasprintf("board %s: %s", strrchr(p->board_dir, '/') ? strrchr(p->board_dir, '/') + 1
										  : p->board_dir, what);
	uint64_t t0 = kvb_mono_ns();
	int rc, status = 0;
	o.argv = argv;
	o.stdout_path = outp;
	o.stderr_path = errp;
	if ((rc = kvb_spawn_bg(&o, &bg, err)))
		goto out;
	kvb_progress_start(&pr, title, 30, 0);
	for (;;) {
		pid_t w = waitpid(bg.pid, &status, WNOHANG);
		if (w == bg.pid)
			break;
		if (w < 0 && errno != EINTR) {
			rc = kvb_error_set(err, KVB_ETARGET, "waiting for %s: %s", argv[0], strerror(errno));
			kvb_spawn_stop(&bg, SIGTERM, 5000);
			break;
		}
		if (timeout_ms && kvb_mono_ns() - t0 > timeout_ms * 1000000ull) {
			kvb_spawn_stop(&bg, SIGTERM, 5000);
			r->timed_out = 1;
			r->exit_code = -1;
			break;
		}
		if (kvb_progress_due(&pr)) {
			struct kvb_buf e = KVB_BUF_INIT;
			char line[128];
			kvb_buf_read_file(&e, errp);
			last_line_of(&e, line);
			kvb_progress_tick(&pr, line[0] ? line : "starting");
			kvb_buf_release(&e);
		}
		kvb_sleep_ms(100);
	}
	kvb_progress_end(&pr);
	r->elapsed_ns = kvb_mono_ns() - t0;
	if (!rc && !r->timed_out) {
		r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		r->term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	}
	kvb_buf_read_file(&r->out, outp);
	kvb_buf_read_file(&r->err, errp);
out:
	unlink(outp);
	unlink(errp);
	free(outp);
	free(errp);
	free(title);
	return rc;
}

/* Runs the board script with args; on success *out (if non-NULL) gets its last stdout line. */
static int run_script(struct qemu_priv *p, const char *const *args, uint64_t timeout_ms, char **out,
		      struct kvb_error *err)
{
	struct kvb_strv argv = KVB_STRV_INIT;
	struct kvb_exec_result r;
	struct kvb_spawn_opts o = { 0 };
	int rc;

	kvb_strv_push(&argv, p->script);
	kvb_strv_push(&argv, "-d");
	kvb_strv_push(&argv, p->board_dir);
	for (size_t i = 0; args[i]; i++)
		kvb_strv_push(&argv, args[i]);
	o.argv = kvb_strv_argv(&argv);
	o.timeout_ms = timeout_ms;
	kvb_exec_result_init(&r);
	if (p->run_dir && kvb_is_dir(p->run_dir))
		rc = run_with_progress(p, o.argv, args[0], timeout_ms, &r, err);
	else
		rc = kvb_spawn_run(&o, &r, err);
	if (!rc && r.timed_out)
		rc = kvb_error_set(err, KVB_ETARGET, "'%s %s' timed out after %llu s", p->script, args[0],
				   (unsigned long long)(timeout_ms / 1000));
	if (!rc && r.exit_code != 0) {
		char how[64];
		const char *e = r.err.len ? r.err.data : r.out.data;
		/* The script's own message is its last stderr line. */
		size_t n = strlen(e);
		while (n && e[n - 1] == '\n')
			n--;
		size_t s = n;
		while (s && e[s - 1] != '\n')
			s--;
		rc = kvb_error_set(err, KVB_EINPUT, "'%s %s' failed (%s): %.*s", p->script, args[0],
				   kvb_exec_describe(&r, how, sizeof(how)), (int)(n - s > 500 ? 500 : n - s), e + s);
	} else if (rc) {
		kvb_error_prefix(err, "board script");
	}
	if (!rc && out) {
		size_t n = r.out.len;
		while (n && (r.out.data[n - 1] == '\n' || r.out.data[n - 1] == '\r'))
			n--;
		size_t s = n;
		while (s && r.out.data[s - 1] != '\n')
			s--;
		*out = kvb_xstrndup(r.out.data + s, n - s);
		if (!**out) {
			free(*out);
			*out = NULL;
			rc = kvb_error_set(err, KVB_EINPUT, "'%s %s' printed nothing", p->script, args[0]);
		}
	}
	kvb_exec_result_release(&r);
	kvb_strv_release(&argv);
	return rc;
}

int kvb_qemu_ensure_board(struct qemu_priv *p, struct kvb_error *err)
{
	const char *args[] = { "build", NULL };
	char *img;
	int rc;
	if (p->board_checked)
		return KVB_OK;
	rc = run_script(p, args, BOARD_BUILD_TIMEOUT_MS, NULL, err);
	if (rc)
		return rc;
	img = kvb_xasprintf("%s/rootfs.ext4", p->board_dir);
	if (!kvb_is_file(img))
		rc = kvb_error_set(err, KVB_EINPUT, "board script left no '%s'", img);
	free(img);
	p->board_checked = !rc;
	return rc;
}

/* A port on 127.0.0.1 that nobody listens on right now (the kernel picks it). */
int kvb_qemu_free_port(struct kvb_error *err)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = 0 };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) && !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	if (port <= 0)
		return -kvb_error_set(err, KVB_ETARGET, "cannot find a free port on 127.0.0.1: %s", strerror(errno));
	return port;
}

/*
 * One bounded readiness probe: connects to the forwarded port and waits for
 * the "SSH-" identification line (RFC 4253 §4.2). QEMU accepts the TCP
 * connection itself before the guest listens, so only the banner proves sshd.
 */
int kvb_qemu_sshd_answers(int port, int timeout_ms)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct pollfd pf;
	char buf[64];
	int fd, ok = 0, soerr = 0;
	socklen_t sl = sizeof(soerr);
	uint64_t t0 = kvb_mono_ns();
	size_t got = 0;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return 0;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) && errno != EINPROGRESS)
		goto out;
	pf.fd = fd;
	pf.events = POLLOUT;
	if (poll(&pf, 1, timeout_ms) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) || soerr)
		goto out;
	while (got < 4) {
		int left = timeout_ms - (int)((kvb_mono_ns() - t0) / 1000000);
		ssize_t n;
		pf.events = POLLIN;
		if (left <= 0 || poll(&pf, 1, left) != 1)
			goto out;
		n = read(fd, buf + got, sizeof(buf) - got);
		if (n <= 0)
			goto out;
		got += (size_t)n;
	}
	ok = !memcmp(buf, "SSH-", 4);
out:
	close(fd);
	return ok;
}

/* Reaps QEMU if it exited; returns 1 (and fills *status) when it is gone. */
int kvb_qemu_exited(struct qemu_priv *p, int *status)
{
	pid_t w;
	if (!p->proc.pid)
		return 1;
	do
		w = waitpid(p->proc.pid, status, WNOHANG);
	while (w == -1 && errno == EINTR);
	if (w == p->proc.pid || (w == -1 && errno == ECHILD)) {
		if (p->proc.out_fd >= 0)
			close(p->proc.out_fd);
		p->proc.out_fd = -1;
		p->proc.pid = 0;
		return 1;
	}
	return 0;
}

void kvb_qemu_ssh_detach(struct qemu_priv *p)
{
	if (p->ssh_open)
		kvb_target_close(&p->ssh);
	p->ssh_open = 0;
}

/* Waits up to wait_ms for QEMU to exit by itself, then stops it. Returns 1 if it had to be killed. */
int kvb_qemu_stop(struct qemu_priv *p, uint64_t wait_ms)
{
	uint64_t t0 = kvb_mono_ns();
	int status;
	kvb_qemu_ssh_detach(p);
	while (!kvb_qemu_exited(p, &status)) {
		if (kvb_mono_ns() - t0 >= wait_ms * 1000000ull) {
			kvb_spawn_stop(&p->proc, SIGTERM, 3000);
			return 1;
		}
		kvb_sleep_ms(50);
	}
	return 0;
}

/* Writes the per-boot known_hosts: the board's host key for [127.0.0.1]:port only. */
int kvb_qemu_write_known_hosts(struct qemu_priv *p, const char *path, struct kvb_error *err)
{
	struct kvb_buf key = KVB_BUF_INIT;
	char *pub = kvb_xasprintf("%s/ssh_host_ed25519_key.pub", p->board_dir);
	FILE *f;
	int rc = KVB_OK;
	if (kvb_buf_read_file(&key, pub)) {
		rc = kvb_error_set(err, KVB_EINPUT, "cannot read the board's host key '%s': %s", pub, strerror(errno));
		goto out;
	}
	/* "ssh-ed25519 AAAA... comment": keep type and key. */
	char *sp = strchr(key.data, ' ');
	size_t n = sp ? (size_t)(sp + 1 - key.data) + strcspn(sp + 1, " \n") : 0;
	if (!n) {
		rc = kvb_error_set(err, KVB_EINPUT, "'%s' holds no public key", pub);
		goto out;
	}
	f = fopen(path, "w");
	if (!f)
		rc = kvb_error_set(err, KVB_ETARGET, "cannot write '%s': %s", path, strerror(errno));
	else if ((fprintf(f, "[127.0.0.1]:%d %.*s\n", p->port, (int)n, key.data) < 0) | fclose(f))
		rc = kvb_error_set(err, KVB_ETARGET, "cannot write '%s'", path);
out:
	kvb_buf_release(&key);
	free(pub);
	return rc;
}

/* Opens the inner ssh target on the synthesised connection to the forwarded port. */
int kvb_qemu_ssh_attach(struct kvb_target *t, struct qemu_priv *p, struct kvb_error *err)
{
	char *key = kvb_xasprintf("%s/id_ed25519", p->board_dir), *kh = kvb_xasprintf("%s/known_hosts", p->run_dir);
	int rc;

	kvb_qemu_ssh_detach(p);
	if (!kvb_target_find("ssh")) {
		rc = kvb_error_set(err, KVB_ETARGET, "the qemu target needs the ssh target, which this build lacks");
		goto out;
	}
	cJSON_Delete(p->ssh_conn);
	p->ssh_conn = cJSON_CreateObject();
	cJSON_AddStringToObject(p->ssh_conn, "type", "ssh");
	cJSON_AddStringToObject(p->ssh_conn, "host", "127.0.0.1");
	cJSON_AddNumberToObject(p->ssh_conn, "port", p->port);
	cJSON_AddStringToObject(p->ssh_conn, "user", p->user);
	cJSON_AddStringToObject(p->ssh_conn, "key", key);
	cJSON_AddStringToObject(p->ssh_conn, "known_hosts", kh);
	cJSON_AddStringToObject(p->ssh_conn, "host_key", "strict");
	/* Bounds each attempt; the boot loop retries until its own deadline. */
	cJSON_AddNumberToObject(p->ssh_conn, "connect_timeout_s", 30);
	/* sshd answered a banner probe before this attempt (check_ssh): it runs, and on a slow guest
	 * (an instruction clock at 15 % of a loaded host's CPU) a connection's banner comes after
	 * sshd forked for it, seconds later; dropping it after 3 s and trying again only added
	 * connections for the guest to serve (issue 39: a boot failed so after 4 attempts). */
	cJSON_AddNumberToObject(p->ssh_conn, "banner_timeout_s", 20);
	/* A guest that dropped the connection has usually died with QEMU: fail soon. */
	cJSON_AddNumberToObject(p->ssh_conn, "reconnect_deadline_s", 20);
	/* With an instruction clock every packet lands at some guest instant the host chose: none
	 * flows while a command runs (its request goes before, its output after), so no keepalive.
	 * QEMU is ours: a dead guest is seen by QEMU exiting, not by a silent connection. */
	if (p->icount)
		cJSON_AddNumberToObject(p->ssh_conn, "keepalive_s", 0);
	if (t->plat)
		p->ssh_plat = *t->plat;
	else
		memset(&p->ssh_plat, 0, sizeof(p->ssh_plat));
	p->ssh_plat.conn = p->ssh_conn;
	p->ssh_plat.conn_type = "ssh";
	if (!p->ssh_plat.name)
		p->ssh_plat.name = "qemu";
	if (!p->ssh_plat.file)
		p->ssh_plat.file = "(qemu target)";
	if (!p->ssh_plat.workdir)
		p->ssh_plat.workdir = "/tmp/kvbench";
	rc = kvb_target_open(&p->ssh, &p->ssh_plat, err);
	p->ssh.cancel = t->cancel;
	p->ssh_open = !rc;
out:
	free(key);
	free(kh);
	return rc;
}

/* The console line holding needle (or the last non-empty line if needle is NULL), for messages. Owned. */
char *kvb_qemu_console_line(const struct kvb_buf *c, const char *needle)
{
	const char *s = NULL, *e;
	if (needle)
		s = strstr(c->data, needle);
	if (!s) {
		size_t n = c->len;
		while (n && (c->data[n - 1] == '\n' || c->data[n - 1] == '\r'))
			n--;
		size_t b = n;
		while (b && c->data[b - 1] != '\n')
			b--;
		return kvb_xstrndup(c->data + b, n - b > 300 ? 300 : n - b);
	}
	while (s > c->data && s[-1] != '\n')
		s--;
	e = s + strcspn(s, "\r\n");
	return kvb_xstrndup(s, (size_t)(e - s) > 300 ? 300 : (size_t)(e - s));
}

void kvb_qemu_set_last(char **slot, const char *v)
{
	char *c = v ? kvb_xstrdup(v) : NULL;
	free(*slot);
	*slot = c;
}

/* Starts QEMU for one boot attempt. */
int kvb_qemu_start(struct qemu_priv *p, const char *vmlinuz, const char *initrd, const char *cmdline,
	       const char *console, struct kvb_error *err)
{
	struct kvb_strv a = KVB_STRV_INIT;
	char *img = kvb_xasprintf("%s/rootfs.ext4", p->board_dir);
	char *eimg = kvb_qemu_escape(img), *econs = kvb_qemu_escape(console);
	char *log = kvb_xasprintf("%s/qemu.log", p->run_dir);
	struct kvb_spawn_opts o = { 0 };
	int rc;

	kvb_strv_push(&a, p->qemu_bin);
	kvb_strv_push(&a, "-accel");
	kvb_strv_push(&a, p->accel);
	if (p->icount) {
		/* guest time advances 2^0 ns per instruction; sleep=off: an idle guest jumps to its next
		 * timer instead of waiting for the host's clock (docs/system/qemu-manpage: -icount) */
		kvb_strv_push(&a, "-icount");
		kvb_strv_push(&a, "shift=0,sleep=off");
	}
	kvb_strv_push(&a, "-cpu");
	kvb_strv_push(&a, p->cpu);
	kvb_strv_push(&a, "-smp");
	kvb_strv_pushf(&a, "%lld", p->smp);
	kvb_strv_push(&a, "-m");
	kvb_strv_pushf(&a, "%lld", p->memory_mb);
	kvb_strv_push(&a, "-machine");
	kvb_strv_push(&a, p->machine);
	kvb_strv_push(&a, "-kernel");
	kvb_strv_push(&a, vmlinuz);
	kvb_strv_push(&a, "-initrd");
	kvb_strv_push(&a, initrd);
	kvb_strv_push(&a, "-append");
	kvb_strv_pushf(&a, "%s%s%s%s", BASE_CMDLINE, p->icount && p->smp == 1 ? " " ICOUNT_UP_CMDLINE : "",
		       cmdline && *cmdline ? " " : "", cmdline ? cmdline : "");
	kvb_strv_push(&a, "-drive");
	kvb_strv_pushf(&a, "file=%s,if=virtio,format=raw,snapshot=on", eimg);
	kvb_strv_push(&a, "-netdev");
	kvb_strv_pushf(&a, "user,id=n0,hostfwd=tcp:127.0.0.1:%d-:22", p->port);
	kvb_strv_push(&a, "-device");
	kvb_strv_push(&a, "virtio-net-pci,netdev=n0,romfile=");
	kvb_strv_push(&a, "-serial");
	kvb_strv_pushf(&a, "file:%s", econs);
	kvb_strv_push(&a, "-display");
	kvb_strv_push(&a, "none");
	kvb_strv_push(&a, "-monitor");
	kvb_strv_push(&a, "none");
	kvb_strv_push(&a, "-no-reboot");
	kvb_qemu_counter_args(p, &a);
	for (size_t i = 0; i < p->extra.n; i++)
		kvb_strv_push(&a, p->extra.v[i]);

	unlink(console);
	unlink(log);
	o.argv = kvb_strv_argv(&a);
	/* QEMU says why it failed on stderr; stdout has nothing with -display none. */
	o.stdout_path = "/dev/null";
	o.stderr_path = log;
	rc = kvb_spawn_bg(&o, &p->proc, err);
	if (!rc)
		kvb_debug("qemu: started pid %d, ssh on 127.0.0.1:%d, console %s", (int)p->proc.pid, p->port, console);
	kvb_strv_release(&a);
	free(img);
	free(eimg);
	free(econs);
	free(log);
	return rc;
}

/* Why QEMU exited early: its own last message (qemu.log), else the console's. Owned. */
char *kvb_qemu_exit_reason(struct qemu_priv *p, const struct kvb_buf *console)
{
	struct kvb_buf l = KVB_BUF_INIT;
	char *log = kvb_xasprintf("%s/qemu.log", p->run_dir), *why;
	kvb_buf_read_file(&l, log);
	why = kvb_qemu_console_line(l.len ? &l : console, NULL);
	kvb_buf_release(&l);
	free(log);
	return why;
}

/* KERNEL's size and mtime (ns), to tell whether a cached resolution still holds; 0 if unreadable. */
static int kernel_stamp(const char *kernel, long long *size, long long *mtime_ns)
{
	struct stat st;
	if (stat(kernel, &st))
		return 0;
	*size = (long long)st.st_size;
	*mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	return 1;
}

/* The vmlinuz of kernel: itself, or a Debian kernel directory's, found by the board script. */
static int find_vmlinuz(struct qemu_priv *p, const char *kernel, char **vmlinuz, struct kvb_error *err)
{
	const char *args[] = { "kernel", kernel, NULL };
	char *line = NULL;
	int rc;
	if (!kvb_is_dir(kernel)) {
		*vmlinuz = kvb_xstrdup(kernel);
		return KVB_OK;
	}
	rc = run_script(p, args, SCRIPT_TIMEOUT_MS, &line, err);
	if (rc)
		return rc;
	*vmlinuz = kvb_xstrndup(line, strcspn(line, "\t"));
	free(line);
	return KVB_OK;
}

/* The board script's vmlinuz and initramfs for kernel, asked once per kernel (see res_kernel). */
static int resolve_by_script(struct qemu_priv *p, const char *kernel, char **vmlinuz, char **initrd_path,
			     struct kvb_error *err)
{
	long long size = 0, mtime_ns = 0;
	int stamped = kernel_stamp(kernel, &size, &mtime_ns), rc;
	if (stamped && p->res_kernel && !strcmp(p->res_kernel, kernel) && p->res_size == size &&
	    p->res_mtime_ns == mtime_ns && kvb_is_file(p->res_vmlinuz) && kvb_is_file(p->res_initrd)) {
		*vmlinuz = kvb_xstrdup(p->res_vmlinuz);
		*initrd_path = kvb_xstrdup(p->res_initrd);
		return KVB_OK;
	}
	if ((rc = find_vmlinuz(p, kernel, vmlinuz, err)))
		return rc;
	const char *args[] = { "initrd", kernel, NULL };
	rc = run_script(p, args, SCRIPT_TIMEOUT_MS, initrd_path, err);
	if (rc) {
		free(*vmlinuz);
		*vmlinuz = NULL;
		return rc;
	}
	kvb_qemu_set_last(&p->res_kernel, stamped ? kernel : NULL);
	kvb_qemu_set_last(&p->res_vmlinuz, *vmlinuz);
	kvb_qemu_set_last(&p->res_initrd, *initrd_path);
	p->res_size = size;
	p->res_mtime_ns = mtime_ns;
	return KVB_OK;
}

/* The kernel to boot (a Debian kernel directory's vmlinuz, found by the board script) and its initrd. */
int kvb_qemu_resolve_boot_files(struct qemu_priv *p, const char *kernel, const char *initrd, char **vmlinuz,
		       char **initrd_path, struct kvb_error *err)
{
	int rc;
	if (!initrd)
		return resolve_by_script(p, kernel, vmlinuz, initrd_path, err);
	if ((rc = find_vmlinuz(p, kernel, vmlinuz, err)))
		return rc;
	*initrd_path = kvb_xstrdup(initrd);
	return KVB_OK;
}
