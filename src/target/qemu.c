/* Implements the qemu target: owns a QEMU process running the qemu-x86_64 board and talks ssh to the guest. */
#include "target/qemu.h"
#include "config/platform.h"
#include "core/buf.h"
#include "core/datadir.h"
#include "core/log.h"
#include "core/util.h"

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

#define BASE_CMDLINE "console=ttyS0 loglevel=4 panic=-1 root=/dev/vda"
#define PANIC_TEXT "Kernel panic - not syncing"
/* The first build of the board runs mmdebstrap: about 30 s, far more on a slow mirror. */
#define BOARD_BUILD_TIMEOUT_MS (30u * 60 * 1000)
#define SCRIPT_TIMEOUT_MS (120u * 1000)
/* One ssh readiness attempt: QEMU's user network can swallow an early connection. A probe
 * that times out doubles the next one's wait, up to PROBE_MAX_MS: on a slow guest (an
 * instruction clock on a loaded host) every probe left waiting is one more unauthenticated
 * connection, and past sshd's MaxStartups (10) sshd drops new ones, so probing every 300 ms
 * with 3 s each kept it from ever sending a banner (seen: 900 s, "past MaxStartups"). */
#define PROBE_TIMEOUT_MS 3000u
#define PROBE_MAX_MS 30000u
#define SSH_CHECK_TIMEOUT_MS 15000u
#define POWEROFF_WAIT_MS 15000u
/* sshd answers but logins keep failing (wrong key, refused host key): give up after this. */
#define LOGIN_GRACE_MS 30000u

static const struct kvb_keydef qemu_conn_keys[] = {
	{ "board_dir", KVB_T_STR, "${XDG_CACHE_HOME:-~/.cache}/kvbench/qemu-x86_64", NULL, 0,
	  "board cache directory (rootfs.ext4, keys, initrds); built on first use" },
	{ "board", KVB_T_STR, "qemu-x86_64", NULL, 0,
	  "the board's name: its cache directory when board_dir is not given (qemu-x86_64-ram: the memory board)" },
	{ "board_script", KVB_T_STR, "<data>/scripts/qemu-board", NULL, 0,
	  "script that builds the board and initrds; a bare name is one of kvbench's scripts (<data>/scripts: share/kvbench installed, the source tree from a build; qemu-board-ram)" },
	{ "qemu", KVB_T_STR, "qemu-system-x86_64", NULL, 0,
	  "QEMU system emulator: a name on PATH, a path, or <cache>/PATH in kvbench's cache directory (<cache>/qemu-backports/qemu-system-x86_64: scripts/get-qemu-backports)" },
	{ "accel", KVB_T_STR, "tcg,thread=multi", NULL, 0, "-accel value (KVM is not usable on nested CI hosts)" },
	{ "cpu", KVB_T_STR, "max", NULL, 0, "-cpu model" },
	{ "machine", KVB_T_STR, "q35", NULL, 0, "-machine type" },
	{ "smp", KVB_T_INT, "2", NULL, KVB_KEY_POSITIVE, "guest CPUs" },
	{ "memory_mb", KVB_T_INT, "1024", NULL, KVB_KEY_POSITIVE, "guest memory, MiB" },
	{ "ssh_port", KVB_T_INT, "0", NULL, KVB_KEY_NONNEG, "127.0.0.1 port forwarded to the guest's sshd; 0 = pick a free one" },
	{ "user", KVB_T_STR, "root", NULL, 0, "ssh user on the guest" },
	{ "kernel", KVB_T_STR, NULL, NULL, 0, "kernel booted at open (vmlinuz or get-kernels directory); none: the flasher boots" },
	{ "initrd", KVB_T_STR, NULL, NULL, 0, "initrd for `kernel`; default: built by board_script" },
	{ "cmdline", KVB_T_STR, NULL, NULL, 0, "extra kernel command line for `kernel`" },
	{ "extra_args", KVB_T_STRLIST, NULL, NULL, 0, "more QEMU arguments" },
	{ "clock", KVB_T_STR, "host", NULL, 0,
	  "guest time: host (real time) or instructions (-icount shift=0,sleep=off on single-threaded TCG: "
	  "deterministic times, host load cannot change them)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
};

struct qemu_priv {
	char *board_dir;
	char *script;
	char *qemu_bin;
	char *accel, *cpu, *machine, *user;
	long long smp, memory_mb, conf_port;
	int icount;             /* clock: instructions */
	struct kvb_strv extra;
	char *run_dir;          /* private mkdtemp directory: known_hosts, qemu.log, default console */
	int board_checked;      /* board script `build` succeeded once */

	struct kvb_bgproc proc; /* pid 0 when no QEMU runs */
	int port;
	uint64_t marker_ms, ready_ms;
	char *kernel, *initrd, *cmdline, *console; /* last boot, owned */

	cJSON *ssh_conn;              /* synthesised connection mapping for the ssh target */
	struct kvb_platform ssh_plat; /* shallow copy of the platform with conn replaced; never released */
	struct kvb_target ssh;
	int ssh_open;
};

/* ${XDG_CACHE_HOME:-$HOME/.cache}/kvbench/NAME */
static char *board_cache_dir(const char *name)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	if (xdg && *xdg)
		return kvb_xasprintf("%s/kvbench/%s", xdg, name);
	return kvb_xasprintf("%s/.cache/kvbench/%s", home && *home ? home : "/tmp", name);
}

