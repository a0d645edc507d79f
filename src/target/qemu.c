/* Implements the qemu target: owns a QEMU process running the qemu-x86_64 board and talks ssh to the guest. */
#include "target/qemu_internal.h"

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
	{ "clock", KVB_T_STR, "host", "host|instructions", 0,
	  "guest time: host (real time) or instructions (-icount shift=0,sleep=off on single-threaded TCG: "
	  "deterministic times, host load cannot change them)" },
	{ NULL, 0, NULL, NULL, 0, NULL },
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

struct qemu_priv *kvb_qemu_priv_of(const struct kvb_target *t)
{
	if (!t || t->ops != &kvb_target_qemu)
		return NULL;
	return t->priv;
}

/* QEMU option values separate suboptions with ','; a literal comma is written ",,". */
char *kvb_qemu_escape(const char *s)
{
	struct kvb_buf b = KVB_BUF_INIT;
	for (; *s; s++) {
		kvb_buf_addc(&b, *s);
		if (*s == ',')
			kvb_buf_addc(&b, ',');
	}
	return kvb_buf_detach(&b);
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
	free(p->label);
	free(p->res_kernel);
	free(p->res_vmlinuz);
	free(p->res_initrd);
	cJSON_Delete(p->ssh_conn);
	kvb_qemu_counter_free(p);
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
	kvb_qemu_counter_open(t, p);

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
	struct qemu_priv *p = kvb_qemu_priv_of(t);
	int rc = need_guest(p, err);
	if (rc)
		return rc;
	p->ssh.cancel = t->cancel;
	return kvb_target_exec(&p->ssh, argv, timeout_ms, r, err);
}

static int qemu_push(struct kvb_target *t, const char *local, const char *remote, struct kvb_error *err)
{
	struct qemu_priv *p = kvb_qemu_priv_of(t);
	int rc = need_guest(p, err);
	return rc ? rc : kvb_target_push(&p->ssh, local, remote, err);
}

static int qemu_pull(struct kvb_target *t, const char *remote, const char *local, struct kvb_error *err)
{
	struct qemu_priv *p = kvb_qemu_priv_of(t);
	int rc = need_guest(p, err);
	return rc ? rc : kvb_target_pull(&p->ssh, remote, local, err);
}

/* A reboot is a new QEMU process on the same kernel, initrd and cmdline. */
static int qemu_reboot(struct kvb_target *t, const char *mode, struct kvb_error *err)
{
	struct qemu_priv *p = kvb_qemu_priv_of(t);
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
	struct qemu_priv *p = kvb_qemu_priv_of(t);
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
	struct qemu_priv *p = kvb_qemu_priv_of(t);
	struct kvb_error ignored = { 0 };
	const char *files[] = { "known_hosts", "qemu.log", "console.log", "tbcount.sock" };
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
	struct qemu_priv *p = kvb_qemu_priv_of(t);
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
	.check = kvb_qemu_check,
	.insn_counter = kvb_qemu_insn_counter,
};