char *kvb_qemu_default_board_dir(void)
{
	return board_cache_dir("qemu-x86_64");
}

static struct qemu_priv *priv_of(const struct kvb_target *t)
{
	if (!t || t->ops != &kvb_target_qemu)
		return NULL;
	return t->priv;
}

/* QEMU option values separate suboptions with ','; a literal comma is written ",,". */
static char *qemu_escape(const char *s)
{
	struct kvb_buf b = KVB_BUF_INIT;
	for (; *s; s++) {
		kvb_buf_addc(&b, *s);
		if (*s == ',')
			kvb_buf_addc(&b, ',');
	}
	return kvb_buf_detach(&b);
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
	rc = kvb_spawn_run(&o, &r, err);
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

static int ensure_board(struct qemu_priv *p, struct kvb_error *err)
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
static int free_port(struct kvb_error *err)
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
static int sshd_answers(int port, int timeout_ms)
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
static int qemu_exited(struct qemu_priv *p, int *status)
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

static void ssh_detach(struct qemu_priv *p)
{
	if (p->ssh_open)
		kvb_target_close(&p->ssh);
	p->ssh_open = 0;
}

/* Waits up to wait_ms for QEMU to exit by itself, then stops it. Returns 1 if it had to be killed. */
static int qemu_stop(struct qemu_priv *p, uint64_t wait_ms)
{
	uint64_t t0 = kvb_mono_ns();
	int status;
	ssh_detach(p);
	while (!qemu_exited(p, &status)) {
		if (kvb_mono_ns() - t0 >= wait_ms * 1000000ull) {
			kvb_spawn_stop(&p->proc, SIGTERM, 3000);
			return 1;
		}
		kvb_sleep_ms(50);
	}
	return 0;
}

/*
 * The kernel's last words before it stops for good (kernel/reboot.c, pr_fmt "reboot: "): a
 * kernel that cannot power the machine off (no ACPI: tinyconfig and most built kernels) halts
 * instead, and QEMU keeps running a stopped guest. Waiting out POWEROFF_WAIT_MS for it to exit
 * cost every boot after a run's first one 15 s (issue 39: boots ready 16 s after start in a
 * kernel's first round, 40-52 s in later ones).
 */
static const char *const halted_text[] = { "reboot: System halted", "reboot: Power down", NULL };

/*
 * After `poweroff -f`: waits up to wait_ms for QEMU to exit, but stops it as soon as the
 * console says the kernel halted or powered down (nothing more can happen in the guest).
 * Returns 1 when it had to be killed while the guest had not said so.
 */
static int qemu_stop_halted(struct qemu_priv *p, uint64_t wait_ms)
{
	uint64_t t0 = kvb_mono_ns();
	struct kvb_buf con = KVB_BUF_INIT;
	int status, halted = 0;
	ssh_detach(p);
	while (!qemu_exited(p, &status)) {
		if (!halted && p->console) {
			kvb_buf_reset(&con);
			kvb_buf_read_file(&con, p->console);
			for (size_t i = 0; con.data && halted_text[i] && !halted; i++)
				halted = strstr(con.data, halted_text[i]) != NULL;
		}
		if (halted || kvb_mono_ns() - t0 >= wait_ms * 1000000ull) {
			kvb_spawn_stop(&p->proc, SIGTERM, 3000);
			kvb_buf_release(&con);
			return !halted;
		}
		kvb_sleep_ms(50);
	}
	kvb_buf_release(&con);
	return 0;
}

/* Writes the per-boot known_hosts: the board's host key for [127.0.0.1]:port only. */
static int write_known_hosts(struct qemu_priv *p, const char *path, struct kvb_error *err)
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
static int ssh_attach(struct kvb_target *t, struct qemu_priv *p, struct kvb_error *err)
{
	char *key = kvb_xasprintf("%s/id_ed25519", p->board_dir), *kh = kvb_xasprintf("%s/known_hosts", p->run_dir);
	int rc;

	ssh_detach(p);
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
	cJSON_AddNumberToObject(p->ssh_conn, "connect_timeout_s", 10);
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
static char *console_line(const struct kvb_buf *c, const char *needle)
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

static void set_last(char **slot, const char *v)
{
	char *c = v ? kvb_xstrdup(v) : NULL;
	free(*slot);
	*slot = c;
}

/* Starts QEMU for one boot attempt. */
static int qemu_start(struct qemu_priv *p, const char *vmlinuz, const char *initrd, const char *cmdline,
		      const char *console, struct kvb_error *err)
{
	struct kvb_strv a = KVB_STRV_INIT;
	char *img = kvb_xasprintf("%s/rootfs.ext4", p->board_dir);
	char *eimg = qemu_escape(img), *econs = qemu_escape(console);
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
	kvb_strv_pushf(&a, "%s%s%s", BASE_CMDLINE, cmdline && *cmdline ? " " : "", cmdline ? cmdline : "");
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
static char *exit_reason(struct qemu_priv *p, const struct kvb_buf *console)
{
	struct kvb_buf l = KVB_BUF_INIT;
	char *log = kvb_xasprintf("%s/qemu.log", p->run_dir), *why;
	kvb_buf_read_file(&l, log);
	why = console_line(l.len ? &l : console, NULL);
	kvb_buf_release(&l);
	free(log);
	return why;
}

/* The kernel to boot (a Debian kernel directory's vmlinuz, found by the board script) and its initrd. */
static int resolve_boot_files(struct qemu_priv *p, const char *kernel, const char *initrd, char **vmlinuz,
			      char **initrd_path, struct kvb_error *err)
{
	int rc;
	if (kvb_is_dir(kernel)) {
		const char *args[] = { "kernel", kernel, NULL };
		char *line = NULL;
		rc = run_script(p, args, SCRIPT_TIMEOUT_MS, &line, err);
		if (rc)
			return rc;
		*vmlinuz = kvb_xstrndup(line, strcspn(line, "\t"));
		free(line);
	} else {
		*vmlinuz = kvb_xstrdup(kernel);
	}
	if (initrd) {
		*initrd_path = kvb_xstrdup(initrd);
		return KVB_OK;
	}
	const char *args[] = { "initrd", kernel, NULL };
	return run_script(p, args, SCRIPT_TIMEOUT_MS, initrd_path, err);
}

/* What a boot has shown so far, across its attempts (a port taken under us is tried again). */
struct boot_watch {
	const char *vmlinuz, *console;
	uint64_t timeout_ms, t0, deadline, banner_ns;
	int marker, attempts, tries;
	unsigned probe_ms;        /* the next readiness probe's wait (PROBE_TIMEOUT_MS, doubling) */
	struct kvb_buf con;       /* the console, re-read every poll */
	struct kvb_error serr;    /* the last ssh failure */
	int rc;                   /* the error of BOOT_FAILED */
};

enum boot_state { BOOT_WAITING, BOOT_READY, BOOT_FAILED, BOOT_PORT_TAKEN };

/* A port, the known_hosts for the board's key, and QEMU started. */
static int start_attempt(struct qemu_priv *p, const char *kh, const char *initrd_path, const char *cmdline,
			 struct boot_watch *w, struct kvb_error *err)
{
	int rc;
	p->port = (int)p->conf_port;
	if (!p->port && (p->port = free_port(err)) < 0) {
		rc = -p->port;
		p->port = 0;
		return rc;
	}
	rc = write_known_hosts(p, kh, err);
	if (!rc)
		rc = qemu_start(p, w->vmlinuz, initrd_path, cmdline, w->console, err);
	if (rc)
		return rc;
	w->t0 = kvb_mono_ns();
	w->deadline = w->t0 + w->timeout_ms * 1000000ull;
	kvb_error_clear(&w->serr);
	return KVB_OK;
}

/* The console: a panic, QEMU gone (the port taken under us: try again), or the ready marker. */
static enum boot_state check_console(struct qemu_priv *p, struct boot_watch *w, uint64_t now, struct kvb_error *err)
{
	int status = 0;
	if (strstr(w->con.data, PANIC_TEXT)) {
		char *line = console_line(&w->con, PANIC_TEXT);
		qemu_stop(p, 0);
		w->rc = kvb_error_set(err, KVB_ETARGET, "kernel '%s' panicked %.1f s into the boot: %s (console: %s)",
				      w->vmlinuz, (double)(now - w->t0) / 1e9, line, w->console);
		free(line);
		return BOOT_FAILED;
	}
	if (qemu_exited(p, &status)) {
		char *why = exit_reason(p, &w->con);
		/* Another process took the port between our check and QEMU's bind: pick again. */
		if (!p->conf_port && strstr(why, "host forwarding") && ++w->tries < 3) {
			free(why);
			return BOOT_PORT_TAKEN;
		}
		w->rc = kvb_error_set(err, KVB_ETARGET, "qemu exited (status %d) before the board was ready: %s (console: %s)",
				      WIFEXITED(status) ? WEXITSTATUS(status) : -1, why, w->console);
		free(why);
		return BOOT_FAILED;
	}
	if (!w->marker && strstr(w->con.data, KVB_QEMU_READY_MARKER)) {
		w->marker = 1;
		p->marker_ms = (now - w->t0) / 1000000;
	}
	return BOOT_WAITING;
}

/* After the marker: ready when sshd answers and `true` runs; an sshd that keeps refusing fails the boot. */
static enum boot_state check_ssh(struct kvb_target *t, struct qemu_priv *p, struct boot_watch *w,
				 struct kvb_error *err)
{
	const char *argv[] = { "true", NULL };
	struct kvb_exec_result r;
	if (!w->probe_ms)
		w->probe_ms = PROBE_TIMEOUT_MS;
	if (!w->marker)
		return BOOT_WAITING;
	if (!sshd_answers(p->port, (int)w->probe_ms)) {
		w->probe_ms = w->probe_ms * 2 > PROBE_MAX_MS ? PROBE_MAX_MS : w->probe_ms * 2;
		return BOOT_WAITING;
	}
	w->attempts++;
	if (!w->banner_ns)
		w->banner_ns = kvb_mono_ns();
	kvb_exec_result_init(&r);
	kvb_error_clear(&w->serr);
	if (!ssh_attach(t, p, &w->serr) && !kvb_target_run_ok(&p->ssh, argv, SSH_CHECK_TIMEOUT_MS, &r, &w->serr)) {
		kvb_exec_result_release(&r);
		p->ready_ms = (kvb_mono_ns() - w->t0) / 1000000;
		kvb_debug("qemu: ready after %llu ms (marker at %llu ms)", (unsigned long long)p->ready_ms,
			  (unsigned long long)p->marker_ms);
		return BOOT_READY;
	}
	kvb_exec_result_release(&r);
	ssh_detach(p);
	if (kvb_mono_ns() - w->banner_ns > LOGIN_GRACE_MS * 1000000ull) {
		qemu_stop(p, 0);
		w->rc = kvb_error_set(err, KVB_ETARGET,
				      "the board's sshd answers but ssh fails after %d attempts over %u s: %s "
				      "(console: %s)",
				      w->attempts, LOGIN_GRACE_MS / 1000, w->serr.msg, w->console);
		return BOOT_FAILED;
	}
	return BOOT_WAITING;
}

/* Ctrl-C, or the boot's time is up (the message says how far it got). */
static enum boot_state check_limits(struct kvb_target *t, struct qemu_priv *p, struct boot_watch *w,
				    struct kvb_error *err)
{
	if (t->cancel && *t->cancel) {
		qemu_stop(p, 0);
		w->rc = kvb_error_set(err, KVB_ETARGET, "boot of '%s' cancelled", w->vmlinuz);
		return BOOT_FAILED;
	}
	if (kvb_mono_ns() < w->deadline)
		return BOOT_WAITING;
	char *line = console_line(&w->con, NULL);
	qemu_stop(p, 0);
	if (!w->marker)
		w->rc = kvb_error_set(err, KVB_ETARGET,
				      "board did not come up within %llu ms (no \"%s\" on the console; last line: %s; "
				      "console: %s)",
				      (unsigned long long)w->timeout_ms, KVB_QEMU_READY_MARKER, line, w->console);
	else
		w->rc = kvb_error_set(err, KVB_ETARGET,
				      "board printed its ready marker but ssh did not answer within %llu ms (%d "
				      "attempts; last error: %s; console: %s)",
				      (unsigned long long)w->timeout_ms, w->attempts,
				      w->serr.msg[0] ? w->serr.msg : "no ssh banner", w->console);
	free(line);
	return BOOT_FAILED;
}

/* One look at a booting board: console, then ssh, then the limits. */
static enum boot_state poll_boot(struct kvb_target *t, struct qemu_priv *p, struct boot_watch *w,
				 struct kvb_error *err)
{
	uint64_t now = kvb_mono_ns();
	enum boot_state s;
	kvb_buf_reset(&w->con);
	kvb_buf_read_file(&w->con, w->console);
	if ((s = check_console(p, w, now, err)) != BOOT_WAITING || (s = check_ssh(t, p, w, err)) != BOOT_WAITING)
		return s;
	return check_limits(t, p, w, err);
}

/*
 * Boots kernel on the QEMU board: resolve the kernel and initrd, start QEMU, then poll
 * the console and sshd until the board answers ssh, panics, exits or runs out of time.
 */
int kvb_qemu_boot(struct kvb_target *t, const char *kernel, const char *initrd, const char *cmdline,
		  uint64_t timeout_ms, const char *console_log_path, struct kvb_error *err)
{
	struct qemu_priv *p = priv_of(t);
	struct kvb_error serr = { 0 };
	struct boot_watch w = { .timeout_ms = timeout_ms, .con = KVB_BUF_INIT };
	char *vmlinuz = NULL, *initrd_path = NULL, *console = NULL, *kh = NULL;
	enum boot_state s;
	int rc = KVB_OK;

	if (!p)
		return kvb_error_set(err, KVB_EINPUT, "kvb_qemu_boot: target is not an open qemu target");
	if (!kernel || (!kvb_is_file(kernel) && !kvb_is_dir(kernel)))
		return kvb_error_set(err, KVB_EINPUT, "no kernel '%s'", kernel ? kernel : "(null)");
	if (initrd && !kvb_is_file(initrd))
		return kvb_error_set(err, KVB_EINPUT, "no initrd '%s'", initrd);
	kvb_qemu_poweroff(t, &serr);
	rc = ensure_board(p, err);
	if (!rc)
		rc = resolve_boot_files(p, kernel, initrd, &vmlinuz, &initrd_path, err);
	if (rc)
		goto out;
	console = console_log_path ? kvb_xstrdup(console_log_path) : kvb_xasprintf("%s/console.log", p->run_dir);
	kh = kvb_xasprintf("%s/known_hosts", p->run_dir);
	set_last(&p->kernel, vmlinuz);
	set_last(&p->initrd, initrd_path);
	set_last(&p->cmdline, cmdline);
	set_last(&p->console, console);
	p->marker_ms = p->ready_ms = 0;
	w.vmlinuz = vmlinuz;
	w.console = console;
	do {
		if ((rc = start_attempt(p, kh, initrd_path, cmdline, &w, err)))
			goto out;
		while ((s = poll_boot(t, p, &w, err)) == BOOT_WAITING)
			kvb_sleep_ms(w.marker ? 300 : 100);
	} while (s == BOOT_PORT_TAKEN);
	rc = s == BOOT_READY ? KVB_OK : w.rc;
out:
	if (rc && p->proc.pid)
		qemu_stop(p, 0);
	kvb_buf_release(&w.con);
	free(vmlinuz);
	free(initrd_path);
	free(console);
	free(kh);
	return rc;
}

int kvb_qemu_poweroff(struct kvb_target *t, struct kvb_error *err)
{
	struct qemu_priv *p = priv_of(t);
	if (!p)
		return kvb_error_set(err, KVB_EINPUT, "kvb_qemu_poweroff: target is not an open qemu target");
	if (!p->proc.pid)
		return KVB_OK;
	if (p->ssh_open) {
		/* The connection dies with the guest: the command's own outcome says nothing. */
		const char *argv[] = { "busybox", "poweroff", "-f", NULL };
		struct kvb_exec_result r;
		struct kvb_error ignored = { 0 };
		kvb_exec_result_init(&r);
		kvb_target_exec(&p->ssh, argv, 5000, &r, &ignored);
		kvb_exec_result_release(&r);
	} else {
		kill(p->proc.pid, SIGTERM);
	}
	if (qemu_stop_halted(p, POWEROFF_WAIT_MS))
		return kvb_error_set(err, KVB_ETARGET, "qemu did not exit within %u ms of poweroff; killed it",
				     POWEROFF_WAIT_MS);
	return KVB_OK;
}

int kvb_qemu_status(const struct kvb_target *t, struct kvb_qemu_status *st)
{
	const struct qemu_priv *p = priv_of(t);
	memset(st, 0, sizeof(*st));
	if (!p)
		return KVB_EINPUT;
	st->running = p->proc.pid > 0;
	st->ssh_port = p->proc.pid > 0 ? p->port : 0;
	st->marker_ms = p->marker_ms;
	st->ready_ms = p->ready_ms;
	st->console_log = p->console;
	st->kernel = p->kernel;
	st->initrd = p->initrd;
	return KVB_OK;
}

static void priv_free(struct qemu_priv *p)
{
	if (!p)
		return;
	free(p->board_dir);
	free(p->script);
	free(p->qemu_bin);
	free(p->accel);
	free(p->cpu);
	free(p->machine);
	free(p->user);
	kvb_strv_release(&p->extra);
	free(p->kernel);
	free(p->initrd);
	free(p->cmdline);
	free(p->console);
	cJSON_Delete(p->ssh_conn);
	free(p->run_dir);
	free(p);
}

static char *conn_str(const cJSON *conn, const char *key, const char *def)
{
	const char *v = kvb_get_str(conn, key, def);
	return v ? kvb_xstrdup(v) : NULL;
}

static void qemu_close(struct kvb_target *t);

static int qemu_open(struct kvb_target *t, struct kvb_error *err)
{
	const cJSON *conn = t->plat ? t->plat->conn : NULL, *extra;
	struct qemu_priv *p = kvb_xcalloc(1, sizeof(*p));
	char tmpl[4096];
	const char *tmp = getenv("TMPDIR"), *kernel;
	int rc = KVB_OK;

	p->board_dir = conn_str(conn, "board_dir", NULL);
	if (!p->board_dir) {
		const char *name = kvb_get_str(conn, "board", "qemu-x86_64");
		if (!*name || strchr(name, '/') || name[0] == '.') {
			rc = kvb_error_set(err, KVB_EINPUT, "%s: connection.board '%s': expected a name (no '/')",
					   t->plat && t->plat->file ? t->plat->file : "platform", name);
			free(p->board_dir);
			free(p);
			return rc;
		}
		p->board_dir = board_cache_dir(name);
	}
	{
		/* shipped beside the platforms: <prefix>/share/kvbench/scripts when installed (core/datadir.h) */
		char *def = kvb_xasprintf("%s/scripts/qemu-board", kvb_data_dir());
		p->script = conn_str(conn, "board_script", def);
		free(def);
	}
	if (!strchr(p->script, '/')) { /* one of kvbench's own board scripts */
		char *s = kvb_xasprintf("%s/scripts/%s", kvb_data_dir(), p->script);
		free(p->script);
		p->script = s;
	}
	p->qemu_bin = conn_str(conn, "qemu", "qemu-system-x86_64");
	if (!strncmp(p->qemu_bin, "<cache>/", 8)) { /* a QEMU unpacked into kvbench's cache (scripts/get-qemu-backports) */
		char *c = board_cache_dir(p->qemu_bin + 8);
		free(p->qemu_bin);
		p->qemu_bin = c;
	}
	if (strchr(p->qemu_bin, '/') && access(p->qemu_bin, X_OK)) {
		rc = kvb_error_set(err, KVB_EINPUT, "%s: connection.qemu %s: %s%s",
				   t->plat && t->plat->file ? t->plat->file : "platform", p->qemu_bin, strerror(errno),
				   strstr(p->qemu_bin, "/qemu-backports/") ? " (unpack it first: scripts/get-qemu-backports)" : "");
		priv_free(p);
		return rc;
	}
	{
		const char *clock = kvb_get_str(conn, "clock", "host");
		if (strcmp(clock, "host") && strcmp(clock, "instructions")) {
			rc = kvb_error_set(err, KVB_EINPUT, "%s: connection.clock '%s': expected host or instructions",
					   t->plat && t->plat->file ? t->plat->file : "platform", clock);
			priv_free(p);
			return rc;
		}
		p->icount = !strcmp(clock, "instructions");
	}
	/* icount needs one TCG thread (QEMU refuses -icount with multi-threaded TCG) */
	p->accel = conn_str(conn, "accel", p->icount ? "tcg,thread=single" : "tcg,thread=multi");
	p->cpu = conn_str(conn, "cpu", "max");
	p->machine = conn_str(conn, "machine", "q35");
	p->user = conn_str(conn, "user", "root");
	p->smp = kvb_get_int(conn, "smp", 2);
	p->memory_mb = kvb_get_int(conn, "memory_mb", 1024);
	p->conf_port = kvb_get_int(conn, "ssh_port", 0);
	extra = conn ? cJSON_GetObjectItemCaseSensitive(conn, "extra_args") : NULL;
	if (cJSON_IsString(extra)) {
		kvb_strv_push(&p->extra, extra->valuestring);
	} else if (cJSON_IsArray(extra)) {
		for (const cJSON *e = extra->child; e; e = e->next) {
			char *s = kvb_node_str(e);
			if (s)
				kvb_strv_push(&p->extra, s);
			free(s);
		}
	}
	/* Relative board paths in platform.yaml are relative to the platform directory. */
	if (p->board_dir[0] != '/' && t->plat && t->plat->dir) {
		char *abs = kvb_xasprintf("%s/%s", t->plat->dir, p->board_dir);
		free(p->board_dir);
		p->board_dir = abs;
	}
	snprintf(tmpl, sizeof(tmpl), "%s/kvb-qemu.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpl)) {
		rc = kvb_error_set(err, KVB_ETARGET, "cannot create a directory like '%s': %s", tmpl, strerror(errno));
		priv_free(p);
		return rc;
	}
	p->run_dir = kvb_xstrdup(tmpl);
	p->proc.out_fd = -1;
	t->priv = p;

	kernel = kvb_get_str(conn, "kernel", NULL);
	if (kernel) {
		uint64_t timeout_ms = (uint64_t)(t->plat && t->plat->boot_timeout_s > 0 ? t->plat->boot_timeout_s : 120) * 1000;
		rc = kvb_qemu_boot(t, kernel, kvb_get_str(conn, "initrd", NULL), kvb_get_str(conn, "cmdline", NULL),
				   timeout_ms, NULL, err);
	}
	if (rc)
		qemu_close(t);
	return rc;
}

static int need_guest(struct qemu_priv *p, struct kvb_error *err)
{
	if (!p)
		return kvb_error_set(err, KVB_ETARGET, "qemu target is not open");
	if (!p->ssh_open)
		return kvb_error_set(err, KVB_ETARGET, "no guest is running on the qemu target (no kernel booted yet)");
	return KVB_OK;
}

static int qemu_exec(struct kvb_target *t, const char *const *argv, uint64_t timeout_ms, struct kvb_exec_result *r,
		     struct kvb_error *err)
{
	struct qemu_priv *p = priv_of(t);
	int rc = need_guest(p, err);
	if (rc)
		return rc;
	p->ssh.cancel = t->cancel;
	return kvb_target_exec(&p->ssh, argv, timeout_ms, r, err);
}

static int qemu_push(struct kvb_target *t, const char *local, const char *remote, struct kvb_error *err)
{
	struct qemu_priv *p = priv_of(t);
	int rc = need_guest(p, err);
	return rc ? rc : kvb_target_push(&p->ssh, local, remote, err);
}

static int qemu_pull(struct kvb_target *t, const char *remote, const char *local, struct kvb_error *err)
{
	struct qemu_priv *p = priv_of(t);
	int rc = need_guest(p, err);
	return rc ? rc : kvb_target_pull(&p->ssh, remote, local, err);
}

/* A reboot is a new QEMU process on the same kernel, initrd and cmdline. */
static int qemu_reboot(struct kvb_target *t, const char *mode, struct kvb_error *err)
{
	struct qemu_priv *p = priv_of(t);
	char *kernel, *initrd, *cmdline, *console;
	uint64_t timeout_ms;
	int rc;
	if (mode)
		return kvb_error_set(err, KVB_ETARGET, "qemu target has no reboot mode '%s'", mode);
	if (!p || !p->kernel)
		return kvb_error_set(err, KVB_ETARGET, "qemu target cannot reboot: no kernel booted yet");
	timeout_ms = (uint64_t)(t->plat && t->plat->boot_timeout_s > 0 ? t->plat->boot_timeout_s : 120) * 1000;
	/* kvb_qemu_boot replaces the saved strings: boot from copies. */
	kernel = kvb_xstrdup(p->kernel);
	initrd = kvb_xstrdup(p->initrd);
	cmdline = p->cmdline ? kvb_xstrdup(p->cmdline) : NULL;
	console = kvb_xstrdup(p->console);
	rc = kvb_qemu_boot(t, kernel, initrd, cmdline, timeout_ms, console, err);
	free(kernel);
	free(initrd);
	free(cmdline);
	free(console);
	return rc;
}

static int qemu_wait_ready(struct kvb_target *t, uint64_t timeout_ms, struct kvb_error *err)
{
	struct qemu_priv *p = priv_of(t);
	const char *argv[] = { "true", NULL };
	struct kvb_exec_result r;
	int rc = need_guest(p, err);
	if (rc)
		return rc;
	kvb_exec_result_init(&r);
	rc = kvb_target_run_ok(&p->ssh, argv, timeout_ms < SSH_CHECK_TIMEOUT_MS ? timeout_ms : SSH_CHECK_TIMEOUT_MS,
			       &r, err);
	kvb_exec_result_release(&r);
	return rc;
}

static void qemu_close(struct kvb_target *t)
{
	struct qemu_priv *p = priv_of(t);
	struct kvb_error ignored = { 0 };
	const char *files[] = { "known_hosts", "qemu.log", "console.log" };
	if (!p)
		return;
	kvb_qemu_poweroff(t, &ignored);
	for (size_t i = 0; i < KVB_ARRAY_SIZE(files); i++) {
		char *f = kvb_xasprintf("%s/%s", p->run_dir, files[i]);
		unlink(f);
		free(f);
	}
	rmdir(p->run_dir);
	priv_free(p);
	t->priv = NULL;
}

/* The guest's CPUs are QEMU's threads on this host: the host witness reads them (engine/hostwatch.h). */
static int qemu_host(struct kvb_target *t, struct kvb_target_host *h)
{
	struct qemu_priv *p = priv_of(t);
	memset(h, 0, sizeof(*h));
	if (!p || !p->proc.pid)
		return 0;
	h->pid = p->proc.pid;
	h->process = "qemu";
	h->virtual_clock = p->icount;
	h->cpus = p->icount ? 1 : (int)p->smp;
	return 1;
}

const struct kvb_target_ops kvb_target_qemu = {
	.name = "qemu",
	.summary = "a QEMU process kvbench owns (qemu-x86_64 board), commands over ssh",
	.caps = KVB_TARGET_OWNS_BOARD,
	.conn_keys = qemu_conn_keys,
	.open = qemu_open,
	.exec = qemu_exec,
	.push = qemu_push,
	.pull = qemu_pull,
	.reboot = qemu_reboot,
	.wait_ready = qemu_wait_ready,
	.close = qemu_close,
	.host = qemu_host,
};
